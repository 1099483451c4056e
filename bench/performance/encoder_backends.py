"""Sentence encoder tiers: numpy alone vs onnxruntime + tokenizers, one thread, same run.

Each tier encodes the same BBC News sentences (the DP path: one sentence per call,
``independent=True``) in its own process with one BLAS/OpenMP thread, after a warm-up; the report
gives sentences/s (median of repeats), the ratio numpy / onnxruntime, and each process's peak RSS.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from bench.datasets import bbc_documents
from bench.harness import Report, child_env

_CHILD = """
import json, resource, sys, time
import edgedp
sentences = json.loads(sys.stdin.read())
pack = edgedp.load_pack("subspace-general", kind="subspace")
encoder = pack.encoder
encoder.encode(sentences[:8], independent=True)  # warm-up: session or weights built
rates = []
for _ in range(int(sys.argv[1])):
    start = time.perf_counter()
    encoder.encode(sentences, independent=True)
    rates.append(len(sentences) / (time.perf_counter() - start))
rates.sort()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"tier": encoder.backend, "rate": rates[len(rates) // 2], "peak_mib": peak}))
"""


def sentences(count: int) -> list[str]:
    """``count`` BBC News sentences (lines of the first articles split at full stops)."""
    out: list[str] = []
    for _, text in bbc_documents():
        for line in text.split("\n")[2:]:
            out.extend(piece.strip() + "." for piece in line.split(". ") if len(piece) > 20)
        if len(out) >= count:
            return out[:count]
    return out


def measure(tier: str, texts: list[str], repeats: int) -> dict[str, float]:
    env = child_env(1, EDGEDP_BACKEND=tier)
    result = subprocess.run(
        [sys.executable, "-c", _CHILD, str(repeats)],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    measured: dict[str, float] = json.loads(result.stdout.splitlines()[-1])
    return measured


def run(report: Report, *, quick: bool) -> None:
    texts = sentences(20 if quick else 200)
    repeats = 1 if quick else 3
    rows = {tier: measure(tier, texts, repeats) for tier in ("native", "numpy")}
    ratio = rows["numpy"]["rate"] / rows["native"]["rate"]
    for tier, row in rows.items():
        report.add(
            table="encoder tiers",
            tier=tier,
            sentences=len(texts),
            sentences_per_s=round(row["rate"], 1),
            peak_rss_mib=round(row["peak_mib"], 1),
            load_average=round(os.getloadavg()[0], 2),
        )
    report.add(table="encoder tiers", tier="numpy / native", sentences_per_s=round(ratio, 3))
    report.notes.append(
        "one thread per process (child_env); the machine is shared, so the load average is shown"
    )
