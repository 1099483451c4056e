"""Madlib: multivariate Laplace noise on word vectors + Euclidean nearest neighbour."""

from __future__ import annotations

from edgedp.words.mechanism import WordMechanism
from edgedp.words.spaces import EuclideanSpace


class Madlib(WordMechanism):
    """Word-level metric DP in Euclidean space: multivariate Laplace noise on word vectors.

    For a word w with vector phi(w), Madlib samples z with density proportional to
    exp(-epsilon * ||z||_2) (a uniform direction times a Gamma(d, 1/epsilon) radius) and outputs the
    vocabulary word nearest to phi(w) + z in Euclidean distance (exact search). The layout of the
    text is kept; every word is replaced by a sampled word.

    Parameters
    ----------
    pack : ~edgedp.WordPack
        A words pack with float vectors (``edgedp-export words --preset medium``; the bundled
        ``words-small`` is binary-only and is refused).
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
        ``candidates`` is not one of the values above.
    ~edgedp.AssetError
        If the pack has no float vectors, or ``decode`` is ``"map"`` or ``"context"`` and no
        language model fits the pack.

    See Also
    --------
    Mahalanobis : the same with noise shaped by the vectors' covariance.
    BRR : the same idea in Hamming space, on the bundled binary pack.

    Notes
    -----
    **Guarantee.** epsilon * d_2 metric DP per word: for any two vocabulary words w, w' and any
    output o, Pr[M(w) = o] <= e^(epsilon * ||phi(w) - phi(w')||_2) * Pr[M(w') = o]. The noisy vector
    is the DP release and is never returned; the nearest-word search is post-processing. Euclidean
    distances between GloVe words are of order 1 to 10, so useful epsilons are far larger than
    BRR's per-bit epsilons; compare mechanisms with :func:`~edgedp.equivalent_epsilon`.
    Out-of-vocabulary tokens never reach the output (:mod:`edgedp.words.mechanism`). Proof:
    :doc:`/theory`. The example below runs on the bundled pack, which has no float vectors: it
    shows the refusal.

    References
    ----------
    * O. Feyisetan, B. Balle, T. Drake, T. Diethe. "Privacy- and Utility-Preserving Textual
      Analysis via Calibrated Multivariate Perturbations", WSDM 2020.
    * R. S. Carvalho, T. Vasiloudis, O. Feyisetan. "BRR: Preserving Privacy of Text Data
      Efficiently on Device" (the BRR paper, Algorithm 1).

    Examples
    --------
    >>> import edgedp
    >>> edgedp.Madlib(edgedp.load_pack(), epsilon=10.0)
    Traceback (most recent call last):
    ...
    edgedp.errors.AssetError: Madlib needs float word vectors and pack 'words-small' has none ...
    """

    name = "madlib"
    space: EuclideanSpace

    def _build_space(self) -> EuclideanSpace:
        return EuclideanSpace(self.pack, self.epsilon, self.rng, user=type(self).__name__)
