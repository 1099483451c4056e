"""The numpy search tier answers as FAISS does (ties included), and the word path runs without FAISS.

Issue 35: the primitives of edgedp.runtime.knn against FAISS on random and adversarial inputs
(duplicated codes, ties at every place, k = 1 and k > 1, every radius, empty batches); every word
mechanism gives the same output for a fixed seed on both tiers; ``EDGEDP_BACKEND=numpy`` with FAISS
hidden runs ``edgedp privatize`` and ``edgedp info``; ``native`` without FAISS and a bogus value
give one error line.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import faiss
import numpy as np
import pytest

import edgedp
from edgedp.runtime import knn as search
from edgedp.runtime.backend import VARIABLE
from edgedp.words.custext import euclidean_output_sets, hamming_output_sets
from edgedp.words.euclidean import EuclideanIndex
from edgedp.words.exponential_selection import vector_distances

TIERS = ("native", "numpy")


def adversarial_codes(rng: np.random.Generator, count: int, width: int) -> np.ndarray:
    """Codes from a few distinct values: many duplicates and many equal distances."""
    distinct = rng.integers(0, 256, (max(1, count // 20), width), dtype=np.uint8)
    distinct[:, 1:] &= 0x81  # most bits agree: distances bunch on a few values
    return distinct[rng.integers(0, len(distinct), count)]


@pytest.mark.parametrize("width", [1, 3, 4, 8, 32])
@pytest.mark.parametrize("queries", [0, 1, 7, 16, 17, 300])
def test_hamming_knn_matches_faiss_ties_included(width, queries):
    rng = np.random.default_rng(width * 1000 + queries)
    codes = adversarial_codes(rng, 5000, width)
    points = np.concatenate([codes[: queries // 2], rng.integers(0, 256, (queries, width))])
    points = np.ascontiguousarray(points[:queries], dtype=np.uint8)
    for k in (1, 2, 5, 64):
        expected = faiss.knn_hamming(points, codes, k)
        found = search.hamming_knn(points, codes, k)
        assert np.array_equal(found[0], expected[0]) and np.array_equal(found[1], expected[1])


def test_faiss_orders_equal_hamming_distances_by_id():
    """What the numpy tier copies: FAISS's k nearest codes are sorted by (distance, id)."""
    rng = np.random.default_rng(3)
    codes = adversarial_codes(rng, 20000, 4)
    points = rng.integers(0, 256, (40, 4), dtype=np.uint8)
    _, ids = faiss.knn_hamming(points, codes, 300)
    every = np.unpackbits(points[:, None, :] ^ codes[None], axis=2).sum(axis=2)
    ids_all = np.broadcast_to(np.arange(len(codes)), every.shape)
    assert np.array_equal(ids, np.lexsort((ids_all, every), axis=1)[:, :300])


@pytest.mark.parametrize("queries", [0, 1, 5, 100])
def test_hamming_range_matches_faiss_at_every_radius(queries):
    rng = np.random.default_rng(queries)
    codes = adversarial_codes(rng, 3000, 2)
    points = rng.integers(0, 256, (queries, 2), dtype=np.uint8)
    flat = faiss.IndexBinaryFlat(16)
    flat.add(codes)
    for radius in range(17):
        expected = flat.range_search(points, radius + 1)
        found = search.hamming_range(points, codes, radius)
        for mine, theirs in zip(found, expected, strict=True):
            assert np.array_equal(mine, theirs.astype(np.int64))


@pytest.mark.parametrize("queries", [0, 1, 30, 300])
def test_squared_l2_knn_matches_faiss(queries):
    """The same words up to float32 rounding: ids differ only where distances tie to ~1e-6."""
    rng = np.random.default_rng(queries)
    vectors = rng.standard_normal((3000, 16)).astype(np.float32)
    points = np.ascontiguousarray(rng.standard_normal((queries, 16)), dtype=np.float32)
    for k in (1, 2, 5, 32):
        squared, ids = faiss.knn(points, vectors, k)
        mine_squared, mine_ids = search.squared_l2_knn(points, vectors, k)
        assert np.allclose(mine_squared, squared, rtol=1e-5, atol=1e-5)
        differ = mine_ids != ids
        assert differ.sum() <= 2 * max(1, queries // 100)
        exact = ((points[:, None, :] - vectors[mine_ids]) ** 2).sum(axis=2)
        theirs = ((points[:, None, :] - vectors[ids]) ** 2).sum(axis=2)
        assert np.allclose(exact[differ], theirs[differ], rtol=1e-5)


def test_squared_l2_knn_keeps_the_lowest_ids_of_ties():
    """Duplicated vectors: FAISS's scalar path keeps an unspecified subset of the words tied at the
    k-th place; numpy keeps the lowest ids (both are valid near sets; the module says so)."""
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((50, 8)).astype(np.float32)[rng.integers(0, 50, 2000)]
    _, ids = search.squared_l2_knn(vectors[:10], vectors, 7)
    for row in range(10):
        exact = ((vectors - vectors[row]) ** 2).sum(axis=1)
        assert np.array_equal(ids[row], np.flatnonzero(exact == 0)[:7])


@pytest.mark.parametrize("k", [1, 2, 3, 5, 9])
def test_running_top_keeps_the_k_smallest_by_value_then_id(k):
    rng = np.random.default_rng(k)
    values = rng.integers(0, 6, (20, 1000)).astype(np.float32)  # ties everywhere
    top = search.RunningTop(20, k, np.float32)
    for start in range(0, 1000, 128):
        top.add(values[:, start : start + 128].copy(), start)
    order = np.lexsort((np.broadcast_to(np.arange(1000), values.shape), values), axis=1)[:, :k]
    assert np.array_equal(top.ids, order)
    assert np.array_equal(top.best, np.take_along_axis(values, order, 1))


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.int32])
@pytest.mark.parametrize("k", [2, 5, 16])
def test_running_top_bounds_wide_blocks_exactly(dtype, k, monkeypatch):
    """Wide blocks take the group-minimum bound, or once every row keeps k values the k-th of them
    where that leaves fewer candidates (RunningTop's docstring); the result is still the k
    smallest by (value, id): ties everywhere, the smallest values crowded into one group (c mod
    groups), blocks with a tail of columns beyond the last full group, and a narrow block."""
    bounded = []
    real = search.RunningTop._add_bounded

    def spy(self, values, start):
        bounded.append(values.shape[1])
        return real(self, values, start)

    monkeypatch.setattr(search.RunningTop, "_add_bounded", spy)
    rng = np.random.default_rng(k)
    widths = [16384, 3000, 4100, 100, 9000]  # 3000 = 93 groups of 32 + a tail of 24
    total = sum(widths)
    values = rng.integers(20, 40, (30, total)).astype(dtype)
    values[:, 512:16384:512] = rng.integers(0, 3, (30, 31))  # one group holds the smallest
    values[:7, 20000:20100] = 1  # long runs of ties below the bound, in a later block
    values[-3:] = 5  # a row of one value: every place is a tie
    top = search.RunningTop(30, k, dtype)
    start = 0
    for width in widths:
        top.add(values[:, start : start + width].copy(), start)
        start += width
    assert search.GROUP * search.GROUP_FACTOR * k > 100  # the narrow block was not bounded
    # the first block by its groups; later wide ones by the k-th value kept, but where the three
    # rows of one value (every place a tie) give more candidates than the groups' bound allows
    allowed = search.GROUP * k * len(values)
    assert bounded == [16384] + [w for w in (3000, 4100, 9000) if 3 * w > allowed]
    ids_all = np.broadcast_to(np.arange(total), values.shape)
    order = np.lexsort((ids_all, values), axis=1)[:, :k]
    assert np.array_equal(top.ids, order)
    assert np.array_equal(top.best, np.take_along_axis(values, order, 1))


def test_euclidean_top_16_is_the_exact_nearest_on_both_tiers(monkeypatch):
    """The decoders' search (16 nearest, blocks wide enough to be bounded): the nearest words by
    exact distance, duplicated vectors in id order, the same on both tiers."""
    rng = np.random.default_rng(16)
    vectors = rng.standard_normal((6000, 16)).astype(np.float32)
    vectors[3000:3040] = vectors[10]  # 41 words at one point: ties past the 16th place
    points = np.concatenate([vectors[[10, 11, 5999]], rng.standard_normal((300, 16))])
    exact = np.sqrt(((points[:, None, :] - vectors.astype(np.float64)) ** 2).sum(axis=2))
    order = np.lexsort((np.broadcast_to(np.arange(6000), exact.shape), exact), axis=1)[:, :16]
    found = {}
    for tier in TIERS:
        monkeypatch.setenv(VARIABLE, tier)
        found[tier] = EuclideanIndex(vectors).search(points, 16)
        assert np.array_equal(found[tier][1], order)
        assert np.allclose(found[tier][0], np.take_along_axis(exact, order, 1), rtol=1e-12)
    assert np.array_equal(found["native"][0], found["numpy"][0])


# -- the mechanisms: one fixed seed, the same output on both tiers --------------------------------

MECHANISMS = {
    "brr": lambda pack, rng: edgedp.BRR(pack, epsilon=0.4, rng=rng),
    "madlib": lambda pack, rng: edgedp.Madlib(pack, epsilon=4.0, rng=rng),
    "mahalanobis": lambda pack, rng: edgedp.Mahalanobis(pack, epsilon=4.0, rng=rng),
    "vickrey-euclidean": lambda pack, rng: edgedp.Vickrey(
        pack, epsilon=4.0, geometry="euclidean", rng=rng
    ),
    "vickrey-hamming": lambda pack, rng: edgedp.Vickrey(
        pack, epsilon=0.4, geometry="hamming", rng=rng
    ),
    "tem-euclidean": lambda pack, rng: edgedp.TEM(pack, epsilon=2.0, geometry="euclidean", rng=rng),
    "tem-hamming": lambda pack, rng: edgedp.TEM(pack, epsilon=0.4, geometry="hamming", rng=rng),
    "santext": lambda pack, rng: edgedp.SanText(pack, epsilon=2.0, rng=rng),
    "custext-euclidean": lambda pack, rng: edgedp.CusText(
        pack, epsilon=2.0, k=5, geometry="euclidean", rng=rng
    ),
    "custext-hamming": lambda pack, rng: edgedp.CusText(
        pack, epsilon=2.0, k=5, geometry="hamming", rng=rng
    ),
}


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_every_word_mechanism_gives_the_same_output_on_both_tiers(
    name, euclid_pack, seeded, monkeypatch
):
    ids = np.random.default_rng(1).integers(0, len(euclid_pack.vocabulary), 600)
    released = {}
    for tier in TIERS:
        monkeypatch.setenv(VARIABLE, tier)
        released[tier] = MECHANISMS[name](euclid_pack, seeded(11)).privatize_ids(ids)
    assert np.array_equal(released["native"], released["numpy"])
    assert not np.array_equal(released["numpy"], ids)  # the mechanism did rewrite words


@pytest.mark.parametrize("space", ["hamming", "euclidean"])
def test_custext_builds_the_same_output_sets_on_both_tiers(space, euclid_pack, monkeypatch):
    sets = {}
    for tier in TIERS:
        monkeypatch.setenv(VARIABLE, tier)
        if space == "hamming":
            sets[tier] = hamming_output_sets(np.asarray(euclid_pack.codes), 7)
        else:
            sets[tier] = euclidean_output_sets(vector_distances(euclid_pack, "test"), 7)
    assert np.array_equal(sets["native"], sets["numpy"])


# -- without FAISS: the command line -----------------------------------------------------------------


@pytest.fixture(scope="module")
def without_faiss(tmp_path_factory) -> Path:
    """A path where everything installed is importable but FAISS (links to site-packages)."""
    farm = tmp_path_factory.mktemp("no-faiss")
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.lower().startswith("faiss"):
            (farm / entry.name).symlink_to(entry)
    return farm


def run_cli(farm: Path, backend: str, *args: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from edgedp.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {**os.environ, "PYTHONPATH": str(farm), VARIABLE: backend}
    return subprocess.run(
        [sys.executable, "-S", "-c", code, *args],
        input="The patient was admitted with chest pain.\n",
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_the_numpy_tier_privatizes_and_reports_without_faiss(without_faiss):
    hidden = run_cli(without_faiss, "native", "info")
    assert "faiss-cpu not installed" in hidden.stdout  # FAISS really is out of reach
    info = run_cli(without_faiss, "numpy", "info")
    assert info.returncode == 0, info.stderr
    assert "backends: search numpy, encoder " in info.stdout
    for mechanism in ("brr", "vickrey", "tem"):
        result = run_cli(
            without_faiss, "numpy", "privatize", "--mechanism", mechanism, "--epsilon", "1"
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() and "Traceback" not in result.stderr
    auto = run_cli(without_faiss, "auto", "privatize", "--epsilon", "1")
    assert auto.returncode == 0, auto.stderr  # automatic: numpy when FAISS does not import


def test_native_without_faiss_and_a_bogus_tier_are_one_error_line(without_faiss):
    native = run_cli(without_faiss, "native", "privatize", "--epsilon", "1")
    assert native.returncode == 1
    assert native.stderr.splitlines()[-1].startswith("edgedp: error: EDGEDP_BACKEND=native")
    assert "faiss" in native.stderr and "Traceback" not in native.stderr
    bogus = run_cli(without_faiss, "bogus", "privatize", "--epsilon", "1")
    assert bogus.returncode == 1
    assert bogus.stderr.splitlines() == [
        "edgedp: error: EDGEDP_BACKEND must be one of auto, native, numpy; got 'bogus'"
    ]
