"""BRR: binary embeddings + randomized response + Hamming nearest neighbour (BRR paper, Alg. 3)."""

from __future__ import annotations

import numpy as np

from edgedp.errors import InputError
from edgedp.noise import rr_flip_threshold, rr_realised_epsilon
from edgedp.words.hamming import randomized_response
from edgedp.words.mechanism import WordMechanism


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
    (:func:`edgedp.noise.rr_flip_threshold`).

    Parameters: ``pack`` a words pack (``edgedp.load_pack()``); ``epsilon`` a finite number > 0 per
    bit; ``rng`` ``None`` for OS entropy (private) or an int seed (tests only, warns); ``oov`` one of
    ``"sample"``, ``"mask"``, ``"drop"``; ``casing`` ``"lower"`` or ``"sentence"``.
    """

    name = "brr"

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
        if (
            isinstance(codes, np.ndarray)
            and codes.ndim == 2
            and codes.shape[1] * 8 != self.pack.bits
        ):
            raise InputError(
                f"codes must have {self.pack.bits} bits per row, got {codes.shape[1] * 8}"
            )
        return randomized_response(codes, self.epsilon, self.rng)

    def _release(self, word_ids: np.ndarray) -> np.ndarray:
        noisy = self.perturb(np.asarray(self.pack.codes[word_ids]))
        _, nearest = self.pack.index.search(noisy, 1)
        return nearest[:, 0].astype(np.int64)
