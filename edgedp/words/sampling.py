"""The sampling word mechanisms' common parts: exact distances and exponential-mechanism selection.

TEM (:mod:`edgedp.words.tem`), SanText (:mod:`edgedp.words.santext`) and CusText
(:mod:`edgedp.words.custext`) release a vocabulary word drawn with probability proportional to
exp(score) over a candidate set that differs from word to word. This module holds what they share:

* :class:`VectorDistances`: Euclidean distances between vocabulary words in float64, one formula
  for every caller (d(w, w) = 0 exactly), from the pack's vectors; :func:`hamming_pair_distances`:
  exact integer Hamming distances between packed codes.
* :func:`select_ragged`: one exponential-mechanism draw per row of a ragged (CSR) list of log
  weights, through :meth:`edgedp.randomness.RandomSource.choice_from_log_weights` (exact
  exponential-mechanism semantics; no sampler of our own), in blocks of at most
  :data:`BLOCK_ELEMENTS` padded entries so that memory stays bounded for any vocabulary.
* :func:`uniform_outside_rows`: for many rows at once, a uniform word of the vocabulary minus the
  row's set (vectorised rejection, then an exact enumeration for the rare rows still rejected).
"""

from __future__ import annotations

import numpy as np

from edgedp.randomness import RandomSource

#: Padded log weights per selection block: 2^21 float64 values (16 MiB), whatever the batch.
BLOCK_ELEMENTS = 1 << 21


class VectorDistances:
    """Euclidean distances between vocabulary words, in float64 (a copy of the vectors).

    d(a, b)^2 = |a|^2 + |b|^2 - 2 a.b in float64, clipped at 0, and exactly 0 for a word with
    itself. The formula is fixed per instance, so a mechanism scores every pair with the same
    function; its rounding (relative 1e-15 of |a|^2) is far below any privacy-relevant scale.
    """

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = np.asarray(vectors, dtype=np.float64)
        self.squared = np.einsum("ij,ij->i", self.vectors, self.vectors)

    def __len__(self) -> int:
        return int(self.vectors.shape[0])

    @property
    def nbytes(self) -> int:
        return int(self.vectors.nbytes + self.squared.nbytes)

    def pairs(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """d(first[i], second[i]) for paired id arrays."""
        dots = np.einsum("ij,ij->i", self.vectors[first], self.vectors[second])
        squared = self.squared[first] + self.squared[second] - 2.0 * dots
        distances: np.ndarray = np.sqrt(np.maximum(squared, 0.0))
        distances[first == second] = 0.0
        return distances

    def to_all(self, ids: np.ndarray) -> np.ndarray:
        """(len(ids), vocabulary) distances from each word of ``ids`` to every word."""
        squared = (
            self.squared[ids, None]
            + self.squared[None, :]
            - 2.0 * (self.vectors[ids] @ self.vectors.T)
        )
        distances: np.ndarray = np.sqrt(np.maximum(squared, 0.0, out=squared), out=squared)
        distances[np.arange(len(ids)), ids] = 0.0
        return distances


def hamming_pair_distances(codes: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Exact Hamming distances (int64) between the packed codes of paired ids."""
    xor = np.bitwise_xor(np.asarray(codes[first]), np.asarray(codes[second]))
    counts: np.ndarray = np.bitwise_count(xor).sum(axis=1, dtype=np.int64)
    return counts


def hamming_to_all(codes: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """(len(ids), vocabulary) exact Hamming distances (float64) from each word of ``ids``."""
    every = np.asarray(codes)
    xor = np.bitwise_xor(every[ids][:, None, :], every[None, :, :])
    counts: np.ndarray = np.bitwise_count(xor).sum(axis=2, dtype=np.int64).astype(np.float64)
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


def uniform_outside_rows(
    lims: np.ndarray,
    ids: np.ndarray,
    rows: np.ndarray,
    size: int,
    rng: RandomSource,
    *,
    rounds: int = 16,
) -> np.ndarray:
    """For each row r of ``rows``: a uniform id of range(size) outside ``ids[lims[r]:lims[r+1]]``.

    CSR sets with ids sorted within each row, each a strict subset. Vectorised rejection: a uniform
    id is kept if it is outside its row's set. A row still rejected after ``rounds`` tries (its set
    covers most of the vocabulary) gets :func:`uniform_outside`. Both are uniform over the
    complement, and the switch depends only on rejected draws, so the result is exactly uniform.
    """
    lims = np.asarray(lims, dtype=np.int64)
    rows = np.asarray(rows, dtype=np.int64)
    owner = np.repeat(np.arange(len(lims) - 1, dtype=np.int64), np.diff(lims))
    keys = owner * size + ids  # ascending: rows ascending, ids sorted within a row
    released = np.empty(len(rows), dtype=np.int64)
    todo = np.arange(len(rows))
    for _ in range(rounds):
        if not todo.size:
            break
        drawn = rng.integers(size, todo.size)
        wanted = rows[todo] * size + drawn
        found = np.searchsorted(keys, wanted)
        inside = keys[np.minimum(found, len(keys) - 1)] == wanted if len(keys) else found < 0
        released[todo[~inside]] = drawn[~inside]
        todo = todo[inside]
    for position in todo:
        row = rows[position]
        released[position] = uniform_outside(ids[lims[row] : lims[row + 1]], size, rng)
    return released
