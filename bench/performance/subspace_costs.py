"""SubspaceMean's cost beyond the encoder, and a subspace pack's build cost beyond encoding (issue 24).

``python -m bench subspace-costs`` (needs the cached domain embeddings of ``bench domains``, or
builds them):

* **Mechanism cost per document** (OS entropy, exact lattice noise; 1 thread):
  ``release_embeddings`` on precomputed sentence embeddings of k = 4, 12 and 24 sentences, one
  document per call (median of repeated calls) and batches of 100 documents, pure epsilon 10 at d' =
  4, 8 and 16 (the most the exact K-norm sampler serves) and the Gaussian (10, 1e-6) at d' = 64.
  Baseline in the same run: DeepCandidate's mechanism step on the bundled pack (depth of 1,509
  candidates over its projections + Gumbel-max), on the same number of sentences, recoded beforehand
  (the recoder is a further ONNX call per sentence). The encoder (one sentence per call, the DP
  path) is timed beside them for scale.
* **Pack build beyond encoding**: ``edgedp_export.subspace.subspace_contents`` (mean, directions,
  cross-fitted choice of d' and C, radii) on 10,000 public documents (the cached public domains,
  drawn with replacement to 10,000: timing only), and the encoder's batched throughput on their
  sentences, from which the encoding time is extrapolated.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

import edgedp
from bench.harness import Report, median_seconds, threads
from bench.utility.domain_data import PUBLIC, load_domain
from edgedp.privacy.noise import exponential_mechanism_coefficient

SENTENCES = (4, 12, 24)
SETTINGS = ((4, None), (8, None), (16, None), (64, 1e-6))
BATCH = 100
BUILD_DOCUMENTS = 10_000


def _pack(documents: list[np.ndarray]) -> edgedp.SubspacePack:
    from bench.utility.domains import shipped_or_template, subspace_pack

    return subspace_pack("costs", documents, shipped_or_template())


def _timed(mechanism: edgedp.SubspaceMean, documents: list[np.ndarray], repeats: int) -> float:
    """Median seconds of one ``release_embeddings`` call on ``documents``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.ShortDocumentWarning)
        return median_seconds(lambda: mechanism.release_embeddings(documents), repeats=repeats)


def mechanism_rows(report: Report, documents: list[np.ndarray], quick: bool) -> None:
    pack = _pack(documents[:600] if quick else documents[:3000])
    sentences = np.concatenate(documents)
    bundled = edgedp.load_pack("sentences-bbc", kind="sentences")
    coefficient = exponential_mechanism_coefficient(10.0, 1.0)
    depth = bundled.candidate_depth.first(bundled.projections_for(10.0))
    rng = np.random.default_rng(0)
    repeats = 5 if quick else 30
    with threads(1):
        for k in SENTENCES:
            block = [sentences[rng.integers(0, len(sentences), k)] for _ in range(BATCH)]
            recoded = [bundled.recoder.recode(d) for d in block[:10]]
            source = edgedp.RandomSource()

            def candidate_step(recoded=recoded, source=source) -> None:
                scores = depth.depths(recoded[0]).astype(np.float64)[None, :] * coefficient
                source.choice_from_log_weights(scores)

            baseline = median_seconds(candidate_step, repeats=repeats)
            report.add(
                table="mechanism cost per document",
                mechanism="DeepCandidate (baseline)",
                k=k,
                dims=None,
                ms_one_call=baseline * 1e3,
                ms_per_document_batch=None,
                ratio_to_deepcandidate=1.0,
            )
            for dims, delta in SETTINGS:
                mechanism = edgedp.SubspaceMean(pack, epsilon=10.0, delta=delta, dims=dims)
                one = _timed(mechanism, block[:1], repeats)
                many = _timed(mechanism, block, max(3, repeats // 5))
                report.add(
                    table="mechanism cost per document",
                    mechanism="SubspaceMean" + ("" if delta is None else f" delta {delta:g}"),
                    k=k,
                    dims=dims,
                    ms_one_call=one * 1e3,
                    ms_per_document_batch=many / BATCH * 1e3,
                    ratio_to_deepcandidate=baseline / one,
                )
        encoder_sentences = [f"Sentence number {i} of a short public text." for i in range(20)]
        encode = median_seconds(
            lambda: bundled.encoder.encode(encoder_sentences, independent=True), repeats=3
        )
    report.add(
        table="mechanism cost per document",
        mechanism="encoder, one sentence per call (for scale)",
        k=1,
        dims=None,
        ms_one_call=encode / len(encoder_sentences) * 1e3,
        ms_per_document_batch=None,
        ratio_to_deepcandidate=None,
    )


def build_rows(report: Report, documents: list[np.ndarray], quick: bool) -> None:
    from edgedp_export.subspace import DIRECTIONS, subspace_contents

    count = 500 if quick else BUILD_DOCUMENTS
    rng = np.random.default_rng(1)
    chosen = [documents[i] for i in rng.integers(0, len(documents), count)]
    sentences = sum(len(d) for d in chosen)
    start = time.perf_counter()
    contents = subspace_contents(chosen, DIRECTIONS, seed=0)
    seconds = time.perf_counter() - start
    encoder = edgedp.load_pack("sentences-bbc", kind="sentences").encoder
    sample = [f"Public sentence {i} about the weather and the harbour." for i in range(256)]
    with threads(2):
        encode = median_seconds(lambda: encoder.encode(sample), repeats=1 if quick else 3)
    rate = len(sample) / encode
    report.add(
        table="pack build beyond encoding",
        documents=count,
        sentences=sentences,
        seconds_beyond_encoding=seconds,
        recommendations=len(contents.recommended),
        encoder_sentences_per_s=rate,
        encoding_seconds_extrapolated=sentences / rate,
    )


def run(report: Report, *, quick: bool) -> None:
    documents = []
    for name in PUBLIC:
        domain = load_domain(name, quick=quick)
        documents += [
            e for e, s in zip(domain.embeddings, domain.splits, strict=True) if s != "test"
        ]
    mechanism_rows(report, documents, quick)
    build_rows(report, documents, quick)
