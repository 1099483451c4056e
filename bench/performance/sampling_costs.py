"""What the sampling word mechanisms (TEM, SanText, SanText+, CusText) cost on real vocabularies.

Batch throughput (words/s of one ``privatize_ids`` call over ``BATCH`` random vocabulary words,
median of ``REPEATS`` after a warm-up), the first call's extra time (lazy float64 distance table,
CusText's output-set mapping), TEM's mean candidate-set size |L_w| at the paper's gamma (beta
0.001), and the process's peak RSS growth over the pack alone (``VmHWM``, each row in a fresh
process so peaks do not mask each other). Baseline measured in the same run: BRR (Hamming) and
Madlib (Euclidean) on the same pack, with ratios. Packs: the bundled 100k-word binary pack (Hamming
rows) and ``mldp300`` (33,825 words, GloVe 840B 300d: Euclidean rows). One thread.
"""

from __future__ import annotations

import json
import subprocess
import sys

from bench.harness import ROOT, Report, child_env, progress, ratio
from bench.packs import ensure_pack

BATCH, QUICK_BATCH, REPEATS = 2000, 200, 3
#: (label, pack, mechanism, keyword arguments); "bundled" is the default 100k binary pack.
ROWS = (
    ("BRR (baseline)", "bundled", "brr", {"epsilon": 0.5}),
    ("TEM-Hamming eps 0.5/bit", "bundled", "tem", {"epsilon": 0.5, "space": "hamming"}),
    ("TEM-Hamming eps 2/bit", "bundled", "tem", {"epsilon": 2.0, "space": "hamming"}),
    ("CusText-Hamming k 20", "bundled", "custext", {"epsilon": 2.0, "k": 20, "space": "hamming"}),
    ("Madlib (baseline)", "mldp300", "madlib", {"epsilon": 20.0}),
    ("TEM eps 2", "mldp300", "tem", {"epsilon": 2.0}),
    ("TEM eps 20", "mldp300", "tem", {"epsilon": 20.0}),
    ("SanText eps 2", "mldp300", "santext", {"epsilon": 2.0}),
    ("SanText+ eps 2", "mldp300", "santext-plus", {"epsilon": 2.0}),
    ("CusText k 20", "mldp300", "custext", {"epsilon": 2.0, "k": 20}),
)
TABLE = "sampling mechanisms: batch throughput, first-call cost, peak RSS (1 thread)"

_CHILD = r"""
import json, sys, time, warnings
import numpy as np
import edgedp
from edgedp.registry import WORD_MECHANISMS

def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
settings = json.loads(sys.argv[1])
edgedp.set_num_threads(1)
pack = edgedp.load_pack(settings["pack"])
base = hwm()
warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
mechanism = WORD_MECHANISMS[settings["mechanism"]](pack, rng=0, **settings["kwargs"])
words = np.random.default_rng(1).integers(len(pack.vocabulary), size=settings["batch"])
start = time.perf_counter()
mechanism.privatize_ids(words[:10])
first = time.perf_counter() - start
times = []
for _ in range(settings["repeats"]):
    start = time.perf_counter()
    mechanism.privatize_ids(words)
    times.append(time.perf_counter() - start)
result = {"first_call_s": first, "words_per_s": len(words) / sorted(times)[len(times) // 2],
          "rss_growth_mb": hwm() - base, "vocabulary": len(pack.vocabulary)}
if settings["mechanism"] == "tem":
    result["gamma"] = mechanism.gamma
    result["covers_vocabulary"] = mechanism.covers_vocabulary
    if not mechanism.covers_vocabulary:
        lims, _, _ = mechanism.candidates(words[:200])
        result["mean_candidates"] = float(np.diff(lims).mean())
    else:
        result["mean_candidates"] = float(len(pack.vocabulary))
print(json.dumps(result))
"""


def run(report: Report, *, quick: bool) -> None:
    packs = {"bundled": None, "mldp300": str(ensure_pack("quick" if quick else "mldp300").path)}
    results = {}
    for label, pack, mechanism, kwargs in progress(ROWS, "sampling costs"):
        settings = {
            "pack": packs[pack],
            "mechanism": mechanism,
            "kwargs": kwargs,
            "batch": QUICK_BATCH if quick else BATCH,
            "repeats": 1 if quick else REPEATS,
        }
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, json.dumps(settings)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=child_env(1),
            check=False,
        )
        if done.returncode:
            report.notes.append(f"{label}: failed ({done.stderr.strip().splitlines()[-1:]})")
            continue
        results[label] = (pack, json.loads(done.stdout.strip().splitlines()[-1]))
    baselines = {"bundled": "BRR (baseline)", "mldp300": "Madlib (baseline)"}
    for label, (pack, result) in results.items():
        baseline = results.get(baselines[pack], (None, None))[1]
        report.add(
            table=TABLE,
            mechanism=label,
            pack=f"{pack} ({result['vocabulary']:,} words)",
            words_per_s=result["words_per_s"],
            baseline_over_this_x=ratio(baseline and baseline["words_per_s"], result["words_per_s"]),
            first_call_s=result["first_call_s"],
            rss_growth_mb=result["rss_growth_mb"],
            gamma=result.get("gamma"),
            mean_candidates=result.get("mean_candidates"),
        )
    report.notes.append(
        "baseline_over_this_x: the baseline's words/s (BRR on the bundled pack, Madlib on mldp300) "
        "over this row's; first_call_s includes the lazy float64 table (Euclidean) and CusText's "
        "mapping; rss_growth_mb: peak RSS of the process beyond what loading the pack took."
    )
