"""Corpus scale: BRR on BBC News through Spark and Dask against privatize_parallel and one process.

Tables (same corpus, same mechanism, OS entropy, one run):

* **throughput**: documents/s and words/s (word slots, the unit the guarantee and the ledger count)
  for one process (``privatize_batch``), :func:`edgedp.parallel.privatize_parallel` with 1 and 2
  processes, Spark local mode with 1 and 2 workers (``local[1]``, ``local[2]``) and a Dask
  distributed LocalCluster with 1 and 2 worker processes. Each engine row is timed *warm*: the
  engine is started and a tiny job has run (workers forked, pack loaded) before the clock starts;
  ``privatize_parallel`` starts its pool inside the call (that is how it is used), so its rows
  include process start-up and pack loading. ``ratio_to_single``: this row's words/s over the
  single process's.
* **start-up**: what each worker pays once: a fresh Python process that imports edgedp and loads
  and verifies the pack (time and peak RSS), Spark session creation (JVM), Dask cluster creation,
  and each engine's first tiny job minus a second one (forking Python workers, importing edgedp,
  loading the pack).
* **memory**: peak RSS (VmHWM) of every worker process that privatized, read inside the worker
  after its last batch, and of the Spark JVM.
* **extrapolation**: what a 100-node cluster would spend per billion words, from the measured
  steady-state rate per worker (Spark words/s over its workers, for ``local[1]`` and ``local[2]``),
  assuming the job stays embarrassingly parallel (no shuffle: one map stage) and one worker per
  core.

``--quick`` uses 20 articles (a smoke run); the full run uses 400 whole BBC News articles (every 5th).
"""

from __future__ import annotations

import heapq
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

import edgedp
from bench.datasets import bbc_documents
from bench.harness import ROOT, Report, run_python, threads
from edgedp.engines import corpus
from edgedp.text.segmentation import segment
from edgedp.words.parallel import privatize_parallel

EPSILON = 0.6
WORKERS = (1, 2)
#: Partitions of the timed job per worker. With 2 (before issue 25), 400 BBC News articles of
#: uneven length cut into 32 partitions cap 16 workers at 76 % efficiency (see balance_rows).
PARTITIONS_PER_WORKER = 8
#: Worker counts of the load-balance table (computed, not run: this machine has 2 cores).
BALANCE_WORKERS = (2, 4, 8, 16)
BILLION = 1e9
NODES = 100

_STARTUP_CODE = """
import json, time
start = time.perf_counter()
import edgedp
imported = time.perf_counter()
from edgedp.engines import corpus
job = corpus.plan_privatize("text", "brr", epsilon=0.6)
pack = corpus.worker_pack(job)
print(json.dumps({"import_s": imported - start, "load_s": time.perf_counter() - imported}))
"""


def _vm_hwm_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return math.nan


def _measured(job: corpus.CorpusJob) -> Callable[..., Iterator[Any]]:
    """The corpus block, plus the worker's pid and peak RSS on every output batch (Arrow)."""

    def run(batches: Iterator[Any], partition: int = 0) -> Iterator[Any]:
        import pyarrow as pa

        for batch in corpus.privatize_batches(batches, job, partition=partition):
            rows = batch.num_rows
            batch = batch.append_column("pid", pa.array([os.getpid()] * rows, pa.int64()))
            yield batch.append_column("rss_mb", pa.array([_vm_hwm_mb()] * rows, pa.float64()))

    return run


def _words(texts: list[str]) -> int:
    return sum(len(segment(text).words) for text in texts)


def _throughput(
    report: Report, label: str, workers: int, seconds: float, texts: list[str], words: int,
    single: float | None,
) -> float:  # fmt: skip
    rate = words / seconds
    report.add(
        table="throughput",
        setting=label,
        workers=workers,
        seconds=round(seconds, 2),
        documents_per_s=len(texts) / seconds,
        words_per_s=rate,
        ratio_to_single=1.0 if single is None else rate / single,
    )
    return rate


def _peaks(report: Report, engine: str, workers: int, frame: Any) -> None:
    peaks: dict[int, float] = {}
    for pid, rss in zip(frame["pid"], frame["rss_mb"], strict=True):
        peaks[int(pid)] = max(peaks.get(int(pid), 0.0), float(rss))
    for pid, rss in sorted(peaks.items()):
        report.add(table="memory", engine=engine, workers=workers, process=pid, peak_rss_mb=rss)


def _worker_path() -> None:
    """Engine workers run this interpreter and import this checkout's edgedp and bench."""
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])
    )


def _spark_stage(spark: Any, measured: Callable[..., Iterator[Any]], texts: list[str],
                 partitions: int) -> Any:  # fmt: skip
    frame = spark.createDataFrame(list(enumerate(texts)), "id long, text string")

    def partition_run(batches: Iterator[Any]) -> Iterator[Any]:
        from pyspark import TaskContext

        yield from measured(batches, TaskContext.get().partitionId())

    schema = "id long, text string, pid long, rss_mb double"
    return frame.repartition(partitions).mapInArrow(partition_run, schema)


def spark_setting(
    report: Report, workers: int, texts: list[str], words: int, single: float
) -> float:
    """One Spark local[workers] session: start-up, a warm timed job, memory; words/s."""
    from pyspark.sql import SparkSession

    label = f"Spark local[{workers}]"
    start = time.perf_counter()
    spark = (
        SparkSession.builder.master(f"local[{workers}]")
        .appName("edgedp-bench-scale")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    session_s = time.perf_counter() - start
    measured = _measured(corpus.plan_privatize("text", "brr", epsilon=EPSILON))
    tiny = ["the cat sat on the mat"] * (2 * workers)

    def tiny_job() -> None:
        _spark_stage(spark, measured, tiny, workers).write.format("noop").mode("overwrite").save()

    first, second = _timed(tiny_job), _timed(tiny_job)
    report.add(table="start-up", engine=label, session_s=session_s, first_tiny_job_s=first,
               second_tiny_job_s=second, worker_startup_s=first - second)  # fmt: skip
    out: dict[str, Any] = {}

    def job() -> None:
        stage = _spark_stage(spark, measured, texts, PARTITIONS_PER_WORKER * workers)
        out["frame"] = stage.select("pid", "rss_mb").toPandas()

    rate = _throughput(report, label, workers, _timed(job), texts, words, single)
    _peaks(report, label, workers, out["frame"])
    report.add(table="memory", engine=label, workers=workers,
               process="JVM (driver + executor, peak so far)", peak_rss_mb=_jvm_peak_mb())  # fmt: skip
    spark.stop()  # the next setting gets its own SparkContext (local[n]) in the same JVM
    return rate


def _jvm_peak_mb() -> float | None:
    import psutil

    for child in psutil.Process().children(recursive=True):
        if "java" in child.name():
            for line in Path(f"/proc/{child.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    return None


def _dask_partition(frame: Any, measured: Any, partition_info: dict[str, Any] | None = None) -> Any:
    import pyarrow as pa

    batch = pa.RecordBatch.from_pandas(frame, preserve_index=False)
    number = 0 if partition_info is None else partition_info["number"]
    (out,) = measured([batch], number)
    return out.to_pandas()


def dask_setting(
    report: Report, workers: int, texts: list[str], words: int, single: float
) -> float:
    """One distributed LocalCluster of ``workers`` processes: start-up, a warm timed job, memory."""
    import dask.dataframe as dd
    import pandas as pd
    from distributed import Client, LocalCluster

    label = f"Dask LocalCluster({workers})"
    measured = _measured(corpus.plan_privatize("text", "brr", epsilon=EPSILON))
    meta = pd.DataFrame({
        "id": pd.Series([], dtype="int64"), "text": pd.Series([], dtype=object),
        "pid": pd.Series([], dtype="int64"), "rss_mb": pd.Series([], dtype="float64"),
    })  # fmt: skip

    def stage(items: list[str], partitions: int) -> Any:
        frame = pd.DataFrame({"id": range(len(items)), "text": pd.Series(items, dtype=object)})
        partitioned = dd.from_pandas(frame, npartitions=partitions)
        return partitioned.map_partitions(_dask_partition, measured, meta=meta)

    start = time.perf_counter()
    with (
        LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster),
    ):
        cluster_s = time.perf_counter() - start
        tiny = ["the cat sat on the mat"] * (2 * workers)
        first = _timed(lambda: stage(tiny, workers).compute())
        second = _timed(lambda: stage(tiny, workers).compute())
        report.add(table="start-up", engine=label, session_s=cluster_s, first_tiny_job_s=first,
                   second_tiny_job_s=second, worker_startup_s=first - second)  # fmt: skip
        out: dict[str, Any] = {}

        def job() -> None:
            out["frame"] = stage(texts, PARTITIONS_PER_WORKER * workers).compute()

        rate = _throughput(report, label, workers, _timed(job), texts, words, single)
        _peaks(report, label, workers, out["frame"])
    return rate


def balance_rows(report: Report, texts: list[str]) -> None:
    """The efficiency the partitioning alone allows: contiguous partitions of equal rows (as
    ``dd.from_pandas`` cuts them), handed in order to the first free worker, each costing its word
    count; total / workers over the busiest worker. Computed from the corpus, not measured."""
    words = np.array([len(segment(text).words) for text in texts], dtype=float)
    for workers in BALANCE_WORKERS:
        for per_worker in (2, 4, PARTITIONS_PER_WORKER):
            finish = [0.0] * workers
            for part in np.array_split(words, workers * per_worker):
                heapq.heapreplace(finish, finish[0] + float(part.sum()))
            report.add(table="load balance (computed, not measured)", workers=workers,
                       partitions_per_worker=per_worker,
                       best_efficiency=words.sum() / workers / max(finish))  # fmt: skip


def _timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def run(report: Report, *, quick: bool) -> None:
    step, count = (100, 20) if quick else (5, 400)
    documents = [text for _, text in bbc_documents()][::step][:count]
    words = _words(documents)
    report.notes.append(
        f"Corpus: {len(documents)} whole BBC News articles (every {step}th), "
        f"{words:,} word slots; BRR, epsilon {EPSILON} per bit, bundled words-small pack, OS entropy."
    )
    balance_rows(report, documents)
    worker = run_python(["-c", _STARTUP_CODE])
    startup = json.loads(worker.stdout)
    report.add(table="start-up", engine="fresh Python worker: import edgedp + load/verify pack",
               import_s=startup["import_s"], pack_load_s=startup["load_s"],
               process_s=worker.seconds, peak_rss_mb=worker.peak_rss_mb)  # fmt: skip

    brr = edgedp.BRR(edgedp.load_pack(), epsilon=EPSILON)
    with threads(1):
        seconds = _timed(lambda: brr.privatize_batch(documents))
    single = _throughput(report, "one process (privatize_batch, 1 thread)", 1, seconds,
                         documents, words, None)  # fmt: skip
    for processes in WORKERS:
        chunk = math.ceil(len(documents) / (4 * processes))
        seconds = _timed(
            lambda p=processes, c=chunk: privatize_parallel(
                brr, documents, processes=p, chunk_size=c
            )
        )
        _throughput(report, f"privatize_parallel({processes})", processes, seconds, documents,
                    words, single)  # fmt: skip

    _worker_path()
    spark_rates = {n: spark_setting(report, n, documents, words, single) for n in WORKERS}
    for workers in WORKERS:
        dask_setting(report, workers, documents, words, single)
    for workers, rate in spark_rates.items():
        per_worker = rate / workers
        core_hours = BILLION / per_worker / 3600
        report.add(table="extrapolation", from_setting=f"Spark local[{workers}]",
                   per_worker_words_per_s=per_worker, core_hours_per_billion_words=core_hours,
                   wall_hours_100_nodes_1_worker=core_hours / NODES,
                   wall_hours_100_nodes_8_workers=core_hours / (8 * NODES))  # fmt: skip
    report.notes.append(
        "Extrapolation: a billion words need 1e9 / (words/s per worker) worker-seconds; "
        f"{NODES} nodes divide the wall time by {NODES} per worker each (linear: one map "
        "stage, no shuffle, the pack read from local disk), plus a one-off start-up per worker "
        "(the start-up table) that does not grow with the corpus. On a machine whose cores are "
        "busy with other work, local[2] / 2 understates a worker that has a core to itself."
    )
