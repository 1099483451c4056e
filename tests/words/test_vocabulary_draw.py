"""The near-far draw (edgedp.words.vocabulary_draw): the certified far bound, the packs' neighbour tables,
blocks and passes, the radius.

The law of the draw is tested through the mechanisms (tests/words/test_tem.py,
tests/words/test_santext.py: samples against exact channels; tests/words/test_sampling_slack.py:
the realised law of their floats). Here: the one assumption the Euclidean envelope rests on, that
every word a float32 search leaves out is at least the certified bound away (in the mechanism's
float64 distances), on vectors built to make float32 cancel; and the bookkeeping of blocks of
distinct words and of several rounds per pass.
"""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction

import numpy as np
import pytest
from sampling_helpers import chi_square_pvalue, vector_pack

import edgedp
import edgedp.words.vocabulary_draw
from edgedp.cli import main as console_main
from edgedp.errors import AssetError
from edgedp.words.exponential_selection import VectorDistances
from edgedp.words.santext import SanText, SanTextPlus
from edgedp.words.tem import TEM
from edgedp.words.vocabulary_draw import (
    EuclideanNeighbours,
    NeighbourTable,
    euclidean_neighbours,
    hamming_histograms,
    hamming_radius,
    invalid_neighbour_rows,
)


def _hard_vectors(kind: str) -> np.ndarray:
    rng = np.random.default_rng(5)
    if kind == "offset":  # norms ~1000, differences ~0.01: float32 |x|^2 + |y|^2 - 2x.y cancels
        base = 1000.0 * rng.standard_normal(48) / np.sqrt(48)
        return (base + 0.01 * rng.standard_normal((80, 48))).astype(np.float32)
    if kind == "clusters":  # tight clusters and duplicates among spread words
        centres = rng.standard_normal((8, 48)) * 3
        vectors = centres[rng.integers(8, size=80)] + 1e-3 * rng.standard_normal((80, 48))
        vectors[70:] = vectors[:10]
        return vectors.astype(np.float32)
    return rng.standard_normal((80, 48)).astype(np.float32)


@pytest.mark.parametrize("kind", ["offset", "clusters", "plain"])
@pytest.mark.parametrize(("lo", "k"), [(0, 1), (0, 5), (30, 8)])
def test_every_word_left_out_is_beyond_the_certified_bound(kind, lo, k):
    vectors = _hard_vectors(kind)
    table = VectorDistances(vectors)
    neighbours = EuclideanNeighbours(table, lo, len(vectors), k)
    words = np.arange(len(vectors))
    _, ids, bounds = neighbours.search(words)
    found = ids.reshape(len(words), -1)
    exact = [[Fraction(float(v)) for v in row] for row in vectors.astype(np.float64)]
    for x in words:
        others = np.setdiff1d(np.arange(lo, len(vectors)), found[x])
        computed = table.pairs(np.full(len(others), x), others)
        assert (computed >= bounds[x]).all(), (kind, x)  # the mechanism's own distances
        for y in others[:10]:  # and the exact ones
            squared = sum((a - b) ** 2 for a, b in zip(exact[x], exact[y], strict=True))
            assert Fraction(float(bounds[x])) ** 2 <= squared
        if kind == "plain" and lo <= x:  # not vacuous: about the k-th distance (x is the first)
            kth = np.sort(table.pairs(np.full(len(vectors) - lo, x), np.arange(lo, len(vectors))))
            assert bounds[x] >= 0.999 * kth[k - 1]


def test_a_search_that_returns_the_whole_domain_has_no_far_words():
    vectors = _hard_vectors("plain")[:6]
    rows, ids, bounds = EuclideanNeighbours(VectorDistances(vectors), 2, 6, 10).search(np.arange(6))
    assert len(ids) == 24 and set(ids.tolist()) == {2, 3, 4, 5} and np.isinf(bounds).all()
    np.testing.assert_array_equal(rows, np.repeat(np.arange(6), 4))


def test_draws_across_blocks_and_passes_match_the_exact_channel(tmp_path, seeded, monkeypatch):
    # Several distinct words per block boundary, a near set of 2 words (the far branch runs), and
    # passes of a few rounds (entries simulate several rounds each): each word's law is exact.
    line = np.arange(10.0)
    pack = vector_pack(tmp_path, line.reshape(-1, 1))
    monkeypatch.setattr(edgedp.words.vocabulary_draw, "ROWS_PER_BLOCK", 3)
    monkeypatch.setattr(edgedp.words.vocabulary_draw, "ROUNDS_PER_PASS", 64)
    monkeypatch.setattr(edgedp.words.vocabulary_draw, "EUCLIDEAN_NEAR_WORDS", 2)
    mechanism = SanText(pack, epsilon=1.0, rng=seeded(4))
    inputs = np.tile(np.arange(10), 8_000)
    outputs = mechanism.privatize_ids(inputs)
    weights = np.exp(-0.5 * np.abs(line[:, None] - line[None, :]))
    channel = weights / weights.sum(axis=1, keepdims=True)
    for word in range(10):
        assert chi_square_pvalue(outputs[inputs == word], channel[word]) > 1e-4


def test_the_radius_is_within_gamma_and_follows_the_mass(default_pack):
    sample = np.linspace(0, len(default_pack.vocabulary) - 1, 8).astype(np.int64)
    histograms = hamming_histograms(default_pack.index.range_search, default_pack.codes, sample)
    assert (histograms.sum(axis=1) == len(default_pack.vocabulary)).all()
    assert (histograms[:, 0] >= 1).all()  # each word itself
    radii = {c: hamming_radius(histograms, c, 60.0) for c in (0.02, 0.1, 0.5, 2.0)}
    assert all(0 <= r <= 60 for r in radii.values())
    assert radii[2.0] <= radii[0.5]  # a steep law needs fewer exact words
    assert hamming_radius(histograms, 0.5, 3.0) <= 3


# -- the packs' neighbour tables --------------------------------------------------------------------


def _line_channel(epsilon: float, domain: np.ndarray | None = None) -> np.ndarray:
    line = np.arange(10.0)
    weights = np.exp(-epsilon / 2 * np.abs(line[:, None] - line[None, :]))
    if domain is not None:
        weights[:, ~domain] = 0.0
    return weights / weights.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("neighbours", [0, 3])
def test_samplers_with_and_without_a_neighbour_table_match_the_exact_channel(
    tmp_path, seeded, neighbours
):
    # 0: no table, the float32 search of the domain; 3: the table (SanText+ with a sensitive
    # domain of 5 words: rows of frequent words mostly outside it are searched instead).
    pack = vector_pack(tmp_path, np.arange(10.0).reshape(-1, 1), neighbours=neighbours)
    assert (pack.neighbours is None) == (neighbours == 0)
    expected = NeighbourTable if neighbours else EuclideanNeighbours
    assert isinstance(euclidean_neighbours(pack, "test"), expected)
    inputs = np.tile(np.arange(10), 6_000)
    plain = SanText(pack, epsilon=1.0, rng=seeded(1)).privatize_ids(inputs)
    plus = SanTextPlus(pack, epsilon=1.0, p=1.0, sensitive_fraction=0.5, rng=seeded(2))
    restricted = plus.privatize_ids(inputs)
    sensitive = np.arange(10) >= 5
    for word in range(10):
        assert chi_square_pvalue(plain[inputs == word], _line_channel(1.0)[word]) > 1e-4
        law = _line_channel(1.0, sensitive)[word]
        assert chi_square_pvalue(restricted[inputs == word], law) > 1e-4


def test_a_table_is_what_the_search_finds(tmp_path):
    vectors = _hard_vectors("plain")
    pack = vector_pack(tmp_path, vectors, neighbours=6)
    search = EuclideanNeighbours(VectorDistances(pack.vectors), 0, len(vectors), 6)
    _, ids, bounds = search.search(np.arange(len(vectors)))
    np.testing.assert_array_equal(np.asarray(pack.neighbours).ravel(), ids)
    np.testing.assert_array_equal(pack.neighbour_bounds, bounds)
    assert pack.manifest.data["euclidean"]["neighbours"] == 6


def _rewrite(pack_dir, name: str, array: np.ndarray) -> None:
    """Replace a pack file and make the manifest agree (a consistent rewrite)."""
    path = pack_dir / name
    np.save(path, array)
    content = path.read_bytes()
    manifest = json.loads((pack_dir / "manifest.json").read_text())
    manifest["files"][name] = {"bytes": len(content), "sha256": hashlib.sha256(content).hexdigest()}
    (pack_dir / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize(
    ("name", "change", "message"),
    [
        ("neighbours.npy", lambda a: np.where(a == a[0, 0], 10**6, a), "outside its range"),
        ("neighbours.npy", lambda a: np.concatenate([a[:, :1], a[:, :-1]], axis=1), "repeats"),
        ("neighbour_bounds.npy", lambda a: -a - 1.0, "not finite"),
        ("neighbour_bounds.npy", lambda a: a * np.nan, "not finite"),
    ],
)
def test_a_malformed_neighbour_table_is_refused(tmp_path, name, change, message):
    pack = vector_pack(tmp_path, _hard_vectors("plain")[:60], neighbours=4)
    original = np.load(pack.path / name)
    _rewrite(pack.path, name, change(original).astype(original.dtype))
    with pytest.raises(AssetError, match=message):
        edgedp.load_pack(pack.path)


def test_tem_uses_the_table_and_stays_exact(tmp_path, seeded):
    line = np.arange(10.0)
    pack = vector_pack(tmp_path, line.reshape(-1, 1), neighbours=2)
    tem = TEM(pack, epsilon=1.0, gamma=4.0, rng=seeded(3))
    inputs = np.tile(np.arange(10), 6_000)
    outputs = tem.privatize_ids(inputs)
    weights = np.exp(-0.5 * np.minimum(np.abs(line[:, None] - line[None, :]), 4.0))
    channel = weights / weights.sum(axis=1, keepdims=True)
    for word in range(10):
        assert chi_square_pvalue(outputs[inputs == word], channel[word]) > 1e-4


def test_deep_verification_recomputes_the_bounds_and_catches_a_crafted_table(tmp_path):
    # A consistent rewrite that raises one row's bound passes the checksums and the loader (the
    # table is trusted like the rest of the pack), and is caught by `edgedp packs verify --deep`.
    pack = vector_pack(tmp_path, _hard_vectors("clusters")[:60], neighbours=4)
    assert invalid_neighbour_rows(pack).size == 0
    bounds = np.load(pack.path / "neighbour_bounds.npy")
    bounds[7] = 50.0  # words outside row 7 are closer than that
    _rewrite(pack.path, "neighbour_bounds.npy", bounds)
    crafted = edgedp.load_pack(pack.path)
    assert invalid_neighbour_rows(crafted).tolist() == [7]
    assert console_main(["packs", "verify", str(pack.path)]) == 0
    assert console_main(["packs", "verify", "--deep", str(pack.path)]) == 1


def test_frequent_words_take_their_rows_among_the_rare_ones_from_the_pack(
    tmp_path, seeded, monkeypatch
):
    # SanText+ (default fraction 0.9) releases only the 45 rarest of 50 words; the 5 frequent ones
    # lie together, so their own rows hold no rare word: the pack's table of the frequent words
    # among the rare ones gives their near sets (no search), and the law stays exact.
    positions = np.concatenate([0.1 * np.arange(5), 10.0 + np.arange(45)])
    pack = vector_pack(tmp_path, positions.reshape(-1, 1), neighbours=3)
    suffix = pack.suffix_neighbours
    assert suffix is not None and suffix.start == 5 and suffix.ids.shape == (5, 3)
    assert (np.asarray(suffix.ids) >= 5).all()

    def no_search(*_):
        raise AssertionError("the frequent words' rows are stored")

    monkeypatch.setattr(EuclideanNeighbours, "search", no_search)
    mechanism = SanTextPlus(pack, epsilon=2.0, p=1.0, rng=seeded(8))
    inputs = np.repeat([0, 3], 40_000)
    outputs = mechanism.privatize_ids(inputs)
    weights = np.exp(-np.abs(positions[:, None] - positions[None, 5:]))
    for word in (0, 3):
        law = np.zeros(50)
        law[5:] = weights[word] / weights[word].sum()
        assert chi_square_pvalue(outputs[inputs == word], law) > 1e-4


def test_deep_verification_checks_the_frequent_words_table_too(tmp_path):
    positions = np.concatenate([0.1 * np.arange(5), 10.0 + np.arange(45)])
    pack = vector_pack(tmp_path, positions.reshape(-1, 1), neighbours=3)
    assert invalid_neighbour_rows(pack).size == 0
    bounds = np.load(pack.path / "suffix_neighbour_bounds.npy")
    bounds[2] = 30.0
    _rewrite(pack.path, "suffix_neighbour_bounds.npy", bounds)
    assert invalid_neighbour_rows(edgedp.load_pack(pack.path)).tolist() == [2]
