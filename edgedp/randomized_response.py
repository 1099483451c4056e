"""Randomized response on packed binary codes (the BRR paper's Algorithm 2).

Each bit is kept with probability e^epsilon / (1 + e^epsilon) and flipped otherwise, independently of
every other bit. For two codes x, x' and any output y, Pr[y | x] <= e^(epsilon * d_H(x, x')) Pr[y | x']:
epsilon-per-bit randomized response is epsilon * Hamming-distance metric DP (BRR paper, Theorem 3).

The flip probability is realised exactly as T / 2**64 with T from
:func:`edgedp.noise.rr_flip_threshold`, which rounds toward more flips (more privacy).
"""

from __future__ import annotations

import numpy as np

from edgedp.errors import InputError
from edgedp.noise import rr_flip_threshold
from edgedp.randomness import RandomSource


def flip_mask(count: int, bits: int, epsilon: float, rng: RandomSource) -> np.ndarray:
    """Packed (big-endian bit order) masks of ``count`` codes, each bit set w.p. 1/(1+e^epsilon)."""
    flips = rng.bernoulli(rr_flip_threshold(epsilon), (count, bits))
    return np.packbits(flips, axis=1, bitorder="big")


def randomized_response(codes: np.ndarray, epsilon: float, rng: RandomSource) -> np.ndarray:
    """A privatized copy of ``codes`` (uint8, shape (n, bits / 8)) at ``epsilon`` per bit."""
    if not isinstance(codes, np.ndarray) or codes.dtype != np.uint8 or codes.ndim != 2:
        raise InputError(
            "codes must be a 2-D uint8 numpy array of packed bits, shape (n, bits / 8)"
        )
    return codes ^ flip_mask(codes.shape[0], codes.shape[1] * 8, epsilon, rng)
