"""Comparing metric-DP mechanisms that use different metrics: the privacy ratio (BRR paper, Sec. 5).

A mechanism with epsilon_A * d_A metric DP bounds the privacy loss between two words by
epsilon_A * d_A(w, w'). Summarizing d over all pairs of vocabulary words by their average (P_avg) or
maximum (P_max) gives comparable bounds epsilon_A * P_dA; equal bounds need
epsilon_B = epsilon_A * P_dA / P_dB (the privacy ratio R = P_dA / P_dB).

The statistics of the Hamming (codes) and Euclidean (vectors) metrics are computed at export and
stored in the pack manifest. The Mahalanobis metric depends on the mechanism's lambda, so its
statistics are computed here: exactly over all pairs up to EXACT_PAIRS_LIMIT words, above that the
average over sampled pairs (with a 95 % confidence interval) and the maximum (a farthest-point
search).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import faiss
import numpy as np

from edgedp.errors import AssetError, InputError
from edgedp.randomness import RandomSource
from edgedp.validation import check_choice, check_epsilon, check_unit_interval
from edgedp.words.euclidean import regularized_covariance, symmetric_square_root
from edgedp.words.pack import WordPack

#: The metric of each word mechanism's guarantee (Vickrey, TEM: per their ``space``; SanText+: its
#: metric among sensitive words). CusText is plain epsilon-DP within output sets: no metric, no ratio.
METRICS = {
    "brr": "hamming",
    "vickrey-hamming": "hamming",
    "madlib": "euclidean",
    "vickrey": "euclidean",
    "mahalanobis": "mahalanobis",
    "tem": "euclidean",
    "tem-hamming": "hamming",
    "santext": "euclidean",
    "santext-plus": "euclidean",
    "hamming": "hamming",
    "euclidean": "euclidean",
}
AGGREGATES = ("avg", "max")
MAHALANOBIS_PAIRS = 1_000_000
#: Up to this many words the Mahalanobis statistics are exact over all pairs, above it sampled.
EXACT_PAIRS_LIMIT = 20_000
_BLOCK = 256  # rows per block: 256 x 100k float64 distances is 200 MB


def exact_pairwise_statistics(
    vectors: np.ndarray, *, progress: Callable[[range], Iterable[int]] = iter
) -> dict[str, Any]:
    """Exact average and maximum Euclidean distance over all pairs of distinct rows."""
    points = np.asarray(vectors, dtype=np.float64)
    count = points.shape[0]
    squared = (points**2).sum(axis=1)
    total, largest = 0.0, 0.0
    for start in progress(range(0, count, _BLOCK)):
        block = points[start : start + _BLOCK]
        size = block.shape[0]
        # distances from this block to itself and to every later row: each pair counted once
        distances = (
            squared[start : start + size, None]
            + squared[None, start:]
            - 2 * block @ points[start:].T
        )
        np.sqrt(np.maximum(distances, 0.0, out=distances), out=distances)
        within = np.triu(distances[:, :size], k=1)
        later = distances[:, size:]
        total += float(within.sum()) + float(later.sum())
        largest = max(largest, float(within.max(initial=0.0)), float(later.max(initial=0.0)))
    pairs = count * (count - 1) // 2
    return {"average": total / pairs, "maximum": largest, "pairs": pairs, "method": "exact"}


def sampled_pairwise_statistics(
    points: np.ndarray, *, pairs: int, rng: RandomSource
) -> dict[str, Any]:
    """Average Euclidean distance over ``pairs`` random pairs of distinct rows (with a 95 % normal
    confidence interval) and the maximum over all pairs.

    The maximum uses ||x - y||^2 = ||x||^2 + ||y||^2 - 2 x.y: the farthest row from x is the
    maximum inner product of (-2x, 1) with (y, ||y||^2), an exhaustive FAISS search. That search
    runs in float32, whose cancellation can misrank near-ties, so each row's farthest candidate is
    re-measured in float64: the result is a true pairwise distance, within float32 rounding of the
    maximum.
    """
    points = np.asarray(points, dtype=np.float64)
    first, second = rng.integers(len(points), pairs), rng.integers(len(points), pairs)
    keep = first != second
    distances = np.linalg.norm(points[first[keep]] - points[second[keep]], axis=1)
    half_width = 1.96 * distances.std(ddof=1) / np.sqrt(distances.size)
    squared = (points**2).sum(axis=1)
    index = faiss.IndexFlatIP(points.shape[1] + 1)
    index.add(np.hstack([points, squared[:, None]]).astype(np.float32))
    _, farthest = index.search(
        np.hstack([-2.0 * points, np.ones((len(points), 1))]).astype(np.float32), 1
    )
    average = float(distances.mean())
    differences = points[farthest[:, 0]]
    differences -= points  # in place: one (n, d) temporary, not two
    return {
        "average": average,
        "average_ci95": [average - float(half_width), average + float(half_width)],
        "maximum": float(np.sqrt(np.einsum("ij,ij->i", differences, differences).max())),
        "pairs": int(distances.size),
        "method": f"average over {distances.size:,} sampled pairs; maximum by exhaustive search",
    }


def metric_statistics(pack: WordPack, metric: str, *, lam: float = 0.2) -> Mapping[str, Any]:
    """Average and maximum pairwise distance of the vocabulary under ``metric``."""
    metric = check_choice(metric, "metric", ("hamming", "euclidean", "mahalanobis"))
    if metric != "mahalanobis":
        if metric not in pack.calibration:
            raise AssetError(
                f"pack {pack.name!r} has no {metric} calibration statistics; rebuild it with a "
                "current edgedp-export"
            )
        return pack.calibration[metric]
    vectors = pack.require_vectors("the Mahalanobis privacy ratio")
    metric_matrix = regularized_covariance(
        np.asarray(pack.covariance), check_unit_interval(lam, "lam")
    )
    whitening = np.linalg.inv(symmetric_square_root(metric_matrix))  # d_M(x, y) = ||W (x - y)||
    points = np.asarray(vectors, dtype=np.float64) @ whitening
    if len(points) <= EXACT_PAIRS_LIMIT:
        return exact_pairwise_statistics(points)
    # public sampling for a statistic of public vectors, not a release: a fixed seed is fine
    return sampled_pairwise_statistics(
        points, pairs=MAHALANOBIS_PAIRS, rng=RandomSource._derived(np.random.SeedSequence(0))
    )


def _metric_of(name: str) -> str:
    if name not in METRICS:
        raise InputError(f"unknown mechanism or metric {name!r} (known: {', '.join(METRICS)})")
    return METRICS[name]


def privacy_ratio(
    pack: WordPack, source: str, target: str, *, aggregate: str = "avg", lam: float = 0.2
) -> float:
    """R = P_d(source) / P_d(target) for mechanism or metric names (e.g. ``"madlib"``, ``"brr"``)."""
    key = "average" if check_choice(aggregate, "aggregate", AGGREGATES) == "avg" else "maximum"
    numerator = metric_statistics(pack, _metric_of(source), lam=lam)[key]
    denominator = metric_statistics(pack, _metric_of(target), lam=lam)[key]
    return float(numerator) / float(denominator)


def equivalent_epsilon(
    pack: WordPack,
    epsilon: float,
    *,
    source: str,
    target: str,
    aggregate: str = "avg",
    lam: float = 0.2,
) -> float:
    """The epsilon of ``target`` whose aggregate privacy-loss bound equals ``source`` at ``epsilon``.

    epsilon_target * P_d(target) = epsilon_source * P_d(source) (BRR paper, Definition 5.1). With
    ``aggregate="avg"`` (the paper's conservative choice) typical word pairs get equal bounds; with
    ``"max"`` the worst-case pairs do.
    """
    return check_epsilon(epsilon) * privacy_ratio(
        pack, source, target, aggregate=aggregate, lam=lam
    )
