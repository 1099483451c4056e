"""CusText's output sets, built at export into a words pack (``edgedp-export words --custext K``).

CusText (:mod:`edgedp.words.custext`) partitions the vocabulary into sets of K to 2K - 1 similar
words by a walk over the vocabulary (O(|V|^2 / K) searches: minutes on 100,000 words). The
exporter runs the runtime's own functions once and writes each word's set index
(``custext-hamming.npy``, and ``custext-euclidean.npy`` when the pack stores vectors; int32), so
the mechanism loads them in milliseconds. The sets are public (the pack's data only) and any
partition keeps CusText's guarantee; the loader checks the sizes its statement promises.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from tqdm import tqdm

from edgedp.progress import ProgressCallback
from edgedp.words.custext import DEFAULT_K, euclidean_output_sets, hamming_output_sets
from edgedp.words.exponential_selection import VectorDistances
from edgedp_export.pack_writer import FileWriter, npy_writer

#: Output-set size of the stored sets by default (the paper's code's top_k, CusText's default).
DEFAULT_CUSTEXT_K = DEFAULT_K


def _bar(description: str) -> tuple[Any, ProgressCallback]:
    bar = tqdm(desc=description, unit="word")

    def update(done: float, total: float) -> None:
        bar.total = int(total)
        bar.update(int(done) - bar.n)

    return bar, update


def add_custext_sets(
    k: int,
    codes: np.ndarray,
    vectors: np.ndarray | None,
    files: dict[str, FileWriter],
    manifest: dict[str, Any],
    *,
    hamming: np.ndarray | None = None,
) -> None:
    """Add the output sets of size ``k`` (0: none) for the codes (``hamming``: already computed,
    e.g. copied from the base pack) and, if given, the vectors."""
    if k <= 0:
        return
    section: dict[str, Any] = {
        "k": k,
        "method": "edgedp.words.custext.build_output_sets (exact Hamming search; FAISS float32 "
        "search for vectors), each word's set index",
    }
    if hamming is None:
        bar, update = _bar("CusText sets (codes)")
        hamming = hamming_output_sets(codes, k, update)
        bar.close()
    files["custext-hamming.npy"] = npy_writer(np.asarray(hamming, dtype=np.int32))
    section["hamming_file"] = "custext-hamming.npy"
    if vectors is not None:
        bar, update = _bar("CusText sets (vectors)")
        euclidean = euclidean_output_sets(VectorDistances(vectors), k, update)
        bar.close()
        files["custext-euclidean.npy"] = npy_writer(euclidean.astype(np.int32))
        section["euclidean_file"] = "custext-euclidean.npy"
    manifest["custext"] = section
