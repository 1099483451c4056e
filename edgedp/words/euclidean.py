"""Euclidean space: multivariate Laplace noise and nearest-word search over a pack's float vectors.

Noise with density proportional to exp(-epsilon * ||z||_2) in d dimensions is a uniform direction
times a radius distributed Gamma(shape=d, scale=1/epsilon) (Fernandes et al. 2019; the "Madlib"
noise). Search is exact (FAISS ``IndexFlatL2`` over a float32 copy of the vectors, built once per
pack by ``WordPack.euclidean_index()``), and returns true Euclidean distances, not FAISS's squared ones.
"""

from __future__ import annotations

import faiss
import numpy as np

from edgedp.errors import InputError
from edgedp.noise import multivariate_laplace_radius_scale
from edgedp.randomness import RandomSource


def multivariate_laplace(count: int, dims: int, epsilon: float, rng: RandomSource) -> np.ndarray:
    """``count`` noise vectors with density proportional to exp(-epsilon ||z||_2)."""
    scale = multivariate_laplace_radius_scale(epsilon)
    radius = rng.gamma_integer_shape(dims, count) * scale
    return rng.unit_vectors(count, dims) * radius[:, None]


class EuclideanIndex:
    """Exact k-nearest-neighbour search over word vectors (float16 or float32, (n, dims))."""

    def __init__(self, vectors: np.ndarray) -> None:
        if vectors.ndim != 2 or vectors.shape[0] == 0:
            raise InputError(f"vectors must be a non-empty 2-D array, got shape {vectors.shape}")
        self.dims = vectors.shape[1]
        self._index = faiss.IndexFlatL2(self.dims)
        self._index.add(np.ascontiguousarray(vectors, dtype=np.float32))

    def __len__(self) -> int:
        return int(self._index.ntotal)

    def search(self, queries: np.ndarray, k: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """Euclidean distances and ids of the ``k`` nearest vectors of each query, nearest first."""
        queries = np.ascontiguousarray(queries, dtype=np.float32)
        if queries.ndim != 2 or queries.shape[1] != self.dims:
            raise InputError(f"queries must have shape (n, {self.dims}), got {queries.shape}")
        if not 1 <= k <= len(self):
            raise InputError(f"k must be in [1, {len(self)}], got {k}")
        if not np.isfinite(queries).all():
            raise InputError("queries must be finite")
        squared, ids = self._index.search(queries, k)
        return np.sqrt(np.maximum(squared, 0.0, dtype=np.float64)), ids
