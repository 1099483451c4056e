"""Issue 25, part 2: the Euclidean mechanisms against the GEMM bound, one message per call, threads.

Tables (every speed with a ratio to a baseline measured in the same run; rows of a table are timed
in turns, round after round, so that the machine's drift hits them alike; on a shared machine the
thread CPU time of one-thread rows is steadier than the wall time, and both are given):

* **batch, 1 thread**: Madlib, Mahalanobis, Vickrey and Generalized Vickrey on the ``medium`` pack
  (100,000 words, 50-d float16 vectors), a batch of random vocabulary words per call, against the
  **GEMM bound**: the float32 product of the batch's noisy vectors with the 100,000 x 50 vocabulary
  matrix plus the row-wise argmin (numpy's BLAS on one thread via threadpoolctl, in blocks of
  256 queries). Also the bare FAISS ``IndexFlatL2`` scan (the search these mechanisms used before)
  and the index's own search, and BRR against the bare FAISS Hamming scan of the same codes.
* **one message per call**: p50 and p99 of ``privatize`` on one 16-word message, 1 thread, against
  the GEMM bound of its 16 word vectors.
* **worker threads**: ``privatize_ids`` on a large batch and ``privatize_batch`` on BBC News at 1
  and 2 threads (``set_num_threads``), and BRR the way it scaled before (one Python thread, FAISS's
  own OpenMP threads in the search).
* **GIL**: per word, the time that holds the GIL (segmentation, vocabulary lookup, assembly: Python)
  against the whole, and the speed-ups those imply at 16 threads (not measured here).
* **sentence encoder**: sentences/s of the DP path (one sentence per call) with n worker threads
  sharing one single-threaded session, against one session of n intra-op threads (the policy
  before); DeepCandidate documents/s on long (whole BBC News articles) and short documents (their
  first 3 sentences), at 1 and 2 threads.

Run: ``python -m bench throughput [--quick]``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import faiss
import numpy as np

import edgedp
import edgedp.runtime.native as native
from bench.datasets import bbc_documents
from bench.harness import Report, threads
from bench.packs import ensure_pack
from edgedp.encoder.pack import referenced_encoder_pack
from edgedp.encoder.sentence_encoder import SentenceEncoder
from edgedp.text.segmentation import segment
from edgedp.text.sentences import split_sentences
from edgedp.words.mechanism import WORDS_PER_TASK

MESSAGE = "The patient was admitted on Monday with chest pain and was sent home after two days."
BOUND_QUERIES = 256  # queries per numpy product of the GEMM bound
SHORT_SENTENCES = 3
THREADS = (1, 2)
#: Speed-ups at this many threads are predicted from the measured times, not measured.
PREDICTED_AT = 16
BOUND = "GEMM bound (numpy float32 product + argmin)"
HAMMING_SCAN = "bare FAISS knn_hamming scan"


def timed_in_turns(
    runs: dict[str, Callable[[], object]],
    repeats: int,
    clock: Callable[[], float] = time.thread_time,
) -> dict[str, tuple[float, float]]:
    """(median wall s, median CPU s by ``clock``) of every run, timed in turns after a warm-up."""
    times = latencies_in_turns(runs, repeats, clock)
    return {
        label: (float(np.median(wall)), float(np.median(cpu)))
        for label, (wall, cpu) in times.items()
    }


def latencies_in_turns(
    runs: dict[str, Callable[[], object]], calls: int, clock: Callable[[], float] = time.thread_time
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(wall, CPU by ``clock``) seconds of ``calls`` calls of every run, one of each in turn, after
    one warm-up call each."""
    for run in runs.values():
        run()
    wall: dict[str, list[float]] = {label: [] for label in runs}
    cpu: dict[str, list[float]] = {label: [] for label in runs}
    for _ in range(calls):
        for label, run in runs.items():
            start, start_cpu = time.perf_counter(), clock()
            run()
            cpu[label].append(clock() - start_cpu)
            wall[label].append(time.perf_counter() - start)
    return {label: (np.array(wall[label]), np.array(cpu[label])) for label in runs}


def gemm_bound(vectors: np.ndarray) -> Callable[[np.ndarray], object]:
    """The issue's bound: float32 queries x the vocabulary matrix, then the row-wise argmin."""
    matrix = np.ascontiguousarray(vectors, dtype=np.float32)
    scores = np.empty((BOUND_QUERIES, len(matrix)), dtype=np.float32)

    def run(queries: np.ndarray) -> object:
        for start in range(0, len(queries), BOUND_QUERIES):
            block = queries[start : start + BOUND_QUERIES]
            product = scores[: len(block)]
            np.matmul(block, matrix.T, out=product)
            product.argmin(axis=1)
        return None

    return run


def euclidean_mechanisms(pack: edgedp.WordPack) -> dict[str, edgedp.WordMechanism]:
    return {
        "Madlib (epsilon 10)": edgedp.Madlib(pack, epsilon=10.0),
        "Mahalanobis (epsilon 10, lambda 0.2)": edgedp.Mahalanobis(pack, epsilon=10.0),
        "Vickrey (epsilon 10, t 0.5)": edgedp.Vickrey(pack, epsilon=10.0, t=0.5),
        "Generalized Vickrey (epsilon 10, 0,1,2)": edgedp.GeneralizedVickrey(
            pack, epsilon=10.0, weights=[0.0, 1.0, 2.0]
        ),
    }


def batch_rows(report: Report, pack: edgedp.WordPack, quick: bool) -> None:
    size = 200 if quick else 2000
    ids = edgedp.RandomSource.os_entropy().integers(len(pack.vocabulary), size)
    mechanisms = euclidean_mechanisms(pack)
    madlib = next(iter(mechanisms.values()))
    noisy = madlib.space.perturb(ids)
    queries = noisy.astype(np.float32)
    flat = faiss.IndexFlatL2(queries.shape[1])
    flat.add(np.ascontiguousarray(pack.vectors, dtype=np.float32))
    index = pack.euclidean_index("bench")
    brr = edgedp.BRR(pack, epsilon=0.6)
    codes = np.asarray(pack.codes)
    noisy_codes = brr.space.perturb(ids)
    bound = gemm_bound(np.asarray(pack.vectors))
    runs: dict[str, Callable[[], object]] = {
        BOUND: lambda: bound(queries),
        "bare FAISS IndexFlatL2 scan (the search before)": lambda: flat.search(queries, 1),
        "EuclideanIndex.search, k = 1": lambda: index.search(noisy, 1),
        "EuclideanIndex.search, k = 2": lambda: index.search(noisy, 2),
        **{label: (lambda m=m: m.privatize_ids(ids)) for label, m in mechanisms.items()},
        HAMMING_SCAN: lambda: faiss.knn_hamming(noisy_codes, codes, 1),
        "BRR (epsilon 0.6 per bit)": lambda: brr.privatize_ids(ids),
    }
    with threads(1):
        timings = timed_in_turns(runs, 2 if quick else 7)
    table = f"batch of {size:,} words per call, 1 thread, {pack.name} pack ({len(ids):,} words)"
    for label, (wall, cpu) in timings.items():
        hamming = label in (HAMMING_SCAN, "BRR (epsilon 0.6 per bit)")
        base = timings[HAMMING_SCAN if hamming else BOUND]
        report.add(
            table=table,
            row=label,
            us_per_word=wall / size * 1e6,
            cpu_us_per_word=cpu / size * 1e6,
            words_per_s=size / wall,
            baseline="bare Hamming scan" if hamming else "GEMM bound",
            ratio_to_baseline=base[0] / wall,
            cpu_ratio_to_baseline=base[1] / cpu,
        )


def message_rows(report: Report, pack: edgedp.WordPack, quick: bool) -> None:
    words = segment(MESSAGE).words
    ids = pack.vocabulary.ids(words)
    mechanisms = {
        **euclidean_mechanisms(pack),
        "BRR (epsilon 0.6 per bit)": edgedp.BRR(pack, epsilon=0.6),
        "Vickrey Hamming (epsilon 0.6 per bit, t 0.5)": edgedp.Vickrey(
            pack, epsilon=0.6, t=0.5, geometry="hamming"
        ),
    }
    points = next(iter(mechanisms.values())).space.perturb(ids[ids >= 0]).astype(np.float32)
    bound = gemm_bound(np.asarray(pack.vectors))
    flat = faiss.IndexFlatL2(points.shape[1])
    flat.add(np.ascontiguousarray(pack.vectors, dtype=np.float32))
    runs: dict[str, Callable[[], object]] = {
        "GEMM bound of the message's words": lambda: bound(points),
        "bare FAISS IndexFlatL2 scan of its words (the search before)": lambda: flat.search(
            points, 1
        ),
        **{
            label: (lambda m=mechanism: m.privatize(MESSAGE))
            for label, mechanism in mechanisms.items()
        },
    }
    with threads(1):
        measured = latencies_in_turns(runs, 30 if quick else 300)
    base_wall, base_cpu = (np.median(times) for times in measured[next(iter(runs))])
    for label, (wall, cpu) in measured.items():
        report.add(
            table=f"one {len(words)}-word message per call, 1 thread (p50 / p99)",
            row=label,
            calls=len(wall),
            p50_ms=np.median(wall) * 1e3,
            p99_ms=float(np.quantile(wall, 0.99)) * 1e3,
            cpu_p50_ms=np.median(cpu) * 1e3,
            ratio_p50_to_gemm_bound=base_wall / np.median(wall),
            cpu_ratio_p50_to_gemm_bound=base_cpu / np.median(cpu),
        )


def word_cases(packs: dict[str, edgedp.WordPack]) -> dict[str, edgedp.WordMechanism]:
    """The two word mechanisms the thread tables follow: BRR (bundled pack) and Madlib (medium)."""
    return {
        "BRR": edgedp.BRR(packs["bundled"], epsilon=0.6),
        "Madlib": edgedp.Madlib(packs["medium"], epsilon=10.0),
    }


def thread_rows(report: Report, packs: dict[str, edgedp.WordPack], quick: bool) -> None:
    documents = [text for _, text in bbc_documents()][:: 100 if quick else 10][:200]
    words = sum(len(segment(text).words) for text in documents)
    size = 1000 if quick else 8000
    table = "worker threads (set_num_threads): words/s, ratio to the same row on 1 thread"
    for label, mechanism in word_cases(packs).items():
        ids = edgedp.RandomSource.os_entropy().integers(len(mechanism.pack.vocabulary), size)
        measured: dict[str, dict[str, tuple[float, float]]] = {}
        for count in THREADS:
            with threads(count):
                timings = timed_in_turns(
                    {
                        "privatize_ids": lambda m=mechanism, i=ids: m.privatize_ids(i),
                        "privatize_batch (BBC News)": lambda m=mechanism: m.privatize_batch(
                            documents
                        ),
                    },
                    1 if quick else 3,
                    time.process_time,
                )
            for call, (wall, cpu) in timings.items():
                amount = size if call == "privatize_ids" else words
                measured.setdefault(call, {})[str(count)] = (amount / wall, cpu / amount)
        if label == "BRR":  # before: one Python thread, FAISS's OpenMP threads in the search
            with threads(2):
                native.reset_num_threads()
                faiss.omp_set_num_threads(2)
                before = timed_in_turns(
                    {"ids": lambda m=mechanism, i=ids: m.privatize_ids(i)},
                    1 if quick else 3,
                    time.process_time,
                )
            wall, cpu = before["ids"]
            measured["privatize_ids"]["2, FAISS threads (before)"] = (size / wall, cpu / size)
        for call, by_threads in measured.items():
            for setting, (rate, cpu_per_word) in by_threads.items():
                report.add(
                    table=table,
                    mechanism=label,
                    call=call,
                    threads=setting,
                    ratio_to_1_thread=rate / by_threads["1"][0],
                    words_per_s=rate,
                    process_cpu_us_per_word=cpu_per_word * 1e6,
                    cpu_ratio_to_1_thread=cpu_per_word / by_threads["1"][1],
                )


def gil_rows(report: Report, packs: dict[str, edgedp.WordPack], quick: bool) -> None:
    """Per word: Python time under the GIL vs the whole, and the speed-ups they imply."""
    documents = [text for _, text in bbc_documents()][:: 100 if quick else 20][:100]
    table = (
        f"per word, 1 thread: time holding the GIL and the speed-up it allows at {PREDICTED_AT} "
        "threads (predicted, NOT measured)"
    )
    for label, mechanism in word_cases(packs).items():
        segmented = [segment(text, mechanism.protect) for text in documents]
        keys = [word for item in segmented for word in item.words]
        known = mechanism.pack.vocabulary.ids(keys)
        released = mechanism.privatize_ids(np.where(known >= 0, known, 0))
        with threads(1):
            timings = timed_in_turns(
                {
                    "whole": lambda m=mechanism: m.privatize_batch(documents),
                    "segment": lambda m=mechanism: [segment(t, m.protect) for t in documents],
                    "lookup": lambda m=mechanism, k=keys: m.pack.vocabulary.ids(k),
                    "assemble": lambda m=mechanism, s=segmented, r=released: m._assemble_all(
                        s, r, None
                    ),
                },
                2 if quick else 5,
            )
        per_word = {part: cpu / len(keys) * 1e6 for part, (_, cpu) in timings.items()}
        held = per_word["segment"] + per_word["lookup"] + per_word["assemble"]
        whole = per_word["whole"]
        serial = per_word["assemble"]  # on the calling thread, after the tasks
        report.add(
            table=table,
            mechanism=label,
            whole_us=whole,
            segment_us=per_word["segment"],
            lookup_us=per_word["lookup"],
            assemble_us=serial,
            gil_share=held / whole,
            amdahl_if_gil_work_never_overlaps=whole / (held + (whole - held) / PREDICTED_AT),
            ceiling_if_it_overlaps=min(
                PREDICTED_AT, whole / held, whole / (serial + (whole - serial) / PREDICTED_AT)
            ),
        )


def task_rows(report: Report, packs: dict[str, edgedp.WordPack], quick: bool) -> None:
    """privatize_ids on one worker-thread task: the time outside the search bounds its GIL time."""
    table = (
        f"privatize_ids, one task of {WORDS_PER_TASK} words, 1 thread: time outside the search (an "
        f"upper bound on the GIL time) and the speed-up it allows at {PREDICTED_AT} threads "
        "(predicted, NOT measured)"
    )
    for label, mechanism in word_cases(packs).items():
        ids = edgedp.RandomSource.os_entropy().integers(
            len(mechanism.pack.vocabulary), WORDS_PER_TASK
        )
        points = mechanism.space.perturb(ids)
        with threads(1):
            timings = timed_in_turns(
                {
                    "whole": lambda m=mechanism, i=ids: m.privatize_ids(i),
                    "search": lambda m=mechanism, p=points: m.space.nearest(p, 1),
                },
                3 if quick else 15,
            )
        whole, search = timings["whole"][1], timings["search"][1]
        outside = max(whole - search, 0.0)
        report.add(
            table=table,
            mechanism=label,
            whole_ms=whole * 1e3,
            search_ms=search * 1e3,
            outside_share=outside / whole,
            amdahl_speedup=whole / (outside + search / PREDICTED_AT),
        )


def encoder_rows(report: Report, quick: bool) -> None:
    pack = edgedp.load_pack("sentences-bbc")
    encoder_files = referenced_encoder_pack(pack.manifest).manifest
    articles = [text for _, text in bbc_documents()][:: 200 if quick else 20]
    sentences = [s for text in articles for s in split_sentences(text)][: 24 if quick else 240]
    table = "sentence encoder, one sentence per call (the DP path): sentences/s"
    rates: dict[tuple[str, int], float] = {}
    for count in THREADS:
        with threads(count):
            one_session = SentenceEncoder(
                encoder_files.contents("encoder.onnx"),
                encoder_files.contents("tokenizer.json"),
                dims=pack.dims,
                max_seq_length=pack.encoder.max_seq_length,
                threads=count,
            )
            timings = timed_in_turns(
                {
                    "worker threads sharing one 1-thread session (now)": lambda: (
                        pack.encoder.encode(sentences, independent=True)
                    ),
                    "one session of n intra-op threads (before)": lambda e=one_session: e.encode(
                        sentences, independent=True
                    ),
                },
                1 if quick else 3,
            )
        for label, (wall, _) in timings.items():
            rates[label, count] = len(sentences) / wall
    for (label, count), rate in rates.items():
        report.add(
            table=table,
            policy=label,
            threads=count,
            sentences_per_s=rate,
            ratio_to_1_thread=rate / rates[label, 1],
        )
    long_documents = articles[: 4 if quick else 40]
    short_documents = [
        " ".join(split_sentences(text)[:SHORT_SENTENCES])
        for text in articles[: 8 if quick else 120]
    ]
    mechanism = edgedp.DeepCandidate(pack, epsilon=10.0)
    document_rates: dict[tuple[str, int], float] = {}
    for count in THREADS:
        with threads(count):
            timings = timed_in_turns(
                {
                    "long (whole articles)": lambda: mechanism.embed_batch(long_documents),
                    f"short ({SHORT_SENTENCES} sentences)": lambda: mechanism.embed_batch(
                        short_documents
                    ),
                },
                1 if quick else 3,
            )
        for label, (wall, _) in timings.items():
            size = len(long_documents) if label.startswith("long") else len(short_documents)
            document_rates[label, count] = size / wall
    for (label, count), rate in document_rates.items():
        report.add(
            table="DeepCandidate embed_batch: documents/s",
            documents=label,
            threads=count,
            documents_per_s=rate,
            ratio_to_1_thread=rate / document_rates[label, 1],
        )


def run(report: Report, *, quick: bool) -> None:
    medium = ensure_pack("quick" if quick else "medium")
    packs = {"bundled": edgedp.load_pack(), "medium": medium}
    batch_rows(report, medium, quick)
    message_rows(report, medium, quick)
    thread_rows(report, packs, quick)
    gil_rows(report, packs, quick)
    task_rows(report, packs, quick)
    encoder_rows(report, quick)
    report.notes += [
        "ratio_to_baseline > 1 means faster than the baseline (the GEMM bound for Euclidean rows, "
        "the bare FAISS Hamming scan for BRR); cpu_ratio_to_baseline is the same from each row's "
        "thread CPU time, steadier on a loaded machine.",
        f"This machine has 2 cores: thread rows stop at 2. The {PREDICTED_AT}-thread figures are "
        "predictions from the measured per-word times: 'amdahl' if the GIL-held work never "
        "overlaps the rest (pessimistic), 'ceiling' if it does (optimistic; bounded by the "
        "assembly on the calling thread and by the GIL's share).",
    ]
