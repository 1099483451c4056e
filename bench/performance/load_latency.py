"""Per-call latency (p50, p99) on an idle and on a loaded machine, at 1 and 2 threads (issue 14 sec. 6).

Apps call privatize on one short message at a time, on devices that are busy. For BRR (one word per
call, bundled words pack) and DeepCandidate (one short document per call, bundled sentences pack)
this measures every call's wall time, with and without a background CPU load: ``LOAD_PROCESSES``
busy-loop processes that this module starts and stops itself, each bounded by a deadline so that
none outlives the run even if the benchmark dies. The baseline of each row is the same mechanism at
one thread under the same load, measured in the same run (``p50_ratio_to_1_thread``: > 1 means
slower than one thread). ``threads="default"`` is a program that never calls ``set_num_threads``:
the default thread policy (edgedp.runtime.native: small searches and sessions on one thread, passive OpenMP
waits) must keep its ratio at about 1; 2 is a program that asked for two threads.

Run alone: ``python -m bench load-latency [--quick]``; ``python -m bench latency`` includes it.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import statistics
import time
from collections.abc import Callable, Iterator

import numpy as np

import edgedp
import edgedp.runtime.native as native
from bench.harness import Report, threads

LOAD_PROCESSES = 4
#: No busy-loop process lives longer than this, whatever happens to the benchmark.
LOAD_DEADLINE_S = 150.0
#: Seconds of calls per row at most (at least 20 calls).
ROW_BUDGET_S = 20.0
DOCUMENT = "The talks ended without an agreement. Both sides will meet again next week."
TABLE = "per-call latency, idle and under load (BRR: one word; DeepCandidate: one document)"


def _busy(deadline: float) -> None:
    while time.monotonic() < deadline:
        pass


@contextlib.contextmanager
def background_load(processes: int) -> Iterator[None]:
    """``processes`` busy loops on the machine while the block runs (none if 0)."""
    context = multiprocessing.get_context("spawn")
    deadline = time.monotonic() + LOAD_DEADLINE_S
    workers = [
        context.Process(target=_busy, args=(deadline,), daemon=True) for _ in range(processes)
    ]
    for worker in workers:
        worker.start()
    try:
        time.sleep(0.5 if processes else 0.0)  # let the scheduler see them
        yield
    finally:
        for worker in workers:  # only the processes started here, by their handles
            worker.terminate()
        for worker in workers:
            worker.join(timeout=5)


def call_latencies(
    call: Callable[[], object], calls: int, budget_s: float, warmup: int = 3
) -> np.ndarray:
    """Wall time of each of up to ``calls`` calls (seconds), after ``warmup`` calls; stops early
    once ``budget_s`` is spent (a slow configuration under load gets fewer calls, not hours)."""
    for _ in range(warmup):
        call()
    times = []
    stop = time.perf_counter() + budget_s
    while len(times) < calls and (len(times) < 20 or time.perf_counter() < stop):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return np.array(times)


@contextlib.contextmanager
def thread_setting(setting: int | str) -> Iterator[None]:
    """A fixed thread count (``threads``), or ``"default"``: what a program that never calls
    ``set_num_threads`` gets (FAISS's OpenMP default of every core, sessions as edgedp makes them)."""
    if setting != "default":
        with threads(int(setting)):
            yield
        return
    native.reset_num_threads()
    yield


def _brr(thread_count: int | str) -> Callable[[], object]:
    pack = edgedp.load_pack()
    brr = edgedp.BRR(pack, epsilon=1.0)
    ids = edgedp.RandomSource.os_entropy().integers(len(pack.vocabulary), 1000)
    position = iter(range(1 << 62))

    def one_word() -> object:
        index = next(position) % len(ids)
        return brr.privatize_ids(ids[index : index + 1])

    return one_word


def _deepcandidate(thread_count: int | str) -> Callable[[], object]:
    pack = edgedp.load_pack("sentences-bbc")  # a fresh pack: sessions take the thread count now
    mechanism = edgedp.DeepCandidate(pack, epsilon=5.0)
    return lambda: mechanism.embed(DOCUMENT)


MECHANISMS = {"BRR": _brr, "DeepCandidate": _deepcandidate}


def rows(report: Report, *, quick: bool) -> None:
    calls = {"BRR": 100 if quick else 2000, "DeepCandidate": 4 if quick else 60}
    policy = (
        f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', 'unset')}, "
        f"serial below {getattr(native, 'SERIAL_SEARCH_QUERIES', 'n/a')}"
        " queries"
    )
    for load in (0, LOAD_PROCESSES):
        with background_load(load):
            measured: dict[tuple[str, int | str], np.ndarray] = {}
            for label, make in MECHANISMS.items():
                for count in ("default", 1, 2):
                    with thread_setting(count):
                        call = make(count)
                        budget = 3.0 if quick else ROW_BUDGET_S
                        measured[label, count] = call_latencies(call, calls[label], budget)
            for (label, count), times in measured.items():
                one = measured[label, 1]
                report.add(
                    table=TABLE,
                    mechanism=label,
                    background_load=load,
                    threads=count,
                    calls=len(times),
                    p50_us=statistics.median(times) * 1e6,
                    p99_us=float(np.quantile(times, 0.99)) * 1e6,
                    p50_ratio_to_1_thread=statistics.median(times) / statistics.median(one),
                    p99_ratio_to_1_thread=float(np.quantile(times, 0.99) / np.quantile(one, 0.99)),
                    policy=policy,
                )
    report.notes.append(
        f"background_load = number of busy-loop processes started by the bench on this "
        f"{os.cpu_count()}-core machine (each bounded to {LOAD_DEADLINE_S:.0f} s); ratios compare "
        "with one thread under the same load in the same run; the machine is shared, so absolute "
        "times drift between runs."
    )


def run(report: Report, *, quick: bool) -> None:
    rows(report, quick=quick)
