"""A language-independent check of a words pack's Hamming neighbours: do they share the word's stem?

For a sample of words (of at least :data:`PREFIX` letters), the share of each word's ``k`` nearest
words by Hamming distance (itself excluded) that share its first :data:`PREFIX` letters, or of
which it is a prefix or that are a prefix of it with at least 3 letters (inflections and
derivations: ``casa``/``casas``, ``hablar``/``hablamos``, ``дом``/``дома``), against the same
share for ``k`` words drawn at random from the vocabulary (the chance level). It needs no
lemmatizer, so it reads every language's pack alike and a Spanish pack can be set beside the
English ``words-small``; it says nothing of synonyms, which the pack's binarization report
(float-cosine overlap) covers.
"""

from __future__ import annotations

from collections.abc import Sequence

import faiss
import numpy as np

#: Letters two words must share at the start to count as one stem.
PREFIX = 4
#: Neighbours per word.
NEIGHBOURS = 10
#: Words sampled per pack.
SAMPLE = 1000


def shares_stem(word: str, other: str, prefix: int = PREFIX) -> bool:
    """True if ``word`` and ``other`` share their first ``prefix`` letters, or the shorter (of at
    least 3 letters) begins the longer."""
    shorter, longer = sorted((word, other), key=len)
    if len(shorter) >= prefix:
        return shorter[:prefix] == longer[:prefix]
    return len(shorter) >= 3 and longer.startswith(shorter)


def hamming_neighbours(codes: np.ndarray, sample: np.ndarray, k: int) -> np.ndarray:
    """Ids of the ``k`` nearest words by Hamming distance of each sampled word (itself excluded;
    faiss's exact search, shape (len(sample), k))."""
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    _, ids = faiss.knn_hamming(np.ascontiguousarray(codes[sample]), codes, k + 1)
    return np.array(
        [[i for i in row if i != word][:k] for row, word in zip(ids, sample, strict=True)]
    )


def stem_neighbour_share(
    words: Sequence[str],
    codes: np.ndarray,
    *,
    k: int = NEIGHBOURS,
    sample_size: int = SAMPLE,
    prefix: int = PREFIX,
    seed: int = 0,
) -> dict[str, float | int]:
    """The share of ``k`` Hamming neighbours that share the word's stem (:func:`shares_stem`) over
    ``sample_size`` words of at least ``prefix`` letters drawn with ``seed``, and the same share
    for ``k`` random vocabulary words (chance)."""
    rng = np.random.default_rng(seed)
    eligible = np.array([i for i, word in enumerate(words) if len(word) >= prefix], dtype=np.int64)
    if len(eligible) == 0 or len(words) <= k:
        raise ValueError(f"need more than {k} words and some of at least {prefix} letters")
    sample = np.sort(rng.choice(eligible, size=min(sample_size, len(eligible)), replace=False))
    neighbours = hamming_neighbours(codes, sample, k)
    random_ids = rng.integers(0, len(words), size=(len(sample), k))

    def share(ids: np.ndarray) -> float:
        hits = sum(
            shares_stem(words[word], words[other], prefix)
            for word, row in zip(sample, ids, strict=True)
            for other in row
            if other != word
        )
        return hits / ids.size

    return {
        "stem_share": round(share(neighbours), 4),
        "chance": round(share(random_ids), 4),
        "k": k,
        "prefix": prefix,
        "sample": len(sample),
        "seed": seed,
    }
