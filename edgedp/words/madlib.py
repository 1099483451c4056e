"""Madlib: multivariate Laplace noise on word vectors + Euclidean nearest neighbour."""

from __future__ import annotations

import numpy as np

from edgedp.words.euclidean import multivariate_laplace
from edgedp.words.mechanism import WordMechanism


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

    def _noise(self, count: int, dims: int) -> np.ndarray:
        return multivariate_laplace(count, dims, self.epsilon, self.rng)

    def _noisy_vectors(self, word_ids: np.ndarray) -> np.ndarray:
        vectors = self.pack.require_vectors(type(self).__name__)
        points = np.asarray(vectors[word_ids], dtype=np.float64)
        return points + self._noise(*points.shape)

    def _release(self, word_ids: np.ndarray) -> np.ndarray:
        index = self.pack.euclidean_index(type(self).__name__)
        _, nearest = index.search(self._noisy_vectors(word_ids), 1)
        return nearest[:, 0].astype(np.int64)
