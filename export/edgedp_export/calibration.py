"""Calibration statistics for comparing mechanisms with different metrics (BRR paper, Sec. 5).

The privacy ratio needs, for each metric, an aggregate P_d of the distances between all pairs of
distinct vocabulary words: the average (P_avg) and the maximum (P_max). Everything here is exact
over all n(n-1)/2 pairs:

* Hamming average: sum over bits of c_b (n - c_b) / (n (n - 1) / 2), where c_b counts the words whose
  bit b is set (each bit contributes to exactly the pairs that differ in it). O(n * bits).
* Hamming maximum: bits minus the smallest distance between a code and the *complement* of another
  code (d(a, b) = bits - d(a, ~b)), i.e. one exact nearest-neighbour search of the complements.
* Euclidean: :func:`edgedp.evaluation.calibration.exact_pairwise_statistics`, all pairs in blocks through
  ||x||^2 + ||y||^2 - 2 x.y in float64, with sums accumulated in float64. O(n^2 d): used up to
  EXACT_PAIRWISE_LIMIT words (see words.py); larger vocabularies use
  :func:`edgedp.evaluation.calibration.sampled_pairwise_statistics` (sampled average with a
  confidence interval, maximum by exhaustive search).
"""

from __future__ import annotations

import faiss
import numpy as np


def hamming_statistics(codes: np.ndarray) -> dict[str, float]:
    """Exact average and maximum Hamming distance over all pairs of distinct codes."""
    count, bits = codes.shape[0], codes.shape[1] * 8
    set_bits = np.unpackbits(np.asarray(codes), axis=1).sum(axis=0, dtype=np.int64)
    pairs = count * (count - 1) // 2
    average = float((set_bits * (count - set_bits)).sum() / pairs)
    complements = np.ascontiguousarray(~np.asarray(codes))
    nearest_to_complement, _ = faiss.knn_hamming(complements, np.ascontiguousarray(codes), 1)
    return {
        "average": average,
        "maximum": float(bits - int(nearest_to_complement.min())),
        "pairs": pairs,
        "method": "exact",
    }
