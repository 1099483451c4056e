"""Randomized response: flip rate, independence, and the exact metric-DP inequality."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import all_codes, rr_exact_probability
from scipy import stats

from edgedp.errors import InputError
from edgedp.noise import rr_flip_threshold
from edgedp.randomized_response import flip_mask, randomized_response


@pytest.mark.parametrize("epsilon", [0.1, 0.5, 1.0, 2.0, 4.0, 8.0])
def test_flip_rate_matches_one_over_one_plus_e_epsilon(seeded, epsilon):
    n_codes, bits = 4000, 256
    codes = np.zeros((n_codes, bits // 8), dtype=np.uint8)
    flips = np.unpackbits(randomized_response(codes, epsilon, seeded(1)), axis=1).sum()
    p = 1 / (1 + math.exp(epsilon))
    low, high = stats.binom.ppf([1e-6, 1 - 1e-6], n_codes * bits, p)
    assert low <= flips <= high


def test_flips_are_independent_across_positions(seeded):
    masks = np.unpackbits(flip_mask(50_000, 16, 1.0, seeded(2)), axis=1).astype(bool)
    p = 1 / (1 + math.e)
    for i, j in [(0, 1), (3, 11), (7, 8), (14, 15)]:
        table = np.array(
            [
                [np.sum(masks[:, i] & masks[:, j]), np.sum(masks[:, i] & ~masks[:, j])],
                [np.sum(~masks[:, i] & masks[:, j]), np.sum(~masks[:, i] & ~masks[:, j])],
            ]
        )
        assert stats.chi2_contingency(table).pvalue > 1e-4
    # per-position rates are all the same
    rates = masks.mean(axis=0)
    assert np.all(np.abs(rates - p) < 6 * math.sqrt(p * (1 - p) / masks.shape[0]))


def test_flip_count_per_code_is_binomial(seeded):
    masks = np.unpackbits(flip_mask(20_000, 64, 0.7, seeded(3)), axis=1).sum(axis=1)
    p = 1 / (1 + math.exp(0.7))
    observed = np.bincount(masks, minlength=65)
    expected = stats.binom.pmf(np.arange(65), 64, p) * masks.size
    keep = expected > 5
    observed_kept = np.append(observed[keep], observed[~keep].sum())
    expected_kept = np.append(expected[keep], expected[~keep].sum())
    assert stats.chisquare(observed_kept, expected_kept).pvalue > 1e-4


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 2.5])
def test_exact_distribution_satisfies_metric_dp_for_all_pairs(epsilon):
    bits = 4
    flip = rr_flip_threshold(epsilon) / 2**64
    for x in range(2**bits):
        for x2 in range(2**bits):
            distance = bin(x ^ x2).count("1")
            for y in range(2**bits):
                ratio = rr_exact_probability(x, y, bits, flip) / rr_exact_probability(
                    x2, y, bits, flip
                )
                assert ratio <= math.exp(epsilon * distance) * (1 + 1e-12)


def test_implementation_matches_the_exact_distribution(seeded):
    bits, epsilon, n = 4, 0.8, 80_000
    flip = rr_flip_threshold(epsilon) / 2**64
    x = 0b1010
    codes = np.repeat(all_codes(bits)[[x]], n, axis=0)
    noisy = randomized_response(codes, epsilon, seeded(4))[:, 0] >> 4
    observed = np.bincount(noisy, minlength=16)
    expected = np.array([rr_exact_probability(x, y, bits, flip) for y in range(16)]) * n
    assert stats.chisquare(observed, expected).pvalue > 1e-4


def test_rejects_non_packed_codes(seeded):
    with pytest.raises(InputError):
        randomized_response(np.zeros((2, 4), dtype=np.int32), 1.0, seeded(0))
    with pytest.raises(InputError):
        randomized_response([[0, 1]], 1.0, seeded(0))
