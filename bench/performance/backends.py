"""numpy search tier against FAISS (issue 35): words/s and per-message latency, in the same run.

On the ``medium`` pack (the bundled pack's 100,000 words and 256-bit codes plus 50-d float16
vectors, :mod:`bench.packs`), one thread (edgedp's and, with threadpoolctl, numpy's BLAS), for
BRR, Vickrey (Hamming), Madlib, TEM and SanText:

* words/s on text: ``privatize_batch`` of BBC News sentences, about 2,000 words per call;
* p50/p99 latency of one ~15-word message per call;

each on ``EDGEDP_BACKEND=native`` and ``numpy``, with the ratio numpy / native. Targets of the
issue: numpy >= 0.8x native words/s for Madlib, >= 0.2x for BRR, one message p50 <= 50 ms.

Then the decoders on each tier: words/s of Madlib with ``decode="nearest"``, ``"map"`` and
``"context"`` (16 candidates, ``lm-general``) on the same batch, with the ratio to ``nearest`` measured
in the same run (target: >= 0.5x; the 16 nearest words cost the exact top-k of every block).
Both tiers give the same releases (tests/runtime/test_knn.py); only speed is measured.
"""

from __future__ import annotations

import os
import time

import numpy as np

import edgedp
from bench.datasets import bbc_documents
from bench.harness import Report, median_seconds, ratio, threads
from bench.packs import ensure_pack
from edgedp.runtime.backend import VARIABLE

MECHANISMS = {
    "brr": lambda pack: edgedp.BRR(pack, epsilon=0.5),
    "vickrey-hamming": lambda pack: edgedp.Vickrey(pack, epsilon=0.5, geometry="hamming"),
    "madlib": lambda pack: edgedp.Madlib(pack, epsilon=10.0),
    "tem": lambda pack: edgedp.TEM(pack, epsilon=10.0),
    "santext": lambda pack: edgedp.SanText(pack, epsilon=10.0),
}
TARGETS = {"madlib": 0.8, "brr": 0.2}
MESSAGE_P50_S = 0.05
TIERS = ("native", "numpy")


def texts(words: int) -> tuple[list[str], list[str]]:
    """(sentences of about ``words`` words in all, messages of about 15 words)."""
    sentences = [line for _, document in bbc_documents() for line in document.split(". ") if line]
    batch, count = [], 0
    for sentence in sentences:
        batch.append(sentence)
        count += len(sentence.split())
        if count >= words:
            break
    messages = [" ".join(s.split()[:15]) for s in sentences if len(s.split()) >= 15]
    return batch, messages


def measure(
    mechanism: edgedp.WordMechanism, batch: list[str], messages: list[str], repeats: int
) -> dict[str, float]:
    words = sum(len(text.split()) for text in batch)
    seconds = median_seconds(lambda: mechanism.privatize_batch(batch), repeats=repeats)
    mechanism.privatize(messages[0])  # warm
    latencies = []
    for message in messages:
        start = time.perf_counter()
        mechanism.privatize(message)
        latencies.append(time.perf_counter() - start)
    return {
        "words_per_s": words / seconds,
        "message_p50_ms": 1e3 * float(np.percentile(latencies, 50)),
        "message_p99_ms": 1e3 * float(np.percentile(latencies, 99)),
    }


def run(report: Report, *, quick: bool) -> None:
    pack = ensure_pack("medium")
    batch, messages = texts(300 if quick else 2000)
    messages = messages[: 10 if quick else 200]
    names = ["brr", "madlib"] if quick else list(MECHANISMS)
    saved = os.environ.get(VARIABLE)
    try:
        with threads(1):
            for name in names:
                found = {}
                for tier in TIERS:
                    os.environ[VARIABLE] = tier
                    found[tier] = measure(
                        MECHANISMS[name](pack), batch, messages, 1 if quick else 3
                    )
                native, numpy_ = found["native"], found["numpy"]
                report.add(
                    table="numpy vs native search, 1 thread",
                    mechanism=name,
                    native_words_per_s=round(native["words_per_s"]),
                    numpy_words_per_s=round(numpy_["words_per_s"]),
                    ratio_numpy_native=ratio(numpy_["words_per_s"], native["words_per_s"]),
                    target_ratio=TARGETS.get(name),
                    native_message_p50_ms=native["message_p50_ms"],
                    numpy_message_p50_ms=numpy_["message_p50_ms"],
                    numpy_message_p99_ms=numpy_["message_p99_ms"],
                    message_p50_target_ms=1e3 * MESSAGE_P50_S,
                )
    finally:
        if saved is None:
            os.environ.pop(VARIABLE, None)
        else:
            os.environ[VARIABLE] = saved
    decoders(report, pack, batch, quick)
    report.notes.append(
        f"Batches of {sum(len(t.split()) for t in batch)} words (BBC News sentences), "
        f"{len(messages)} messages of 15 words; mechanisms with OS entropy."
    )


DECODERS = ("nearest", "map", "context")
DECODER_TARGET = 0.5


def decoders(report: Report, pack: edgedp.WordPack, batch: list[str], quick: bool) -> None:
    """words/s of Madlib with each decoder on each tier, one thread, ratio to ``nearest``."""
    lm = edgedp.load_pack("lm-general", kind="lm")
    words = sum(len(text.split()) for text in batch)
    saved = os.environ.get(VARIABLE)
    try:
        with threads(1):
            for tier in TIERS:
                os.environ[VARIABLE] = tier
                seconds = {}
                for decoder in DECODERS:
                    options = (
                        {} if decoder == "nearest" else {"decode": decoder, "language_model": lm}
                    )
                    mechanism = edgedp.Madlib(pack, epsilon=10.0, **options)
                    seconds[decoder] = median_seconds(
                        lambda mechanism=mechanism: mechanism.privatize_batch(batch),
                        repeats=1 if quick else 3,
                    )
                for decoder in DECODERS:
                    report.add(
                        table="Madlib decoders, 1 thread",
                        tier=tier,
                        decoder=decoder,
                        words_per_s=round(words / seconds[decoder]),
                        ratio_to_nearest=ratio(
                            words / seconds[decoder], words / seconds["nearest"]
                        ),
                        target_ratio=None if decoder == "nearest" else DECODER_TARGET,
                    )
    finally:
        if saved is None:
            os.environ.pop(VARIABLE, None)
        else:
            os.environ[VARIABLE] = saved
