"""Euclidean geometry of word vectors: multivariate Laplace noise, the Mahalanobis metric, search.

Noise with density proportional to exp(-epsilon * ||z||_2) in d dimensions is a uniform direction
times a radius distributed Gamma(shape=d, scale=1/epsilon) (Fernandes et al. 2019; the "Madlib"
noise). Search is exact (FAISS ``IndexFlatL2`` over a float32 copy of the vectors, built once per
pack by ``WordPack.euclidean_index()``), and returns true Euclidean distances, not FAISS's squared ones.
"""

from __future__ import annotations

import faiss
import numpy as np

from edgedp.errors import InputError
from edgedp.packs.native import search_threads
from edgedp.privacy.noise import multivariate_laplace_radius_scale
from edgedp.privacy.randomness import RandomSource


def multivariate_laplace(count: int, dims: int, epsilon: float, rng: RandomSource) -> np.ndarray:
    """``count`` noise vectors with density proportional to exp(-epsilon ||z||_2)."""
    scale = multivariate_laplace_radius_scale(epsilon)
    radius = rng.gamma_integer_shape(dims, count) * scale
    return rng.unit_vectors(count, dims) * radius[:, None]


def regularized_covariance(covariance: np.ndarray, lam: float) -> np.ndarray:
    """Sigma_lambda = lambda * Sigma / (tr(Sigma) / d) + (1 - lambda) * I (the Mahalanobis metric).

    Sigma is rescaled to unit average variance so that lambda trades shape for isotropy without
    changing the overall scale (MLDP divides by the variance of all entries, which is nearly the
    same). lambda = 0 gives Madlib's isotropic noise.
    """
    dims = covariance.shape[0]
    regularized: np.ndarray = lam * covariance / (np.trace(covariance) / dims) + (
        1.0 - lam
    ) * np.eye(dims)
    return regularized


def symmetric_square_root(matrix: np.ndarray) -> np.ndarray:
    """The symmetric positive square root of a symmetric positive-definite matrix (eigh)."""
    values, vectors = np.linalg.eigh(matrix)
    root: np.ndarray = (vectors * np.sqrt(np.clip(values, 0.0, None))) @ vectors.T
    return root


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
        with search_threads(queries.shape[0]):
            squared, ids = self._index.search(queries, k)
        return np.sqrt(np.maximum(squared, 0.0, dtype=np.float64)), ids
