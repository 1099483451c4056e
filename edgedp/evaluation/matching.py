"""Matching two word mechanisms by empirical privacy, not by a distance bound.

The privacy ratio (:mod:`edgedp.evaluation.calibration`, BRR paper Sec. 5) gives two mechanisms
equal *bounds*: epsilon_B * P_d(B) = epsilon_A * P_d(A). Equal bounds are not equal privacy in
practice. On the bundled words BRR at the per-bit epsilon with Madlib's average bound changes far
more of a text's words than Madlib; and the average Hamming distance grows with the code length, so
the matched per-bit epsilon falls as 1 / bits while randomized response loses information only as
1 / sqrt(bits): with long codes the same calibration changes nearly every word. Restricting the
ratio to each word's nearest neighbours (the pairs a replacement comes from) moves it little
(``python -m bench brr-parity``; bench/reports/2026-11-24-brr-parity.md).

:func:`matched_epsilon` matches what an observer sees instead. It measures the source mechanism at
its epsilon on the fixed public word set of :mod:`edgedp.evaluation.keep_rate` and finds the
target's epsilon with the same

* ``statistic="kept"``: share of a running text's words released unchanged (Zipf-weighted N_w), or
* ``statistic="inference-error"``: the Bayesian adversary's inference error E_M (Zipf prior; Xu et
  al. 2021, Sec. 3),

by :func:`edgedp.evaluation.tune.tune`'s bisection (common random numbers, 95 % intervals). A
comparison of utility at a matched point then compares mechanisms that hide the same share of words
from the same adversary. Each mechanism's formal guarantee stays its own (epsilon * d in its own
metric); the match is an estimate on public words, with the intervals reported. Nothing private is
drawn.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from edgedp.errors import InputError
from edgedp.evaluation.explain import measure, rebuild
from edgedp.evaluation.keep_rate import Estimate, public_word_set
from edgedp.evaluation.tune import TUNE_SAMPLES, TUNE_WORDS, tune
from edgedp.privacy.randomness import public_statistics_source
from edgedp.privacy.validation import check_choice
from edgedp.words.mechanism import WordMechanism

STATISTICS = ("kept", "inference-error")
_EDGE = 1e-9  # a statistic this close to 0 or 1 (a float sum of exact 0s or 1s) has no match


@dataclass(frozen=True)
class Match:
    """The outcome of :func:`matched_epsilon`."""

    source: str
    source_epsilon: float
    target: str
    statistic: str
    source_estimate: Estimate  # the statistic of the source at its epsilon
    epsilon: float  # the target's matched epsilon
    target_estimate: Estimate  # the statistic of the target there
    stopped: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def source_statistic(
    mechanism: WordMechanism,
    statistic: str,
    *,
    words: int = TUNE_WORDS,
    samples: int = TUNE_SAMPLES,
) -> Estimate:
    """``statistic`` of ``mechanism`` on the public word set, measured as tune measures it."""
    statistic = check_choice(statistic, "statistic", STATISTICS)
    stats = measure(
        rebuild(mechanism, public_statistics_source(1)),
        public_word_set(mechanism.pack, words),
        samples,
        rng=public_statistics_source(1),
        inference=statistic != "kept",
    )
    estimate: Estimate = stats["kept"] if statistic == "kept" else stats["error_zipf"]
    return estimate


def matched_epsilon(
    source: WordMechanism,
    target: WordMechanism,
    *,
    statistic: str = "kept",
    words: int = TUNE_WORDS,
    samples: int = TUNE_SAMPLES,
) -> Match:
    """The epsilon of ``target`` (its other parameters kept; its epsilon is the search's start)
    whose ``statistic`` equals ``source``'s at ``source.epsilon`` (see the module docstring)."""
    if source.pack is not target.pack:
        raise InputError("matching needs both mechanisms on the same pack (the same vocabulary)")
    reference = source_statistic(source, statistic, words=words, samples=samples)
    if not _EDGE < reference.value < 1.0 - _EDGE:
        raise InputError(
            f"{type(source).__name__} at epsilon {source.epsilon:g} has {statistic} "
            f"{reference.value:.3f}: nothing to match (choose an epsilon where it is strictly "
            "between 0 and 1)"
        )
    kept = statistic == "kept"
    tuning = tune(
        target,
        keep=reference.value if kept else None,
        inference_error=None if kept else reference.value,
        words=words,
        samples=samples,
    )
    return Match(
        source=type(source).__name__,
        source_epsilon=source.epsilon,
        target=type(target).__name__,
        statistic=statistic,
        source_estimate=reference,
        epsilon=tuning.epsilon,
        target_estimate=tuning.estimate or tuning.kept,  # a Monte Carlo target has one
        stopped=tuning.stopped,
    )
