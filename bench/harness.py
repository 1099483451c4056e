"""Timing, memory and reporting helpers shared by the benchmark suites."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

LIBRARIES = ("edgedp", "numpy", "faiss-cpu", "onnxruntime", "tokenizers")


def machine() -> dict[str, Any]:
    """CPU model, core count, Python and library versions: the context of every figure."""
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
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
        env = {**os.environ, "EDGEDP_BENCH_RSS_FILE": str(rss_file)}
        start = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-m", "bench.peak_rss", *argv],
            input=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            check=False,
        )
        seconds = time.perf_counter() - start
        if result.returncode:
            raise RuntimeError(f"python {' '.join(argv)} exited with {result.returncode}")
        return ChildRun(seconds, int(rss_file.read_text()) / 1024, result.stdout)


def median_python(argv: list[str], *, repeats: int, stdin: bytes = b"") -> ChildRun:
    """Median time and median peak RSS of ``repeats`` fresh processes (after one warm-up)."""
    run_python(argv, stdin)
    runs = [run_python(argv, stdin) for _ in range(repeats)]
    return ChildRun(
        statistics.median(run.seconds for run in runs),
        statistics.median(run.peak_rss_mb for run in runs),
        runs[-1].stdout,
    )


@dataclass
class Report:
    """Results of one suite: rows of figures plus free-form notes, written as JSON + Markdown."""

    suite: str
    quick: bool
    rows: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)  # file name -> matplotlib figure

    def add(self, **row: Any) -> None:
        self.rows.append(row)
        print("  " + ", ".join(f"{key}={_fmt(value)}" for key, value in row.items()), flush=True)

    def write(self, out: Path) -> Path:
        out.mkdir(parents=True, exist_ok=True)
        document = {
            "suite": self.suite,
            "quick": self.quick,
            "machine": machine(),
            "command": " ".join([Path(sys.executable).name, "-m", "bench", *sys.argv[1:]]),
            "rows": self.rows,
            "notes": self.notes,
        }
        (out / f"{self.suite}.json").write_text(json.dumps(document, indent=2) + "\n")
        for name, figure in self.figures.items():
            figure.savefig(out / name, dpi=110)
        (out / f"{self.suite}.md").write_text(self.markdown(document))
        return out / f"{self.suite}.md"

    def markdown(self, document: dict[str, Any]) -> str:
        info = document["machine"]
        lines = [
            f"# bench: {self.suite}{' (quick)' if self.quick else ''}",
            "",
            f"Machine: {info['cpu']}, {info['cores']} cores, Python {info['python']}; "
            + ", ".join(f"{k} {v}" for k, v in info["libraries"].items() if v),
            "",
        ]
        columns = list(dict.fromkeys(key for row in self.rows for key in row))
        if columns:
            lines += ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
            lines += [
                "| " + " | ".join(_fmt(row.get(c, "")) for c in columns) + " |" for row in self.rows
            ]
        lines += ["", *(f"- {note}" for note in self.notes), ""]
        lines += [f"![{name}]({name})" for name in self.figures]
        return "\n".join(lines)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)
