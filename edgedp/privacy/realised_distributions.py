"""What the samplers of :mod:`edgedp.privacy.randomness` realise on the machine, computed over bit patterns.

A DP proof is about ideal real-valued noise; the machine draws finitely many random bits and rounds.
This module computes, for each sampler a mechanism uses, how far the realised distribution can be
from the ideal one, so that guarantees can state (or refuse) what is left. Everything here is exact
rational/integer arithmetic over the samplers' bit patterns or a proven bound; nothing is sampled:

* the exponential sampler's exact tail (:func:`exponential_tail`) and its coupling with an ideal
  Exp(1) variable (:data:`EXPONENTIAL_RELATIVE_ERROR`);
* the slack of Gumbel-max over floats (:func:`gumbel_max_slack`: epsilon + 4 eta, with a delta
  below 2^-1000 per candidate) and of the near-far draw (:func:`near_far_slack`);
* the realised delta of float Laplace and Gaussian noise on threshold events
  (:func:`laplace_threshold_delta`, :func:`gaussian_threshold_delta`);
* the samplers edgedp used before its exact ones (``legacy_*``: -log of a 53-bit uniform,
  Box-Muller on it, an inverted float cumulative sum), exactly over their 2^53 uniforms, for the
  trust report's before/after table (bench/trust/report.py).

Derivation: docs/theory.md, section "Floating point: what the samplers realise".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from edgedp.errors import PrivacyParameterError
from edgedp.privacy.randomness import RandomSource
from edgedp.privacy.validation import check_delta, check_epsilon, check_positive_int

#: Proven bound on |X - X*| / X* for the exponential sampler (tested over bit patterns): the
#: remainder's uniform V has 53 significant bits (cell relative width 2^-52; R = -log1p(-V/2) is
#: within a factor 1 + V/2 of V/2, so R moves by at most 2^-52 relative over a cell), log1p, the
#: product k ln 2 (ln 2 rounded) and the sum each add at most 2^-53 relative.
EXPONENTIAL_RELATIVE_ERROR = 2.0**-48
#: The remainder's uniform is floored at 2^-1021 (see edgedp.privacy.randomness): an absolute error.
EXPONENTIAL_ABSOLUTE_ERROR = 2.0**-1019
#: The Gumbel bound Gamma is epsilon + this: |G| > Gamma has probability below e^-(Gamma - 1).
_GUMBEL_MARGIN = 1200.0
_UNIT_ROUNDOFF = 2.0**-53
_LN2 = math.log(2.0)
_LEGACY_UNIFORM_BITS = 53


# -- the current samplers ---------------------------------------------------------------------------


def gumbel_max_slack(max_abs_score: float, epsilon: float) -> tuple[float, float]:
    """(epsilon slack, log10 of delta per draw) of Gumbel-max realised over floats.

    For scores s_i (log weights minus the row maximum, |s_i| <= ``max_abs_score``), the realised key
    fl(s_i + G_i) differs from the ideal s_i + G*_i by at most
    eta = 1.01 * 2^-48 + 2^-53 (2 |s_i| + 2 |G|) (coupling + rounding of the subtraction, the log and
    the sum). Outside the event {some |G*_i| > Gamma} (Gamma = epsilon + 1200, probability below
    2 n e^-(Gamma - 1)), "i wins" realised implies "i wins" ideally with keys moved by 2 eta, so
    Pr_real[i] <= e^(2 eta) Pr*[i] + bad and Pr_real[i] >= e^(-2 eta) Pr*[i] - bad. A mechanism whose
    ideal law is epsilon-DP therefore realises (epsilon + 4 eta, (1 + e^(epsilon + 4 eta)) bad).
    Returns (4 eta, log10 of that delta for one candidate), the delta scaling with n.
    """
    epsilon = check_epsilon(epsilon)
    if not (math.isfinite(max_abs_score) and max_abs_score >= 0):
        raise PrivacyParameterError(f"max_abs_score must be finite and >= 0, got {max_abs_score!r}")
    gamma = epsilon + _GUMBEL_MARGIN
    eta = 1.01 * EXPONENTIAL_RELATIVE_ERROR + _UNIT_ROUNDOFF * (2.0 * max_abs_score + 2.0 * gamma)
    slack = 4.0 * eta
    log_bad = math.log(2.0) - (gamma - 1.0)  # per candidate: e^-(Gamma-1) + exp(-e^(Gamma-1))
    log_delta = (
        log_bad
        + math.log1p(math.exp(min(epsilon + slack, 700.0)))
        + max(0.0, epsilon + slack - 700.0)
    )
    return slack, log_delta / math.log(10.0)


#: Each computed log weight is within this times B of the exact one of the proof (B bounds the
#: log weights' magnitudes): a product c * u, a log and a sum, each rounded by at most 2^-52 B.
LOG_WEIGHT_ROUNDING = 2.0**-50


def log_sum_exp_rounding(log_weight_bound: float, terms: int) -> float:
    """How far a float ``m + log(sum(exp(w - m)))`` over ``terms`` log weights can be from the exact
    log of the sum of the exact exponentials of the same float weights (|w - m| <= B, m the largest).

    Each w - m rounds by at most 2^-53 B and each exp by 4 ulp (2^-50 relative: numpy's SIMD exp is
    within a few ulp; tests/privacy/test_exact_samplers.py checks it over bit patterns), the sum
    of n positive terms by (n - 1) 2^-53 relative, the log by 4 ulp of its value (<= ln n), the
    last sum by 2^-53 (B + ln n). Bound (generous): 2^-50 (B + n + 4).
    """
    if not (math.isfinite(log_weight_bound) and log_weight_bound >= 0 and terms >= 1):
        raise PrivacyParameterError("log_sum_exp_rounding needs a finite bound >= 0 and terms >= 1")
    return 2.0**-50 * (log_weight_bound + terms + 4.0)


#: Exp(1) draws are coupled with ideal ones within 2^-48 relative (+ 2^-1019): Pr[X > t] is
#: e^-t within a factor e^(+-(2^-47 t + 2^-1018)) for t >= 0 (see :func:`near_far_slack`).
_EXPONENTIAL_TAIL_RELATIVE = 2.0**-47
_EXPONENTIAL_TAIL_ABSOLUTE = 2.0**-1018


def near_far_slack(log_weight_bound: float, epsilon: float, units: int) -> tuple[float, float]:
    """(epsilon slack xi, log10 of delta per candidate and draw) of the near-far draw.

    The near-far draw (:mod:`edgedp.words.vocabulary_draw`) samples y with probability proportional
    to w(y) = exp(-c min(d(x, y), gamma)) over a whole vocabulary in rounds of Gumbel-max between
    the near units (at most ``units`` of them) and a far envelope, with rejection. With B the
    ``log_weight_bound`` on every |log weight| and difference of log weights of a row, a round is
    within e^(+-s) of the exact law, s = 2 eta + 2 Delta + max(2 eta + 2 rho, kappa) (eta of
    :func:`gumbel_max_slack`, rho = :data:`LOG_WEIGHT_ROUNDING` B, Delta = rho +
    :func:`log_sum_exp_rounding`, kappa = rho + 2^-47 B + 2^-1018 for the acceptance), and between
    two inputs the realised log-ratio exceeds the exact one by at most xi = 4 s. Every Gumbel draw
    adds its tail event (below 2^-1000 per candidate); callers count (|V| + 2) (units + 2)
    candidates. Derivation: docs/theory.md, section "The near-far draw".
    """
    units = check_positive_int(units, "units")
    gumbel, log10_delta = gumbel_max_slack(log_weight_bound, epsilon)
    eta = gumbel / 4.0
    rho = LOG_WEIGHT_ROUNDING * log_weight_bound
    spread = rho + log_sum_exp_rounding(log_weight_bound, units)
    kappa = rho + _EXPONENTIAL_TAIL_RELATIVE * log_weight_bound + _EXPONENTIAL_TAIL_ABSOLUTE
    per_round = 2.0 * eta + 2.0 * spread + max(2.0 * eta + 2.0 * rho, kappa)
    # a dozen float operations on positive terms, each within 2^-53: 2^-40 covers them
    return 4.0 * per_round * (1.0 + 2.0**-40), log10_delta


def laplace_threshold_delta(epsilon: float) -> float:
    """Realised delta of float Laplace noise on threshold events, sensitivity = epsilon * scale.

    With the coupling L = L*(1 + theta) + alpha (|theta| <= 2^-48, |alpha| <= 2^-1019 / scale),
    Pr_real[L > t] lies between the ideal tails at t(1 +- 2^-48) -+ alpha, so
    sup_t Pr_real[L > t - epsilon] - e^epsilon Pr_real[L > t] <= 2 (2^-48 (1 + epsilon) + 2^-1000)
    (the ideal difference is 0 and each ideal tail moves by at most its value times the shift,
    maximised near t = epsilon). No bounded support: unlike the 53-bit sampler, no output is
    reachable from one input and unreachable from its neighbour.
    """
    epsilon = check_epsilon(epsilon)
    return 2.0 * (EXPONENTIAL_RELATIVE_ERROR * (1.0 + epsilon) + 2.0**-1000)


def gaussian_threshold_delta(epsilon: float, sigma: float, sensitivity: float) -> float:
    """Realised delta on threshold events of float Gaussian noise (the current Box-Muller).

    N = r cos(theta) with r = sqrt(2 X): the coupled ideal N* = r* cos(theta*) differs by at most
    2^-48 r (X within 2^-48 relative, so r within 2^-49; theta from a 53-bit uniform, within
    2 pi 2^-53 < 2^-50 radian; cos, sqrt and the products round by 2^-53 each). Outside the event
    {r > R}, R = 202 (probability e^-20402: times e^epsilon it is below the smallest double for
    every epsilon <= 20000, refused above), the noise moves by at most 202 * 2^-48 sigma, so on
    threshold events the realised mechanism is dominated by the ideal one with the sensitivity
    widened by 2 * 202 * 2^-48 sigma. The ideal delta is Balle and Wang's exact expression.
    """
    epsilon = check_epsilon(epsilon)
    if epsilon > _GAUSSIAN_EPSILON_LIMIT:
        raise PrivacyParameterError(
            f"epsilon above {_GAUSSIAN_EPSILON_LIMIT:g} is not covered by the Gaussian coupling bound"
        )
    widened = sensitivity + 2.0 * _GAUSSIAN_RADIUS * 2.0**-48 * sigma
    log_bad = math.log1p(math.exp(min(epsilon, 700.0))) + max(0.0, epsilon - 700.0)
    log_bad -= _GAUSSIAN_RADIUS**2 / 2.0
    return _gaussian_delta(epsilon, widened / sigma) + math.exp(log_bad)


_GAUSSIAN_RADIUS = 202.0
_GAUSSIAN_EPSILON_LIMIT = 20000.0


def exponential_tail(threshold: float) -> float:
    """Natural log of Pr[exponential() > threshold] (:func:`exponential_tail_probability`) as a
    float (the probability itself underflows beyond c ~ 745)."""
    total = exponential_tail_probability(threshold)
    return math.log(total.numerator) - math.log(total.denominator)


def exponential_tail_probability(threshold: float) -> Fraction:
    """Pr[exponential() > threshold], exact over the sampler's bit patterns.

    Drives the real :meth:`RandomSource.exponential` with chosen bytes (its bit layout: the
    geometric count k, then the remainder's exponent j, then a 52-bit mantissa m) and counts, by
    binary search (the value is monotone in j and m for fixed k), the patterns above the threshold.
    The probability is sum_k 2^-(k+1) q_k with q_k computed exactly.
    """
    if not (math.isfinite(threshold) and threshold >= 0.0):
        raise PrivacyParameterError(f"threshold must be finite and >= 0, got {threshold!r}")
    k0 = int(threshold / _LN2)
    total = Fraction(0)
    low_k = max(0, k0 - 2)
    for k in range(low_k, k0 + 3):
        total += Fraction(1, 2 ** (k + 1)) * _remainder_mass_above(k, threshold)
    # Every k above k0 + 2 is entirely above: sum_{k > k0 + 2} 2^-(k+1) = 2^-(k0 + 3).
    if exponential_from_pattern(k0 + 3, _CAP_J, 0) <= threshold:
        raise AssertionError("the sampler never exceeds the threshold for large k: bounded support")
    total += Fraction(1, 2 ** (k0 + 3))
    if low_k > 0 and exponential_from_pattern(low_k - 1, 0, 2**52 - 1) > threshold:
        raise AssertionError("the exponential is not monotone in k")
    return total


_CAP_J = 1020  # edgedp.privacy.randomness._V_EXPONENT_CAP: all j >= 1020 share the last binade


def _remainder_mass_above(k: int, threshold: float) -> Fraction:
    """Pr over (j, m) that the exponential with geometric count k exceeds the threshold (exact)."""
    mass = Fraction(0)
    for j in range(_CAP_J + 1):
        weight = Fraction(1, 2 ** (j + 1)) if j < _CAP_J else Fraction(1, 2**_CAP_J)
        if j == 0 and exponential_from_pattern(k, _CAP_J, 0) > threshold:
            return Fraction(1)  # even the smallest value of this k is above
        if exponential_from_pattern(k, j, 2**52 - 1) <= threshold:
            # V decreases with j: no larger j can exceed either (monotone; checked at the end).
            break
        if exponential_from_pattern(k, j, 0) > threshold:
            mass += weight
            continue
        low, high = 0, 2**52 - 1  # value(low) <= threshold < value(high)
        while high - low > 1:
            middle = (low + high) // 2
            if exponential_from_pattern(k, j, middle) > threshold:
                high = middle
            else:
                low = middle
        mass += weight * Fraction(2**52 - high, 2**52)
    return mass


class ScriptedSource(RandomSource):
    """A RandomSource that returns prescribed bytes, to evaluate a sampler at one bit pattern.

    NOT private and not random: for computing realised distributions (tests, bench/trust/samplers.py).
    """

    __slots__ = ("_script",)

    def __init__(self, script: bytes) -> None:
        super().__init__()
        self._script = script

    def random_bytes(self, count: int) -> np.ndarray:
        if count > len(self._script):
            raise PrivacyParameterError("scripted bit pattern exhausted")
        head, self._script = self._script[:count], self._script[count:]
        return np.frombuffer(head, dtype=np.uint8)


def geometric_words(count: int) -> bytes:
    """The bytes that make :meth:`RandomSource.geometric_half` return ``count`` (53 bits a word)."""
    zero_words, rest = divmod(count, 53)
    word = (1 << (52 - rest)) << 11
    return b"\x00" * (8 * zero_words) + word.to_bytes(8, "little")


def exponential_pattern(k: int, j: int, mantissa: int) -> bytes:
    """The bytes of one exponential draw with geometric count k, exponent j and mantissa m."""
    return geometric_words(k) + geometric_words(j) + (mantissa << 12).to_bytes(8, "little")


def exponential_from_pattern(k: int, j: int, mantissa: int) -> float:
    """The real sampler's output on one bit pattern."""
    return float(ScriptedSource(exponential_pattern(k, j, mantissa)).exponential(1)[0])


def gumbel_from_pattern(k: int, j: int, mantissa: int) -> float:
    """The real Gumbel sampler's output on one bit pattern (same layout as the exponential)."""
    return float(ScriptedSource(exponential_pattern(k, j, mantissa)).gumbel(1)[0])


def gumbel_upper_tail(threshold: float) -> float:
    """Natural log of Pr[gumbel() > threshold] for threshold >= 1, exact over bit patterns.

    G > g >= 1 needs X < e^-1 < ln 2, so k = 0; G decreases in V, so it increases in j and
    decreases in m: binary search over j (unbounded: the deep path has no cap) and then m.
    """
    if not (math.isfinite(threshold) and threshold >= 1.0):
        raise PrivacyParameterError(f"threshold must be finite and >= 1, got {threshold!r}")
    # Smallest j whose largest G (m = 0) exceeds the threshold, by doubling then bisection.
    high = 1
    while gumbel_from_pattern(0, high, 0) <= threshold:
        high *= 2
    low = 0 if gumbel_from_pattern(0, 0, 0) <= threshold else -1
    while high - low > 1:
        middle = (low + high) // 2
        if gumbel_from_pattern(0, middle, 0) > threshold:
            high = middle
        else:
            low = middle
    first = high
    # Every j above `first` with m = 2^52 - 1 (smallest G of the binade) still exceeds it? Find
    # the last partial binade, and the mass of binade `first` (and `first + 1`) by bisection on m.
    mass = Fraction(0)
    j = first
    while gumbel_from_pattern(0, j, 2**52 - 1) <= threshold:
        m_low, m_high = 0, 2**52 - 1  # G(m_low) > threshold >= G(m_high)
        while m_high - m_low > 1:
            middle = (m_low + m_high) // 2
            if gumbel_from_pattern(0, j, middle) > threshold:
                m_low = middle
            else:
                m_high = middle
        mass += Fraction(1, 2 ** (j + 1)) * Fraction(m_low + 1, 2**52)
        j += 1
    mass += Fraction(1, 2 ** (j + 1)) * 2  # binades j, j+1, ... entirely above: sum = 2^-j
    total = Fraction(1, 2) * mass  # k = 0
    return math.log(total.numerator) - math.log(total.denominator)


# -- the samplers before the exact ones (exact over the 2^53 uniforms) ----------------------------


def _legacy_exponential(index: int) -> float:
    """The old RandomSource.exponential on uniform index J in [0, 2^53): -log((J + 1) / 2^53)."""
    return float(-np.log((np.float64(index) + 1.0) / 2.0**53))


#: The largest value the old exponential could return: -log(2^-53) = 36.7368.
LEGACY_EXPONENTIAL_MAX = _legacy_exponential(0)


def legacy_exponential_tail(threshold: float, *, strict: bool = True) -> Fraction:
    """Pr[old exponential > threshold] (or >= with strict=False), exact over its 2^53 values."""

    def above(value: float) -> bool:
        return value > threshold if strict else value >= threshold

    if not above(_legacy_exponential(0)):
        return Fraction(0)
    low, high = 0, 2**_LEGACY_UNIFORM_BITS  # above(value(low)), not above(value(high)) (or end)
    while high - low > 1:
        middle = (low + high) // 2
        if above(_legacy_exponential(middle)):
            low = middle
        else:
            high = middle
    return Fraction(low + 1, 2**_LEGACY_UNIFORM_BITS)


def legacy_laplace_delta(shift: float) -> float:
    """Realised delta of the old float Laplace noise for inputs ``shift`` noise scales apart.

    The old noise never exceeded M = 36.74 scales, so the event {x > mu + M b} has probability 0
    from mu and Pr[L > M - shift] from mu + shift b: that is a delta no epsilon absorbs. Exact over
    the 2^53 uniforms (shift = epsilon for a one-dimensional query at full sensitivity).
    """
    cut = LEGACY_EXPONENTIAL_MAX - shift
    if cut >= 0:
        return float(legacy_exponential_tail(cut) / 2)
    return float(1 - legacy_exponential_tail(-cut, strict=False) / 2)


#: The largest |value| of the old Box-Muller normal: sqrt(2 * 36.7368) = 8.5717.
LEGACY_NORMAL_MAX = math.sqrt(2.0 * LEGACY_EXPONENTIAL_MAX)


def legacy_gaussian_delta(epsilon: float, sigma: float, sensitivity: float) -> float:
    """Realised delta of the old Box-Muller Gaussian noise at (epsilon, sigma, sensitivity).

    The larger of Balle and Wang's ideal delta and the mass the neighbour puts beyond the old
    sampler's largest value: Pr[N > 8.5717 - sensitivity / sigma] (ideal normal tail below the cut,
    where the old sampler matched it; the cut itself is exact).
    """
    epsilon = check_epsilon(epsilon)
    return max(
        _gaussian_delta(epsilon, sensitivity / sigma),
        _normal_tail(LEGACY_NORMAL_MAX - sensitivity / sigma),
    )


def _legacy_choice(log_weights: list[float], index: int) -> int:
    """The old choice_from_log_weights on uniform index J: inverse of a float cumulative sum."""
    scores = np.asarray([log_weights], dtype=np.float64)
    cumulative = np.cumsum(np.exp(scores - scores.max(axis=1, keepdims=True)), axis=1)
    target = (np.float64(index) / 2.0**53) * cumulative[:, -1]
    return int(min((cumulative <= target[:, None]).sum(axis=1)[0], scores.shape[1] - 1))


def legacy_choice_probabilities(log_weights: list[float]) -> list[Fraction]:
    """Exact probabilities of the old categorical sampler, over its 2^53 uniforms.

    The chosen index is non-decreasing in the uniform, so each index owns one interval of uniform
    values, found by binary search.
    """
    size = len(log_weights)
    bounds = [0]
    for candidate in range(1, size):
        low, high = bounds[-1] - 1, 2**_LEGACY_UNIFORM_BITS  # first J choosing >= candidate
        while high - low > 1:
            middle = (low + high) // 2
            if _legacy_choice(log_weights, middle) >= candidate:
                high = middle
            else:
                low = middle
        bounds.append(high)
    bounds.append(2**_LEGACY_UNIFORM_BITS)
    return [Fraction(bounds[i + 1] - bounds[i], 2**_LEGACY_UNIFORM_BITS) for i in range(size)]


def minimal_choice_case(epsilon: float) -> tuple[list[float], list[float]]:
    """The old categorical sampler's minimal failing pair: log weights (epsilon/2) [8, 7] vs
    (epsilon/2) [9, 6] (depth +-1)."""
    half = epsilon / 2.0
    return [8 * half, 7 * half], [9 * half, 6 * half]


def legacy_choice_delta(epsilon: float) -> float:
    """Realised delta of the old categorical sampler, exact, worst over two-candidate pairs.

    The pairs are log weights [0, -D] vs [0, -(D + epsilon)] for D = 0, 1, ..., 40 (one utility
    moving by 1 under the exponential mechanism's epsilon/2 coefficient on each side) and
    :func:`minimal_choice_case`. A pair is a lower bound on the sampler's delta; the maximum over
    them is reported.
    """
    epsilon = check_epsilon(epsilon)
    pairs = [([0.0, -float(gap)], [0.0, -(gap + epsilon)]) for gap in range(41)]
    pairs.append(minimal_choice_case(epsilon))
    worst = 0.0
    for left, right in pairs:
        first, second = legacy_choice_probabilities(left), legacy_choice_probabilities(right)
        worst = max(worst, _pair_delta(first, second, epsilon), _pair_delta(second, first, epsilon))
    return worst


def gumbel_choice_delta(epsilon: float) -> float:
    """Realised delta of Gumbel-max on :func:`minimal_choice_case`, from :func:`gumbel_max_slack`.

    The ideal probabilities have ratio e^epsilon exactly; the realised ones are within e^(+-2 eta)
    of them (plus 10^log_delta), so the part above e^epsilon is at most (e^(4 eta) - 1) times the
    larger probability, plus the bad event.
    """
    epsilon = check_epsilon(epsilon)
    slack, log10_delta = gumbel_max_slack(9 * epsilon / 2, epsilon)
    return float(math.expm1(slack) + 2.0 * 10.0**log10_delta)


def _pair_delta(first: list[Fraction], second: list[Fraction], epsilon: float) -> float:
    """max over output sets S of P(S) - e^epsilon Q(S) for finite distributions (exact sum)."""
    factor = Fraction(math.exp(min(epsilon, 700.0)))
    return float(
        sum(
            (max(Fraction(0), p - factor * q) for p, q in zip(first, second, strict=True)),
            Fraction(0),
        )
    )


# -- Gaussian helpers --------------------------------------------------------------------------


def _log_normal_tail(x: float) -> float:
    """ln Pr[N > x] for a standard normal, without underflow (asymptotic series beyond x = 30)."""
    if x < 30.0:
        return math.log(0.5 * math.erfc(x / math.sqrt(2.0)))
    # Mills ratio: Pr[N > x] = phi(x) / x * (1 - 1/x^2 + 3/x^4 - ...), relative error < 15/x^6.
    series = 1.0 - 1.0 / x**2 + 3.0 / x**4
    return -0.5 * x * x - math.log(x * math.sqrt(2.0 * math.pi)) + math.log(series)


def _normal_tail(x: float) -> float:
    """Pr[N > x] for a standard normal (0.0 below the smallest double)."""
    return math.exp(_log_normal_tail(x))


def _gaussian_delta(epsilon: float, ratio: float) -> float:
    """Balle and Wang's exact delta of the Gaussian mechanism with sensitivity / sigma = ratio:
    Phi(ratio/2 - epsilon/ratio) - e^epsilon Phi(-ratio/2 - epsilon/ratio), in log space."""
    log_first = _log_normal_tail(epsilon / ratio - ratio / 2.0)
    log_second = epsilon + _log_normal_tail(epsilon / ratio + ratio / 2.0)
    if log_second >= log_first:
        return 0.0
    return math.exp(log_first) * -math.expm1(log_second - log_first)


def check_realised_delta(realised: float, stated: float) -> float:
    """The realised delta if it is within the stated one, else PrivacyParameterError."""
    stated = 0.0 if stated == 0.0 else check_delta(stated)
    if realised > stated:
        raise PrivacyParameterError(
            f"the samplers realise delta {realised:.3g} here, above the stated {stated:.3g}"
        )
    return realised


# -- lazy uniforms (edgedp.privacy.lattice) ---------------------------------------------------------

#: Words appended to a prefix to read its extreme continuations (a sampler needs far fewer).
_CONTINUATION_WORDS = 16


def lazy_event_probability(
    decide: Callable[[RandomSource], bool], depth: int = 3
) -> tuple[Fraction, Fraction]:
    """Bounds (exact rationals, 2^-(64 depth) apart) on the realised probability of an event
    {U < p} that a lazy-uniform sampler decides from the 64-bit words of U.

    ``decide`` runs the sampler on a :class:`ScriptedSource` and returns the event. The event must
    be monotone in U (true below a threshold, false above it: checked at every boundary). A prefix
    of words decides the event true when its largest continuation (all one bits) is true, false
    when its smallest (all zero bits) is false; the mass of the deciding prefixes is
    found by binary search over the first word, then over the next word of the one undecided
    prefix, and so on. Exact over the bit patterns: the lower bound counts the patterns decided
    true, the upper bound adds the one prefix still undecided after ``depth`` words.
    """

    def run(words: list[int], fill: bytes) -> bool | None:
        script = b"".join(word.to_bytes(8, "little") for word in words) + fill
        try:
            return bool(decide(ScriptedSource(script)))
        except PrivacyParameterError as error:
            if "exhausted" in str(error):  # U = 0 exactly can ask for words without end
                return None
            raise

    def outcome(words: list[int]) -> bool | None:
        # Monotone: true at the largest U of the prefix means true for all of it, false at the
        # smallest means false for all of it.
        if run(words, b"\xff" * (8 * _CONTINUATION_WORDS)) is True:
            return True
        if run(words, bytes(8 * _CONTINUATION_WORDS)) is False:
            return False
        return None

    prefix: list[int] = []
    low = Fraction(0)
    for level in range(1, depth + 1):
        first, last = 0, 2**64  # the first word whose outcome is not True lies in [first, last]
        while first < last:
            middle = (first + last) // 2
            if outcome([*prefix, middle]) is True:
                first = middle + 1
            else:
                last = middle
        low += Fraction(first, 2 ** (64 * level))
        if first == 2**64:
            return low, low
        boundary = outcome([*prefix, first])
        if first + 1 < 2**64 and outcome([*prefix, first + 1]) is not False:
            raise AssertionError("the event is not monotone in the uniform")
        if boundary is False:
            return low, low
        prefix.append(first)
    return low, low + Fraction(1, 2 ** (64 * depth))
