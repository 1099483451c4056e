"""Memory: peak RSS of every CLI path, asset sizes, and how both grow with vocabulary and input.

Peak RSS is the process's own ``VmHWM`` (see ``bench/performance/peak_rss.py``), median of fresh processes
after a warm-up run, each with one thread. Baselines measured in the same run: a process that only
imports the runtime libraries the path needs (``ratio``).

* CLI paths on the same BBC News text: ``edgedp privatize`` with every word mechanism (BRR on the
  bundled pack and on ``medium``; the Euclidean mechanisms on ``medium``, the bundled pack's 100k
  words plus float16 vectors), ``edgedp embed`` (DeepCandidate) and ``edgedp privatize --mechanism
  adept``;
* asset sizes: every file of every pack, and the float32 Euclidean index built in memory at first
  use (float16 vectors are widened for FAISS);
* growth: BRR and Madlib CLI peak RSS on 10k / 100k / 336k-word packs; BRR and ``embed`` peak RSS
  against the input size (both stream their input: it should stay flat).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np

import edgedp
from bench.datasets import bbc_documents
from bench.harness import ChildRun, Report, figure, median_python, plot_lines, progress
from bench.packs import GROWTH, ensure_pack, is_built, pack_bytes
from bench.utility.word_roster import ROSTER, cli_command, usable
from edgedp.text.sentences import split_sentences

TARGETS = {"words_peak_rss_mb": 120, "embed_peak_rss_mb": 250}
#: Issue 17's lean-runtime targets, against floors measured in the same run.
FLOOR = "import numpy, faiss"
BRR_OVER_FLOOR = 1.3
IMPORT_SECONDS = 0.25
IMPORT_TIMER = "import time; t = time.perf_counter(); import {}; print(time.perf_counter() - t)"
WORD_LIBRARIES = "import numpy, faiss, tokenizers"
SENTENCE_LIBRARIES = "import numpy, faiss, tokenizers, onnxruntime"
INPUT_KB = (10, 100, 1000, 5000)
EMBED_DOCUMENTS = (5, 20, 80)


def _embed_command(path: Path) -> list[str]:
    embed = ["-m", "edgedp.cli", "embed", "--input", "jsonl", "--epsilon", "10"]
    return [*embed, "--threads", "1", str(path)]


def _jsonl(path: Path, texts: list[str]) -> Path:
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
    return path


def measure(argv: list[str], quick: bool, stdin: bytes = b"") -> ChildRun:
    """Median of 3 fresh processes after a warm-up; ``quick``: one process, no warm-up."""
    return median_python(argv, repeats=1 if quick else 3, stdin=stdin, warmup=not quick)


def cli_rows(report: Report, pack: edgedp.WordPack, texts: list[str], quick: bool) -> None:
    corpus = ("\n".join(texts[: 20 if quick else 300]) + "\n").encode()
    sentences = [s for t in texts[:40] for s in split_sentences(t)][: 40 if quick else 200]
    words = measure(["-c", WORD_LIBRARIES], quick)
    onnx = measure(["-c", SENTENCE_LIBRARIES], quick)
    runs: dict[str, tuple[ChildRun, ChildRun, str]] = {}
    jobs = [("BRR (bundled pack)", cli_command(ROSTER[0], None), corpus, words)]
    jobs += [
        (f"{spec.label} ({pack.name} pack)", cli_command(spec, pack), corpus, words)
        for spec in ((ROSTER[1],) if quick else usable(pack))
    ]
    adept = ["-m", "edgedp.cli", "privatize", "--mechanism", "adept", "--epsilon", "100"]
    jobs.append(
        ("ADePT (adept-bbc pack)", [*adept, "--threads", "1"], "\n".join(sentences).encode(), onnx)
    )
    with tempfile.TemporaryDirectory() as scratch:
        documents = _jsonl(Path(scratch) / "documents.jsonl", texts[: 5 if quick else 40])
        jobs.append(
            ("embed: DeepCandidate (sentences-bbc pack)", _embed_command(documents), b"", onnx)
        )
        for label, argv, stdin, baseline in progress(jobs, "CLI peak RSS"):
            run = measure(argv, quick, stdin)
            runs[label] = (run, baseline, f"{len(stdin) / 1e3:.0f} kB" if stdin else "40 docs")
    for label, (run, baseline, given) in runs.items():
        report.add(
            table="peak RSS of each CLI path (1 thread)",
            path=label,
            input=given,
            peak_rss_mb=run.peak_rss_mb,
            seconds=run.seconds,
            baseline_libraries_mb=baseline.peak_rss_mb,
            ratio=run.peak_rss_mb / baseline.peak_rss_mb,
        )
    report.notes.append(
        f"baselines: `python -c '{WORD_LIBRARIES}'` for word mechanisms, `python -c "
        f"'{SENTENCE_LIBRARIES}'` for embed and ADePT; targets: word CLI <= "
        f"{TARGETS['words_peak_rss_mb']} MB, embed <= {TARGETS['embed_peak_rss_mb']} MB."
    )


USED_BY = {
    ("words", "vocab.txt"): "every word mechanism",
    ("words", "codes.npy"): "BRR, Vickrey-Hamming",
    ("words", "vectors.npy"): "Madlib, Mahalanobis, Vickrey",
    ("words", "covariance.npy"): "Mahalanobis",
    ("sentences", "encoder.onnx"): "DeepCandidate, Truncation (sentence encoder)",
    ("sentences", "tokenizer.json"): "DeepCandidate, Truncation",
    ("sentences", "recoder.onnx"): "DeepCandidate",
    ("sentences", "candidates.npy"): "DeepCandidate",
    ("sentences", "projections.npy"): "DeepCandidate",
    ("sentences", "truncation_box.npy"): "Truncation",
    ("autoencoder", "encoder.onnx"): "ADePT",
    ("autoencoder", "decoder_step.onnx"): "ADePT",
    ("autoencoder", "vocab.txt"): "ADePT (WordPiece vocabulary)",
}


def asset_rows(report: Report, quick: bool) -> None:
    packs = [edgedp.load_pack(name) for name in ("words-small", "sentences-bbc", "adept-bbc")]
    for name in ("quick",) if quick else ("10k", "medium", "full", "mldp300", "opinion-lexicon"):
        if is_built(name):
            packs.append(ensure_pack(name))
    for pack in packs:
        files = pack.manifest.data["files"]
        for file, entry in sorted(files.items(), key=lambda item: -item[1]["bytes"]):
            report.add(
                table="asset sizes",
                pack=pack.name,
                file=file,
                megabytes=entry["bytes"] / 2**20,
                used_by=USED_BY.get((pack.kind, file), ""),
            )
        vectors = getattr(pack, "vectors", None)
        if vectors is not None:
            report.add(
                table="asset sizes",
                pack=pack.name,
                file="(in memory) float32 Euclidean search index, built at first use",
                megabytes=int(np.prod(vectors.shape)) * 4 / 2**20,
                used_by="Madlib, Mahalanobis, Vickrey",
            )
        report.add(
            table="pack totals", pack=pack.name, kind=pack.kind, megabytes=pack_bytes(pack) / 2**20
        )


def vocabulary_growth(report: Report, texts: list[str], quick: bool) -> None:
    corpus = ("\n".join(texts[: 10 if quick else 100]) + "\n").encode()
    series = {"5k (quick)": "quick"} if quick else GROWTH
    for size, name in series.items():
        pack = ensure_pack(name)
        for spec in progress(ROSTER[:2], f"vocabulary {size}"):
            run = measure(cli_command(spec, pack), quick, corpus)
            report.add(
                table="growth with vocabulary size: CLI peak RSS",
                vocabulary=len(pack.vocabulary),
                mechanism=spec.label,
                peak_rss_mb=run.peak_rss_mb,
                seconds=run.seconds,
                pack_mb=pack_bytes(pack) / 2**20,
            )


def input_growth(report: Report, texts: list[str], quick: bool) -> None:
    corpus = "\n".join(texts)
    for kilobytes in INPUT_KB[:1] if quick else INPUT_KB:
        data = (corpus * (1 + kilobytes * 1000 // len(corpus)))[: kilobytes * 1000].encode()
        run = measure(cli_command(ROSTER[0], None), quick, data)
        report.add(
            table="growth with input size: CLI peak RSS (streaming)",
            path="privatize BRR (bundled)",
            input_kb=kilobytes,
            peak_rss_mb=run.peak_rss_mb,
            seconds=run.seconds,
        )
    with tempfile.TemporaryDirectory() as scratch:
        for count in EMBED_DOCUMENTS[:1] if quick else EMBED_DOCUMENTS:
            path = _jsonl(Path(scratch) / f"{count}.jsonl", (texts * 10)[:count])
            run = measure(_embed_command(path), quick)
            report.add(
                table="growth with input size: CLI peak RSS (streaming)",
                path="embed DeepCandidate",
                input_kb=round(path.stat().st_size / 1e3),
                documents=count,
                peak_rss_mb=run.peak_rss_mb,
                seconds=run.seconds,
            )


def _import_seconds(module: str, repeats: int) -> float:
    """Median in-process time of ``import module`` in fresh processes (interpreter start excluded)."""
    times = [
        float(median_python(["-c", IMPORT_TIMER.format(module)], repeats=1).stdout)
        for _ in range(repeats)
    ]
    return sorted(times)[len(times) // 2]


def runtime_rows(report: Report, texts: list[str], quick: bool) -> None:
    """The lean runtime against its floors: BRR CLI and embed peak RSS, ``import edgedp`` time."""
    corpus = ("\n".join(texts[: 20 if quick else 300]) + "\n").encode()
    floor = measure(["-c", FLOOR], quick)
    brr = measure(cli_command(ROSTER[0], None), quick, corpus)
    rows = [
        (f"floor: python -c '{FLOOR}'", floor, None),
        ("edgedp privatize --mechanism brr (bundled pack)", brr, f"<= {BRR_OVER_FLOOR} x floor"),
    ]
    if not quick:  # --quick measures embed once, in cli_rows
        with tempfile.TemporaryDirectory() as scratch:
            documents = _jsonl(Path(scratch) / "documents.jsonl", texts[:40])
            embed = measure(_embed_command(documents), quick)
        rows.append(("edgedp embed (DeepCandidate, sentences-bbc)", embed, "<= 250 MB"))
    for label, run, target in rows:
        report.add(
            table="lean runtime: peak RSS against the floor (1 thread)",
            path=label,
            peak_rss_mb=run.peak_rss_mb,
            ratio_to_floor=run.peak_rss_mb / floor.peak_rss_mb,
            target=target or "",
        )
    repeats = 1 if quick else 9
    numpy_seconds = _import_seconds("numpy", repeats)
    edgedp_seconds = _import_seconds("edgedp", repeats)
    for module, seconds in (("numpy", numpy_seconds), ("edgedp", edgedp_seconds)):
        report.add(
            table="lean runtime: import time (median of fresh processes)",
            statement=f"import {module}",
            seconds=seconds,
            ratio_to_numpy=seconds / numpy_seconds,
            target=f"< {IMPORT_SECONDS} s" if module == "edgedp" else "",
        )


def run(report: Report, *, quick: bool) -> None:
    pack = ensure_pack("quick" if quick else "medium")
    texts = [text for _, text in bbc_documents()[:: 20 if quick else 5]]
    runtime_rows(report, texts, quick)
    cli_rows(report, pack, texts, quick)
    asset_rows(report, quick)
    vocabulary_growth(report, texts, quick)
    input_growth(report, texts, quick)
    _plot(report)


def _plot(report: Report) -> None:
    fig, axes = figure(1, 3, (17, 4.8))
    paths = report.table("peak RSS of each CLI path (1 thread)")
    positions = np.arange(len(paths))
    axes[0][0].barh(positions, [r["peak_rss_mb"] for r in paths], label="peak RSS")
    axes[0][0].barh(
        positions, [r["baseline_libraries_mb"] for r in paths], alpha=0.5, label="libraries alone"
    )
    axes[0][0].set_yticks(positions, [r["path"] for r in paths], fontsize=7)
    axes[0][0].invert_yaxis()
    axes[0][0].set(xlabel="MB", title="peak RSS per CLI path")
    vocabulary = report.table("growth with vocabulary size: CLI peak RSS")
    plot_lines(axes[0][1], vocabulary, "mechanism", "vocabulary", "peak_rss_mb")
    axes[0][1].set(xscale="log", xlabel="vocabulary size (words)", ylabel="MB")
    axes[0][1].set_title("CLI peak RSS vs vocabulary")
    sizes = report.table("growth with input size: CLI peak RSS (streaming)")
    plot_lines(axes[0][2], sizes, "path", "input_kb", "peak_rss_mb")
    axes[0][2].set(xscale="log", xlabel="input size (kB)", ylabel="peak RSS (MB)")
    axes[0][2].set_title("CLI peak RSS vs input size")
    for axis in axes[0]:
        axis.grid(alpha=0.3)
        axis.legend(fontsize=7)
    report.figures["memory.png"] = fig
