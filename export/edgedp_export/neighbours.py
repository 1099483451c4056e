"""The neighbour table of a Euclidean words pack: each word's nearest words and a certified bound.

TEM and SanText draw a word by the near-far draw (:mod:`edgedp.words.near_far`): the words near
the input are scored exactly and every other word by rejection from an envelope, which needs a
lower bound on the distance of every word outside the near set. Finding the near set at run time is
a float32 scan of the whole vocabulary per distinct input word; the table does that scan once, at
export: ``neighbours.npy`` (int32, |V| x k: each word's k nearest words by the float32 search) and
``neighbour_bounds.npy`` (float64, |V|: a lower bound on the mechanism's float64 distance of every
word outside the row). Both come from the runtime's own
:class:`~edgedp.words.near_far.EuclideanNeighbours`, so the bound is the one it certifies against
float32 rounding; k is at most |V| - 1, so every row has a far word and a finite bound.

Cost: one float32 k-nearest search of every word (O(|V|^2 d), FAISS on every core): about a minute
for 100,000 words of 50 dimensions on a quiet 2-core machine.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from tqdm import tqdm

from edgedp.words.near_far import EUCLIDEAN_NEAR_WORDS, EuclideanNeighbours
from edgedp.words.sampling import VectorDistances
from edgedp_export.pack_writer import FileWriter, npy_writer

#: Words per row of the table by default (the runtime's float32 search returns as many).
DEFAULT_NEIGHBOURS = EUCLIDEAN_NEAR_WORDS
_BLOCK = 2048


def neighbour_table(vectors: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(ids, bounds)``: the k nearest words of every word (int32) and each row's far bound."""
    size = len(vectors)
    width = min(k, size - 1)
    search = EuclideanNeighbours(VectorDistances(vectors), 0, size, width)
    ids = np.empty((size, width), dtype=np.int32)
    bounds = np.empty(size, dtype=np.float64)
    for start in tqdm(range(0, size, _BLOCK), desc="neighbour table", unit="block"):
        words = np.arange(start, min(start + _BLOCK, size))
        _, found, bounds[words] = search.search(words)
        ids[words] = found.reshape(len(words), width)
    return ids, bounds


def add_neighbour_table(
    vectors: np.ndarray, k: int, files: dict[str, FileWriter], euclidean: dict[str, Any]
) -> None:
    """Add the table of ``k`` neighbours (0: none) to a pack's ``files`` and ``euclidean``
    manifest section."""
    if k <= 0:
        return
    ids, bounds = neighbour_table(vectors, k)
    files["neighbours.npy"] = npy_writer(ids)
    files["neighbour_bounds.npy"] = npy_writer(bounds)
    euclidean.update(
        {
            "neighbours": int(ids.shape[1]),
            "neighbours_file": "neighbours.npy",
            "neighbour_bounds_file": "neighbour_bounds.npy",
            "neighbours_method": (
                "FAISS float32 k-nearest search of every word; bound: sqrt(k-th squared distance "
                "- float32 error) - float64 distance error (edgedp.words.near_far)"
            ),
        }
    )
