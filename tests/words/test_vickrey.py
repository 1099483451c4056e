"""Vickrey mechanisms: selection probabilities, reductions to Madlib/BRR, the input word stays a
candidate, and the exact Hamming-space distribution is metric DP."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from helpers import all_codes, metric_dp_violations, vickrey_exact_distribution, write_word_pack
from scipy import stats

import edgedp
from edgedp.errors import InputError, PrivacyParameterError
from edgedp.privacy.noise import rr_flip_threshold
from edgedp.words.vickrey import choose_by_weights, choose_first_or_second, first_choice_probability


@pytest.mark.parametrize("t", [0.0, 0.25, 0.5, 0.75, 1.0])
def test_first_choice_probability_formula(t):
    d1, d2 = np.array([1.0, 2.0, 0.0, 3.0]), np.array([2.0, 5.0, 4.0, 3.0])
    expected = [
        (1 - t) * b / (t * a + (1 - t) * b) if a != b and t * a + (1 - t) * b > 0 else 1 - t
        for a, b in zip(d1, d2, strict=True)
    ]
    assert np.allclose(first_choice_probability(d1, d2, t), expected)


@pytest.mark.parametrize("t", [0.3, 0.5, 0.9])
def test_selection_frequencies_match_the_formula(seeded, t):
    n = 60_000
    distances = np.tile([[1.0, 3.0]], (n, 1))
    ids = np.tile([[7, 9]], (n, 1))
    chosen = choose_first_or_second(ids, distances, t, seeded(5))
    p_first = (1 - t) * 3.0 / (t * 1.0 + (1 - t) * 3.0)
    observed = [np.sum(chosen == 7), np.sum(chosen == 9)]
    assert stats.chisquare(observed, [p_first * n, (1 - p_first) * n]).pvalue > 1e-4


def test_generalized_selection_frequencies(seeded):
    n, weights = 60_000, np.array([1.0, 0.5, 2.0])
    distances = np.tile([[0.5, 1.0, 1.5]], (n, 1))
    chosen = choose_by_weights(np.tile([[1, 2, 3]], (n, 1)), distances, weights, seeded(6))
    scores = np.exp(-weights * distances[0])
    expected = scores / scores.sum() * n
    assert stats.chisquare(np.bincount(chosen, minlength=4)[1:], expected).pvalue > 1e-4


def test_generalized_with_two_equal_weights_and_a_tie_is_alg1_at_one_half(seeded):
    n = 40_000
    distances = np.tile([[2.0, 2.0]], (n, 1))
    ids = np.tile([[0, 1]], (n, 1))
    generalized = choose_by_weights(ids, distances, np.array([0.7, 0.7]), seeded(1))
    alg1 = choose_first_or_second(ids, distances, 0.5, seeded(2))
    for chosen in (generalized, alg1):
        assert abs(chosen.mean() - 0.5) < 4 * math.sqrt(0.25 / n)


@pytest.mark.parametrize(
    ("d1", "d2", "t", "t1"), [(1.0, 3.0, 0.5, 0.5), (2.0, 5.0, 0.8, 0.3), (0.5, 4.0, 0.2, 1.0)]
)
def test_generalized_k2_matches_alg1_with_distinct_distances(seeded, d1, d2, t, t1):
    # Alg. 1's p at (d1, d2, t); t2 solves exp(-t1 d1) / (exp(-t1 d1) + exp(-t2 d2)) = p.
    p = (1 - t) * d2 / (t * d1 + (1 - t) * d2)
    t2 = (math.log(p / (1 - p)) + t1 * d1) / d2
    assert t2 >= 0 and abs(p - (1 - t)) > 0.05  # valid weights; p differs from the tie rule
    assert math.isclose(math.exp(-t1 * d1) / (math.exp(-t1 * d1) + math.exp(-t2 * d2)), p)
    n = 60_000
    distances = np.tile([[d1, d2]], (n, 1))
    ids = np.tile([[0, 1]], (n, 1))
    generalized = choose_by_weights(ids, distances, np.array([t1, t2]), seeded(11))
    alg1 = choose_first_or_second(ids, distances, t, seeded(12))
    for chosen in (generalized, alg1):
        assert stats.binomtest(int(np.sum(chosen == 0)), n, p).pvalue > 1e-4


@pytest.mark.parametrize("space", ["euclidean", "hamming"])
def test_t_zero_is_the_plain_nearest_neighbour_mechanism(euclid_pack, seeded, space):
    ids = np.arange(200)
    vickrey = edgedp.Vickrey(
        euclid_pack,
        epsilon=3.0 if space == "euclidean" else 0.4,
        t=0.0,
        geometry=space,
        rng=seeded(4),
    )
    generalized = edgedp.GeneralizedVickrey(
        euclid_pack, epsilon=vickrey.epsilon, weights=[0.0], geometry=space, rng=seeded(4)
    )
    plain_class = edgedp.Madlib if space == "euclidean" else edgedp.BRR
    plain = plain_class(euclid_pack, epsilon=vickrey.epsilon, rng=seeded(4))
    expected = plain.privatize_ids(ids)
    assert np.array_equal(vickrey.privatize_ids(ids), expected)
    assert np.array_equal(generalized.privatize_ids(ids), expected)


def test_the_input_word_remains_a_candidate(euclid_pack, seeded):
    # Nearly no noise: the perturbed point is the input word itself. With the printed algorithm
    # (input excluded) the input could never be output; following the proof it is chosen 1 - t of
    # the time (d1 = 0 < d2).
    ids = np.arange(200)
    out = edgedp.Vickrey(euclid_pack, epsilon=1e6, t=0.5, rng=seeded(8)).privatize_ids(ids)
    assert np.mean(out == ids) == 1.0  # p_first = (1-t) d2 / (0 + (1-t) d2) = 1 when d1 = 0
    out = edgedp.Vickrey(euclid_pack, epsilon=1e6, t=1.0, rng=seeded(8)).privatize_ids(ids)
    assert np.mean(out == ids) == 0.0  # t = 1 always takes the second nearest


CODES_4BIT = [0b0000, 0b0011, 0b0101, 0b1111, 0b1000]


@pytest.fixture(scope="module")
def four_bit(tmp_path_factory):
    path = write_word_pack(
        tmp_path_factory.mktemp("v") / "four", ["a", "b", "c", "d", "e"], all_codes(4)[CODES_4BIT]
    )
    return edgedp.load_pack(path)


def exact_channel(epsilon, t, *, exclude_input=False):
    """Exact channel on the four_bit pack: its codes fill the top 4 bits of one byte and RR flips
    all 8 bits (the padding shifts d1 and d2 alike, which changes Vickrey's choice), so the
    oracle works on 8-bit codes."""
    flip = rr_flip_threshold(epsilon) / 2**64
    codes = [code << 4 for code in CODES_4BIT]
    return vickrey_exact_distribution(codes, 8, flip, t, exclude_input=exclude_input)


#: (epsilon per bit, t) at which the exact channel is checked and sampled.
SETTINGS = [(0.5, 0.25), (1.0, 0.5), (2.0, 0.9)]


@pytest.mark.parametrize(("epsilon", "t"), SETTINGS)
def test_hamming_vickrey_exact_distribution_is_metric_dp(epsilon, t):
    exact = exact_channel(epsilon, t)
    assert np.allclose(exact.sum(axis=1), 1.0)
    assert metric_dp_violations(exact, CODES_4BIT, epsilon) == []
    # not vacuous: words with different codes have different output distributions
    for i, j in itertools.combinations(range(len(CODES_4BIT)), 2):
        assert np.max(exact[i] / exact[j]) > 1.0


@pytest.mark.parametrize(("epsilon", "t"), [(0.5, 0.0), (1.0, 0.5), (2.0, 0.9)])
def test_excluding_the_input_word_breaks_metric_dp(epsilon, t):
    # The printed algorithm (neighbours among W minus {w}), computed exactly: Pr[M(w) = w] = 0
    # while some other word w' reaches w, so Pr[M(w') = w] / Pr[M(w) = w] is infinite.
    excluded = exact_channel(epsilon, t, exclude_input=True)
    assert np.allclose(excluded.sum(axis=1), 1.0)
    assert (np.diag(excluded) == 0).all()
    infinite = {j for _, j, y in metric_dp_violations(excluded, CODES_4BIT, epsilon) if y == j}
    assert infinite == set(range(len(CODES_4BIT)))  # every word, as an output, is such a w
    assert (np.diag(exact_channel(epsilon, t)) > 0).all()  # what we ship keeps them finite


@pytest.mark.parametrize(("epsilon", "t"), SETTINGS)
def test_hamming_vickrey_samples_match_the_exact_distribution(four_bit, seeded, epsilon, t):
    exact = exact_channel(epsilon, t)
    mechanism = edgedp.Vickrey(four_bit, epsilon=epsilon, t=t, geometry="hamming", rng=seeded(3))
    n = 40_000
    for word in range(len(CODES_4BIT)):
        counts = np.bincount(mechanism.privatize_ids(np.full(n, word)), minlength=5)
        assert counts[word] > 0  # the input word is reachable, unlike the printed algorithm
        keep = exact[word] > 0
        assert counts[~keep].sum() == 0
        assert stats.chisquare(counts[keep], exact[word][keep] * n).pvalue > 1e-4


@pytest.mark.parametrize("bad", [-0.1, 1.1, float("nan"), "0.5"])
def test_t_is_validated(euclid_pack, bad):
    with pytest.raises(PrivacyParameterError):
        edgedp.Vickrey(euclid_pack, epsilon=1.0, t=bad)


@pytest.mark.parametrize("bad", [[], [-1.0], [float("inf")], "12", [True], None])
def test_weights_are_validated(euclid_pack, bad):
    with pytest.raises(PrivacyParameterError):
        edgedp.GeneralizedVickrey(euclid_pack, epsilon=1.0, weights=bad)


def test_space_and_candidates_are_validated(euclid_pack, tiny_pack):
    with pytest.raises(InputError):
        edgedp.Vickrey(euclid_pack, epsilon=1.0, geometry="cosine")
    with pytest.raises(InputError):
        edgedp.GeneralizedVickrey(euclid_pack, epsilon=1.0, weights=[1.0] * 201)
    with pytest.raises(edgedp.AssetError):
        edgedp.Vickrey(tiny_pack, epsilon=1.0, geometry="euclidean")  # needs vectors
    edgedp.Vickrey(tiny_pack, epsilon=1.0, geometry="hamming").privatize_ids([0, 1])
