"""What binding packs to verified bytes costs: load time and peak RSS of each bundled pack.

Since issue 14 a pack's files are read once into private memory, hashed there and parsed from there
(no memory map of the file), and ONNX models are handed to onnxruntime as bytes. Each row is a fresh
process that loads one bundled pack and uses it once (BRR on one word, DeepCandidate on one
sentence, ADePT on one sentence), with its own peak RSS (VmHWM); baseline: a process that only
imports edgedp, numpy, FAISS and onnxruntime, measured in the same run (``extra_rss_mb``).

Run: ``python -m bench pack-loading [--quick]``.
"""

from __future__ import annotations

from bench.harness import Report, median_python

BASELINE = "import edgedp, numpy, faiss, onnxruntime, edgedp.packs.loading"
LOAD = """
import time, edgedp
start = time.perf_counter()
pack = edgedp.load_pack({name!r})
loaded = time.perf_counter() - start
{use}
print(loaded)
"""
USES = {
    "words-small": "edgedp.BRR(pack, epsilon=1.0).privatize('hello world')",
    "sentences-bbc": "edgedp.DeepCandidate(pack, epsilon=5.0).embed('Markets fell today.')",
    "adept-bbc": "edgedp.ADePT(pack, epsilon=50.0).privatize('Markets fell today.')",
}
TABLE = "bundled packs: load time and peak RSS of a process that loads and uses one"


def run(report: Report, *, quick: bool) -> None:
    repeats = 1 if quick else 3
    base = median_python(["-c", BASELINE], repeats=repeats, warmup=not quick)
    for name, use in USES.items():
        child = median_python(
            ["-c", LOAD.format(name=name, use=use)], repeats=repeats, warmup=not quick
        )
        report.add(
            table=TABLE,
            pack=name,
            load_s=float(child.stdout.decode().strip().splitlines()[-1]),
            process_s=child.seconds,
            peak_rss_mb=child.peak_rss_mb,
            baseline_rss_mb=base.peak_rss_mb,
            extra_rss_mb=child.peak_rss_mb - base.peak_rss_mb,
        )
    report.notes.append(
        "baseline: a process that imports edgedp, numpy, FAISS and onnxruntime and loads nothing; "
        "load_s is load_pack alone (read, hash, parse), process_s the whole process."
    )
