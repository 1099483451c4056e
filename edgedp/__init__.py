"""edgedp: differential privacy for text, on the device.

Quick start::

    import edgedp
    pack = edgedp.WordPack.load()                 # the bundled default word pack, verified
    brr = edgedp.BRR(pack, epsilon=1.0)           # epsilon per bit: epsilon * Hamming metric DP
    brr.privatize("The patient was admitted with chest pain.")

Every mechanism documents its guarantee in its docstring and returns it from ``guarantee()``.
Randomness comes from OS entropy unless a seed is given (tests only; a seed makes the output
reproducible and NOT private).

The packages, each importing only those listed before it: :mod:`edgedp.errors`;
:mod:`edgedp.privacy` (randomness, noise, realised distributions, guarantees, the ``Mechanism``
base class, the ledger); :mod:`edgedp.runtime` (the native and numpy tiers, threads, ONNX sessions,
k-NN search); :mod:`edgedp.text` (segmentation, the identifier guard, sentence splitting) and
:mod:`edgedp.packs` (manifests, loading, pins); :mod:`edgedp.encoder` (the sentence encoder); the
mechanisms :mod:`edgedp.words`, :mod:`edgedp.documents` and :mod:`edgedp.adept`;
:mod:`edgedp.evaluation` (auditor, empirical privacy, calibration, explain, tune, pack fits) and
:mod:`edgedp.registry`; on top :mod:`edgedp.cli` and :mod:`edgedp.engines` (corpus jobs;
:mod:`edgedp.spark`, :mod:`edgedp.dask`).
Names are imported on first use, so ``import edgedp`` stays cheap and a word-only program never
loads the sentence encoder's modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import edgedp.runtime.environment  # noqa: F401 - before anything loads FAISS or onnxruntime
from edgedp.runtime.lazy_names import lazy_names

__version__ = "0.1.0"

#: Public name -> the module that defines it (imported on first access). ``__all__`` and the
#: ``TYPE_CHECKING`` imports below list the same names (tests/test_exports.py holds them together).
_EXPORTS = {
    "ADePT": "edgedp.adept.adept",
    "AutoencoderPack": "edgedp.adept.pack",
    "BRR": "edgedp.words.brr",
    "CusText": "edgedp.words.custext",
    "CandidateRelease": "edgedp.documents.deepcandidate",
    "DeepCandidate": "edgedp.documents.deepcandidate",
    "EncoderPack": "edgedp.encoder.pack",
    "AssetError": "edgedp.errors",
    "BudgetError": "edgedp.errors",
    "EdgedpError": "edgedp.errors",
    "InputError": "edgedp.errors",
    "NotPrivateWarning": "edgedp.errors",
    "PrivacyParameterError": "edgedp.errors",
    "RandomnessError": "edgedp.errors",
    "ShortDocumentWarning": "edgedp.errors",
    "UtilityWarning": "edgedp.errors",
    "GeneralizedVickrey": "edgedp.words.vickrey",
    "Guarantee": "edgedp.privacy.guarantee",
    "Madlib": "edgedp.words.madlib",
    "Mahalanobis": "edgedp.words.mahalanobis",
    "Mechanism": "edgedp.privacy.mechanism",
    "Multilingual": "edgedp.words.multilingual",
    "NonPrivateMean": "edgedp.documents.baselines",
    "OOV_MASK": "edgedp.words.mechanism",
    "PrivacyLedger": "edgedp.privacy.ledger",
    "RandomSource": "edgedp.privacy.randomness",
    "SanText": "edgedp.words.santext",
    "SanTextPlus": "edgedp.words.santext",
    "SentenceMechanism": "edgedp.documents.mechanism",
    "SentencePack": "edgedp.documents.pack",
    "SubspaceMean": "edgedp.documents.subspace",
    "SubspacePack": "edgedp.documents.subspace_pack",
    "SubspaceRelease": "edgedp.documents.subspace",
    "TEM": "edgedp.words.tem",
    "Truncation": "edgedp.documents.truncation",
    "Vickrey": "edgedp.words.vickrey",
    "WordLevelEmbedding": "edgedp.documents.baselines",
    "WordMechanism": "edgedp.words.mechanism",
    "WordPack": "edgedp.words.pack",
    "equivalent_epsilon": "edgedp.evaluation.calibration",
    "explain": "edgedp.evaluation.explain",
    "list_packs": "edgedp.packs.loading",
    "load_pack": "edgedp.registry",
    "set_num_threads": "edgedp.runtime.native",
}

__all__ = [
    "BRR",
    "OOV_MASK",
    "TEM",
    "ADePT",
    "AssetError",
    "AutoencoderPack",
    "BudgetError",
    "CandidateRelease",
    "CusText",
    "DeepCandidate",
    "EdgedpError",
    "EncoderPack",
    "GeneralizedVickrey",
    "Guarantee",
    "InputError",
    "Madlib",
    "Mahalanobis",
    "Mechanism",
    "Multilingual",
    "NonPrivateMean",
    "NotPrivateWarning",
    "PrivacyLedger",
    "PrivacyParameterError",
    "RandomSource",
    "RandomnessError",
    "SanText",
    "SanTextPlus",
    "SentenceMechanism",
    "SentencePack",
    "ShortDocumentWarning",
    "SubspaceMean",
    "SubspacePack",
    "SubspaceRelease",
    "Truncation",
    "UtilityWarning",
    "Vickrey",
    "WordLevelEmbedding",
    "WordMechanism",
    "WordPack",
    "__version__",
    "equivalent_epsilon",
    "explain",
    "list_packs",
    "load_pack",
    "set_num_threads",
]

if TYPE_CHECKING:
    from edgedp.adept.adept import ADePT
    from edgedp.adept.pack import AutoencoderPack
    from edgedp.documents.baselines import NonPrivateMean, WordLevelEmbedding
    from edgedp.documents.deepcandidate import CandidateRelease, DeepCandidate
    from edgedp.documents.mechanism import SentenceMechanism
    from edgedp.documents.pack import SentencePack
    from edgedp.documents.subspace import SubspaceMean, SubspaceRelease
    from edgedp.documents.subspace_pack import SubspacePack
    from edgedp.documents.truncation import Truncation
    from edgedp.encoder.pack import EncoderPack
    from edgedp.errors import (
        AssetError,
        BudgetError,
        EdgedpError,
        InputError,
        NotPrivateWarning,
        PrivacyParameterError,
        RandomnessError,
        ShortDocumentWarning,
        UtilityWarning,
    )
    from edgedp.evaluation.calibration import equivalent_epsilon
    from edgedp.evaluation.explain import explain
    from edgedp.packs.loading import list_packs
    from edgedp.privacy.guarantee import Guarantee
    from edgedp.privacy.ledger import PrivacyLedger
    from edgedp.privacy.mechanism import Mechanism
    from edgedp.privacy.randomness import RandomSource
    from edgedp.registry import load_pack
    from edgedp.runtime.native import set_num_threads
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


__getattr__, __dir__ = lazy_names("edgedp", _EXPORTS, globals())
