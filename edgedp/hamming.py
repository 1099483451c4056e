"""Nearest-neighbour search in Hamming space over a pack's binary codes (FAISS binary indexes).

Exact search (``IndexBinaryFlat``) is the default. Whatever the index, the result is a deterministic
function of the (already privatized) query, so the search is post-processing and cannot weaken the
privacy guarantee; an approximate index only changes utility. Ties go to the lowest vocabulary id
(the more frequent word), as FAISS resolves them.
"""

from __future__ import annotations

import faiss
import numpy as np

from edgedp.errors import InputError

INDEX_TYPES = ("flat",)


class HammingIndex:
    """k-nearest-neighbour search over packed binary codes of ``bits`` bits."""

    def __init__(self, codes: np.ndarray, *, index_type: str = "flat") -> None:
        if codes.dtype != np.uint8 or codes.ndim != 2 or codes.shape[0] == 0:
            raise InputError(
                f"codes must be a non-empty 2-D uint8 array, got {codes.dtype} {codes.shape}"
            )
        if index_type not in INDEX_TYPES:
            raise InputError(f"unknown index type {index_type!r} (known: {', '.join(INDEX_TYPES)})")
        self.bits = codes.shape[1] * 8
        self.index_type = index_type
        self._index = faiss.IndexBinaryFlat(self.bits)
        self._index.add(np.ascontiguousarray(codes))

    @property
    def exact(self) -> bool:
        """True when every answer is a true nearest neighbour."""
        return self.index_type == "flat"

    def __len__(self) -> int:
        return int(self._index.ntotal)

    def search(self, queries: np.ndarray, k: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """Distances and ids of the ``k`` nearest codes of each query, nearest first."""
        queries = np.ascontiguousarray(queries, dtype=np.uint8)
        if queries.ndim != 2 or queries.shape[1] * 8 != self.bits:
            raise InputError(f"queries must have shape (n, {self.bits // 8}), got {queries.shape}")
        if not 1 <= k <= len(self):
            raise InputError(f"k must be in [1, {len(self)}], got {k}")
        if queries.shape[0] == 0:
            return np.empty((0, k), dtype=np.int32), np.empty((0, k), dtype=np.int64)
        distances, ids = self._index.search(queries, k)
        return distances, ids
