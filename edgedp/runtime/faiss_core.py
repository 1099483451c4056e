"""FAISS on the native tier: its compiled core alone for exact searches, the package for indexes.

``import faiss`` runs FAISS's Python layer: SWIG proxy classes and wrappers for every class of the
library, about 5 MB resident before any search (bench/reports/2026-11-29-footprint.md, fifth
pass). The exact searches of the word mechanisms (:func:`knn_hamming`, :func:`knn_l2`) and the
OpenMP thread count need a few functions of the compiled extension under that layer, so
:func:`library` loads the extension alone, under the name the package gives it
(``faiss._swigfaiss``): a later ``import faiss`` (an HNSW or IVF index, Madlib's projection) finds
it in ``sys.modules`` and reuses it instead of loading it twice.

It does so where the installed package has exactly one such extension, which its loader then
always imports (faiss-cpu 1.15.1's wheels: ``_swigfaiss.abi3.so``); where it has variants per
instruction set (chosen by ``faiss.loader``) or the extension lacks a function named here, and
wherever ``faiss`` is already imported, :func:`library` is the ``faiss`` package. Either way the
searches call the C++ functions ``faiss.knn_hamming`` and ``faiss.knn`` call, with the same
arguments, so their answers are the same bit for bit (tests/runtime/test_faiss_core.py).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import threading
from pathlib import Path
from types import ModuleType

import numpy as np

#: The name ``faiss/swigfaiss.py`` imports its compiled extension by.
CORE = "faiss._swigfaiss"
#: What the searches and the thread settings call in the core.
FUNCTIONS = (
    "swig_ptr",
    "new_int_maxheap_array_t",
    "delete_int_maxheap_array_t",
    "int_maxheap_array_t_k_set",
    "int_maxheap_array_t_nh_set",
    "int_maxheap_array_t_ids_set",
    "int_maxheap_array_t_val_set",
    "hammings_knn_hc",
    "knn_L2sqr",
    "omp_set_num_threads",
    "omp_get_max_threads",
)

_lock = threading.Lock()
_library: ModuleType | None = None


def library() -> ModuleType:
    """FAISS's compiled core where it loads alone (see the module), else the ``faiss`` package.

    Either has ``omp_set_num_threads`` and ``omp_get_max_threads``; :func:`knn_hamming` and
    :func:`knn_l2` accept either.
    """
    global _library
    with _lock:
        if _library is None:
            _library = sys.modules.get("faiss") or _load_core() or _import_package()
        return _library


def is_core(faiss: ModuleType) -> bool:
    """Whether ``faiss`` is the compiled core alone (not the package)."""
    return faiss.__name__ == CORE


def knn_hamming(queries: np.ndarray, codes: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``faiss.knn_hamming(queries, codes, k)``: distances (int32) and ids (int64) of the ``k``
    nearest packed uint8 ``codes`` of each query, ordered by (distance, id)."""
    faiss = library()
    if not is_core(faiss):
        distances, ids = faiss.knn_hamming(queries, codes, k)
        return distances, ids
    queries, codes, distances, ids = _buffers(queries, codes, np.uint8, np.int32, k)
    heap = faiss.new_int_maxheap_array_t()
    try:  # the fields faiss.knn_hamming sets through its proxy class
        faiss.int_maxheap_array_t_k_set(heap, k)
        faiss.int_maxheap_array_t_nh_set(heap, len(queries))
        faiss.int_maxheap_array_t_ids_set(heap, faiss.swig_ptr(ids))
        faiss.int_maxheap_array_t_val_set(heap, faiss.swig_ptr(distances))
        faiss.hammings_knn_hc(
            heap, faiss.swig_ptr(queries), faiss.swig_ptr(codes), len(codes), codes.shape[1], 1
        )
    finally:
        faiss.delete_int_maxheap_array_t(heap)  # no proxy class frees it for us
    return distances, ids


def knn_l2(queries: np.ndarray, vectors: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``faiss.knn(queries, vectors, k)``: float32 squared L2 distances and ids (int64) of the
    ``k`` nearest float32 ``vectors`` of each query, nearest first."""
    faiss = library()
    if not is_core(faiss):
        distances, ids = faiss.knn(queries, vectors, k)
        return distances, ids
    queries, vectors, distances, ids = _buffers(queries, vectors, np.float32, np.float32, k)
    faiss.knn_L2sqr(
        faiss.swig_ptr(queries),
        faiss.swig_ptr(vectors),
        queries.shape[1],
        len(queries),
        len(vectors),
        k,
        faiss.swig_ptr(distances),
        faiss.swig_ptr(ids),
    )
    return distances, ids


def _buffers(
    queries: np.ndarray, base: np.ndarray, dtype: type, distance: type, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``queries`` and ``base`` as C-contiguous ``dtype`` arrays (pointers the core may read),
    and the (distances, ids) arrays of ``k`` per query it writes."""
    return (
        np.ascontiguousarray(queries, dtype=dtype),
        np.ascontiguousarray(base, dtype=dtype),
        np.empty((len(queries), k), dtype=distance),
        np.empty((len(queries), k), dtype=np.int64),
    )


def _load_core() -> ModuleType | None:
    """The package's one compiled extension, loaded and registered as :data:`CORE`; None where
    the package has none or several, or the extension lacks one of :data:`FUNCTIONS`."""
    if CORE in sys.modules:
        return sys.modules[CORE]
    spec = importlib.util.find_spec("faiss")  # finds the package without running it
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    found = [
        folder / f"_swigfaiss{suffix}"
        for suffix in importlib.machinery.EXTENSION_SUFFIXES
        if (folder / f"_swigfaiss{suffix}").is_file()
    ]
    if len(found) != 1 or any(folder.glob("swigfaiss_*.py")):
        return None
    loader = importlib.machinery.ExtensionFileLoader(CORE, str(found[0]))
    core_spec = importlib.util.spec_from_file_location(CORE, found[0], loader=loader)
    if core_spec is None:
        return None
    core = importlib.util.module_from_spec(core_spec)
    loader.exec_module(core)
    sys.modules[CORE] = core  # the package's own import of it finds it here, whatever follows
    return core if all(hasattr(core, name) for name in FUNCTIONS) else None


def _import_package() -> ModuleType:
    import faiss

    return faiss
