"""Epsilon -> noise-parameter conversions, one function each, all rounding toward more privacy.

A mechanism never computes a noise parameter itself: it calls one of these. Each returns the parameter
for *at least* the privacy asked for, taking the floating-point or integer rounding into account, and
is tested exactly at its boundary (tests/test_noise.py).
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, Context, Decimal
from fractions import Fraction
from functools import lru_cache

from edgedp.errors import PrivacyParameterError
from edgedp.validation import check_epsilon

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
