"""Threads share a mechanism safely; process batches keep order and never share noise."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import faiss
import numpy as np
import pytest
from helpers import all_codes, brr_exact_distribution, native_process, write_word_pack
from scipy import stats

import edgedp
import edgedp.runtime.native as native
from edgedp.privacy.noise import rr_flip_threshold
from edgedp.words.parallel import privatize_parallel
from edgedp.words.streaming import privatize_stream

TEXTS = [f"the {word} sat on the mat number {i}" for i, word in enumerate(["cat", "dog"] * 30)]


def test_order_is_kept_across_processes(default_pack):
    # flip probability 2**-64; no identifier guard, so the numbers (vocabulary words) mark the order
    identity = edgedp.BRR(default_pack, epsilon=50.0, protect=())
    out = privatize_parallel(identity, TEXTS, processes=2, chunk_size=7)
    assert out == identity.privatize_batch(TEXTS)


def test_workers_draw_independent_noise(default_pack):
    # identical chunks at low epsilon: identical noise would give identical outputs
    same = ["a b c d e f g h i j k l m n o p"] * 8
    out = privatize_parallel(edgedp.BRR(default_pack, epsilon=0.3), same, processes=2, chunk_size=1)
    assert len(set(out)) == len(out)


def test_seeded_parallel_runs_are_reproducible_and_chunks_differ(default_pack, seeded):
    same = ["a b c d e f g h i j k l m n o p"] * 6
    first = privatize_parallel(
        edgedp.BRR(default_pack, epsilon=0.3, rng=seeded(4)), same, processes=2, chunk_size=1
    )
    second = privatize_parallel(
        edgedp.BRR(default_pack, epsilon=0.3, rng=seeded(4)), same, processes=3, chunk_size=1
    )
    assert first == second  # independent of the number of workers
    assert len(set(first)) == len(first)


@pytest.mark.parametrize("mechanism", ["vickrey-hamming", "mahalanobis"])
def test_parameters_survive_the_trip(euclid_pack, mechanism):
    if mechanism == "vickrey-hamming":
        built = edgedp.Vickrey(euclid_pack, epsilon=1e6, t=1.0, geometry="hamming")
    else:
        built = edgedp.Mahalanobis(euclid_pack, epsilon=1e6, lam=0.3)
    words = " ".join(euclid_pack.vocabulary.words[:20])
    out = privatize_parallel(built, [words], processes=1)
    assert out == built.privatize_batch([words])


def test_threads_can_share_a_mechanism(default_pack):
    brr = edgedp.BRR(default_pack, epsilon=0.5)
    with ThreadPoolExecutor(max_workers=8) as pool:
        outputs = list(pool.map(brr.privatize_ids, [np.arange(200)] * 40))
    assert all(out.shape == (200,) and out.min() >= 0 for out in outputs)
    # the same 200 words in every task: equal outputs would mean shared noise
    assert len({out.tobytes() for out in outputs}) == len(outputs)


@pytest.mark.parametrize("name", ["madlib", "mahalanobis", "vickrey", "vickrey-hamming", "brr"])
def test_threads_sharing_a_mechanism_get_its_exact_answers(euclid_pack, name):
    # At epsilon 1e6 (50 per bit) every mechanism returns the nearest word to its input (t = 0):
    # the input itself, or in Hamming space the first word with the same code (planted clusters
    # share codes). A race in the search, the noise or the selection would show up as a wrong word.
    built = {
        "madlib": lambda: edgedp.Madlib(euclid_pack, epsilon=1e6),
        "mahalanobis": lambda: edgedp.Mahalanobis(euclid_pack, epsilon=1e6, lam=0.5),
        "vickrey": lambda: edgedp.Vickrey(euclid_pack, epsilon=1e6, t=0.0),
        "vickrey-hamming": lambda: edgedp.Vickrey(
            euclid_pack, epsilon=50.0, t=0.0, geometry="hamming"
        ),
        "brr": lambda: edgedp.BRR(euclid_pack, epsilon=50.0),
    }[name]()
    nearest = np.arange(len(euclid_pack.vocabulary))
    if name in ("vickrey-hamming", "brr"):
        _, first, code_of = np.unique(
            euclid_pack.codes, axis=0, return_index=True, return_inverse=True
        )
        nearest = first[code_of.ravel()]
    batches = [np.arange(len(euclid_pack.vocabulary))[i::7] for i in range(7)] * 6
    with ThreadPoolExecutor(max_workers=6) as pool:
        outputs = list(pool.map(built.privatize_ids, batches))
    for got, ids in zip(outputs, batches, strict=True):
        assert np.array_equal(got, nearest[ids])


def test_threads_can_share_deepcandidate():
    mechanism = edgedp.DeepCandidate(edgedp.load_pack("sentences-bbc"), epsilon=5.0)
    rng = np.random.default_rng(0)  # which points to score: not a privacy matter
    documents = [rng.normal(size=(k, mechanism.pack.dims)) for k in (3, 8, 20) * 8]
    expected = [mechanism.depths(points) for points in documents]
    with ThreadPoolExecutor(max_workers=6) as pool:
        outputs = list(pool.map(mechanism.depths, documents))
    for got, want in zip(outputs, expected, strict=True):
        assert np.array_equal(got, want)
    chosen = mechanism.choose(documents)
    assert chosen.shape == (len(documents),)
    assert chosen.min() >= 0 and chosen.max() < len(mechanism.pack.candidates)


# -- worker threads inside one call (set_num_threads) ----------------------------------------------


@pytest.fixture
def worker_threads():
    """set_num_threads(3) for the test, restored after (the OpenMP count of this thread too)."""
    saved, omp = native._threads, faiss.omp_get_max_threads()
    edgedp.set_num_threads(3)
    yield 3
    native._threads = saved
    faiss.omp_set_num_threads(omp)


def recording_releases(monkeypatch, mechanism_class):
    """Record (thread name, its OpenMP thread count, ids) of every _release call."""
    calls = []
    real = mechanism_class._release

    def recording(self, ids):
        calls.append((threading.current_thread().name, faiss.omp_get_max_threads(), ids.copy()))
        return real(self, ids)

    monkeypatch.setattr(mechanism_class, "_release", recording)
    return calls


@pytest.mark.native
@native_process
def test_a_large_batch_is_spread_over_worker_threads_in_order(
    worker_threads, monkeypatch, default_pack
):
    # flip probability 2**-64; nearest: the mechanism's own release, which _release runs
    identity = edgedp.BRR(default_pack, epsilon=50.0, protect=(), decode="nearest")
    identity.privatize("hi")  # the first call's keep-rate estimate releases public words too
    calls = recording_releases(monkeypatch, edgedp.BRR)
    texts = [f"the {word} sat on the mat number {i}" for i, word in enumerate(["cat", "dog"] * 300)]
    assert identity.privatize_batch(texts) == [text.lower() for text in texts]
    ids = np.arange(5000)
    assert np.array_equal(identity.privatize_ids(ids), ids)
    workers = {name for name, _, _ in calls if name.startswith("edgedp-worker")}
    assert len(workers) >= 2  # the work really went to the worker threads
    assert {threads for _, threads, _ in calls} == {
        1
    }  # one OpenMP thread each: no oversubscription
    assert sum(len(ids) for name, _, ids in calls[-2 * worker_threads :]) == 5000


def test_a_small_batch_stays_on_the_calling_thread(worker_threads, monkeypatch, default_pack):
    brr = edgedp.BRR(default_pack, epsilon=0.5, decode="nearest")
    brr.privatize("hi")  # the first call's keep-rate estimate releases public words too
    calls = recording_releases(monkeypatch, edgedp.BRR)
    brr.privatize("a short message of a few words")
    assert [name for name, _, _ in calls] == [threading.current_thread().name]


def test_a_seeded_mechanism_stays_reproducible(worker_threads, monkeypatch, default_pack, seeded):
    ids = np.arange(0, 20_000, 3)
    threaded = edgedp.BRR(default_pack, epsilon=0.5, rng=seeded(9)).privatize_ids(ids)
    native._threads = None
    assert np.array_equal(
        threaded, edgedp.BRR(default_pack, epsilon=0.5, rng=seeded(9)).privatize_ids(ids)
    )


def test_worker_threads_draw_independent_noise(worker_threads, default_pack):
    # the same word 4,000 times at a low epsilon: equal runs would mean shared noise across tasks
    out = edgedp.BRR(default_pack, epsilon=0.3).privatize_ids(np.full(4000, 7))
    runs = np.array_split(out, 2 * worker_threads)
    assert len({run.tobytes() for run in runs}) == len(runs)
    assert len(set(out.tolist())) > 1000


@pytest.mark.parametrize("epsilon", [0.4, 1.2])
def test_the_output_law_is_the_exact_one_on_worker_threads(worker_threads, tmp_path, epsilon):
    # Four words with 4-bit codes (ties included); the exact BRR law, computed over every noisy code
    codes_int = [0b0000, 0b0110, 0b1010, 0b1111]
    path = write_word_pack(tmp_path / "p", ["a", "b", "c", "d"], all_codes(4)[codes_int])
    brr = edgedp.BRR(edgedp.load_pack(path), epsilon=epsilon)  # OS entropy: threaded
    exact = brr_exact_distribution(codes_int, 4, rr_flip_threshold(epsilon) / 2**64)
    n = 40_000
    for word in range(4):
        counts = np.bincount(brr.privatize_ids(np.full(n, word)), minlength=4)
        expected = exact[word] * n
        assert counts[expected == 0].sum() == 0
        assert stats.chisquare(counts[expected > 0], expected[expected > 0]).pvalue > 1e-4


@pytest.mark.parametrize("name", ["madlib", "vickrey"])
def test_euclidean_mechanisms_on_worker_threads(worker_threads, euclid_pack, name):
    built = {
        "madlib": lambda: edgedp.Madlib(euclid_pack, epsilon=1e6),
        "vickrey": lambda: edgedp.Vickrey(euclid_pack, epsilon=1e6, t=0.0),
    }[name]()
    ids = np.tile(np.arange(len(euclid_pack.vocabulary)), 10)
    assert np.array_equal(built.privatize_ids(ids), ids)  # nearly no noise: every word itself


def test_a_stream_on_worker_threads_keeps_the_sentence_state(
    worker_threads, monkeypatch, default_pack
):
    # A piece's segmentation depends on where the one before ended (a capitalized common word is a
    # proper noun inside a sentence, not at its start): the stream on worker threads must protect
    # exactly the slots that the whole text on the calling thread does.
    calls = recording_releases(monkeypatch, edgedp.BRR)
    mechanism = edgedp.BRR(
        default_pack, epsilon=50.0, oov="mask", protect=("proper-nouns",), decode="nearest"
    )
    text = "the Dog ran to The Cat and A Hat fell. Then Dog sat; The end\n" * 500
    pieces = (text[start : start + 1000] for start in range(0, len(text), 1000))
    streamed = "".join(privatize_stream(mechanism, pieces))
    assert any(name.startswith("edgedp-worker") for name, _, _ in calls)
    native._threads = None
    assert streamed == mechanism.privatize(text)
    assert streamed.count("[OOV]") == 500 * 7  # every capital but "Then", which starts a sentence
