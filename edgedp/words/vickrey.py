"""The Vickrey mechanisms (Xu, Aggarwal, Feyisetan, Teissier 2021): choose among the nearest words.

Like Madlib (Euclidean space) or BRR (Hamming space), a Vickrey mechanism perturbs the input word's
embedding; instead of always outputting the nearest word to the perturbed point, it picks among the
nearest few at random, with probabilities that depend only on their distances to the perturbed
point:

* :class:`Vickrey` (Alg. 1): the first nearest with probability p = (1 - t) d2 / (t d1 + (1 - t) d2),
  else the second, where d1 <= d2 are their distances; t in [0, 1]; t = 0 is Madlib (or BRR).
* :class:`GeneralizedVickrey` (Alg. 3): the r-th nearest of k with probability proportional to
  exp(-t_r d_r), weights t_r >= 0.

**Why the input word is not excluded.** The printed algorithms search the neighbours among
W minus {w_i}, the input word. That selection looks at the raw input: M(w) could never output w,
while M(w') outputs w with positive probability, so Pr[M(w) = w] / Pr[M(w') = w] = 0 and the
reverse ratio is unbounded: no epsilon holds. The proof of Theorem 1 integrates over regions defined
by the perturbed point only, i.e. the selection is post-processing of the perturbed point, which is
what we implement: the candidates are the nearest words to the perturbed point, the input included.

**Guarantee.** The same as the perturbation: in Euclidean space epsilon * d_2 metric DP (the noisy
vector has Madlib's density); in Hamming space epsilon *per bit*, i.e. epsilon * d_H metric DP
(randomized response on the codes, as BRR). Any selection that depends only on the perturbed point
and public data preserves it, for any metric (Xu et al. Theorems 1 and 2). Ties: when d1 = d2 the
first is chosen with probability 1 - t (the limit of the formula), which also covers d1 = d2 = 0.
At t = 1 the formula gives 0 whenever d1 > 0 and the tie rule gives 0 at d1 = d2, but at d1 = 0 <
d2 (the perturbed point sits on a word, common in Hamming space) the formula reads 0/0: it is taken
as its limit in d1, i.e. 0 (the second word), so t = 1 always releases the second nearest. This
choice looks only at the perturbed point, so privacy is unaffected either way.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Unpack

import numpy as np

from edgedp.errors import InputError, PrivacyParameterError
from edgedp.privacy.randomness import RandomSource
from edgedp.privacy.validation import check_unit_interval
from edgedp.words.mechanism import WordMechanism, WordOptions
from edgedp.words.pack import WordPack
from edgedp.words.spaces import EuclideanSpace, HammingSpace, Space, choose_space


def first_choice_probability(d1: np.ndarray, d2: np.ndarray, t: float) -> np.ndarray:
    """Alg. 1's probability of the first nearest: (1 - t) d2 / (t d1 + (1 - t) d2); 1 - t on ties."""
    d1 = np.asarray(d1, dtype=np.float64)
    d2 = np.asarray(d2, dtype=np.float64)
    denominator = t * d1 + (1.0 - t) * d2
    tied = (d1 == d2) | (denominator == 0.0)
    safe = np.where(tied, 1.0, denominator)
    return np.where(tied, 1.0 - t, (1.0 - t) * d2 / safe)


def choose_first_or_second(
    ids: np.ndarray, distances: np.ndarray, t: float, rng: RandomSource
) -> np.ndarray:
    """Per row, ids[:, 0] with Alg. 1's probability, else ids[:, 1]."""
    p_first = first_choice_probability(distances[:, 0], distances[:, 1], t)
    take_first = rng.uniform(len(ids)) < p_first
    return np.where(take_first, ids[:, 0], ids[:, 1]).astype(np.int64)


def choose_by_weights(
    ids: np.ndarray, distances: np.ndarray, weights: np.ndarray, rng: RandomSource
) -> np.ndarray:
    """Per row, ids[:, r] with probability proportional to exp(-weights[r] * distances[:, r])."""
    log_weights = -np.asarray(weights, dtype=np.float64)[None, :] * distances
    chosen = rng.choice_from_log_weights(log_weights)
    picked: np.ndarray = ids[np.arange(len(ids)), chosen].astype(np.int64)
    return picked


class _NeighbourSelection(WordMechanism):
    """Perturb in Euclidean or Hamming space, then pick among the nearest words of the result."""

    space: Space

    def __init__(
        self,
        pack: WordPack,
        *,
        epsilon: float,
        space: str | None,
        choices: int,
        **options: Unpack[WordOptions],
    ) -> None:
        self.space_name = choose_space(pack, space, type(self).__name__)
        if choices > len(pack.vocabulary):
            raise InputError(f"{choices} candidates but the vocabulary has {len(pack.vocabulary)}")
        self.choices = choices
        super().__init__(pack, epsilon=epsilon, **options)

    def _build_space(self) -> Space:
        if self.space_name == "hamming":
            return HammingSpace(self.pack, self.epsilon, self.rng)
        return EuclideanSpace(self.pack, self.epsilon, self.rng, user=type(self).__name__)

    def parameters(self) -> dict[str, object]:
        return {**super().parameters(), "space": self.space_name}


class Vickrey(_NeighbourSelection):
    """The Vickrey mechanism (Alg. 1): the first or second nearest word to the perturbed input.

    See the module docstring for the guarantee (epsilon * d_2 metric DP with ``space="euclidean"``,
    epsilon per bit * d_H with ``space="hamming"``) and why the input word stays a candidate.
    ``t`` in [0, 1]: 0 always picks the nearest (Madlib / BRR), 1 always the second nearest.
    ``space``: the pack's by default (Euclidean with float vectors, else Hamming:
    :func:`edgedp.words.spaces.choose_space`).
    """

    name = "vickrey"

    def __init__(
        self,
        pack: WordPack,
        *,
        epsilon: float,
        t: float = 0.5,
        space: str | None = None,
        **options: Unpack[WordOptions],
    ) -> None:
        super().__init__(
            pack,
            epsilon=epsilon,
            space=space,
            choices=2,
            **options,
        )
        self.t = check_unit_interval(t, "t")

    def parameters(self) -> dict[str, object]:
        return {**super().parameters(), "t": self.t}

    def _release(self, word_ids: np.ndarray) -> np.ndarray:
        distances, ids = self.space.neighbours(word_ids, self.choices)
        return choose_first_or_second(ids, distances, self.t, self.rng)


class GeneralizedVickrey(_NeighbourSelection):
    """The generalized Vickrey mechanism (Alg. 3): one of the k nearest words to the perturbed input.

    The r-th nearest (distance d_r) is chosen with probability proportional to exp(-t_r d_r) for
    ``weights`` = (t_1, ..., t_k), finite and >= 0; k = len(weights). k = 1 is Madlib / BRR.
    Guarantee as for :class:`Vickrey` (module docstring).
    """

    name = "generalized-vickrey"

    def __init__(
        self,
        pack: WordPack,
        *,
        epsilon: float,
        weights: Sequence[float],
        space: str | None = None,
        **options: Unpack[WordOptions],
    ) -> None:
        self.weights = _check_weights(weights)
        super().__init__(
            pack,
            epsilon=epsilon,
            space=space,
            choices=len(self.weights),
            **options,
        )

    def parameters(self) -> dict[str, object]:
        return {**super().parameters(), "weights": self.weights.tolist()}

    def _release(self, word_ids: np.ndarray) -> np.ndarray:
        distances, ids = self.space.neighbours(word_ids, self.choices)
        return choose_by_weights(ids, distances, self.weights, self.rng)


def _check_weights(weights: Sequence[float]) -> np.ndarray:
    if (
        isinstance(weights, str)
        or not isinstance(weights, Sequence | np.ndarray)
        or not len(weights)
    ):
        raise PrivacyParameterError("weights must be a non-empty sequence of numbers >= 0")
    checked = []
    for weight in weights:
        if isinstance(weight, bool) or not isinstance(weight, int | float | np.number):
            raise PrivacyParameterError(f"weights must be numbers, got {weight!r}")
        if not (math.isfinite(weight) and weight >= 0):
            raise PrivacyParameterError(f"weights must be finite and >= 0, got {weight!r}")
        checked.append(float(weight))
    return np.array(checked)
