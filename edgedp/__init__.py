"""edgedp: differential privacy for text, on the device.

Quick start::

    import edgedp
    pack = edgedp.load_pack()                     # the bundled default word pack
    brr = edgedp.BRR(pack, epsilon=1.0)           # epsilon per bit: epsilon * Hamming metric DP
    brr.privatize("The patient was admitted with chest pain.")

Every mechanism documents its guarantee in its docstring. Randomness comes from OS entropy unless a
seed is given (tests only; a seed makes the output reproducible and NOT private).
"""

from edgedp.adept import ADePT
from edgedp.autoencoder_pack import AutoencoderPack
from edgedp.brr import BRR
from edgedp.deepcandidate import CandidateRelease, DeepCandidate
from edgedp.errors import (
    AssetError,
    BudgetError,
    EdgedpError,
    InputError,
    NotPrivateWarning,
    PrivacyParameterError,
    RandomnessError,
)
from edgedp.madlib import Madlib
from edgedp.mahalanobis import Mahalanobis
from edgedp.mean_embedding import NonPrivateMean
from edgedp.packs import list_packs, load_pack
from edgedp.randomness import RandomSource
from edgedp.sentence_pack import SentencePack
from edgedp.threads import set_num_threads
from edgedp.truncation import Truncation
from edgedp.vickrey import GeneralizedVickrey, Vickrey
from edgedp.word_level_embedding import WordLevelEmbedding
from edgedp.word_mechanism import OOV_MASK, WordMechanism
from edgedp.word_pack import WordPack

__version__ = "0.1.0"

__all__ = [
    "BRR",
    "OOV_MASK",
    "ADePT",
    "AssetError",
    "AutoencoderPack",
    "BudgetError",
    "CandidateRelease",
    "DeepCandidate",
    "EdgedpError",
    "GeneralizedVickrey",
    "InputError",
    "Madlib",
    "Mahalanobis",
    "NonPrivateMean",
    "NotPrivateWarning",
    "PrivacyParameterError",
    "RandomSource",
    "RandomnessError",
    "SentencePack",
    "Truncation",
    "Vickrey",
    "WordLevelEmbedding",
    "WordMechanism",
    "WordPack",
    "__version__",
    "list_packs",
    "load_pack",
    "set_num_threads",
]
