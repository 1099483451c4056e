"""Exact exponential-mechanism draws over a whole vocabulary in a few variates: the near-far draw.

TEM and SanText (:mod:`edgedp.words.tem`, :mod:`edgedp.words.santext`) release a word y of a
vocabulary domain with probability proportional to w(y) = exp(-c min(d(x, y), gamma)) (gamma = inf
for SanText). Drawing one Gumbel per vocabulary word would cost a variate per vocabulary word and
release; here a draw costs a few variates, and its law is still exact up to the float slack of
:func:`edgedp.privacy.realised_distributions.near_far_slack`:

* the **near set** of the input x: words whose weights are computed exactly, grouped into *units*
  of equal weight (Hamming space: every word at one distance is one unit; Euclidean space: one
  word per unit);
* the **far set**, every other word of the domain, with a bound L(x) <= d(x, y) valid for every far
  y (Hamming: the search radius plus one; Euclidean: the certified bound of a float32 search,
  :class:`EuclideanNeighbours`, or the pack's neighbour table, :class:`NeighbourTable`), so that
  e^(-c min(L, gamma)) bounds each far weight: the *envelope*.

One round draws "near or far" by Gumbel-max between the near total and the envelope total; near
draws a unit by Gumbel-max and a uniform member, far proposes a uniform far word and accepts it
with probability e^(-(c min(d(x, y), gamma) - c min(L, gamma))), else the round is repeated:
rejection sampling from the envelope mixture, so the first accepted word has exactly the law
w(y) / sum w. No distance to a far word is computed unless it is proposed. Sets are computed once
per distinct input word of a batch (:class:`NearSets` rows); every occurrence then draws
independently from its word's row. Derivation and float slack: docs/theory.md, section "The
near-far draw"; cost: bench/README.md, ``sampling-costs``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from edgedp.privacy.randomness import RandomSource
from edgedp.progress import ProgressCallback
from edgedp.runtime.knn import knn_l2
from edgedp.words.exponential_selection import (
    Complements,
    VectorDistances,
    euclidean_rounding,
    ragged_positions,
    select_ragged,
    vector_distances,
)
from edgedp.words.pack import SuffixNeighbours, WordPack

#: Euclidean near set: the words a float32 search returns as nearest (its last distance certifies
#: the far bound). More words tighten the bound (fewer rounds) and cost more per near draw.
EUCLIDEAN_NEAR_WORDS = 32
#: Distinct input words whose near sets are held at once (bounds memory for any batch).
ROWS_PER_BLOCK = 1024
THIN_ROW_WORDS = 0.5
#: Rounds simulated per pass of :func:`draw` (at most :data:`ROUNDS_PER_ENTRY` per entry).
ROUNDS_PER_PASS = 4096
ROUNDS_PER_ENTRY = 64

FarScores = Callable[[np.ndarray, np.ndarray], np.ndarray]
#: An exact Hamming range search: (queries, radius) -> CSR (lims, distances, ids).
RangeSearch = Callable[[np.ndarray, int], tuple[np.ndarray, np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class NearSets:
    """The near-far plan of distinct input words (one row each) over the domain [lo, hi).

    Units (CSR over rows, ``unit_lims``): log weight ln |unit| - c min(d, gamma) and the unit's
    members ``members[unit_starts[u] : unit_starts[u] + unit_sizes[u]]``. ``near`` holds each row's
    near words (ids sorted within a row) for the uniform far proposals. Far: ``far_log_weights``
    = ln N_far - c min(L, gamma) (-inf without far words) and ``far_offsets`` = c min(L, gamma).
    """

    inputs: np.ndarray
    unit_lims: np.ndarray
    unit_log_weights: np.ndarray
    unit_starts: np.ndarray
    unit_sizes: np.ndarray
    members: np.ndarray
    near: Complements
    lo: int
    far_log_weights: np.ndarray
    far_offsets: np.ndarray

    @classmethod
    def build(
        cls,
        inputs: np.ndarray,
        lims: np.ndarray,
        ids: np.ndarray,
        distances: np.ndarray,
        *,
        far_bounds: np.ndarray,
        coefficient: float,
        gamma: float,
        domain: tuple[int, int],
        group: bool,
    ) -> NearSets:
        """The plan from each row's near words (CSR ``lims``, ``ids``, their exact distances).

        ``far_bounds`` L per row: a lower bound on d(x, y) for every word y of the domain outside
        the row's near words. ``group``: words at equal distance form one unit (integer
        distances); otherwise every word is its own unit.
        """
        lims = np.asarray(lims, dtype=np.int64)
        count = len(lims) - 1
        owner = np.repeat(np.arange(count, dtype=np.int64), np.diff(lims))
        order = np.lexsort((ids, distances, owner))
        owner, ids, distances = owner[order], ids[order], distances[order]
        if group:
            first = np.ones(len(ids), dtype=bool)
            first[1:] = (owner[1:] != owner[:-1]) | (distances[1:] != distances[:-1])
            starts = np.flatnonzero(first)
        else:
            starts = np.arange(len(ids), dtype=np.int64)
        sizes = np.diff(np.append(starts, len(ids)))
        unit_owner = owner[starts]
        unit_lims = np.concatenate([[0], np.cumsum(np.bincount(unit_owner, minlength=count))])
        scores = coefficient * np.minimum(distances[starts], gamma)
        unit_log_weights = np.log(sizes.astype(np.float64)) - scores
        lo, hi = domain
        near_count = np.diff(lims)
        far_count = (hi - lo) - near_count
        far_offsets = coefficient * np.minimum(np.asarray(far_bounds, dtype=np.float64), gamma)
        with np.errstate(divide="ignore"):
            far_log_weights = np.log(far_count.astype(np.float64)) - far_offsets
        far_log_weights[far_count == 0] = -np.inf
        by_id = np.lexsort((ids, owner))
        near = Complements.of(lims, ids[by_id] - lo, hi - lo)
        units = (unit_lims.astype(np.int64), unit_log_weights, starts, sizes, ids)
        return cls(
            np.asarray(inputs, dtype=np.int64), *units, near, lo, far_log_weights, far_offsets
        )

    def near_totals(self) -> np.ndarray:
        """ln of each row's near weight: a float log-sum-exp of its units (-inf without one)."""
        return log_sum_exp_rows(self.unit_lims, self.unit_log_weights)

    def propose_far(self, rows: np.ndarray, rng: RandomSource) -> np.ndarray:
        """For each of ``rows``: a uniform word of the domain outside the row's near words."""
        return self.near.uniform(rows, rng) + self.lo

    def draw_units(self, rows: np.ndarray, rng: RandomSource) -> np.ndarray:
        """For each of ``rows``: a unit by Gumbel-max over the row's units, then a uniform member."""
        lims, positions = ragged_positions(self.unit_lims, rows)
        unit = positions[select_ragged(lims, self.unit_log_weights[positions], rng)]
        member = self.unit_starts[unit] + rng.integers_below(self.unit_sizes[unit])
        chosen: np.ndarray = self.members[member]
        return chosen


def tail_candidates(vocabulary: int, units: int) -> int:
    """How many candidates the Gumbel tail events of one near-far draw count for: (|V| + 2)
    (units + 2) (:func:`edgedp.privacy.realised_distributions.near_far_slack`)."""
    return (vocabulary + 2) * (units + 2)


def log_sum_exp_rows(lims: np.ndarray, values: np.ndarray) -> np.ndarray:
    """m + log(sum(exp(v - m))) per CSR row (m the row's maximum; -inf for an empty row).

    Its rounding is bounded by :func:`edgedp.privacy.realised_distributions.log_sum_exp_rounding`.
    """
    lengths = np.diff(lims)
    result = np.full(len(lengths), -np.inf)  # an empty row: no near word, weight 0
    filled = np.flatnonzero(lengths)
    if filled.size:
        starts = np.asarray(lims[:-1], dtype=np.int64)[filled]
        largest = np.maximum.reduceat(values, starts)
        shifted = np.exp(values - np.repeat(largest, lengths[filled]))
        result[filled] = largest + np.log(np.add.reduceat(shifted, starts))
    return result


def draw(near: NearSets, rows: np.ndarray, far_scores: FarScores, rng: RandomSource) -> np.ndarray:
    """One exact draw per entry of ``rows`` (rows of ``near``): the near-far draw.

    ``far_scores(inputs, ids)`` is c min(d(x, y), gamma) for paired input and proposed words,
    computed with the distances the near units used. Rounds are independent, so when few entries
    are left each pass simulates several rounds per entry (about :data:`ROUNDS_PER_PASS` in all)
    and keeps the first that ends: the same law, in fewer passes.
    """
    rows = np.asarray(rows, dtype=np.int64)
    totals = near.near_totals()
    released = np.empty(len(rows), dtype=np.int64)
    chose_near = [np.empty(0, dtype=np.int64)]
    pending = np.arange(len(rows))
    while pending.size:
        repeats = max(1, min(ROUNDS_PER_ENTRY, ROUNDS_PER_PASS // len(pending)))
        trial = np.repeat(pending, repeats)  # entry-major: an entry's rounds in order
        plan = rows[trial]
        stage = np.column_stack([totals[plan], near.far_log_weights[plan]])
        far = rng.choice_from_log_weights(stage) == 1
        ended = ~far
        offered = np.zeros(len(trial), dtype=np.int64)
        proposing = np.flatnonzero(far)
        if proposing.size:
            offered[proposing] = near.propose_far(plan[proposing], rng)
            scores = far_scores(near.inputs[plan[proposing]], offered[proposing])
            gaps = scores - near.far_offsets[plan[proposing]]
            ended[proposing] = rng.exponential(len(proposing)) > gaps
        ended_rounds = ended.reshape(len(pending), repeats)
        finished = ended_rounds.any(axis=1)
        first = np.flatnonzero(finished) * repeats + ended_rounds[finished].argmax(axis=1)
        by_far = far[first]
        chose_near.append(pending[finished][~by_far])
        released[pending[finished][by_far]] = offered[first[by_far]]
        pending = pending[~finished]
    inside = np.concatenate(chose_near)
    if inside.size:
        released[inside] = near.draw_units(rows[inside], rng)
    return released


def draw_blocks(
    word_ids: np.ndarray,
    near_sets: Callable[[np.ndarray], NearSets],
    far_scores: FarScores,
    rng: RandomSource,
) -> np.ndarray:
    """:func:`draw` for every word of ``word_ids``, the near sets computed once per distinct word,
    :data:`ROWS_PER_BLOCK` distinct words at a time."""
    distinct, rows = np.unique(word_ids, return_inverse=True)
    released = np.empty(len(word_ids), dtype=np.int64)
    for start in range(0, len(distinct), ROWS_PER_BLOCK):
        stop = start + ROWS_PER_BLOCK
        here = np.flatnonzero((rows >= start) & (rows < stop))
        near = near_sets(distinct[start:stop])
        released[here] = draw(near, rows[here] - start, far_scores, rng)
    return released


# -- Hamming space: near sets from an exact range search --------------------------------------------


def hamming_histograms(
    index_search: RangeSearch, codes: np.ndarray, word_ids: np.ndarray
) -> np.ndarray:
    """(len(word_ids), bits + 1) exact counts of the vocabulary words at each Hamming distance
    (a range search over every code, a few words at a time: bounded memory)."""
    bits = codes.shape[1] * 8
    counts = np.empty((len(word_ids), bits + 1), dtype=np.int64)
    for start in range(0, len(word_ids), 4):
        block = np.asarray(word_ids[start : start + 4])
        lims, distances, _ = index_search(np.asarray(codes[block]), bits)
        rows = np.repeat(np.arange(len(block)), np.diff(lims))
        found = np.bincount(rows * (bits + 1) + distances, minlength=len(block) * (bits + 1))
        counts[start : start + len(block)] = found.reshape(len(block), bits + 1)
    return counts


#: Cost model of :func:`hamming_radius`, in scans of the vocabulary (fitted to timings of TEM
#: against BRR on words-small at epsilon 0.1 to 0.5 per bit and radii 30 to 94, 1 thread): each
#: candidate a range search returns, and each round of the draw.
_COST_PER_CANDIDATE = 1 / 400
_COST_PER_ROUND = 1 / 250


def hamming_radius(histograms: np.ndarray, coefficient: float, gamma: float) -> int:
    """The range-search radius R with the least expected cost for coefficient c and threshold gamma.

    ``histograms``: exact distance counts of a fixed public sample of words
    (:func:`hamming_histograms`). For each R up to min(gamma, bits): the candidates a search
    returns and the expected rounds (near + envelope) / (near + far) of the near-far draw, both
    averaged over the sample. R only changes the cost, never the law: public, and any R is exact.
    """
    counts = np.asarray(histograms, dtype=np.float64)
    bits = counts.shape[1] - 1
    size = counts[0].sum()
    top = int(min(math.floor(gamma), bits))
    distances = np.arange(bits + 1, dtype=np.float64)
    with np.errstate(divide="ignore"):
        log_weights = np.log(counts) - coefficient * np.minimum(distances, gamma)
    near = np.logaddexp.accumulate(log_weights, axis=1)
    reverse = np.logaddexp.accumulate(log_weights[:, ::-1], axis=1)[:, ::-1]
    far = np.concatenate([reverse[:, 1:], np.full((len(counts), 1), -np.inf)], axis=1)
    inside = np.cumsum(counts, axis=1)
    with np.errstate(divide="ignore"):
        envelope = np.log(size - inside) - coefficient * np.minimum(distances + 1, gamma)
    rounds = np.exp(np.logaddexp(near, envelope) - np.logaddexp(near, far))
    cost = 1 + _COST_PER_CANDIDATE * inside + _COST_PER_ROUND * rounds
    return int(np.argmin(cost[:, : top + 1].mean(axis=0)))


def hamming_near_sets(
    index_search: RangeSearch,
    codes: np.ndarray,
    word_ids: np.ndarray,
    *,
    radius: int,
    coefficient: float,
    gamma: float,
) -> NearSets:
    """Near sets of ``word_ids``: the words within ``radius`` bits (an exact range search), one unit
    per distance; every far word is at least radius + 1 bits away (exact: integer distances)."""
    lims, distances, ids = index_search(np.asarray(codes[word_ids]), radius)
    return NearSets.build(
        word_ids,
        lims,
        ids,
        distances.astype(np.float64),
        far_bounds=np.full(len(word_ids), float(radius + 1)),
        coefficient=coefficient,
        gamma=gamma,
        domain=(0, len(codes)),
        group=True,
    )


# -- Euclidean space: near sets from a float32 search, with a certified far bound -----------------


class EuclideanNeighbours:
    """Nearest words of the domain [lo, hi) by a float32 search, and a certified far bound.

    The search (FAISS, exact over the float32 copy of the vectors) returns the k words whose
    computed squared distances s~ are smallest; every other word y has s~(x, y) >= s~_k, the
    k-th. FAISS computes |x|^2 + |y|^2 - 2 x.y (or sum (x_i - y_i)^2) in float32: within
    (n + 8) 2^-24 (|x| + |y|)^2 of the exact squared distance s in any summation order (n the
    dimension; the vectors are exact in float32), so s(x, y) >= s~_k - e(x) with
    e(x) = (n + 8) 2^-24 / (1 - (n + 8) 2^-24) (|x| + R)^2, R the largest norm. The mechanism's
    float64 distances d^ (:class:`~edgedp.words.exponential_selection.VectorDistances`) are within err of the
    exact ones (:func:`~edgedp.words.exponential_selection.euclidean_rounding`), so
    L = sqrt(s~_k - e(x)) - err, rounded down, is a lower bound on d^(x, y) for every word the
    search did not return (tests/words/test_vocabulary_draw.py checks it against exact arithmetic).

    This search is FAISS's ``knn`` (its scalar sum of squared differences for a few queries, its
    BLAS |x|^2 + |y|^2 - 2 x.y beyond) or, on the numpy tier, the same BLAS formula in numpy
    (:func:`edgedp.runtime.knn.squared_l2_knn`: float32 norms, a float32 ``np.matmul``, each
    rounded once per operation, FMA or not): the bound covers all three, since it holds for any
    float32 evaluation of either formula in any summation order. Only what the bound assumes is
    used: every word left out has a computed distance at least the k-th. The tiers may keep
    different words of those tied at the k-th distance (see :mod:`edgedp.runtime.knn`); the far
    bound holds for either choice, so the near-far law is the same. It is not the noisy-query search
    of Madlib and Vickrey (:class:`edgedp.words.euclidean.EuclideanIndex`, a float32 GEMM whose
    scaled queries would need their own margin); the exporter's neighbour tables use this one too.
    """

    def __init__(self, table: VectorDistances, lo: int, hi: int, k: int) -> None:
        self.table, self.lo, self.hi = table, lo, hi
        self.k = min(k, hi - lo)
        self.vectors = np.ascontiguousarray(table.vectors[lo:hi], dtype=np.float32)
        dims = table.vectors.shape[1]
        unit = (dims + 8) * 2.0**-24
        self._float32_error = unit / (1.0 - unit) * (1.0 + 2.0**-40)
        self._largest_norm = math.sqrt(float(table.squared.max()) * (1 + 2.0**-50)) * (1 + 2.0**-50)
        self._distance_error = euclidean_rounding(table.vectors)[1]

    def search(self, word_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(rows, ids, bounds)``: the k nearest words of the domain (row i of ``word_ids`` owns
        the ``ids`` where ``rows == i``) and per row a lower bound on the float64 distance of
        every other word of the domain (+inf if there is none)."""
        word_ids = np.asarray(word_ids, dtype=np.int64)
        queries = np.ascontiguousarray(self.table.vectors[word_ids], dtype=np.float32)
        squared, found = knn_l2(queries, self.vectors, self.k)
        rows = np.repeat(np.arange(len(word_ids)), self.k)
        ids = found.astype(np.int64).ravel() + self.lo
        if self.k == self.hi - self.lo:
            return rows, ids, np.full(len(word_ids), np.inf)
        norms = np.sqrt(self.table.squared[word_ids] * (1 + 2.0**-50)) * (1 + 2.0**-50)
        margin = self._float32_error * (norms + self._largest_norm) ** 2
        lower = (squared[:, -1].astype(np.float64) - margin) * (1 - 2.0**-52)
        bound = np.sqrt(np.maximum(lower, 0.0)) * (1 - 2.0**-51) - self._distance_error
        return rows, ids, np.maximum(bound * (1 - 2.0**-52), 0.0)


class NeighbourTable:
    """A pack's neighbour table (:attr:`edgedp.words.pack.WordPack.neighbours`) as a search over
    the domain [lo, hi): each word's stored neighbours in the domain, and its stored bound.

    The exporter computed the table with :class:`EuclideanNeighbours` over the whole vocabulary,
    so each stored bound holds for every word outside its row, hence for every word of the domain
    outside the row's part in it. A row with few of its words in the domain (SanText+: frequent
    words whose neighbours are frequent) would leave a near set too light for the envelope: such
    rows come from the pack's table of the frequent words among the rarer ones (``suffix``) when
    its range is the domain, else from a search of the domain (``fallback``).
    """

    def __init__(
        self,
        table: VectorDistances,
        neighbours: tuple[np.ndarray, np.ndarray],
        suffix: SuffixNeighbours | None,
        fallback: Callable[[], EuclideanNeighbours],
        lo: int,
        hi: int,
    ) -> None:
        self.table, self.lo, self.hi = table, lo, hi
        self._neighbours, self._bounds = neighbours
        self._fallback = fallback
        self._suffix = suffix if suffix is not None and suffix.start == lo else None

    def search(self, word_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """As :meth:`EuclideanNeighbours.search`."""
        word_ids = np.asarray(word_ids, dtype=np.int64)
        found = np.asarray(self._neighbours[word_ids], dtype=np.int64)
        inside = (found >= self.lo) & (found < self.hi)
        rows = np.repeat(np.arange(len(word_ids)), found.shape[1]).reshape(found.shape)
        bounds = np.array(self._bounds[word_ids], dtype=np.float64)
        thin = inside.sum(axis=1) < THIN_ROW_WORDS * found.shape[1]
        keep = inside & ~thin[:, None]
        rows, ids = rows[keep], found[keep]
        stored = np.zeros(len(word_ids), dtype=bool)
        if self._suffix is not None:  # rows of the words below the domain, stored
            stored = thin & (word_ids < self.lo)
            taken = np.flatnonzero(stored)
            more = np.asarray(self._suffix.ids[word_ids[taken]], dtype=np.int64)
            rows = np.concatenate([rows, np.repeat(taken, more.shape[1])])
            ids = np.concatenate([ids, more.ravel()])
            bounds[taken] = self._suffix.bounds[word_ids[taken]]
        searched = np.flatnonzero(thin & ~stored)
        if searched.size:
            more_rows, more_ids, bounds[searched] = self._fallback().search(word_ids[searched])
            rows = np.concatenate([rows, searched[more_rows]])
            ids = np.concatenate([ids, more_ids])
        return rows, ids, bounds


NearSearch = EuclideanNeighbours | NeighbourTable


def euclidean_near_units(pack: WordPack) -> int:
    """The most units a Euclidean near set of ``pack`` can have: the words its search returns (the
    pack's table, or :data:`EUCLIDEAN_NEAR_WORDS` from a float32 search), and the input."""
    width = 0 if pack.neighbours is None else int(pack.neighbours.shape[1])
    return max(width, EUCLIDEAN_NEAR_WORDS) + 1


def euclidean_neighbours(pack: WordPack, user: str, lo: int = 0) -> NearSearch:
    """The near-set search over the ids [lo, |V|): the pack's neighbour table if it has one, else
    a float32 search of the domain (:class:`EuclideanNeighbours`); built once per pack."""
    size = len(pack.vocabulary)
    table = vector_distances(pack, user)
    k = EUCLIDEAN_NEAR_WORDS

    def search() -> EuclideanNeighbours:
        return pack.derived(
            f"euclidean-neighbours:{lo}:{k}", lambda: EuclideanNeighbours(table, lo, size, k)
        )

    if pack.neighbours is None or pack.neighbour_bounds is None:
        return search()
    stored = (pack.neighbours, pack.neighbour_bounds)
    suffix = pack.suffix_neighbours
    return pack.derived(
        f"neighbour-table:{lo}",
        lambda: NeighbourTable(table, stored, suffix, search, lo, size),
    )


def invalid_neighbour_rows(
    pack: WordPack, *, block: int = 2048, progress: ProgressCallback | None = None
) -> np.ndarray:
    """Words whose row of the pack's neighbour tables has a bound that some word outside the row
    breaks (empty: the tables are sound). Recomputes the tables' search (O(|V|^2 d)): a stored
    bound holds for every word the search leaves out if it is at most the search's certified
    bound, and is checked against the float64 distance of every word the search finds beyond the
    row; a row whose bound exceeds the certified one is checked against every word of its range.
    ``progress(done, total)`` hears of the rows checked."""
    size = len(pack.vocabulary)
    tables = []
    if pack.neighbours is not None and pack.neighbour_bounds is not None:
        tables.append((0, np.asarray(pack.neighbours), np.asarray(pack.neighbour_bounds)))
    if pack.suffix_neighbours is not None:
        suffix = pack.suffix_neighbours
        tables.append((suffix.start, np.asarray(suffix.ids), np.asarray(suffix.bounds)))
    invalid: list[int] = []
    total, done = sum(len(stored) for _, stored, _ in tables), 0
    for lo, stored, claimed in tables:
        table = vector_distances(pack, "the neighbour table check")
        search = EuclideanNeighbours(table, lo, size, stored.shape[1])
        for start in range(0, len(stored), block):
            words = np.arange(start, min(start + block, len(stored)))
            rows, ids, certified = search.search(words)
            for row, word in enumerate(words):
                others = np.setdiff1d(ids[rows == row], stored[word])
                if claimed[word] > certified[row]:  # the search alone cannot vouch for it
                    others = np.setdiff1d(np.arange(lo, size), stored[word])
                distances = table.pairs(np.full(len(others), word), others)
                if (distances < claimed[word]).any():
                    invalid.append(int(word))
            done += len(words)
            if progress is not None:
                progress(float(done), float(total))
    return np.asarray(sorted(set(invalid)), dtype=np.int64)


def euclidean_near_sets(
    neighbours: NearSearch,
    word_ids: np.ndarray,
    *,
    coefficient: float,
    gamma: float,
) -> NearSets:
    """Near sets of ``word_ids``: the words the search returns within gamma (and the input itself
    when it lies in the domain), one unit each, scored with the float64 distances d^; the far
    bound is the search's certified bound, or the smallest d^ (> gamma) of a returned word left
    out."""
    word_ids = np.asarray(word_ids, dtype=np.int64)
    rows, ids, bounds = neighbours.search(word_ids)
    distances = neighbours.table.pairs(word_ids[rows], ids)
    inside = distances <= gamma
    if (~inside).any():  # returned words beyond gamma are far, and their distance bounds the rest
        beyond = np.full(len(word_ids), np.inf)
        np.minimum.at(beyond, rows[~inside], distances[~inside])
        bounds = np.minimum(bounds, beyond)
    rows, ids, distances = rows[inside], ids[inside], distances[inside]
    present = (word_ids < neighbours.lo) | (word_ids >= neighbours.hi)  # outside: nothing to add
    present[rows[ids == word_ids[rows]]] = True
    missing = np.flatnonzero(~present)  # d^(x, x) = 0: the input is always near
    rows = np.concatenate([rows, missing])
    ids = np.concatenate([ids, word_ids[missing]])
    distances = np.concatenate([distances, np.zeros(len(missing))])
    order = np.argsort(rows, kind="stable")
    lims = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=len(word_ids)))])
    return NearSets.build(
        word_ids,
        lims,
        ids[order],
        distances[order],
        far_bounds=bounds,
        coefficient=coefficient,
        gamma=gamma,
        domain=(neighbours.lo, neighbours.hi),
        group=False,
    )
