"""Euclidean geometry of word vectors: multivariate Laplace noise, the Mahalanobis metric, search.

Noise with density proportional to exp(-epsilon * ||z||_2) in d dimensions is a uniform direction
times a radius distributed Gamma(shape=d, scale=1/epsilon) (Fernandes et al. 2019; the "Madlib"
noise). Search (:class:`EuclideanIndex`, built once per pack by ``WordPack.euclidean_index()``) is
exact: one matrix product of the queries with the vocabulary and a running top-k, and it returns
true Euclidean distances in float64.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from edgedp.errors import InputError
from edgedp.privacy.noise import multivariate_laplace_radius_scale
from edgedp.privacy.randomness import RandomSource
from edgedp.runtime.backend import backend
from edgedp.runtime.knn import RunningTop
from edgedp.runtime.native import Lazy, search_threads

if TYPE_CHECKING:
    import faiss


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


#: Vocabulary words per matrix product: the index holds one product per block of words (16,384 x
#: 51 float32 = 3.3 MB, which stays in cache while a block of queries streams through it).
WORDS_PER_BLOCK = 16384
#: Queries per matrix product: each writes up to QUERIES_PER_PRODUCT x WORDS_PER_BLOCK float32
#: scores (16 MB), reused for every block.
QUERIES_PER_PRODUCT = 256


#: Candidates beyond ``k`` that :class:`EuclideanIndex` ranks again exactly (ties at the k-th
#: place that a BLAS's last-bit rounding ordered by row position).
TIE_MARGIN = 48


class EuclideanIndex:
    """Exact k-nearest-neighbour search over word vectors (float16 or float32, (n, dims)).

    The nearest word to a query q minimises ||v - q||^2 = ||q||^2 - 2 (v.q - ||v||^2 / 2): it
    minimises the score ||v||^2 / 2 - v.q, one matrix product of the negated queries with the
    vocabulary vectors augmented by the column ||v||^2 / 2 (the GEMM bound of the ``throughput``
    suite), then a
    running top-k per query (:class:`edgedp.runtime.knn.RunningTop`, ties to the lower id). A
    query is divided by max(1, max_i |q_i|) first, and its augmented coordinate is that same
    factor, which keeps a far query (a tiny epsilon) finite in float32 without changing its
    ranking.

    The product is float32 on the search tier (:func:`edgedp.runtime.backend.backend`): natively FAISS's
    BLAS (a ``LinearTransform``), which follows the calling thread's OpenMP thread count
    (:func:`edgedp.runtime.native.search_threads`, ``set_num_threads``) and waits passively, where
    numpy's BLAS would start spinning threads on every core; on the numpy tier ``np.matmul`` of
    the same float32 operands. The two BLAS may round a score differently in its last bit, so the
    tiers can disagree only on words whose float32 scores tie to that precision (no guarantee
    depends on which: the search is post-processing of the noisy query).

    The ``k`` words found are returned nearest first, with their Euclidean distance to the
    float64 query computed in float64 from the vectors, ties to the lower id: the
    ``k`` + :data:`TIE_MARGIN` best float32 scores are ranked again by the score in float64 (equal
    vectors tie exactly, whatever the BLAS rounded). Which words are candidates is decided by the
    float32 scores, at the rounding of
    FAISS's flat L2 index (which this replaces: it takes its BLAS path only from 128,000 query
    components per call, and its scalar path took several times the GEMM bound's time on batches of
    hundreds of words: bench/reports/2026-11-24-throughput.md).
    """

    def __init__(self, vectors: np.ndarray) -> None:
        if vectors.ndim != 2 or vectors.shape[0] == 0:
            raise InputError(f"vectors must be a non-empty 2-D array, got shape {vectors.shape}")
        self.dims = vectors.shape[1]
        self._vectors = vectors
        # the tier's copy of the augmented vectors, built on its first search
        self._augmented = Lazy(self._augment)
        self._products = Lazy(lambda: [_product(rows) for rows in self._augment()])

    def _augment(self) -> list[np.ndarray]:
        """The rows (v, ||v||^2 / 2) in float32, :data:`WORDS_PER_BLOCK` words per block."""
        exact = np.asarray(self._vectors, dtype=np.float64)
        augmented = np.empty((len(exact), self.dims + 1), dtype=np.float32)
        augmented[:, : self.dims] = exact
        augmented[:, self.dims] = 0.5 * np.einsum("ij,ij->i", exact, exact)
        return [
            augmented[start : start + WORDS_PER_BLOCK]
            for start in range(0, len(exact), WORDS_PER_BLOCK)
        ]

    def __len__(self) -> int:
        return int(self._vectors.shape[0])

    def search(self, queries: np.ndarray, k: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """Euclidean distances (float64) and ids (int64) of the ``k`` nearest vectors of each
        query, nearest first."""
        points = np.asarray(queries, dtype=np.float64)
        if points.ndim != 2 or points.shape[1] != self.dims:
            raise InputError(f"queries must have shape (n, {self.dims}), got {points.shape}")
        if not 1 <= k <= len(self):
            raise InputError(f"k must be in [1, {len(self)}], got {k}")
        if not np.isfinite(points).all():
            raise InputError("queries must be finite")
        distances = np.empty((len(points), k))
        ids = np.empty((len(points), k), dtype=np.int64)
        with search_threads(len(points)):
            for start in range(0, len(points), QUERIES_PER_PRODUCT):
                rows = slice(start, start + QUERIES_PER_PRODUCT)
                distances[rows], ids[rows] = self._search_block(points[rows], k)
        return distances, ids

    def _search_block(self, points: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        count = len(points)
        scale = np.maximum(1.0, np.abs(points).max(axis=1))[:, None]
        queries = np.empty((count, self.dims + 1), dtype=np.float32)
        queries[:, : self.dims] = points / -scale
        queries[:, self.dims :] = 1.0 / scale
        # a few more than k by float32 score: a BLAS may round the same score differently in
        # different rows of a block, so words tied at the k-th place (equal vectors) are ranked
        # again below, exactly
        wide = min(len(self), k + TIE_MARGIN)
        top = RunningTop(count, wide, np.float32)
        scores = np.empty(count * min(WORDS_PER_BLOCK, len(self)), dtype=np.float32)
        if backend("search") == "numpy":
            for number, rows in enumerate(self._augmented.get()):
                block = scores[: count * len(rows)].reshape(count, len(rows))
                np.matmul(queries, rows.T, out=block)
                top.add(block, number * WORDS_PER_BLOCK)
        else:
            import faiss

            for number, product in enumerate(self._products.get()):
                block = scores[: count * product.d_out].reshape(count, product.d_out)
                # apply_noalloc is real FAISS API missing from its type stubs
                product.apply_noalloc(count, faiss.swig_ptr(queries), faiss.swig_ptr(block))  # type: ignore[attr-defined]
                top.add(block, number * WORDS_PER_BLOCK)
        # exact distances of the words found, nearest first, ties to the lower id
        found = top.ids
        offsets = np.asarray(self._vectors[found], dtype=np.float64) - points[:, None, :]
        offsets /= scale[:, :, None]  # no overflow in the squares below
        distances = np.sqrt(np.einsum("ijk,ijk->ij", offsets, offsets)) * scale
        # ranked by the float64 score ||v||^2 / (2 s) - v.q / s (s: the query's scale), the
        # distance's order without its cancellation for a far query; equal vectors tie exactly
        vectors = np.asarray(self._vectors[found], dtype=np.float64)
        ranking = 0.5 * np.einsum("ijk,ijk->ij", vectors, vectors) / scale - np.einsum(
            "ijk,ik->ij", vectors, points / scale
        )
        order = np.lexsort((found, ranking), axis=1)[:, :k]
        return np.take_along_axis(distances, order, 1), np.take_along_axis(found, order, 1)


def _product(rows: np.ndarray) -> faiss.LinearTransform:
    """y = rows @ x as a FAISS ``LinearTransform`` (its BLAS matrix product, into a given buffer)."""
    import faiss

    product = faiss.LinearTransform(rows.shape[1], rows.shape[0], False)
    faiss.copy_array_to_vector(np.ascontiguousarray(rows).ravel(), product.A)
    product.is_trained = True
    return product
