"""Word-level metric DP: word packs, the Hamming and Euclidean spaces, and the word mechanisms.

A word mechanism perturbs a word's embedding in a *space* (:mod:`edgedp.words.spaces`: randomized
response on binary codes, or multivariate Laplace noise on float vectors) and releases a vocabulary
word chosen from the perturbed point alone. The base class is :class:`edgedp.words.mechanism.WordMechanism`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from edgedp.runtime.lazy_names import lazy_names

#: Public name -> the module that defines it (imported on first access, like ``edgedp``'s own).
_EXPORTS = {
    "BRR": "edgedp.words.brr",
    "CusText": "edgedp.words.custext",
    "GeneralizedVickrey": "edgedp.words.vickrey",
    "Madlib": "edgedp.words.madlib",
    "Mahalanobis": "edgedp.words.mahalanobis",
    "Multilingual": "edgedp.words.multilingual",
    "OOV_MASK": "edgedp.words.mechanism",
    "SanText": "edgedp.words.santext",
    "SanTextPlus": "edgedp.words.santext",
    "TEM": "edgedp.words.tem",
    "Vickrey": "edgedp.words.vickrey",
    "WordMechanism": "edgedp.words.mechanism",
    "WordPack": "edgedp.words.pack",
}

__all__ = [
    "BRR",
    "OOV_MASK",
    "TEM",
    "CusText",
    "GeneralizedVickrey",
    "Madlib",
    "Mahalanobis",
    "Multilingual",
    "SanText",
    "SanTextPlus",
    "Vickrey",
    "WordMechanism",
    "WordPack",
]

if TYPE_CHECKING:
    from edgedp.words.brr import BRR
    from edgedp.words.custext import CusText
    from edgedp.words.madlib import Madlib
    from edgedp.words.mahalanobis import Mahalanobis
    from edgedp.words.mechanism import OOV_MASK, WordMechanism
    from edgedp.words.multilingual import Multilingual
    from edgedp.words.pack import WordPack
    from edgedp.words.santext import SanText, SanTextPlus
    from edgedp.words.tem import TEM
    from edgedp.words.vickrey import GeneralizedVickrey, Vickrey

__getattr__, __dir__ = lazy_names("edgedp.words", _EXPORTS, globals())
