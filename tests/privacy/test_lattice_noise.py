"""Issue 24: exact lattice noise (edgedp.privacy.lattice) and its calibration (edgedp.privacy.noise).

The realised laws are computed over bit patterns: every random decision of the samplers is
1[U < exp(-gamma)] for a lazily drawn uniform U, and ``realised.lazy_event_probability`` finds the
exact mass of the bit patterns decided true (to 2^-192) by driving the real samplers with chosen
words. Each exactness test is paired with the broken variant it catches (a float comparison
without the exact path, a proposal rate above rate / sqrt(d)).
"""

from __future__ import annotations

import itertools
import math
from decimal import Context, Decimal
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from edgedp.errors import PrivacyParameterError
from edgedp.privacy import lattice
from edgedp.privacy import realised_distributions as realised
from edgedp.privacy.noise import (
    KNORM_MAX_DIMS,
    LATTICE_STEPS_PER_RADIUS,
    lattice_release,
    zcdp_delta,
    zcdp_epsilon,
    zcdp_rho,
)

_HIGH = Context(prec=90)


def _exp_neg(gamma: Fraction) -> Fraction:
    """exp(-gamma) to 90 digits (far finer than the 2^-192 resolution of the realised bounds)."""
    exponent = _HIGH.divide(Decimal(-gamma.numerator), Decimal(gamma.denominator))
    return Fraction(_HIGH.exp(exponent))


def _within(value: Fraction, bounds: tuple[Fraction, Fraction], slack: Fraction) -> bool:
    low, high = bounds
    return low - slack <= value <= high + slack


def _bernoulli(gamma: Fraction, error_scale: float = 2.0**-50):
    def decide(rng) -> bool:
        approx = np.array([float(gamma)])
        return bool(
            lattice.bernoulli_exp_neg(
                rng, approx, approx * error_scale, lambda _: lattice.exact_gamma(gamma)
            )[0]
        )

    return decide


GAMMAS = [
    Fraction(0),
    Fraction(1, 10**12),
    Fraction(1, 3),
    Fraction(1),
    Fraction(5),
    Fraction(75, 2),
]


@pytest.mark.parametrize("gamma", GAMMAS)
def test_bernoulli_exp_neg_realises_exactly_exp_minus_gamma(gamma):
    bounds = realised.lazy_event_probability(_bernoulli(gamma))
    assert bounds[1] - bounds[0] <= Fraction(1, 2**192)
    assert _within(_exp_neg(gamma), bounds, Fraction(1, 10**80))


def _float_only(rng, approx, error, bounds):
    """The broken variant: one 64-bit word against a float threshold, no exact path."""
    words = rng.uint64(np.asarray(approx).size)
    thresholds = np.floor(np.exp(-np.asarray(approx)) * 2.0**64)
    return words.astype(np.float64) < thresholds


def test_a_float_acceptance_without_the_exact_path_is_caught(monkeypatch):
    gamma = Fraction(1, 3)
    monkeypatch.setattr(lattice, "bernoulli_exp_neg", _float_only)
    bounds = realised.lazy_event_probability(_bernoulli(gamma))
    assert not _within(_exp_neg(gamma), bounds, Fraction(1, 10**80))


def test_the_fast_path_bounds_contain_exp_minus_gamma():
    # The only assumption of the fast path: numpy's exp is within 2^-44 relative. Checked on
    # random exponents over the whole normal range against 90-digit decimals.
    rng = np.random.default_rng(3)
    gammas = np.concatenate([rng.uniform(0, 1, 300), rng.uniform(0, 700, 300), [0.0, 699.99]])
    lower, upper = lattice._fast_bounds(gammas, np.zeros_like(gammas))
    for gamma, low, high in zip(gammas, lower, upper, strict=True):
        exact = _exp_neg(Fraction(float(gamma)))
        assert Fraction(float(low)) <= exact <= Fraction(float(high))


def test_an_undecided_first_word_is_settled_by_the_next_words():
    gamma = Fraction(1, 3)
    boundary = math.floor(_exp_neg(gamma) * 2**64)  # U's first word straddles exp(-1/3)
    for second in (0, 2**63, 2**64 - 1):
        script = boundary.to_bytes(8, "little") + second.to_bytes(8, "little") + bytes(64)
        decided = _bernoulli(gamma)(realised.ScriptedSource(script))
        uniform = Fraction(boundary * 2**64 + second, 2**128)
        assert decided == (uniform < _exp_neg(gamma))


@pytest.mark.parametrize(
    "rate", [Fraction(1, 3), Fraction(7, 2), Fraction(1, 1000), Fraction(3, 10**6)]
)
def test_geometric_tail_is_exactly_exp_minus_m_rate(rate):
    typical = int(1 / rate)
    for m in (0, 1, 2, typical, 5 * typical, 60 * typical):
        bounds = realised.lazy_event_probability(
            lambda rng, m=m: bool(lattice.geometric_exp(rng, rate, 1)[0] >= m)
        )
        assert _within(_exp_neg(m * rate), bounds, Fraction(1, 10**80)), m


def test_discrete_laplace_has_the_exact_law(seeded):
    n = 300_000
    rate = Fraction(1, 7)
    draws = lattice.discrete_laplace(seeded(4), rate, n)
    q = math.exp(-float(rate))
    absolute = np.abs(draws)
    edges = [0, 1, 2, 4, 7, 11, 16, 24, 35, 60]
    observed = [int(((absolute >= a) & (absolute < b)).sum()) for a, b in itertools.pairwise(edges)]
    expected = [
        n * sum((2 if x else 1) * (1 - q) / (1 + q) * q**x for x in range(a, b))
        for a, b in itertools.pairwise(edges)
    ]
    observed.append(n - sum(observed))
    expected.append(n - sum(expected))
    assert stats.chisquare(observed, expected).pvalue > 1e-5
    assert abs(np.mean(draws > 0) - np.mean(draws < 0)) < 0.01


def _knorm_acceptance(z: tuple[int, ...], rate: Fraction, proposal_rate: Fraction):
    squares, absolute = sum(v * v for v in z), sum(abs(v) for v in z)

    def decide(rng) -> bool:
        radial = float(rate) * math.sqrt(squares)
        linear = float(proposal_rate) * absolute
        return bool(
            lattice.bernoulli_exp_neg(
                rng,
                np.array([radial - linear]),
                np.array([(radial + linear) * 2.0**-40]),
                lambda _: lattice.knorm_acceptance(rate, proposal_rate, squares, absolute),
            )[0]
        )

    return decide


def _knorm_realised_ratio(z, rate, proposal_rate):
    """Realised Pr[z] / Pr[0] of the rejection sampler: the proposal's exact ratio
    exp(-r ||z||_1) times the realised acceptance of z (that of 0 is 1)."""
    low, high = realised.lazy_event_probability(_knorm_acceptance(z, rate, proposal_rate))
    proposal = _exp_neg(proposal_rate * sum(abs(v) for v in z))
    return proposal * low, proposal * high


@pytest.mark.parametrize("dims", [2, 3, 4])
def test_knorm_realised_law_is_exactly_exp_minus_rate_norm(dims):
    rate = Fraction(2, 5)
    proposal_rate = rate / lattice.sqrt_upper(dims)
    # The law and the sampler are symmetric in the coordinates and their signs: one point per
    # orbit (0 <= z_1 <= ... <= z_d <= 2), and two with mixed signs.
    orbits = [z for z in itertools.combinations_with_replacement(range(3), dims) if any(z)]
    for z in [*orbits, (-1,) + (2,) * (dims - 1), (2,) + (-2,) * (dims - 1)]:
        target = math.exp(-float(rate) * math.sqrt(sum(v * v for v in z)))
        low, high = _knorm_realised_ratio(z, rate, proposal_rate)
        assert float(low) <= target * (1 + 1e-12) and target * (1 - 1e-12) <= float(high), z
        assert high - low <= Fraction(1, 2**190)


def test_a_proposal_rate_above_rate_over_sqrt_d_is_caught():
    # Rate / 1 instead of rate / sqrt(2): diagonal z have acceptance exponent < 0, the sampler can
    # accept them only with probability 1 and over-weights them.
    rate = Fraction(2, 5)
    z = (2, 2)
    target = math.exp(-float(rate) * math.sqrt(8))
    low, high = _knorm_realised_ratio(z, rate, rate / 1)
    assert not (float(low) <= target * (1 + 1e-12) and target * (1 - 1e-12) <= float(high))


def test_knorm_draws_have_the_gamma_radius_and_no_direction(seeded):
    # At a large scale the lattice law is the continuous one: ||z|| rate ~ Gamma(d, 1).
    dims, rate = 8, Fraction(1, 400)
    draws = lattice.discrete_knorm(seeded(6), dims, rate, 3000).astype(np.float64)
    radius = np.linalg.norm(draws, axis=1) * float(rate)
    assert stats.kstest(radius, stats.gamma(dims).cdf).pvalue > 1e-4
    assert stats.kstest(radius, stats.gamma(dims + 1).cdf).pvalue < 1e-4
    direction = draws / np.linalg.norm(draws, axis=1, keepdims=True)
    # A uniform direction's first coordinate: (x + 1) / 2 ~ Beta((d - 1) / 2, (d - 1) / 2).
    half = (dims - 1) / 2
    assert stats.kstest((direction[:, 0] + 1) / 2, stats.beta(half, half).cdf).pvalue > 1e-4


def test_discrete_gaussian_has_the_exact_law(seeded):
    sigma2 = Fraction(9, 2)
    n = 200_000
    draws = lattice.discrete_gaussian(seeded(8), sigma2, n)
    support = np.arange(-25, 26)
    weights = np.exp(-(support**2) / (2 * float(sigma2)))
    probabilities = weights / weights.sum()
    counts = np.array([(draws == x).sum() for x in support])
    keep = probabilities * n > 20
    observed = [*counts[keep], n - counts[keep].sum()]
    expected = [*(probabilities[keep] * n), n - (probabilities[keep] * n).sum()]
    assert stats.chisquare(observed, expected).pvalue > 1e-5


# -- calibration -----------------------------------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0.5, 3.0, 10.0, 100.0])
@pytest.mark.parametrize("dims", [1, 2, 8, 16])
@pytest.mark.parametrize("clip", [0.05, 0.37, 3.0])
def test_lattice_release_rounds_toward_privacy(epsilon, dims, clip):
    release = lattice_release(clip, dims, epsilon)
    grid = Fraction(release.grid)
    assert grid.numerator == 1 or grid.denominator == 1  # a power of two
    assert release.radius == Fraction(clip) / grid
    assert release.radius >= LATTICE_STEPS_PER_RADIUS * math.sqrt(dims)
    # 2 R for the clip, one step per coordinate on each side for the rounding.
    assert release.sensitivity - 2 * release.radius >= 2 * Fraction(math.sqrt(dims))
    assert release.sensitivity <= 2 * release.radius * (1 + Fraction(1, 2**9))
    assert release.rate * release.sensitivity == Fraction(epsilon)  # exact: e^epsilon at most


def test_pure_epsilon_refuses_more_dims_than_the_sampler_serves():
    lattice_release(0.3, KNORM_MAX_DIMS, 10.0)
    with pytest.raises(PrivacyParameterError, match="delta"):
        lattice_release(0.3, KNORM_MAX_DIMS + 1, 10.0)
    lattice_release(0.3, 64, 10.0, 1e-6)  # the discrete Gaussian serves any dims


@pytest.mark.parametrize(("epsilon", "delta"), [(0.5, 1e-5), (3.0, 1e-6), (10.0, 1e-6), (30, 1e-9)])
def test_gaussian_release_meets_its_zcdp_statement(epsilon, delta):
    release = lattice_release(0.3, 16, epsilon, delta)
    assert release.rho is not None
    assert zcdp_delta(release.rho, epsilon) <= delta
    assert zcdp_epsilon(release.rho, delta) <= epsilon * (1 + 1e-11)  # its bisection's 1e-12
    # Nearly tight: 1 % more rho would break delta.
    assert zcdp_delta(release.rho * 1.01, epsilon) > delta


def test_zcdp_delta_is_below_the_classic_conversion():
    # Bun and Steinke: rho-zCDP is (rho + 2 sqrt(rho ln(1/delta)), delta)-DP. The bound used here
    # (CKS Cor. 13) must be at least as good, and any alpha gives a valid bound.
    for rho in (0.01, 0.3, 2.0):
        for delta in (1e-5, 1e-9):
            classic = rho + 2 * math.sqrt(rho * math.log(1 / delta))
            assert zcdp_epsilon(rho, delta) <= classic + 1e-9
            assert zcdp_rho(zcdp_epsilon(rho, delta), delta) >= rho * (1 - 1e-9)


def _hockey_stick(shift: tuple[int, ...], sigma2: float, epsilon: float, window: int) -> float:
    """Exact delta(epsilon) of discrete Gaussian noise between inputs 0 and ``shift``, summed
    over a window holding all but a negligible mass."""
    axes = [np.arange(-window, window + 1)] * len(shift)
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, len(shift))
    one = np.arange(-window, window + 1)
    normaliser = np.exp(-(one**2) / (2 * sigma2)).sum() ** len(shift)
    p = np.exp(-(grid**2).sum(axis=1) / (2 * sigma2)) / normaliser
    q = np.exp(-((grid - np.array(shift)) ** 2).sum(axis=1) / (2 * sigma2)) / normaliser
    return float(np.maximum(p - math.exp(epsilon) * q, 0.0).sum())


@pytest.mark.parametrize("shift", [(1,), (2,), (1, 1), (2, 1), (1, 1, 1)])
def test_multivariate_discrete_gaussian_realises_at_most_its_stated_delta(shift):
    # The stated (epsilon, delta) of the discrete Gaussian comes from zCDP; the exact hockey-stick
    # divergence of the lattice laws, for integer shifts at the calibrated sensitivity, is below it.
    epsilon, delta = 2.0, 1e-3
    sensitivity = math.sqrt(sum(v * v for v in shift))
    sigma2 = sensitivity**2 / (2 * zcdp_rho(epsilon, delta))
    exact = _hockey_stick(shift, sigma2, epsilon, window=40)
    assert exact <= delta
