"""ADePT's noise calibrations: the analytic Gaussian sigma and the L2-ball Laplace scale.

The Gaussian sigma is checked three ways: against diffprivlib's independent GaussianAnalytic, against
the exact privacy condition of Balle and Wang (Theorem 8) evaluated with 50-digit arithmetic
(satisfied, and tight: 1e-8 less noise would violate it), and against the classic formula it
improves on.

diffprivlib evaluates Phi with 1 + erf and e^epsilon directly, so its sigma drifts where those lose
precision (measured here: 1.01x too much noise at epsilon = 50; at epsilon = 20 and delta = 1e-9 a
sigma whose exact delta is 9.4x the target). The comparison grid stays where its numerics are sound;
the exact check covers the rest.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import mpmath
import pytest
from diffprivlib.mechanisms import GaussianAnalytic

from edgedp.errors import PrivacyParameterError
from edgedp.privacy.noise import analytic_gaussian_sigma, l2_ball_laplace_scale, laplace_scale

DIFFPRIVLIB_EPSILONS = [0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0]
DIFFPRIVLIB_DELTAS = [1e-2, 1e-4, 1e-6, 1e-8]
EXACT_EPSILONS = [1e-3, 0.1, 1.0, 5.0, 20.0, 50.0, 100.0, 1000.0]
EXACT_DELTAS = [0.1, 1e-5, 1e-10, 1e-15]


def exact_delta(ratio: float, epsilon: float) -> mpmath.mpf:
    """Phi(a - b) - e^epsilon Phi(-a - b), a = 1/(2 ratio), b = epsilon ratio, at 50 digits."""
    with mpmath.workdps(50):
        r, e = mpmath.mpf(ratio), mpmath.mpf(epsilon)
        a, b = 1 / (2 * r), e * r
        return mpmath.ncdf(a - b) - mpmath.exp(e) * mpmath.ncdf(-a - b)


@pytest.mark.parametrize("epsilon", DIFFPRIVLIB_EPSILONS)
@pytest.mark.parametrize("delta", DIFFPRIVLIB_DELTAS)
def test_sigma_agrees_with_diffprivlib(epsilon, delta):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = GaussianAnalytic(epsilon=epsilon, delta=delta, sensitivity=2.0)
    assert analytic_gaussian_sigma(2.0, epsilon, delta) == pytest.approx(reference._scale, rel=1e-6)


@pytest.mark.parametrize("epsilon", EXACT_EPSILONS)
@pytest.mark.parametrize("delta", EXACT_DELTAS)
def test_sigma_satisfies_the_exact_condition_and_is_tight(epsilon, delta):
    ratio = analytic_gaussian_sigma(1.0, epsilon, delta)
    assert exact_delta(ratio, epsilon) <= delta
    assert exact_delta(ratio * (1 - 1e-8), epsilon) > delta


@pytest.mark.parametrize(("epsilon", "delta"), [(0.1, 1e-5), (0.5, 1e-6), (0.9, 1e-3)])
def test_less_noise_than_the_classic_formula_below_epsilon_one(epsilon, delta):
    classic = math.sqrt(2 * math.log(1.25 / delta)) / epsilon
    assert analytic_gaussian_sigma(1.0, epsilon, delta) < classic


def test_sigma_scales_with_sensitivity_rounded_up():
    unit = analytic_gaussian_sigma(1.0, 3.0, 1e-6)
    for sensitivity in (0.1, 2.0, 3.0, 1e3):
        sigma = analytic_gaussian_sigma(sensitivity, 3.0, 1e-6)
        assert Fraction(sigma) >= Fraction(unit) * Fraction(sensitivity)
        assert sigma == pytest.approx(unit * sensitivity, rel=1e-15)


def test_sigma_decreases_with_epsilon_and_delta():
    sigmas = [analytic_gaussian_sigma(1.0, epsilon, 1e-6) for epsilon in (0.5, 1, 2, 4, 8, 16)]
    assert sigmas == sorted(sigmas, reverse=True)
    sigmas = [analytic_gaussian_sigma(1.0, 1.0, delta) for delta in (1e-12, 1e-8, 1e-4, 1e-1)]
    assert sigmas == sorted(sigmas, reverse=True)


def test_extreme_epsilons_are_served():
    assert 0 < analytic_gaussian_sigma(1.0, 1e6, 1e-5) < 1e-2
    assert analytic_gaussian_sigma(1.0, 1e-8, 1e-5) > 1e4


@pytest.mark.parametrize(
    ("sensitivity", "epsilon", "delta"),
    [
        (0.0, 1.0, 1e-5),
        (-1.0, 1.0, 1e-5),
        (math.inf, 1.0, 1e-5),
        (math.nan, 1.0, 1e-5),
        (True, 1.0, 1e-5),
        (1.0, 0.0, 1e-5),
        (1.0, -1.0, 1e-5),
        (1.0, 1.0, 0.0),
        (1.0, 1.0, 1.0),
        (1.0, 1.0, math.nan),
    ],
)
def test_bad_parameters_are_refused(sensitivity, epsilon, delta):
    with pytest.raises(PrivacyParameterError):
        analytic_gaussian_sigma(sensitivity, epsilon, delta)


# -- Laplace on an L2 ball ----------------------------------------------------------------------


@pytest.mark.parametrize(("radius", "dims"), [(1.0, 1), (1.0, 32), (0.3, 7), (2.5, 384), (1e-3, 3)])
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 37.0])
def test_l2_ball_laplace_scale_is_2c_sqrt_d_over_epsilon_rounded_up(radius, dims, epsilon):
    scale = l2_ball_laplace_scale(radius, dims, epsilon)
    exact_squared = 4 * Fraction(radius) ** 2 * dims / Fraction(epsilon) ** 2
    assert Fraction(scale) ** 2 >= exact_squared  # never less noise than 2C sqrt(d) / epsilon
    assert scale == pytest.approx(2 * radius * math.sqrt(dims) / epsilon, rel=1e-15)


def test_the_papers_2c_over_epsilon_is_sqrt_d_times_too_small():
    # The L1 diameter of the L2 ball is reached by x = C (1, ..., 1) / sqrt(d) and -x.
    dims, radius = 32, 1.0
    x = [radius / math.sqrt(dims)] * dims
    l1_distance = sum(abs(a - (-a)) for a in x)
    assert l1_distance == pytest.approx(2 * radius * math.sqrt(dims))
    papers = laplace_scale(2 * radius, 1.0)
    assert l2_ball_laplace_scale(radius, dims, 1.0) / papers == pytest.approx(math.sqrt(dims))


@pytest.mark.parametrize(("radius", "dims"), [(0.0, 3), (math.inf, 3), (1.0, 0), (1.0, 2.5)])
def test_l2_ball_laplace_scale_refuses_bad_geometry(radius, dims):
    with pytest.raises(PrivacyParameterError):
        l2_ball_laplace_scale(radius, dims, 1.0)
