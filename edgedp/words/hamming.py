"""Hamming space: randomized response on packed binary codes, and nearest-code search (FAISS).

**Randomized response** (the BRR paper's Algorithm 2). Each bit is kept with probability
e^epsilon / (1 + e^epsilon) and flipped otherwise, independently of every other bit. For two codes
x, x' and any output y, Pr[y | x] <= e^(epsilon * d_H(x, x')) Pr[y | x']: epsilon-per-bit randomized
response is epsilon * Hamming-distance metric DP (BRR paper, Theorem 3). The flip probability is
realised exactly as T / 2**64 with T from :func:`edgedp.privacy.noise.rr_flip_threshold`, which rounds toward
more flips (more privacy).

**Search** over a pack's binary codes, on the tier :func:`edgedp.runtime.backend.backend` chooses
(``"search"``): FAISS or numpy alone (:mod:`edgedp.runtime.knn`). Exact searches give the same
answer on both, ties included: by (distance, id). Exact k-nearest searches load FAISS's compiled
core alone (:mod:`edgedp.runtime.faiss_core`); a range search and an approximate index import the
``faiss`` package, on first use.

Three index types, recorded in the pack manifest and honoured at load:

* ``flat`` (exact): ``faiss.knn_hamming``, or its numpy counterpart, scans the pack's codes (its
  verified bytes, no copy).
* ``hnsw``, ``ivf`` (approximate): a FAISS binary index, deserialized from the bytes the pack
  verified at load (never re-read from its file), with the search parameter (``efSearch`` or
  ``nprobe``) recorded in the manifest. Exact search stays available (``exact=True``). Its contents
  are checked at load: every id it can return names a word of the pack, and an HNSW graph's
  offsets, levels and neighbours are in range (FAISS trusts them and would read out of bounds).
  numpy cannot read a FAISS index: on the numpy tier the file is left unread (the pack verified
  its bytes) and every search is exact (:attr:`HammingIndex.exact` says so); an index only ever
  trades utility for speed, so no pack requires one.

Small FAISS searches run on one thread (:func:`edgedp.runtime.native.search_threads`).

Whatever the index, the answer is a deterministic function of the (already privatized) query, so the
search is post-processing and cannot weaken the privacy guarantee; an approximate index changes
utility only. Exact search breaks ties toward the lowest vocabulary id (the more frequent word).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from edgedp.errors import AssetError, InputError
from edgedp.privacy.noise import rr_flip_threshold
from edgedp.privacy.randomness import RandomSource
from edgedp.runtime import knn as numpy_search
from edgedp.runtime.backend import backend
from edgedp.runtime.knn import knn_hamming
from edgedp.runtime.native import search_threads

if TYPE_CHECKING:
    import faiss

INDEX_TYPES = ("flat", "hnsw", "ivf")


def flip_mask(count: int, bits: int, epsilon: float, rng: RandomSource) -> np.ndarray:
    """Packed (big-endian bit order) masks of ``count`` codes, each bit set w.p. 1/(1+e^epsilon)."""
    flips = rng.bernoulli(rr_flip_threshold(epsilon), (count, bits))
    return np.packbits(flips, axis=1, bitorder="big")


def randomized_response(codes: np.ndarray, epsilon: float, rng: RandomSource) -> np.ndarray:
    """A privatized copy of ``codes`` (uint8, shape (n, bits / 8)) at ``epsilon`` per bit."""
    if not isinstance(codes, np.ndarray) or codes.dtype != np.uint8 or codes.ndim != 2:
        raise InputError(
            "codes must be a 2-D uint8 numpy array of packed bits, shape (n, bits / 8)"
        )
    flipped: np.ndarray = codes ^ flip_mask(codes.shape[0], codes.shape[1] * 8, epsilon, rng)
    return flipped


class HammingIndex:
    """k-nearest-neighbour search over packed binary codes (uint8, shape (n, bits / 8))."""

    def __init__(
        self,
        codes: np.ndarray,
        *,
        index_type: str = "flat",
        index_file: Path | None = None,
        search_parameter: int | None = None,
        index_data: bytes | None = None,
    ) -> None:
        if codes.dtype != np.uint8 or codes.ndim != 2 or codes.shape[0] == 0:
            raise InputError(
                f"codes must be a non-empty 2-D uint8 array, got {codes.dtype} {codes.shape}"
            )
        if index_type not in INDEX_TYPES:
            raise InputError(f"unknown index type {index_type!r} (known: {', '.join(INDEX_TYPES)})")
        self.codes = codes
        self.bits = codes.shape[1] * 8
        self.index_type = index_type
        self.search_parameter = search_parameter
        self._approximate: Any = None  # a FAISS binary index, native tier only
        self._flat: faiss.IndexBinaryFlat | None = None  # built on the first native range search
        if index_type != "flat":
            if search_parameter is None or search_parameter < 1:
                raise AssetError(f"{index_type} index needs a positive search parameter")
            if backend("search") == "native":
                self._approximate = _open_index(
                    index_file, index_data, index_type, codes.shape[0], self.bits
                )
                if index_type == "hnsw":
                    self._approximate.hnsw.efSearch = search_parameter
                else:
                    self._approximate.nprobe = search_parameter

    @property
    def exact(self) -> bool:
        """True when every answer is a true nearest neighbour: the flat index, or any index on
        the numpy tier (which leaves an approximate index unread and scans)."""
        return self._approximate is None

    def __len__(self) -> int:
        return int(self.codes.shape[0])

    def range_search(
        self, queries: np.ndarray, radius: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Exact CSR ``(lims, distances, ids)``: row i's ids ``ids[lims[i]:lims[i + 1]]`` are every
        code at Hamming distance <= ``radius`` (a flat scan of all codes, whatever index the pack
        has), with their distances."""
        queries = np.ascontiguousarray(queries, dtype=np.uint8)
        if queries.ndim != 2 or queries.shape[1] * 8 != self.bits:
            raise InputError(f"queries must have shape (n, {self.bits // 8}), got {queries.shape}")
        if backend("search") == "numpy":
            return numpy_search.hamming_range(queries, self.codes, int(radius))
        if self._flat is None:
            import faiss

            flat = faiss.IndexBinaryFlat(self.bits)
            flat.add(np.ascontiguousarray(self.codes))
            self._flat = flat
        # FAISS keeps distances strictly below its radius
        with search_threads(queries.shape[0]):
            lims, distances, ids = self._flat.range_search(queries, int(radius) + 1)
        return lims.astype(np.int64), distances.astype(np.int64), ids.astype(np.int64)

    def search(
        self, queries: np.ndarray, k: int = 1, *, exact: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """Distances and ids of the ``k`` nearest codes of each query, nearest first.

        ``exact=True`` scans all codes even when the pack carries an approximate index.
        """
        queries = np.ascontiguousarray(queries, dtype=np.uint8)
        if queries.ndim != 2 or queries.shape[1] * 8 != self.bits:
            raise InputError(f"queries must have shape (n, {self.bits // 8}), got {queries.shape}")
        if not 1 <= k <= len(self):
            raise InputError(f"k must be in [1, {len(self)}], got {k}")
        if queries.shape[0] == 0:
            return np.empty((0, k), dtype=np.int32), np.empty((0, k), dtype=np.int64)
        if exact or self._approximate is None:
            return knn_hamming(queries, self.codes, k)
        with search_threads(queries.shape[0]):
            distances, ids = self._approximate.search(queries, k)
        missing = (ids < 0).any(axis=1)
        if missing.any():  # an approximate search came back short: answer those rows exactly
            distances[missing], ids[missing] = knn_hamming(queries[missing], self.codes, k)
        return distances, ids


def _open_index(
    path: Path | None, data: bytes | None, index_type: str, count: int, bits: int
) -> faiss.IndexBinary:
    """The index from ``data`` (verified bytes; ``path`` only names it) or, outside a pack, read
    from ``path``; its contents checked."""
    import faiss

    name = "index" if path is None else path.name
    classes = {"hnsw": faiss.IndexBinaryHNSW, "ivf": faiss.IndexBinaryIVF}
    try:
        if data is not None:
            index = faiss.deserialize_index_binary(np.frombuffer(data, dtype=np.uint8))
        elif path is not None:
            index = faiss.read_index_binary(str(path))
        else:
            raise AssetError(f"a {index_type} index needs its index file")
    except RuntimeError as error:
        raise AssetError(f"{name} is not a readable FAISS binary index ({error})") from None
    if not isinstance(index, classes[index_type]):
        raise AssetError(f"{name} holds a {type(index).__name__}, the manifest says {index_type}")
    if index.ntotal != count or index.d != bits:
        raise AssetError(
            f"{name} indexes {index.ntotal} codes of {index.d} bits, the pack has {count} of {bits}"
        )
    if isinstance(index, faiss.IndexBinaryHNSW):
        problem = _hnsw_problem(index)
    elif isinstance(index, faiss.IndexBinaryIVF):
        problem = _ivf_problem(index)
    else:  # unreachable: the class was checked above
        problem = f"unsupported index class {type(index).__name__}"
    if problem is not None:
        raise AssetError(f"{name}: {problem}")
    return index


def _hnsw_problem(index: faiss.IndexBinaryHNSW) -> str | None:
    """Why an HNSW graph could make FAISS read out of bounds or return a non-word, or None."""
    import faiss

    hnsw, count = index.hnsw, index.ntotal
    storage = index.storage
    if storage is None or storage.ntotal != count or storage.d != index.d:
        return "its code storage does not hold the indexed codes"
    levels = faiss.vector_to_array(hnsw.levels)
    offsets = faiss.vector_to_array(hnsw.offsets).astype(np.int64)
    neighbours = faiss.vector_to_array(hnsw.neighbors)
    cum = faiss.vector_to_array(hnsw.cum_nneighbor_per_level).astype(np.int64)
    if len(levels) != count or len(offsets) != count + 1 or len(cum) < 2:
        return "the HNSW graph does not have one node per code"
    if levels.min(initial=1) < 1 or levels.max(initial=1) > len(cum) - 1:
        return "an HNSW node has a level outside the graph's levels"
    if offsets[0] != 0 or np.any(offsets[1:] - offsets[:-1] != cum[levels]):
        return "the HNSW neighbour offsets do not match the node levels"
    if offsets[-1] != len(neighbours):
        return "the HNSW neighbour table has the wrong length"
    if len(neighbours) and (neighbours.min() < -1 or neighbours.max() >= count):
        return "an HNSW node links to an id outside the vocabulary"
    if not (-1 <= hnsw.entry_point < count) or hnsw.max_level != levels.max(initial=1) - 1:
        return "the HNSW entry point or top level is out of range"
    return None


def _ivf_problem(index: faiss.IndexBinaryIVF) -> str | None:
    """Why an IVF index could return an id that names no word, or None."""
    import faiss

    lists = index.invlists
    total = 0
    for number in range(index.nlist):
        size = lists.list_size(number)
        if size == 0:
            continue
        ids = faiss.rev_swig_ptr(lists.get_ids(number), size).copy()
        total += size
        if ids.min() < 0 or ids.max() >= index.ntotal:
            return "an inverted list holds an id outside the vocabulary"
    if total != index.ntotal:
        return f"its inverted lists hold {total} entries for {index.ntotal} codes"
    return None
