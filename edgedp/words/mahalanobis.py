"""The Mahalanobis mechanism (Xu et al. 2020): elliptical noise shaped by the vectors' covariance."""

from __future__ import annotations

from typing import Unpack

import numpy as np

from edgedp.privacy.validation import check_unit_interval
from edgedp.words.madlib import Madlib
from edgedp.words.mechanism import WordOptions
from edgedp.words.pack import WordPack
from edgedp.words.spaces import MahalanobisSpace


class Mahalanobis(Madlib):
    """Word-level metric DP with the regularized Mahalanobis norm: elliptical noise on word vectors.

    The noise is z = Sigma_lambda^(1/2) y with y multivariate Laplace (density proportional to
    exp(-epsilon ||y||_2)), so z has density proportional to exp(-epsilon ||z||_M) with
    ||z||_M = sqrt(z^T Sigma_lambda^-1 z), Sigma_lambda = lam Sigma + (1 - lam) I for the vectors'
    covariance Sigma. It is *not* renormalized afterwards (a classic bug that changes the
    distribution). Output: the vocabulary word nearest to phi(w) + z (Euclidean).

    Parameters
    ----------
    pack : ~edgedp.WordPack
        A words pack with float vectors (the bundled ``words-small`` is binary-only and is
        refused).
    epsilon : float
        The privacy parameter per unit of Mahalanobis distance: a finite number > 0. Keyword only.
    lam : float, default 0.2
        The regularization lambda, in [0, 1]; 0 is Madlib.
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
        If ``epsilon`` is not a finite number > 0, ``lam`` is outside [0, 1], or ``protect``
        names an unknown kind.
    ~edgedp.InputError
        If ``pack`` is not a words pack, or ``oov``, ``casing``, ``deny``, ``decode`` or
        ``candidates`` is not one of the values above.
    ~edgedp.AssetError
        If the pack has no float vectors, or ``decode`` is ``"map"`` or ``"context"`` and no
        language model fits the pack.

    See Also
    --------
    Madlib : spherical noise (``lam=0``).

    Notes
    -----
    **Guarantee.** epsilon * d_M metric DP per word, d_M(w, w') = ||phi(w) - phi(w')||_M: the noise
    density satisfies Madlib's triangle-inequality argument in the Mahalanobis norm. The noisy
    vector is the DP release and is never returned; the nearest-word search is post-processing.
    The matrix root is computed once per mechanism, at construction
    (:class:`edgedp.words.spaces.MahalanobisSpace`), never per call. Proof: :doc:`/theory`. The
    example below runs on the bundled pack, which has no float vectors: it shows the refusal.

    References
    ----------
    * Z. Xu, A. Aggarwal, O. Feyisetan, N. Teissier. "A Differentially Private Text Perturbation
      Method Using a Regularized Mahalanobis Metric", PrivateNLP workshop, EMNLP 2020.

    Examples
    --------
    >>> import edgedp
    >>> edgedp.Mahalanobis(edgedp.load_pack(), epsilon=10.0, lam=0.2)
    Traceback (most recent call last):
    ...
    edgedp.errors.AssetError: Mahalanobis needs float word vectors and pack 'words-small' has none ...
    """

    name = "mahalanobis"
    space: MahalanobisSpace

    def __init__(
        self,
        pack: WordPack,
        *,
        epsilon: float,
        lam: float = 0.2,
        **options: Unpack[WordOptions],
    ) -> None:
        self.lam = check_unit_interval(lam, "lam")
        super().__init__(pack, epsilon=epsilon, **options)

    def _build_space(self) -> MahalanobisSpace:
        return MahalanobisSpace(
            self.pack, self.epsilon, self.rng, user=type(self).__name__, lam=self.lam
        )

    @property
    def metric_matrix(self) -> np.ndarray:
        """Sigma_lambda, the matrix of the Mahalanobis metric d_M(x, y)^2 = (x-y)^T Sigma^-1 (x-y)."""
        return self.space.metric_matrix

    def parameters(self) -> dict[str, object]:
        return {**super().parameters(), "lam": self.lam}
