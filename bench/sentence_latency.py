"""DeepCandidate speed and memory: mechanism step, encoder throughput, peak RSS, pack size.

Baselines measured in the same run:
* mechanism step (approximate Tukey depth + exponential-mechanism sampling) vs the appendix's
  O(m k p) computation done by numpy broadcasting (``ratio_vs_naive``);
* encoder throughput (ONNX, shipped int8-weight model, fp32 compute), batched and one sentence per
  run (what the DP mechanisms do, so that each embedding depends on its own sentence only), vs the
  torch reference of the same model (transformers + mean pooling + normalize, batches of 32, same
  thread count) when torch is installed;
* peak RSS of ``edgedp embed`` vs a process that only imports numpy, onnxruntime and tokenizers.

The latency target (issue 5) is stated for m = 5000 candidates, k = 20 sentences, p = 100
projections on one thread: the bundled pack has fewer candidates, so a synthetic candidate set of
that size is used (depth computation does not depend on what the candidates are). Single-thread
rows limit BLAS with threadpoolctl when it is installed (bench/requirements.txt).
"""

from __future__ import annotations

import contextlib
import json
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np

import edgedp
from bench.datasets import bbc_documents
from bench.harness import Report, median_python, median_seconds
from edgedp.noise import exponential_mechanism_coefficient
from edgedp.sentences import split_sentences
from edgedp.tukey import CandidateDepth

TARGETS = {"mechanism_ms": 2.0, "sentences_per_s": 250, "peak_rss_mb": 300, "pack_mb": 35}
PACK = "sentences-bbc"


@contextlib.contextmanager
def blas_threads(count: int) -> Iterator[None]:
    """Limit BLAS threads (numpy matrix products) if threadpoolctl is available."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    with threadpool_limits(limits=count, user_api="blas"):
        yield


def naive_depths(points: np.ndarray, candidates: np.ndarray, projections: np.ndarray) -> np.ndarray:
    """The appendix's O(m k p) computation with numpy broadcasting (the baseline)."""
    sentences = projections @ points.T  # (p, k)
    values = projections @ candidates.T  # (p, m)
    above = (sentences[:, None, :] >= values[:, :, None]).sum(axis=2)
    below = (sentences[:, None, :] <= values[:, :, None]).sum(axis=2)
    return np.minimum(above, below).min(axis=0)


def _mechanism_rows(report: Report, pack: edgedp.SentencePack, quick: bool) -> None:
    rng = np.random.default_rng(0)
    dims = pack.dims
    configs = [("synthetic", 5000, 20, 100)]
    configs.append(("bundled pack", len(pack.candidates), 20, pack.projections_for(10.0)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        source = edgedp.RandomSource.seeded(0)
    coefficient = exponential_mechanism_coefficient(10.0, 1.0)
    for label, m, k, p in configs:
        if label == "synthetic":
            candidates = rng.standard_normal((m, dims)).astype(np.float32)
            projections = rng.standard_normal((p, dims))
            projections /= np.linalg.norm(projections, axis=1, keepdims=True)
            depth = CandidateDepth(candidates, projections)
        else:
            candidates, projections = np.asarray(pack.candidates), pack.projections[:p]
            depth = pack.candidate_depth.first(p)
        points = rng.standard_normal((k, dims)).astype(np.float32) * float(candidates.std())

        def step(depth: CandidateDepth = depth, points: np.ndarray = points) -> None:
            scores = coefficient * depth.depths(points)[None, :].astype(np.float64)
            source.choice_from_log_weights(scores)

        with blas_threads(1):
            seconds = median_seconds(step, repeats=20 if quick else 200, warmup=3)
            naive = median_seconds(
                lambda c=candidates, v=projections, x=points: naive_depths(x, c, v),
                repeats=3 if quick else 10,
            )
        report.add(
            measure=f"mechanism step ({label})",
            m=m,
            k=k,
            p=p,
            threads=1,
            ms_per_document=seconds * 1e3,
            ratio_vs_naive=naive / seconds,
            target_ms=TARGETS["mechanism_ms"],
        )


def _torch_encoder(sentences: list[str], threads: int):
    """The torch reference encoder as a callable, or None without torch."""
    try:
        import torch
        from edgedp_export.sbert_onnx import default_model_dir, torch_sentence_embeddings
    except ImportError:
        return None
    torch.set_num_threads(threads)
    model_dir = default_model_dir()
    return lambda: torch_sentence_embeddings(model_dir, sentences, batch_size=32)


def _encoder_rows(report: Report, sentences: list[str], quick: bool) -> None:
    for threads in (1, 2):
        edgedp.set_num_threads(threads)
        pack = edgedp.load_pack(PACK)  # a fresh session with this thread count
        reference = _torch_encoder(sentences, threads)
        torch_seconds = (
            None if reference is None else median_seconds(reference, repeats=1, warmup=1)
        )
        for independent in (False, True):
            seconds = median_seconds(
                lambda p=pack, i=independent: p.encoder.encode(sentences, independent=i),
                repeats=1 if quick else 3,
            )
            report.add(
                measure="encoder, one sentence per run (the DP path)"
                if independent
                else "encoder, batches of 32",
                threads=threads,
                sentences=len(sentences),
                sentences_per_s=len(sentences) / seconds,
                ratio_vs_torch=None if torch_seconds is None else torch_seconds / seconds,
                target_sentences_per_s=TARGETS["sentences_per_s"],
            )


def _memory_rows(report: Report, texts: list[str], quick: bool) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "documents.jsonl"
        path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
        argv = ["-m", "edgedp.cli", "embed", "--input", "jsonl", "--epsilon", "10", str(path)]
        run = median_python(argv, repeats=1 if quick else 3)
        baseline = median_python(
            ["-c", "import numpy, onnxruntime, tokenizers"], repeats=1 if quick else 3
        )
    report.add(
        measure="edgedp embed (CLI, deepcandidate)",
        documents=len(texts),
        seconds=run.seconds,
        peak_rss_mb=run.peak_rss_mb,
        ratio_vs_runtime_imports=run.peak_rss_mb / baseline.peak_rss_mb,
        target_mb=TARGETS["peak_rss_mb"],
    )


def run(report: Report, *, quick: bool) -> None:
    pack = edgedp.load_pack(PACK)
    documents = [text for _, text in bbc_documents()[:: 100 if quick else 20]]
    sentences = [s for text in documents for s in split_sentences(text)][: 64 if quick else 800]
    _mechanism_rows(report, pack, quick)
    _encoder_rows(report, sentences, quick)
    _memory_rows(report, documents[: 5 if quick else 40], quick)
    files = pack.manifest.data["files"]
    total = sum(entry["bytes"] for entry in files.values())
    report.add(
        measure="pack size", pack=PACK, megabytes=total / 2**20, target_mb=TARGETS["pack_mb"]
    )
    largest = sorted(files.items(), key=lambda item: -item[1]["bytes"])[:4]
    report.notes.append(
        "pack files: "
        + ", ".join(f"{name} {entry['bytes'] / 2**20:.2f} MB" for name, entry in largest)
    )
    report.notes.append(
        "The machine is shared (2 cores, other jobs running): absolute times drift; compare ratios."
    )
