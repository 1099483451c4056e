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
from edgedp.privacy.validation import check_unit_interval, renamed_keyword
from edgedp.words.mechanism import WordMechanism, WordOptions
from edgedp.words.pack import WordPack
from edgedp.words.spaces import EuclideanSpace, HammingSpace, Space, choose_geometry


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
        geometry: str | None,
        choices: int,
        **options: Unpack[WordOptions],
    ) -> None:
        self.geometry = choose_geometry(pack, geometry, type(self).__name__)
        if choices > len(pack.vocabulary):
            raise InputError(f"{choices} candidates but the vocabulary has {len(pack.vocabulary)}")
        self.choices = choices
        super().__init__(pack, epsilon=epsilon, **options)

    def _build_space(self) -> Space:
        if self.geometry == "hamming":
            return HammingSpace(self.pack, self.epsilon, self.rng)
        return EuclideanSpace(self.pack, self.epsilon, self.rng, user=type(self).__name__)

    def parameters(self) -> dict[str, object]:
        return {**super().parameters(), "geometry": self.geometry}


class Vickrey(_NeighbourSelection):
    """The Vickrey mechanism: the first or second nearest word to the perturbed input, at random.

    The input word's embedding is perturbed as by Madlib (Euclidean space) or BRR (Hamming space);
    then, with d1 <= d2 the distances of the two nearest words to the perturbed point, the first is
    output with probability p = (1 - t) d2 / (t d1 + (1 - t) d2), else the second (1 - t on ties).
    The input word stays a candidate: the printed algorithm excludes it, which looks at the raw
    input and breaks the guarantee (see :mod:`edgedp.words.vickrey`).

    Parameters
    ----------
    pack : ~edgedp.WordPack
        A words pack, e.g. the bundled default ``edgedp.load_pack()``.
    epsilon : float
        The privacy parameter of the perturbation: a finite number > 0, per unit of Euclidean
        distance or per bit. Keyword only.
    t : float, default 0.5
        In [0, 1]: 0 always picks the nearest (Madlib / BRR), 1 always the second nearest.
    geometry : {"euclidean", "hamming"} or None, default None
        The space perturbed in; ``None`` is the pack's (Euclidean with float vectors, else Hamming:
        :func:`edgedp.words.spaces.choose_geometry`).
    space : {"euclidean", "hamming"} or None, default None
        The deprecated name of ``geometry``: it warns :class:`DeprecationWarning` and will be
        removed in the next release.
    rng : ~edgedp.RandomSource, int or None, default None
        Where the noise comes from. ``None`` draws from OS entropy (private); an int seed makes
        the output reproducible and NOT private (tests and benchmarks only; it warns with
        :class:`~edgedp.NotPrivateWarning`).
    oov : {"sample", "mask", "drop", "placeholder"}, default "sample"
        What replaces an out-of-vocabulary token, a span the guard protects or an emoji,
        independently of its content: a uniform filler word (a common word, no name, no digit; for
        an emoji, a filler emoji), the marker :data:`~edgedp.OOV_MASK`, nothing, or a placeholder
        naming the guard's kind (``[EMAIL]``, ``[NAME]``, ``[EMOJI]``; ``[OOV]`` otherwise). No
        policy copies a character of the token.
    casing : {"lower", "sentence"}, default "lower"
        How released words are cased: all lower case, or capitalized at sentence starts.
    protect : Iterable of str or None, default DEFAULT_PROTECT
        The kinds (default: all of them) the identifier guard (:mod:`edgedp.text.identifiers`)
        recognises before word splitting and releases through ``oov``, never through the
        mechanism; ``None`` or ``()`` turns the guard off.
    deny : Iterable of str or None, default None
        Words always protected, whatever ``protect`` says (an app's contact names).
    decode : {"auto", "nearest", "map", "context"}, default "auto"
        Which word is printed for each noisy release (:mod:`edgedp.words.decoding`;
        post-processing, the guarantee is unchanged). ``"nearest"``: the mechanism's own rule;
        ``"map"``: the most probable word given the noisy point and a public unigram prior;
        ``"context"``: the most probable sentence under a public bigram language model.
        ``"auto"``: ``"context"`` for BRR where the public language model ``lm-general`` fits the
        pack, else ``"nearest"``. Only mechanisms that release a noisy point (BRR, Madlib,
        Mahalanobis, the Vickrey mechanisms) decode otherwise than ``"nearest"``.
    candidates : int, default 16
        The words (>= 1) weighed per slot by ``"map"`` and ``"context"``.
    language_model : LanguageModelPack, str, Path or None, default None
        The public language model of ``"map"`` and ``"context"``: a pack, its name or its
        directory; ``None`` is ``lm-general``.

    Raises
    ------
    ~edgedp.PrivacyParameterError
        If ``epsilon`` is not a finite number > 0, ``t`` is outside [0, 1], or ``protect`` names
        an unknown kind.
    ~edgedp.InputError
        If ``pack`` is not a words pack, ``geometry`` is unknown or given with ``space``, or
        ``oov``, ``casing``, ``deny``, ``decode`` or ``candidates`` is not one of the values above.
    ~edgedp.AssetError
        If ``geometry="euclidean"`` and the pack has no float vectors, or ``decode`` is ``"map"`` or
        ``"context"`` and no language model fits the pack.

    See Also
    --------
    GeneralizedVickrey : one of the k nearest words.

    Notes
    -----
    **Guarantee.** The perturbation's: with ``geometry="euclidean"`` epsilon * d_2 metric DP per
    word (the noisy vector has Madlib's density); with ``geometry="hamming"`` epsilon *per bit*, i.e.
    epsilon * d_H metric DP (randomized response on the codes, as BRR). The choice among the
    nearest words reads only the perturbed point and public data, so it is post-processing and
    preserves the guarantee for any metric (Xu et al., Theorems 1 and 2). Proof and tie rules:
    :doc:`/theory`.

    References
    ----------
    * Z. Xu, A. Aggarwal, O. Feyisetan, N. Teissier. "On a Utilitarian Approach to Privacy
      Preserving Text Generation", 2021 (Algorithm 1).

    Examples
    --------
    >>> import edgedp
    >>> vickrey = edgedp.Vickrey(edgedp.load_pack(), epsilon=0.6, t=0.5)
    >>> isinstance(vickrey.privatize("the cat sat"), str)
    True
    >>> vickrey.guarantee().metric
    'hamming'
    """

    name = "vickrey"

    def __init__(
        self,
        pack: WordPack,
        *,
        epsilon: float,
        t: float = 0.5,
        geometry: str | None = None,
        space: str | None = None,
        **options: Unpack[WordOptions],
    ) -> None:
        super().__init__(
            pack,
            epsilon=epsilon,
            geometry=renamed_keyword(geometry, space, "geometry", "space"),
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
    """The generalized Vickrey mechanism: one of the k nearest words to the perturbed input.

    The input word's embedding is perturbed as by Madlib (Euclidean space) or BRR (Hamming space);
    then the r-th nearest word to the perturbed point (distance d_r) is chosen with probability
    proportional to exp(-t_r d_r), for ``weights`` = (t_1, ..., t_k). k = 1 is Madlib / BRR. As
    for :class:`~edgedp.Vickrey`, the input word stays a candidate.

    Parameters
    ----------
    pack : ~edgedp.WordPack
        A words pack, e.g. the bundled default ``edgedp.load_pack()``.
    epsilon : float
        The privacy parameter of the perturbation: a finite number > 0, per unit of Euclidean
        distance or per bit. Keyword only.
    weights : Sequence of float
        The weights t_1, ..., t_k, each finite and >= 0; k = ``len(weights)`` (>= 1, at most the
        vocabulary's size). Required.
    geometry : {"euclidean", "hamming"} or None, default None
        The space perturbed in; ``None`` is the pack's (Euclidean with float vectors, else Hamming:
        :func:`edgedp.words.spaces.choose_geometry`).
    space : {"euclidean", "hamming"} or None, default None
        The deprecated name of ``geometry``: it warns :class:`DeprecationWarning` and will be
        removed in the next release.
    rng : ~edgedp.RandomSource, int or None, default None
        Where the noise comes from. ``None`` draws from OS entropy (private); an int seed makes
        the output reproducible and NOT private (tests and benchmarks only; it warns with
        :class:`~edgedp.NotPrivateWarning`).
    oov : {"sample", "mask", "drop", "placeholder"}, default "sample"
        What replaces an out-of-vocabulary token, a span the guard protects or an emoji,
        independently of its content: a uniform filler word (a common word, no name, no digit; for
        an emoji, a filler emoji), the marker :data:`~edgedp.OOV_MASK`, nothing, or a placeholder
        naming the guard's kind (``[EMAIL]``, ``[NAME]``, ``[EMOJI]``; ``[OOV]`` otherwise). No
        policy copies a character of the token.
    casing : {"lower", "sentence"}, default "lower"
        How released words are cased: all lower case, or capitalized at sentence starts.
    protect : Iterable of str or None, default DEFAULT_PROTECT
        The kinds (default: all of them) the identifier guard (:mod:`edgedp.text.identifiers`)
        recognises before word splitting and releases through ``oov``, never through the
        mechanism; ``None`` or ``()`` turns the guard off.
    deny : Iterable of str or None, default None
        Words always protected, whatever ``protect`` says (an app's contact names).
    decode : {"auto", "nearest", "map", "context"}, default "auto"
        Which word is printed for each noisy release (:mod:`edgedp.words.decoding`;
        post-processing, the guarantee is unchanged). ``"nearest"``: the mechanism's own rule;
        ``"map"``: the most probable word given the noisy point and a public unigram prior;
        ``"context"``: the most probable sentence under a public bigram language model.
        ``"auto"``: ``"context"`` for BRR where the public language model ``lm-general`` fits the
        pack, else ``"nearest"``. Only mechanisms that release a noisy point (BRR, Madlib,
        Mahalanobis, the Vickrey mechanisms) decode otherwise than ``"nearest"``.
    candidates : int, default 16
        The words (>= 1) weighed per slot by ``"map"`` and ``"context"``.
    language_model : LanguageModelPack, str, Path or None, default None
        The public language model of ``"map"`` and ``"context"``: a pack, its name or its
        directory; ``None`` is ``lm-general``.

    Raises
    ------
    ~edgedp.PrivacyParameterError
        If ``epsilon`` is not a finite number > 0, ``weights`` is empty or holds a negative or
        non-finite number, or ``protect`` names an unknown kind.
    ~edgedp.InputError
        If ``pack`` is not a words pack, ``weights`` is longer than the vocabulary, ``geometry``
        is unknown or given with ``space``, or ``oov``, ``casing``, ``deny``, ``decode`` or
        ``candidates`` is not one of the values above.
    ~edgedp.AssetError
        If ``geometry="euclidean"`` and the pack has no float vectors, or ``decode`` is ``"map"`` or
        ``"context"`` and no language model fits the pack.

    See Also
    --------
    Vickrey : the first or second nearest word.

    Notes
    -----
    **Guarantee.** As for :class:`~edgedp.Vickrey`: the perturbation's, epsilon * d_2 metric DP
    per word with ``geometry="euclidean"``, epsilon per bit (epsilon * d_H metric DP) with
    ``geometry="hamming"``; the weighted choice reads only the perturbed point and public data
    (post-processing). Proof: :doc:`/theory`.

    References
    ----------
    * Z. Xu, A. Aggarwal, O. Feyisetan, N. Teissier. "On a Utilitarian Approach to Privacy
      Preserving Text Generation", 2021 (Algorithm 3).

    Examples
    --------
    >>> import edgedp
    >>> gv = edgedp.GeneralizedVickrey(edgedp.load_pack(), epsilon=0.6, weights=[1.0, 0.5, 0.25])
    >>> isinstance(gv.privatize("the cat sat"), str)
    True
    >>> gv.parameters()["weights"]
    [1.0, 0.5, 0.25]
    """

    name = "generalized-vickrey"

    def __init__(
        self,
        pack: WordPack,
        *,
        epsilon: float,
        weights: Sequence[float],
        geometry: str | None = None,
        space: str | None = None,
        **options: Unpack[WordOptions],
    ) -> None:
        self.weights = _check_weights(weights)
        super().__init__(
            pack,
            epsilon=epsilon,
            geometry=renamed_keyword(geometry, space, "geometry", "space"),
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
