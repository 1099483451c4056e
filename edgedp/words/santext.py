"""SanText and SanText+ (Yue, Du, Wang, Li, Sun, Chow, Findings of ACL 2021): sample a whole word.

**SanText.** For input x, output y of the vocabulary V with probability
Pr[y | x] = exp(-epsilon d(x, y) / 2) / sum_{y'} exp(-epsilon d(x, y') / 2), d the Euclidean
distance between the words' vectors: the exponential mechanism with utility -d(x, y).

*Guarantee: epsilon * d_2 metric (local) DP.* For words x, x' and any y, the numerators differ by
at most e^(epsilon d(x, x') / 2) (triangle inequality: |d(x, y) - d(x', y)| <= d(x, x')), and so does
every term of the normaliser, so Pr[y | x] <= e^(epsilon d(x, x')) Pr[y | x']. This needs d to be a
metric and nothing more: **no bounded metric is needed for the metric-DP statement**. A bound is
needed only to turn it into plain LDP: with D = the largest distance between two vocabulary words
(``pack.calibration["euclidean"]["maximum"]``), SanText is epsilon * D-LDP (the paper's remark).

*On the machine.* The law above is exact; the release computes d in float64
(:class:`~edgedp.words.sampling.VectorDistances`: within err = ~1e-12 D of the exact distance,
D the diameter bound, :func:`~edgedp.words.sampling.euclidean_rounding`) and draws by the
near-far draw (:mod:`edgedp.words.near_far`: Gumbel-max rounds over floats with rejection, each
probability within e^(+-xi / 2) of the exact law of its float weights,
:func:`edgedp.privacy.realised.near_far_slack`). So the realised log-ratio is at most
epsilon d(x, x') + xi, xi = the draw's slack + 2 epsilon err
(:func:`edgedp.words.sampling.distance_coefficient`). An additive xi is not proportional to d,
and distinct words can be arbitrarily close (or share a vector), so it cannot be folded into
epsilon: the guarantee states it as delta = e^xi - 1 per word (``guarantee().delta``, ~1e-11
epsilon for 300-dimensional vectors of norm ~6), plus a tail event below 2^-1000.

**SanText+.** Words are split by *public* frequency: the ``sensitive_fraction`` w of least frequent
vocabulary words are sensitive (V_S), the rest non-sensitive (V_N). Packs list their vocabulary in
frequency order, so the rank is the public frequency proxy: |V_S| = ceil(w |V|) (rounded toward
*more* sensitive words), V_S = the last |V_S| ids, V_N = the ids before them. Then

* a sensitive x is always sampled, and the output is restricted to V_S:
  Pr[y | x] = exp(-epsilon d(x, y) / 2) / sum_{y' in V_S} exp(-epsilon d(x, y') / 2), y in V_S;
* a non-sensitive x is sampled in the same way with probability ``p`` and kept with probability
  1 - p (the paper's p: the probability that a non-sensitive word is sanitized; its default 0.3,
  w 0.9).

*Guarantee, as the paper states it (utility-optimised metric LDP, UMLDP).* (i) Between two
sensitive words: epsilon * d_2 metric DP, as SanText (the normaliser runs over V_S for both).
(ii) For any two words x, x' and an output y in V_S: Pr[y | x] <= e^(epsilon d(x, x') + ln(1/p))
Pr[y | x'] (the factor 1/p appears when x' is non-sensitive and x sensitive). (iii) An output in V_N
can only come from that very word, kept: it reveals that the input was that non-sensitive word. So
SanText+ protects the sensitive words among themselves; the frequent (public, non-sensitive) words
are released verbatim with probability 1 - p by design. :meth:`SanTextPlus.guarantee` states (i),
the relation the ledger may rely on. The copy is never of an out-of-vocabulary token: those follow
the ``oov`` policy of every word mechanism (:mod:`edgedp.words.mechanism`) and are never kept.

**Cost.** A draw scores the words near the input exactly (those a float32 search returns
among the nearest) and the others by rejection from an envelope certified by that search
(:mod:`edgedp.words.near_far`): a few variates and distances per word, never one per vocabulary
word, and the search once per distinct word of a batch.
"""

from __future__ import annotations

import math
from typing import Unpack

import numpy as np

from edgedp.errors import PrivacyParameterError
from edgedp.privacy.guarantee import Guarantee
from edgedp.privacy.validation import check_unit_interval
from edgedp.words.mechanism import WordMechanism, WordOptions
from edgedp.words.near_far import (
    NearSets,
    draw_blocks,
    euclidean_near_sets,
    euclidean_near_units,
    euclidean_neighbours,
    tail_candidates,
)
from edgedp.words.pack import WordPack
from edgedp.words.sampling import distance_coefficient, vector_distances

#: The paper's SanText+ defaults (its released code's --p and --sensitive_word_percentage).
DEFAULT_P = 0.3
DEFAULT_SENSITIVE_FRACTION = 0.9
_TWO_POW_64 = 2**64


def first_sensitive_id(size: int, fraction: float) -> int:
    """The first sensitive id: the rarest ceil(fraction |V|) words are sensitive (rounded toward
    more sensitive words)."""
    return size - math.ceil(fraction * size)


class SanText(WordMechanism):
    """SanText: Pr[y | x] proportional to exp(-epsilon * ||phi(x) - phi(y)||_2 / 2) over the vocabulary.

    **Guarantee.** epsilon * d_2 metric DP for any two vocabulary words (no bounded metric needed;
    epsilon * D plain LDP with D the vocabulary's diameter), with the delta per word of the float
    draw and distances (``guarantee().delta``; module docstring, "On the machine"). Needs a pack
    with float vectors.
    """

    name = "santext"

    def __init__(
        self,
        pack: WordPack,
        *,
        epsilon: float,
        **options: Unpack[WordOptions],
    ) -> None:
        super().__init__(pack, epsilon=epsilon, **options)
        vectors = pack.require_vectors(type(self).__name__)
        #: epsilon / 2 and the slack of the float draw and distances, left to the delta
        #: (:func:`edgedp.words.sampling.distance_coefficient`)
        #: At most this many near units (:func:`edgedp.words.near_far.euclidean_near_units`).
        self.near_units = euclidean_near_units(pack)
        self.calibration = distance_coefficient(
            self.epsilon,
            vectors=vectors,
            vocabulary=len(pack.vocabulary),
            units=self.near_units,
        )
        self.coefficient = self.calibration.coefficient

    @property
    def metric(self) -> str:
        return "euclidean"

    def guarantee(self) -> Guarantee:
        """epsilon * d_2 metric DP per word, between any two vocabulary words."""
        return Guarantee(
            protects="which vocabulary word was written at each word slot",
            relation="any two vocabulary words (epsilon * their Euclidean distance)",
            unit="word",
            epsilon=self.epsilon,
            delta=self.calibration.delta(
                tail_candidates(len(self.pack.vocabulary), self.near_units)
            ),
            metric="euclidean",
        )

    def first_output(self) -> int:
        """Outputs are the ids [first_output, ``|V|``) (0: the whole vocabulary)."""
        return 0

    def near_sets(self, word_ids: np.ndarray) -> NearSets:
        """The near-far plan of distinct vocabulary ids over the outputs
        (:mod:`edgedp.words.near_far`)."""
        neighbours = euclidean_neighbours(self.pack, type(self).__name__, self.first_output())
        return euclidean_near_sets(
            neighbours, word_ids, coefficient=self.coefficient, gamma=math.inf
        )

    def far_scores(self, inputs: np.ndarray, outputs: np.ndarray) -> np.ndarray:
        """c d(x, y) for paired words, with the distances the near sets use."""
        distances = vector_distances(self.pack, type(self).__name__).pairs(inputs, outputs)
        scores: np.ndarray = self.coefficient * distances
        return scores

    def sample(self, word_ids: np.ndarray) -> np.ndarray:
        """One exponential-mechanism draw per input over the outputs (the near-far draw)."""
        return draw_blocks(word_ids, self.near_sets, self.far_scores, self.rng)

    def _release(self, word_ids: np.ndarray) -> np.ndarray:
        return self.sample(word_ids)


class SanTextPlus(SanText):
    """SanText+: sensitive words (the rarest ``sensitive_fraction`` of the public vocabulary) are
    always resampled within the sensitive words; the others are resampled with probability ``p``
    and otherwise kept.

    **Guarantee.** epsilon * d_2 metric DP between any two *sensitive* words; for any two words and
    a sensitive output, the bound is e^(epsilon d + ln(1/p)); a non-sensitive output reveals the
    (public, frequent) input word it keeps. See the module docstring (the paper's UMLDP).

    Parameters: ``p`` in [0, 1] (probability that a non-sensitive word is resampled; default 0.3);
    ``sensitive_fraction`` in (0, 1] (default 0.9). The realised keep probability rounds toward
    resampling (a 64-bit threshold rounded up).
    """

    name = "santext-plus"

    def __init__(
        self,
        pack: WordPack,
        *,
        epsilon: float,
        p: float = DEFAULT_P,
        sensitive_fraction: float = DEFAULT_SENSITIVE_FRACTION,
        **options: Unpack[WordOptions],
    ) -> None:
        super().__init__(pack, epsilon=epsilon, **options)
        self.p = check_unit_interval(p, "p")
        self.sensitive_fraction = check_unit_interval(sensitive_fraction, "sensitive_fraction")
        size = len(pack.vocabulary)
        #: Ids below this are non-sensitive (the most frequent words of the public vocabulary).
        self.first_sensitive = first_sensitive_id(size, self.sensitive_fraction)
        if self.first_sensitive >= size:
            raise PrivacyParameterError(
                "sensitive_fraction must leave at least one sensitive word to sample from, "
                f"got {sensitive_fraction!r} of {size} words"
            )
        self._resample_threshold = min(math.ceil(self.p * _TWO_POW_64), _TWO_POW_64)

    def parameters(self) -> dict[str, object]:
        return {
            **super().parameters(),
            "p": self.p,
            "sensitive_fraction": self.sensitive_fraction,
        }

    def guarantee(self) -> Guarantee:
        """epsilon * d_2 metric DP between sensitive words (the paper's UMLDP, part (i))."""
        return Guarantee(
            protects=(
                "which sensitive word (one of the rarest "
                f"{self.sensitive_fraction:.0%} of the public vocabulary) was written at each slot; "
                f"a frequent, non-sensitive word is kept verbatim with probability {1 - self.p:g}"
            ),
            relation=(
                "any two sensitive vocabulary words (epsilon * their Euclidean distance; "
                "+ ln(1/p) against a non-sensitive word for sensitive outputs)"
            ),
            unit="word",
            epsilon=self.epsilon,
            delta=self.calibration.delta(
                tail_candidates(len(self.pack.vocabulary), self.near_units)
            ),
            metric="euclidean",
        )

    def first_output(self) -> int:
        return self.first_sensitive

    def _release(self, word_ids: np.ndarray) -> np.ndarray:
        resample = word_ids >= self.first_sensitive
        frequent = np.flatnonzero(~resample)
        if frequent.size:
            resample[frequent] = self.rng.bernoulli(self._resample_threshold, frequent.size)
        released = word_ids.copy()  # kept: non-sensitive vocabulary ids only
        chosen = np.flatnonzero(resample)
        if chosen.size:
            released[chosen] = self.sample(word_ids[chosen])
        return released
