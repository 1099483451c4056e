"""DeepCandidate's cost: the mechanism step, the encoder, and a whole document, measured apart.

Baselines measured in the same run:
* mechanism step (approximate Tukey depth + exponential-mechanism sampling) vs the appendix's
  O(m k p) computation done by numpy broadcasting (``ratio_vs_naive``);
* encoder throughput (ONNX, shipped int8-weight model, fp32 compute), batched and one sentence per
  run (what the DP mechanisms do, so that each embedding depends on its own sentence only), vs the
  torch reference of the same model (transformers + mean pooling + normalize, batches of 32, same
  thread count) when torch is installed (``ratio_vs_torch``).

The latency target (issue 5) is stated for m = 5000 candidates, k = 20 sentences, p = 100
projections on one thread: the bundled pack has fewer candidates, so a synthetic candidate set of
that size is used (depth computation does not depend on what the candidates are).
"""

from __future__ import annotations

import time
import warnings

import numpy as np

import edgedp
from bench.harness import Report, median_seconds, threads
from edgedp.documents.mechanism import sentence_embeddings
from edgedp.documents.tukey import CandidateDepth
from edgedp.encoder.pack import referenced_encoder_pack
from edgedp.encoder.sentence_encoder import SentenceEncoder
from edgedp.privacy.noise import exponential_mechanism_coefficient
from edgedp.text.sentences import split_sentences

TARGETS = {"mechanism_ms": 2.0, "sentences_per_s": 250}
PACK = "sentences-bbc"
SENTENCE_COUNTS = (2, 4, 8, 16, 32, 64)


def naive_depths(points: np.ndarray, candidates: np.ndarray, projections: np.ndarray) -> np.ndarray:
    """The appendix's O(m k p) computation with numpy broadcasting (the baseline)."""
    sentences = projections @ points.T  # (p, k)
    values = projections @ candidates.T  # (p, m)
    above = (sentences[:, None, :] >= values[:, :, None]).sum(axis=2)
    below = (sentences[:, None, :] <= values[:, :, None]).sum(axis=2)
    return np.minimum(above, below).min(axis=0)


def seeded(seed: int) -> edgedp.RandomSource:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        return edgedp.RandomSource.seeded(seed)


def mechanism_rows(report: Report, pack: edgedp.SentencePack, quick: bool) -> None:
    rng = np.random.default_rng(0)
    dims = pack.dims
    source = seeded(0)
    coefficient = exponential_mechanism_coefficient(10.0, 1.0)
    configs = [("synthetic", 5000, 20, 100)]
    configs.append(("bundled pack", len(pack.candidates), 20, pack.projections_for(10.0)))
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

        with threads(1):
            seconds = median_seconds(step, repeats=20 if quick else 200, warmup=3)
            naive = median_seconds(
                lambda c=candidates, v=projections, x=points: naive_depths(x, c, v),
                repeats=3 if quick else 10,
            )
        report.add(
            table="DeepCandidate mechanism step (1 thread)",
            candidates=label,
            m=m,
            k=k,
            p=p,
            ms_per_document=seconds * 1e3,
            ratio_vs_naive=naive / seconds,
            target_ms=TARGETS["mechanism_ms"],
        )


def _torch_encoder(sentences: list[str], count: int):
    """The torch reference encoder as a callable, or None without torch."""
    try:
        import torch
        from edgedp_export.sbert_onnx import default_model_dir, torch_sentence_embeddings
    except ImportError:
        return None
    torch.set_num_threads(count)
    model_dir = default_model_dir()
    return lambda: torch_sentence_embeddings(model_dir, sentences, batch_size=32)


#: Batched encoder settings compared: (label, most sentences, most tokens per call).
BATCHINGS = (
    ("batches of 32 (the default before 2026-11-23)", 32, 10**9),
    ("batches of <= 8 sentences and 512 tokens (default)", 8, 512),
)


def encoder_rows(report: Report, sentences: list[str], quick: bool) -> None:
    for count in (1,) if quick else (1, 2):
        with threads(count):
            pack = edgedp.load_pack(PACK)  # a fresh session with this thread count
            encoder_files = referenced_encoder_pack(pack.manifest).manifest
            reference = None if quick else _torch_encoder(sentences, count)
            torch_seconds = (
                None if reference is None else median_seconds(reference, repeats=1, warmup=1)
            )
            encoders = {
                label: SentenceEncoder(
                    encoder_files.contents("encoder.onnx"),
                    encoder_files.contents("tokenizer.json"),
                    dims=pack.dims,
                    max_seq_length=pack.encoder.max_seq_length,
                    threads=count,
                    batch_size=size,
                    batch_tokens=tokens,
                )
                for label, size, tokens in BATCHINGS
            }
            runs = {label: (lambda e=e: e.encode(sentences)) for label, e in encoders.items()}
            runs["one sentence per run (the DP path)"] = lambda p=pack: p.encoder.encode(
                sentences, independent=True
            )
            for measure, run in runs.items():
                seconds = median_seconds(run, repeats=1 if quick else 3)
                report.add(
                    table="sentence encoder throughput",
                    measure=measure,
                    threads=count,
                    sentences=len(sentences),
                    sentences_per_s=len(sentences) / seconds,
                    ratio_vs_torch=None if torch_seconds is None else torch_seconds / seconds,
                    target_sentences_per_s=TARGETS["sentences_per_s"],
                )


def document_costs(
    pack: edgedp.SentencePack, mechanism: edgedp.DeepCandidate, sentences: list[str], repeats: int
) -> tuple[float, float]:
    """(encoder seconds, mechanism seconds) for one document: encoder = encode + recode every
    sentence on its own; mechanism = depth of every candidate + the exponential-mechanism draw."""
    encode = median_seconds(
        lambda: sentence_embeddings(pack, [sentences], "recoded"), repeats=repeats
    )
    recoded = sentence_embeddings(pack, [sentences], "recoded")
    choose = median_seconds(lambda: mechanism.choose(recoded), repeats=repeats * 5)
    return encode, choose


def document_rows(report: Report, documents: list[str], quick: bool) -> None:
    """Per real BBC document, 1 thread: split, encoder and mechanism, each timed apart."""
    with threads(1):
        pack = edgedp.load_pack(PACK)
        mechanism = edgedp.DeepCandidate(pack, epsilon=10.0, rng=seeded(1))
        split, encode, choose, counts = [], [], [], []
        for document in documents:
            start = time.perf_counter()
            sentences = split_sentences(document)
            split.append(time.perf_counter() - start)
            encoder_s, mechanism_s = document_costs(pack, mechanism, sentences, 1)
            encode.append(encoder_s)
            choose.append(mechanism_s)
            counts.append(len(sentences))
    report.add(
        table="DeepCandidate per document (BBC News, 1 thread, median over documents)",
        documents=len(documents),
        median_sentences=float(np.median(counts)),
        split_ms=float(np.median(split)) * 1e3,
        encoder_ms=float(np.median(encode)) * 1e3,
        mechanism_ms=float(np.median(choose)) * 1e3,
        total_ms=float(np.median(np.add(np.add(split, encode), choose))) * 1e3,
        mechanism_share=float(np.median(choose) / np.median(np.add(encode, choose))),
    )


def growth_rows(report: Report, sentences: list[str], quick: bool) -> list[dict]:
    """Encoder and mechanism time vs the number of sentences k of a document (1 thread)."""
    rows = []
    with threads(1):
        pack = edgedp.load_pack(PACK)
        mechanism = edgedp.DeepCandidate(pack, epsilon=10.0, rng=seeded(2))
        for k in SENTENCE_COUNTS[:2] if quick else SENTENCE_COUNTS:
            encoder_s, mechanism_s = document_costs(
                pack, mechanism, sentences[:k], 1 if quick else 3
            )
            row = {
                "table": "growth with document length: DeepCandidate (1 thread)",
                "sentences": k,
                "encoder_ms": encoder_s * 1e3,
                "mechanism_ms": mechanism_s * 1e3,
            }
            report.add(**row)
            rows.append(row)
    return rows
