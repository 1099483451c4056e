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

import numpy as np

from edgedp.errors import AssetError, InputError
from edgedp.privacy.randomness import RandomSource, public_statistics_source
from edgedp.privacy.validation import check_choice, check_epsilon, check_unit_interval
from edgedp.registry import METRICS
from edgedp.words.euclidean import regularized_covariance, symmetric_square_root
from edgedp.words.pack import WordPack

AGGREGATES = ("avg", "max")
MAHALANOBIS_PAIRS = 1_000_000
#: Up to this many words the Mahalanobis statistics are exact over all pairs, above it sampled.
EXACT_PAIRS_LIMIT = 20_000
_BLOCK = 256  # rows per block: 256 x 100k float64 distances is 200 MB
_PAIR_CHUNK = 65_536  # sampled pairs per step: 65,536 x 50 float64 differences is 26 MB


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
    first, second = first[keep], second[keep]
    distances = np.empty(first.size)
    for start in range(0, first.size, _PAIR_CHUNK):  # (chunk, d) temporaries, not (pairs, d)
        chunk = slice(start, start + _PAIR_CHUNK)
        distances[chunk] = np.linalg.norm(points[first[chunk]] - points[second[chunk]], axis=1)
    half_width = 1.96 * distances.std(ddof=1) / np.sqrt(distances.size)
    average = float(distances.mean())
    return {
        "average": average,
        "average_ci95": [average - float(half_width), average + float(half_width)],
        "maximum": diameter(points),
        "pairs": int(distances.size),
        "method": f"average over {distances.size:,} sampled pairs; maximum exact (pruned search)",
    }


def diameter(points: np.ndarray, *, sweeps: int = 4) -> float:
    """The largest distance between two rows, exactly, without an O(n^2) search in practice.

    With c the mean and R the largest ||y - c||, every pair satisfies ||x - y|| <= ||x - c|| + R.
    A few farthest-point sweeps find a pair at distance L (a lower bound of the diameter), so both
    ends of any pair at distance >= L have ||x - c|| >= L - R: only those candidate rows are
    compared, all pairs among them, in float64 row blocks. Each block's farthest pair is
    re-measured directly, so the result is a true pairwise distance.
    """
    points = np.asarray(points, dtype=np.float64)
    if len(points) < 2:
        return 0.0
    squared = np.einsum("ij,ij->i", points, points)

    def distances_from(point: np.ndarray) -> np.ndarray:  # no (n, d) temporaries
        distances: np.ndarray = np.sqrt(
            np.maximum(squared - 2 * (points @ point) + point @ point, 0.0)
        )
        return distances

    radii = distances_from(points.mean(axis=0))
    start, best = int(radii.argmax()), 0.0
    for _ in range(sweeps):  # best: a true pairwise distance, so a lower bound of the diameter
        farthest = int(distances_from(points[start]).argmax())
        best = max(best, float(np.linalg.norm(points[farthest] - points[start])))
        start = farthest
    slack = 1e-6 * (1.0 + float(squared.max()) ** 0.5)  # covers the rounding of the radii
    keep = radii >= best - float(radii.max()) - slack
    candidates, squared = points[keep], squared[keep]
    for row in range(0, len(candidates), _BLOCK):
        block = candidates[row : row + _BLOCK]
        distances = (
            squared[row : row + len(block), None] + squared[None, :] - 2 * block @ candidates.T
        )
        i, j = divmod(int(distances.argmax()), len(candidates))
        best = max(best, float(np.linalg.norm(candidates[row + i] - candidates[j])))
    return best


def metric_statistics(pack: WordPack, metric: str, *, lam: float = 0.2) -> Mapping[str, Any]:
    """Average and maximum pairwise distance of the vocabulary under ``metric``."""
    metric = check_choice(metric, "metric", ("hamming", "euclidean", "mahalanobis"))
    if metric != "mahalanobis":
        if metric not in pack.calibration:
            raise AssetError(
                f"pack {pack.name!r} has no {metric} calibration statistics; rebuild it with a "
                "current edgedp-export"
            )
        statistics: Mapping[str, Any] = pack.calibration[metric]
        return statistics
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
        points,
        pairs=MAHALANOBIS_PAIRS,
        rng=public_statistics_source(0),
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

    Metric-DP mechanisms state epsilon per unit of different metrics (per bit of Hamming distance,
    per unit of Euclidean distance), so equal numbers are not equal privacy. This solves
    epsilon_target * P_d(target) = epsilon_source * P_d(source), P_d the pack's average (or
    maximum) distance between two vocabulary words in each metric: the privacy ratio.

    Parameters
    ----------
    pack : ~edgedp.WordPack
        The words pack whose public calibration statistics give the distances.
    epsilon : float
        ``source``'s epsilon: a finite number > 0.
    source : str
        A mechanism or metric name of :data:`edgedp.registry.METRICS`: a word mechanism whose
        guarantee has a metric (``"brr"``, ``"madlib"``, ``"mahalanobis"``, ``"vickrey"``,
        ``"tem"``, ``"santext"``, ``"santext-plus"``), a Hamming variant (``"vickrey-hamming"``,
        ``"tem-hamming"``), ``"hamming"`` or ``"euclidean"``. Keyword only.
    target : str
        The mechanism or metric whose epsilon is returned (the same names). Keyword only.
    aggregate : {"avg", "max"}, default "avg"
        ``"avg"`` (the paper's conservative choice): typical word pairs get equal bounds; ``"max"``:
        the worst-case pairs do.
    lam : float, default 0.2
        The Mahalanobis regularization, in [0, 1] (used only for ``"mahalanobis"``).

    Returns
    -------
    float
        ``target``'s epsilon, in ``target``'s metric.

    Raises
    ------
    ~edgedp.PrivacyParameterError
        If ``epsilon`` is not a finite number > 0, or ``lam`` is outside [0, 1].
    ~edgedp.InputError
        If ``source`` or ``target`` is unknown, or ``aggregate`` is not ``"avg"`` or ``"max"``.
    ~edgedp.AssetError
        If the pack lacks the statistics (Euclidean and Mahalanobis need float vectors or their
        calibration).

    Notes
    -----
    The match is of a *bound*: the two mechanisms then promise the same average (or worst-case)
    privacy loss e^(epsilon * d) over pairs of vocabulary words; it does not make their outputs
    equally readable or equally guessable (``edgedp calibrate --match`` matches by empirical
    privacy instead). CusText (plain DP within output sets) has no metric and is not listed.

    References
    ----------
    * R. S. Carvalho, T. Vasiloudis, O. Feyisetan. "BRR: Preserving Privacy of Text Data
      Efficiently on Device" (the privacy ratio, Definition 5.1).

    Examples
    --------
    >>> import edgedp
    >>> pack = edgedp.load_pack()
    >>> edgedp.equivalent_epsilon(pack, 0.6, source="brr", target="hamming")
    0.6
    >>> edgedp.equivalent_epsilon(pack, 0.6, source="brr", target="madlib") > 0.6
    True
    """
    return check_epsilon(epsilon) * privacy_ratio(
        pack, source, target, aggregate=aggregate, lam=lam
    )
