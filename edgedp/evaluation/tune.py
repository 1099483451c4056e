"""Choosing epsilon by what it does: :func:`tune` finds the epsilon of a word mechanism that meets a
target share of kept words, a target inference error, or a per-word privacy-loss bound.

* ``loss_bound=B``: exact. epsilon = B / P_d, with P_d the average (``aggregate="avg"``) or maximum
  pairwise distance of the vocabulary under the mechanism's metric, so that epsilon * P_d = B.
* ``keep=K`` (the Zipf-weighted, text-like share of words released unchanged) and
  ``inference_error=E`` (the Bayesian adversary's E_M under the Zipf or uniform prior): Monte Carlo
  on the fixed public word set of :mod:`edgedp.evaluation.explain`. The share kept grows with
  epsilon and E_M falls, so the search is a bisection in log epsilon: starting from the
  mechanism's epsilon, epsilon is doubled or halved until the target is bracketed (at most
  :data:`MAX_EXPANSIONS` times), then the bracket [lo, hi] is halved geometrically until
  hi / lo <= 1 + ``rel_tol`` (or after :data:`MAX_BISECTIONS` halvings). **What is returned**: the
  end of the final bracket that *meets* the target: for ``keep`` the smallest epsilon whose
  estimate keeps at least the target share (lo keeps less), for ``inference_error`` the largest
  epsilon whose estimated E_M is at least the target (hi's is lower); so the result is within a
  factor 1 + ``rel_tol`` (2 % by default) of the epsilon where the estimate crosses the target,
  on the side that meets it. It is reported with the estimate there, its 95 % interval, the final
  bracket and every evaluation. (The search used to stop at the first midpoint whose interval
  merely contained the target: ``keep=0.99`` gave 1.414 per bit where 1.07 already keeps 0.99.)
  Every evaluation draws the same public random numbers (a fixed evaluation seed: common random
  numbers), which makes the estimate close to monotone in epsilon; the words are public, nothing
  private is drawn or released.
* Vickrey's t: with ``choose_t=True`` the mechanism must have a ``t``; after epsilon is tuned at
  t = 0 (plain Madlib / BRR), Xu et al.'s Alg. 2
  (:func:`edgedp.evaluation.empirical_privacy.select_parameters`) scans t at that epsilon for the
  largest E_M whose utility loss (the metric distance between input and output word) is no worse
  than t = 0's, and the estimate is reported at the chosen (epsilon, t).

The functions are generic over :class:`~edgedp.words.mechanism.WordMechanism`: they rebuild the
mechanism as ``type(mechanism)(pack, **mechanism.parameters())`` with another epsilon, so new
mechanisms work without changes.

:func:`keep_warning` is the cheap check behind ``edgedp privatize``'s warning: a small estimate of
the share kept, cached in memory per (pack digest, mechanism class, parameters). It lives in
:mod:`edgedp.evaluation.keep_rate` (numpy and the mechanism only, so that the command line does not load
these modules) and is re-exported here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from edgedp.errors import InputError, PrivacyParameterError
from edgedp.evaluation.empirical_privacy import select_parameters
from edgedp.evaluation.explain import (
    Estimate,
    loss_statistics,
    measure,
    mechanism_metric,
    public_word_set,
    rebuild,
    zipf_prior,
)
from edgedp.evaluation.keep_rate import HIGH_KEEP as HIGH_KEEP
from edgedp.evaluation.keep_rate import LOW_KEEP as LOW_KEEP
from edgedp.evaluation.keep_rate import WARNING_STAGES as WARNING_STAGES
from edgedp.evaluation.keep_rate import keep_warning as keep_warning
from edgedp.evaluation.keep_rate import quick_keep as quick_keep
from edgedp.privacy.randomness import public_statistics_source
from edgedp.privacy.validation import check_choice, check_epsilon, check_unit_interval
from edgedp.progress import ProgressCallback
from edgedp.words.mechanism import WordMechanism

MAX_EXPANSIONS = 30
MAX_BISECTIONS = 40
#: The word set and releases of tune's Monte Carlo (smaller than explain's: many evaluations).
TUNE_WORDS = 150
TUNE_SAMPLES = 20
PRIORS = ("zipf", "uniform")
AGGREGATES = ("avg", "max")


@dataclass(frozen=True)
class Tuning:
    """The outcome of :func:`tune`."""

    mechanism: str
    pack: str
    target: str
    target_value: float
    epsilon: float
    parameters: dict[str, Any]
    estimate: Estimate | None  # the target's estimate at epsilon (None for loss_bound: exact)
    kept: Estimate  # the share kept at the result, whatever the target
    bracket: tuple[float, float] | None
    stopped: str
    evaluations: list[dict[str, float]] = field(default_factory=list)
    t: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def render(self) -> str:
        parts = [
            f"{self.mechanism} on pack {self.pack!r}: epsilon = {self.epsilon:.4g}"
            + (f", t = {self.t:g}" if self.t is not None else "")
            + f" for {self.target} = {self.target_value:g}",
        ]
        if self.estimate is not None:
            parts.append(
                f"  estimate there: {self.estimate} (95 % interval; {self.estimate.words} public "
                f"words x {self.estimate.samples} releases); {self.stopped}"
            )
            if self.bracket is not None:
                parts.append(f"  final bracket: [{self.bracket[0]:.4g}, {self.bracket[1]:.4g}]")
        else:
            parts.append(f"  exact: {self.stopped}")
        parts.append(f"  words kept unchanged there (text-like): {self.kept}")
        decode = self.parameters.get("decode", "nearest")
        if decode != "nearest":
            parts.append(
                f"  measured with decode={decode!r} on words alone (post-processing: the "
                "guarantee is unchanged; in a sentence, context decoding keeps more)"
            )
        parts.append(f"  {len(self.evaluations)} evaluations")
        return "\n".join(parts)


def estimate_statistic(
    mechanism: WordMechanism, words: np.ndarray, samples: int, target: str, prior: str
) -> Estimate:
    """``tune``'s estimate of ``target`` ("keep" or an inference error under ``prior``) for
    ``mechanism`` on ``words``, from a fixed public evaluation stream."""
    stats = measure(
        mechanism, words, samples, rng=public_statistics_source(1), inference=target != "keep"
    )
    estimate: Estimate = stats["kept"] if target == "keep" else stats[f"error_{prior}"]
    return estimate


def tune(
    mechanism: WordMechanism,
    *,
    keep: float | None = None,
    inference_error: float | None = None,
    loss_bound: float | None = None,
    aggregate: str = "avg",
    prior: str = "zipf",
    words: int = TUNE_WORDS,
    samples: int = TUNE_SAMPLES,
    rel_tol: float = 0.02,
    choose_t: bool = False,
    progress: ProgressCallback | None = None,
) -> Tuning:
    """The epsilon of ``mechanism`` (its other parameters kept) meeting exactly one target.

    ``progress(done, total)`` hears of each evaluation, against an estimate of how many the
    search needs (it grows while the target is not yet bracketed)."""
    if not isinstance(mechanism, WordMechanism):
        raise InputError(f"tune needs a word mechanism, got {type(mechanism).__name__}")
    given = {
        name: value
        for name, value in (
            ("keep", keep),
            ("inference_error", inference_error),
            ("loss_bound", loss_bound),
        )
        if value is not None
    }
    if len(given) != 1:
        raise InputError("give exactly one target: keep, inference_error or loss_bound")
    ((target, value),) = given.items()
    prior = check_choice(prior, "prior", PRIORS)
    aggregate = check_choice(aggregate, "aggregate", AGGREGATES)
    if choose_t and "t" not in mechanism.parameters():
        raise InputError(f"{type(mechanism).__name__} has no t to choose")
    word_ids = public_word_set(mechanism.pack, words)
    metric, _ = mechanism_metric(mechanism)

    def at(epsilon: float, **changes: Any) -> WordMechanism:
        built: WordMechanism = rebuild(
            mechanism, public_statistics_source(1), epsilon=epsilon, **changes
        )
        return built

    if target == "loss_bound":
        bound = check_epsilon(value, "loss_bound")
        if metric is None:
            raise InputError("a loss bound needs the mechanism's metric")
        lam = float(mechanism.parameters().get("lam", 0.2))  # type: ignore[arg-type]
        statistics = loss_statistics(mechanism.pack, metric, lam)
        distance = float(statistics["average" if aggregate == "avg" else "maximum"])
        epsilon = bound / distance
        kept = estimate_statistic(at(epsilon), word_ids, samples, "keep", prior)
        return Tuning(
            type(mechanism).__name__,
            mechanism.pack.name,
            f"loss_bound ({aggregate})",
            bound,
            epsilon,
            {**mechanism.parameters(), "epsilon": epsilon},
            None,
            kept,
            None,
            f"epsilon * {aggregate} d_{metric} ({distance:.4g}) = {bound:g}",
        )

    value = float(check_unit_interval(value, target))
    if not 0.0 < value < 1.0:
        raise PrivacyParameterError(f"{target} must be strictly between 0 and 1, got {value}")
    increasing = target == "keep"  # E_M falls as epsilon grows
    changes: dict[str, Any] = {"t": 0.0} if choose_t else {}
    evaluations: list[dict[str, float]] = []

    bracket: list[float] = []  # [low, high] once the target is bracketed

    def remaining() -> int:
        """Bisections left at most (from the bracket, or from a doubling bracket), and one more."""
        ratio = bracket[1] / bracket[0] if bracket else 2.0
        return math.ceil(math.log2(max(math.log(ratio) / math.log1p(rel_tol), 1.0))) + 2

    def estimate(epsilon: float) -> Estimate:
        result = estimate_statistic(at(epsilon, **changes), word_ids, samples, target, prior)
        evaluations.append(
            {"epsilon": epsilon, "value": result.value, "low": result.low, "high": result.high}
        )
        if progress is not None:
            done = len(evaluations)
            progress(float(done), float(done + remaining() - (1 if bracket else 0)))
        return result

    def meets(result: Estimate) -> bool:
        """Does the estimate meet the target (keep at least it, or an E_M at least it)?"""
        return result.value >= value

    # Meeting the target: for keep, every epsilon above a crossing; for E_M, every one below.
    previous = mechanism.epsilon
    measured = {previous: estimate(previous)}
    grow = meets(measured[previous]) != increasing
    for _ in range(MAX_EXPANSIONS):
        candidate = previous * 2 if grow else previous / 2
        measured[candidate] = estimate(candidate)
        if meets(measured[candidate]) != meets(measured[previous]):
            break
        previous = candidate
    else:
        raise InputError(
            f"{target} {value:g} not reached between epsilon {mechanism.epsilon:g} and "
            f"{candidate:g} (last estimate {measured[candidate].value:.3f})"
        )
    low, high = sorted((previous, candidate))
    stopped = (
        f"{'smallest' if increasing else 'largest'} epsilon whose estimate meets the target, "
        f"within a factor {1 + rel_tol:g} (bracket ratio)"
    )
    for _ in range(MAX_BISECTIONS):
        if high / low <= 1 + rel_tol:
            break
        middle = math.sqrt(low * high)
        bracket[:] = [low, high]
        measured[middle] = estimate(middle)
        if meets(measured[middle]) == increasing:
            high = middle
        else:
            low = middle
    else:
        stopped += f"; stopped after {MAX_BISECTIONS} bisections"
    found = high if increasing else low
    result = measured[found]
    t = None
    if choose_t:
        found, t = _choose_t(mechanism, found, word_ids, samples, prior, metric, at)
        result = estimate_statistic(at(found, t=t), word_ids, samples, target, prior)
        stopped += f"; then Alg. 2 chose t = {t:g} at equal utility loss"
    final = {**changes, "t": t} if t is not None else changes
    kept = (
        result
        if target == "keep"
        else estimate_statistic(at(found, **final), word_ids, samples, "keep", prior)
    )
    return Tuning(
        type(mechanism).__name__,
        mechanism.pack.name,
        target + ("" if target == "keep" else f" ({prior} prior)"),
        value,
        found,
        {**mechanism.parameters(), **final, "epsilon": found},
        result,
        kept,
        (low, high),
        stopped,
        evaluations,
        t,
    )


def _choose_t(
    mechanism: WordMechanism,
    epsilon: float,
    word_ids: np.ndarray,
    samples: int,
    prior: str,
    metric: str | None,
    at: Callable[..., WordMechanism],
) -> tuple[float, float]:
    """Alg. 2 at ``epsilon``: the t with the largest E_M whose utility loss is <= t = 0's."""
    pack = mechanism.pack
    if metric == "hamming":
        codes = np.asarray(pack.codes)

        def distance(inputs: np.ndarray, outputs: np.ndarray) -> np.ndarray:
            bits: np.ndarray = np.bitwise_count(codes[inputs] ^ codes[outputs]).sum(axis=1)
            return bits.astype(np.float64)

    else:
        vectors = np.asarray(pack.require_vectors("utility loss"), dtype=np.float64)

        def distance(inputs: np.ndarray, outputs: np.ndarray) -> np.ndarray:
            norms: np.ndarray = np.linalg.norm(vectors[inputs] - vectors[outputs], axis=1)
            return norms

    weights = zipf_prior(pack, word_ids) if prior == "zipf" else None
    # the utility loss of t = 0 at this epsilon, measured exactly as Alg. 2 measures
    probe = select_parameters(
        lambda eps, t: at(eps, t=t),
        word_ids.tolist(),
        distance=distance,
        max_loss=float("inf"),
        prior=weights,
        epsilon0=epsilon,
        samples=samples,
        t_grid=(),
    )
    selection = select_parameters(
        lambda eps, t: at(eps, t=t),
        word_ids.tolist(),
        distance=distance,
        max_loss=probe.utility_loss * 1.0001 + 1e-12,
        prior=weights,
        epsilon0=epsilon,
        samples=samples,
    )
    return selection.epsilon, selection.t
