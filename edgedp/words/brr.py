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
    outputs the vocabulary word whose code is nearest to the result in Hamming distance.

    **Guarantee.** epsilon is *per bit*: for any two vocabulary words w, w' and any output,
    Pr[BRR(w) = o] <= e^(epsilon * d_H(phi(w), phi(w'))) * Pr[BRR(w') = o], i.e. epsilon * d_H metric
    DP (BRR paper, Theorem 3). The randomized code itself (:meth:`perturb`) is the DP release; the
    nearest-word search is post-processing, so an approximate index changes utility, not privacy.
    Words whose codes differ in few bits are hard to tell apart; the worst case pair (d_H = bits) has
    privacy loss at most epsilon * bits. Use ``edgedp calibrate`` to compare with Euclidean mechanisms.

    Out-of-vocabulary tokens never reach the output (see :mod:`edgedp.words.mechanism` for the
    policies); the realised flip probability rounds toward more privacy
    (:func:`edgedp.privacy.noise.rr_flip_threshold`).

    Parameters: ``pack`` a words pack (``edgedp.load_pack()``); ``epsilon`` a finite number > 0 per
    bit; ``rng`` ``None`` for OS entropy (private) or an int seed (tests only, warns); ``oov`` one of
    ``"sample"``, ``"mask"``, ``"drop"``; ``casing`` ``"lower"`` or ``"sentence"``.
    """

    name = "brr"
    space: HammingSpace
    #: ``decode="auto"`` decodes in context where lm-general is installed: on held-out newswire,
    #: product reviews and film snippets it beat nearest decoding in macro-F1 and words kept at
    #: 0.64-0.96x its speed (post-processing: the guarantee is unchanged).
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
