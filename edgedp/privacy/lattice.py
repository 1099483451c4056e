"""Exact noise on the integer lattice: discrete Laplace, K-norm (L2) and Gaussian vectors.

The document-level mechanisms that release a vector (:class:`edgedp.SubspaceMean`) add integer
noise to an integer vector, so that no low-order float bit depends on the input (Mironov 2012) and
the realised law of every draw is exactly the law of the proof. Everything here draws its bits from
a :class:`~edgedp.privacy.randomness.RandomSource` and decides each random event *exactly*:

* **One decision, U < exp(-gamma)**, from a uniform U read lazily 64 bits at a time: a fast path
  on float bounds that contain exp(-gamma) (a shortcut, never an approximation), and an exact path
  with correctly rounded decimal bounds for the undecided cases (probability about 2^-43);
* **geometric counts** by inversion, each checked by two exact decisions;
* **discrete Laplace** and **discrete Gaussian** integers (Canonne, Kamath and Steinke, NeurIPS
  2020, Algorithm 3);
* **discrete K-norm vectors for the L2 ball** (Pr[z] proportional to exp(-rate ||z||_2)), by
  rejection from discrete Laplace coordinates: the accepted draws have exactly the target law.

The realised laws are computed over bit patterns in ``tests/privacy/test_lattice_noise.py`` (with
:func:`edgedp.privacy.realised_distributions.lazy_event_probability`). Derivation: docs/theory.md,
section "Exact noise on the integer lattice".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal
from fractions import Fraction

import numpy as np

from edgedp.errors import PrivacyParameterError
from edgedp.privacy.randomness import RandomSource

#: Relative error allowed for numpy's float64 ``exp`` on the fast path (a margin far above the few
#: ulps numpy and glibc document): the fast path's bounds on exp(-gamma) are widened by it.
EXP_RELATIVE_ERROR = 2.0**-44
#: Beyond this exponent the float exp is near or below the subnormal range: the fast path uses 0 as
#: the lower bound and 2^-1000 (> e^-700) as the upper bound of exp(-gamma) instead.
_EXP_NORMAL_LIMIT = 700.0
_UPPER_BEYOND_LIMIT = 2.0**-1000
_TWO_POW_53 = 2.0**53
_WORD_BITS = 64
_WORD_SHIFT = np.uint64(11)
#: Bits of precision the exact path asks of gamma's bounds in its first round, and the decimal
#: digits of its first exp (both grow by one 64-bit word per round).
_FIRST_PRECISION = 128
#: Largest magnitude a lattice coordinate may reach (sums of squares stay exact in floats for the
#: fast path's error bound; larger noise means an epsilon far too small for any use).
MAX_COORDINATE = 2**40

GammaBounds = Callable[[int], tuple[Fraction, Fraction]]


def exp_neg_bounds(low: Fraction, high: Fraction, digits: int) -> tuple[Fraction, Fraction]:
    """Rational (lower, upper) bounds on exp(-gamma) for every gamma in [low, high].

    ``-high`` is rounded down and ``-low`` up to ``digits`` significant digits, their exponentials
    are correctly rounded by the decimal module (within half a unit in the last place) and then
    moved one unit outwards: the bounds hold exactly.
    """
    floor = Context(prec=digits, rounding=ROUND_FLOOR, Emin=-(10**9), Emax=10**9)
    ceiling = Context(prec=digits, rounding=ROUND_CEILING, Emin=-(10**9), Emax=10**9)
    most_negative = floor.divide(Decimal(-high.numerator), Decimal(high.denominator))
    least_negative = ceiling.divide(Decimal(-low.numerator), Decimal(low.denominator))
    lower = floor.next_minus(floor.exp(most_negative))
    upper = ceiling.next_plus(ceiling.exp(least_negative))
    return max(Fraction(lower), Fraction(0)), Fraction(upper)


class LazyUniform:
    """A uniform U in [0, 1) whose binary digits are drawn 64 at a time, only when needed.

    ``numerator / 2**bits`` <= U < ``(numerator + 1) / 2**bits``; :meth:`below_exp_neg` decides
    U < exp(-gamma) exactly, drawing further words from ``rng`` until it can.
    """

    __slots__ = ("bits", "numerator", "rng")

    def __init__(self, rng: RandomSource, first_word: int) -> None:
        self.rng = rng
        self.numerator = first_word
        self.bits = _WORD_BITS

    def refine(self) -> None:
        """Draw the next 64 binary digits of U."""
        self.numerator = (self.numerator << _WORD_BITS) | int(self.rng.uint64(1)[0])
        self.bits += _WORD_BITS

    def below_exp_neg(self, bounds: GammaBounds) -> bool:
        """1[U < exp(-gamma)] exactly; ``bounds(p)`` brackets gamma >= 0 to about 2^-p."""
        while True:
            precision = _FIRST_PRECISION + self.bits
            low, high = bounds(precision)
            low = max(low, Fraction(0))
            if high <= 0:
                return True  # gamma = 0: exp(-gamma) = 1 > U
            p_low, p_high = exp_neg_bounds(low, high, precision // 3 + 10)
            scale = 1 << self.bits
            if (self.numerator + 1) <= p_low * scale:
                return True
            if self.numerator >= p_high * scale:
                return False
            self.refine()


def exact_gamma(value: Fraction) -> GammaBounds:
    """Bounds of a gamma known exactly."""
    return lambda _precision: (value, value)


def _fast_bounds(approx: np.ndarray, error: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Float (lower, upper) bounds on exp(-gamma) given |approx - gamma| <= error."""
    upper_exponent = approx - error  # gamma >= this
    lower_exponent = approx + error  # gamma <= this
    with np.errstate(over="ignore", under="ignore"):
        lower = np.where(
            lower_exponent < _EXP_NORMAL_LIMIT,
            np.exp(-lower_exponent) * (1.0 - EXP_RELATIVE_ERROR),
            0.0,
        )
        upper = np.where(
            upper_exponent < _EXP_NORMAL_LIMIT,
            np.exp(-upper_exponent) * (1.0 + EXP_RELATIVE_ERROR),
            _UPPER_BEYOND_LIMIT,
        )
    return lower, upper


def bernoulli_exp_neg(
    rng: RandomSource,
    approx: np.ndarray,
    error: np.ndarray,
    bounds: Callable[[int], GammaBounds],
) -> np.ndarray:
    """Exact Bernoulli(exp(-gamma_i)) for every entry (gamma_i >= 0), one 64-bit word each.

    ``approx`` (float) and ``error`` (float, rigorous: |approx_i - gamma_i| <= error_i) serve the
    fast path; ``bounds(i)`` gives the exact path's rational bounds for entry i. Bit layout: one
    word per entry in order, then the exact path's further words, entry by entry.
    """
    approx = np.asarray(approx, dtype=np.float64).ravel()
    error = np.asarray(error, dtype=np.float64).ravel()
    words = rng.uint64(approx.size)
    top = (words >> _WORD_SHIFT).astype(np.float64)  # U in [top, top + 1) / 2^53
    lower, upper = _fast_bounds(approx, error)
    accepted = (top + 1.0) <= lower * _TWO_POW_53
    rejected = top >= upper * _TWO_POW_53
    for entry in np.flatnonzero(~(accepted | rejected)).tolist():
        uniform = LazyUniform(rng, int(words[entry]))
        accepted[entry] = uniform.below_exp_neg(bounds(entry))
    return accepted


def geometric_exp(rng: RandomSource, rate: Fraction, size: int) -> np.ndarray:
    """Exact counts M >= 0 with Pr[M >= m] = exp(-m * rate) (``rate`` > 0 rational), int64.

    Inversion: M is the largest m with U < exp(-m rate), U uniform and lazy. The float guess
    floor(-ln(U) / rate) is confirmed by the exact decisions U < exp(-m rate) and
    U >= exp(-(m + 1) rate) (fast path first); a wrong guess or an undecided case is settled by the
    exact path. Bit layout: one word per draw, then the exact path's words, draw by draw.
    """
    if rate <= 0:
        raise PrivacyParameterError(f"the geometric rate must be > 0, got {rate}")
    rate_float = float(rate)
    words = rng.uint64(size)
    top = (words >> _WORD_SHIFT).astype(np.float64)
    with np.errstate(divide="ignore"):
        guess = np.floor(-np.log((top + 0.5) / _TWO_POW_53) / rate_float)
    guess = np.minimum(guess, float(MAX_COORDINATE))
    # M >= guess: U < exp(-guess rate); M <= guess: U >= exp(-(guess + 1) rate) = exp(-guess rate)
    # exp(-rate). One exp a draw: e = fl(exp(-fl(guess fl(rate)))) is within 2^-44 + 2^-50 guess
    # rate (relative) of exp(-guess rate); the product by fl(exp(-rate)) adds 2^-44 + 2^-52.
    at_guess = guess * rate_float
    with np.errstate(under="ignore"):
        value = np.exp(-at_guess)
    slack = 2.0 * EXP_RELATIVE_ERROR + at_guess * 2.0**-49
    low_at = np.where(at_guess < _EXP_NORMAL_LIMIT, value * (1.0 - slack), 0.0)
    step = math.exp(-rate_float)
    high_above = np.where(
        at_guess < _EXP_NORMAL_LIMIT,
        value * step * (1.0 + slack + 2.0 * EXP_RELATIVE_ERROR),
        _UPPER_BEYOND_LIMIT,
    )
    confirmed = ((top + 1.0) <= low_at * _TWO_POW_53) & (top >= high_above * _TWO_POW_53)
    counts = guess.astype(np.int64)
    for entry in np.flatnonzero(~confirmed).tolist():
        counts[entry] = _exact_geometric(LazyUniform(rng, int(words[entry])), rate, counts[entry])
    return counts


def _exact_geometric(uniform: LazyUniform, rate: Fraction, guess: int) -> int:
    """The largest m >= 0 with U < exp(-m rate), by exact decisions only.

    A bracket [low, high] with U < exp(-low rate) and U >= exp(-high rate) is found around the
    float guess and the known digits of U (widened until the exact decisions confirm it), then
    bisected: a few exact decisions whatever the guess.
    """

    def at_least(count: int) -> bool:  # M >= count
        return count <= 0 or uniform.below_exp_neg(exact_gamma(count * rate))

    while uniform.numerator == 0:  # U < 2^-bits: M is large; read digits until U is bracketed
        uniform.refine()
        if uniform.bits > 64 * 64:
            raise PrivacyParameterError("no finite noise: the uniform stayed 0 for 4096 bits")
    log_low = math.log(uniform.numerator) - uniform.bits * math.log(2.0)
    log_high = math.log(uniform.numerator + 1) - uniform.bits * math.log(2.0)
    low = max(0, min(guess, math.floor(-log_high / float(rate))) - 2)
    high = max(guess, math.floor(-log_low / float(rate))) + 3
    while not at_least(low):
        low = max(0, low - 2 * (high - low))
    while at_least(high):
        high += 2 * (high - low)
        if high > MAX_COORDINATE:
            raise PrivacyParameterError("a noise coordinate passed 2^40: epsilon is too small")
    while high - low > 1:
        middle = (low + high) // 2
        if at_least(middle):
            low = middle
        else:
            high = middle
    return low


def discrete_laplace(rng: RandomSource, rate: Fraction, size: int) -> np.ndarray:
    """Exact discrete Laplace integers: Pr[x] = (1 - q) / (1 + q) q^|x|, q = exp(-rate).

    A geometric magnitude (:func:`geometric_exp`), a fair sign from one bit, and the pair
    (negative sign, 0) rejected and redrawn. Bit layout per round: the magnitudes' words, then one
    byte of signs per 8 draws.
    """
    out = np.empty(size, dtype=np.int64)
    todo = np.arange(size)
    while todo.size:
        magnitude = geometric_exp(rng, rate, todo.size)
        negative = np.unpackbits(rng.random_bytes((todo.size + 7) // 8))[: todo.size] == 1
        keep = ~(negative & (magnitude == 0))
        out[todo[keep]] = np.where(negative, -magnitude, magnitude)[keep]
        todo = todo[~keep]
    return out


def sqrt_upper(value: int) -> Fraction:
    """A rational r >= sqrt(value) within 2^-30 (exact for perfect squares)."""
    root = math.isqrt(value << 60)
    return Fraction(root if root * root == value << 60 else root + 1, 1 << 30)


def knorm_acceptance(
    rate: Fraction, proposal_rate: Fraction, squares: int, absolute: int
) -> GammaBounds:
    """Bounds of gamma = rate sqrt(squares) - proposal_rate absolute (>= 0 by construction)."""
    linear = proposal_rate * absolute

    def bounds(precision: int) -> tuple[Fraction, Fraction]:
        scaled = squares << (2 * precision)
        root = math.isqrt(scaled)
        if root * root == scaled:
            exact = rate * Fraction(root, 1 << precision) - linear
            return exact, exact
        return (
            rate * Fraction(root, 1 << precision) - linear,
            rate * Fraction(root + 1, 1 << precision) - linear,
        )

    return bounds


def _knorm_rows(
    proposals: np.ndarray, rate: Fraction, proposal_rate: Fraction
) -> Callable[[int], GammaBounds]:
    """The exact acceptance exponent of each proposal row (Python integers, no overflow)."""

    def bounds(row: int) -> GammaBounds:
        values = [int(value) for value in proposals[row]]
        return knorm_acceptance(
            rate, proposal_rate, sum(v * v for v in values), sum(abs(v) for v in values)
        )

    return bounds


def _gaussian_entries(
    proposals: np.ndarray, centre: Fraction, denominator: Fraction
) -> Callable[[int], GammaBounds]:
    """The exact acceptance exponent (|y| - sigma^2 / t)^2 / (2 sigma^2) of each proposal."""
    return lambda entry: exact_gamma((abs(int(proposals[entry])) - centre) ** 2 / denominator)


def knorm_acceptance_rate(dims: int) -> float:
    """Expected acceptance of :func:`discrete_knorm`'s proposals (continuous approximation):
    vol(unit L2 ball) d! / (2 sqrt(d))^d."""
    log_rate = (
        (dims / 2) * math.log(math.pi)
        - math.lgamma(dims / 2 + 1)
        + math.lgamma(dims + 1)
        - dims * math.log(2 * math.sqrt(dims))
    )
    return math.exp(log_rate)


def discrete_knorm(rng: RandomSource, dims: int, rate: Fraction, count: int) -> np.ndarray:
    """``count`` exact draws (int64, shape (count, dims)) with Pr[z] proportional to
    exp(-rate ||z||_2) on Z^dims.

    Rejection: proposals of ``dims`` independent :func:`discrete_laplace` coordinates of rate
    r = rate / s with s >= sqrt(dims) rational (:func:`sqrt_upper`), so that rate ||z||_2 >=
    r ||z||_1; a proposal is accepted with probability exp(-(rate ||z||_2 - r ||z||_1)), decided
    exactly (:func:`bernoulli_exp_neg`; gamma's bounds from ``math.isqrt``). The accepted
    proposals, in order, are independent draws of the target law. Proposals are drawn in rounds
    sized by the expected acceptance; the law does not depend on how many are drawn.
    """
    if rate <= 0:
        raise PrivacyParameterError(f"the K-norm rate must be > 0, got {rate}")
    proposal_rate = rate / sqrt_upper(dims)
    if 1 / proposal_rate > MAX_COORDINATE / 64:
        raise PrivacyParameterError(
            "epsilon is too small for exact K-norm noise at this sensitivity (scale above 2^34)"
        )
    rate_float, proposal_float = float(rate), float(proposal_rate)
    expected = 1.0 / knorm_acceptance_rate(dims)
    out = np.empty((count, dims), dtype=np.int64)
    filled = 0
    while filled < count:
        proposals = int(min(1.3 * expected * (count - filled) + 8, 2**20 // dims + 8))
        z = discrete_laplace(rng, proposal_rate, proposals * dims).reshape(proposals, dims)
        squares_float = np.einsum("ij,ij->i", z.astype(np.float64), z.astype(np.float64))
        absolute_float = np.abs(z).sum(axis=1).astype(np.float64)
        radial = rate_float * np.sqrt(squares_float)
        linear = proposal_float * absolute_float
        # |fl(rate) sqrt(fl(sum z^2)) - rate ||z||| <= (dims + 6) 2^-53 of it (the sum of squares
        # rounds at most dims times, the root, the rate and the product once each); the linear
        # term is exact up to 3 roundings: 2^-48 (dims + 8) bounds both with room.
        error = (radial + linear) * (dims + 8) * 2.0**-48
        accepted = bernoulli_exp_neg(
            rng,
            radial - linear,
            error,
            _knorm_rows(z, rate, proposal_rate),
        )
        rows = z[accepted][: count - filled]
        out[filled : filled + rows.shape[0]] = rows
        filled += rows.shape[0]
    return out


def discrete_gaussian(rng: RandomSource, sigma2: Fraction, size: int) -> np.ndarray:
    """Exact discrete Gaussian integers: Pr[x] proportional to exp(-x^2 / (2 sigma2)).

    Canonne, Kamath and Steinke (2020), Algorithm 3: t = floor(sqrt(sigma2)) + 1, y discrete
    Laplace of rate 1/t, accepted with probability exp(-(|y| - sigma2/t)^2 / (2 sigma2)) (a
    rational exponent, decided exactly by :func:`bernoulli_exp_neg`).
    """
    if sigma2 <= 0:
        raise PrivacyParameterError(f"sigma^2 must be > 0, got {sigma2}")
    scale = math.isqrt(math.floor(sigma2)) + 1
    if scale > MAX_COORDINATE // 64:
        raise PrivacyParameterError("epsilon is too small for exact discrete Gaussian noise")
    centre = sigma2 / scale
    denominator = 2 * sigma2
    centre_float, denominator_float = float(centre), float(denominator)
    out = np.empty(size, dtype=np.int64)
    filled = 0
    while filled < size:
        proposals = int(1.6 * (size - filled) + 8)
        y = discrete_laplace(rng, Fraction(1, scale), proposals)
        magnitude = np.abs(y).astype(np.float64)
        distance = magnitude - centre_float
        approx = distance * distance / denominator_float
        # |distance - (|y| - centre)| <= 2^-52 (|y| + centre) (centre and the difference round
        # once each); squaring and dividing add 2^-50 of the result.
        slack = 2.0**-52 * (magnitude + centre_float)
        error = (2.0 * np.abs(distance) * slack + slack * slack) / denominator_float * (
            1.0 + 2.0**-50
        ) + approx * 2.0**-50
        accepted = bernoulli_exp_neg(
            rng,
            approx,
            error,
            _gaussian_entries(y, centre, denominator),
        )
        rows = y[accepted][: size - filled]
        out[filled : filled + rows.size] = rows
        filled += rows.size
    return out
