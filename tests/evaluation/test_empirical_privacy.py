"""Empirical privacy: hand-computed values on exact channels, Monte Carlo agreement, Alg. 2."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import all_codes, brr_exact_distribution, write_word_pack

import edgedp
from edgedp.errors import InputError
from edgedp.evaluation.empirical_privacy import (
    Channel,
    evaluate,
    inference_errors,
    sample_channel,
    select_parameters,
    utility_loss,
)
from edgedp.privacy.noise import rr_flip_threshold

# Two input words, three outputs. f(.|0) = (0.5, 0.5, 0), f(.|1) = (0.25, 0, 0.75), prior (0.6, 0.4).
MATRIX = np.array([[0.5, 0.5, 0.0], [0.25, 0.0, 0.75]])
PRIOR = np.array([0.6, 0.4])


def test_inference_errors_by_hand():
    channel = Channel.from_matrix([0, 1], MATRIX)
    # joint pi(w) f(w'|w): output 0 -> (0.3, 0.1), output 1 -> (0.3, 0), output 2 -> (0, 0.3)
    # posterior-sampling success: 0.3^2/0.4 + 0.1^2/0.4 + 0.3 + 0.3 = 0.85 -> error 0.15
    # MAP success: 0.3 + 0.3 + 0.3 = 0.9 -> error 0.1
    error, map_error = inference_errors(channel, PRIOR)
    assert error == pytest.approx(0.15)
    assert map_error == pytest.approx(0.1)


def test_utility_loss_and_unchanged_by_hand():
    channel = Channel.from_matrix([0, 1], MATRIX)
    changed = lambda inputs, outputs: (inputs != outputs).astype(float)  # noqa: E731
    # loss = 0.6 * 0.5 (0 -> 1) + 0.4 * (0.25 + 0.75) (1 -> 0 or 2) = 0.7
    assert utility_loss(channel, changed, PRIOR) == pytest.approx(0.7)
    result = evaluate(channel, prior=PRIOR, distance=changed)
    assert result.unchanged == pytest.approx((0.5 + 0.0) / 2)
    assert result.utility_loss == pytest.approx(0.7)


def test_uniform_prior_and_bad_inputs():
    channel = Channel.from_matrix([0, 1], MATRIX)
    assert inference_errors(channel)[0] == pytest.approx(
        1 - (0.25**2 + 0.125**2) / 0.375 - 0.25 - 0.375
    )
    with pytest.raises(InputError):
        Channel.from_matrix([0, 1], np.array([[0.5, 0.4], [1.0, 0.0]]))
    with pytest.raises(InputError):
        inference_errors(channel, np.array([1.0, -1.0]))


@pytest.fixture(scope="module")
def four_bit_pack(tmp_path_factory):
    codes_int = [0b0000, 0b0011, 0b0101, 0b1111, 0b1000]
    path = write_word_pack(
        tmp_path_factory.mktemp("e") / "p", ["a", "b", "c", "d", "e"], all_codes(4)[codes_int]
    )
    return edgedp.load_pack(path), codes_int


def test_monte_carlo_converges_to_the_exact_channel(four_bit_pack, seeded):
    pack, codes_int = four_bit_pack
    epsilon = 0.6
    exact = Channel.from_matrix(
        range(5), brr_exact_distribution(codes_int, 4, rr_flip_threshold(epsilon) / 2**64)
    )
    channel, outputs = sample_channel(
        edgedp.BRR(pack, epsilon=epsilon, rng=seeded(1)), range(5), 20_000
    )
    estimated = evaluate(channel, outputs=outputs, rng=seeded(2))
    truth = evaluate(exact)
    low, high = estimated.intervals["inference_error"]
    assert low <= truth.inference_error <= high
    assert abs(estimated.inference_error - truth.inference_error) < 0.01
    assert estimated.unchanged == pytest.approx(truth.unchanged, abs=0.01)
    assert estimated.distinct_outputs <= 5 and estimated.samples_per_word == 20_000


def test_parameter_selection_follows_alg_2(euclid_pack, planted, seeded):
    _, _, labels = planted
    words = np.arange(0, 200, 4)
    other_cluster = lambda inputs, outputs: (labels[inputs] != labels[outputs]).astype(float)  # noqa: E731
    rngs = iter(range(1000))

    def make(epsilon, t):
        return edgedp.Vickrey(euclid_pack, epsilon=epsilon, t=t, rng=seeded(next(rngs)))

    selection = select_parameters(
        make,
        words,
        distance=other_cluster,
        max_loss=0.2,
        epsilon0=0.25,
        samples=100,
        t_grid=(0.25, 0.5, 0.75, 1.0),
    )
    assert selection.utility_loss <= 0.2
    doublings = [p for p in selection.trace if p["t"] == 0.0]
    assert all(p["utility_loss"] >= 0.2 for p in doublings[:-1])
    assert doublings[-1]["utility_loss"] < 0.2
    assert [p["epsilon"] for p in doublings] == [0.25 * 2**i for i in range(len(doublings))]
    feasible = [
        p for p in selection.trace if p["epsilon"] == selection.epsilon and p["utility_loss"] <= 0.2
    ]
    assert selection.inference_error == max(p["inference_error"] for p in feasible)


def test_parameter_selection_accepts_the_last_allowed_doubling(four_bit_pack, seeded):
    # BRR on 4-bit codes: the chance that a word changes is ~0.15 at epsilon 3.2 per bit and
    # ~0.007 at 6.4, so with C = 0.03 Alg. 2 needs exactly five doublings of 0.2.
    pack, _ = four_bit_pack
    changed = lambda inputs, outputs: (inputs != outputs).astype(float)  # noqa: E731
    rngs = iter(range(1000))

    def make(epsilon, t):
        return edgedp.BRR(pack, epsilon=epsilon, rng=seeded(next(rngs)))

    settings = {"distance": changed, "max_loss": 0.03, "epsilon0": 0.2, "samples": 2000}
    selection = select_parameters(make, range(5), max_doublings=5, t_grid=(), **settings)
    assert selection.epsilon == pytest.approx(6.4)
    with pytest.raises(InputError, match=r"up to epsilon 3\.2"):
        select_parameters(make, range(5), max_doublings=4, t_grid=(), **settings)


def test_monte_carlo_e_m_is_unbiased_and_its_interval_covers_with_few_samples(tmp_path, seeded):
    # 64 words with 8-bit codes and 30 samples each: most outputs are seen a handful of times, where
    # the plug-in (c/n)^2 overstates the adversary (E_M 0.946 against a true 0.978) and percentile
    # bootstrap intervals miss the truth every time.
    codes_int = sorted(np.random.default_rng(5).choice(256, 64, replace=False).tolist())
    pack = edgedp.load_pack(
        write_word_pack(tmp_path / "p", [f"w{i}" for i in range(64)], all_codes(8)[codes_int])
    )
    flip = rr_flip_threshold(0.5) / 2**64
    truth = evaluate(Channel.from_matrix(range(64), brr_exact_distribution(codes_int, 8, flip)))
    covered = 0
    for seed in range(6):
        channel, outputs = sample_channel(
            edgedp.BRR(pack, epsilon=0.5, rng=seeded(seed)), range(64), 30
        )
        estimate = evaluate(channel, outputs=outputs, rng=seeded(100 + seed))
        assert abs(estimate.inference_error - truth.inference_error) < 0.006  # sd ~0.0013
        low, high = estimate.intervals["inference_error"]
        covered += low <= truth.inference_error <= high
    assert covered >= 4  # nominal 95 %; 34 of 40 seeds measured
