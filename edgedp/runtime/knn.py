"""Exact nearest-neighbour search in numpy alone: the ``numpy`` tier of :mod:`edgedp.runtime.backend`.

:func:`knn_hamming` and :func:`knn_l2` run on the tier :func:`edgedp.runtime.backend.backend` chooses
(``"search"``): FAISS's compiled core, loaded on first use (:mod:`edgedp.runtime.faiss_core`; small
searches on one thread, :func:`edgedp.runtime.native.search_threads`), or the numpy functions
below. Each of these answers as its FAISS counterpart does, ties included (FAISS orders equal
distances by id, checked in tests/runtime/test_knn.py), with one exception said at
:func:`squared_l2_knn`:

* :func:`hamming_knn`: ``faiss.knn_hamming``, the ``k`` nearest codes by (distance, id);
* :func:`hamming_range`: ``IndexBinaryFlat.range_search``, CSR rows with ids ascending;
* :func:`squared_l2_knn`: ``faiss.knn``, the ``k`` smallest float32 squared distances
  |x|^2 + |y|^2 - 2 x.y (FAISS's BLAS formula; its rounding is not FAISS's bit for bit, and
  :class:`edgedp.words.vocabulary_draw.EuclideanNeighbours` says why its bound covers both). Of words
  tied at the k-th distance (duplicated vectors) it keeps the lowest ids; FAISS's scalar path
  (fewer than 20 queries) keeps an unspecified subset of them;
* :class:`RunningTop`: the ``k`` smallest values over blocks of consecutive ids, ties to the
  lower id (both tiers of :class:`edgedp.words.euclidean.EuclideanIndex` use it).

Hamming distances are exact popcounts (``np.bitwise_count``) of the XOR of the codes' 64-bit
words (or the widest unsigned words their length divides), a block of queries against a block of
codes at a time, into buffers allocated once per call: each word of a block of codes is copied to a
contiguous column first, and the bit counts of a word go to a uint8 buffer that is added to the
block's distances. Blocks of distances are int16 for codes of up to :data:`INT16_BITS` bits (fewer
bytes per pass) and int32 above, which holds every code width a pack may have (8 to 65,536 bits,
:mod:`edgedp.packs.schema`; int16 would wrap from 32,768 bits, uint16 at 65,536); the k nearest
are returned as int32, as FAISS's. The buffers stay under a megabyte whatever the batch: a float32
matrix product of +-1 bits, used for 48 queries or more until 2026-11-29, needed 40 MB of
temporaries and OpenBLAS's buffers per thread and was slower than these popcounts at every batch
size measured (bench/reports/2026-11-29-footprint.md).

:class:`RunningTop` selects the k > 1 smallest values of a wide block without partitioning it: a
bound from group minima (one pass) leaves about 32 k candidates per row to sort, exactly (its
docstring says why); the decoders' 16 candidates per word cost little more than the nearest word.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from edgedp.runtime import faiss_core
from edgedp.runtime.backend import backend
from edgedp.runtime.native import search_threads

#: (queries, codes) per block of Hamming distances: the XOR and the distances stay in cache.
POPCOUNT_BLOCK = (16, 4096)
#: Bytes of the contiguous word columns of one block of codes: codes wider than 512 bits get
#: proportionally fewer rows per block (at 65,536 bits, 32 codes).
COLUMN_BYTES = POPCOUNT_BLOCK[1] * 64
#: (queries, vectors) per block of float32 squared distances (a matrix product, 16 MB of scores).
L2_BLOCK = (256, 16384)
#: In a narrow block (:data:`GROUP_FACTOR`): ties by repeated argmin up to this k (each a pass
#: over the block), by a partition above.
REPEATED_ARGMIN = 4
#: Widest codes (bits) whose distances are blocks of int16 (every distance <= 32,767 fits).
INT16_BITS = int(np.iinfo(np.int16).max)
#: Columns per group of a block's bound (:class:`RunningTop`, k > 1): a block is bounded by group
#: minima where it has at least ``GROUP_FACTOR * k`` groups.
GROUP = 32
GROUP_FACTOR = 4


class RunningTop:
    """The ``k`` smallest values of each of ``rows`` rows seen so far and their ids, smallest
    first; of equal values the lower id comes first (and is kept at the k-th place).

    For k > 1, a wide block is not partitioned: its columns are dealt into
    groups (column c into group c mod G, :data:`GROUP` columns each), and t, the smaller of the
    k-th smallest group minimum and the k-th value kept so far, bounds the k-th smallest value of
    the block and the values kept: k distinct groups, or the k values kept, hold a value <= t.
    Every value that can be kept (at most that k-th smallest, ties included) is <= t, so it lies in
    a group whose minimum is <= t: only those groups' values, about k * GROUP per row instead of
    the block's width, are sorted by (value, id) with the values kept. The bound costs one pass
    (the group minima, an elementwise minimum of GROUP slices) where a partition costs several.
    Once every row keeps k values, the k-th of them alone bounds a block at least as well: a
    block's values at most it (ties included) are its candidates, read in one comparison, and
    taken whenever they are no more than the group bound's ``k * GROUP`` per row (after the first
    block of nearest-code searches, about k per row).
    """

    def __init__(self, rows: int, k: int, dtype: type[np.generic] | np.dtype[np.generic]) -> None:
        self.k = k
        kind = np.dtype(dtype)
        self._worst = np.inf if kind.kind == "f" else int(np.iinfo(kind.name).max)
        self.best = np.full((rows, k), self._worst, dtype=dtype)
        self.ids = np.full((rows, k), -1, dtype=np.int64)
        self._rows = np.arange(rows)

    def add(self, values: np.ndarray, start: int) -> None:
        """Take in ``values`` (rows x width) of the ids ``start``, ``start + 1``, ... (greater than
        every id seen so far). The block is scratch: it may be overwritten."""
        if self.k == 1:
            column = values.argmin(axis=1)  # the first minimum: the lowest id on equal values
            value = values[self._rows, column]
            better = value < self.best[:, 0]
            self.best[better, 0] = value[better]
            self.ids[better, 0] = column[better] + start
            return
        kept = self.best[:, self.k - 1]
        if kept.max() < self._worst:  # every row keeps k values: the k-th bounds the block
            # (values of the block's type: a 2-d nonzero is several times slower than a flat one)
            flat = np.flatnonzero(values <= kept.astype(values.dtype)[:, None])
            if len(flat) <= GROUP * self.k * len(values):
                row, column = np.divmod(flat, values.shape[1])
                self._merge(row, values.ravel()[flat], column + start)
                return
        if values.shape[1] >= GROUP * GROUP_FACTOR * self.k:
            self._add_bounded(values, start)
            return
        found, columns = _smallest(values, min(self.k, values.shape[1]))
        merged = np.concatenate([self.best, found], axis=1)
        ids = np.concatenate([self.ids, columns + start], axis=1)
        order = np.lexsort((ids, merged), axis=1)[:, : self.k]
        self.best = np.take_along_axis(merged, order, 1)
        self.ids = np.take_along_axis(ids, order, 1)

    def _add_bounded(self, values: np.ndarray, start: int) -> None:
        """:meth:`add` of a block of at least ``GROUP_FACTOR * k`` groups: only the values under
        the groups' bound are sorted (the class docstring says why that is exact)."""
        rows, width = values.shape
        groups = width // GROUP
        # group g: the columns g, g + groups, ..., g + (GROUP - 1) * groups; the rest: the tail
        dealt = values[:, : GROUP * groups].reshape(rows, GROUP, groups)
        minima = np.minimum.reduce(dealt, axis=1)
        bound = np.partition(minima, self.k - 1, axis=1)[:, self.k - 1]
        bound = np.minimum(bound, self.best[:, self.k - 1])
        row, group = np.nonzero(minima <= bound[:, None])
        columns = group[:, None] + groups * np.arange(GROUP)
        row = np.repeat(row, GROUP)
        columns = columns.ravel()
        tail = np.arange(GROUP * groups, width)
        if len(tail):
            row = np.concatenate([row, np.repeat(self._rows, len(tail))])
            columns = np.concatenate([columns, np.tile(tail, rows)])
        found = values[row, columns]
        under = found <= bound[row]
        self._merge(row[under], found[under], columns[under] + start)

    def _merge(self, row: np.ndarray, found: np.ndarray, ids: np.ndarray) -> None:
        """Keep the k smallest of the values kept and the candidates ``found`` (of rows ``row``,
        ids ``ids``): every value of a block that can be kept must be among them."""
        rows = len(self.best)
        # the values kept and the block's candidates, sorted by (row, value, id)
        row = np.concatenate([np.repeat(self._rows, self.k), row])
        found = np.concatenate([self.best.ravel(), found])
        ids = np.concatenate([self.ids.ravel(), ids])
        order = np.lexsort((ids, found, row))
        # every row has at least its k values kept: its first k in that order
        firsts = np.concatenate([[0], np.cumsum(np.bincount(row, minlength=rows))[:-1]])
        take = order[(firsts[:, None] + np.arange(self.k)).ravel()]
        self.best = found[take].reshape(rows, self.k)
        self.ids = ids[take].reshape(rows, self.k)


def _smallest(values: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` smallest values of each row and their columns, by (value, column). The block is
    scratch: for k <= :data:`REPEATED_ARGMIN` each value found is overwritten by the type's largest
    (above every Hamming distance of its blocks, :data:`INT16_BITS`)."""
    rows = np.arange(len(values))[:, None]
    if k <= REPEATED_ARGMIN:
        worst = np.inf if values.dtype.kind == "f" else np.iinfo(values.dtype).max
        columns = np.empty((len(values), k), dtype=np.int64)
        found = np.empty((len(values), k), dtype=values.dtype)
        for place in range(k):
            columns[:, place] = values.argmin(axis=1)
            found[:, place] = values[rows[:, 0], columns[:, place]]
            values[rows[:, 0], columns[:, place]] = worst
        return found, columns
    columns = np.argpartition(values, k - 1, axis=1)[:, :k]  # every value below the k-th, and
    found = np.take_along_axis(values, columns, 1)  # some of those equal to it
    threshold = found.max(axis=1, keepdims=True)
    short = (values == threshold).sum(axis=1) > (found == threshold).sum(axis=1)
    for row in np.flatnonzero(short):  # more ties at the k-th value: keep the lowest columns
        below = np.flatnonzero(values[row] < threshold[row])
        tied = np.flatnonzero(values[row] == threshold[row])[: k - len(below)]
        columns[row] = np.concatenate([below, tied])
        found[row] = values[row, columns[row]]
    order = np.lexsort((columns, found), axis=1)
    return np.take_along_axis(found, order, 1), np.take_along_axis(columns, order, 1)


def _words(codes: np.ndarray) -> np.ndarray:
    """Packed codes as the widest unsigned words their length divides (popcounts ignore order)."""
    codes = np.ascontiguousarray(codes)
    for width in (8, 4, 2):
        if codes.shape[1] % width == 0:
            return codes.view(f"<u{width}")
    return codes


def hamming_blocks(
    queries: np.ndarray, codes: np.ndarray
) -> Iterator[tuple[slice, int, np.ndarray]]:
    """Exact Hamming distances block by block: ``(query rows, first code id, block)``, the query
    blocks of each code block in order, code blocks in id order; int16 for codes of at most
    :data:`INT16_BITS` bits, else int32. Each block is a buffer the next one overwrites: a
    consumer takes what it keeps (and may scribble on it)."""
    bits = codes.shape[1] * 8
    dtype = np.int16 if bits <= INT16_BITS else np.int32
    query_words, code_words = _words(queries), _words(codes)
    width = code_words.shape[1]
    query_block = POPCOUNT_BLOCK[0]
    code_block = max(1, min(POPCOUNT_BLOCK[1], COLUMN_BYTES // code_words.strides[0]))
    xor = np.empty((query_block, code_block), dtype=code_words.dtype)
    counts = np.empty((query_block, code_block), dtype=np.uint8)
    distances = np.empty((query_block, code_block), dtype=dtype)
    for start in range(0, len(code_words), code_block):
        block = code_words[start : start + code_block]
        columns = [np.ascontiguousarray(block[:, word])[None, :] for word in range(width)]
        for first in range(0, len(query_words), query_block):
            here = query_words[first : first + query_block]
            rows, width_here = len(here), len(block)
            out = xor[:rows, :width_here]
            bit_counts = counts[:rows, :width_here]
            sums = distances[:rows, :width_here]
            for word in range(width):
                np.bitwise_xor(here[:, word, None], columns[word], out=out)
                np.bitwise_count(out, out=bit_counts)
                if word == 0:
                    sums[...] = bit_counts
                else:
                    np.add(sums, bit_counts, out=sums)
            yield slice(first, first + len(here)), start, sums


def hamming_knn(queries: np.ndarray, codes: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Distances (int32) and ids (int64) of the ``k`` nearest codes of each query, by
    (distance, id): ``faiss.knn_hamming``'s answer."""
    distances = np.empty((len(queries), k), dtype=np.int32)
    ids = np.empty((len(queries), k), dtype=np.int64)
    tops: dict[int, RunningTop] = {}
    for rows, start, block in hamming_blocks(queries, codes):
        if rows.start not in tops:
            tops[rows.start] = RunningTop(len(block), k, np.int32)
        tops[rows.start].add(block, start)
    for first, top in tops.items():
        distances[first : first + len(top.ids)] = top.best
        ids[first : first + len(top.ids)] = top.ids
    return distances, ids


def hamming_range(
    queries: np.ndarray, codes: np.ndarray, radius: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR ``(lims, distances, ids)`` (int64) of every code within ``radius`` bits of each query,
    ids ascending within a row."""
    rows_found, ids_found, distances_found = [], [], []
    for rows, start, block in hamming_blocks(queries, codes):
        row, column = np.nonzero(block <= radius)
        rows_found.append(row + rows.start)
        ids_found.append(column + start)
        distances_found.append(block[row, column].astype(np.int64))
    row = np.concatenate([np.empty(0, dtype=np.int64), *rows_found])
    ids = np.concatenate([np.empty(0, dtype=np.int64), *ids_found])
    distances = np.concatenate([np.empty(0, dtype=np.int64), *distances_found])
    order = np.lexsort((ids, row))
    lims = np.concatenate([[0], np.cumsum(np.bincount(row, minlength=len(queries)))])
    return lims.astype(np.int64), distances[order], ids[order]


def squared_l2_knn(
    queries: np.ndarray, vectors: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """float32 squared distances |x|^2 + |y|^2 - 2 x.y (at least 0) and ids (int64) of the ``k``
    nearest ``vectors`` (float32) of each query, by (distance, id): ``faiss.knn``'s answer up to
    float32 rounding."""
    query_block, vector_block = L2_BLOCK
    query_norms = np.einsum("ij,ij->i", queries, queries)
    vector_norms = np.einsum("ij,ij->i", vectors, vectors)
    distances = np.empty((len(queries), k), dtype=np.float32)
    ids = np.empty((len(queries), k), dtype=np.int64)
    for first in range(0, len(queries), query_block):
        rows = slice(first, first + query_block)
        top = RunningTop(len(queries[rows]), k, np.float32)
        for start in range(0, len(vectors), vector_block):
            block = slice(start, start + vector_block)
            scores = queries[rows] @ vectors[block].T
            scores *= -2.0
            scores += vector_norms[block]
            scores += query_norms[rows, None]
            np.maximum(scores, 0.0, out=scores)
            top.add(scores, start)
        distances[rows], ids[rows] = top.best, top.ids
    return distances, ids


def knn_hamming(queries: np.ndarray, codes: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact Hamming distances (int32) and ids (int64) of the ``k`` nearest ``codes`` (packed
    uint8) of each query, by (distance, id), on the search tier."""
    if backend("search") == "numpy":
        return hamming_knn(queries, codes, k)
    with search_threads(len(queries)):
        distances, ids = faiss_core.knn_hamming(queries, codes, k)
    return distances, ids.astype(np.int64, copy=False)


def knn_l2(queries: np.ndarray, vectors: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """float32 squared distances and ids (int64) of the ``k`` nearest ``vectors`` (float32) of
    each query, nearest first, on the search tier (``faiss.knn`` or :func:`squared_l2_knn`)."""
    queries = np.ascontiguousarray(queries, dtype=np.float32)
    if backend("search") == "numpy":
        return squared_l2_knn(queries, vectors, k)
    with search_threads(len(queries)):
        distances, ids = faiss_core.knn_l2(queries, vectors, k)
    return distances, ids.astype(np.int64, copy=False)
