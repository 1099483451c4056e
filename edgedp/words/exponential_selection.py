"""The sampling word mechanisms' common parts: distances and exponential-mechanism selection.

TEM (:mod:`edgedp.words.tem`), SanText (:mod:`edgedp.words.santext`) and CusText
(:mod:`edgedp.words.custext`) release a vocabulary word drawn with probability proportional to
exp(score) over a candidate set that differs from word to word. This module holds what they share:

* :class:`VectorDistances`: Euclidean distances between vocabulary words in float64, one formula
  for every caller (d(w, w) = 0 exactly), from the pack's vectors (:func:`vector_distances`:
  once per pack); :func:`hamming_pair_distances`: exact integer Hamming distances between packed
  codes.
* :func:`euclidean_rounding`: how far those float64 distances can be from the exact ones, and how
  large they can be; :func:`distance_coefficient`: the exponential-mechanism coefficient of TEM
  and SanText with the float draw's slack folded in (Hamming) or stated as a delta (Euclidean).
* :func:`select_ragged`: one exponential-mechanism draw per row of a ragged (CSR) list of log
  weights, through :meth:`edgedp.privacy.randomness.RandomSource.choice_from_log_weights` (Gumbel-max
  over floats: each probability within e^(+-2 eta) of the exact law, eta from
  :func:`edgedp.privacy.realised_distributions.gumbel_max_slack`; no sampler of our own), in blocks of at most
  :data:`BLOCK_ELEMENTS` padded entries so that memory stays bounded for any vocabulary.
* :class:`Complements`: for many rows at once, a uniform word of the vocabulary minus the row's
  set (vectorised rejection, then an exact enumeration for the rare rows still rejected).

Derivation of the rounding bounds and of the coefficient: docs/theory.md, section
"Exponential-mechanism selection with float slack".
"""

from __future__ import annotations

import math

import numpy as np

from edgedp.errors import InputError
from edgedp.privacy.noise import (
    GumbelMaxCoefficient,
    exponential_mechanism_coefficient,
    gumbel_max_coefficient,
)
from edgedp.privacy.randomness import RandomSource
from edgedp.words.pack import WordPack

#: Padded log weights per selection block: 2^21 float64 values (16 MiB), whatever the batch.
BLOCK_ELEMENTS = 1 << 21


#: A formula distance is recomputed from the difference when |a|^2 + |b|^2 - 2 a.b is below this
#: fraction of |a|^2 + |b|^2 (where the subtraction cancels); see :func:`euclidean_rounding`.
CANCELLATION = 0.25
_DIRECT_ELEMENTS = 1 << 20


class VectorDistances:
    """Euclidean distances between vocabulary words, in float64 (a copy of the vectors).

    d(a, b)^2 = |a|^2 + |b|^2 - 2 a.b in float64 (one matrix product), clipped at 0; where that
    cancels (below :data:`CANCELLATION` of |a|^2 + |b|^2: close words, and a word with itself) it
    is recomputed as sum_i (a_i - b_i)^2, so identical vectors are at distance exactly 0. Every
    distance is then within a relative ~1e-12 (300 dimensions) of the exact one
    (:func:`euclidean_rounding`); the formula alone was ~1e-7 |a| off for close words. The
    formula is fixed per instance, so a mechanism scores every pair with the same function.
    """

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = np.asarray(vectors, dtype=np.float64)
        self.squared = np.einsum("ij,ij->i", self.vectors, self.vectors)

    def __len__(self) -> int:
        return int(self.vectors.shape[0])

    @property
    def nbytes(self) -> int:
        return int(self.vectors.nbytes + self.squared.nbytes)

    def _direct(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """sum_i (a_i - b_i)^2 for paired ids, in chunks of bounded memory."""
        out = np.empty(len(first))
        step = max(1, _DIRECT_ELEMENTS // max(self.vectors.shape[1], 1))
        for start in range(0, len(first), step):
            gap = (
                self.vectors[first[start : start + step]]
                - self.vectors[second[start : start + step]]
            )
            out[start : start + step] = np.einsum("ij,ij->i", gap, gap)
        return out

    def pairs(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """d(first[i], second[i]) for paired id arrays."""
        first, second = np.asarray(first, dtype=np.int64), np.asarray(second, dtype=np.int64)
        dots = np.einsum("ij,ij->i", self.vectors[first], self.vectors[second])
        total = self.squared[first] + self.squared[second]
        squared = total - 2.0 * dots
        close = np.flatnonzero(squared < CANCELLATION * total)
        squared[close] = self._direct(first[close], second[close])
        distances: np.ndarray = np.sqrt(np.maximum(squared, 0.0))
        return distances


def vector_distances(pack: WordPack, user: str) -> VectorDistances:
    """The pack's :class:`VectorDistances`, built once per pack (``user`` names the mechanism in
    the error of a pack without vectors)."""
    vectors = pack.require_vectors(user)
    return pack.derived("float64-distances", lambda: VectorDistances(vectors))


def euclidean_rounding(vectors: np.ndarray) -> tuple[float, float]:
    """(D, err) for :class:`VectorDistances` over ``vectors``: every computed distance is <= D,
    and within err of the exact Euclidean distance of the two (float32/float16, so exact) vectors.

    With n the dimension, kappa = (n + 8) 2^-52 and rho = :data:`CANCELLATION`:
    err = (r + 2^-52) D with r = 2 kappa (1 + 2 kappa) / rho, and D = 2 R (1 + 2 kappa), R the
    largest norm (from the float64 squared norms, rounded up). Derivation: docs/theory.md, section
    "Exponential-mechanism selection with float slack".
    """
    rows = np.asarray(vectors)
    largest = 0.0
    for start in range(0, rows.shape[0], 1 << 14):
        block = np.asarray(rows[start : start + (1 << 14)], dtype=np.float64)
        largest = max(largest, float(np.einsum("ij,ij->i", block, block).max(initial=0.0)))
    kappa = (rows.shape[1] + 8) * 2.0**-52
    radius = math.sqrt(largest * (1.0 + kappa)) * (1.0 + 2.0**-50)
    diameter = 2.0 * radius * (1.0 + 2.0 * kappa)
    relative = 2.0 * kappa * (1.0 + 2.0 * kappa) / CANCELLATION + 2.0**-52
    return diameter, relative * (1.0 + 2.0**-20) * diameter


def distance_coefficient(
    epsilon: float,
    *,
    bits: int | None = None,
    vectors: np.ndarray | None = None,
    truncation: float = math.inf,
    vocabulary: int,
    units: int,
) -> GumbelMaxCoefficient:
    """The coefficient c of log weights -c min(d(x, y), truncation) for epsilon * d metric DP
    (TEM, SanText), drawn by the near-far draw (:mod:`edgedp.words.vocabulary_draw`).

    The draw adds a slack xi to the exact law's log-ratio 2 c d(x, x')
    (:func:`edgedp.privacy.realised_distributions.near_far_slack`, at most ``units`` near units;
    log weights bounded by epsilon / 2 * min(truncation, D) + ln(``vocabulary``), D the diameter).
    Hamming space (``bits``): distances are integers, so xi is folded into epsilon with resolution
    1: epsilon * d metric DP exactly, with no delta beyond the 2^-1000 tail event. Euclidean space
    (``vectors``): distinct words can be arbitrarily close, so c stays epsilon / 2 and xi, which
    includes 4 c err for the distance rounding (:func:`euclidean_rounding`), becomes a delta per
    word (e^xi - 1). Derivation: docs/theory.md, section "Exponential-mechanism selection with
    float slack".
    """
    full = exponential_mechanism_coefficient(epsilon, sensitivity=1.0)
    if bits is not None:
        diameter, error, resolution = float(bits), 0.0, 1.0
    elif vectors is not None:
        diameter, error = euclidean_rounding(vectors)
        resolution = None
    else:
        raise InputError("distance_coefficient needs bits or vectors")
    return gumbel_max_coefficient(
        epsilon,
        1.0,
        log_weight_bound=full * min(truncation, diameter) + math.log(vocabulary),
        loss_bound=epsilon * max(1.0, diameter),
        resolution=resolution,
        extra=4.0 * full * error,
        near_far_units=units,
    )


def hamming_pair_distances(codes: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Exact Hamming distances (int64) between the packed codes of paired ids."""
    xor = np.bitwise_xor(np.asarray(codes[first]), np.asarray(codes[second]))
    counts: np.ndarray = np.bitwise_count(xor).sum(axis=1, dtype=np.int64)
    return counts


def rows_per_block(width: int) -> int:
    """How many rows of ``width`` float64 values fit in one block (at least one)."""
    return max(1, BLOCK_ELEMENTS // max(int(width), 1))


def select_ragged(lims: np.ndarray, log_weights: np.ndarray, rng: RandomSource) -> np.ndarray:
    """One flat position per CSR row, drawn with probability proportional to exp(log weight).

    Row i owns ``log_weights[lims[i]:lims[i + 1]]`` (``-inf`` = probability 0; every row needs a
    finite entry). Rows are padded with ``-inf`` to the longest row of their block and drawn by
    :meth:`RandomSource.choice_from_log_weights`; blocks hold at most :data:`BLOCK_ELEMENTS`
    entries (a single longer row is its own block).
    """
    lims = np.asarray(lims, dtype=np.int64)
    weights = np.asarray(log_weights, dtype=np.float64)
    lengths = np.diff(lims)
    rows = len(lengths)
    chosen = np.empty(rows, dtype=np.int64)
    start = 0
    while start < rows:
        widest = np.maximum.accumulate(lengths[start:])
        fits = np.flatnonzero(widest * np.arange(1, rows - start + 1) <= BLOCK_ELEMENTS)
        stop = start + (int(fits[-1]) + 1 if fits.size else 1)
        block_lims = lims[start : stop + 1]
        block_lengths = lengths[start:stop]
        width = int(block_lengths.max())
        padded = np.full((stop - start, width), -np.inf)
        row_of = np.repeat(np.arange(stop - start), block_lengths)
        column = np.arange(block_lims[-1] - block_lims[0]) - np.repeat(
            block_lims[:-1] - block_lims[0], block_lengths
        )
        padded[row_of, column] = weights[block_lims[0] : block_lims[-1]]
        chosen[start:stop] = block_lims[:-1] + rng.choice_from_log_weights(padded)
        start = stop
    return chosen


def uniform_outside(members: np.ndarray, size: int, rng: RandomSource) -> int:
    """A uniform id of range(size) not in ``members`` (sorted, unique, a strict subset).

    The k-th id outside the set (k uniform) is k plus the number of members m_j with
    m_j - j <= k: exact, one draw, no rejection loop however large the set.
    """
    outside = size - len(members)
    k = int(rng.integers(outside, 1)[0])
    shifted = np.asarray(members, dtype=np.int64) - np.arange(len(members))
    return k + int(np.searchsorted(shifted, k, side="right"))


def ragged_positions(lims: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The CSR rows ``rows`` (repeats allowed) gathered: ``(new_lims, positions)`` with
    ``positions[new_lims[i]:new_lims[i + 1]]`` the flat positions of row ``rows[i]``."""
    lims = np.asarray(lims, dtype=np.int64)
    rows = np.asarray(rows, dtype=np.int64)
    lengths = lims[rows + 1] - lims[rows]
    new_lims = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    positions = np.arange(new_lims[-1], dtype=np.int64) + np.repeat(
        lims[rows] - new_lims[:-1], lengths
    )
    return new_lims, positions


class Complements:
    """CSR sets of ids of range(``size``) (sorted within each row, each a strict subset), ready for
    uniform draws from their complements (:meth:`uniform`)."""

    __slots__ = ("_keys", "ids", "lims", "size")

    def __init__(self, lims: np.ndarray, ids: np.ndarray, size: int, keys: np.ndarray) -> None:
        self.lims, self.ids, self.size, self._keys = lims, ids, size, keys

    @classmethod
    def of(cls, lims: np.ndarray, ids: np.ndarray, size: int) -> Complements:
        lims = np.asarray(lims, dtype=np.int64)
        ids = np.asarray(ids, dtype=np.int64)
        owner = np.repeat(np.arange(len(lims) - 1, dtype=np.int64), np.diff(lims))
        return cls(lims, ids, int(size), owner * size + ids)  # ascending: rows, then ids

    def uniform(self, rows: np.ndarray, rng: RandomSource, *, rounds: int = 16) -> np.ndarray:
        """For each entry r of ``rows``: a uniform id of range(size) outside row r's set.

        Vectorised rejection: a uniform id is kept if it is outside its row's set. An entry still
        rejected after ``rounds`` tries (its set covers most of the range) gets
        :func:`uniform_outside`. Both are uniform over the complement, and the switch depends only
        on rejected draws, so the result is exactly uniform.
        """
        rows = np.asarray(rows, dtype=np.int64)
        keys = self._keys
        released = np.empty(len(rows), dtype=np.int64)
        todo = np.arange(len(rows))
        for _ in range(rounds):
            if not todo.size:
                break
            drawn = rng.integers(self.size, todo.size)
            wanted = rows[todo] * self.size + drawn
            found = np.searchsorted(keys, wanted)
            inside = keys[np.minimum(found, len(keys) - 1)] == wanted if len(keys) else found < 0
            released[todo[~inside]] = drawn[~inside]
            todo = todo[inside]
        for position in todo:
            row = rows[position]
            members = self.ids[self.lims[row] : self.lims[row + 1]]
            released[position] = uniform_outside(members, self.size, rng)
        return released
