"""Realised delta and speed of every sampler a mechanism uses, before and after issue 14.

``python -m bench samplers [--quick]`` (also part of ``trust``). Two tables:

* ``realised_delta``: for epsilon in {1, 10, 30, 100, 300, 1000}, the delta each sampler realises
  at the stated epsilon, computed over bit patterns by :mod:`edgedp.privacy.realised_distributions` (exact
  for the old
  samplers over their 2^53 uniforms; exact tails or proven bounds for the new ones). "before" is the
  sampler until issue 14 (53-bit uniforms), "after" the current one.
* ``speed``: median time of each sampler call at the sizes mechanisms use, the old sampler (kept
  here as the baseline, same RandomSource bytes) against the new one, measured in the same run,
  with the ratio new/old. Both draw from OS entropy.
"""

from __future__ import annotations

import math
import time

import numpy as np

from bench.harness import Report, median_seconds
from edgedp.privacy import realised_distributions as realised
from edgedp.privacy.noise import analytic_gaussian_sigma, snapped_laplace
from edgedp.privacy.randomness import RandomSource

EPSILONS = (1.0, 10.0, 30.0, 100.0, 300.0, 1000.0)
#: ADePT's bundled pack: C = 1, d = 32; Gaussian at delta 1e-6.
ADEPT_DIMS = 32
ADEPT_DELTA = 1e-6


class LegacySamplers:
    """The samplers before issue 14, verbatim, as the speed baseline (NOT private: bounded tails)."""

    def __init__(self, source: RandomSource) -> None:
        self.source = source

    def exponential(self, size: int | tuple[int, ...]) -> np.ndarray:
        return -np.log(self.source.uniform_positive(size))

    def laplace(self, size: int | tuple[int, ...]) -> np.ndarray:
        magnitude = self.exponential(size)
        return np.where(self.source.bernoulli(2**63, size), 1.0, -1.0) * magnitude

    def standard_normal(self, size: int | tuple[int, ...]) -> np.ndarray:
        count = math.prod(size) if isinstance(size, tuple) else size
        pairs = (count + 1) // 2
        radius = np.sqrt(2.0 * self.exponential(pairs))
        angle = (2.0 * np.pi) * self.source.uniform(pairs)
        normals = np.concatenate([radius * np.cos(angle), radius * np.sin(angle)])
        return normals[:count].reshape(size)

    def choice_from_log_weights(self, log_weights: np.ndarray) -> np.ndarray:
        scores = np.asarray(log_weights, dtype=np.float64)
        row_max = scores.max(axis=1, keepdims=True)
        cumulative = np.cumsum(np.exp(scores - row_max), axis=1)
        targets = self.source.uniform(scores.shape[0]) * cumulative[:, -1]
        chosen = (cumulative <= targets[:, None]).sum(axis=1)
        return np.minimum(chosen, scores.shape[1] - 1)


def _fmt(value: float) -> str:
    return "0" if value == 0 else f"{value:.7g}"


def _realised(report: Report) -> None:
    for epsilon in EPSILONS:
        sigma_old = analytic_gaussian_sigma(2.0, epsilon, ADEPT_DELTA)
        sigma_new = analytic_gaussian_sigma(2.0, epsilon, ADEPT_DELTA * (1.0 - 2.0**-20))
        slack, log10_delta = realised.gumbel_max_slack(epsilon * 50, epsilon)
        near_far = realised.near_far_slack(epsilon * 50 + math.log(100_000), epsilon, 257)[0]
        rows = [
            (
                "Laplace noise, 1-D shift = epsilon scales (threshold events)",
                realised.legacy_laplace_delta(epsilon),
                _fmt(realised.laplace_threshold_delta(epsilon)),
                "float laplace(): unbounded tail; bound from the coupling",
            ),
            (
                "ADePT Laplace, worst pair of its calibration (one coordinate, shift eps/sqrt(32))",
                realised.legacy_laplace_delta(epsilon / math.sqrt(ADEPT_DIMS)),
                "0",
                "snapped exact discrete Laplace",
            ),
            (
                "Truncation (Laplace on the mean), worst case its calibration covers (1 coordinate)",
                realised.legacy_laplace_delta(epsilon),
                "0",
                "snapped exact discrete Laplace",
            ),
            (
                f"ADePT Gaussian, delta {ADEPT_DELTA:g}, L2 sensitivity 2 (threshold events)",
                realised.legacy_gaussian_delta(epsilon, sigma_old, 2.0),
                _fmt(realised.gaussian_threshold_delta(epsilon, sigma_new, 2.0)),
                "sigma for delta (1 - 2^-20); stated delta 1e-06",
            ),
            (
                "exponential mechanism, raw choice_from_log_weights (2-candidate pairs)",
                realised.legacy_choice_delta(epsilon),
                _fmt(realised.gumbel_choice_delta(epsilon)),
                f"Gumbel-max: epsilon slack {slack:.2g} counted as delta",
            ),
            (
                "DeepCandidate (slack taken out of epsilon)",
                realised.legacy_choice_delta(epsilon),
                f"10^{log10_delta:.0f} per candidate",
                "below 2^-1000",
            ),
            (
                "TEM / SanText near-far draw, 100,000 words (issue 25; before: one draw per word)",
                realised.legacy_choice_delta(epsilon),
                f"slack {near_far:.2g}",
                "Hamming: taken out of epsilon; Euclidean: stated as delta",
            ),
        ]
        for sampler, before, after, note in rows:
            report.add(
                table="realised_delta",
                epsilon=epsilon,
                sampler=sampler,
                before=_fmt(before),
                after=after,
                note=note,
            )
        tail = realised.exponential_tail(epsilon + 745.0)
        report.add(
            table="realised_delta",
            epsilon=epsilon,
            sampler=f"exponential: ln Pr[X > eps + 745] (ideal {-(epsilon + 745):.2f})",
            before="-inf (max 36.74)",
            after=f"{tail:.6f}",
            note="exact over bit patterns",
        )


def _speed(report: Report, repeats: int) -> None:
    source = RandomSource.os_entropy()
    old = LegacySamplers(source)
    truncation = snapped_laplace(37.5, 384, 3.0)
    adept = snapped_laplace(2 * math.sqrt(ADEPT_DIMS), ADEPT_DIMS, 300.0)
    cases = [
        ("exponential x384", lambda: old.exponential(384), lambda: source.exponential(384)),
        (
            "laplace x384 (Truncation, 384 dims)",
            lambda: old.laplace(384),
            lambda: source.laplace(384),
        ),
        (
            "Truncation noise: float laplace x384 vs snapped discrete Laplace x384",
            lambda: old.laplace(384),
            lambda: truncation.release(np.zeros(384), source),
        ),
        (
            "ADePT Laplace noise, 32 dims: float vs snapped discrete",
            lambda: old.laplace(ADEPT_DIMS),
            lambda: adept.release(np.zeros(ADEPT_DIMS), source),
        ),
        (
            "standard_normal x32 (ADePT Gaussian)",
            lambda: old.standard_normal(32),
            lambda: source.standard_normal(32),
        ),
        (
            "Madlib noise: gamma(50) radius + unit vector, 1 word",
            lambda: (old.exponential((1, 50)).sum(axis=1), old.standard_normal((1, 50))),
            lambda: source.unit_vectors(1, 50) * source.gamma_integer_shape(50, 1)[:, None],
        ),
    ]
    for m in (10, 1000, 5000):
        weights = np.linspace(0.0, -30.0, m)[None, :]
        cases.append(
            (
                f"choice_from_log_weights, 1 row x {m} candidates",
                lambda w=weights: old.choice_from_log_weights(w),
                lambda w=weights: source.choice_from_log_weights(w),
            )
        )
    for name, before, after in cases:
        old_seconds = median_seconds(before, repeats=repeats, warmup=3)
        new_seconds = median_seconds(after, repeats=repeats, warmup=3)
        report.add(
            table="speed",
            call=name,
            before_us=round(old_seconds * 1e6, 1),
            after_us=round(new_seconds * 1e6, 1),
            ratio=round(new_seconds / old_seconds, 2),
        )
        print(f"   {name}: {old_seconds * 1e6:.1f} us -> {new_seconds * 1e6:.1f} us", flush=True)


def run(report: Report, *, quick: bool) -> None:
    start = time.perf_counter()
    _realised(report)
    print(f"   realised deltas computed in {time.perf_counter() - start:.0f} s", flush=True)
    _speed(report, 30 if quick else 300)
    report.notes.append(
        "Realised delta: 'before' = the 53-bit samplers until issue 14 (exact over their 2^53 "
        "uniforms: the noise stopped at 36.74 Laplace scales / 8.57 sigma, and the categorical gave "
        "weights below one rounding step probability 0); 'after' = the current samplers "
        "(edgedp.privacy.realised_distributions: exact tails over bit patterns, or the coupling bound). "
        "Threshold "
        "events = {x > t}; the snapped releases are exact for every event. Speed: median of "
        "repeated calls, old and new in the same run, OS entropy."
    )
