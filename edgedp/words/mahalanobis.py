"""The Mahalanobis mechanism (Xu et al. 2020): elliptical noise shaped by the vectors' covariance."""

from __future__ import annotations

from typing import Unpack

import numpy as np

from edgedp.privacy.validation import check_unit_interval
from edgedp.words.madlib import Madlib
from edgedp.words.mechanism import WordOptions
from edgedp.words.pack import WordPack
from edgedp.words.spaces import MahalanobisSpace


class Mahalanobis(Madlib):
    """Word-level metric DP with the regularized Mahalanobis norm (Xu, Aggarwal, Feyisetan, Teissier).

    The noise is z = Sigma_lambda^(1/2) y with y multivariate Laplace (density proportional to
    exp(-epsilon ||y||_2)), so z has density proportional to exp(-epsilon ||z||_M) with
    ||z||_M = sqrt(z^T Sigma_lambda^-1 z). It is *not* renormalized afterwards (a classic bug that
    changes the distribution). Output: the vocabulary word nearest to phi(w) + z (Euclidean).

    **Guarantee.** epsilon * d_M metric DP for d_M(w, w') = ||phi(w) - phi(w')||_M: the noise density
    satisfies the triangle inequality argument of Madlib in the Mahalanobis norm. The matrix root is
    computed once per mechanism (at construction, :class:`edgedp.words.spaces.MahalanobisSpace`),
    never per call. ``lam`` in [0, 1]: 0 is Madlib.
    """

    name = "mahalanobis"
    space: MahalanobisSpace

    def __init__(
        self,
        pack: WordPack,
        *,
        epsilon: float,
        lam: float = 0.2,
        **options: Unpack[WordOptions],
    ) -> None:
        self.lam = check_unit_interval(lam, "lam")
        super().__init__(pack, epsilon=epsilon, **options)

    def _build_space(self) -> MahalanobisSpace:
        return MahalanobisSpace(
            self.pack, self.epsilon, self.rng, user=type(self).__name__, lam=self.lam
        )

    @property
    def metric_matrix(self) -> np.ndarray:
        """Sigma_lambda, the matrix of the Mahalanobis metric d_M(x, y)^2 = (x-y)^T Sigma^-1 (x-y)."""
        return self.space.metric_matrix

    def parameters(self) -> dict[str, object]:
        return {**super().parameters(), "lam": self.lam}
