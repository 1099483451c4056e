"""The native libraries edgedp drives (FAISS, onnxruntime): thread count, sessions, lazy creation.

* :func:`set_num_threads` sets how many cores edgedp uses: worker threads for large batches
  (:func:`map_in_threads`), the OpenMP thread count of FAISS on the calling thread, and ADePT's
  onnxruntime sessions created afterwards.
* :func:`open_session` opens an onnxruntime session for a pack model, checked: a model whose input
  and output names are not the ones the runtime feeds (a file swapped for another) is refused with
  :class:`~edgedp.errors.AssetError` before it runs. onnxruntime is imported here only, on first use,
  so ``import edgedp`` and the word mechanisms never load it.
* :func:`import_onnxruntime` imports onnxruntime with its telemetry off (no file left in
  ``$TMPDIR`` or ``$HOME``; :mod:`edgedp.runtime.environment`).
* Thread policy, never slower than one thread: :func:`search_threads` runs small FAISS searches on
  one thread (FAISS's thread settings are no-ops on the numpy search tier, :mod:`edgedp.runtime.backend`,
  which never loads FAISS); :func:`session_threads` gives onnxruntime sessions one thread
  unless a count was set.
* :class:`Lazy` builds a value (a session, an index) on first use, once, thread-safely: the one
  lazy-cache helper of the package; :class:`ScopedMemo` keeps values computed per key only while a
  scope is open (what a ledger's charge read of a text, for its release).
* :func:`map_in_threads` spreads independent tasks over the count set with :func:`set_num_threads`:
  worker threads that each run their native libraries on one thread, so n threads use n cores.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from edgedp.errors import REBUILD_HINT, SENTENCES_EXTRA, AssetError, DependencyError
from edgedp.privacy.validation import check_positive_int
from edgedp.runtime import faiss_core
from edgedp.runtime.backend import backend
from edgedp.runtime.environment import configure as configure_environment

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

#: (input names, output names) of a model, in graph order.
GraphIO = tuple[tuple[str, ...], tuple[str, ...]]
T = TypeVar("T")
R = TypeVar("R")
K = TypeVar("K")

_threads: int | None = None


def set_num_threads(count: int) -> None:
    """Use ``count`` cores for the batches of the mechanisms and the native searches.

    Sets ``count`` worker threads for the batches of the word mechanisms and the calls of the
    sentence encoder (:func:`edgedp.runtime.native.map_in_threads`), and ``count`` threads in FAISS
    searches made outside them and in ADePT's sessions created afterwards. Without a call, batches
    run on the calling thread and the libraries keep their defaults;
    :func:`edgedp.runtime.native.reset_num_threads` forgets the count.

    Parameters
    ----------
    count : int
        The number of threads, >= 1.

    Raises
    ------
    ~edgedp.InputError
        If ``count`` is not an integer >= 1.

    Notes
    -----
    Threads change speed, never the output law or the guarantee: each word's noise is drawn
    independently (from OS entropy, which has no user-space state), so a text privatized in a
    batch spread over threads has the law it has alone. A seeded mechanism stays on the calling
    thread, so that its output is reproducible.

    Examples
    --------
    >>> import edgedp
    >>> from edgedp.runtime.native import get_num_threads, reset_num_threads
    >>> edgedp.set_num_threads(2)
    >>> get_num_threads()
    2
    >>> reset_num_threads()
    >>> get_num_threads() is None
    True
    """
    global _threads
    _threads = check_positive_int(count, "threads")
    if (faiss := _faiss()) is not None:
        faiss.omp_set_num_threads(_threads)


def reset_num_threads() -> None:
    """Forget :func:`set_num_threads`: batches and sessions as if no count had been set, and FAISS
    on one OpenMP thread per core (``os.cpu_count()``, OpenMP's default unless OMP_NUM_THREADS
    says otherwise)."""
    global _threads
    _threads = None
    if (faiss := _faiss()) is not None:
        faiss.omp_set_num_threads(os.cpu_count() or 1)


def _faiss() -> ModuleType | None:
    """FAISS (its compiled core where it loads alone, :mod:`edgedp.runtime.faiss_core`) when it runs
    the searches (the native tier), else None (never loaded then)."""
    if backend("search") != "native":
        return None
    return faiss_core.library()


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


class ScopedMemo(Generic[K, T]):
    """Values computed once per key while a :meth:`scope` is open, none kept after it (a text
    read for a ledger's charge, then for its release:
    :meth:`edgedp.words.mechanism.WordMechanism.reading_once`). Threads share the open memo; two
    computing one key at once both compute it, the same value."""

    __slots__ = ("_values",)

    def __init__(self) -> None:
        self._values: dict[K, T] | None = None

    @property
    def is_open(self) -> bool:
        """Is a scope open (are values kept)?"""
        return self._values is not None

    @contextmanager
    def scope(self) -> Iterator[bool]:
        """Keep values for the block (yields True), or, inside an open scope, leave it as it is
        (yields False: the outer block drops the values)."""
        if self._values is not None:
            yield False
            return
        self._values = {}
        try:
            yield True
        finally:
            self._values = None

    def get(self, key: K, compute: Callable[[], T]) -> T:
        """The value of ``key``: computed once while a scope is open, every time otherwise."""
        values = self._values
        found = None if values is None else values.get(key)
        if found is None:
            found = compute()
            if values is not None:
                values[key] = found
        return found


def open_session(
    model: Path | bytes,
    *,
    io: GraphIO,
    threads: int | None,
    name: str | None = None,
    fold_constants: bool = True,
) -> Any:
    """An onnxruntime CPU session for ``model`` (a path, or the verified bytes of a pack file,
    shown as ``name`` in messages) whose graph has exactly the names ``io``.

    ``fold_constants=False`` keeps int8-stored weights int8 in memory: constant folding would
    dequantize every weight to float32 at load, more than tripling the MiniLM encoder's session
    memory for a little less time per batch (bench/README.md, "Measurements behind the code"). The
    values are the same either way (DequantizeLinear computes the same float32 products at load or
    at run time).
    """
    onnxruntime = import_onnxruntime()
    path = Path(name or "model.onnx") if isinstance(model, bytes) else model
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    options.intra_op_num_threads = session_threads(threads)
    options.inter_op_num_threads = 1
    # no busy-waiting between ops: under load a spinning worker steals the core it waits for
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        session = onnxruntime.InferenceSession(
            model if isinstance(model, bytes) else str(model),
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
    model: Path | bytes,
    io: GraphIO,
    threads: int,
    *,
    name: str | None = None,
    fold_constants: bool = True,
) -> Lazy[Any]:
    """A session for ``model`` with ``threads`` intra-op threads, opened on first use."""
    chosen = check_positive_int(threads, "threads")
    return Lazy(
        lambda: open_session(model, io=io, threads=chosen, name=name, fold_constants=fold_constants)
    )


# -- onnxruntime without telemetry ------------------------------------------------------------------


def import_onnxruntime() -> Any:
    """onnxruntime, imported with its telemetry off (see :mod:`edgedp.runtime.environment`)."""
    configure_environment()
    try:
        import onnxruntime
    except ImportError:
        raise DependencyError(SENTENCES_EXTRA.format(what="this model needs onnxruntime")) from None
    disable = getattr(onnxruntime, "disable_telemetry_events", None)
    if disable is not None:  # for a process that imported onnxruntime before edgedp
        disable()
    return onnxruntime


# -- thread policy: never slower than one thread ----------------------------------------------------

#: Queries per FAISS search below which the search runs on one thread. A small search is too little
#: work to share: on an idle 2-core machine two threads gain nothing below this size, and on a
#: loaded one a descheduled OpenMP thread makes every parallel region wait for it (``python -m bench
#: load-latency``; bench/README.md, "Measurements behind the code").
SERIAL_SEARCH_QUERIES = 512


@contextmanager
def search_threads(queries: int) -> Iterator[None]:
    """Run the FAISS search of ``queries`` queries inside this block on one thread if it is small.

    OpenMP's thread count is a per-thread setting (the ICV of the calling thread), so this changes
    nothing for searches made concurrently from other Python threads, and it is restored on exit.
    """
    faiss = None if queries >= SERIAL_SEARCH_QUERIES else _faiss()
    if faiss is None:
        yield
        return
    previous = faiss.omp_get_max_threads()
    if previous == 1:
        yield
        return
    faiss.omp_set_num_threads(1)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(previous)


def session_threads(threads: int | None) -> int:
    """intra-op threads of an onnxruntime session: ``threads`` if set, else one.

    The DP paths run one sentence per session call (``independent=True``: a sentence's embedding
    must not depend on its batch), too little work for two threads to pay, and onnxruntime's
    default (all cores, spinning) is the pathology of :func:`search_threads` again under load.
    """
    return 1 if threads is None else threads


# -- worker threads: n cores as n threads of one native thread each ----------------------------------

_pool_lock = threading.Lock()
_pool: tuple[int, int, ThreadPoolExecutor] | None = None  # (process id, size, pool)
_worker = threading.local()


def worker_threads() -> int:
    """The threads :func:`map_in_threads` spreads tasks over: the count set with
    :func:`set_num_threads`, or 1 (none set, or called from a worker thread: no nesting)."""
    if _threads is None or getattr(_worker, "active", False):
        return 1
    return _threads


def task_threads() -> int:
    """The cores a data engine gives one task of a worker process: ``OMP_NUM_THREADS``, which Spark
    sets to ``spark.task.cpus`` and Dask's nanny to 1 in their workers; 1 if unset or not a count."""
    value = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    return int(value) if value.isdigit() and int(value) > 0 else 1


def map_in_threads(function: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """``[function(item) for item in items]``, on :func:`worker_threads` threads, in order.

    Each worker thread runs FAISS (and its BLAS) on one OpenMP thread: OpenMP's count is per
    thread, so the threads are the parallelism and never multiply with FAISS's own. The tasks must
    release the GIL for their heavy work (FAISS calls and numpy loops do); the first exception of a
    task is raised here. With one thread or one item the tasks run on the calling thread.
    """
    if worker_threads() < 2 or len(items) < 2:
        return [function(item) for item in items]
    return list(_thread_pool().map(function, items))


def _thread_pool() -> ThreadPoolExecutor:
    """The process's worker threads, (re)started for the current count (and after a fork)."""
    from concurrent.futures import ThreadPoolExecutor  # with logging: 0.7 MB, only for threads

    global _pool
    size = worker_threads()
    with _pool_lock:
        if _pool is None or _pool[0] != os.getpid() or _pool[1] != size:
            if _pool is not None and _pool[0] == os.getpid():
                _pool[2].shutdown(wait=False)
            pool = ThreadPoolExecutor(size, "edgedp-worker", initializer=_start_worker)
            _pool = (os.getpid(), size, pool)
        return _pool[2]


def _start_worker() -> None:
    if (faiss := _faiss()) is not None:
        faiss.omp_set_num_threads(1)  # this thread's OpenMP count (an OpenMP per-thread setting)
    _worker.active = True
