"""SanText and SanText+ (Yue, Du, Wang, Li, Sun, Chow, Findings of ACL 2021): sample a whole word.

**SanText.** For input x, output y of the vocabulary V with probability
Pr[y | x] = exp(-epsilon d(x, y) / 2) / sum_{y'} exp(-epsilon d(x, y') / 2), d the Euclidean
distance between the words' vectors: the exponential mechanism with utility -d(x, y).
*Guarantee:* epsilon * d_2 metric (local) DP, with no bounded metric needed (epsilon * D plain LDP
with D the vocabulary's diameter, ``pack.calibration["euclidean"]["maximum"]``). On the machine,
the float64 distances and the float draw add a slack that cannot be folded into epsilon (distinct
words can be arbitrarily close): it is stated as a delta per word (``guarantee().delta``), plus a
tail event below 2^-1000.

**SanText+.** Words are split by *public* frequency: the ``sensitive_fraction`` w of least frequent
vocabulary words are sensitive (V_S, the last ceil(w |V|) ids: packs list their vocabulary in
frequency order), the rest non-sensitive (V_N). A sensitive x is always sampled, with the output
restricted to V_S; a non-sensitive x is sampled in the same way with probability ``p`` and kept
with probability 1 - p (the paper's defaults: p 0.3, w 0.9). *Guarantee* (the paper's
utility-optimised metric LDP): epsilon * d_2 metric DP between two sensitive words, which
:meth:`SanTextPlus.guarantee` states; against a non-sensitive word the bound gains ln(1/p), and an
output in V_N reveals that the input was that very (public, frequent) word. Out-of-vocabulary
tokens follow the ``oov`` policy of every word mechanism (:mod:`edgedp.words.mechanism`) and are
never kept.

The proofs: docs/theory.md, sections "SanText" and "SanTextPlus".

**Cost.** A draw scores the words near the input exactly (those a float32 search returns
among the nearest) and the others by rejection from an envelope certified by that search
(:mod:`edgedp.words.vocabulary_draw`): a few variates and distances per word, never one per vocabulary
word, and the search once per distinct word of a batch.
"""

from __future__ import annotations

import math
from typing import Unpack

import numpy as np

from edgedp.errors import PrivacyParameterError
from edgedp.privacy.guarantee import Guarantee
from edgedp.privacy.validation import check_unit_interval
from edgedp.words.exponential_selection import distance_coefficient, vector_distances
from edgedp.words.mechanism import WordMechanism, WordOptions
from edgedp.words.pack import WordPack
from edgedp.words.vocabulary_draw import (
    NearSets,
    draw_blocks,
    euclidean_near_sets,
    euclidean_near_units,
    euclidean_neighbours,
    tail_candidates,
)

#: The paper's SanText+ defaults (its released code's --p and --sensitive_word_percentage).
DEFAULT_P = 0.3
DEFAULT_SENSITIVE_FRACTION = 0.9
_TWO_POW_64 = 2**64


def first_sensitive_id(size: int, fraction: float) -> int:
    """The first sensitive id: the rarest ceil(fraction |V|) words are sensitive (rounded toward
    more sensitive words)."""
    return size - math.ceil(fraction * size)


class SanText(WordMechanism):
    """SanText: sample a whole word by the exponential mechanism over Euclidean distance.

    For input x, output y of the vocabulary V with probability proportional to
    exp(-epsilon * ||phi(x) - phi(y)||_2 / 2): the exponential mechanism with utility -d(x, y). A
    draw scores the words near the input exactly and the others by rejection from a certified
    envelope (:mod:`edgedp.words.vocabulary_draw`): a few variates per word, never one per vocabulary word.

    Parameters
    ----------
    pack : ~edgedp.WordPack
        A words pack with float vectors (the bundled ``words-small`` is binary-only and is
        refused).
    epsilon : float
        The privacy parameter per unit of Euclidean distance: a finite number > 0. Keyword only.
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
        If ``pack`` is not a words pack, or ``oov``, ``casing``, ``deny``, ``decode`` or
        ``candidates`` is not one of the values above (a sampled word decodes ``"nearest"`` only).
    ~edgedp.AssetError
        If the pack has no float vectors.

    See Also
    --------
    SanTextPlus : resamples only the rare (sensitive) words, always.

    Notes
    -----
    **Guarantee.** epsilon * d_2 metric (local) DP per word for any two vocabulary words: for words
    x, x', Pr[y | x] <= e^(epsilon d(x, x')) Pr[y | x'] (triangle inequality; no bounded metric is
    needed), and epsilon * D plain LDP with D the vocabulary's diameter. On the machine, the float
    draw and distances add a slack xi that distinct but close words cannot absorb: it is stated as
    ``guarantee().delta`` = e^xi - 1 per word (~1e-11 epsilon). Proof: :doc:`/theory`. The example
    below runs on the bundled pack, which has no float vectors: it shows the refusal.

    References
    ----------
    * X. Yue, M. Du, T. Wang, Y. Li, H. Sun, S. S. M. Chow. "Differential Privacy for Text
      Analytics via Natural Text Sanitization", Findings of ACL 2021.

    Examples
    --------
    >>> import edgedp
    >>> edgedp.SanText(edgedp.load_pack(), epsilon=3.0)
    Traceback (most recent call last):
    ...
    edgedp.errors.AssetError: SanText needs float word vectors and pack 'words-small' has none ...
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
        #: (:func:`edgedp.words.exponential_selection.distance_coefficient`)
        #: At most this many near units (:func:`edgedp.words.vocabulary_draw.euclidean_near_units`).
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
        (:mod:`edgedp.words.vocabulary_draw`)."""
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
    """SanText+: resample the rare (sensitive) words always, the frequent ones with probability p.

    Words are split by *public* frequency (packs list their vocabulary in frequency order): the
    rarest ``sensitive_fraction`` of the vocabulary are sensitive (V_S). A sensitive word is always
    resampled, by SanText's exponential mechanism restricted to V_S; a non-sensitive word is
    resampled in the same way with probability ``p`` and otherwise kept.

    Parameters
    ----------
    pack : ~edgedp.WordPack
        A words pack with float vectors (the bundled ``words-small`` is binary-only and is
        refused).
    epsilon : float
        The privacy parameter per unit of Euclidean distance: a finite number > 0. Keyword only.
    p : float, default 0.3
        In [0, 1]: the probability that a non-sensitive word is resampled (the paper's default).
        The realised keep probability rounds toward resampling.
    sensitive_fraction : float, default 0.9
        In (0, 1]: the share of the vocabulary, rarest first, that is sensitive (``|V_S| =
        ceil(fraction |V|)``, rounded toward more sensitive words).
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
        If ``epsilon`` is not a finite number > 0, ``p`` or ``sensitive_fraction`` is outside
        [0, 1] or leaves no sensitive word, or ``protect`` names an unknown kind.
    ~edgedp.InputError
        If ``pack`` is not a words pack, or ``oov``, ``casing``, ``deny``, ``decode`` or
        ``candidates`` is not one of the values above (a sampled word decodes ``"nearest"`` only).
    ~edgedp.AssetError
        If the pack has no float vectors.

    See Also
    --------
    SanText : resamples every word over the whole vocabulary.

    Notes
    -----
    **Guarantee** (the paper's utility-optimised metric LDP). epsilon * d_2 metric DP between any
    two *sensitive* words, with the delta of the float draw (``guarantee().delta``, as SanText);
    for any two words and a sensitive output, the bound is e^(epsilon d + ln(1/p)); a
    non-sensitive output reveals the (public, frequent) input word it keeps, with probability
    1 - p by design. :meth:`guarantee` states the first, the relation a ledger may rely on.
    Out-of-vocabulary tokens are never kept. Proof: :doc:`/theory`. The example below runs on the
    bundled pack, which has no float vectors: it shows the refusal.

    References
    ----------
    * X. Yue, M. Du, T. Wang, Y. Li, H. Sun, S. S. M. Chow. "Differential Privacy for Text
      Analytics via Natural Text Sanitization", Findings of ACL 2021.

    Examples
    --------
    >>> import edgedp
    >>> edgedp.SanTextPlus(edgedp.load_pack(), epsilon=3.0, p=0.3)
    Traceback (most recent call last):
    ...
    edgedp.errors.AssetError: SanTextPlus needs float word vectors and pack 'words-small' has none ...
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
