"""What the sampling word mechanisms (TEM, SanText, SanText+, CusText) cost against BRR (issue 25).

Words/s of one ``privatize_ids`` call on one thread, **on the same words as BRR, in the same
process**: each child process times BRR and the row's mechanism alternately (``REPEATS`` times
after a warm-up) and reports the median of each and their ratio (mechanism words/s over BRR's;
issue 25's target is >= 0.5 at every epsilon). Two inputs:

* ``text``: the vocabulary words of real BBC News articles in order (``TEXT_WORDS`` words; they
  repeat as words of any text do, and the samplers compute their near sets once per distinct word
  of a batch),
* ``random``: uniformly random vocabulary words (almost no repeats: every word pays its near set).

Packs: ``words-small`` (Hamming rows) and ``medium`` (the same codes with float16 vectors, the
neighbour table and the CusText sets of ``edgedp-export words --from-pack words-small``: Euclidean
rows); BRR runs on the row's pack (same codes, same speed). Also per row: ``first_call_s``
(construction and a first release of 10 words: loading stored sets, a distance table, the Hamming
radius) and the peak RSS growth over loading the pack.
"""

from __future__ import annotations

import json
import subprocess
import sys

from bench.harness import ROOT, Report, child_env, progress
from bench.packs import ensure_pack

TEXT_WORDS, RANDOM_WORDS, REPEATS = 10_000, 2_000, 3
QUICK = {"text": 2_000, "random": 500, "repeats": 1}
BRR_EPSILON = 0.6
#: (label, pack, mechanism, keyword arguments, epsilons)
#: From near-uniform output to near-identity: the rejection rounds peak in the middle.
HAMMING_EPSILONS = (0.01, 0.05, 0.1, 0.2, 0.35, 0.5, 1.0, 3.0, 10.0)
EUCLIDEAN_EPSILONS = (0.1, 1.0, 2.0, 3.0, 4.0, 6.0, 10.0, 20.0, 50.0, 200.0)
ROWS = (
    ("TEM-Hamming", "words-small", "tem", {"geometry": "hamming"}, HAMMING_EPSILONS),
    ("CusText-Hamming k 20", "words-small", "custext", {"geometry": "hamming"}, (1.0, 3.0, 10.0)),
    ("TEM", "medium", "tem", {}, EUCLIDEAN_EPSILONS),
    ("SanText", "medium", "santext", {}, EUCLIDEAN_EPSILONS),
    ("SanText+ (p 0.3, w 0.9)", "medium", "santext-plus", {}, EUCLIDEAN_EPSILONS),
    ("CusText k 20", "medium", "custext", {}, (1.0, 3.0, 10.0)),
)
TABLE = "sampling mechanisms against BRR: words/s, 1 thread, same words, same process"

_CHILD = r"""
import json, sys, time, warnings
import numpy as np
import edgedp
from bench.datasets import bbc_documents
from edgedp.registry import WORD_MECHANISMS
from edgedp.text.segmentation import segment

def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
settings = json.loads(sys.argv[1])
edgedp.set_num_threads(1)
pack = edgedp.load_pack(settings["pack"])
base = hwm()
warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
if settings["input"] == "text":
    ids = []
    for _, text in bbc_documents():
        found = pack.vocabulary.ids(segment(text, ()).words)
        ids.extend(found[found >= 0].tolist())
        if len(ids) >= settings["words"]:
            break
    words = np.asarray(ids[: settings["words"]], dtype=np.int64)
else:
    words = np.random.default_rng(1).integers(len(pack.vocabulary), size=settings["words"])
brr = WORD_MECHANISMS["brr"](pack, epsilon=settings["brr_epsilon"])
start = time.perf_counter()
mechanism = WORD_MECHANISMS[settings["mechanism"]](pack, **settings["kwargs"])
mechanism.privatize_ids(words[:10])
first = time.perf_counter() - start
brr.privatize_ids(words[:10])
times = {"brr": [], "mechanism": []}
for _ in range(settings["repeats"]):
    for name, chosen in (("brr", brr), ("mechanism", mechanism)):
        start = time.perf_counter()
        chosen.privatize_ids(words)
        times[name].append(time.perf_counter() - start)
rate = {name: len(words) / sorted(t)[len(t) // 2] for name, t in times.items()}
result = {"first_call_s": first, "words_per_s": rate["mechanism"], "brr_words_per_s": rate["brr"],
          "rss_growth_mb": hwm() - base, "distinct": int(len(np.unique(words))), "words": len(words)}
if settings["mechanism"] == "tem":
    result["gamma"] = mechanism.gamma
    if mechanism.geometry == "hamming":
        result["radius"] = mechanism.radius
print(json.dumps(result))
"""


def _measure(settings: dict[str, object]) -> dict[str, float] | str:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(settings)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=child_env(1),
        check=False,
    )
    if done.returncode:
        return (done.stderr.strip().splitlines() or ["no output"])[-1]
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run(report: Report, *, quick: bool) -> None:
    medium = ensure_pack("quick" if quick else "medium")
    paths = {
        "words-small": str(medium.path) if quick else "words-small",
        "medium": str(medium.path),
    }
    cases = [
        (label, pack, mechanism, {**kwargs, "epsilon": epsilon}, source)
        for label, pack, mechanism, kwargs, epsilons in ROWS
        for epsilon in (epsilons[:1] if quick else epsilons)
        for source in ("text", "random")
    ]
    for label, pack, mechanism, kwargs, source in progress(cases, "sampling costs"):
        sizes = {"text": TEXT_WORDS, "random": RANDOM_WORDS}
        result = _measure(
            {
                "pack": paths[pack],
                "mechanism": mechanism,
                "kwargs": kwargs,
                "input": source,
                "words": QUICK[source] if quick else sizes[source],
                "repeats": QUICK["repeats"] if quick else REPEATS,
                "brr_epsilon": BRR_EPSILON,
            }
        )
        if isinstance(result, str):
            report.notes.append(f"{label} epsilon {kwargs['epsilon']} {source}: failed ({result})")
            continue
        report.add(
            table=TABLE,
            mechanism=label,
            pack="quick" if quick else pack,
            epsilon=kwargs["epsilon"],
            input=f"{source} ({result['distinct']:,} distinct of {result['words']:,})",
            words_per_s=round(result["words_per_s"]),
            brr_words_per_s=round(result["brr_words_per_s"]),
            ratio_to_brr=round(result["words_per_s"] / result["brr_words_per_s"], 2),
            first_call_s=round(result["first_call_s"], 2),
            rss_growth_mb=round(result["rss_growth_mb"], 1),
            gamma=result.get("gamma"),
            hamming_radius=result.get("radius"),
        )
        print(
            f"   {label} eps {kwargs['epsilon']} {source}: {result['words_per_s']:,.0f} words/s, "
            f"{result['words_per_s'] / result['brr_words_per_s']:.2f} x BRR",
            flush=True,
        )
    report.notes.append(
        "ratio_to_brr: the mechanism's words/s over BRR's (epsilon 0.6 per bit) on the same words, "
        "medians of alternating timings in one process, 1 thread (issue 25: >= 0.5). Epsilons: per "
        "bit for the Hamming rows. first_call_s: construction and a first release of 10 words."
    )
