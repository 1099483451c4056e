"""The language identifier's model (``edgedp/languages/identifier.bin``) from public word lists.

Each language is a word frequency list: its most frequent words are kept with their frequencies,
and a character 4-gram model is counted over its rarer words (:mod:`edgedp.languages.identification`
says how the runtime scores a text with them). The lists come from

* ``wordfreq`` (installed; data CC BY-SA 4.0, Robyn Speer et al.): the "small" lists of its
  42 languages, each word weighted by its frequency in running text (Wikipedia, subtitles, news,
  books, web, Twitter, Reddit);
* LibreOffice's user-interface translations (Debian ``libreoffice-l10n-<lang>``, MPL-2.0) for
  :data:`TRANSLATION_LANGUAGES`, languages that wordfreq lacks, so that their text is named rather
  than taken for a language with a word pack (Galician for Portuguese, Afrikaans for Dutch, Basque,
  Esperanto, Welsh, Irish, Belarusian, Serbian in Cyrillic, Thai, Georgian, ...). A translation's
  words that its English source also holds (names, untranslated terms) are not counted.

Words are split exactly as the runtime splits them (:func:`edgedp.languages.identification.words`).
Nothing random is involved: the same sources and parameters give the same file, byte for byte.
"""

from __future__ import annotations

import importlib.metadata
import struct
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from edgedp.errors import InputError
from edgedp.languages.identification import (
    MAX_ORDER,
    MODEL_ARRAYS,
    IdentifierModel,
    ngram_keys,
    padded_codes,
    quantize,
    word_keys,
    words,
)

#: The languages with word packs: deeper word lists and the second tier of prior weight.
PACK_LANGUAGES = ("en", "es", "de", "fr", "pt", "it", "ru", "pl")
#: Languages from LibreOffice's translations (Debian package ``libreoffice-l10n-<code>``).
TRANSLATION_LANGUAGES = (
    *("af", "am", "ast", "be", "br", "cy", "eo", "et", "eu", "ga", "gd", "gl"),
    *("ka", "kk", "km", "oc", "rw", "si", "sr", "th", "uz", "xh", "zu"),
)
#: Frequency mass a translation list leaves to words it does not hold (wordfreq's lists leave
#: what their frequencies do not cover, about 4-9 %).
TRANSLATION_UNKNOWN_MASS = 0.05
#: Weight of the uniform floor and of the character orders 1..4 in P(character | history).
INTERPOLATION = (1e-5, 0.05, 0.15, 0.3, 0.5)
WORDFREQ_ATTRIBUTION = (
    "wordfreq by Robyn Speer and contributors (https://github.com/rspeer/wordfreq), data "
    "CC BY-SA 4.0: includes data from Wikipedia, OPUS OpenSubtitles 2018, SUBTLEX, NewsCrawl, "
    "GlobalVoices, Google Books Ngrams, OSCAR, Twitter and Reddit, as listed in its README"
)
LIBREOFFICE_ATTRIBUTION = (
    "LibreOffice translations by The Document Foundation and the LibreOffice contributors "
    "(Debian packages libreoffice-l10n-*), MPL-2.0"
)


@dataclass(frozen=True)
class Budget:
    """How much of a language the model keeps: its ``words`` most frequent words and its
    ``ngrams`` most frequent character n-grams; and its prior weight."""

    words: int
    ngrams: int
    prior: float


#: Budgets by tier: English, the other pack languages, wordfreq's others, the translations.
#: English keeps its whole list and the largest prior, which is what keeps English text English
#: (bench/reports/2026-11-29-language-identification.md measures the trade-off).
BUDGETS = {
    "english": Budget(40_000, 8_000, 120.0),
    "pack": Budget(15_000, 6_000, 4.0),
    "wordfreq": Budget(3_000, 5_000, 1.0),
    "translation": Budget(1_500, 3_000, 1.0),
}


@dataclass(frozen=True)
class WordList:
    """A language's words with their frequencies (per word of running text), most frequent
    first; ``source``: where they come from (for the model's metadata)."""

    language: str
    words: tuple[str, ...]
    frequencies: tuple[float, ...]
    source: str

    @classmethod
    def from_counts(cls, language: str, counts: Mapping[str, float], source: str) -> WordList:
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        return cls(
            language,
            tuple(word for word, _ in ranked),
            tuple(float(value) for _, value in ranked),
            source,
        )


def split_counts(entries: Iterable[tuple[str, float]]) -> dict[str, float]:
    """Counts per word as the runtime splits words: an entry's weight goes to each of its words."""
    counts: dict[str, float] = defaultdict(float)
    for entry, weight in entries:
        for word in words(entry):
            counts[word] += weight
    return dict(counts)


def wordfreq_list(language: str) -> WordList:
    """wordfreq's "small" list of ``language`` (frequencies as wordfreq gives them)."""
    try:
        import wordfreq
    except ImportError:
        raise InputError(
            "the language identifier needs wordfreq: pip install './export[langid]'"
        ) from None
    counts = split_counts(wordfreq.get_frequency_dict(language, "small").items())
    version = importlib.metadata.version("wordfreq")
    return WordList.from_counts(language, counts, f"wordfreq {version} small/{language}")


def mo_messages(data: bytes) -> list[tuple[str, str]]:
    """The (source, translation) pairs of a GNU gettext ``.mo`` catalog, in file order: plural
    forms joined by a space, message contexts dropped, the header entry included (source "")."""
    byte_order = {0x950412DE: "<", 0xDE120495: ">"}.get(int.from_bytes(data[:4], "little"))
    if byte_order is None:
        raise InputError("not a GNU gettext .mo catalog")
    count, sources_at, translations_at = struct.unpack_from(byte_order + "3I", data, 8)
    messages = []
    for index in range(count):
        texts = []
        for table in (sources_at, translations_at):
            length, offset = struct.unpack_from(byte_order + "2I", data, table + 8 * index)
            texts.append(data[offset : offset + length].decode("utf-8", errors="replace"))
        source = texts[0].rpartition("\x04")[2].replace("\0", " ")
        messages.append((source, texts[1].replace("\0", " ")))
    return messages


def translation_list(language: str, root: Path, version: str) -> WordList:
    """The words of LibreOffice's translations into ``language`` (the unpacked Debian package
    ``libreoffice-l10n-<language>`` at ``root``), untranslated strings and words copied from the
    English source left out; frequencies leave :data:`TRANSLATION_UNKNOWN_MASS` to other words."""
    folder = root / "usr/lib/libreoffice/program/resource" / language / "LC_MESSAGES"
    catalogs = sorted(folder.glob("*.mo"))
    if not catalogs:
        raise InputError(f"no LibreOffice translations for {language!r} in {folder}")
    entries: list[tuple[str, float]] = []
    for path in catalogs:
        for source, translation in mo_messages(path.read_bytes()):
            if source and translation != source:
                copied = set(words(source))
                entries += [(word, 1.0) for word in words(translation) if word not in copied]
    counts = split_counts(entries)
    total = sum(counts.values()) / (1 - TRANSLATION_UNKNOWN_MASS)
    return WordList.from_counts(
        language,
        {word: count / total for word, count in counts.items()},
        f"Debian libreoffice-l10n-{language} {version}",
    )


@dataclass(frozen=True)
class LanguageTables:
    """What the model stores of one language (see :class:`IdentifierModel`)."""

    word_keys: np.ndarray[Any, np.dtype[np.uint32]]
    word_log_frequencies: np.ndarray[Any, np.dtype[np.float64]]
    ngram_keys: np.ndarray[Any, np.dtype[np.uint32]]
    ngram_log_counts: np.ndarray[Any, np.dtype[np.float64]]
    log_unknown: float
    log_characters: float


def language_tables(words_list: WordList, budget: Budget) -> LanguageTables:
    """The kept words and the character model of one language.

    The ``budget.words`` most frequent words are kept with their frequencies; the rest of the
    mass (the words not kept and those the list lacks) is the unknown-word mass. The character
    n-grams are counted over the list's rarer words (all but its most frequent third, or all but
    the kept words if fewer), each weighted by its frequency, per word of that tail; the
    ``budget.ngrams`` most frequent n-grams are kept.
    """
    count = len(words_list.words)
    if count < 3:
        raise InputError(f"{words_list.language}: too few words ({count})")
    kept = min(budget.words, count - 1)
    frequencies = np.array(words_list.frequencies)
    log_unknown = float(np.log(max(1.0 - frequencies[:kept].sum(), 1e-6)))
    tail_start = min(kept, count // 3)
    tail = words_list.words[tail_start:]
    weights = frequencies[tail_start:] / frequencies[tail_start:].sum()
    codes, offset = padded_codes(tail)
    keys = ngram_keys(codes)
    lengths = np.fromiter((len(word) + 2 for word in tail), np.int64, len(tail))
    position_weights = np.repeat(weights, lengths)
    inside = [offset >= order for order in range(MAX_ORDER)]
    unique, inverse = np.unique(
        np.concatenate([keys[order][inside[order]] for order in range(MAX_ORDER)]),
        return_inverse=True,
    )
    counts = np.bincount(
        inverse,
        weights=np.concatenate([position_weights[inside[order]] for order in range(MAX_ORDER)]),
    )
    top = np.sort(np.argsort(-counts, kind="stable")[: budget.ngrams])
    return LanguageTables(
        word_keys(words_list.words[:kept]),
        np.log(frequencies[:kept]),
        unique[top],
        np.log(counts[top]),
        log_unknown,
        float(np.log(np.sum(weights * (lengths - 1)))),
    )


def tier(language: str, sources: Mapping[str, str]) -> str:
    """The budget tier of ``language`` (a key of :data:`BUDGETS`)."""
    if language == "en":
        return "english"
    if language in PACK_LANGUAGES:
        return "pack"
    return "wordfreq" if sources[language].startswith("wordfreq") else "translation"


def build_identifier(
    lists: Sequence[WordList],
    budgets: Mapping[str, Budget],
    metadata: Mapping[str, Any],
) -> IdentifierModel:
    """The identifier model of ``lists`` (one per language), sorted by language code."""
    ordered = sorted(lists, key=lambda item: item.language)
    codes = [item.language for item in ordered]
    if len(set(codes)) != len(codes) or len(codes) > 255:
        raise InputError(f"languages must be distinct and at most 255: {codes}")
    sources = {item.language: item.source for item in ordered}
    keys, languages, values = [], [], []
    log_unknown, log_characters, priors = [], [], []
    for index, item in enumerate(ordered):
        budget = budgets[tier(item.language, sources)]
        tables = language_tables(item, budget)
        for part_keys, part_values in (
            (tables.word_keys, tables.word_log_frequencies),
            (tables.ngram_keys, tables.ngram_log_counts),
        ):
            keys.append(part_keys)
            values.append(part_values)
            languages.append(np.full(part_keys.size, index, dtype=np.uint8))
        log_unknown.append(tables.log_unknown)
        log_characters.append(tables.log_characters)
        priors.append(budget.prior)
    all_keys = np.concatenate(keys)
    all_languages = np.concatenate(languages)
    all_values = np.concatenate(values)
    # Two features of one language with the same 32-bit key (a handful in a model) are one entry,
    # with the larger value.
    pairs = (all_keys.astype(np.uint64) << np.uint64(8)) | all_languages.astype(np.uint64)
    order = np.argsort(pairs, kind="stable")
    pairs, all_values = pairs[order], all_values[order]
    starts = np.flatnonzero(np.concatenate([[True], pairs[1:] != pairs[:-1]]))
    all_values = np.maximum.reduceat(all_values, starts)
    pairs = pairs[starts]
    all_keys = (pairs >> np.uint64(8)).astype(np.uint32)
    all_languages = (pairs & np.uint64(0xFF)).astype(np.uint8)
    unique, first = np.unique(all_keys, return_index=True)
    model = IdentifierModel(
        languages=tuple(codes),
        keys=unique,
        offsets=np.append(first, all_keys.size).astype(np.uint32),
        entry_language=all_languages,
        entry_value=quantize(all_values),
        log_unknown=np.array(log_unknown),
        log_characters=np.array(log_characters),
        prior_weights=np.array(priors),
        interpolation=np.array(INTERPOLATION),
        metadata={
            **metadata,
            "languages": {code: sources[code] for code in codes},
            "budgets": {name: asdict(budget) for name, budget in budgets.items()},
            "interpolation": list(INTERPOLATION),
            "arrays": list(MODEL_ARRAYS),
        },
    )
    model.check(contents=True)
    return model
