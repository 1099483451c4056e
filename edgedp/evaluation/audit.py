"""A black-box differential-privacy auditor: a statistical lower bound on a mechanism's privacy loss.

For two neighbouring inputs A and B (two words at known distance, two documents differing in one
sentence) a mechanism claiming epsilon-DP for that pair must satisfy Pr[M(A) in E] <= e^epsilon
Pr[M(B) in E] for every output event E. The auditor

1. draws a pilot batch from both inputs and picks the event (and direction) whose pilot counts give
   the largest pessimistic ratio (counts moved two standard deviations against the event, so rare,
   noisy events do not win): for discrete outputs a set of the j values with the largest pilot
   ratio (j = 1 is a single value; a set collects many rare outputs that each favour one input,
   such as DeepCandidate's candidates whose depth rose by one), for continuous ones a threshold on
   a scalar statistic;
2. draws fresh samples (so the choice of event does not bias the estimate) and computes
   Clopper-Pearson bounds: p_num >= lower(k_num), p_den <= upper(k_den), each at confidence
   1 - alpha/2, so with probability >= 1 - alpha the privacy loss is at least
   ln(lower / upper) =: epsilon_lower_bound.

If epsilon_lower_bound exceeds the claimed epsilon, the mechanism is broken (with confidence
1 - alpha). A bound below the claim proves nothing about tightness; it is a test that can fail.
This follows the approach of Ding et al. (2018) and dp_auditorium. Clopper-Pearson bounds come from
the regularized incomplete beta function, computed here so the auditor needs no scipy.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from edgedp.errors import InputError

Sampler = Callable[[int], np.ndarray]


def _log_beta_prefactor(a: float, b: float, x: float) -> float:
    return (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """Lentz's method for the continued fraction of the incomplete beta function."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 10_000):
        m2 = 2 * m
        for numerator in (
            m * (b - m) * x / ((qam + m2) * (a + m2)),
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= d * c
        if abs(d * c - 1.0) < 1e-15:
            return result
    raise ArithmeticError("incomplete beta continued fraction did not converge")


def regularized_incomplete_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the CDF at x of a Beta(a, b) distribution."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(_log_beta_prefactor(a, b, x)) * _beta_continued_fraction(a, b, x) / a
    return 1.0 - math.exp(_log_beta_prefactor(a, b, x)) * _beta_continued_fraction(b, a, 1 - x) / b


def _beta_quantile(a: float, b: float, q: float) -> float:
    low, high = 0.0, 1.0
    for _ in range(64):
        middle = (low + high) / 2
        if regularized_incomplete_beta(a, b, middle) < q:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def clopper_pearson(successes: int, trials: int, alpha: float) -> tuple[float, float]:
    """Exact two-sided (1 - alpha) confidence interval for a binomial proportion."""
    if not 0 <= successes <= trials or trials < 1:
        raise InputError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    lower = 0.0 if successes == 0 else _beta_quantile(successes, trials - successes + 1, alpha / 2)
    upper = (
        1.0
        if successes == trials
        else _beta_quantile(successes + 1, trials - successes, 1 - alpha / 2)
    )
    return lower, upper


@dataclass(frozen=True)
class AuditResult:
    """The outcome of :func:`audit_pair`."""

    epsilon_lower_bound: float
    claimed_epsilon: float
    event: str
    hits: tuple[int, int]  # (numerator input's hits, denominator input's hits) among ``samples``
    samples: int
    alpha: float

    @property
    def passed(self) -> bool:
        """True unless the data prove (at confidence 1 - alpha) a loss above the claim."""
        return self.epsilon_lower_bound <= self.claimed_epsilon


Event = tuple[str, Callable[[np.ndarray], np.ndarray], int, int]


def _candidate_events(pilot_a: np.ndarray, pilot_b: np.ndarray, discrete: bool) -> list[Event]:
    """Candidate events with their pilot hit counts: (description, membership, hits_a, hits_b)."""
    if discrete:
        return _discrete_events(pilot_a, pilot_b)
    sorted_a, sorted_b = np.sort(pilot_a), np.sort(pilot_b)
    thresholds = np.unique(
        np.quantile(np.concatenate([pilot_a, pilot_b]), np.linspace(0.01, 0.99, 99))
    )
    at_or_below_a = np.searchsorted(sorted_a, thresholds, side="right")
    at_or_below_b = np.searchsorted(sorted_b, thresholds, side="right")
    events: list[Event] = []
    for t, below_a, below_b in zip(thresholds, at_or_below_a, at_or_below_b, strict=True):
        events.append(
            (
                f"statistic > {t:.6g}",
                _above(float(t)),
                len(pilot_a) - int(below_a),
                len(pilot_b) - int(below_b),
            )
        )
        events.append((f"statistic <= {t:.6g}", _at_most(float(t)), int(below_a), int(below_b)))
    return events


def _above(threshold: float) -> Callable[[np.ndarray], np.ndarray]:
    return lambda outputs: np.asarray(outputs > threshold)


def _at_most(threshold: float) -> Callable[[np.ndarray], np.ndarray]:
    return lambda outputs: np.asarray(outputs <= threshold)


def _member_of(members: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    return lambda outputs: np.isin(outputs, members)


def _discrete_events(pilot_a: np.ndarray, pilot_b: np.ndarray) -> list[Event]:
    """The sets of the j output values with the largest (or smallest) ratio hits_a / hits_b.

    The values are ranked on the first half of the pilot and each set (j = 1 is a single value) is
    counted on the second half: ranking and counting on the same draws would favour rare values
    and small sets whose ratio is high by chance.
    """
    values, inverse = np.unique(np.concatenate([pilot_a, pilot_b]), return_inverse=True)
    index_a, index_b = inverse[: len(pilot_a)], inverse[len(pilot_a) :]
    half_a, half_b = len(index_a) // 2, len(index_b) // 2

    def counts(indices: np.ndarray) -> np.ndarray:
        return np.bincount(indices, minlength=len(values))

    log_ratio = np.log((counts(index_a[:half_a]) + 0.5) / (counts(index_b[:half_b]) + 0.5))
    held_out_a, held_out_b = counts(index_a[half_a:]), counts(index_b[half_b:])
    events: list[Event] = []
    for order in (np.argsort(-log_ratio, kind="stable"), np.argsort(log_ratio, kind="stable")):
        prefix_a, prefix_b = np.cumsum(held_out_a[order]), np.cumsum(held_out_b[order])
        for size in range(1, max(len(values), 2)):  # all values at once is the certain event
            shown = ", ".join(str(value) for value in values[order[: min(size, 3)]])
            events.append(
                (
                    f"output == {shown}"
                    if size == 1
                    else f"output in {{{shown}{', ...' if size > 3 else ''}}} ({size} values)",
                    _member_of(values[order[:size]]),
                    int(prefix_a[size - 1]),
                    int(prefix_b[size - 1]),
                )
            )
    return events


def audit_pair(
    sample_a: Sampler,
    sample_b: Sampler,
    *,
    claimed_epsilon: float,
    samples: int,
    pilot: int | None = None,
    statistic: Callable[[np.ndarray], np.ndarray] | None = None,
    alpha: float = 0.05,
    min_pilot_hits: int = 20,
) -> AuditResult:
    """Lower-bound the privacy loss between two inputs from black-box samples.

    ``sample_a(n)`` and ``sample_b(n)`` return n outputs of the mechanism on each input. Outputs are
    treated as discrete values unless ``statistic`` maps them to scalars (then events are
    thresholds). Both directions (A over B, B over A) are considered.
    """
    pilot = pilot or samples
    pilot_a, pilot_b = sample_a(pilot), sample_b(pilot)
    if statistic is not None:
        pilot_a, pilot_b = statistic(pilot_a), statistic(pilot_b)
    best = None
    for description, member, hits_a, hits_b in _candidate_events(
        pilot_a, pilot_b, discrete=statistic is None
    ):
        for numerator, denominator, order in ((hits_a, hits_b, "A"), (hits_b, hits_a, "B")):
            if numerator < min_pilot_hits:
                continue
            score = _pilot_score(numerator, denominator)
            if best is None or score > best[0]:
                best = (score, description, member, order)
    if best is None:
        raise InputError("no output event was frequent enough in the pilot; raise `pilot`")
    _, description, member, order = best
    fresh_a, fresh_b = sample_a(samples), sample_b(samples)
    if statistic is not None:
        fresh_a, fresh_b = statistic(fresh_a), statistic(fresh_b)
    hits_a, hits_b = int(member(fresh_a).sum()), int(member(fresh_b).sum())
    numerator, denominator = (hits_a, hits_b) if order == "A" else (hits_b, hits_a)
    return AuditResult(
        _lower_bound(numerator, denominator, samples, alpha),
        claimed_epsilon,
        f"{description} (favouring {order})",
        (numerator, denominator),
        samples,
        alpha,
    )


def _pilot_score(numerator: int, denominator: int) -> float:
    """A cheap, pessimistic log-ratio (counts moved two standard deviations against the event)."""
    low = max(numerator - 2.0 * math.sqrt(numerator), 0.5)
    high = denominator + 1.0 + 2.0 * math.sqrt(denominator + 1.0)
    return math.log(low / high)


def _lower_bound(numerator: int, denominator: int, samples: int, alpha: float) -> float:
    """ln(lower bound of p_numerator / upper bound of p_denominator), each at 1 - alpha/2."""
    lower, _ = clopper_pearson(numerator, samples, alpha)
    _, upper = clopper_pearson(denominator, samples, alpha)
    return -math.inf if lower == 0.0 else math.log(lower / upper)
