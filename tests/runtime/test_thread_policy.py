"""The default thread policy is never slower than one thread (issue 14 section 6).

Small FAISS searches run on one thread whatever ``set_num_threads`` says; onnxruntime sessions get
one thread and no spinning unless a count is given; OpenMP threads wait passively unless the program
chose otherwise. Timings live in bench/performance/load_latency.py; these tests check the policy itself.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import faiss
import numpy as np
import pytest
from helpers import REPO_ROOT

import edgedp
import edgedp.runtime.native as native
from edgedp.runtime import knn as search
from edgedp.words.hamming import HammingIndex

#: FAISS's own behaviour: the native tier, whatever EDGEDP_BACKEND says.
pytestmark = pytest.mark.native

ROOT = REPO_ROOT
THRESHOLD = getattr(native, "SERIAL_SEARCH_QUERIES", 512)


@pytest.fixture
def two_threads():
    saved, omp = native._threads, faiss.omp_get_max_threads()
    edgedp.set_num_threads(2)
    yield
    native._threads = saved
    faiss.omp_set_num_threads(omp)


def threads_seen_by_search(monkeypatch, queries: int) -> int:
    seen = []
    real = faiss.knn_hamming

    def recording(*args, **kwargs):
        seen.append(faiss.omp_get_max_threads())
        return real(*args, **kwargs)

    monkeypatch.setattr(faiss, "knn_hamming", recording)
    codes = np.random.default_rng(0).integers(0, 256, (1000, 8), dtype=np.uint8)
    HammingIndex(codes).search(codes[np.arange(queries) % 1000])
    return seen[-1]


def test_a_small_search_runs_on_one_thread(two_threads, monkeypatch):
    assert threads_seen_by_search(monkeypatch, 1) == 1
    assert threads_seen_by_search(monkeypatch, THRESHOLD - 1) == 1
    assert faiss.omp_get_max_threads() == 2  # restored after the search


def test_a_large_search_uses_the_threads_that_were_set(two_threads, monkeypatch):
    assert threads_seen_by_search(monkeypatch, THRESHOLD) == 2


def test_euclidean_search_follows_the_same_policy(two_threads, monkeypatch, euclid_pack):
    seen = []
    index = euclid_pack.euclidean_index("test")
    real = search.RunningTop.add

    def recording(self, *args, **kwargs):  # runs after each matrix product, in the same block
        seen.append(faiss.omp_get_max_threads())
        return real(self, *args, **kwargs)

    monkeypatch.setattr(search.RunningTop, "add", recording)
    index.search(np.zeros((1, index.dims), dtype=np.float32))
    assert seen and set(seen) == {1}
    index.search(np.zeros((THRESHOLD, index.dims), dtype=np.float32))
    assert seen[-1] == 2


def test_onnx_sessions_default_to_one_thread_without_spinning(sentence_pack):
    session = native.open_session(
        sentence_pack.manifest.contents("recoder.onnx"),
        io=(("embeddings",), ("recoded",)),
        threads=None,
    )
    options = session.get_session_options()
    assert options.intra_op_num_threads == 1
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"


@pytest.mark.parametrize(("given", "expected"), [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_openmp_waits_passively_unless_the_program_chose(given, expected):
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if given is not None:
        env["OMP_WAIT_POLICY"] = given
    env["PYTHONPATH"] = str(ROOT)
    code = "import edgedp, os; print(os.environ.get('OMP_WAIT_POLICY'))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, env=env, timeout=120, check=True
    )
    assert result.stdout.decode().strip() == expected


def test_worker_threads_run_tasks_in_order_and_never_nest(two_threads):
    def inner(item):
        return item, threading.current_thread().name

    def outer(item):
        # a task that maps again runs its tasks on its own thread: no pool waiting on itself
        return threading.current_thread().name, native.map_in_threads(inner, [item, item + 1])

    results = native.map_in_threads(outer, list(range(0, 40, 2)))
    assert [pair[0] for _, inner_results in results for pair in inner_results] == list(range(40))
    assert all(name.startswith("edgedp-worker") for name, _ in results)
    for name, inner_results in results:
        assert {inner_name for _, inner_name in inner_results} == {name}


def test_a_task_error_reaches_the_caller(two_threads):
    def failing(item):
        if item == 3:
            raise edgedp.InputError("bad item")
        return item

    with pytest.raises(edgedp.InputError, match="bad item"):
        native.map_in_threads(failing, list(range(6)))


def test_without_a_thread_count_tasks_run_on_the_calling_thread():
    saved = native._threads
    native._threads = None
    try:
        names = native.map_in_threads(lambda _: threading.current_thread().name, [1, 2, 3])
    finally:
        native._threads = saved
    assert set(names) == {threading.current_thread().name}


def test_a_forked_child_starts_its_own_worker_threads(two_threads, monkeypatch):
    first = native._thread_pool()
    assert native._thread_pool() is first
    monkeypatch.setattr(native.os, "getpid", lambda: -1)  # as seen from a forked child
    assert native._thread_pool() is not first
