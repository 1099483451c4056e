"""The native libraries edgedp drives (FAISS, onnxruntime): thread count, sessions, lazy creation.

* :func:`set_num_threads` sets the thread count of FAISS searches and of onnxruntime sessions created
  afterwards (FAISS keeps one process-wide OpenMP setting, so this affects the whole process).
* :func:`open_session` opens an onnxruntime session for a pack model, checked: a model whose input
  and output names are not the ones the runtime feeds (a file swapped for another) is refused with
  :class:`~edgedp.errors.AssetError` before it runs. onnxruntime is imported here only, on first use,
  so ``import edgedp`` and the word mechanisms never load it.
* :class:`Lazy` builds a value (a session, an index) on first use, once, thread-safely: the one
  lazy-cache helper of the package.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar

from edgedp.errors import AssetError, DependencyError
from edgedp.manifest import REBUILD_HINT
from edgedp.validation import check_positive_int

#: (input names, output names) of a model, in graph order.
GraphIO = tuple[tuple[str, ...], tuple[str, ...]]
T = TypeVar("T")

_threads: int | None = None


def set_num_threads(count: int) -> None:
    """Use ``count`` threads in FAISS searches and in onnxruntime sessions created afterwards."""
    import faiss

    global _threads
    _threads = check_positive_int(count, "threads")
    faiss.omp_set_num_threads(_threads)


def get_num_threads() -> int | None:
    """The count set with :func:`set_num_threads`, or ``None`` for the libraries' defaults."""
    return _threads


class Lazy(Generic[T]):
    """A value built by ``factory`` on first :meth:`get`, exactly once, shared by all threads."""

    __slots__ = ("_factory", "_lock", "_value")

    def __init__(self, factory: Callable[[], T]) -> None:
        self._factory = factory
        self._value: T | None = None
        self._lock = threading.Lock()

    def get(self) -> T:
        value = self._value
        if value is None:
            with self._lock:
                if self._value is None:
                    self._value = self._factory()
                value = self._value
        return value


def open_session(
    path: Path, *, io: GraphIO, threads: int | None, fold_constants: bool = True
) -> Any:
    """An onnxruntime CPU session for ``path`` whose graph has exactly the names ``io``.

    ``fold_constants=False`` keeps int8-stored weights int8 in memory: constant folding would
    dequantize every weight to float32 at load (the MiniLM encoder: 174 MB instead of 50 MB of
    session memory) for about a fifth less time per batch. The values are the same either way
    (DequantizeLinear computes the same float32 products at load or at run time).
    """
    try:
        import onnxruntime
    except ImportError:
        raise DependencyError("this model needs onnxruntime: pip install onnxruntime") from None
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    if threads is not None:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
    try:
        session = onnxruntime.InferenceSession(
            str(path),
            sess_options=options,
            providers=["CPUExecutionProvider"],
            disabled_optimizers=[] if fold_constants else ["ConstantFolding"],
        )
    except Exception as error:  # onnxruntime raises its own exception types
        raise AssetError(
            f"{path.name} is not a loadable ONNX model ({error}); {REBUILD_HINT}"
        ) from None
    names = (
        tuple(item.name for item in session.get_inputs()),
        tuple(item.name for item in session.get_outputs()),
    )
    if names != io:
        raise AssetError(f"{path.name} has inputs/outputs {names}, expected {io}; {REBUILD_HINT}")
    return session


def lazy_session(
    path: Path, io: GraphIO, threads: int | None = None, *, fold_constants: bool = True
) -> Lazy[Any]:
    """A session for ``path`` opened on first use, with ``threads`` or :func:`get_num_threads`."""
    chosen = None if threads is None else check_positive_int(threads, "threads")
    return Lazy(
        lambda: open_session(
            path, io=io, threads=chosen or get_num_threads(), fold_constants=fold_constants
        )
    )
