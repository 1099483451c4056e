"""BRR: binary embeddings + randomized response + Hamming nearest neighbour (BRR paper, Alg. 3)."""

from __future__ import annotations

import numpy as np

from edgedp.privacy.noise import rr_flip_threshold, rr_realised_epsilon
from edgedp.words.mechanism import WordMechanism
from edgedp.words.spaces import HammingSpace


class BRR(WordMechanism):
    """Word-level metric DP in Hamming space, for on-device text privatization.

    Each word w of the public vocabulary has a binary code phi(w) of ``pack.bits`` bits. BRR flips
    every bit of phi(w) independently with probability 1 / (1 + e^epsilon) (randomized response) and
    outputs the vocabulary word whose code is nearest to the result in Hamming distance. The layout
    of the text (whitespace, punctuation) is kept; every word is replaced by a sampled word.

    Parameters
    ----------
    pack : ~edgedp.WordPack
        A words pack, e.g. the bundled default ``edgedp.load_pack()``.
    epsilon : float
        The privacy parameter *per bit*: a finite number > 0. Keyword only.
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
        ``candidates`` is not one of the values above.
    ~edgedp.AssetError
        If ``decode`` is ``"map"`` or ``"context"`` and no language model fits the pack.

    See Also
    --------
    Vickrey : chooses between the two nearest words instead of the nearest.
    TEM : selects a word by the exponential mechanism, in the same Hamming metric.

    Notes
    -----
    **Guarantee.** epsilon is *per bit*: for any two vocabulary words w, w' and any output,
    Pr[BRR(w) = o] <= e^(epsilon * d_H(phi(w), phi(w'))) * Pr[BRR(w') = o], i.e. epsilon * d_H metric
    DP per word (BRR paper, Theorem 3); over a text the bound adds up over word slots. The
    randomized code itself (:meth:`perturb`) is the DP release; the nearest-word search and any
    ``decode`` rule are post-processing, so an approximate index changes utility, not privacy. The
    worst case pair (d_H = bits) has privacy loss at most epsilon * bits; use ``edgedp calibrate``
    to compare with Euclidean mechanisms. The realised flip probability rounds toward more privacy
    (:func:`edgedp.privacy.noise.rr_flip_threshold`). Out-of-vocabulary tokens never reach the
    output (the ``oov`` policies, :mod:`edgedp.words.mechanism`). Proof: :doc:`/theory`.

    References
    ----------
    * R. S. Carvalho, T. Vasiloudis, O. Feyisetan. "BRR: Preserving Privacy of Text Data
      Efficiently on Device" (the BRR paper: Algorithms 2 and 3, Theorem 3).

    Examples
    --------
    >>> import edgedp
    >>> brr = edgedp.BRR(edgedp.load_pack(), epsilon=0.6)
    >>> isinstance(brr.privatize("the cat sat"), str)
    True
    >>> brr.guarantee().metric, brr.metric_unit
    ('hamming', 'bit')
    >>> len(brr.privatize_batch(["the cat sat", "on the mat"]))
    2
    """

    name = "brr"
    space: HammingSpace
    #: ``decode="auto"`` decodes in context where lm-general is installed: on held-out newswire,
    #: product reviews and film snippets it beat nearest decoding in macro-F1 and words kept, at
    #: some cost in speed (bench/reports/2026-11-26-decoding.md; post-processing: the guarantee is
    #: unchanged).
    auto_decode = "context"

    def _build_space(self) -> HammingSpace:
        return HammingSpace(self.pack, self.epsilon, self.rng)

    @property
    def flip_probability(self) -> float:
        """The realised per-bit flip probability (>= 1 / (1 + e^epsilon))."""
        return rr_flip_threshold(self.epsilon) / 2**64

    @property
    def realised_epsilon(self) -> float:
        """The per-bit privacy loss actually delivered (<= epsilon)."""
        return rr_realised_epsilon(rr_flip_threshold(self.epsilon))

    def perturb(self, codes: np.ndarray) -> np.ndarray:
        """Randomized response on packed codes (uint8, shape (n, bits / 8)): the DP release itself."""
        return self.space.perturb_codes(codes)
