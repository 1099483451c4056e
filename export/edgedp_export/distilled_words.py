"""Word vectors for any language: wordfreq's most frequent words, each embedded alone by the
multilingual Universal Sentence Encoder (a model2vec-style static distillation).

The vocabulary is the ``size`` most frequent words of ``wordfreq.top_n_list(language, ...)`` that
are written in the language's script alone (:func:`is_script_word`: letters only, lower case, no
digit, no apostrophe or hyphen) and that the runtime tokenizer reads as one word slot with that
lookup key (:func:`edgedp_export.words.is_vocabulary_word`), in wordfreq's frequency order.

Each word is a one-word "sentence" for the ``encoder-use-multilingual`` pack (Universal Sentence
Encoder multilingual v3, 512-d, unit length), run with edgedp's own encoder runtime in large
batches. As model2vec does with the token embeddings it distils, the vectors are then centred on
their mean and reduced by PCA (:data:`PCA_DIMS` dims, float32): a single word's sentence embedding
carries a large component shared by every one-word input, which would otherwise dominate cosine
distance; PCA keeps the directions in which words differ, and a 256-bit code over 256 dims lets the
binary autoencoder's projection be orthogonal.

Licences (recorded in the manifest's ``source``): wordfreq's word lists are CC BY-SA 4.0 (its code
Apache-2.0), the Universal Sentence Encoder's weights Apache-2.0, so a pack built from this source
is CC-BY-SA-4.0 AND Apache-2.0.
"""

from __future__ import annotations

import importlib.metadata
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from tqdm import tqdm

from edgedp.errors import DependencyError, InputError
from edgedp.text.segmentation import normalize_word
from edgedp_export.sources import WordVectors

#: The encoder pack whose encoder embeds the words.
ENCODER_PACK = "encoder-use-multilingual"
#: Each language's script (Unicode character-name prefix of its letters). wordfreq has more
#: languages; these are the word packs' (edgedp.languages.packs).
SCRIPTS = {
    "en": "LATIN",
    "es": "LATIN",
    "de": "LATIN",
    "fr": "LATIN",
    "pt": "LATIN",
    "it": "LATIN",
    "pl": "LATIN",
    "ru": "CYRILLIC",
}
#: The languages a word is compared with, by script: a word that wordfreq finds more than
#: 10 ** FOREIGN_MARGIN times as frequent in one of them as in the pack's language is that
#: language's word (``house``, ``talking``, ``maison`` and ``não`` are frequent in Spanish web
#: text) and is left out, so that a Spanish pack releases Spanish words; shared words (``casa``
#: in es/pt/it, ``internet``, ``show``) stay.
COMPARED = {
    "LATIN": ("en", "es", "de", "fr", "pt", "it", "pl", "nl"),
    "CYRILLIC": ("ru", "uk", "bg"),
}
#: In zipf units (log10 of frequency): 1.5 is about 32 times as frequent. At 1.0 the Spanish
#: list lost ``brasil``, ``italia`` and ``show``, the Russian one ``да``, ``март`` and ``село``
#: (frequent in Bulgarian too); at 1.5 Spanish loses ``the``, ``house``, ``love``, ``não``
#: (1,534 of the first ~43,000) and Russian Ukrainian and Bulgarian words (``як``, ``хора``: 98).
FOREIGN_MARGIN = 1.5
#: Languages whose words use only part of their script's letters (Russian: not the Ukrainian і,
#: ї, є, ґ or the Serbian ђ, ј, љ, ...).
ALPHABETS = {"ru": frozenset("абвгдеёжзийклмнопрстуфхцчшщъыьэюя")}
#: Dimensions kept by the PCA after centring (None: keep the encoder's 512).
PCA_DIMS = 256
#: wordfreq words read per requested word (most rejected ones are digits, names in other scripts,
#: apostrophes); the list is read again, longer, if this was not enough.
_OVERSAMPLE = 2
#: Words per encoder call (one-word sentences of 3-6 tokens: a batch pads little). 40,000 words
#: take about 20 s on 2 cores this way, 7 minutes one small call per word.
BATCH = 512
#: onnxruntime intra-op threads of the exporter's encoder (calls one at a time, large batches).
ENCODER_THREADS = 2
WORDFREQ_LICENSE = "CC-BY-SA-4.0"
ENCODER_LICENSE = "Apache-2.0"
WORDFREQ_ATTRIBUTION = (
    "Robyn Speer. 2022. rspeer/wordfreq: v3.0 (Zenodo, doi:10.5281/zenodo.7199437); word "
    "frequencies from Wikipedia, subtitles (OpenSubtitles 2018, SUBTLEX), news, books (Google "
    "Books Ngrams), web text (OSCAR), Twitter and Reddit"
)


def is_script_word(word: str, language: str) -> bool:
    """True if ``word`` is lower case and written only in the letters of ``language``'s script
    (or its alphabet, :data:`ALPHABETS`): no digit, no apostrophe, hyphen or other punctuation;
    combining marks after a letter allowed."""
    script = SCRIPTS.get(language)
    if script is None:
        raise InputError(f"no script known for language {language!r} ({', '.join(SCRIPTS)})")
    if not word or word != word.lower():
        return False
    alphabet = ALPHABETS.get(language)
    if alphabet is not None:
        return all(character in alphabet for character in word)
    for position, character in enumerate(word):
        category = unicodedata.category(character)
        if category.startswith("M") and position:
            continue  # combining accents after a letter (wordfreq's lists are NFC, so rare)
        if not category.startswith("L") or not unicodedata.name(character, "").startswith(script):
            return False
    return True


def wordfreq_vocabulary(
    language: str,
    size: int,
    *,
    top_n_list: Callable[[str, int], Sequence[str]] | None = None,
    frequencies: Mapping[str, Mapping[str, float]] | None = None,
    keep: Callable[[str], bool] | None = None,
    dropped: list[str] | None = None,
) -> list[str]:
    """The ``size`` most frequent words of ``language`` in wordfreq (frequency order) that pass
    :func:`is_script_word`, are not another language's words (:func:`foreign`, against
    ``frequencies``: language -> word -> frequency, by default wordfreq's of :data:`COMPARED`; none
    when ``top_n_list`` is given without them) and pass ``keep`` (default: the runtime tokenizer
    reads them as one word), normalized as the runtime looks them up (NFKC, lower case), each once.

    ``top_n_list`` stands in for ``wordfreq.top_n_list`` (tests); the foreign words left out are
    appended to ``dropped`` when it is given."""
    if size < 1:
        raise InputError(f"size must be positive, got {size}")
    if top_n_list is None:
        top_n_list = _wordfreq_top_n_list()
        if frequencies is None:
            frequencies = wordfreq_frequencies(language)
    if keep is None:
        from edgedp_export.words import is_vocabulary_word

        keep = is_vocabulary_word
    requested = size * _OVERSAMPLE
    while True:
        listed = list(top_n_list(language, requested))
        chosen: dict[str, None] = {}
        foreign_words: list[str] = []
        for token in listed:
            word = normalize_word(token)
            if word in chosen or not is_script_word(word, language) or not keep(word):
                continue
            if frequencies is not None and foreign(word, language, frequencies):
                foreign_words.append(word)
                continue
            chosen[word] = None
            if len(chosen) == size:
                if dropped is not None:
                    dropped.extend(foreign_words)
                return list(chosen)
        if len(listed) < requested:  # wordfreq has no more words of this language
            raise InputError(
                f"wordfreq lists only {len(chosen):,} usable {language} words, {size:,} requested"
            )
        requested *= 2


def foreign(
    word: str,
    language: str,
    frequencies: Mapping[str, Mapping[str, float]],
    margin: float = FOREIGN_MARGIN,
) -> bool:
    """True if ``word`` is more than ``10 ** margin`` times as frequent in another language of
    ``frequencies`` as in ``language``."""
    own = frequencies[language].get(word, 0.0) * 10.0**margin
    return any(
        table.get(word, 0.0) > own for other, table in frequencies.items() if other != language
    )


def wordfreq_frequencies(language: str) -> dict[str, Mapping[str, float]]:
    """wordfreq's frequency tables (``best`` lists) of ``language`` and the languages of its
    script in :data:`COMPARED`."""
    try:
        import wordfreq
    except ImportError:
        raise DependencyError(
            "the use-multilingual word sources need wordfreq: pip install './export[languages]'"
        ) from None
    compared = COMPARED.get(SCRIPTS.get(language, ""), ())
    return {
        other: wordfreq.get_frequency_dict(other, wordlist="best")
        for other in dict.fromkeys((language, *compared))
    }


def _wordfreq_top_n_list() -> Callable[[str, int], Sequence[str]]:
    try:
        import wordfreq
    except ImportError:
        raise DependencyError(
            "the use-multilingual word sources need wordfreq: pip install './export[languages]'"
        ) from None
    return lambda language, n: wordfreq.top_n_list(language, n, wordlist="best")


def embed_words(
    words: Sequence[str],
    encode: Callable[[Sequence[str]], np.ndarray],
    *,
    batch: int = BATCH,
    progress: bool = True,
) -> np.ndarray:
    """float32 embeddings of each word alone, shape (len(words), dims): ``encode`` (a sentence
    encoder's ``encode``) called on batches of ``batch`` one-word sentences."""
    starts = range(0, len(words), batch)
    blocks = [
        np.asarray(encode(list(words[start : start + batch])), dtype=np.float32)
        for start in tqdm(starts, desc="embedding words", unit="batch", disable=not progress)
    ]
    if not blocks:
        raise InputError("no words to embed")
    return np.concatenate(blocks)


def centred_pca(vectors: np.ndarray, dims: int | None) -> tuple[np.ndarray, dict[str, Any]]:
    """``vectors`` centred on their mean and projected on their ``dims`` principal directions
    (float32; all directions for None or ``dims`` >= the input's), and what was done, for the
    manifest (the share of variance kept)."""
    array = np.asarray(vectors, dtype=np.float64)
    centred = array - array.mean(axis=0)
    if dims is None or dims >= array.shape[1]:
        return centred.astype(np.float32), {"centred": True, "pca_dims": None}
    if dims < 1 or dims > len(array):
        raise InputError(f"PCA to {dims} dims needs at least {dims} words, got {len(array)}")
    covariance = centred.T @ centred / max(len(array) - 1, 1)
    values, directions = np.linalg.eigh(covariance)  # ascending
    order = np.argsort(values)[::-1][:dims]
    basis = directions[:, order]
    largest = basis[np.abs(basis).argmax(axis=0), np.arange(dims)]
    basis *= np.where(largest < 0, -1.0, 1.0)  # each direction's sign fixed: deterministic output
    kept = float(values[order].sum() / max(values.sum(), 1e-300))
    return (centred @ basis).astype(np.float32), {
        "centred": True,
        "pca_dims": dims,
        "variance_kept": round(kept, 4),
    }


def use_multilingual_words(
    language: str,
    size: int,
    *,
    encoder: Any = None,
    top_n_list: Callable[[str, int], Sequence[str]] | None = None,
    frequencies: Mapping[str, Mapping[str, float]] | None = None,
    pca_dims: int | None = PCA_DIMS,
) -> WordVectors:
    """The source ``use-multilingual-LANG``: ``size`` wordfreq words of ``language`` embedded by
    the multilingual Universal Sentence Encoder (module docstring). ``encoder``: an encoder pack
    (default: ``encoder-use-multilingual``), or an object with its ``sentence_encoder(threads=)``
    and ``manifest``."""
    dropped: list[str] = []
    words = wordfreq_vocabulary(
        language, size, top_n_list=top_n_list, frequencies=frequencies, dropped=dropped
    )
    if encoder is None:
        from edgedp.registry import load_pack

        encoder = load_pack(ENCODER_PACK, kind="encoder")
    fast = encoder.sentence_encoder(threads=ENCODER_THREADS)
    fast.batch_size, fast.batch_tokens = BATCH, BATCH * 32  # one call per batch of words
    vectors = embed_words(words, fast.encode)
    reduced, reduction = centred_pca(vectors, pca_dims)
    manifest = encoder.manifest
    return WordVectors(
        words,
        reduced,
        {
            "name": (
                f"wordfreq's {language} words, each embedded alone by the Universal Sentence "
                f"Encoder multilingual v3 ({ENCODER_PACK}), centred"
                + (f", PCA to {pca_dims} dims" if reduction["pca_dims"] else "")
            ),
            "language": language,
            "license": f"{WORDFREQ_LICENSE} AND {ENCODER_LICENSE}",
            "licenses": {
                "vocabulary": f"{WORDFREQ_LICENSE} (wordfreq's word lists; its code Apache-2.0)",
                "vectors": f"{ENCODER_LICENSE} (Universal Sentence Encoder multilingual v3)",
            },
            "attribution": (
                f"vocabulary: {WORDFREQ_ATTRIBUTION}; vectors: "
                + str(manifest.data.get("source", {}).get("attribution", ENCODER_PACK))
            ),
            "url": "https://github.com/rspeer/wordfreq",
            "package": "wordfreq",
            "package_version": _version("wordfreq"),
            "wordlist": "best",
            "script": SCRIPTS[language],
            "foreign_words": {
                "rule": f"left out: words more than 10 ** {FOREIGN_MARGIN:g} times as frequent in "
                "wordfreq's list of another language of the script",
                "compared": [other for other in COMPARED[SCRIPTS[language]] if other != language],
                "left_out": len(dropped),
                "examples": dropped[:20],
            },
            "encoder_pack": {"name": manifest.name, "manifest_sha256": manifest.digest},
            "distillation": {
                "input": "each word alone, as a one-word sentence",
                "encoder_dims": int(vectors.shape[1]),
                **reduction,
            },
        },
        language=language,
    )


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"
