"""Thread count for the native libraries edgedp drives (FAISS now, onnxruntime sessions later)."""

from __future__ import annotations

import faiss

from edgedp.validation import check_positive_int

_threads: int | None = None


def set_num_threads(count: int) -> None:
    """Use ``count`` threads in FAISS searches and in onnxruntime sessions created afterwards.

    FAISS keeps one process-wide OpenMP setting, so this affects the whole process.
    """
    global _threads
    _threads = check_positive_int(count, "threads")
    faiss.omp_set_num_threads(_threads)


def get_num_threads() -> int | None:
    """The count set with :func:`set_num_threads`, or ``None`` for the libraries' defaults."""
    return _threads
