"""TEM, the Truncated Exponential Mechanism (Carvalho, Vasiloudis, Feyisetan, Wang 2021).

For an input word w and a threshold gamma, TEM keeps the words within distance gamma,
L_w = {w' : d(w, w') <= gamma}, scores each by -d(w, w'), gives every other word the same score
-gamma, and selects by the exponential mechanism (Gumbel-max with noise scale 2 / epsilon in the
paper). The words outside L_w are merged into one "bottom" element of weight
|V minus L_w| e^(-epsilon gamma / 2); when it wins, the output is a uniform word of V minus L_w.
So one draw costs O(|L_w|), not O(|V|).

**Guarantee.** epsilon * d metric DP for the exact law, d the Euclidean distance of the pack's
float vectors (``geometry="euclidean"``, computed in float64 by
:class:`~edgedp.words.exponential_selection.VectorDistances`) or the Hamming distance of the binary
codes (``geometry="hamming"``, epsilon per bit); since the score is truncated, also
epsilon * gamma DP between any two vocabulary words. What the float draw and distances add, and
how the coefficient absorbs it, is in :class:`TEM` ("On the machine"). ``gamma=None`` chooses gamma
by the paper's recipe, so that with probability at least 1 - ``beta`` the output is within gamma of
the input; gamma changes utility and cost, never the guarantee. The proof, the choice of gamma and
the peers' bugs it avoids (planted in tests/words/test_tem.py): docs/theory.md, section "TEM".

**The draw** (:mod:`edgedp.words.vocabulary_draw`): the words near the input are scored exactly,
the rest by rejection from an envelope, so a release costs a few variates, never one per vocabulary
word. Hamming: the near words are those within R <= gamma bits of the input (an exact flat range
search; R chosen per epsilon from a public sample of the vocabulary), one unit per distance.
Euclidean: the near words are those a float32 search returns among the nearest (within gamma),
each its own unit, with a far bound certified by the search. When the far bound reaches gamma, the
far branch is the bottom element: the algorithm as printed.

Out-of-vocabulary tokens never reach the output (:mod:`edgedp.words.mechanism`).
"""

from __future__ import annotations

import math
from typing import Unpack

import numpy as np

from edgedp.errors import InputError
from edgedp.privacy.guarantee import Guarantee
from edgedp.privacy.validation import renamed_keyword
from edgedp.runtime.native import Lazy
from edgedp.words.exponential_selection import (
    distance_coefficient,
    hamming_pair_distances,
    vector_distances,
)
from edgedp.words.mechanism import WordMechanism, WordOptions
from edgedp.words.pack import WordPack
from edgedp.words.spaces import choose_geometry
from edgedp.words.vocabulary_draw import (
    NearSets,
    draw_blocks,
    euclidean_near_sets,
    euclidean_near_units,
    euclidean_neighbours,
    hamming_histograms,
    hamming_near_sets,
    hamming_radius,
    tail_candidates,
)

#: The peers' (and the paper's experiments') default: Pr[output farther than gamma] <= 0.001.
DEFAULT_BETA = 0.001
#: Public words whose exact distance histograms choose the Hamming search radius.
RADIUS_SAMPLE = 32


def gamma_for_beta(epsilon: float, beta: float, vocabulary_size: int) -> float:
    """The paper's threshold: gamma = (2 / epsilon) ln((1 - beta) |V| / beta), at least 0.

    With it, TEM's output lies within gamma of the input with probability >= 1 - beta.
    """
    if not 0.0 < beta < 1.0:
        raise InputError(f"beta must be in (0, 1), got {beta!r}")
    return max(0.0, 2.0 / epsilon * math.log((1.0 - beta) * vocabulary_size / beta))


def _check_gamma(gamma: object) -> float:
    if isinstance(gamma, bool) or not isinstance(gamma, int | float | np.number):
        raise InputError(f"gamma must be a number >= 0, got {gamma!r}")
    value = float(gamma)
    if not (math.isfinite(value) and value >= 0.0):
        raise InputError(f"gamma must be finite and >= 0, got {gamma!r}")
    return value


def radius_histograms(pack: WordPack) -> np.ndarray:
    """Exact Hamming distance histograms of :data:`RADIUS_SAMPLE` evenly spaced vocabulary words
    (public), computed once per pack."""
    size = len(pack.vocabulary)
    sample = np.unique(np.linspace(0, size - 1, min(RADIUS_SAMPLE, size)).astype(np.int64))
    return pack.derived(
        "hamming-histograms",
        lambda: hamming_histograms(pack.index.range_search, pack.codes, sample),
    )


class TEM(WordMechanism):
    """The Truncated Exponential Mechanism: epsilon * d metric DP by selection, not noise.

    For input w: candidates L_w = {w' : d(w, w') <= gamma} scored -d(w, w'), one bottom element
    scored -gamma + 2 ln|V minus L_w| / epsilon, exponential-mechanism selection (scale
    2 / epsilon); bottom releases a uniform word outside L_w (never the input itself). Drawn by the
    near-far draw (:mod:`edgedp.words.tem`), which realises exactly this law at a cost of a few
    variates per word, never one per vocabulary word.

    Parameters
    ----------
    pack : ~edgedp.WordPack
        A words pack, e.g. the bundled default ``edgedp.load_pack()``.
    epsilon : float
        The privacy parameter per unit of distance (per bit in Hamming space): a finite number
        > 0. Keyword only.
    gamma : float or None, default None
        The truncation threshold, finite and >= 0; ``None`` applies the paper's recipe with
        ``beta``. Giving both ``gamma`` and ``beta`` is an error.
    beta : float or None, default None
        In (0, 1): ``gamma = (2 / epsilon) ln((1 - beta) |V| / beta)``, so that the output lies within
        gamma of the input with probability >= 1 - beta; ``None`` is 0.001.
    geometry : {"euclidean", "hamming"} or None, default None
        The metric d; ``None`` is the pack's (Euclidean with float vectors, else Hamming:
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
        If ``epsilon`` is not a finite number > 0, or ``protect`` names an unknown kind.
    ~edgedp.InputError
        If both ``gamma`` and ``beta`` are given, ``gamma`` is not a finite number >= 0, ``beta``
        is outside (0, 1), ``geometry`` is unknown or given with ``space``, ``pack`` is not a
        words pack, or ``oov``, ``casing``, ``deny``, ``decode`` or ``candidates`` is not one of
        the values above.
    ~edgedp.AssetError
        If ``geometry="euclidean"`` and the pack has no float vectors.

    Notes
    -----
    **Guarantee.** epsilon * d metric DP per word for any two vocabulary words w, w' (d Euclidean on
    the vectors with ``geometry="euclidean"``; Hamming on the codes, epsilon per bit, with
    ``geometry="hamming"``); since scores are truncated at gamma, also epsilon * gamma DP between any
    two vocabulary words. gamma changes utility and cost, never the guarantee. The output is a
    sampled word, so ``decode`` is ``"nearest"`` only.

    **On the machine** (:attr:`calibration`). The float draw adds a slack xi (~1e-11 at epsilon
    ~10; :func:`edgedp.privacy.realised_distributions.near_far_slack`) to the exact law's log-ratio. Hamming
    distances are integers, so xi is folded into the coefficient (epsilon - xi) / 2 and the
    realised loss stays <= epsilon d; in Euclidean space it is stated as ``guarantee().delta``
    = e^xi - 1. The proof (and the peers' bugs it rules out) is on :doc:`/theory`.

    References
    ----------
    * R. S. Carvalho, T. Vasiloudis, O. Feyisetan, K. Wang. "TEM: High Utility Metric
      Differential Privacy on Text", 2021.

    Examples
    --------
    >>> import edgedp
    >>> tem = edgedp.TEM(edgedp.load_pack(), epsilon=0.2)
    >>> isinstance(tem.privatize("the cat sat"), str)
    True
    >>> tem.gamma > 0, tem.guarantee().metric
    (True, 'hamming')
    """

    name = "tem"

    def __init__(
        self,
        pack: WordPack,
        *,
        epsilon: float,
        gamma: float | None = None,
        beta: float | None = None,
        geometry: str | None = None,
        space: str | None = None,
        **options: Unpack[WordOptions],
    ) -> None:
        super().__init__(pack, epsilon=epsilon, **options)
        self.geometry = choose_geometry(
            pack, renamed_keyword(geometry, space, "geometry", "space"), type(self).__name__
        )
        if gamma is not None and beta is not None:
            raise InputError(
                "give TEM either gamma (the threshold) or beta (the recipe that sets it), not both"
            )
        self.beta = DEFAULT_BETA if beta is None else float(beta)
        size = len(pack.vocabulary)
        self.gamma = (
            gamma_for_beta(self.epsilon, self.beta, size) if gamma is None else _check_gamma(gamma)
        )
        self._gamma_given = gamma is not None
        hamming = self.geometry == "hamming"
        vectors = None if hamming else pack.require_vectors(type(self).__name__)
        #: At most this many near units (distances of a Hamming range search, or words).
        self.near_units = pack.bits + 1 if hamming else euclidean_near_units(pack)
        #: The coefficient (epsilon / 2, less the folded slack in Hamming space) and what the
        #: float draw leaves (:func:`edgedp.words.exponential_selection.distance_coefficient`); the scores are
        #: -c min(d, gamma).
        self.calibration = distance_coefficient(
            self.epsilon,
            bits=pack.bits if hamming else None,
            vectors=vectors,
            truncation=self.gamma,
            vocabulary=size,
            units=self.near_units,
        )
        self.coefficient = self.calibration.coefficient
        self._radius = Lazy(
            lambda: hamming_radius(radius_histograms(self.pack), self.coefficient, self.gamma)
        )

    def parameters(self) -> dict[str, object]:
        chosen = {"gamma": self.gamma} if self._gamma_given else {"beta": self.beta}
        return {**super().parameters(), **chosen, "geometry": self.geometry}

    @property
    def metric(self) -> str:
        return self.geometry

    @property
    def metric_unit(self) -> str | None:
        return "bit" if self.geometry == "hamming" else None

    def guarantee(self) -> Guarantee:
        """epsilon * d metric DP per word (d Euclidean, or Hamming with epsilon per bit); in
        Euclidean space with the delta of the float draw and distances (class docstring)."""
        return Guarantee(
            protects="which vocabulary word was written at each word slot",
            relation="any two vocabulary words (epsilon * their distance; at most epsilon * gamma)",
            unit="word",
            epsilon=self.epsilon,
            delta=self.calibration.delta(
                tail_candidates(len(self.pack.vocabulary), self.near_units)
            ),
            metric=self.geometry,
            metric_unit="bit" if self.geometry == "hamming" else None,
        )

    # -- the draw --------------------------------------------------------------------------------

    @property
    def radius(self) -> int:
        """Hamming space: the range-search radius of the near sets (public; only the cost depends
        on it), at most gamma."""
        return self._radius.get()

    def near_sets(self, word_ids: np.ndarray) -> NearSets:
        """The near-far plan of distinct vocabulary ids (:mod:`edgedp.words.vocabulary_draw`)."""
        if self.geometry == "hamming":
            return hamming_near_sets(
                self.pack.index.range_search,
                self.pack.codes,
                word_ids,
                radius=self.radius,
                coefficient=self.coefficient,
                gamma=self.gamma,
            )
        return euclidean_near_sets(
            euclidean_neighbours(self.pack, type(self).__name__),
            word_ids,
            coefficient=self.coefficient,
            gamma=self.gamma,
        )

    def far_scores(self, inputs: np.ndarray, outputs: np.ndarray) -> np.ndarray:
        """c min(d(x, y), gamma) for paired words, with the distances the near sets use."""
        if self.geometry == "hamming":
            distances = hamming_pair_distances(self.pack.codes, inputs, outputs).astype(np.float64)
        else:
            distances = vector_distances(self.pack, type(self).__name__).pairs(inputs, outputs)
        scores: np.ndarray = self.coefficient * np.minimum(distances, self.gamma)
        return scores

    def _release(self, word_ids: np.ndarray) -> np.ndarray:
        return draw_blocks(word_ids, self.near_sets, self.far_scores, self.rng)
