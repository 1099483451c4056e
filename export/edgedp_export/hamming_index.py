"""Building the approximate FAISS binary index a words pack may carry (HNSW or IVF).

Built single-threaded so the index bytes are deterministic (HNSW insertion order and IVF k-means
depend on thread scheduling otherwise). ``parameter`` is HNSW's M or IVF's number of lists.
"""

from __future__ import annotations

import faiss
import numpy as np

from edgedp.errors import InputError

DEFAULT_PARAMETERS = {"hnsw": (32, 64), "ivf": (1024, 32)}  # (build parameter, search parameter)


def build_binary_index(codes: np.ndarray, index_type: str, parameter: int) -> faiss.IndexBinary:
    """An HNSW (M = parameter) or IVF (nlist = parameter) index over ``codes``."""
    bits = codes.shape[1] * 8
    codes = np.ascontiguousarray(codes)
    previous = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        if index_type == "hnsw":
            index = faiss.IndexBinaryHNSW(bits, parameter)
        elif index_type == "ivf":
            index = faiss.IndexBinaryIVF(faiss.IndexBinaryFlat(bits), bits, parameter)
            index.train(codes)
        else:
            raise InputError(f"no approximate index of type {index_type!r} (hnsw, ivf)")
        index.add(codes)
    finally:
        faiss.omp_set_num_threads(previous)
    return index


def index_writer(index: faiss.IndexBinary):
    """A pack file writer for ``index``."""
    return lambda path: faiss.write_index_binary(index, str(path))
