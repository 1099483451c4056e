"""The spaces word mechanisms perturb in: each owns its noise and its nearest-word search.

A *space* turns vocabulary ids into a perturbed point (the differentially private release) and
finds the vocabulary words nearest to a point (post-processing). Every word mechanism composes from
one: BRR is "nearest word in Hamming space", Madlib "nearest word in Euclidean space", Vickrey "one
of the two nearest", and a new word mechanism only decides what to do with the neighbours.

* :class:`HammingSpace`: randomized response on the pack's binary codes, epsilon per bit
  (epsilon * d_Hamming metric DP), search in :class:`edgedp.words.hamming.HammingIndex`.
* :class:`EuclideanSpace`: multivariate Laplace noise, density proportional to
  exp(-epsilon ||z||_2) (epsilon * d_2 metric DP), exact search over the float vectors.
* :class:`MahalanobisSpace`: elliptical noise z = Sigma_lambda^(1/2) y, y as in the Euclidean space
  (epsilon * d_M metric DP), the same search.

Mechanisms that can work in either space (Vickrey, GeneralizedVickrey, TEM, CusText) take
``geometry="euclidean"`` or ``"hamming"``; left out (``None``), :func:`choose_geometry` picks the pack's:
Euclidean when it has float vectors (the papers' setting), else Hamming (every pack has codes), so
they work on the bundled binary-only pack. The guarantee names the space either way (in Hamming
space epsilon is per bit).

Whatever follows the perturbation looks only at the perturbed point and public data, so it is
post-processing and the space's guarantee holds for the released word.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from functools import cached_property
from typing import ClassVar

import numpy as np

from edgedp.errors import AssetError, InputError
from edgedp.privacy.noise import multivariate_laplace_radius_scale, rr_flip_threshold
from edgedp.privacy.randomness import RandomSource
from edgedp.privacy.validation import check_choice, check_unit_interval
from edgedp.words.euclidean import (
    multivariate_laplace,
    regularized_covariance,
    symmetric_square_root,
)
from edgedp.words.hamming import randomized_response
from edgedp.words.pack import FLOAT_PACK_RECIPE, WordPack

#: The geometries (spaces) a mechanism with a choice can perturb in.
GEOMETRIES = ("euclidean", "hamming")


def choose_geometry(pack: WordPack, geometry: str | None, mechanism: str) -> str:
    """``geometry`` checked against the pack, or the pack's when ``geometry`` is ``None``:
    ``"euclidean"`` if it has float vectors, else ``"hamming"``.

    Euclidean space on a pack without vectors is an :class:`AssetError` that gives the one-flag
    fix (Hamming space) before the pack that would have vectors.
    """
    if geometry is None:
        return "euclidean" if pack.vectors is not None else "hamming"
    name = check_choice(geometry, "geometry", GEOMETRIES)
    if name == "euclidean" and pack.vectors is None:
        raise AssetError(
            f"{mechanism} in Euclidean space needs float word vectors and pack {pack.name!r} has "
            "none (it is binary-only to stay small): use geometry='hamming' (--geometry hamming) "
            f"on it, epsilon per bit; or {FLOAT_PACK_RECIPE.format(pack=pack.name)}"
        )
    return name


class Space(ABC):
    """Noise and nearest-word search at privacy ``epsilon`` over a word pack."""

    #: The metric of the guarantee (``"hamming"``, ``"euclidean"``, ``"mahalanobis"``).
    metric: ClassVar[str]
    #: What epsilon is per (``"bit"`` in Hamming space), or None.
    metric_unit: ClassVar[str | None] = None
    #: Whether :meth:`perturb`'s points may leave the process as a release. Randomized response's
    #: bits are exact; a float vector plus continuous noise is not: floating point leaves holes in
    #: its support (Mironov 2012), points one word can produce and a neighbour cannot, so no
    #: epsilon holds for the points themselves. Their nearest or decoded *word* is the release.
    releasable_points: ClassVar[bool] = False

    def __init__(self, pack: WordPack, epsilon: float, rng: RandomSource) -> None:
        self.pack, self.epsilon, self.rng = pack, epsilon, rng

    @abstractmethod
    def perturb(self, word_ids: np.ndarray) -> np.ndarray:
        """One perturbed point per vocabulary id (a release only if :attr:`releasable_points`)."""

    @abstractmethod
    def nearest(self, points: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Distances (float64) and ids (int64) of the ``k`` nearest words to each point."""

    def neighbours(self, word_ids: np.ndarray, k: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """Distances and ids of the ``k`` nearest words to each perturbed input word."""
        return self.nearest(self.perturb(word_ids), k)

    @abstractmethod
    def log_likelihood(
        self, points: np.ndarray, distances: np.ndarray, ids: np.ndarray
    ) -> np.ndarray:
        """log Pr[release = point | input word = id] up to a constant of the point, for each row's
        candidate ``ids`` (n, k) at the ``distances`` :meth:`nearest` found (n, k): the exact
        noise law of :meth:`perturb`, what a decoder weighs candidates with (post-processing)."""


class HammingSpace(Space):
    """Randomized response on binary codes (epsilon per bit) and Hamming search."""

    metric = "hamming"
    metric_unit = "bit"
    releasable_points = True

    def perturb_codes(self, codes: np.ndarray) -> np.ndarray:
        """Randomized response on packed codes (uint8, shape (n, bits / 8))."""
        if (
            isinstance(codes, np.ndarray)
            and codes.ndim == 2
            and codes.shape[1] * 8 != self.pack.bits
        ):
            raise InputError(
                f"codes must have {self.pack.bits} bits per row, got {codes.shape[1] * 8}"
            )
        return randomized_response(codes, self.epsilon, self.rng)

    def perturb(self, word_ids: np.ndarray) -> np.ndarray:
        return self.perturb_codes(np.asarray(self.pack.codes[word_ids]))

    def nearest(self, points: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        distances, ids = self.pack.index.search(points, k)
        return distances.astype(np.float64), ids.astype(np.int64)

    def log_likelihood(
        self, points: np.ndarray, distances: np.ndarray, ids: np.ndarray
    ) -> np.ndarray:
        """d log(p / (1 - p)) for Hamming distance d: each bit flipped independently with the
        realised probability p (:func:`edgedp.privacy.noise.rr_flip_threshold`)."""
        flip = rr_flip_threshold(self.epsilon) / 2**64
        return np.asarray(distances, dtype=np.float64) * math.log(flip / (1.0 - flip))


class EuclideanSpace(Space):
    """Multivariate Laplace noise on the float vectors and exact Euclidean search."""

    metric = "euclidean"

    def __init__(self, pack: WordPack, epsilon: float, rng: RandomSource, *, user: str) -> None:
        super().__init__(pack, epsilon, rng)
        self.vectors = pack.require_vectors(user)
        self._user = user

    @property
    def radius_scale(self) -> float:
        """The realised scale s of the noise radius (density exp(-||z|| / s)), the one conversion
        :func:`edgedp.privacy.noise.multivariate_laplace_radius_scale` gives."""
        return multivariate_laplace_radius_scale(self.epsilon)

    def noise(self, count: int, dims: int) -> np.ndarray:
        """``count`` noise vectors of this space."""
        return multivariate_laplace(count, dims, self.epsilon, self.rng)

    def perturb(self, word_ids: np.ndarray) -> np.ndarray:
        points = np.asarray(self.vectors[word_ids], dtype=np.float64)
        noisy: np.ndarray = points + self.noise(*points.shape)
        return noisy

    def nearest(self, points: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        distances, ids = self.pack.euclidean_index(self._user).search(points, k)
        return distances, ids.astype(np.int64)

    def log_likelihood(
        self, points: np.ndarray, distances: np.ndarray, ids: np.ndarray
    ) -> np.ndarray:
        """-||point - phi(w)||_2 / s: the density exp(-||z||_2 / s) of the noise, s the realised
        radius scale (>= 1 / epsilon; its normalizer does not depend on the word)."""
        return -np.asarray(distances, dtype=np.float64) / self.radius_scale


class MahalanobisSpace(EuclideanSpace):
    """Elliptical noise shaped by the vectors' regularized covariance, and Euclidean search.

    The matrix root Sigma_lambda^(1/2) is computed once, here, never per call.
    """

    metric = "mahalanobis"

    def __init__(
        self, pack: WordPack, epsilon: float, rng: RandomSource, *, user: str, lam: float
    ) -> None:
        super().__init__(pack, epsilon, rng, user=user)
        self.lam = check_unit_interval(lam, "lam")
        self.metric_matrix = regularized_covariance(np.asarray(pack.covariance), self.lam)
        self.root = symmetric_square_root(self.metric_matrix)

    @cached_property
    def inverse_root(self) -> np.ndarray:
        """Sigma_lambda^(-1/2) (pseudo-inverse: lambda = 1 on a singular covariance), for decoders."""
        inverse: np.ndarray = np.linalg.pinv(self.root, hermitian=True)
        return inverse

    def log_likelihood(
        self, points: np.ndarray, distances: np.ndarray, ids: np.ndarray
    ) -> np.ndarray:
        """-||point - phi(w)||_M / s, ||z||_M = sqrt(z^T Sigma_lambda^-1 z): the density of
        z = Sigma_lambda^(1/2) y (candidates are found by Euclidean distance, weighed by this)."""
        offsets = np.asarray(points, dtype=np.float64)[:, None, :] - np.asarray(
            self.vectors[ids], dtype=np.float64
        )
        whitened = np.einsum("nkd,de->nke", offsets, self.inverse_root)
        norms: np.ndarray = np.sqrt(np.einsum("nke,nke->nk", whitened, whitened))
        return -norms / self.radius_scale

    def noise(self, count: int, dims: int) -> np.ndarray:
        # rows y^T S = (S y)^T; einsum, not matmul: numpy's BLAS would start its own spinning
        # threads for this small product (see edgedp.runtime.native), and einsum is faster here
        shaped: np.ndarray = np.einsum("ij,jk->ik", super().noise(count, dims), self.root)
        return shaped
