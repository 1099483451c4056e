"""Epsilon -> noise-parameter conversions, one function each, all rounding toward more privacy.

A mechanism never computes a noise parameter itself: it calls one of these. Each returns the parameter
for *at least* the privacy asked for, taking the floating-point or integer rounding into account, and
is tested exactly at its boundary (tests/privacy/test_noise.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_CEILING, Context, Decimal
from fractions import Fraction
from functools import lru_cache

import numpy as np

from edgedp.errors import PrivacyParameterError
from edgedp.privacy.randomness import RandomSource
from edgedp.privacy.realised_distributions import (
    LOG_WEIGHT_ROUNDING,
    gumbel_max_slack,
    near_far_slack,
)
from edgedp.privacy.validation import check_delta, check_epsilon, check_positive_int

_DECIMAL = Context(prec=80, Emax=10**6, Emin=-(10**6))
_TWO_POW_64 = 2**64
# Above this epsilon the exact flip probability is below 2**-64 and the threshold is 1 (see below).
_RR_EPSILON_CAP = 64 * math.log(2)


def rr_flip_threshold(epsilon: float) -> int:
    """Integer threshold T for randomized response on one bit at privacy ``epsilon``.

    A bit flips when a uniform 64-bit integer is below T, i.e. with probability T / 2**64. The exact
    flip probability of epsilon-RR is 1 / (1 + e^epsilon); T is that times 2**64 rounded *up* (computed
    with 80 significant digits), so the realised flip probability is never below the exact one and the
    realised privacy loss ln((2**64 - T) / T) never exceeds epsilon. T is at least 1: an epsilon above
    64 ln 2 (~44.4) is served with the realised epsilon ln(2**64 - 1) ~ 44.36, which is more private.
    """
    return _rr_flip_threshold(check_epsilon(epsilon))


@lru_cache(maxsize=1024)
def _rr_flip_threshold(epsilon: float) -> int:
    if epsilon >= _RR_EPSILON_CAP:
        return 1
    exact = _DECIMAL.divide(_TWO_POW_64, _DECIMAL.add(1, _DECIMAL.exp(Decimal(epsilon))))
    return int(exact.to_integral_value(rounding=ROUND_CEILING, context=_DECIMAL))


def rr_realised_epsilon(threshold: int) -> float:
    """The per-bit privacy loss that a flip threshold really gives: ln((2**64 - T) / T).

    Evaluated with 80 significant digits, so the float returned is the correctly rounded value (and
    never above an epsilon whose threshold produced T).
    """
    return float(_DECIMAL.ln(_DECIMAL.divide(_TWO_POW_64 - threshold, threshold)))


def scale_at_least(numerator: float, denominator: float) -> float:
    """``numerator / denominator`` as a float that is never below the exact quotient.

    Noise scales are sensitivity / epsilon; IEEE division rounds to nearest, which can land one ulp
    below the exact value and so give slightly less noise than the proof needs. This rounds up.
    """
    quotient = numerator / denominator
    if Fraction(quotient) < Fraction(numerator) / Fraction(denominator):
        quotient = math.nextafter(quotient, math.inf)
    return quotient


def laplace_scale(l1_sensitivity: float, epsilon: float) -> float:
    """Scale b of the Laplace mechanism, b = l1_sensitivity / epsilon, rounded up.

    Adding Laplace(b) noise to every coordinate of a query with L1 sensitivity Delta_1 gives pure
    epsilon-DP when b >= Delta_1 / epsilon.
    """
    epsilon = check_epsilon(epsilon)
    if not (math.isfinite(l1_sensitivity) and l1_sensitivity > 0):
        raise PrivacyParameterError(
            f"L1 sensitivity must be finite and > 0, got {l1_sensitivity!r}"
        )
    return scale_at_least(l1_sensitivity, epsilon)


def multivariate_laplace_radius_scale(epsilon: float) -> float:
    """Scale of the Gamma(d, scale) radius of noise with density proportional to exp(-epsilon ||z||).

    The radius of that density is Gamma(shape=d, scale=1/epsilon) (Madlib; Fernandes et al.), which
    gives epsilon * d_2 metric DP. Rounded up (more noise).
    """
    return scale_at_least(1.0, check_epsilon(epsilon))


def exponential_mechanism_coefficient(epsilon: float, sensitivity: float) -> float:
    """c such that sampling with probability proportional to exp(c * utility) is epsilon-DP.

    c = epsilon / (2 * sensitivity) (McSherry and Talwar), rounded *down* (flatter distribution).
    """
    epsilon = check_epsilon(epsilon)
    if not (math.isfinite(sensitivity) and sensitivity > 0):
        raise PrivacyParameterError(f"sensitivity must be finite and > 0, got {sensitivity!r}")
    coefficient = epsilon / (2.0 * sensitivity)
    if Fraction(coefficient) > Fraction(epsilon) / (2 * Fraction(sensitivity)):
        coefficient = math.nextafter(coefficient, 0.0)
    return coefficient


@dataclass(frozen=True, slots=True)
class GumbelMaxCoefficient:
    """The coefficient of an exponential mechanism drawn by Gumbel-max over floats, and its slack.

    ``slack`` xi bounds how far one realised draw's log-ratio between two inputs can exceed the
    exact law's: 4 eta of :func:`edgedp.privacy.realised_distributions.gumbel_max_slack`, 4 * 2^-50 B for
    the rounding of
    the log weights (or :func:`edgedp.privacy.realised_distributions.near_far_slack` for the near-far
    draw), and
    the caller's ``extra`` term. ``folded``: xi was taken out of epsilon, so the
    realised loss is at most epsilon * d for every d >= the resolution; otherwise xi is left to the
    guarantee's delta (:meth:`delta`). ``log10_delta``: the Gumbel tail event, per candidate.
    """

    coefficient: float
    slack: float
    log10_delta: float
    folded: bool

    def delta(self, candidates: int) -> float:
        """The delta one draw among ``candidates`` adds to the exact law's: e^xi - 1 if not folded.

        Pr[M(x) in S] <= e^(loss + xi) Pr[M(x') in S] + tail <= e^loss Pr[M(x') in S] + (e^xi - 1)
        + tail (if e^loss Pr[M(x') in S] >= 1 the bound is trivial). Rounded up. The tail event,
        ``candidates`` * 10^log10_delta (below 2^-1000), is carried here only with the unfolded
        slack: a folded draw states it in words, as DeepCandidate does, and returns 0.0.
        """
        if self.folded:
            return 0.0
        tail = check_positive_int(candidates, "candidates") * 2.0**-1000
        return sum_at_least([math.nextafter(math.expm1(self.slack), math.inf), tail])


def gumbel_max_coefficient(
    epsilon: float,
    sensitivity: float,
    *,
    log_weight_bound: float,
    loss_bound: float | None = None,
    resolution: float | None = 1.0,
    extra: float = 0.0,
    near_far_units: int | None = None,
) -> GumbelMaxCoefficient:
    """The coefficient c of exp(c * utility) for a draw by ``choice_from_log_weights``, slack folded.

    :meth:`~edgedp.privacy.randomness.RandomSource.choice_from_log_weights` is Gumbel-max over floats:
    every realised probability is within e^(+-2 eta) of the exact law of the log weights it is
    given (plus a tail event below 2^-1000), so the realised log-ratio between two inputs is the
    exact one plus at most xi (:class:`GumbelMaxCoefficient`). The exact law at coefficient c has
    log-ratio at most 2 c sensitivity d(x, x') (d = 1 for plain DP). With ``resolution`` r (the
    smallest d of two inputs whose log weights can differ: 1 for plain DP and for integer metrics),
    c is computed for epsilon - xi / r, both rounded toward privacy, so 2 c sensitivity d + xi <=
    epsilon d for every d >= r. ``resolution=None`` (no such r is known, as for Euclidean
    distances between arbitrary words) keeps c = epsilon / (2 sensitivity) and leaves xi to delta.

    ``log_weight_bound`` B: a public bound, valid at every coefficient up to epsilon /
    (2 sensitivity), on |w_i| and on max_j w_j - w_i for every finite log weight of a row.
    ``loss_bound``: the largest log-ratio the guarantee allows between two inputs (default
    epsilon; epsilon times the diameter for metric DP), which sizes the Gumbel tail event.
    ``extra``: the caller's own additive term (e.g. the rounding of float distances), at any
    coefficient up to epsilon / (2 sensitivity). ``near_far_units``: the draw is the near-far
    draw of :mod:`edgedp.words.vocabulary_draw` (Gumbel-max rounds with rejection, at most this many near
    units), whose slack is :func:`edgedp.privacy.realised_distributions.near_far_slack`. Refuses
    (PrivacyParameterError) an epsilon that the folded slack would use up, or whose unfolded slack
    would be a delta above 1/2.
    """
    epsilon = check_epsilon(epsilon)
    full = exponential_mechanism_coefficient(epsilon, sensitivity)
    if not (math.isfinite(log_weight_bound) and log_weight_bound >= 0):
        raise PrivacyParameterError(
            f"log_weight_bound must be finite and >= 0, got {log_weight_bound!r}"
        )
    if not (math.isfinite(extra) and extra >= 0):
        raise PrivacyParameterError(f"extra must be finite and >= 0, got {extra!r}")
    loss = epsilon if loss_bound is None else check_epsilon(loss_bound)
    if near_far_units is None:
        gumbel, log10_delta = gumbel_max_slack(log_weight_bound, loss)
        draw = sum_at_least([gumbel, 4.0 * LOG_WEIGHT_ROUNDING * log_weight_bound])
    else:
        draw, log10_delta = near_far_slack(log_weight_bound, loss, near_far_units)
    slack = sum_at_least([draw, extra])
    if resolution is None:
        if math.expm1(slack) >= 0.5:
            raise PrivacyParameterError(
                f"at epsilon {epsilon!r} the floating-point slack {slack:.3g} of the draw would be "
                "a delta above 1/2 (edgedp.privacy.noise.gumbel_max_coefficient)"
            )
        return GumbelMaxCoefficient(full, slack, log10_delta, folded=False)
    resolution = _check_sensitivity(resolution, "resolution")
    fold = scale_at_least(slack, resolution)
    reduced = epsilon - fold
    if Fraction(reduced) > Fraction(epsilon) - Fraction(fold):
        reduced = math.nextafter(reduced, 0.0)
    if not reduced > 0.0:
        raise PrivacyParameterError(
            f"epsilon {epsilon!r} is not above the floating-point slack {fold:.3g} of its "
            "Gumbel-max draw (edgedp.privacy.noise.gumbel_max_coefficient)"
        )
    coefficient = exponential_mechanism_coefficient(reduced, sensitivity)
    return GumbelMaxCoefficient(coefficient, slack, log10_delta, folded=True)


def _check_sensitivity(value: float, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PrivacyParameterError(f"{name} must be a real number, got {value!r}")
    if not (math.isfinite(value) and value > 0):
        raise PrivacyParameterError(f"{name} must be finite and > 0, got {value!r}")
    return float(value)


def sum_at_least(values: list[float]) -> float:
    """The sum of ``values`` as a float that is never below the exact sum (an L1 sensitivity)."""
    exact = sum(map(Fraction, values), Fraction(0))
    total = float(exact)
    if Fraction(total) < exact:
        total = math.nextafter(total, math.inf)
    return total


def product_at_least(left: float, right: float) -> float:
    """``left * right`` as a float that is never below the exact product (both > 0)."""
    product = left * right
    if Fraction(product) < Fraction(left) * Fraction(right):
        product = math.nextafter(product, math.inf)
    return product


def l2_ball_laplace_scale(radius: float, dims: int, epsilon: float) -> float:
    """Per-coordinate Laplace scale for releasing a vector clipped into an L2 ball (ADePT).

    Two points of the L2 ball of radius r in R^d are at most 2r*sqrt(d) apart in L1 norm (x = r *
    (1, ..., 1) / sqrt(d) and -x), so the L1 sensitivity is 2r*sqrt(d) (rounded up here, checked
    exactly) and the scale is 2r*sqrt(d) / epsilon for pure epsilon-DP. The ADePT paper's 2r / epsilon
    treats the L2 radius as an L1 bound and is not epsilon-DP (Habernal, EMNLP 2021).
    """
    return laplace_scale(l2_ball_l1_diameter(radius, dims), epsilon)


def l2_ball_l1_diameter(radius: float, dims: int) -> float:
    """2r*sqrt(d), the L1 diameter of the L2 ball of radius r in R^d, as a float never below it."""
    radius = _check_sensitivity(radius, "radius")
    if isinstance(dims, bool) or not isinstance(dims, int) or dims < 1:
        raise PrivacyParameterError(f"dims must be an integer >= 1, got {dims!r}")
    diameter = product_at_least(2.0 * radius, math.sqrt(dims))
    while Fraction(diameter) ** 2 < 4 * Fraction(radius) ** 2 * dims:
        diameter = math.nextafter(diameter, math.inf)
    return diameter


#: erfc(26) ~ 6e-296: below 26, libm's erfc is accurate and does not underflow.
_ERFC_LIBM_LIMIT = 26.0
_LOG_TWO_OVER_SQRT_PI = math.log(2.0 / math.sqrt(math.pi))


def _log_erfc_bounds(x: float) -> tuple[float, float]:
    """(lower, upper) bounds on ln erfc(x), allowing for rounding in x and in libm.

    Below 26, libm's erfc (a few ulps) with a margin for the rounding already in ``x`` (the
    derivative of ln erfc is about -2x); above, the bounds of Abramowitz and Stegun 7.1.13:
    2 / (x + sqrt(x^2 + 2)) < sqrt(pi) e^(x^2) erfc(x) <= 2 / (x + sqrt(x^2 + 4 / pi)).
    """
    slack = 1e-12 + 1e-14 * x * x
    if x < _ERFC_LIBM_LIMIT:
        value = math.log(math.erfc(x))
        return value - slack, value + slack
    lower = -x * x + _LOG_TWO_OVER_SQRT_PI - math.log(x + math.sqrt(x * x + 2.0))
    upper = -x * x + _LOG_TWO_OVER_SQRT_PI - math.log(x + math.sqrt(x * x + 4.0 / math.pi))
    return lower - slack, upper + slack


def _gaussian_delta_at_most(ratio: float, epsilon: float, log_delta: float) -> bool:
    """True if Gaussian noise of standard deviation ``ratio`` * sensitivity is (epsilon, delta)-DP.

    Balle and Wang (2018), Theorem 8: the mechanism is (epsilon, delta)-DP if and only if
    Phi(a - b) - e^epsilon Phi(-a - b) <= delta with a = 1 / (2 ratio), b = epsilon ratio. Evaluated
    with an upper bound of the first term and a lower bound of the second (Phi(y) = erfc(-y/sqrt2)/2),
    so True is never returned where the exact condition fails.
    """
    a, b = 0.5 / ratio, epsilon * ratio
    first_upper = _log_erfc_bounds((b - a) / math.sqrt(2.0))[1] - math.log(2.0)
    second_lower = (
        epsilon + _log_erfc_bounds((a + b) / math.sqrt(2.0))[0] - math.log(2.0) - 1e-15 * epsilon
    )
    if second_lower >= first_upper:
        return True
    log_difference = first_upper + math.log(-math.expm1(second_lower - first_upper))
    return log_difference + 1e-12 <= log_delta


def analytic_gaussian_sigma(l2_sensitivity: float, epsilon: float, delta: float) -> float:
    """Smallest Gaussian standard deviation (up to 1e-12 relative) giving (epsilon, delta)-DP.

    The analytic Gaussian mechanism of Balle and Wang (ICML 2018, Algorithm 1), valid for every
    epsilon > 0 (the classic sigma = Delta sqrt(2 ln(1.25/delta)) / epsilon holds only for epsilon < 1
    and adds more noise). Bisection on sigma / Delta with the exact privacy condition evaluated
    conservatively (:func:`_gaussian_delta_at_most`); the upper end of the final bracket is returned,
    so the result always satisfies the condition. Standard library only (``math.erfc``).
    """
    l2_sensitivity = _check_sensitivity(l2_sensitivity, "L2 sensitivity")
    epsilon = check_epsilon(epsilon)
    log_delta = math.log(check_delta(delta))
    high = 1.0
    while not _gaussian_delta_at_most(high, epsilon, log_delta):
        high *= 2.0
        if math.isinf(high):
            raise PrivacyParameterError(f"epsilon {epsilon!r} is too small: sigma overflows")
    low = high / 2.0
    while _gaussian_delta_at_most(low, epsilon, log_delta):
        low, high = low / 2.0, low
    while high - low > 1e-13 * high:
        middle = 0.5 * (low + high)
        if _gaussian_delta_at_most(middle, epsilon, log_delta):
            high = middle
        else:
            low = middle
    return product_at_least(high, l2_sensitivity)


#: Snapped (discrete) Laplace: the grid resolves the noise scale into at least this many steps...
SNAP_STEPS_PER_SCALE = 2**16
#: ...and the rounding of the d coordinates to the grid widens the L1 sensitivity by at most
#: 2 d steps, which is kept below 1 / SNAP_WIDENING of the sensitivity itself.
SNAP_WIDENING = 2**10
#: The discrete Laplace sampler's integer scale must stay below this (exact integer arithmetic).
_SNAP_MAX_SCALE = 2**39


@dataclass(frozen=True, slots=True)
class SnappedLaplace:
    """Exact epsilon-DP release of a vector with a known L1 sensitivity on a grid of step ``grid``.

    ``release(values, rng)`` rounds each coordinate to the nearest multiple of ``grid`` (a power of
    two, so the division is exact), adds exact discrete Laplace noise with Pr[z] proportional to
    exp(-|z| / scale) (integers, :meth:`edgedp.privacy.randomness.RandomSource.discrete_laplace`) and returns
    ``grid * (rounded + z)`` as float64 (exact: |rounded + z| < 2**53 is checked).

    Exactly epsilon-DP for inputs at L1 distance at most S: neighbours' rounded integer vectors are
    at most ``sensitivity_steps`` = ceil(S / grid) + 2 d apart (the float rounding of the caller's
    values must stay below half a step; callers check it) and ``scale`` = ceil(sensitivity_steps /
    epsilon) in exact rational arithmetic. The output is a function of the integer vector alone, so
    no low-order float bit depends on the input (Mironov, CCS 2012). Derivation: docs/theory.md,
    section "Noise parameters rounded toward privacy".
    """

    grid: float
    scale: int
    sensitivity_steps: int
    epsilon: float
    dims: int

    @property
    def continuous_scale(self) -> float:
        """The Laplace scale in value units (grid * scale), for comparison with S / epsilon."""
        return self.grid * self.scale

    def release(self, values: np.ndarray, rng: RandomSource) -> np.ndarray:
        """``values`` (finite float64, any shape with ``dims`` trailing entries) snapped and noised."""
        array = np.asarray(values, dtype=np.float64)
        if not np.isfinite(array).all():
            raise PrivacyParameterError("snapped Laplace needs finite values")
        steps = np.rint(array / self.grid)
        noisy = steps + rng.discrete_laplace(self.scale, array.size).reshape(array.shape)
        if np.abs(noisy).max(initial=0.0) >= 2.0**53:
            raise PrivacyParameterError("value too large for the snapping grid")
        released: np.ndarray = noisy * self.grid
        return released


def snapped_laplace(l1_sensitivity: float, dims: int, epsilon: float) -> SnappedLaplace:
    """The exact discrete-Laplace-on-a-grid parameters for L1 sensitivity S in ``dims`` coordinates.

    The grid is the largest power of two below both S / (epsilon * 2**16) (at least 2**16 steps per
    noise scale) and S / (2 d * 2**10) (the rounding widens the sensitivity by at most 2 d steps,
    i.e. by at most 2**-10 relative), so the noise is within a factor 1 + 2**-10 (+ one step) of
    the continuous Laplace scale S / epsilon. Rounds toward privacy everywhere (ceil of exact
    rationals). Refuses (PrivacyParameterError) an epsilon so small that the integer scale would
    exceed 2**39.
    """
    sensitivity = _check_sensitivity(l1_sensitivity, "L1 sensitivity")
    epsilon = check_epsilon(epsilon)
    if isinstance(dims, bool) or not isinstance(dims, int) or dims < 1:
        raise PrivacyParameterError(f"dims must be an integer >= 1, got {dims!r}")
    bound = min(
        Fraction(sensitivity) / (Fraction(epsilon) * SNAP_STEPS_PER_SCALE),
        Fraction(sensitivity) / (2 * dims * SNAP_WIDENING),
    )
    exponent = math.floor(math.log2(bound))
    while Fraction(2) ** exponent > bound:
        exponent -= 1
    while Fraction(2) ** (exponent + 1) <= bound:
        exponent += 1
    if exponent < -1000:
        raise PrivacyParameterError("sensitivity too small for a float grid")
    grid = Fraction(2) ** exponent
    steps = math.ceil(Fraction(sensitivity) / grid) + 2 * dims
    scale = math.ceil(steps / Fraction(epsilon))
    if scale >= _SNAP_MAX_SCALE:
        raise PrivacyParameterError(
            f"epsilon {epsilon!r} is too small for exact discrete Laplace noise at this sensitivity"
        )
    return SnappedLaplace(float(grid), scale, steps, epsilon, dims)


# -- lattice releases of an L2-bounded sum (the subspace mean) ------------------------------------

#: The lattice resolves the clip radius into at least this many steps per sqrt(dims): the rounding
#: of the sum to the lattice then widens the L2 sensitivity by at most 2^-10 of itself.
LATTICE_STEPS_PER_RADIUS = 2**10
#: Largest dims whose pure-epsilon K-norm draw (rejection, :func:`edgedp.privacy.lattice.discrete_knorm`)
#: stays fast: expected proposals 6 at 8 dims, 57 at 16, 510 at 24 (about 13 times the work of 16,
#: 510 / 57 proposals of 24 / 16 the coordinates, for a gain in utility the leave-one-domain-out
#: study could not separate from its noise).
KNORM_MAX_DIMS = 16


@dataclass(frozen=True, slots=True)
class LatticeRelease:
    """Exact release of a sum of vectors clipped to an L2 ball, on the lattice ``grid`` * Z^dims.

    Each summand is clipped to L2 radius ``radius`` (in grid steps, exactly ``clip / grid``); the
    float sum is rounded to integers, so the integer sums of neighbours are at most
    ``sensitivity`` = 2 radius + 2 sqrt(dims) apart (the caller checks the float error below half a
    step). Integer noise is added: the discrete K-norm for the L2 ball, Pr[z] proportional to
    exp(-``rate`` ||z||_2) with ``rate`` = epsilon / sensitivity (pure epsilon-DP, ``sigma2``
    None), or independent discrete Gaussians of variance ``sigma2`` on every coordinate (rho-zCDP
    with rho = sensitivity^2 / (2 sigma2), so (epsilon, delta)-DP through :func:`zcdp_delta`).
    Derivation: docs/theory.md, section "Noise parameters rounded toward privacy".

    ``release(sums, rng)`` returns the noisy integer vectors (int64); the caller scales them by
    ``grid`` (a power of two) and whatever public factor it likes (post-processing).
    """

    grid: float
    radius: Fraction
    dims: int
    sensitivity: Fraction
    epsilon: float
    delta: float
    rate: Fraction | None
    sigma2: Fraction | None

    @property
    def rho(self) -> float | None:
        """The zCDP parameter of the Gaussian release (None for pure epsilon)."""
        if self.sigma2 is None:
            return None
        return float(self.sensitivity**2 / (2 * self.sigma2))

    def noise_energy(self) -> float:
        """E ||noise||^2 in grid steps: d (d + 1) / rate^2 (continuous K-norm) or d sigma2."""
        if self.rate is not None:
            return self.dims * (self.dims + 1) / float(self.rate) ** 2
        return self.dims * float(self._variance())

    def _variance(self) -> Fraction:
        if self.sigma2 is None:
            raise PrivacyParameterError("a lattice release needs a K-norm rate or a sigma^2")
        return self.sigma2

    def release(self, sums: np.ndarray, rng: RandomSource) -> np.ndarray:
        """``sums`` (int64, (n, dims)) plus exact noise, one independent draw per row."""
        from edgedp.privacy.lattice import discrete_gaussian, discrete_knorm

        array = np.asarray(sums, dtype=np.int64)
        count = array.shape[0]
        if self.rate is not None:
            noisy: np.ndarray = array + discrete_knorm(rng, self.dims, self.rate, count)
        else:
            noise = discrete_gaussian(rng, self._variance(), count * self.dims)
            noisy = array + noise.reshape(count, self.dims)
        if np.abs(noisy).max(initial=0) >= 2**53:
            raise PrivacyParameterError("a released coordinate passed 2^53 grid steps")
        return noisy


def lattice_release(
    clip: float, dims: int, epsilon: float, delta: float | None = None
) -> LatticeRelease:
    """The exact lattice-release parameters for sums of vectors clipped to L2 radius ``clip``.

    The grid is the largest power of two with clip / grid >= 2^10 sqrt(dims), so the radius in
    steps is exactly clip / grid (a power-of-two division) and the rounding widens the sensitivity
    2 radius by 2 sqrt(dims) <= 2^-10 of it. Pure epsilon (``delta`` None): K-norm rate
    epsilon / sensitivity, exact rational; refused above :data:`KNORM_MAX_DIMS` dims (the exact
    rejection sampler would be too slow). (epsilon, delta): the largest rho with
    :func:`zcdp_delta` (rho, epsilon) <= delta (:func:`zcdp_rho`) and sigma2 = sensitivity^2 /
    (2 rho), rounded up.
    """
    clip = _check_sensitivity(clip, "clip radius")
    epsilon = check_epsilon(epsilon)
    if isinstance(dims, bool) or not isinstance(dims, int) or dims < 1:
        raise PrivacyParameterError(f"dims must be an integer >= 1, got {dims!r}")
    root = math.sqrt(dims)
    exponent = math.floor(math.log2(clip / (LATTICE_STEPS_PER_RADIUS * root)))
    while Fraction(clip) / Fraction(2) ** exponent < LATTICE_STEPS_PER_RADIUS * root:
        exponent -= 1
    while Fraction(clip) / Fraction(2) ** (exponent + 1) >= LATTICE_STEPS_PER_RADIUS * root:
        exponent += 1
    if not -1000 < exponent < 1000:
        raise PrivacyParameterError(f"clip radius {clip!r} is out of the lattice's range")
    grid = Fraction(2) ** exponent
    radius = Fraction(clip) / grid
    from edgedp.privacy.lattice import sqrt_upper

    sensitivity = 2 * radius + 2 * sqrt_upper(dims)
    if delta is None:
        if dims > KNORM_MAX_DIMS:
            raise PrivacyParameterError(
                f"pure epsilon supports at most {KNORM_MAX_DIMS} dims (exact K-norm noise); "
                "use fewer dims or give a delta (discrete Gaussian noise)"
            )
        return LatticeRelease(
            float(grid),
            radius,
            dims,
            sensitivity,
            epsilon,
            0.0,
            Fraction(epsilon) / sensitivity,
            None,
        )
    delta = check_delta(delta)
    rho = Fraction(zcdp_rho(epsilon, delta))
    sigma2 = sensitivity**2 / (2 * rho)
    return LatticeRelease(float(grid), radius, dims, sensitivity, epsilon, delta, None, sigma2)


def _log_zcdp_delta(rho: float, epsilon: float, alpha: float) -> float:
    """ln of the (epsilon, delta) bound of rho-zCDP at order alpha > 1 (Canonne, Kamath and
    Steinke 2020, Corollary 13): delta = e^((alpha-1)(alpha rho - epsilon)) (1 - 1/alpha)^alpha
    / (alpha - 1)."""
    return (
        (alpha - 1.0) * (alpha * rho - epsilon)
        + alpha * math.log1p(-1.0 / alpha)
        - math.log(alpha - 1.0)
    )


def zcdp_delta(rho: float, epsilon: float) -> float:
    """An upper bound on the delta at ``epsilon`` of a rho-zCDP mechanism (CKS 2020, Cor. 13).

    Every order alpha > 1 gives a valid bound; the best is searched (bisection on the derivative,
    as the authors' reference code does) and the bound at the alpha found is returned with an
    upward margin of 1e-9 relative for the float evaluation, so the result is never below the
    exact bound at that alpha.
    """
    epsilon = check_epsilon(epsilon)
    if not (math.isfinite(rho) and rho > 0):
        raise PrivacyParameterError(f"rho must be finite and > 0, got {rho!r}")
    low, high = 1.0 + 1e-9, (epsilon + 1.0) / (2.0 * rho) + 2.0
    for _ in range(200):
        alpha = 0.5 * (low + high)
        if (2.0 * alpha - 1.0) * rho - epsilon + math.log1p(-1.0 / alpha) < 0:
            low = alpha
        else:
            high = alpha
    log_delta = _log_zcdp_delta(rho, epsilon, high)
    return min(1.0, math.exp(log_delta + 1e-9 * (1.0 + abs(log_delta))))


def zcdp_rho(epsilon: float, delta: float) -> float:
    """The largest rho (to 1e-12 relative, rounded down) with :func:`zcdp_delta` <= ``delta``."""
    return _zcdp_rho(check_epsilon(epsilon), check_delta(delta))


@lru_cache(maxsize=1024)
def _zcdp_rho(epsilon: float, delta: float) -> float:
    meets, _ = _bracket(lambda rho: zcdp_delta(rho, epsilon) <= delta, epsilon + 1.0, larger=False)
    if meets <= 0:
        raise PrivacyParameterError(f"no rho gives delta {delta!r} at epsilon {epsilon!r}")
    return meets


def zcdp_epsilon(rho: float, delta: float) -> float:
    """The smallest epsilon (to 1e-12, rounded up) with :func:`zcdp_delta` (rho, epsilon) <= delta:
    the (epsilon, delta) statement of a rho-zCDP release (group privacy: m^2 rho)."""
    delta = check_delta(delta)
    if not (math.isfinite(rho) and rho > 0):
        raise PrivacyParameterError(f"rho must be finite and > 0, got {rho!r}")
    start = rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta)) + 1.0
    _, meets = _bracket(lambda epsilon: zcdp_delta(rho, epsilon) <= delta, start, larger=True)
    return meets


def _bracket(meets: Callable[[float], bool], start: float, *, larger: bool) -> tuple[float, float]:
    """(low, high) within 1e-12 relative around the boundary of ``meets`` on (0, inf), where
    ``meets`` holds above the boundary (``larger``) or below it; the side that meets is exact."""
    low, high = 0.0, start
    while meets(high) != larger:
        high *= 2.0
    while high - low > 1e-12 * high:
        middle = 0.5 * (low + high)
        if (middle > 0 and meets(middle)) == larger:
            high = middle
        else:
            low = middle
    return low, high
