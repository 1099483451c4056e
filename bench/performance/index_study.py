"""Which Hamming index for *noised* queries: recall@1 and speed of Flat, HNSW and IVF under RR.

A BRR query is a word's code after randomized response: at small epsilon it is far from every code,
where graph and cluster indexes lose their way. For epsilon in {0.5, 1, 2, 4, 8} per bit, on the
bundled 100k pack and on the ``full`` pack (all 336,199 single-token GloVe 6B words; 256-bit
autoencoder codes, as the packs ship), this measures recall@1 with ties allowed (the approximate
answer is at the exact minimum distance) and queries per second at 2 threads, batch 1000, against
exact ``IndexBinaryFlat`` (``knn_hamming``) measured in the same run; numpy ``bitwise_count`` is the
reference implementation.
"""

from __future__ import annotations

import time
import warnings

import faiss
import numpy as np

import edgedp
from bench.harness import Report, figure, median_seconds, progress
from bench.packs import ensure_pack
from edgedp.words.hamming import randomized_response

EPSILONS = (0.5, 1.0, 2.0, 4.0, 8.0)
HNSW_M = 32
HNSW_EF = (16, 32, 64, 128, 256)
IVF_PROBES = (1, 4, 16, 64, 256)


def _codes(size: str, quick: bool) -> np.ndarray:
    if size == "100k":
        return np.ascontiguousarray(edgedp.load_pack().codes[: 5_000 if quick else None])
    return np.ascontiguousarray(ensure_pack("full").codes)


def _build(codes: np.ndarray) -> dict[str, faiss.IndexBinary]:
    bits = codes.shape[1] * 8
    hnsw = faiss.IndexBinaryHNSW(bits, HNSW_M)
    hnsw.add(codes)
    nlist = int(4 * np.sqrt(len(codes)))
    ivf = faiss.IndexBinaryIVF(faiss.IndexBinaryFlat(bits), bits, nlist)
    ivf.train(codes)
    ivf.add(codes)
    return {"hnsw": hnsw, "ivf": ivf}


def run(report: Report, *, quick: bool) -> None:
    faiss.omp_set_num_threads(2)
    queries_per_epsilon = 200 if quick else 2000
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        rng = edgedp.RandomSource.seeded(0)
    sizes = ("100k",) if quick else ("100k", "336k")
    epsilons = (1.0,) if quick else EPSILONS
    for size in sizes:
        codes = _codes(size, quick)
        start = time.perf_counter()
        indexes = _build(codes)
        report.notes.append(
            f"{size}: {len(codes):,} codes; HNSW (M={HNSW_M}) and IVF "
            f"(nlist={indexes['ivf'].nlist}) built in {time.perf_counter() - start:.0f} s"
        )
        ids = rng.integers(len(codes), queries_per_epsilon)
        for epsilon in progress(epsilons, f"index {size}"):
            noisy = randomized_response(codes[ids], epsilon, rng)
            exact_distance, _ = faiss.knn_hamming(noisy, codes, 1)  # (distances, ids)
            flat_s = median_seconds(lambda q=noisy, c=codes: faiss.knn_hamming(q, c, 1), repeats=3)
            flat_qps = len(noisy) / flat_s
            sub = noisy[:50]
            numpy_s = median_seconds(
                lambda q=sub, c=codes: [
                    np.bitwise_count(c ^ row).sum(axis=1).argmin() for row in q
                ],
                repeats=1,
                warmup=0,
            )
            common = {
                "table": "recall@1 and speed of Hamming indexes on RR-noised queries (2 threads)",
                "vocabulary": size,
                "epsilon": epsilon,
                "mean_exact_distance": float(exact_distance.mean()),
            }
            report.add(
                **common,
                index="flat (exact)",
                parameter="-",
                recall=1.0,
                words_per_s=flat_qps,
                ratio_vs_flat=1.0,
            )
            report.add(
                **common,
                index="numpy bitwise_count",
                parameter="-",
                recall=1.0,
                words_per_s=len(sub) / numpy_s,
                ratio_vs_flat=len(sub) / numpy_s / flat_qps,
            )
            parameters = (("hnsw", HNSW_EF), ("ivf", IVF_PROBES))
            for name, values in ((n, v[:2]) for n, v in parameters) if quick else parameters:
                index = indexes[name]
                for value in values:
                    if name == "hnsw":
                        index.hnsw.efSearch = value
                    else:
                        index.nprobe = value
                    found_distance, _ = index.search(noisy, 1)
                    seconds = median_seconds(lambda q=noisy, i=index: i.search(q, 1), repeats=3)
                    report.add(
                        **common,
                        index=name,
                        parameter=value,
                        recall=float(np.mean(found_distance[:, 0] == exact_distance[:, 0])),
                        words_per_s=len(noisy) / seconds,
                        ratio_vs_flat=len(noisy) / seconds / flat_qps,
                    )
    _plot(report, sizes, epsilons)


def _plot(report: Report, sizes: tuple[str, ...], epsilons: tuple[float, ...]) -> None:
    fig, axes = figure(len(sizes), len(epsilons), (4 * len(epsilons), 3.5 * len(sizes)))
    for row, size in enumerate(sizes):
        for column, epsilon in enumerate(epsilons):
            axis = axes[row][column]
            rows = [r for r in report.rows if r["vocabulary"] == size and r["epsilon"] == epsilon]
            for name, marker in (("hnsw", "o-"), ("ivf", "s-")):
                points = [(r["words_per_s"], r["recall"]) for r in rows if r["index"] == name]
                if points:
                    axis.plot(*zip(*points, strict=True), marker, label=name)
            for r in rows:
                if r["index"] == "flat (exact)":
                    axis.plot([r["words_per_s"]], [1.0], "k*", markersize=12, label="flat (exact)")
            axis.set_xscale("log")
            axis.axhline(0.95, color="grey", linewidth=0.5)
            axis.set_title(f"{size}, epsilon {epsilon}/bit")
            axis.set_xlabel("words/s (2 threads)")
            if column == 0:
                axis.set_ylabel("recall@1 (ties allowed)")
    axes[0][0].legend(loc="lower left")
    report.figures["index_recall_vs_speed.png"] = fig
