"""TEM, the Truncated Exponential Mechanism (Carvalho, Vasiloudis, Feyisetan, Wang 2021).

For an input word w and a threshold gamma, TEM keeps the words within distance gamma,
L_w = {w' : d(w, w') <= gamma}, scores each by -d(w, w'), gives every other word the same score
-gamma, and selects by the exponential mechanism (Gumbel-max with noise scale 2 / epsilon in the
paper). The words outside L_w are merged into one "bottom" element of score
-gamma + (2 / epsilon) ln|V minus L_w|, i.e. weight |V minus L_w| e^(-epsilon gamma / 2); when it
wins, the output is a uniform word of V minus L_w. So one draw costs O(|L_w|), not O(|V|).

**The proof (why this is epsilon * d metric DP), written out because the peers get it wrong.**
Define u(w, y) = -min(d(w, y), gamma) for every vocabulary word y. Then

* Pr[TEM(w) = y] = exp(epsilon u(w, y) / 2) / Z_w with Z_w = sum_y exp(epsilon u(w, y) / 2):
  words of L_w have weight e^(-epsilon d / 2); each of the |V minus L_w| others e^(-epsilon gamma / 2),
  so the bottom element's total weight is |V minus L_w| e^(-epsilon gamma / 2) =
  exp(epsilon / 2 * (-gamma + (2 / epsilon) ln|V minus L_w|)) - exactly the paper's bottom score -
  and a *uniform* word of V minus L_w reproduces the per-word probabilities.
* |u(w, y) - u(w', y)| <= min(d(w, w'), gamma): d(., y) is 1-Lipschitz in its first argument by the
  triangle inequality (d must be a metric: Euclidean and Hamming are), and t -> min(t, gamma) is
  1-Lipschitz with values in [0, gamma].
* Numerators change by at most e^(epsilon d(w, w') / 2), and so does every term of Z, so
  Pr[TEM(w) = y] <= e^(epsilon d(w, w')) Pr[TEM(w') = y]: **epsilon * d metric DP**, and, because
  the score is truncated, also **epsilon * gamma DP between any two vocabulary words** (no bounded
  metric is needed: the truncation bounds the score). This is the exact law; what the float draw
  and distances add, and how the coefficient absorbs it, is in :class:`TEM` ("On the machine").

What breaks it (the peers' bugs, planted in tests/words/test_tem.py and caught by the auditor):
returning the *input* word when bottom wins (its probability then jumps by the bottom's mass;
and for an out-of-vocabulary input, the peers return it verbatim), and MLDP's bottom score
ln(|V| / |L_w|) instead of ln|V minus L_w| (the bottom weight no longer equals the mass of the
words it stands for, so the ratio bound fails).

**Choosing gamma (the paper's recipe).** The input is always in L_w (d = 0, weight 1), so
Pr[bottom] <= |V| e^(-epsilon gamma / 2) / (1 + |V| e^(-epsilon gamma / 2)); with
gamma = (2 / epsilon) ln((1 - beta) |V| / beta) this is at most beta: with probability >= 1 - beta
the output is within gamma of the input. ``gamma=None`` applies it with ``beta`` (default 0.001, the
value the peers use). gamma changes utility and cost, never the epsilon * d guarantee.

**Spaces.** ``space="euclidean"``: d is the Euclidean distance of the pack's float vectors, in
float64 from one matrix product per block of inputs against the whole vocabulary
(:class:`~edgedp.words.sampling.VectorDistances`): membership d <= gamma and the scores use one
float64 formula (within a relative ~1e-12 of the exact distance: stated in the delta).
(A FAISS range search on the flat index scans the same vocabulary in float32, so it
is no cheaper, and its float32 boundary would need a margin and re-measuring; it was the first
version, and gathering the vectors of large candidate sets to re-measure them dominated its cost.)
``space="hamming"``: d is the Hamming distance of the binary codes (integer,
epsilon per bit), L_w from an exact flat range search over all codes (never an approximate index:
a missing candidate would change the distribution). When gamma is at least the vocabulary's diameter
(the pack's exact calibration maximum; the paper's recipe at small epsilon), L_w = V for every word
and there is no bottom: TEM is then SanText's exponential mechanism, computed with one matrix
product per block instead of a range search that returns the whole vocabulary. Selection draws through
:meth:`edgedp.privacy.randomness.RandomSource.choice_from_log_weights` (Gumbel-max over floats: each
probability within e^(+-2 eta) of the exact law, eta ~1e-13; see :class:`TEM` for how the
guarantee absorbs it); the bottom's uniform word is drawn exactly (vectorised rejection, then an
exact enumeration of the complement for rows whose L_w covers most of V).

Out-of-vocabulary tokens never reach the output (:mod:`edgedp.words.mechanism`).
"""

from __future__ import annotations

import math
from typing import Unpack

import numpy as np

from edgedp.errors import InputError
from edgedp.packs.native import Lazy
from edgedp.privacy.guarantee import Guarantee
from edgedp.words.mechanism import WordMechanism, WordOptions
from edgedp.words.pack import WordPack
from edgedp.words.sampling import (
    BLOCK_ELEMENTS,
    VectorDistances,
    distance_coefficient,
    hamming_pair_distances,
    hamming_to_all,
    rows_per_block,
    select_ragged,
    uniform_outside_rows,
)
from edgedp.words.spaces import choose_space

#: The peers' (and the paper's experiments') default: Pr[output farther than gamma] <= 0.001.
DEFAULT_BETA = 0.001
_FIRST_BLOCK = 16


def gamma_for_beta(epsilon: float, beta: float, vocabulary_size: int) -> float:
    """The paper's threshold: gamma = (2 / epsilon) ln((1 - beta) |V| / beta), at least 0.

    With it, TEM's output lies within gamma of the input with probability >= 1 - beta.
    """
    if not 0.0 < beta < 1.0:
        raise InputError(f"beta must be in (0, 1), got {beta!r}")
    return max(0.0, 2.0 / epsilon * math.log((1.0 - beta) * vocabulary_size / beta))


def _diameter(pack: WordPack, space: str) -> float:
    """The largest distance between two vocabulary words (Hamming: the code length if unknown)."""
    if space == "hamming":
        statistics = pack.calibration.get("hamming")
        return float(statistics["maximum"]) if statistics else float(pack.bits)
    statistics = pack.calibration.get("euclidean")
    return float(statistics["maximum"]) if statistics else math.inf


def _check_gamma(gamma: object) -> float:
    if isinstance(gamma, bool) or not isinstance(gamma, int | float | np.number):
        raise InputError(f"gamma must be a number >= 0, got {gamma!r}")
    value = float(gamma)
    if not (math.isfinite(value) and value >= 0.0):
        raise InputError(f"gamma must be finite and >= 0, got {gamma!r}")
    return value


class TEM(WordMechanism):
    """The Truncated Exponential Mechanism: epsilon * d metric DP by selection, not noise.

    For input w: candidates L_w = {w' : d(w, w') <= gamma} scored -d(w, w'), one bottom element
    scored -gamma + 2 ln|V minus L_w| / epsilon, exponential-mechanism selection (Gumbel-max with
    scale 2 / epsilon); bottom releases a uniform word outside L_w (never the input itself).

    **Guarantee.** epsilon * d metric DP for any two vocabulary words w, w' (d Euclidean on the
    vectors with ``space="euclidean"``; Hamming on the codes, epsilon per bit, with
    ``space="hamming"``); since scores are truncated at gamma, also epsilon * gamma DP between any
    two vocabulary words. Proof sketch and the choice of gamma: module docstring.

    **On the machine** (:attr:`calibration`). The draw is Gumbel-max over floats: the realised
    log-ratio is the exact law's plus at most a slack xi (~1e-12 at epsilon ~10). Hamming: distances
    are integers, so two words are at d = 0 (same code, same row, same law) or d >= 1, and the
    coefficient is (epsilon - xi) / 2: the realised loss is <= (epsilon - xi) d + xi <= epsilon d,
    plus a tail event below 2^-1000 per candidate. Euclidean: two words can be arbitrarily close,
    so xi cannot be folded into epsilon * d; it is stated as ``guarantee().delta`` = e^xi - 1
    (~1e-11 epsilon for 300-dimensional vectors of norm ~6), xi including the float rounding of the
    distances (:func:`~edgedp.words.sampling.euclidean_rounding`, relative ~1e-12, which dominates).

    Parameters: ``epsilon`` > 0; ``gamma`` the threshold (>= 0) or ``None`` for the paper's recipe
    (:func:`gamma_for_beta` with ``beta``, default 0.001; giving both is an error); ``space``
    ``"euclidean"`` (needs float vectors) or ``"hamming"`` (default: the pack's,
    :func:`edgedp.words.spaces.choose_space`); ``rng``, ``oov``, ``casing`` as for every word
    mechanism.
    """

    name = "tem"

    def __init__(
        self,
        pack: WordPack,
        *,
        epsilon: float,
        gamma: float | None = None,
        beta: float | None = None,
        space: str | None = None,
        **options: Unpack[WordOptions],
    ) -> None:
        super().__init__(pack, epsilon=epsilon, **options)
        self.space_name = choose_space(pack, space, type(self).__name__)
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
        hamming = self.space_name == "hamming"
        #: gamma at least the vocabulary's diameter: L_w = V for every w and no bottom element, so
        #: every distance is needed and one matrix product beats a range search returning all of V.
        margin = 1.0 if hamming else 1 + 1e-4  # integers; float32-found maximum
        self.covers_vocabulary = self.gamma >= _diameter(pack, self.space_name) * margin
        vectors = None if hamming else pack.require_vectors(type(self).__name__)
        #: The coefficient (epsilon / 2, less the folded Gumbel-max slack in Hamming space) and
        #: what the float draw leaves (:func:`edgedp.words.sampling.distance_coefficient`); the
        #: scores are -c min(d, gamma), untruncated when L_w = V.
        self.calibration = distance_coefficient(
            self.epsilon,
            bits=pack.bits if hamming else None,
            vectors=vectors,
            truncation=math.inf if self.covers_vocabulary else self.gamma,
            offset=math.log(size),
        )
        self.coefficient = self.calibration.coefficient
        if vectors is not None:
            euclidean_vectors = vectors
            self._distances: Lazy[VectorDistances] = Lazy(
                lambda: VectorDistances(euclidean_vectors)
            )

    def parameters(self) -> dict[str, object]:
        chosen = {"gamma": self.gamma} if self._gamma_given else {"beta": self.beta}
        return {**super().parameters(), **chosen, "space": self.space_name}

    @property
    def metric(self) -> str:
        return self.space_name

    @property
    def metric_unit(self) -> str | None:
        return "bit" if self.space_name == "hamming" else None

    def guarantee(self) -> Guarantee:
        """epsilon * d metric DP per word (d Euclidean, or Hamming with epsilon per bit); in
        Euclidean space with the delta of the float draw and distances (class docstring)."""
        return Guarantee(
            protects="which vocabulary word was written at each word slot",
            relation="any two vocabulary words (epsilon * their distance; at most epsilon * gamma)",
            unit="word",
            epsilon=self.epsilon,
            delta=self.calibration.delta(len(self.pack.vocabulary) + 1),
            metric=self.space_name,
            metric_unit="bit" if self.space_name == "hamming" else None,
        )

    # -- candidates ------------------------------------------------------------------------------

    def candidates(self, word_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """L_w of each input as CSR ``(lims, ids, distances)``; ids sorted within each row."""
        word_ids = np.asarray(word_ids, dtype=np.int64)
        if self.space_name == "hamming":
            lims, ids = self.pack.index.range_search(
                np.asarray(self.pack.codes[word_ids]), math.floor(self.gamma)
            )
            rows = np.repeat(np.arange(len(word_ids)), np.diff(lims))
            distances = hamming_pair_distances(self.pack.codes, word_ids[rows], ids).astype(
                np.float64
            )
        else:
            # one float64 matrix product per block: distances to every word, one formula (a flat FAISS
            # range search scans the same vocabulary, in float32, and would need re-measuring)
            every = self._distances.get().to_all(word_ids)
            rows, ids = np.nonzero(every <= self.gamma)
            distances = every[rows, ids]
        keep = distances <= self.gamma
        rows, ids, distances = rows[keep], ids[keep], distances[keep]
        order = np.lexsort((ids, rows))
        rows, ids, distances = rows[order], ids[order], distances[order]
        lims = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=len(word_ids)))])
        return lims.astype(np.int64), ids, distances

    # -- the two steps the peers get wrong (overridden only by the tests' broken variants) --------

    def _bottom_log_weights(self, inside: np.ndarray) -> np.ndarray:
        """ln of the bottom element's weight: c * (-gamma) + ln|V minus L_w| (c the coefficient)."""
        outside = len(self.pack.vocabulary) - inside
        with np.errstate(divide="ignore"):
            return -self.coefficient * self.gamma + np.log(outside.astype(np.float64))

    def _bottom_words(
        self, word_ids: np.ndarray, lims: np.ndarray, ids: np.ndarray, rows: np.ndarray
    ) -> np.ndarray:
        """For the rows where bottom won: a uniform word of V minus L_w (never the input, which
        is in L_w)."""
        return uniform_outside_rows(lims, ids, rows, len(self.pack.vocabulary), self.rng)

    # -- release ---------------------------------------------------------------------------------

    def _release(self, word_ids: np.ndarray) -> np.ndarray:
        if self.covers_vocabulary:
            return self._release_over_vocabulary(word_ids)
        released = np.empty_like(word_ids)
        euclidean = self.space_name == "euclidean"
        start = 0
        rows = rows_per_block(len(self.pack.vocabulary)) if euclidean else _FIRST_BLOCK
        while start < len(word_ids):
            block = word_ids[start : start + rows]
            lims, ids, distances = self.candidates(block)
            released[start : start + len(block)] = self._select(block, lims, ids, distances)
            start += len(block)
            if not euclidean:  # size the next block so its candidates fill one selection block
                per_row = max(len(ids) / len(block), 1.0)
                rows = int(min(max(BLOCK_ELEMENTS // per_row, 1), 4096))
        return released

    def _release_over_vocabulary(self, word_ids: np.ndarray) -> np.ndarray:
        """L_w = V: the exponential mechanism with score -d over the whole vocabulary, in blocks."""
        step = rows_per_block(len(self.pack.vocabulary))
        released = np.empty_like(word_ids)
        for start in range(0, len(word_ids), step):
            block = word_ids[start : start + step]
            if self.space_name == "hamming":
                distances = hamming_to_all(self.pack.codes, block)
            else:
                distances = self._distances.get().to_all(block)
            distances *= -self.coefficient
            released[start : start + len(block)] = self.rng.choice_from_log_weights(distances)
        return released

    def _select(
        self, word_ids: np.ndarray, lims: np.ndarray, ids: np.ndarray, distances: np.ndarray
    ) -> np.ndarray:
        count = len(word_ids)
        inside = np.diff(lims)
        rows = np.repeat(np.arange(count), inside)
        # each row: its candidates, then its bottom element
        weights = np.empty(len(ids) + count)
        weights[np.arange(len(ids)) + rows] = -self.coefficient * distances
        bottom_at = lims[1:] + np.arange(count)
        weights[bottom_at] = self._bottom_log_weights(inside)
        chosen = select_ragged(lims + np.arange(count + 1), weights, self.rng)
        bottom = chosen == bottom_at
        released = np.empty(count, dtype=np.int64)
        picked = ~bottom
        released[picked] = ids[chosen[picked] - np.arange(count)[picked]]
        if bottom.any():
            released[bottom] = self._bottom_words(word_ids, lims, ids, np.flatnonzero(bottom))
        return released
