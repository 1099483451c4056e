"""Timing, memory, threads, progress, plotting and reporting helpers shared by the suites."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
LIBRARIES = (
    "edgedp",
    "numpy",
    "faiss-cpu",
    "onnxruntime",
    "tokenizers",
    "scikit-learn",
    "matplotlib",
)
#: Thread variables of the BLAS/OpenMP runtimes; children get a fixed value (see child_env).
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMBA_NUM_THREADS",
)
Item = TypeVar("Item")


def machine() -> dict[str, Any]:
    """CPU model, core count, load, Python and library versions: the context of every figure."""
    cpu = platform.processor() or "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    versions = {}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "libraries": versions,
    }


def median_seconds(run: Callable[[], object], *, repeats: int, warmup: int = 1) -> float:
    """Median wall time of ``run`` over ``repeats`` calls after ``warmup`` calls."""
    for _ in range(warmup):
        run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


@contextlib.contextmanager
def threads(count: int) -> Iterator[None]:
    """Fix edgedp's (FAISS, onnxruntime) and, with threadpoolctl, numpy's BLAS thread counts."""
    import edgedp

    edgedp.set_num_threads(count)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    with threadpool_limits(limits=count, user_api="blas"):
        yield


def child_env(thread_count: int = 1, **extra: str) -> dict[str, str]:
    """The environment of a measured child process: fixed BLAS/OpenMP threads, no network.

    HTTP(S) proxies point at a closed loopback port, so a library that tries to download something
    at import (MLDP's nltk does) fails at once, the same way on every machine.
    """
    env = {**os.environ, **{name: str(thread_count) for name in THREAD_VARIABLES}}
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        env[name] = "http://127.0.0.1:9"
    env.pop("no_proxy", None)
    env.pop("NO_PROXY", None)
    return {**env, **extra}


@dataclass
class ChildRun:
    """Wall time and peak resident memory of one child process."""

    seconds: float
    peak_rss_mb: float
    stdout: bytes


def run_python(argv: list[str], stdin: bytes = b"") -> ChildRun:
    """Run ``python ARGV`` in a fresh process; its wall time and its own peak RSS (VmHWM)."""
    with tempfile.TemporaryDirectory() as scratch:
        rss_file = Path(scratch) / "rss"
        env = child_env(1, EDGEDP_BENCH_RSS_FILE=str(rss_file))
        start = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-m", "bench.performance.peak_rss", *argv],
            input=stdin,
            capture_output=True,
            cwd=ROOT,
            env=env,
            check=False,
        )
        seconds = time.perf_counter() - start
        if result.returncode:
            tail = result.stderr.decode(errors="replace").strip().splitlines()[-3:]
            raise RuntimeError(f"python {' '.join(argv)} exited with {result.returncode}: {tail}")
        return ChildRun(seconds, int(rss_file.read_text()) / 1024, result.stdout)


def median_python(
    argv: list[str], *, repeats: int, stdin: bytes = b"", warmup: bool = True
) -> ChildRun:
    """Median time and median peak RSS of ``repeats`` fresh processes (after one warm-up run, which
    fills the page cache with the interpreter, libraries and pack)."""
    if warmup:
        run_python(argv, stdin)
    runs = [run_python(argv, stdin) for _ in range(repeats)]
    return ChildRun(
        statistics.median(run.seconds for run in runs),
        statistics.median(run.peak_rss_mb for run in runs),
        runs[-1].stdout,
    )


def progress(items: Iterable[Item], description: str, total: int | None = None) -> Iterable[Item]:
    """A tqdm progress bar on stderr (plain iteration without tqdm)."""
    try:
        from tqdm import tqdm
    except ImportError:
        return items
    return tqdm(items, desc=f"   {description}", total=total, leave=False, file=sys.stderr)


def figure(rows: int, columns: int, size: tuple[float, float]):
    """A matplotlib figure and its axes (a 2-D array) on the non-interactive Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(rows, columns, figsize=size, squeeze=False)


def plot_lines(axis, rows: Sequence[dict[str, Any]], group: str, x: str, y: str, **style) -> None:
    """One line per distinct ``row[group]`` (in order of appearance): ``row[x]`` against ``row[y]``."""
    for label in dict.fromkeys(row[group] for row in rows):
        series = [row for row in rows if row[group] == label]
        axis.plot([r[x] for r in series], [r[y] for r in series], "o-", label=label, **style)


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or not denominator:
        return None
    return numerator / denominator


@dataclass
class Report:
    """Results of one suite: tables of rows, notes and figures, written as JSON + Markdown + PNG.

    A row's ``table`` key names the table it belongs to (Markdown shows one table per name, in
    order of first appearance, with that table's own columns).
    """

    suite: str
    quick: bool
    rows: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)  # file name -> matplotlib figure
    sections: list[str] = field(default_factory=list)  # extra Markdown lines after the tables
    started: float = field(default_factory=time.perf_counter)

    def add(self, **row: Any) -> None:
        self.rows.append(row)
        print("  " + ", ".join(f"{key}={_fmt(value)}" for key, value in row.items()), flush=True)

    def table(self, name: str) -> list[dict[str, Any]]:
        """The rows of one table."""
        return [row for row in self.rows if row.get("table") == name]

    def write(self, out: Path) -> Path:
        out.mkdir(parents=True, exist_ok=True)
        document = {
            "suite": self.suite,
            "quick": self.quick,
            "machine": machine(),
            "command": " ".join(["python", "-m", "bench", *sys.argv[1:]]),
            "seconds": round(time.perf_counter() - self.started, 1),
            "rows": self.rows,
            "notes": self.notes,
            "figures": list(self.figures),
        }
        (out / f"{self.suite}.json").write_text(json.dumps(document, indent=2) + "\n")
        for name, figure_ in self.figures.items():
            figure_.tight_layout()
            figure_.savefig(out / name, dpi=110)
        (out / f"{self.suite}.md").write_text(self.markdown(document))
        return out / f"{self.suite}.md"

    def markdown(self, document: dict[str, Any]) -> str:
        info = document["machine"]
        lines = [
            f"# bench: {self.suite}{' (quick)' if self.quick else ''}",
            "",
            f"`{document['command']}`, {document['seconds']:.0f} s. Machine: {info['cpu']}, "
            f"{info['cores']} cores (load {info['load_average_1min']}), Python {info['python']}; "
            + ", ".join(f"{k} {v}" for k, v in info["libraries"].items() if v),
            "",
        ]
        names = list(dict.fromkeys(row.get("table", "results") for row in self.rows))
        for name in names:
            rows = [row for row in self.rows if row.get("table", "results") == name]
            lines += [f"## {name}", "", *markdown_table(rows), ""]
        lines += [*self.sections, ""] if self.sections else []
        lines += [*(f"- {note}" for note in self.notes), ""]
        lines += [f"![{name}]({name})" for name in self.figures]
        return "\n".join(lines) + "\n"


def markdown_table(rows: Sequence[dict[str, Any]]) -> list[str]:
    """A Markdown table of ``rows`` (the union of their keys, ``table`` left out)."""
    columns = [c for c in dict.fromkeys(key for row in rows for key in row) if c != "table"]
    if not columns:
        return []
    return [
        "| " + " | ".join(columns) + " |",
        "|" + "---|" * len(columns),
        *("| " + " | ".join(_fmt(row.get(c, "")) for c in columns) + " |" for row in rows),
    ]


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, list | tuple):
        return ", ".join(_fmt(item) for item in value)
    return str(value)


def cached(directory: Path, key: str, quick: bool, compute: Callable[[], dict]) -> dict:
    """``compute()``, or its result stored under ``key`` in ``directory`` by an earlier full run
    (quick runs neither read nor write the cache: their numbers mean nothing)."""
    path = directory / (key.replace(" ", "_").replace("/", "-").replace("|", "") + ".json")
    if not quick and path.is_file():
        return dict(json.loads(path.read_text()))
    result = compute()
    if not quick:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result))
    return result
