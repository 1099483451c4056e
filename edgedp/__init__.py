"""edgedp: differential privacy for text, on the device.

Quick start::

    import edgedp
    pack = edgedp.load_pack()                     # the bundled default word pack
    brr = edgedp.BRR(pack, epsilon=1.0)           # epsilon per bit: epsilon * Hamming metric DP
    brr.privatize("The patient was admitted with chest pain.")

Every mechanism documents its guarantee in its docstring. Randomness comes from OS entropy unless a
seed is given (tests only; a seed makes the output reproducible and NOT private).
"""

from edgedp.brr import BRR
from edgedp.errors import (
    AssetError,
    BudgetError,
    EdgedpError,
    InputError,
    NotPrivateWarning,
    PrivacyParameterError,
    RandomnessError,
)
from edgedp.packs import list_packs, load_pack
from edgedp.randomness import RandomSource
from edgedp.threads import set_num_threads
from edgedp.word_mechanism import OOV_MASK, WordMechanism
from edgedp.word_pack import WordPack

__version__ = "0.1.0"

__all__ = [
    "BRR",
    "OOV_MASK",
    "AssetError",
    "BudgetError",
    "EdgedpError",
    "InputError",
    "NotPrivateWarning",
    "PrivacyParameterError",
    "RandomSource",
    "RandomnessError",
    "WordMechanism",
    "WordPack",
    "__version__",
    "list_packs",
    "load_pack",
    "set_num_threads",
]
