"""Turning float word vectors into binary codes (packed, big-endian bit order).

* ``random-hyperplane``: centre the vectors on their mean, project them on ``bits`` random Gaussian
  directions and keep the signs (sign random projections: the expected Hamming distance between
  two codes is bits * angle / pi, so Hamming distance tracks cosine distance). Cheap, no training.
* ``autoencoder``: the near-lossless binarization of Tissier et al. (AAAI 2019), see
  :mod:`edgedp_export.binary_autoencoder`. Needs torch.
* ``flip-trained``: signs of a linear map trained so that BRR's randomized-response-noised code
  stays nearest to the input's float-space neighbours at heavy noise (issue 28), see
  :mod:`edgedp_export.flip_trained`. Needs torch.

All are deterministic for a seed.
"""

from __future__ import annotations

import numpy as np
from tqdm import tqdm

from edgedp.errors import InputError
from edgedp_export.binary_autoencoder import autoencoder_codes
from edgedp_export.flip_trained import flip_trained_codes

METHODS = ("random-hyperplane", "autoencoder", "flip-trained")
#: The methods every pack's binarization report compares (flip-trained codes are judged by BRR's
#: utility at heavy noise, ``python -m bench brr-parity``, not by neighbour overlap).
REPORTED_METHODS = ("random-hyperplane", "autoencoder")
_CHUNK = 65536


def random_hyperplane_codes(vectors: np.ndarray, bits: int, seed: int) -> np.ndarray:
    """Packed codes (uint8, big-endian bit order) of shape (n, bits / 8)."""
    planes = np.random.default_rng(seed).standard_normal((vectors.shape[1], bits))
    mean = vectors.astype(np.float64).mean(axis=0)
    codes = np.empty((vectors.shape[0], bits // 8), dtype=np.uint8)
    for start in tqdm(range(0, vectors.shape[0], _CHUNK), desc="binarizing", unit="chunk"):
        block = vectors[start : start + _CHUNK].astype(np.float64) - mean
        codes[start : start + _CHUNK] = np.packbits(block @ planes > 0.0, axis=1, bitorder="big")
    return codes


def binarize(vectors: np.ndarray, *, method: str, bits: int, seed: int) -> np.ndarray:
    """Binary codes of ``vectors`` by ``method`` (see :data:`METHODS`)."""
    if bits <= 0 or bits % 8:
        raise InputError(f"bits must be a positive multiple of 8, got {bits}")
    if method == "random-hyperplane":
        return random_hyperplane_codes(vectors, bits, seed)
    if method == "autoencoder":
        return autoencoder_codes(vectors, bits, seed)
    if method == "flip-trained":
        return flip_trained_codes(vectors, bits, seed)
    raise InputError(f"unknown binarization method {method!r} (known: {', '.join(METHODS)})")
