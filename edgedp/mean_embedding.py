"""NOT PRIVATE: the plain mean sentence embedding of a document, for comparison only."""

from __future__ import annotations

import warnings

import numpy as np

from edgedp.errors import NotPrivateWarning
from edgedp.sentence_mechanism import SPACES, SentenceMechanism
from edgedp.sentence_pack import SentencePack
from edgedp.validation import check_choice


def mean_rows(embeddings: list[np.ndarray], dims: int) -> np.ndarray:
    """The mean of each (k_i, dims) array as float32 rows; zeros for an empty array."""
    out = np.zeros((len(embeddings), dims), dtype=np.float32)
    for row, array in enumerate(embeddings):
        if array.shape[0]:
            out[row] = array.mean(axis=0, dtype=np.float64)
    return out


class NonPrivateMean(SentenceMechanism):
    """NOT PRIVATE: the mean of a document's sentence embeddings, with no noise and no guarantee.

    ``space="sentence"`` gives the general-purpose document embedding g(x) of SentDP (mean of the
    encoder's sentence embeddings), ``space="recoded"`` the mean after the recoder H, which is what
    :class:`edgedp.DeepCandidate` approximates privately. It exists to measure what privacy costs;
    never release its output. Creating one emits :class:`edgedp.NotPrivateWarning`. An empty
    document gives the zero vector.
    """

    name = "mean"
    private = False

    def __init__(self, pack: SentencePack, *, space: str = "sentence") -> None:
        super().__init__(pack, rng=None)
        self.space = check_choice(space, "space", SPACES)  # type: ignore[misc]
        warnings.warn(
            "NonPrivateMean releases the exact mean embedding: NOT differentially private",
            NotPrivateWarning,
            stacklevel=2,
        )

    def __repr__(self) -> str:
        return f"NonPrivateMean(pack={self.pack.name!r}, space={self.space!r}) [NOT PRIVATE]"

    def _release(self, embeddings: list[np.ndarray]) -> np.ndarray:
        return mean_rows(embeddings, self.pack.dims)
