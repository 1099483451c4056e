"""How much semantics binary codes (and float16 vectors) keep, measured against float32 cosine.

* 10-NN overlap: for a fixed sample of words, the share of each word's 10 nearest neighbours by
  float cosine that are also among its 10 nearest by Hamming distance. Hamming distances tie a lot,
  so the Hamming 10-NN set is ambiguous; we report the *expected* overlap when ties at the 10th
  distance are broken uniformly at random (no hidden preference for frequent words).
* Spearman correlation between Hamming distance and cosine distance on random word pairs.
* float16: does storing vectors as float16 change Euclidean nearest neighbours? Measured on clean
  vectors and on Madlib-noised ones (the queries the Euclidean mechanisms actually make).
"""

from __future__ import annotations

import faiss
import numpy as np
from scipy import stats

_QUERY_CHUNK = 32


def _as_words(codes: np.ndarray) -> np.ndarray:
    """Codes as uint64 words for fast popcounts when the width allows, else as bytes."""
    codes = np.ascontiguousarray(codes)
    return codes.view(np.uint64) if codes.shape[1] % 8 == 0 else codes


def cosine_neighbours(vectors: np.ndarray, sample: np.ndarray, k: int = 10) -> np.ndarray:
    """Ids of the ``k`` nearest words by cosine of each sampled word (itself excluded)."""
    unit = np.asarray(vectors, dtype=np.float32)
    unit = unit / np.linalg.norm(unit, axis=1, keepdims=True)
    index = faiss.IndexFlatIP(unit.shape[1])
    index.add(unit)
    _, ids = index.search(unit[sample], k + 1)
    return np.array([row[row != word][:k] for row, word in zip(ids, sample, strict=True)])


def expected_neighbour_overlap(
    codes: np.ndarray, sample: np.ndarray, reference: np.ndarray
) -> float:
    """Mean expected |Hamming-kNN ∩ reference| / k over the sample, ties broken at random."""
    k = reference.shape[1]
    words = _as_words(codes)
    total = 0.0
    for start in range(0, len(sample), _QUERY_CHUNK):
        chunk = sample[start : start + _QUERY_CHUNK]
        distances = np.bitwise_count(words[chunk][:, None, :] ^ words[None, :, :]).sum(axis=2)
        distances[np.arange(len(chunk)), chunk] = np.iinfo(distances.dtype).max  # not itself
        for row, wanted in zip(distances, reference[start : start + len(chunk)], strict=True):
            kth = np.partition(row, k - 1)[k - 1]
            closer = row[wanted] < kth
            tied = row[wanted] == kth
            needed = k - int(np.count_nonzero(row < kth))
            total += closer.sum() + needed * tied.sum() / np.count_nonzero(row == kth)
    return total / (k * len(sample))


def hamming_cosine_spearman(vectors: np.ndarray, codes: np.ndarray, pairs: np.ndarray) -> float:
    """Spearman correlation of Hamming and cosine distances over word ``pairs`` (shape (n, 2))."""
    unit = np.asarray(vectors, dtype=np.float64)
    unit = unit / np.linalg.norm(unit, axis=1, keepdims=True)
    cosine = 1.0 - (unit[pairs[:, 0]] * unit[pairs[:, 1]]).sum(axis=1)
    words = _as_words(codes)
    hamming = np.bitwise_count(words[pairs[:, 0]] ^ words[pairs[:, 1]]).sum(axis=1)
    return float(stats.spearmanr(hamming, cosine).statistic)


def float16_agreement(
    vectors: np.ndarray, sample: np.ndarray, epsilons: tuple[float, ...], seed: int
) -> dict[str, float]:
    """Share of Euclidean nearest neighbours unchanged when the vectors are stored as float16.

    Queries: the sampled words themselves (their nearest other word) and Madlib-noised copies of
    them at each epsilon (noise radius Gamma(d, 1/epsilon), uniform direction).
    """
    full = np.asarray(vectors, dtype=np.float32)
    half = full.astype(np.float16).astype(np.float32)
    exact, rounded = faiss.IndexFlatL2(full.shape[1]), faiss.IndexFlatL2(full.shape[1])
    exact.add(full)
    rounded.add(half)
    _, clean_full = exact.search(full[sample], 2)
    _, clean_half = rounded.search(half[sample], 2)
    result = {"clean": float(np.mean(clean_full[:, 1] == clean_half[:, 1]))}
    generator = np.random.default_rng(seed)
    for epsilon in epsilons:
        direction = generator.standard_normal(full[sample].shape)
        direction /= np.linalg.norm(direction, axis=1, keepdims=True)
        radius = generator.gamma(full.shape[1], 1.0 / epsilon, size=(len(sample), 1))
        noisy = (full[sample] + radius * direction).astype(np.float32)
        _, from_full = exact.search(noisy, 1)
        _, from_half = rounded.search(noisy, 1)
        result[f"madlib_eps_{epsilon:g}"] = float(np.mean(from_full == from_half))
    return result


def binarization_report(
    vectors: np.ndarray,
    methods: dict[str, object],
    bits_list: tuple[int, ...],
    *,
    seed: int,
    sample_size: int,
    pair_count: int,
) -> list[dict[str, object]]:
    """10-NN overlap, Spearman and code size for every (method, bits); ``methods`` maps a name to a
    function ``(vectors, bits, seed) -> codes``."""
    generator = np.random.default_rng(seed)
    count = vectors.shape[0]
    sample = np.sort(generator.choice(count, size=min(sample_size, count), replace=False))
    pairs = generator.integers(0, count, size=(pair_count, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    reference = cosine_neighbours(vectors, sample)
    rows = []
    for name, encode in methods.items():
        for bits in bits_list:
            codes = encode(vectors, bits, seed)
            rows.append(
                {
                    "method": name,
                    "bits": bits,
                    "neighbour_overlap_10": round(
                        expected_neighbour_overlap(codes, sample, reference), 4
                    ),
                    "spearman": round(hamming_cosine_spearman(vectors, codes, pairs), 4),
                    "code_bytes": int(codes.nbytes),
                }
            )
    return rows
