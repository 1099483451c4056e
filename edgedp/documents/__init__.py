"""Sentence-level DP document embeddings: SubspaceMean, DeepCandidate, Truncation, packs, baselines.

A document is a list of sentences (:mod:`edgedp.text.sentences`); the mechanisms release one
embedding per document with a guarantee about replacing any one sentence (SentDP). The sentence
encoder they run is :mod:`edgedp.encoder`; the estimators that fit a pack to a domain, and
release nothing, are in :mod:`edgedp.evaluation`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from edgedp.runtime.lazy_names import lazy_names

#: Public name -> the module that defines it (imported on first access, like ``edgedp``'s own).
_EXPORTS = {
    "CandidateRelease": "edgedp.documents.deepcandidate",
    "DeepCandidate": "edgedp.documents.deepcandidate",
    "NonPrivateMean": "edgedp.documents.baselines",
    "SentenceMechanism": "edgedp.documents.mechanism",
    "SentencePack": "edgedp.documents.pack",
    "SubspaceMean": "edgedp.documents.subspace",
    "SubspacePack": "edgedp.documents.subspace_pack",
    "SubspaceRelease": "edgedp.documents.subspace",
    "Truncation": "edgedp.documents.truncation",
    "WordLevelEmbedding": "edgedp.documents.baselines",
}

__all__ = [
    "CandidateRelease",
    "DeepCandidate",
    "NonPrivateMean",
    "SentenceMechanism",
    "SentencePack",
    "SubspaceMean",
    "SubspacePack",
    "SubspaceRelease",
    "Truncation",
    "WordLevelEmbedding",
]

if TYPE_CHECKING:
    from edgedp.documents.baselines import NonPrivateMean, WordLevelEmbedding
    from edgedp.documents.deepcandidate import CandidateRelease, DeepCandidate
    from edgedp.documents.mechanism import SentenceMechanism
    from edgedp.documents.pack import SentencePack
    from edgedp.documents.subspace import SubspaceMean, SubspaceRelease
    from edgedp.documents.subspace_pack import SubspacePack
    from edgedp.documents.truncation import Truncation

__getattr__, __dir__ = lazy_names("edgedp.documents", _EXPORTS, globals())
