"""The identifier guard's words of each language: cue words, calendar words, street types, word lists.

Each language is one hand-written file ``data/lexicon-<language>.txt`` (its sources in its header),
read into a :class:`Lexicon`, and a few word lists built from public data
(``data/<list>-<language>.txt``: their sources and licences in their headers; rebuilt by
``python -m bench.utility.guard_lists --write``):

* ``names``: names of the language's own Faker locales as they are written there (Cyrillic for
  Russian), beside the multilingual list every language uses (``edgedp/text/names.txt``);
* ``ambiguous``: names that are also frequent words of the language (``rosa``, ``mark``): protected
  only where the context names someone;
* ``common_places``: places that are also common words (``reading``, ``bath``, ``león``): protected
  only capitalized or after a place cue;
* ``surnames``: surnames that are also words (``park``, ``long``, ``blanco``): protected right after
  a given name;
* ``words``: the frequent words of the language (wordfreq, CC BY-SA 4.0): never a name by the cue
  rule (``hey lol``), and ambiguous places;
* ``cut``: the frequent words after which no rule of the guard looks at the next word: a stream may
  be cut after them (:func:`edgedp.text.identifiers.span_may_continue`);
* ``function``: the language's most frequent words that the name lists hold (``de``, ``la``,
  ``con``; ``die``, ``sie``; ``że``): never a name in that language (languages other than
  English, whose name list leaves them out already).

Every list is a sorted file read a block per lookup (:class:`edgedp.text.word_files.WordFile`),
opened on first use and only for the languages a call uses.

Examples
--------
>>> english = lexicon("en")
>>> "dr" in english.titles, "street" in english.street_types
(True, True)
>>> "okafor" in word_list("words", "en")
False
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path

from edgedp.errors import InputError
from edgedp.text.word_files import WordFile

#: The languages the guard has a lexicon for (ISO 639-1); ``"en"`` is the default everywhere.
LANGUAGES = ("en", "es", "de", "fr", "pt", "it", "ru", "pl")
#: Where the data files are.
DATA = Path(__file__).resolve().parent / "data"
#: The word lists of a language (``data/<list>-<language>.txt``).
WORD_LISTS = ("names", "ambiguous", "common_places", "surnames", "words", "cut", "function")


@dataclass(frozen=True, slots=True)
class Lexicon:
    """The words the guard's rules read in one language (all lower case).

    Parameters
    ----------
    language : str
        ISO 639-1 code (:data:`LANGUAGES`).
    titles : frozenset of str
        Titles and forms of address a name follows (``dr``, ``señor``, ``frau``, ``пан``).
    greetings : frozenset of str
        Greetings and vocatives a name follows (``hey``, ``hola``, ``привет``).
    address_verbs : frozenset of str
        Verbs of address and company a name follows (``call``, ``llama``, ``mit``).
    message_verbs : frozenset of str
        The verbs of address whose object may be the words sent (English ``texted``, ``dm``):
        a greeting after one is no name (``texted hi at 3``).
    sign_offs : frozenset of str
        Words that sign a message off before a name (``love``, ``besos``, ``lg``).
    conjunctions : frozenset of str
        The words for "and" and "or" that join two names.
    months, month_abbreviations, weekdays : tuple of str
        Calendar words (dates with a month name are identifiers; month names that are names, such
        as ``may``, are ambiguous).
    street_types : frozenset of str
        Street types after the street's name (``27 dorset st``, ``14 admiralty way``).
    numbered_street_types : frozenset of str
        Street types that are ordinary nouns too (German ``heide``, ``wiesen``, ``garten``): a
        street only with a house number right after them (``alte heide 188``), never with one
        before (``2 kinder im garten``).
    named_street_types : frozenset of str
        Street types that are frequent words ending ordinary phrases after a number too (English
        ``approach``, ``ground``: ``a 2 step approach``): a street only after a house number and a
        name that is no common word, or one surname that is (``4 teresa approach``, ``6 burns
        reach``).
    strong_street_types : frozenset of str
        Street types that make an address without a house number (``dorset street``).
    street_types_before : frozenset of str
        Street types before the name (``rue``, ``calle``, ``via``, ``ul``, ``улица``).
    street_suffixes : tuple of str
        Endings of one-word street names (``hauptstraße 5``, ``ackerweg 3``).
    numbered_street_suffixes : tuple of str
        Endings of one-word street names right after a house number only (English ``side``,
        ``lands``: ``146 riverside``, ``203 woodlands``; never a cut word, ``3 inside``).
    strong_street_suffixes : tuple of str
        Those endings that make an address without a house number (``hauptstraße``).
    street_particles : frozenset of str
        Words inside a street's name after a type before it (``de``, ``la``, ``del``), and words a
        street's name may hold that are frequent otherwise (English ordinals: ``fifth avenue``).
    street_directions : frozenset of str
        Compass points before a street's name or after its type (``1234 n main st``, ``1600
        pennsylvania ave nw``).
    street_articles : frozenset of str
        Articles a street's name may start with right after a house number (``132 the square``):
        cut words everywhere else, so not among :attr:`rule_words`.
    street_adjectives : frozenset of str
        Adjectives a street's name is often made of before its type (German ``breite straße 9``,
        ``schöne aussicht 187``; English ``great north road``): never words a stream is cut
        after, so the name is read back from its type.
    street_adjective_suffixes : tuple of str
        Endings of adjectives a street's name may start with before its type, beside
        :attr:`street_adjectives` (German ``isch``: ``bergische landstr. 243``).
    street_prepositions : frozenset of str
        Prepositions a street's name may start with, an article after them, before a street type
        that is a noun too and its house number (German ``auf der weide 54``, ``an den wiesen
        3``); never words a stream is cut after.
    preposition_articles : frozenset of str
        The articles after a street preposition (``der`` of ``auf der weide 54``): a stream is
        never cut after one right after such a preposition; cut words everywhere else, so not
        among :attr:`rule_words`.
    saints : frozenset of str
        Sankt and its abbreviation (German ``sankt``, ``st``): a street's name may start with them,
        right after a street preposition too (``st. ingberter str. 151``, ``an st. andreas 145``).
    article_street_types : frozenset of str
        Words that make a street only right after a house number and an article (``68 the
        croft``, ``230 the ridings``), never after other words (``3 green limes``); names and
        frequent words elsewhere (``warren``, ``downs``), so not among :attr:`rule_words`.
    unit_words : frozenset of str
        Flats, units and their numbers (``flat 3``, ``apt 4b``, ``кв. 5``).
    floor_words : frozenset of str
        Floors and their numbers, taken only right before another part of an address (``level 8,
        678 karen villas``; ``level 8`` of a game stays words).
    address_suffixes : tuple of str
        Endings after a hyphen of romanized Asian streets and districts (``teheran-ro``).
    place_adjective_suffixes : tuple of str
        Endings that make an adjective of a place (German ``berliner`` of ``berlin``): such a word
        is no cut word (bench/utility/guard_lists.py leaves it out of the list), so it may name a
        street (``berliner platz 89``).
    place_cues : frozenset of str
        Words before a place that is also a common word (``in reading``).
    travel_verbs : frozenset of str
        Verbs and nouns of travel before a place's preposition (English ``flying``, ``moved``,
        ``train``: ``flying to reading``).
    travel_prepositions : frozenset of str
        A place cue only right after a travel verb (English ``to``); cut words everywhere else,
        so not among :attr:`rule_words`.
    courtesies : frozenset of str
        Words of courtesy that close a request right after an address (German ``bitte``,
        ``danke``): a clause ends before them (``schick es an auf dem forst 53 bitte``).
    epithets : frozenset of str
        Ranks, offices, kin, relations and descriptions written before a name that are names
        themselves, yet not cues (``colonel``, ``sister``, ``husband``, ``poor``): never taken
        into the name after them.
    clitics : frozenset of str
        What an apostrophe joins after a word and makes no name with it (English ``s``, ``d``,
        ``ll``, ``t``: ``mark's``, ``she'd``, ``he'll``, ``wasn't``); ``t`` ends a negation
        (``wasn't``), whose first part is no name nor rare word, and ``s`` a possessive, which
        names someone (``mark's``).
    elisions : frozenset of str
        What an apostrophe joins before a word and makes no name with it (French ``l``, ``j``,
        ``qu``, Italian ``dell``, ``un``: ``j'aime``, ``l'amore``).
    password_cues : frozenset of str
        Words a password or passphrase follows, after a colon, an equals sign or a copula
        (``password: hunter2``, ``pw is sunshine``, ``passwort ist``).
    copulas : frozenset of str
        The copulas between a password cue and the password (``is``, ``ist``, ``est``): cut words
        everywhere else, so not among :attr:`rule_words`.
    speech_verbs : frozenset of str
        Verbs of saying after their subject (``said``, ``dice``, ``disse``, ``sagt``): a name that
        is also a word right before one names someone (``rosa disse que não``). The rule reads
        the word after the name, so it never applies to a name that is a cut word.
    addressees : frozenset of str
        Whom a greeting addresses that names nobody and words of chat after a greeting (English
        ``guys``, ``man``, ``boo``, ``you``, ``til``): never a name alone after a greeting or a verb
        of address (``hey man, ...``, ``hey til``; ``hey bin, ...`` names someone).
    subject_pronouns : frozenset of str
        Pronouns that are subjects only (English ``he``, ``she``): never the object of a verb or
        preposition nor right before a name and a verb of saying, so a syllable of a name there
        (``call he lee``, ``he lee said``).
    phrase_openers : frozenset of str
        Determiners, conjunctions and discourse words that open a phrase before a noun or a name
        (English ``the``, ``my``, ``so``, ``but``): never a given name before a surname, even where
        they are syllables of names too (``with my son``, ``so mark said``).
    east_asian_surnames : frozenset of str
        The most frequent surnames of Korea, China and Vietnam in their usual romanizations, less
        English function words (English ``kim``, ``park``, ``wang``, ``nguyen``): a syllable of a
        name that is a word right before one, where the context names someone, is its given name
        (``call in park``).
    determiners : frozenset of str
        Determiners that are never pronouns (English ``the``, ``an``, ``my``): a noun or adjective
        follows them, never a copula, a preposition or a punctuation mark ending the phrase
        (``lunch with an was fun``, ``i saw my at 6``: a name).
    auxiliaries : frozenset of str
        Auxiliary verbs (English ``be``, ``do``, ``can``): never the object of a verb of address
        (``call be about it``: a name).
    vowel_articles : frozenset of str
        Articles written only before a vowel (English ``an``): before a word that starts with a
        consonant, no article (``an kim``: a given name and surname).
    object_prepositions : frozenset of str
        Prepositions whose object a name is (English ``to``, ``at``): never a given name right
        before a surname (``talk to lee``).
    interjections : frozenset of str
        Interjections of the language's chat (``ok``, ``naja``, ``лол``): words, never rare; a
        name of the lists spelled so is protected only where the context names someone
        (English's own lists decide this for English, which leaves the field empty).
    """

    language: str
    titles: frozenset[str]
    greetings: frozenset[str]
    address_verbs: frozenset[str]
    message_verbs: frozenset[str]
    sign_offs: frozenset[str]
    conjunctions: frozenset[str]
    months: tuple[str, ...]
    month_abbreviations: tuple[str, ...]
    weekdays: tuple[str, ...]
    street_types: frozenset[str]
    numbered_street_types: frozenset[str]
    named_street_types: frozenset[str]
    strong_street_types: frozenset[str]
    street_types_before: frozenset[str]
    street_suffixes: tuple[str, ...]
    numbered_street_suffixes: tuple[str, ...]
    strong_street_suffixes: tuple[str, ...]
    street_particles: frozenset[str]
    street_directions: frozenset[str]
    street_articles: frozenset[str]
    street_adjectives: frozenset[str]
    street_adjective_suffixes: tuple[str, ...]
    street_prepositions: frozenset[str]
    preposition_articles: frozenset[str]
    saints: frozenset[str]
    article_street_types: frozenset[str]
    unit_words: frozenset[str]
    floor_words: frozenset[str]
    address_suffixes: tuple[str, ...]
    place_adjective_suffixes: tuple[str, ...]
    place_cues: frozenset[str]
    travel_verbs: frozenset[str]
    travel_prepositions: frozenset[str]
    courtesies: frozenset[str]
    epithets: frozenset[str]
    clitics: frozenset[str]
    elisions: frozenset[str]
    password_cues: frozenset[str]
    copulas: frozenset[str]
    speech_verbs: frozenset[str]
    addressees: frozenset[str]
    subject_pronouns: frozenset[str]
    phrase_openers: frozenset[str]
    east_asian_surnames: frozenset[str]
    determiners: frozenset[str]
    auxiliaries: frozenset[str]
    vowel_articles: frozenset[str]
    object_prepositions: frozenset[str]
    interjections: frozenset[str]

    @property
    def context_words(self) -> frozenset[str]:
        """Every word after which a rule reads the next word (a stream is never cut there)."""
        return (
            self.titles
            | self.greetings
            | self.address_verbs
            | self.sign_offs
            | self.conjunctions
            | self.unit_words
            | self.floor_words
            | self.street_types_before
            | self.street_prepositions
            | self.saints
            | self.street_adjectives
            | self.street_particles
            | self.street_directions
            | self.place_cues
            | self.travel_verbs
            | self.password_cues
            | frozenset(self.months + self.month_abbreviations)
        )

    @property
    def rule_words(self) -> frozenset[str]:
        """Every word of this lexicon, each word of an entry of several (``fire``, ``track`` of
        ``fire track``): none of them may be a word after which a stream is cut."""
        street_types = self.street_types | self.numbered_street_types | self.named_street_types
        entries = self.context_words | street_types | frozenset(self.weekdays)
        return frozenset(word for entry in entries for word in entry.split())  # ``fire track``


def check_language(language: object) -> str:
    """``language`` if the guard has a lexicon for it, else :class:`~edgedp.errors.InputError`.

    Examples
    --------
    >>> check_language("de")
    'de'
    """
    if not isinstance(language, str) or language not in LANGUAGES:
        raise InputError(
            f"language must be one of {', '.join(LANGUAGES)} (ISO 639-1), got {language!r}"
        )
    return language


def _fields(text: str) -> dict[str, list[str]]:
    """``field: words`` lines (a line that starts with a space goes on with the field above)."""
    values: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line[0].isspace() and current is not None:
            values[current].extend(line.split())
            continue
        name, _, words = line.partition(":")
        current = name.strip()
        values[current] = words.split()
    return values


@cache
def lexicon(language: str = "en") -> Lexicon:
    """The lexicon of ``language`` (read once from ``data/lexicon-<language>.txt``; ``+`` joins
    the words of one entry there: ``fire+track``).

    Raises
    ------
    InputError
        If the guard has no lexicon for ``language``.
    """
    path = DATA / f"lexicon-{check_language(language)}.txt"
    values = _fields(path.read_text(encoding="utf-8"))
    kwargs: dict[str, object] = {"language": language}
    for field in fields(Lexicon):
        if field.name == "language":
            continue
        # ``+`` joins the words of one entry (``fire+track``: ``fire track``)
        words = [word.lower().replace("+", " ") for word in values.get(field.name, [])]
        kwargs[field.name] = tuple(words) if "tuple" in str(field.type) else frozenset(words)
    return Lexicon(**kwargs)  # type: ignore[arg-type]


_EMPTY = WordFile.empty()


@cache
def word_list(kind: str, language: str = "en") -> WordFile:
    """The word list ``kind`` (:data:`WORD_LISTS`) of ``language``, read from its file per lookup
    (empty where the language has none)."""
    if kind not in WORD_LISTS:
        raise InputError(f"no word list {kind!r} (known: {', '.join(WORD_LISTS)})")
    path = DATA / f"{kind}-{check_language(language)}.txt"
    return WordFile(path) if path.is_file() else _EMPTY
