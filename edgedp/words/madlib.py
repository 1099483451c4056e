"""Madlib: multivariate Laplace noise on word vectors + Euclidean nearest neighbour."""

from __future__ import annotations

from edgedp.words.mechanism import WordMechanism
from edgedp.words.spaces import EuclideanSpace


class Madlib(WordMechanism):
    """Word-level metric DP in Euclidean space (Feyisetan et al. 2020; BRR paper, Alg. 1).

    For a word w with vector phi(w), Madlib samples z with density proportional to
    exp(-epsilon * ||z||_2) (a uniform direction times a Gamma(d, 1/epsilon) radius) and outputs the
    vocabulary word nearest to phi(w) + z in Euclidean distance (exact search).

    **Guarantee.** epsilon * d_2 metric DP: for any two vocabulary words w, w' and any output o,
    Pr[M(w) = o] <= e^(epsilon * ||phi(w) - phi(w')||_2) * Pr[M(w') = o]. The noisy vector is the DP
    release and is never returned; the nearest-word search is post-processing. Euclidean distances
    between GloVe words are of order 1 to 10, so useful epsilons are far larger than BRR's per-bit
    epsilons; compare mechanisms with ``edgedp.evaluation.calibration.equivalent_epsilon``.

    Needs a pack with float vectors (``edgedp-export words --preset medium``). Out-of-vocabulary
    tokens never reach the output (see :mod:`edgedp.words.mechanism`).
    """

    name = "madlib"
    space: EuclideanSpace

    def _build_space(self) -> EuclideanSpace:
        return EuclideanSpace(self.pack, self.epsilon, self.rng, user=type(self).__name__)
