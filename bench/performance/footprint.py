"""Install footprint: wheel sizes and the installed size of the three typical installs.

Builds the runtime wheel (``pip wheel --no-deps .``) and the pack wheels (``edgedp-export wheel``),
then for each footprint creates a fresh venv (``python3 -m venv``), installs it from those wheels
plus the registry's dependencies, and measures the venv's disk usage (``du -sk``, what ``du -sh``
reports) and that the footprint works (``edgedp packs list`` + a BRR privatization, or ``embed``):

* words only: ``pip install edgedp-*.whl``
* documents: ``pip install "edgedp-*.whl[sentences]" edgedp_pack_encoder_minilm-*.whl
  edgedp_pack_sentences_bbc-*.whl``
* everything: documents + ``edgedp_pack_adept_bbc-*.whl``

Baseline in the same run: an empty venv (pip alone). Slow (three venvs, about 250 MB of wheels from
the package index or its cache): run by name, ``python -m bench footprint``.

First, from this checkout (issue 50, target 48 MB on the numpy tier): the peak RSS (the child's own
VmHWM, median of 3 fresh processes after a warm-up) of one chat message privatized with every
default, ``echo MESSAGE | python -m edgedp privatize --epsilon 0.5``, per runtime tier
(``EDGEDP_BACKEND=numpy`` and ``native``) with the default context decoding and with ``--decode
nearest``, beside each tier's floor (``import numpy``; numpy and FAISS's compiled core loaded as
the tier loads it, :mod:`edgedp.runtime.faiss_core`); its ``seconds``
is the cold start (a fresh process, one message). Then the warm latency per tier: p50 and p95 of
one message per call in a child pinned to one core, for ``BRR`` and ``Multilingual`` (which also
identifies the language) with each decoding, beside the exact search of the message's words alone
in the same child (the baseline; ``ratio_to_search``: its p50 over the call's).
``python -m bench.performance.footprint`` measures those two tables alone (seconds, no wheels).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.harness import ROOT, Report, median_python
from edgedp.languages.packs import installed_languages

FOOTPRINTS = {
    "words only": ("edgedp", []),
    "documents": ("edgedp[sentences]", ["encoder-minilm", "sentences-bbc"]),
    "everything": ("edgedp[sentences]", ["encoder-minilm", "sentences-bbc", "adept-bbc"]),
}
SMOKE = {
    "words only": "import edgedp; print(edgedp.BRR(edgedp.load_pack(), epsilon=0.5).privatize('hi'))",
    "documents": "import edgedp; p = edgedp.load_pack('sentences-bbc'); "
    "print(edgedp.DeepCandidate(p, epsilon=5).release('One. Two. Three.').index)",
    "everything": "import edgedp; print(edgedp.ADePT(edgedp.load_pack('adept-bbc'), "
    "epsilon=500).privatize('A test sentence.'))",
}


#: The message of issue 50's one-message footprint.
MESSAGE = b"hey maria, can you call dr. okafor at 555-0142 tmrw? we need the report by friday\n"
ONE_MESSAGE = ["-m", "edgedp", "privatize", "--epsilon", "0.5"]
TIERS = {
    "numpy": "import numpy",
    "native": "import numpy; from edgedp.runtime.faiss_core import library; library()",
}
DECODINGS = {"context (default)": [], "nearest": ["--decode", "nearest"]}
#: Issue 50's message in Spanish, released with the Spanish pack alone (``--language es``) and as
#: the default command releases it (``auto``: the default language's English pack is loaded too).
SPANISH = (
    "hola maría, ¿puedes llamar al dr. okafor al 555-0142 mañana? necesitamos el informe el "
    "viernes\n"
).encode()
SPANISH_RUNS = {"es, --language es": ["--language", "es"], "es, auto": []}
#: Issue 50's target for the numpy tier with every default, MB.
TARGET_MB = 48
#: Warm calls timed per row (after 20 untimed ones).
LATENCY_CALLS = 300
#: The child that times warm calls: argv = calls, message; prints {row: [p50, p95]} in ms.
LATENCY_CHILD = """
import json, os, re, sys, time
import numpy as np
if hasattr(os, "sched_setaffinity"):  # one core, the last this process may use
    os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
import edgedp
from edgedp.runtime.knn import knn_hamming
calls, message = int(sys.argv[1]), sys.argv[2]
pack = edgedp.load_pack()
def timed(function):
    for _ in range(20):
        function()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return [float(np.percentile(times, q)) * 1000 for q in (50, 95)]
ids = pack.vocabulary.ids(re.findall(r"[^\\W_]+", message.lower()))
queries = np.ascontiguousarray(pack.codes[ids[ids >= 0]])
rows = {"search": timed(lambda: knn_hamming(queries, pack.codes, 1))}
for decode in ("nearest", "context"):
    brr = edgedp.BRR(pack, epsilon=0.5, decode=decode)
    routed = edgedp.Multilingual(edgedp.BRR, epsilon=0.5, decode=decode)
    rows["BRR " + decode] = timed(lambda: brr.privatize(message))
    rows["Multilingual " + decode] = timed(lambda: routed.privatize(message))
print(json.dumps(rows))
"""


@contextmanager
def _tier(name: str) -> Iterator[None]:
    """``EDGEDP_BACKEND`` set to ``name`` for the children started inside."""
    before = os.environ.get("EDGEDP_BACKEND")
    os.environ["EDGEDP_BACKEND"] = name
    try:
        yield
    finally:
        if before is None:
            del os.environ["EDGEDP_BACKEND"]
        else:
            os.environ["EDGEDP_BACKEND"] = before


def one_message_rows(report: Report, *, quick: bool) -> None:
    """Peak RSS of one default message per tier and decoding (see the module docstring)."""
    repeats = 1 if quick else 3
    for tier, floor in TIERS.items():
        with _tier(tier):
            try:
                base = median_python(["-c", floor], repeats=repeats, warmup=not quick)
            except RuntimeError as error:  # the tier's libraries are not installed
                report.notes.append(f"{tier} tier not measured: {error}")
                continue
            runs = [(decoding, MESSAGE, flags) for decoding, flags in DECODINGS.items()]
            if "es" in installed_languages():
                runs += [(label, SPANISH, flags) for label, flags in SPANISH_RUNS.items()]
            for decoding, message, flags in runs:
                run = median_python(
                    [*ONE_MESSAGE, *flags], repeats=repeats, stdin=message, warmup=not quick
                )
                report.add(
                    table="one message, peak RSS (MB)",
                    tier=tier,
                    decode=decoding,
                    peak_rss_mb=run.peak_rss_mb,
                    floor_mb=base.peak_rss_mb,
                    over_floor_mb=run.peak_rss_mb - base.peak_rss_mb,
                    seconds=run.seconds,
                )
    report.notes.append(
        f"one message: `echo '{MESSAGE.decode().strip()}' | EDGEDP_BACKEND=TIER python "
        f"{' '.join(ONE_MESSAGE)} [--decode nearest]`, from this checkout; floor: the "
        f"tier's libraries imported alone; issue 50's target: {TARGET_MB} MB on the numpy tier "
        "with every default; rows `es, ...`: the message in Spanish (context decoding), with "
        "the Spanish pack alone and with `--language auto` (English's pack loaded at start too)"
    )


def warm_latency_rows(report: Report, *, quick: bool) -> None:
    """p50/p95 of one warm message per call, per tier (see the module docstring)."""
    message = MESSAGE.decode().strip()
    calls = 30 if quick else LATENCY_CALLS
    for tier in TIERS:
        with _tier(tier):
            try:
                printed = _run(sys.executable, "-c", LATENCY_CHILD, str(calls), message)
            except RuntimeError as error:
                report.notes.append(f"{tier} tier: warm latency not measured: {error}")
                continue
        rows = json.loads(printed)
        search_p50 = rows.pop("search")[0]
        for call, (p50, p95) in rows.items():
            report.add(
                table="warm latency, one message per call, one core (ms)",
                tier=tier,
                call=call,
                p50_ms=p50,
                p95_ms=p95,
                search_p50_ms=search_p50,
                ratio_to_search=search_p50 / p50,
            )
    report.notes.append(
        f"warm latency: {calls} calls after 20 untimed ones, in a child pinned to one core; "
        "search: the exact Hamming search of the message's words alone (the baseline); issue "
        "50's targets: p95 <= 5 ms nearest, <= 10 ms context on a quiet core"
    )


def _run(*argv: str | Path, cwd: Path | None = None, clean: bool = False) -> str:
    """Run a command; ``clean``: in a fresh venv, without this checkout on PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if not (clean and k == "PYTHONPATH")}
    result = subprocess.run(
        [str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    if result.returncode:
        raise RuntimeError(f"{' '.join(map(str, argv))} failed:\n{result.stderr[-3000:]}")
    return result.stdout


def _du_mb(path: Path) -> float:
    return int(_run("du", "-sk", path).split()[0]) / 1024


def build_wheels(out: Path) -> dict[str, Path]:
    """The runtime wheel and the three pack wheels, by name."""
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, ROOT)
    names = ("encoder-minilm", "sentences-bbc", "adept-bbc")
    packs = [ROOT / "assets" / name for name in names]
    _run(sys.executable, "-m", "edgedp_export.cli", "wheel", *packs, "--out", out)
    wheels = {"edgedp": next(out.glob("edgedp-*.whl"))}
    for name in names:
        wheels[name] = next(out.glob(f"edgedp_pack_{name.replace('-', '_')}-*.whl"))
    return wheels


def run(report: Report, *, quick: bool) -> None:
    one_message_rows(report, quick=quick)
    warm_latency_rows(report, quick=quick)
    with tempfile.TemporaryDirectory(prefix="edgedp-footprint-") as scratch:
        scratch_dir = Path(scratch)
        wheels = build_wheels(scratch_dir / "dist")
        for name, wheel in wheels.items():
            report.add(
                table="wheel sizes", distribution=name, wheel=wheel.name,
                megabytes=wheel.stat().st_size / 2**20,
            )  # fmt: skip
        empty = scratch_dir / "empty"
        _run("python3", "-m", "venv", empty)
        baseline = _du_mb(empty)
        for label, (requirement, packs) in FOOTPRINTS.items():
            if quick and label != "words only":
                continue
            venv = scratch_dir / label.replace(" ", "-")
            _run("python3", "-m", "venv", venv)
            runtime = str(wheels["edgedp"]) + requirement.removeprefix("edgedp")
            pip = (venv / "bin" / "pip", "install", "-q")
            _run(*pip, runtime, *(wheels[p] for p in packs), clean=True)
            listed = _run(venv / "bin" / "edgedp", "packs", "list", cwd=scratch_dir, clean=True)
            _run(venv / "bin" / "python", "-c", SMOKE[label], cwd=scratch_dir, clean=True)
            report.add(
                table="installed size of fresh venvs (du)",
                footprint=label,
                install=f"pip install {requirement} {' '.join(packs)}".strip(),
                venv_mb=_du_mb(venv),
                over_empty_venv_mb=_du_mb(venv) - baseline,
                packs=", ".join(line.split("\t")[0] for line in listed.splitlines()),
            )
        report.notes.append(
            f"empty venv (python3 -m venv, pip only): {baseline:.1f} MB; sizes by du -sk; the "
            "smoke run of each footprint privatizes or embeds one text with its packs"
        )


if __name__ == "__main__":
    one_message = Report("footprint-one-message", quick="--quick" in sys.argv)
    one_message_rows(one_message, quick=one_message.quick)
    warm_latency_rows(one_message, quick=one_message.quick)
    print(one_message.write(ROOT / "bench" / "results"))
