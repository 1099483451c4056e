"""The neighbour table of a Euclidean words pack: each word's nearest words and a certified bound.

TEM and SanText draw a word by the near-far draw (:mod:`edgedp.words.vocabulary_draw`): the words near
the input are scored exactly and every other word by rejection from an envelope, which needs a
lower bound on the distance of every word outside the near set. Finding the near set at run time is
a float32 scan of the whole vocabulary per distinct input word; the table does that scan once, at
export: ``neighbours.npy`` (int32, |V| x k: each word's k nearest words by the float32 search) and
``neighbour_bounds.npy`` (float64, |V|: a lower bound on the mechanism's float64 distance of every
word outside the row); and for SanText+, whose outputs are the rarest words (90 % by default), the
same for each frequent word among the rarest 90 % (``suffix_neighbours.npy``,
``suffix_neighbour_bounds.npy``: a frequent word's nearest words are mostly frequent, and searching
the rare ones per word at run time cost as much as BRR's whole release). Both come from the runtime's own
:class:`~edgedp.words.vocabulary_draw.EuclideanNeighbours`, so the bound is the one it certifies against
float32 rounding; k is at most |V| - 1, so every row has a far word and a finite bound.

Cost: one float32 k-nearest search of every word (O(|V|^2 d), FAISS on every core), and one of
the frequent tenth: about a minute for 100,000 words of 50 dimensions on a quiet 2-core machine.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from tqdm import tqdm

from edgedp.words.exponential_selection import VectorDistances
from edgedp.words.santext import DEFAULT_SENSITIVE_FRACTION, first_sensitive_id
from edgedp.words.vocabulary_draw import EUCLIDEAN_NEAR_WORDS, EuclideanNeighbours
from edgedp_export.pack_writer import FileWriter, npy_writer

#: Words per row of the table by default (the runtime's float32 search returns as many).
DEFAULT_NEIGHBOURS = EUCLIDEAN_NEAR_WORDS
_BLOCK = 2048


def neighbour_table(
    table: VectorDistances, words: np.ndarray, lo: int, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(ids, bounds)``: each of ``words``' k nearest words among the ids [lo, |V|) (int32; k at
    most the range's size less one, so that every row leaves a word out) and each row's bound."""
    size = len(table)
    width = min(k, size - lo - 1)
    search = EuclideanNeighbours(table, lo, size, width)
    ids = np.empty((len(words), width), dtype=np.int32)
    bounds = np.empty(len(words), dtype=np.float64)
    described = "neighbour table" if lo == 0 else "neighbour table of the frequent words"
    for start in tqdm(range(0, len(words), _BLOCK), desc=described, unit="block"):
        block = slice(start, start + _BLOCK)
        _, found, bounds[block] = search.search(words[block])
        ids[block] = found.reshape(-1, width)
    return ids, bounds


def add_neighbour_table(
    vectors: np.ndarray, k: int, files: dict[str, FileWriter], euclidean: dict[str, Any]
) -> None:
    """Add the table of ``k`` neighbours (0: none) to a pack's ``files`` and ``euclidean``
    manifest section, and the table of the frequent words among the rarer ones (SanText+'s
    sensitive words at its default fraction)."""
    if k <= 0:
        return
    table = VectorDistances(vectors)
    size = len(vectors)
    ids, bounds = neighbour_table(table, np.arange(size), 0, k)
    start = first_sensitive_id(size, DEFAULT_SENSITIVE_FRACTION)
    files["neighbours.npy"] = npy_writer(ids)
    files["neighbour_bounds.npy"] = npy_writer(bounds)
    euclidean.update(
        {
            "neighbours": int(ids.shape[1]),
            "neighbours_file": "neighbours.npy",
            "neighbour_bounds_file": "neighbour_bounds.npy",
            "neighbours_method": (
                "FAISS float32 k-nearest search of every word; bound: sqrt(k-th squared distance "
                "- float32 error) - float64 distance error (edgedp.words.vocabulary_draw)"
            ),
        }
    )
    if 0 < start < size - 1:
        below, below_bounds = neighbour_table(table, np.arange(start), start, k)
        files["suffix_neighbours.npy"] = npy_writer(below)
        files["suffix_neighbour_bounds.npy"] = npy_writer(below_bounds)
        euclidean.update(
            {
                "suffix_start": int(start),
                "suffix_neighbours": int(below.shape[1]),
                "suffix_neighbours_file": "suffix_neighbours.npy",
                "suffix_neighbour_bounds_file": "suffix_neighbour_bounds.npy",
            }
        )
