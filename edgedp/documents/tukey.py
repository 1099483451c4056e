"""Approximate Tukey depth of fixed candidate points with respect to small point sets (SentDP A.1).

The Tukey depth of y with respect to points S = (s_1, ..., s_k) is the smallest number of points of
S in a closed halfspace whose boundary passes through y (SentDP Definition 3.2). Restricting the
infimum to the 2p directions +v_j and -v_j of p random unit vectors gives

    depth_j(y) = min(#{l : s_l . v_j >= y . v_j},  #{l : s_l . v_j <= y . v_j})
    depth(y)   = min over j of depth_j(y)          (always >= TD_S(y), an approximation from above)

the *minimum* over projections, as the main text of SentDP defines it (the appendix pseudo-code
takes the maximum), counting both closed halfspaces. The depth has sensitivity 1: replacing one
point of S changes it by at most 1. Why the minimum and both closed halfspaces: docs/theory.md,
section "Approximate Tukey depth".

**Complexity.** Candidate projections are computed and sorted once (:class:`CandidateDepth`); a call
projects the k points (p x k), locates each in the sorted candidates by binary search (one call per
projection), writes every projection's depth as a step function of the sorted position (k + 1 runs,
one ``np.repeat``), and reads each candidate's depths back through its precomputed ranks:
O(p (k log m + m)) with no Python loop over candidates or points, instead of the O(m k p) of the
pseudo-code (timings: bench/README.md, ``latency``, DeepCandidate).
"""

from __future__ import annotations

import numpy as np

from edgedp.errors import InputError
from edgedp.privacy.validation import check_positive_int


def _check_matrix(array: object, name: str, dims: int | None = None) -> np.ndarray:
    matrix = np.asarray(array, dtype=np.float64)
    if matrix.ndim != 2 or (dims is not None and matrix.shape[1] != dims):
        expected = f"(n, {dims})" if dims is not None else "(n, d)"
        raise InputError(f"{name} must be a 2-D array of shape {expected}, got {matrix.shape}")
    if not np.isfinite(matrix).all():
        raise InputError(f"{name} must be finite (no NaN or infinity)")
    return matrix


class CandidateDepth:
    """The approximate Tukey depth of m fixed candidates, precomputed for p fixed projections.

    ``candidates`` (m, d) and ``projections`` (p, d) are public. :meth:`depths` takes the k points
    (e.g. the sentence embeddings of a private document) and returns one integer depth per
    candidate. Use :meth:`first` to use only the first p' projections without recomputing.
    """

    __slots__ = ("_flat_rank", "_projections", "_sorted")

    def __init__(self, candidates: np.ndarray, projections: np.ndarray) -> None:
        candidates = _check_matrix(candidates, "candidates")
        projections = _check_matrix(projections, "projections", candidates.shape[1])
        if candidates.shape[0] == 0 or projections.shape[0] == 0:
            raise InputError("need at least one candidate and one projection")
        values = projections @ candidates.T  # (p, m)
        order = np.argsort(values, axis=1, kind="stable")
        p, m = values.shape
        rank = np.empty_like(order)
        np.put_along_axis(rank, order, np.broadcast_to(np.arange(m), (p, m)), axis=1)
        self._projections = projections
        self._sorted = np.take_along_axis(values, order, axis=1)
        # Where candidate i's depth on projection j sits in a flattened (p, m) table.
        self._flat_rank = (rank + (np.arange(p) * m)[:, None]).astype(np.intp)

    @property
    def candidates(self) -> int:
        return int(self._sorted.shape[1])

    @property
    def projections(self) -> int:
        return int(self._sorted.shape[0])

    def first(self, count: int) -> CandidateDepth:
        """The same candidates with only the first ``count`` projections (shares memory)."""
        count = check_positive_int(count, "projections")
        if count > self.projections:
            raise InputError(f"only {self.projections} projections are available, not {count}")
        view = object.__new__(CandidateDepth)
        view._projections = self._projections[:count]
        view._sorted = self._sorted[:count]
        view._flat_rank = self._flat_rank[:count]  # offsets of the first rows are unchanged
        return view

    def _counts_at_or_below(self, positions: np.ndarray) -> np.ndarray:
        """counts[j, r] = #{l : positions[j, l] <= r} for r in [0, m), shape (p, m)."""
        p, m = self._sorted.shape
        offsets = (np.arange(p) * (m + 1))[:, None]
        bins = np.bincount((positions + offsets).ravel(), minlength=p * (m + 1))
        return bins.reshape(p, m + 1).cumsum(axis=1)[:, :m]

    def _table_without_ties(self, above: np.ndarray, k: int, dtype: type) -> np.ndarray:
        """Depth of sorted position r on projection j, flattened (p * m), when no point ties.

        With the points' insertion positions b_0 <= ... <= b_(k-1) on projection j, positions in
        [b_(c-1), b_c) have exactly c points strictly below and k - c at or above: depth
        min(c, k - c). One ``np.repeat`` writes the whole table.
        """
        p, m = self._sorted.shape
        edges = np.empty((p, k + 2), dtype=np.intp)
        edges[:, 0], edges[:, -1] = 0, m
        edges[:, 1:-1] = np.sort(above, axis=1)
        below = np.arange(k + 1)
        values: np.ndarray = np.minimum(below, k - below).astype(dtype)
        table: np.ndarray = np.repeat(np.tile(values, p), np.diff(edges, axis=1).ravel())
        return table

    def _table_with_ties(
        self, projected: np.ndarray, above: np.ndarray, k: int, dtype: type
    ) -> np.ndarray:
        """The same table when some point equals a candidate on some projection (both sides)."""
        start = np.empty_like(above)  # first sorted position with value >= the point
        for j in range(above.shape[0]):
            start[j] = self._sorted[j].searchsorted(projected[j], side="left")
        strictly_below = self._counts_at_or_below(above)  # #{l : s_l < f}
        at_or_below = self._counts_at_or_below(start)  # #{l : s_l <= f}
        table: np.ndarray = np.minimum(k - strictly_below, at_or_below).astype(dtype).ravel()
        return table

    def depths(self, points: np.ndarray) -> np.ndarray:
        """The approximate depth (int64, shape (m,)) of every candidate w.r.t. ``points`` (k, d)."""
        points = _check_matrix(points, "points", self._projections.shape[1])
        k = points.shape[0]
        p, m = self._sorted.shape
        if k == 0:
            return np.zeros(m, dtype=np.int64)
        projected = self._projections @ points.T  # (p, k); this operand order keeps BLAS cheap
        above = np.empty((p, k), dtype=np.intp)  # first sorted position with value > the point
        for j in range(p):
            above[j] = self._sorted[j].searchsorted(projected[j], side="right")
        just_below = np.take_along_axis(self._sorted, np.maximum(above - 1, 0), axis=1)
        ties = bool(np.any((above > 0) & (just_below == projected)))
        dtype = np.int16 if k < 2**15 else np.int64
        table = (
            self._table_with_ties(projected, above, k, dtype)
            if ties
            else self._table_without_ties(above, k, dtype)
        )
        depths: np.ndarray = table[self._flat_rank].min(axis=0).astype(np.int64)
        return depths


def approximate_tukey_depth(
    points: np.ndarray, candidates: np.ndarray, projections: np.ndarray
) -> np.ndarray:
    """The approximate Tukey depth of each candidate w.r.t. ``points`` (the module's ``depth``)."""
    return CandidateDepth(candidates, projections).depths(points)
