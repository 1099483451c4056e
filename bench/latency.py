"""Latency, throughput, cold start and peak memory of BRR on the bundled default pack.

Baselines measured in the same run:
* throughput: the same BRR (same randomized response) with the exact search done by numpy popcount
  (``np.bitwise_count``) instead of FAISS;
* cold start: a Python process that only imports numpy;
* peak RSS: a Python process that imports the runtime libraries (numpy, faiss, tokenizers).
"""

from __future__ import annotations

import warnings

import numpy as np

import edgedp
from bench.datasets import bbc_documents
from bench.harness import Report, median_python, median_seconds
from edgedp.randomized_response import randomized_response
from edgedp.text import segment

TARGETS = {"words_per_s": 5000, "cold_start_s": 0.6, "peak_rss_mb": 120}


def _numpy_brr(pack: edgedp.WordPack, epsilon: float, rng: edgedp.RandomSource):
    codes = np.asarray(pack.codes)

    def release(ids: np.ndarray) -> np.ndarray:
        noisy = randomized_response(codes[ids], epsilon, rng)
        out = np.empty(len(ids), dtype=np.int64)
        for row, query in enumerate(noisy):
            out[row] = np.argmin(np.bitwise_count(codes ^ query).sum(axis=1))
        return out

    return release


def run(report: Report, *, quick: bool) -> None:
    pack = edgedp.load_pack()
    epsilon = 1.0
    repeats = 3 if quick else 15
    batch = 100 if quick else 1000
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        brr = edgedp.BRR(pack, epsilon=epsilon)
    ids = edgedp.RandomSource.os_entropy().integers(len(pack.vocabulary), batch)
    one = ids[:1]

    numpy_release = _numpy_brr(pack, epsilon, brr.rng)
    numpy_batch = ids[: max(10, batch // 20)]
    numpy_per_word = median_seconds(lambda: numpy_release(numpy_batch), repeats=3) / len(
        numpy_batch
    )

    for threads in (1, 2):
        edgedp.set_num_threads(threads)
        single = median_seconds(lambda: brr.privatize_ids(one), repeats=repeats * 20)
        batched = median_seconds(lambda: brr.privatize_ids(ids), repeats=repeats) / batch
        report.add(
            measure="privatize_ids",
            threads=threads,
            batch=1,
            us_per_word=single * 1e6,
            words_per_s=1 / single,
            ratio_vs_numpy=numpy_per_word / single,
        )
        report.add(
            measure="privatize_ids",
            threads=threads,
            batch=batch,
            us_per_word=batched * 1e6,
            words_per_s=1 / batched,
            ratio_vs_numpy=numpy_per_word / batched,
        )
    report.add(
        measure="numpy popcount baseline",
        threads=1,
        batch=len(numpy_batch),
        us_per_word=numpy_per_word * 1e6,
        words_per_s=1 / numpy_per_word,
        ratio_vs_numpy=1.0,
    )

    documents = [text for _, text in bbc_documents()[: 20 if quick else 300]]
    words = sum(len(segment(doc).words) for doc in documents)
    for threads in (1, 2):
        edgedp.set_num_threads(threads)
        seconds = median_seconds(
            lambda: brr.privatize_batch(documents), repeats=max(1, repeats // 5)
        )
        report.add(
            measure="privatize_batch (BBC text)",
            threads=threads,
            batch=len(documents),
            us_per_word=seconds / words * 1e6,
            words_per_s=words / seconds,
        )

    cli = ["-m", "edgedp.cli", "privatize", "--epsilon", str(epsilon), "--threads", "1"]
    line = b"The patient was admitted to the hospital with chest pain.\n"
    cold = median_python(cli, repeats=repeats, stdin=line)
    floor = median_python(["-c", "import numpy"], repeats=repeats)
    report.add(
        measure="cold start (process start -> first line)",
        seconds=cold.seconds,
        baseline_import_numpy_s=floor.seconds,
        ratio=cold.seconds / floor.seconds,
    )

    corpus = "\n".join(documents).encode()
    big = median_python(cli, repeats=max(1, repeats // 5), stdin=corpus)
    libs = median_python(["-c", "import numpy, faiss, tokenizers"], repeats=max(1, repeats // 5))
    report.add(
        measure=f"peak RSS of the CLI ({len(corpus) / 1e3:,.0f} kB of BBC text)",
        peak_rss_mb=big.peak_rss_mb,
        baseline_libraries_mb=libs.peak_rss_mb,
        ratio=big.peak_rss_mb / libs.peak_rss_mb,
    )

    best = max(
        row.get("words_per_s", 0) for row in report.rows if row["measure"] == "privatize_ids"
    )
    report.notes += [
        f"targets: >= {TARGETS['words_per_s']} words/s with exact search (best measured "
        f"{best:,.0f}), cold start <= {TARGETS['cold_start_s']} s (measured {cold.seconds:.3f}), "
        f"peak RSS <= {TARGETS['peak_rss_mb']} MB (measured {big.peak_rss_mb:.0f})",
        f"pack: {pack.name}, {len(pack.vocabulary):,} words, {pack.bits} bits, "
        f"{pack.describe()['bytes'] / 2**20:.1f} MiB; epsilon {epsilon} per bit",
    ]
