"""ADePT (Krishna, Gupta and Dupuy, 2021): rewrite each sentence through a noisy autoencoder latent.

For a sentence u the mechanism computes the latent z = Enc(u) of the pack's encoder, clips it into the
L2 ball of radius C (z <- z * min(1, C / ||z||_2)), adds noise calibrated to that ball, and decodes a
new sentence from the noisy latent with the pack's decoder. Only the noisy latent depends on u;
decoding it is post-processing.

**Calibration (corrected).** Any two clipped latents differ by at most 2C in L2 norm and at most
2C*sqrt(d) in L1 norm (d = ``pack.latent_dims``). Laplace noise therefore needs scale
2C*sqrt(d)/epsilon per coordinate (:func:`edgedp.privacy.noise.l2_ball_laplace_scale`). The paper's proof
uses 2C as the L1 sensitivity (scale 2C/epsilon), which is sqrt(d) times too little noise: its
"epsilon-DP" transformation is only (sqrt(d) * epsilon)-DP (Habernal, "When differential privacy
meets NLP: the devil is in the detail", EMNLP 2021). edgedp does not offer that calibration. Gaussian
noise uses the L2 sensitivity 2C and the analytic Gaussian mechanism of Balle and Wang (2018)
(:func:`edgedp.privacy.noise.analytic_gaussian_sigma`), valid for every epsilon.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np

from edgedp.adept.autoencoder import SentenceAutoencoder
from edgedp.adept.pack import AutoencoderPack
from edgedp.errors import InputError, PrivacyParameterError
from edgedp.privacy.guarantee import Guarantee
from edgedp.privacy.mechanism import Mechanism
from edgedp.privacy.noise import (
    SnappedLaplace,
    analytic_gaussian_sigma,
    l2_ball_l1_diameter,
    l2_ball_laplace_scale,
    snapped_laplace,
)
from edgedp.privacy.randomness import RandomSource
from edgedp.privacy.realised_distributions import check_realised_delta, gaussian_threshold_delta
from edgedp.privacy.validation import (
    check_choice,
    check_delta,
    check_epsilon,
    check_iterable,
    check_positive_int,
)
from edgedp.text.segmentation import MAX_TEXT_CHARS, batches, check_text
from edgedp.text.sentences import split_sentences

NOISES = ("laplace", "gaussian")
#: Gaussian noise is calibrated for delta * (1 - 2^-20), leaving room for the float sampler.
GAUSSIAN_DELTA_MARGIN = 1.0 - 2.0**-20
DEFAULT_PACK = "adept-bbc"
#: Clipping aims this far inside the ball so that float rounding can never leave it (see below).
_CLIP_MARGIN = 1.0 - 2.0**-30
#: Characters of input gathered per batch by :func:`privatize_lines`.
LINE_BATCH_CHARS = 1 << 13


def clip_to_l2_ball(latents: np.ndarray, radius: float) -> np.ndarray:
    """Rows scaled by min(1, C / ||row||_2), guaranteed inside the L2 ball of radius C.

    The scaling aims at C * (1 - 2**-30): the float64 norm, division and products are off by far
    less than that (a few units of 2**-53 per coordinate), so the exact norm of every returned row
    is <= C. A row that is not finite (never produced by a sound encoder) becomes the zero vector,
    which is inside the ball, so the sensitivity bound holds for every input.
    """
    rows = np.asarray(latents, dtype=np.float64)
    if rows.ndim != 2:
        raise InputError(f"latents must be 2-D, got shape {rows.shape}")
    finite = np.asarray(np.isfinite(rows).all(axis=1))
    rows = np.where(finite[:, None], rows, 0.0)
    # Norms via rows divided by their largest magnitude, so huge rows cannot overflow.
    peaks = np.abs(rows).max(axis=1, initial=0.0)
    peaks = np.where(peaks > 0.0, peaks, 1.0)
    units = rows / peaks[:, None]
    unit_norms = np.linalg.norm(units, axis=1)
    target = radius * _CLIP_MARGIN
    outside = unit_norms > target / peaks
    clipped = rows.copy()
    clipped[outside] = units[outside] * (target / unit_norms[outside])[:, None]
    return clipped


def project_to_sphere(latents: np.ndarray, radius: float) -> np.ndarray:
    """Rows rescaled to L2 norm ``radius`` (zero rows stay zero): post-processing of a release.

    Every training latent of a pack lies on the sphere of radius C (the encoder's outputs are longer
    than C and clipping shortens them), while noise lengthens the released vector; decoding its
    direction keeps the decoder on the inputs it was trained on (measured in bench/utility/adept.py: at
    epsilon = 30 the raw noisy latents decode to 48-token gibberish, the rescaled ones to sentences).
    """
    rows = np.asarray(latents, dtype=np.float64)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.where(norms > 0.0, rows * (radius / np.where(norms > 0.0, norms, 1.0)), 0.0)


class ADePT(Mechanism[AutoencoderPack]):
    """Sentence rewriting with local differential privacy for each sentence, through an autoencoder.

    For each sentence u, the latent z = Enc(u) of the pack's encoder is clipped into the L2 ball of
    radius C, noise calibrated to that ball is added, and a new sentence is decoded from the noisy
    latent alone. ``privatize`` splits text into sentences and rewrites each independently, one
    output line per input line; the output is lower-case WordPiece text from the pack's public
    vocabulary (no input token is ever copied). epsilon must be large for readable output: with the
    ``adept-bbc`` pack (C = 1, d = 32) epsilon below ~50 gives sentences unrelated to the input.

    Parameters
    ----------
    pack : ~edgedp.AutoencoderPack
        An autoencoder pack: ``edgedp.load_pack("adept-bbc", kind="autoencoder")`` (a pack
        distribution, not bundled).
    epsilon : float
        The privacy parameter per sentence: a finite number > 0. Keyword only.
    delta : float or None, default None
        In (0, 1): required with ``noise="gaussian"``, refused with ``noise="laplace"``.
    noise : {"laplace", "gaussian"}, default "laplace"
        Laplace noise (pure epsilon-DP) or Gaussian noise ((epsilon, delta)-DP).
    rng : ~edgedp.RandomSource, int or None, default None
        ``None`` for OS entropy (private) or an int seed (tests only; NOT private, warns).
    beam_width : int, default 1
        The decoder's beam width, >= 1 (1: greedy).
    no_repeat_ngram : int, default 3
        The n-gram size whose repetition the decoder blocks, >= 0 (0 turns blocking off).
    max_tokens : int or None, default None
        The decoded length limit (>= 1); ``None``: the pack's.

    Raises
    ------
    ~edgedp.PrivacyParameterError
        If ``epsilon`` is not a finite number > 0, ``delta`` is outside (0, 1), missing with
        Gaussian noise or given with Laplace noise.
    ~edgedp.InputError
        If ``pack`` is not an autoencoder pack, ``noise`` is unknown, or ``beam_width``,
        ``no_repeat_ngram`` or ``max_tokens`` is out of range.

    Notes
    -----
    **Guarantee.** Each sentence is protected against *any other sentence*: for every two sentences
    u, u' and every set S of outputs, Pr[ADePT(u) in S] <= e^epsilon Pr[ADePT(u') in S] (+ delta
    with Gaussian noise). Laplace: pure epsilon-DP, scale 2C sqrt(d) / epsilon per coordinate (the
    L1 sensitivity of the ball; the paper's 2C / epsilon is sqrt(d) times too little, Habernal
    2021, and is not offered). Gaussian: the analytic Gaussian mechanism (Balle and Wang) for L2
    sensitivity 2C. The noisy latent (:meth:`noisy_latents`) is the release; decoding is
    post-processing. A document of n sentences gets (n epsilon, n delta) by basic composition;
    the number of sentences per line is released. On the machine, Laplace noise is exact discrete
    Laplace on a power-of-two grid (delta 0, low-order bits included); Gaussian noise has unbounded
    tails and is calibrated so that the realised delta stays within delta. Proof: :doc:`/theory`.

    A full example needs the ``adept-bbc`` pack, which is not bundled with edgedp (see
    :doc:`/guide/adept`); the example below only shows the refusal of a words pack.

    References
    ----------
    * S. Krishna, R. Gupta, C. Dupuy. "ADePT: Auto-encoder based Differentially Private Text
      Transformation", EACL 2021.
    * I. Habernal. "When differential privacy meets NLP: the devil is in the detail", EMNLP 2021.
    * B. Balle, Y.-X. Wang. "Improving the Gaussian Mechanism for Differential Privacy: Analytical
      Calibration and Optimal Denoising", ICML 2018.

    Examples
    --------
    >>> import edgedp
    >>> edgedp.ADePT(edgedp.load_pack(), epsilon=100.0)
    Traceback (most recent call last):
    ...
    edgedp.errors.InputError: ADePT needs a AutoencoderPack (an autoencoder pack: ...), got WordPack
    """

    name = "adept"
    pack_type = AutoencoderPack
    pack_hint = f"an autoencoder pack: edgedp.load_pack({DEFAULT_PACK!r}, kind='autoencoder')"

    def __init__(
        self,
        pack: AutoencoderPack,
        *,
        epsilon: float,
        delta: float | None = None,
        noise: str = "laplace",
        rng: RandomSource | int | None = None,
        beam_width: int = 1,
        no_repeat_ngram: int = 3,
        max_tokens: int | None = None,
    ) -> None:
        super().__init__(pack, rng=rng)
        self.epsilon = check_epsilon(epsilon)
        self.noise = check_choice(noise, "noise", NOISES)
        if self.noise == "laplace":
            if delta is not None:
                raise PrivacyParameterError(
                    "Laplace noise gives pure epsilon-DP: leave delta out, or use noise='gaussian'"
                )
            self.delta = None
            self.noise_scale = l2_ball_laplace_scale(pack.clip_norm, pack.latent_dims, epsilon)
            self.snapping: SnappedLaplace | None = snapped_laplace(
                l2_ball_l1_diameter(pack.clip_norm, pack.latent_dims), pack.latent_dims, epsilon
            )
        else:
            if delta is None:
                raise PrivacyParameterError("Gaussian noise needs delta in (0, 1), e.g. 1e-6")
            self.delta = check_delta(delta)
            # Calibrated for delta (1 - 2^-20): the float sampler's realised delta on threshold
            # events (edgedp.privacy.realised_distributions.gaussian_threshold_delta) then stays within delta.
            self.noise_scale = analytic_gaussian_sigma(
                2.0 * pack.clip_norm, epsilon, self.delta * GAUSSIAN_DELTA_MARGIN
            )
            realised = gaussian_threshold_delta(epsilon, self.noise_scale, 2.0 * pack.clip_norm)
            check_realised_delta(realised, self.delta)
            self.snapping = None
        self.beam_width = check_positive_int(beam_width, "beam_width")
        self.no_repeat_ngram = check_positive_int(no_repeat_ngram, "no_repeat_ngram", minimum=0)
        self.max_tokens = check_positive_int(
            pack.max_output_tokens if max_tokens is None else max_tokens, "max_tokens"
        )
        if self.max_tokens > pack.max_output_tokens:
            raise InputError(f"max_tokens must be <= {pack.max_output_tokens} for this pack")
        self.autoencoder = SentenceAutoencoder(pack)

    def parameters(self) -> dict[str, object]:
        return {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "noise": self.noise,
            "beam_width": self.beam_width,
            "no_repeat_ngram": self.no_repeat_ngram,
            "max_tokens": self.max_tokens,
        }

    def guarantee(self) -> Guarantee:
        """Per sentence epsilon-DP (Laplace) or (epsilon, delta)-DP (Gaussian) against any sentence."""
        return Guarantee(
            protects="each sentence (its content and its length)",
            relation="any two sentences",
            unit="sentence",
            epsilon=self.epsilon,
            delta=self.delta or 0.0,
        )

    def units(self, inputs: Sequence[str]) -> int:
        """The sentences that rewriting ``inputs`` releases (each line split into sentences)."""
        return sum(
            len(split_sentences(line)) for text in inputs for line in check_text(text).split("\n")
        )

    @property
    def expected_noise_norm(self) -> float:
        """Expected L2 norm of the noise vector, approximately (for reading results against C)."""
        d = self.pack.latent_dims
        if self.noise == "laplace":
            return self.noise_scale * math.sqrt(2.0 * d)
        return self.noise_scale * math.sqrt(d)

    # -- the release ----------------------------------------------------------------------------

    def noisy_latents(
        self, sentences: Sequence[str], labels: Sequence[str] | None = None
    ) -> np.ndarray:
        """The DP release itself: clipped latents plus noise, one row per sentence (float64)."""
        sentences = self._check_sentences(sentences)
        clipped = clip_to_l2_ball(
            self.autoencoder.encode(self.autoencoder.tokenize(sentences, labels), independent=True),
            self.pack.clip_norm,
        )
        if self.snapping is not None:
            # Exact: the clipped latents lie in the ball as computed (see clip_to_l2_ball).
            return self.snapping.release(clipped, self.rng)
        return clipped + self.noise_scale * self.rng.standard_normal(clipped.shape)

    def decode(self, latents: np.ndarray, *, labeled: bool = False) -> list[list[int]]:
        """Token ids decoded from released latents (rescaled to norm C, see
        :func:`project_to_sphere`) with this mechanism's decoding settings."""
        return self.autoencoder.decode(
            project_to_sphere(latents, self.pack.clip_norm),
            labeled=labeled,
            beam_width=self.beam_width,
            no_repeat_ngram=self.no_repeat_ngram,
            max_tokens=self.max_tokens,
        )

    # -- sentences and text ---------------------------------------------------------------------

    def privatize_sentences(self, sentences: Sequence[str]) -> list[str]:
        """Each string rewritten as one sentence (no splitting); same order."""
        sentences = self._check_sentences(sentences)
        if not sentences:
            return []
        ids = self.decode(self.noisy_latents(sentences))
        return [self.autoencoder.detokenize(row) for row in ids]

    def privatize_labeled(
        self, sentences: Sequence[str], labels: Sequence[str]
    ) -> list[tuple[str, str]]:
        """(regenerated label, sentence) for each (sentence, label) with a label-aware pack.

        The paper's label-aware variant: the label is encoded with the sentence and the decoder
        writes a label first, so the released label is part of the private output (it may differ
        from the input label). Labels must be among ``pack.labels``.
        """
        sentences = self._check_sentences(sentences)
        if not self.pack.labels:
            raise InputError(f"pack {self.pack.name} is not label-aware (built without --labels)")
        if not sentences:
            return []
        ids = self.decode(self.noisy_latents(sentences, list(labels)), labeled=True)
        first_label = self.pack.label_ids.start
        return [
            (self.pack.labels[row[0] - first_label], self.autoencoder.detokenize(row[1:]))
            for row in ids
        ]

    def privatize(self, text: str) -> str:
        """Privatize a text sentence by sentence; its lines are kept, blank lines stay blank."""
        return self.privatize_batch([text])[0]

    def privatize_batch(self, texts: Iterable[str]) -> list[str]:
        """Privatize many texts in one batched pass (same guarantee per sentence as ``privatize``)."""
        layouts = [
            [split_sentences(line) for line in check_text(text).split("\n")]
            for text in check_iterable(texts, "privatize_batch", "text")
        ]
        flat = [sentence for lines in layouts for line in lines for sentence in line]
        rewritten = iter(self.privatize_sentences(flat))
        return [
            "\n".join(" ".join(next(rewritten) for _ in line) for line in lines)
            for lines in layouts
        ]

    def _check_sentences(self, sentences: Sequence[str]) -> list[str]:
        if isinstance(sentences, str | bytes):
            raise InputError("give a list of sentences, not a single string")
        return [check_text(sentence) for sentence in sentences]


def _lines(pieces: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """(line, ended by a newline) for the concatenation of ``pieces``; overlong lines refused."""
    carry = ""
    for piece in pieces:
        lines = (carry + piece).split("\n")
        carry = lines.pop()
        if len(carry) > MAX_TEXT_CHARS:
            raise InputError(f"a line is longer than {MAX_TEXT_CHARS:,} characters")
        for line in lines:
            yield line, True
    if carry:
        yield carry, False


def privatize_lines(
    mechanism: ADePT,
    pieces: Iterable[str],
    before_release: Callable[[list[str]], None] | None = None,
) -> Iterator[str]:
    """Privatized text of the concatenation of ``pieces``, one output line per input line.

    Lines are gathered into batches of about :data:`LINE_BATCH_CHARS` characters; a line longer
    than :data:`edgedp.text.segmentation.MAX_TEXT_CHARS` is refused (InputError) rather than buffered.
    ``before_release(lines)`` runs before each batch is rewritten (a ledger charge).
    """
    for batch in batches(_lines(pieces), limit=LINE_BATCH_CHARS, size=lambda item: len(item[0])):
        lines = [line for line, _ in batch]
        if before_release is not None:
            before_release(lines)
        rewritten = mechanism.privatize_batch(lines)
        yield "".join(
            out + ("\n" if ended else "") for out, (_, ended) in zip(rewritten, batch, strict=True)
        )
