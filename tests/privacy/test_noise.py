"""Epsilon -> noise parameter conversions round toward more privacy, exactly at the boundary."""

from __future__ import annotations

import math
from decimal import Context, Decimal
from fractions import Fraction

import pytest

from edgedp.errors import PrivacyParameterError
from edgedp.privacy.noise import (
    LOG_WEIGHT_ROUNDING,
    exponential_mechanism_coefficient,
    gumbel_max_coefficient,
    laplace_scale,
    multivariate_laplace_radius_scale,
    rr_flip_threshold,
    rr_realised_epsilon,
    scale_at_least,
    sum_at_least,
)
from edgedp.privacy.realised_distributions import gumbel_max_slack

_HIGH = Context(prec=120, Emax=10**6)


def _exact_flip_times_2_64(epsilon: float) -> Decimal:
    return _HIGH.divide(2**64, _HIGH.add(1, _HIGH.exp(Decimal(epsilon))))


@pytest.mark.parametrize(
    "epsilon", [1e-12, 1e-3, 0.1, 0.5, 1.0, 2.0, math.log(3), 4.0, 8.0, 20.0, 40.0, 44.3]
)
def test_rr_threshold_is_the_smallest_private_integer(epsilon):
    threshold = rr_flip_threshold(epsilon)
    exact = _exact_flip_times_2_64(epsilon)
    assert Decimal(threshold) >= exact  # never fewer flips than the exact mechanism
    assert Decimal(threshold - 1) < exact  # and the smallest such integer
    assert rr_realised_epsilon(threshold) <= epsilon
    if threshold > 1:
        # one fewer would be less private than asked
        assert _HIGH.ln(_HIGH.divide(2**64 - threshold + 1, threshold - 1)) > Decimal(epsilon)


@pytest.mark.parametrize("epsilon", [44.4, 50.0, 1e6, 1e300])
def test_rr_threshold_saturates_at_one(epsilon):
    assert rr_flip_threshold(epsilon) == 1
    assert rr_realised_epsilon(1) == pytest.approx(math.log(2**64 - 1))


def test_rr_threshold_near_zero_epsilon_is_a_fair_coin():
    assert rr_flip_threshold(1e-300) == 2**63


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), "1", None, True])
def test_rr_threshold_rejects_bad_epsilon(bad):
    with pytest.raises(PrivacyParameterError):
        rr_flip_threshold(bad)


@pytest.mark.parametrize(
    ("numerator", "denominator"), [(1.0, 3.0), (2.0, 7.0), (1.0, 0.1), (5.0, 3.0), (1.0, 1e-9)]
)
def test_scale_at_least_rounds_up_and_is_tight(numerator, denominator):
    scale = scale_at_least(numerator, denominator)
    exact = Fraction(numerator) / Fraction(denominator)
    assert Fraction(scale) >= exact
    assert Fraction(math.nextafter(scale, 0.0)) < exact


@pytest.mark.parametrize(
    "values", [[0.1, 0.2, 0.3], [1e16, 1.0, -1e16, 1.0], [0.1] * 384, [1 / 3, 2 / 3, 1e-17]]
)
def test_sum_at_least_rounds_up_and_is_tight(values):
    total = sum_at_least(values)
    exact = sum(map(Fraction, values))
    assert Fraction(total) >= exact
    assert Fraction(math.nextafter(total, -math.inf)) < exact


@pytest.mark.parametrize(
    ("sensitivity", "epsilon"), [(1.0, 3.0), (2.0 * math.sqrt(50), 0.7), (1e-3, 1e3)]
)
def test_laplace_scale_is_sensitivity_over_epsilon_rounded_up(sensitivity, epsilon):
    scale = laplace_scale(sensitivity, epsilon)
    assert Fraction(scale) >= Fraction(sensitivity) / Fraction(epsilon)
    assert Fraction(math.nextafter(scale, 0.0)) < Fraction(sensitivity) / Fraction(epsilon)


@pytest.mark.parametrize("epsilon", [0.1, 3.0, 7.0])
def test_multivariate_laplace_radius_scale(epsilon):
    scale = multivariate_laplace_radius_scale(epsilon)
    assert Fraction(scale) >= 1 / Fraction(epsilon)
    assert Fraction(math.nextafter(scale, 0.0)) < 1 / Fraction(epsilon)


@pytest.mark.parametrize(
    ("epsilon", "sensitivity"), [(1.0, 1.0), (3.0, 1.0), (0.1, 7.0), (23.0, 3.0)]
)
def test_exponential_mechanism_coefficient_rounds_down(epsilon, sensitivity):
    coefficient = exponential_mechanism_coefficient(epsilon, sensitivity)
    exact = Fraction(epsilon) / (2 * Fraction(sensitivity))
    assert Fraction(coefficient) <= exact
    assert Fraction(math.nextafter(coefficient, math.inf)) > exact


def _draw_slack(bound: float, loss: float) -> Fraction:
    """xi of a Gumbel-max draw, exactly: 4 eta plus the rounding of log weights bounded by B."""
    return Fraction(gumbel_max_slack(bound, loss)[0]) + 4 * Fraction(
        LOG_WEIGHT_ROUNDING
    ) * Fraction(bound)


@pytest.mark.parametrize("epsilon", [2e-11, 1e-6, 0.1, 1.0, 23.0, 1000.0, 1e6])
@pytest.mark.parametrize("sensitivity", [1.0, 3.0])
@pytest.mark.parametrize("bound", [0.0, 5.0, 5000.0])
@pytest.mark.parametrize("resolution", [1.0, 0.5, 7.0])
def test_gumbel_max_coefficient_folds_the_slack_below_epsilon_exactly(
    epsilon, sensitivity, bound, resolution
):
    # The realised loss is at most 2 c sensitivity d + xi; it must be <= epsilon d for every
    # d >= resolution, i.e. (epsilon - 2 c sensitivity) resolution >= xi, in exact arithmetic.
    xi = _draw_slack(bound, epsilon)
    if xi >= Fraction(epsilon) * Fraction(resolution):  # e.g. log weights of 5000 at 2e-11
        with pytest.raises(PrivacyParameterError, match="slack"):
            gumbel_max_coefficient(
                epsilon, sensitivity, log_weight_bound=bound, resolution=resolution
            )
        return
    folded = gumbel_max_coefficient(
        epsilon, sensitivity, log_weight_bound=bound, resolution=resolution
    )
    assert folded.folded and Fraction(folded.slack) >= xi
    gap = Fraction(epsilon) - 2 * Fraction(sensitivity) * Fraction(folded.coefficient)
    assert gap * Fraction(resolution) >= xi
    # ... and it gives up no more than twice the slack (not a needlessly flat distribution).
    assert gap * Fraction(resolution) <= 2 * xi + Fraction(epsilon) * 2**-50
    assert folded.delta(10**6) == 0.0  # only the tail event (< 2^-1000) is left, in words


@pytest.mark.parametrize("epsilon", [1e-13, 5e-13, 1e-12])
def test_gumbel_max_coefficient_refuses_an_epsilon_the_slack_uses_up(epsilon):
    xi = _draw_slack(0.0, epsilon)
    assert Fraction(epsilon) <= xi  # ~1.1e-12: 4 eta at the smallest scores
    with pytest.raises(PrivacyParameterError, match="slack"):
        gumbel_max_coefficient(epsilon, 1.0, log_weight_bound=0.0)
    # With resolution 1/1000 (metric DP whose closest distinct inputs are 1e-3 apart) the slack
    # costs 1000 times more epsilon.
    with pytest.raises(PrivacyParameterError, match="slack"):
        gumbel_max_coefficient(500 * epsilon, 1.0, log_weight_bound=0.0, resolution=1e-3)


def test_gumbel_max_coefficient_without_resolution_states_a_delta():
    # No resolution (Euclidean metric DP): c stays epsilon / (2 sensitivity) and xi becomes
    # delta = e^xi - 1 (rounded up), the extra term included.
    plain = gumbel_max_coefficient(2.0, 1.0, log_weight_bound=30.0, resolution=None, extra=1e-9)
    assert not plain.folded
    assert plain.coefficient == exponential_mechanism_coefficient(2.0, 1.0)
    xi = _draw_slack(30.0, 2.0) + Fraction(1e-9)
    assert Fraction(plain.slack) >= xi
    delta = Fraction(plain.delta(1000))
    assert delta >= xi + xi**2 / 2  # e^xi - 1 >= xi + xi^2 / 2
    assert delta <= 2 * xi
    with pytest.raises(PrivacyParameterError, match="delta above 1/2"):
        gumbel_max_coefficient(2.0, 1.0, log_weight_bound=0.0, resolution=None, extra=0.5)
    for bad in (float("nan"), -1.0, float("inf")):
        with pytest.raises(PrivacyParameterError):
            gumbel_max_coefficient(2.0, 1.0, log_weight_bound=bad)
        with pytest.raises(PrivacyParameterError):
            gumbel_max_coefficient(2.0, 1.0, log_weight_bound=1.0, extra=bad)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_sensitivities_must_be_positive_and_finite(bad):
    with pytest.raises(PrivacyParameterError):
        laplace_scale(bad, 1.0)
    with pytest.raises(PrivacyParameterError):
        exponential_mechanism_coefficient(1.0, bad)
