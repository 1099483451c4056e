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
    (:func:`edgedp.privacy.noise.laplace_scale`, rounded up) is added to every coordinate: exactly, as
    discrete Laplace noise on a fine grid (:func:`edgedp.privacy.noise.snapped_laplace`, see below).

    **Guarantee (epsilon-SentDP).** Replacing one sentence moves one clipped embedding anywhere
    inside the box, so the mean moves by at most (sum of widths) / k in L1 norm: that is the L1
    sensitivity, and Laplace noise of scale sensitivity / epsilon on every coordinate gives
    epsilon-DP for that neighbouring relation. As for every SentDP mechanism, k is not protected
    (the noise scale depends on it) and documents of different lengths are not neighbours.
    (SentDP's appendix scales dimension i by d * w_i / (k epsilon) instead, which is also epsilon-DP;
    edgedp uses one scale for all coordinates, from the L1 sensitivity.)

    Each sentence is encoded by its own onnxruntime call (its embedding depends on it alone), so
    replacing one sentence moves exactly one clipped embedding.

    **Released.** The noisy mean (float32). An empty document has nothing to average: its output is
    the centre of the box, with no noise, which depends on no sentence.

    **Floating-point exactness (issue 14).** A raw float release mean + b * Laplace is open to
    Mironov's attack (CCS 2012): the set of floats the textbook sampler can reach depends on the
    exact mean, so the low-order bits of the output can identify the input with probability far
    above what epsilon allows. Here the mean is snapped to a power-of-two grid (at least 2**16 steps
    per noise scale) and *exact* discrete Laplace integers are added
    (:meth:`edgedp.privacy.randomness.RandomSource.discrete_laplace`, only uniform integers, no floats), with
    the L1 sensitivity widened by 2 grid steps per coordinate for the rounding (the noise is at most
    a factor 1 + 2**-9 larger than b). The release is a function of the noisy integers, so the
    guarantee above holds for the bits that leave the machine (float32 rounding is post-processing),
    with delta = 0. The float error of the computed mean is checked to stay below half a step.

    **Utility.** Poor in high dimension: the noise on each coordinate grows with the sum of all d
    widths, i.e. linearly with d (SentDP Sec. 4, Fig. 4).
    """

    name = "truncation"
    space = "sentence"

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
