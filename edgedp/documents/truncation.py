"""Truncation: the clipped-mean Laplace baseline of SentDP (Li and Clifton 2021, SentDP App. A.3)."""

from __future__ import annotations

import numpy as np

from edgedp.documents.mechanism import SentenceMechanism
from edgedp.documents.pack import SentencePack
from edgedp.errors import PrivacyParameterError
from edgedp.privacy.noise import (
    SnappedLaplace,
    laplace_scale,
    scale_at_least,
    snapped_laplace,
    sum_at_least,
)
from edgedp.privacy.randomness import RandomSource
from edgedp.privacy.validation import check_epsilon


class Truncation(SentenceMechanism):
    """epsilon-SentDP document embeddings by clipping sentences into a box and adding Laplace noise.

    Each sentence embedding (encoder G, no recoder) is clipped coordinate-wise into the pack's box
    [low, high] (the central 75 % of public document embeddings on each dimension); the k clipped
    embeddings are averaged and Laplace noise of scale b = (sum of the box widths) / (k * epsilon)
    (rounded up) is added to every coordinate, exactly, as discrete Laplace noise on a fine grid.
    The baseline of the SentDP paper; poor in high dimension (the noise grows linearly with d).

    Parameters
    ----------
    pack : ~edgedp.SentencePack
        A sentences pack: ``edgedp.load_pack("sentences-bbc", kind="sentences")`` (a pack
        distribution, not bundled).
    epsilon : float
        The privacy parameter per document: a finite number > 0. Keyword only.
    rng : ~edgedp.RandomSource, int or None, default None
        ``None`` for OS entropy (private) or an int seed (tests only; NOT private, warns).

    Raises
    ------
    ~edgedp.PrivacyParameterError
        If ``epsilon`` is not a finite number > 0.
    ~edgedp.InputError
        If ``pack`` is not a sentences pack.
    ~edgedp.errors.DependencyError
        From :meth:`embed`, when the sentences extra (onnxruntime, tokenizers) is not installed.

    Warns
    -----
    ~edgedp.ShortDocumentWarning
        For a document of fewer than 2 sentences: still private, mostly noise.

    Notes
    -----
    **Guarantee (epsilon-SentDP).** Replacing one sentence moves one clipped embedding anywhere in
    the box, so the mean moves by at most (sum of widths) / k in L1: Laplace noise of scale
    sensitivity / epsilon gives epsilon-DP for two documents with the same number of sentences k
    that differ in one sentence. k is not protected. On the machine the mean is snapped to a
    power-of-two grid and exact discrete Laplace integers are added (the sensitivity widened by 2
    grid steps per coordinate for the rounding), so the guarantee holds, with delta 0, for the bits
    that leave the machine (no float low-order-bit attack, Mironov 2012). An empty document gets
    the centre of the box. Proof: :doc:`/theory`.

    A full example needs the ``sentences-bbc`` pack, which is not bundled with edgedp (see
    :doc:`/guide/documents`); the example below only shows the refusal of a words pack.

    References
    ----------
    * C. Meehan, K. Mrini, K. Chaudhuri. "Sentence-level Privacy for Document Embeddings",
      ACL 2022 (the Truncation baseline, Appendix A.3).
    * I. Mironov. "On Significance of the Least Significant Bits for Differential Privacy",
      CCS 2012.

    Examples
    --------
    >>> import edgedp
    >>> edgedp.Truncation(edgedp.load_pack(), epsilon=10.0)
    Traceback (most recent call last):
    ...
    edgedp.errors.InputError: Truncation needs a SentencePack (a sentences pack: ...), got WordPack
    """

    name = "truncation"
    embedding_space = "sentence"

    def __init__(
        self, pack: SentencePack, *, epsilon: float, rng: RandomSource | int | None = None
    ) -> None:
        super().__init__(pack, rng=rng)
        self.epsilon = check_epsilon(epsilon)
        box = np.asarray(pack.truncation_box, dtype=np.float64)
        self.low, self.high = box[0], box[1]
        self.l1_width = sum_at_least((self.high - self.low).tolist())

    def parameters(self) -> dict[str, object]:
        return {"epsilon": self.epsilon}

    def noise_scale(self, sentences: int) -> float:
        """The Laplace scale for a document of ``sentences`` sentences: width sum / (k epsilon)."""
        return laplace_scale(scale_at_least(self.l1_width, sentences), self.epsilon)

    def snapping(self, sentences: int) -> SnappedLaplace:
        """The exact grid + discrete Laplace parameters for a document of ``sentences`` sentences."""
        return snapped_laplace(
            scale_at_least(self.l1_width, sentences), self.pack.dims, self.epsilon
        )

    def clipped_mean(self, embeddings: np.ndarray) -> np.ndarray:
        """NOT PRIVATE: the mean of the clipped sentence embeddings (before noise), float64."""
        (array,) = self._checked([embeddings])
        if array.shape[0] == 0:
            centre: np.ndarray = (self.low + self.high) / 2
            return centre
        mean: np.ndarray = np.clip(array.astype(np.float64), self.low, self.high).mean(axis=0)
        return mean

    def _release(self, embeddings: list[np.ndarray]) -> np.ndarray:
        out = np.empty((len(embeddings), self.pack.dims), dtype=np.float32)
        means = np.stack([self.clipped_mean(array) for array in embeddings]) if embeddings else out
        lengths = np.array([array.shape[0] for array in embeddings], dtype=np.int64)
        # One exact noise draw per group of documents of equal length (same grid and scale).
        for sentences in np.unique(lengths):
            rows = np.flatnonzero(lengths == sentences)
            if sentences == 0:
                out[rows] = means[rows]  # the box centre: depends on no sentence
                continue
            snapping = self.snapping(int(sentences))
            # The float mean of k clipped values is off by at most ~(k + 1) ulps of the box's
            # largest magnitude; the grid rounding argument needs that below half a step.
            peak = float(np.max(np.abs([self.low, self.high])))
            if (int(sentences) + 2) * peak * 2.0**-52 > snapping.grid / 2:
                raise PrivacyParameterError(
                    "epsilon too large for an exact grid at this document length"
                )
            out[rows] = snapping.release(means[rows], self.rng)
        return out
