"""The Mahalanobis mechanism (Xu et al. 2020): elliptical noise shaped by the vectors' covariance."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from edgedp.identifiers import DEFAULT_PROTECT
from edgedp.randomness import RandomSource
from edgedp.validation import check_unit_interval
from edgedp.words.madlib import Madlib
from edgedp.words.pack import WordPack


def regularized_covariance(covariance: np.ndarray, lam: float) -> np.ndarray:
    """Sigma_lambda = lambda * Sigma / (tr(Sigma) / d) + (1 - lambda) * I.

    Sigma is rescaled to unit average variance so that lambda trades shape for isotropy without
    changing the overall scale (MLDP divides by the variance of all entries, which is nearly the
    same). lambda = 0 gives Madlib's isotropic noise.
    """
    dims = covariance.shape[0]
    return lam * covariance / (np.trace(covariance) / dims) + (1.0 - lam) * np.eye(dims)


def symmetric_square_root(matrix: np.ndarray) -> np.ndarray:
    """The symmetric positive square root of a symmetric positive-definite matrix (eigh)."""
    values, vectors = np.linalg.eigh(matrix)
    return (vectors * np.sqrt(np.clip(values, 0.0, None))) @ vectors.T


class Mahalanobis(Madlib):
    """Word-level metric DP with the regularized Mahalanobis norm (Xu, Aggarwal, Feyisetan, Teissier).

    The noise is z = Sigma_lambda^(1/2) y with y multivariate Laplace (density proportional to
    exp(-epsilon ||y||_2)), so z has density proportional to exp(-epsilon ||z||_M) with
    ||z||_M = sqrt(z^T Sigma_lambda^-1 z). It is *not* renormalized afterwards (a classic bug that
    changes the distribution). Output: the vocabulary word nearest to phi(w) + z (Euclidean).

    **Guarantee.** epsilon * d_M metric DP for d_M(w, w') = ||phi(w) - phi(w')||_M: the noise density
    satisfies the triangle inequality argument of Madlib in the Mahalanobis norm. The matrix root is
    computed once per mechanism (at construction), never per call. ``lam`` in [0, 1]: 0 is Madlib.
    """

    name = "mahalanobis"

    def __init__(
        self,
        pack: WordPack,
        *,
        epsilon: float,
        lam: float = 0.2,
        rng: RandomSource | int | None = None,
        oov: str = "sample",
        casing: str = "lower",
        protect: Iterable[str] | None = DEFAULT_PROTECT,
    ) -> None:
        super().__init__(pack, epsilon=epsilon, rng=rng, oov=oov, casing=casing, protect=protect)
        self.lam = check_unit_interval(lam, "lam")
        pack.require_vectors(type(self).__name__)  # a pack with vectors always has the covariance
        self.metric_matrix = regularized_covariance(np.asarray(pack.covariance), self.lam)
        self._root = symmetric_square_root(self.metric_matrix)

    def parameters(self) -> dict[str, object]:
        return {**super().parameters(), "lam": self.lam}

    def _noise(self, count: int, dims: int) -> np.ndarray:
        return super()._noise(count, dims) @ self._root  # rows y^T S = (S y)^T, S symmetric
