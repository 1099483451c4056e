"""Euclidean search (one matrix product + running top-k) against a float64 brute-force oracle.

The oracle ranks every word by its float64 distance to the query, ties to the lower id. The index
decides which words are found with float32 scores, so where the oracle's k-th and (k+1)-th
distances are closer than float32 rounding either answer is right; everywhere else the ids must
match, and the returned distances must be the oracle's in float64.
"""

from __future__ import annotations

import numpy as np
import pytest

import edgedp
from edgedp.errors import InputError
from edgedp.words import euclidean
from edgedp.words.euclidean import EuclideanIndex

#: Relative gap between float64 distances below which float32 scores may rank two words either way.
NEAR_TIE = 1e-4


def oracle(vectors: np.ndarray, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    scale = np.maximum(1.0, np.abs(queries).max(axis=1))[:, None, None]
    offsets = (vectors[None].astype(np.float64) - queries[:, None, :]) / scale
    distances = np.sqrt((offsets**2).sum(axis=2)) * scale[:, :, 0]
    ids = np.broadcast_to(np.arange(len(vectors)), distances.shape)
    order = np.lexsort((ids, distances), axis=1)[:, :k]
    return np.take_along_axis(distances, order, 1), order


def assert_matches_oracle(index, vectors, queries, k):
    distances, ids = index.search(queries, k)
    expected_distances, expected_ids = oracle(vectors, queries, k + 1)
    assert ids.dtype == np.int64 and distances.dtype == np.float64
    # the distances of the words found are exact, nearest first
    exact = np.sqrt(((vectors[ids].astype(np.float64) - queries[:, None, :]) ** 2).sum(axis=2))
    assert np.allclose(distances, exact, rtol=1e-12, atol=0.0)
    assert np.all(np.diff(distances, axis=1) >= 0)
    # the words found are the nearest k, unless float32 cannot tell the k-th from the (k+1)-th
    assert np.allclose(distances, expected_distances[:, :k], rtol=NEAR_TIE)
    gap = expected_distances[:, 1:] - expected_distances[:, :-1]
    clear = (gap > NEAR_TIE * expected_distances[:, 1:]).all(axis=1)
    assert clear.mean() > 0.9
    assert np.array_equal(ids[clear], expected_ids[clear, :k])


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 37 words and products of 5 queries: many blocks, many products, ragged ends."""
    monkeypatch.setattr(euclidean, "WORDS_PER_BLOCK", 37)
    monkeypatch.setattr(euclidean, "QUERIES_PER_PRODUCT", 5)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("k", [1, 2, 3, 7])
def test_finds_the_nearest_words(small_blocks, dtype, k):
    rng = np.random.default_rng(k)
    vectors = rng.normal(size=(300, 12)).astype(dtype)
    queries = vectors[rng.integers(300, size=41)].astype(np.float64)
    queries += rng.normal(scale=0.6, size=queries.shape)
    assert_matches_oracle(EuclideanIndex(vectors), vectors, queries, k)


def test_one_block_and_one_product(monkeypatch):
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(500, 8)).astype(np.float32)
    queries = rng.normal(scale=2.0, size=(20, 8))
    assert_matches_oracle(EuclideanIndex(vectors), vectors, queries, 2)


@pytest.mark.parametrize("k", [1, 2])
def test_equal_vectors_tie_to_the_lower_id_across_blocks(small_blocks, k):
    rng = np.random.default_rng(5)
    vectors = rng.normal(size=(120, 6)).astype(np.float32)
    vectors[[90, 50]] = vectors[20]  # three equal vectors in three different blocks of 37
    distances, ids = EuclideanIndex(vectors).search(vectors[[20, 50, 90]].astype(np.float64), k)
    assert np.array_equal(ids, np.tile([20, 50][:k], (3, 1)))
    assert not distances.any()


def test_a_far_query_stays_finite_and_ranks_by_direction(small_blocks):
    # |q| = 1e250: its squared norm and float32 value overflow; divided by max |q_i| it does not.
    rng = np.random.default_rng(8)
    vectors = rng.normal(size=(200, 5)).astype(np.float32)
    direction = rng.normal(size=(3, 5))
    _, ids = EuclideanIndex(vectors).search(direction * 1e250, 1)
    # far away, the nearest word is the one with the largest projection on the direction
    assert np.array_equal(ids[:, 0], np.argmax(direction @ vectors.T.astype(np.float64), axis=1))


@pytest.mark.parametrize("epsilon", [1e-30, 1e-250])
def test_madlib_releases_a_word_at_a_tiny_epsilon(euclid_pack, seeded, epsilon):
    # Before: the noisy point overflowed float32 (FAISS returned no word at 1e-30 and the text
    # came back empty; at 1e-250 the search refused the query).
    words = " ".join(euclid_pack.vocabulary.words[:3])
    out = edgedp.Madlib(euclid_pack, epsilon=epsilon, rng=seeded(1)).privatize(words)
    assert len(out.split()) == 3


@pytest.mark.parametrize(
    ("queries", "k", "message"),
    [
        (np.zeros((2, 5)), 1, "shape"),
        (np.zeros(6), 1, "shape"),
        (np.zeros((2, 6)), 0, "k must"),
        (np.zeros((2, 6)), 11, "k must"),
        (np.full((2, 6), np.nan), 1, "finite"),
        (np.full((2, 6), np.inf), 1, "finite"),
    ],
)
def test_bad_queries_raise_one_typed_error(queries, k, message):
    index = EuclideanIndex(np.eye(10, 6, dtype=np.float32))
    with pytest.raises(InputError, match=message):
        index.search(queries, k)


def test_no_queries_give_empty_answers():
    distances, ids = EuclideanIndex(np.eye(4, dtype=np.float32)).search(np.zeros((0, 4)), 2)
    assert distances.shape == ids.shape == (0, 2)
