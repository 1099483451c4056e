"""Threads share a mechanism safely; process batches keep order and never share noise."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import edgedp
from edgedp.words.parallel import privatize_parallel

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
        built = edgedp.Vickrey(euclid_pack, epsilon=1e6, t=1.0, space="hamming")
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
            euclid_pack, epsilon=50.0, t=0.0, space="hamming"
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
