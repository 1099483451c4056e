"""FAISS Hamming search agrees with a numpy popcount oracle (ties allowed)."""

from __future__ import annotations

import numpy as np
import pytest

from edgedp.errors import InputError
from edgedp.words.hamming import HammingIndex


def oracle_distances(queries: np.ndarray, codes: np.ndarray) -> np.ndarray:
    return np.bitwise_count(queries[:, None, :] ^ codes[None, :, :]).sum(axis=2)


def assert_matches_oracle(index: HammingIndex, codes: np.ndarray, queries: np.ndarray, k: int):
    distances, ids = index.search(queries, k)
    exact = oracle_distances(queries, codes)
    kth = np.sort(exact, axis=1)[:, :k]
    assert np.array_equal(distances, kth)  # the k smallest distances, in order
    returned = np.take_along_axis(exact, ids, axis=1)
    assert np.array_equal(returned, distances)  # ids really are at those distances (any tie is ok)
    assert all(len(set(row)) == k for row in ids.tolist())


@pytest.mark.parametrize(("bits", "k"), [(8, 1), (8, 5), (64, 1), (256, 3)])
def test_random_codes_match_oracle(bits, k):
    rng = np.random.default_rng(bits)
    codes = rng.integers(0, 256, size=(3000, bits // 8), dtype=np.uint8)
    queries = rng.integers(0, 256, size=(200, bits // 8), dtype=np.uint8)
    assert_matches_oracle(HammingIndex(codes), codes, queries, k)


def test_real_codes_match_oracle(default_pack):
    codes = np.asarray(default_pack.codes[:20_000])
    rng = np.random.default_rng(0)
    queries = codes[rng.integers(0, 20_000, 100)] ^ rng.integers(
        0, 256, (100, codes.shape[1]), dtype=np.uint8
    )
    assert_matches_oracle(HammingIndex(codes), codes, queries, 2)


def test_ties_go_to_the_lowest_id():
    codes = np.array([[0b1111_0000], [0b0000_1111], [0b1111_0000]], dtype=np.uint8)
    _, ids = HammingIndex(codes).search(np.array([[0b1111_1111]], dtype=np.uint8), 1)
    assert ids.tolist() == [[0]]


def test_bad_queries_are_rejected():
    index = HammingIndex(np.zeros((4, 2), dtype=np.uint8))
    with pytest.raises(InputError):
        index.search(np.zeros((1, 3), dtype=np.uint8), 1)
    with pytest.raises(InputError):
        index.search(np.zeros((1, 2), dtype=np.uint8), 5)
    with pytest.raises(InputError):
        HammingIndex(np.zeros((0, 2), dtype=np.uint8))
    assert index.search(np.zeros((0, 2), dtype=np.uint8), 1)[1].shape == (0, 1)
