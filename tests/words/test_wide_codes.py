"""Codes of the widest width a pack may have (65,536 bits): exact search and releases on both tiers.

The pack schema accepts binary codes of 8 to 65,536 bits. Hamming distances between such codes run
from 0 to 65,536, past int16 (32,767) and uint16 (65,535): the numpy tier's k-NN and range
searches must still match a popcount oracle, ties included, as FAISS does, and BRR, Vickrey and TEM
must release the same words on both tiers. The codes are built at chosen distances from one base
code: 0, 1, 32,767, 32,768 (past int16), 32,769, 65,535 and 65,536 (every bit flipped), and
duplicates of each (ties).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import SEEDED_ON_PURPOSE, write_word_pack

import edgedp
from edgedp.errors import AssetError
from edgedp.runtime import knn as search
from edgedp.runtime.backend import VARIABLE
from edgedp.words.hamming import HammingIndex

pytestmark = SEEDED_ON_PURPOSE

TIERS = ("native", "numpy")
#: The widest code a pack may have (edgedp.packs.schema: codes.bits <= 1 << 16).
WIDEST = 1 << 16
#: Distances of the planted codes from the base code, around every integer width's edge.
PLANTED = (0, 1, 2, 32766, 32767, 32768, 32769, 40000, 65534, 65535, 65536)


def flipped(base: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """``base`` (packed, big-endian) with exactly ``count`` of its bits flipped."""
    bits = np.unpackbits(base)
    bits[rng.permutation(len(bits))[:count]] ^= 1
    return np.packbits(bits)


@pytest.fixture(scope="module")
def wide_codes() -> np.ndarray:
    """40 codes of 65,536 bits: each planted distance from the base twice (ties), then random."""
    rng = np.random.default_rng(2024)
    base = rng.integers(0, 256, WIDEST // 8, dtype=np.uint8)
    planted = [flipped(base, count, rng) for count in PLANTED for _ in range(2)]
    spare = rng.integers(0, 256, (40 - len(planted), WIDEST // 8), dtype=np.uint8)
    return np.concatenate([np.stack(planted), spare])


def oracle(queries: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Exact distances (int64), one query at a time (popcounts of the XOR)."""
    return np.stack(
        [np.bitwise_count(codes ^ query).sum(axis=1, dtype=np.int64) for query in queries]
    ).reshape(len(queries), len(codes))


def queries_of(codes: np.ndarray, count: int) -> np.ndarray:
    """``count`` queries: the codes themselves (distances 0 to 65,536 to the others), their
    complements (every distance mirrored) and random codes."""
    rng = np.random.default_rng(count)
    mixed = np.concatenate([codes, ~codes, rng.integers(0, 256, codes.shape, dtype=np.uint8)])
    return np.ascontiguousarray(mixed[rng.permutation(len(mixed))[:count]])


def test_the_planted_codes_span_every_distance_to_the_widest(wide_codes):
    distances = oracle(wide_codes[:1], wide_codes)[0]
    assert set(PLANTED) <= set(distances.tolist())
    assert distances.max() == WIDEST  # past uint16 as well as int16


def test_the_schema_accepts_the_widest_codes_and_nothing_wider(tmp_path, wide_codes):
    words = [f"w{i}" for i in range(len(wide_codes))]
    pack = edgedp.load_pack(write_word_pack(tmp_path / "widest", words, wide_codes))
    assert pack.bits == WIDEST
    wider = np.concatenate([wide_codes, wide_codes[:, :1]], axis=1)
    with pytest.raises(AssetError):
        edgedp.load_pack(write_word_pack(tmp_path / "wider", words, wider))


#: Code widths (bits) tested: the widest whose distances fit int16, the next, and the widest.
WIDTHS = (32760, 32768, WIDEST)


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("count", [5, 70])  # one block of queries; several
@pytest.mark.parametrize("bits", WIDTHS)
def test_knn_of_wide_codes_is_the_oracle_ties_included(tier, count, bits, wide_codes, monkeypatch):
    monkeypatch.setenv(VARIABLE, tier)
    codes = np.ascontiguousarray(wide_codes[:, : bits // 8])
    queries = queries_of(codes, count)
    exact = oracle(queries, codes)
    assert exact.max() == bits or count < 10  # a complement: the farthest distance there is
    ids_all = np.broadcast_to(np.arange(len(codes)), exact.shape)
    order = np.lexsort((ids_all, exact), axis=1)
    for k in (1, 3, 8, len(codes)):  # repeated argmin; a partition; every code
        distances, ids = search.knn_hamming(queries, codes, k)
        assert distances.dtype == np.int32 and ids.dtype == np.int64
        assert np.array_equal(ids, order[:, :k])
        assert np.array_equal(distances, np.take_along_axis(exact, order[:, :k], 1))


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("count", [5, 70])
@pytest.mark.parametrize("bits", WIDTHS)
def test_range_search_of_wide_codes_is_the_oracle(tier, count, bits, wide_codes, monkeypatch):
    monkeypatch.setenv(VARIABLE, tier)
    codes = np.ascontiguousarray(wide_codes[:, : bits // 8])
    index = HammingIndex(codes)
    queries = queries_of(codes, count)
    exact = oracle(queries, codes)
    for radius in (0, 1, 16000, 32759, 32760, 32767, 32768, 40000, 65535, WIDEST):
        lims, distances, ids = index.range_search(queries, radius)
        assert lims.dtype == distances.dtype == ids.dtype == np.int64
        for row in range(count):
            inside = np.flatnonzero(exact[row] <= radius)
            assert np.array_equal(ids[lims[row] : lims[row + 1]], inside)
            assert np.array_equal(distances[lims[row] : lims[row + 1]], exact[row, inside])


@pytest.fixture(scope="module")
def wide_pack(tmp_path_factory, wide_codes) -> edgedp.WordPack:
    """A pack of the 40 codes (every one distinct: the duplicated planted codes get one bit more)."""
    codes = wide_codes.copy()
    codes[1::2, :1] ^= 0x80  # a duplicate is one bit from its twin: distinct words, near ties
    words = [f"w{i}" for i in range(len(codes))]
    return edgedp.load_pack(write_word_pack(tmp_path_factory.mktemp("wide") / "p", words, codes))


RELEASES = {
    "brr": lambda pack, rng, epsilon: edgedp.BRR(pack, epsilon=epsilon, rng=rng),
    "vickrey": lambda pack, rng, epsilon: edgedp.Vickrey(
        pack, epsilon=epsilon, geometry="hamming", rng=rng
    ),
    "tem": lambda pack, rng, epsilon: edgedp.TEM(
        pack, epsilon=epsilon, geometry="hamming", beta=1e-12, rng=rng
    ),
}


@pytest.mark.parametrize("name", sorted(RELEASES))
def test_releases_on_the_widest_codes_keep_every_word_at_a_huge_epsilon(
    name, wide_pack, seeded, monkeypatch
):
    """At 40 per bit nothing is flipped and TEM's bottom has probability ~1e-12: each word comes
    back as itself (wrapped distances would print the lowest id at a wrapped 0, or a word at a
    negative distance)."""
    ids = np.arange(len(wide_pack.vocabulary))
    for tier in TIERS:
        monkeypatch.setenv(VARIABLE, tier)
        released = RELEASES[name](wide_pack, seeded(5), 40.0).privatize_ids(ids)
        assert np.array_equal(released, ids), tier


@pytest.mark.parametrize("name", sorted(RELEASES))
def test_releases_on_the_widest_codes_are_the_same_on_both_tiers(
    name, wide_pack, seeded, monkeypatch
):
    """At 0.002 per bit a noisy code is ~32,700 bits from every word: distances past int16."""
    ids = np.random.default_rng(3).integers(0, len(wide_pack.vocabulary), 60)
    released = {}
    for tier in TIERS:
        monkeypatch.setenv(VARIABLE, tier)
        released[tier] = RELEASES[name](wide_pack, seeded(9), 0.002).privatize_ids(ids)
    assert np.array_equal(released["native"], released["numpy"])
    assert not np.array_equal(released["numpy"], ids)  # the words did move
