"""Randomized response: flip rate, independence, and the exact metric-DP inequality."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from helpers import all_codes, rr_exact_probability
from scipy import stats

from edgedp.errors import InputError
from edgedp.privacy.noise import rr_flip_threshold, rr_realised_epsilon
from edgedp.words.hamming import flip_mask, randomized_response


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


def exp_lower_bound(x: Fraction, terms: int = 80) -> Fraction:
    """A rational lower bound on e^x for x >= 0: the Taylor polynomial (all terms positive)."""
    total, term = Fraction(0), Fraction(1)
    for k in range(1, terms + 1):
        total += term
        term = term * x / k
    return total


class RecordingSource:
    """Delegates to a RandomSource and records the Bernoulli thresholds asked for."""

    def __init__(self, rng):
        self.rng, self.thresholds = rng, []

    def bernoulli(self, threshold, size):
        self.thresholds.append(threshold)
        return self.rng.bernoulli(threshold, size)


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 2.5, 8.0])
def test_shipped_flip_probability_gives_epsilon_hamming_metric_dp(seeded, epsilon):
    threshold = rr_flip_threshold(epsilon)
    source = RecordingSource(seeded(0))
    randomized_response(np.zeros((3, 2), dtype=np.uint8), epsilon, source)
    assert source.thresholds == [threshold]  # what ships flips w.p. exactly T / 2**64
    flip = Fraction(threshold, 2**64)
    q = (1 - flip) / flip  # per-bit likelihood ratio, (2**64 - T) / T
    # q <= e^epsilon, rigorously (Fraction(epsilon) is the float's exact value), so q**d <= e^(eps d)
    assert 1 < q <= exp_lower_bound(Fraction(epsilon))
    assert rr_realised_epsilon(threshold) <= epsilon


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
