"""Empirical privacy of word mechanisms (Xu et al. 2021, Sec. 3): what a Bayesian adversary infers.

A word mechanism M is a channel f_M(w' | w) = Pr[M(w) = w'] from a set S of input words (with a prior
pi over S) to output words. This module estimates the channel by Monte Carlo (or takes an exact one)
and reports:

* utility loss L_M = sum_{w, w'} pi(w) f(w' | w) d_L(w, w') for a task distance d_L;
* the adversary's expected inference error E_M with d_E(w_hat, w) = 1[w_hat != w]. The adversary
  knows M, epsilon and pi and draws its guess from the posterior given the output w':
  g(w_hat | w') = pi(w_hat) f(w' | w_hat) / sum_v pi(v) f(w' | v). That is Bayes' rule; the paper's
  equation (3) prints a denominator with f(w' | w) where the output should be conditioned on, a typo.
  With this d_E, E_M = 1 - sum_{w'} sum_w (pi(w) f(w'|w))^2 / sum_v pi(v) f(w'|v).
  We also report the error of the Bayes-optimal (MAP) adversary, 1 - sum_{w'} max_w pi(w) f(w'|w),
  the stronger attack;
* N_w = f(w | w), the probability that a word is released unchanged, and S_w, the number of distinct
  outputs among the samples of w (the statistics of earlier papers), averaged over S.

Monte Carlo confidence intervals: for N_w and S_w a t-interval over the words of S; for E_M, MAP and
L_M a pivotal bootstrap over each word's samples. :func:`select_parameters` implements Alg. 2.

These are *evaluation* tools: they run the mechanism many times on public words and release nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from edgedp.errors import InputError
from edgedp.privacy.randomness import RandomSource, resolve_rng
from edgedp.words.mechanism import WordMechanism

UtilityDistance = Callable[[np.ndarray, np.ndarray], np.ndarray]
_T_975 = 1.96
BOOTSTRAP_REPLICATES = 50


@dataclass(frozen=True)
class Channel:
    """A word channel in sparse form: ``probability[i]`` = f(output[i] | words[input_row[i]])."""

    words: np.ndarray  # input word ids (the set S)
    input_row: np.ndarray
    output: np.ndarray
    probability: np.ndarray
    samples_per_word: int | None = None  # None for an exact channel
    distinct_outputs: np.ndarray | None = None  # S_w per input row (Monte Carlo only)

    @classmethod
    def from_matrix(cls, words: Sequence[int], matrix: np.ndarray) -> Channel:
        """An exact channel from a dense matrix (rows: ``words``, columns: all output ids)."""
        matrix = np.asarray(matrix, dtype=np.float64)
        if matrix.ndim != 2 or matrix.shape[0] != len(words):
            raise InputError("the channel matrix needs one row per input word")
        if not np.allclose(matrix.sum(axis=1), 1.0):
            raise InputError("each row of a channel matrix must sum to 1")
        rows, outputs = np.nonzero(matrix)
        return cls(np.asarray(words, dtype=np.int64), rows, outputs, matrix[rows, outputs])

    @classmethod
    def from_samples(cls, words: Sequence[int] | np.ndarray, outputs: np.ndarray) -> Channel:
        """A Monte Carlo channel from ``outputs`` of shape (len(words), samples)."""
        outputs = np.asarray(outputs, dtype=np.int64)
        count, samples = outputs.shape
        keys = np.repeat(np.arange(count), samples) * (int(outputs.max()) + 1) + outputs.ravel()
        unique, counts = np.unique(keys, return_counts=True)
        rows, outs = np.divmod(unique, int(outputs.max()) + 1)
        return cls(
            np.asarray(words, dtype=np.int64),
            rows,
            outs,
            counts / samples,
            samples,
            np.bincount(rows, minlength=count),
        )


def sample_channel(
    mechanism: WordMechanism, words: Sequence[int], samples: int
) -> tuple[Channel, np.ndarray]:
    """Run ``mechanism`` ``samples`` times on each word; the channel and the raw outputs."""
    ids = np.asarray(words, dtype=np.int64)
    outputs = mechanism.privatize_ids(np.repeat(ids, samples)).reshape(len(ids), samples)
    return Channel.from_samples(ids, outputs), outputs


def _prior(prior: np.ndarray | None, count: int) -> np.ndarray:
    if prior is None:
        return np.full(count, 1.0 / count)
    prior = np.asarray(prior, dtype=np.float64)
    if prior.shape != (count,) or (prior < 0).any() or prior.sum() <= 0:
        raise InputError("prior must hold one non-negative weight per input word")
    normalized: np.ndarray = prior / prior.sum()
    return normalized


def _squared_probabilities(channel: Channel) -> np.ndarray:
    """f(w'|w)^2 per channel entry: exact, or estimated without bias from Monte Carlo counts.

    With c hits out of n samples the plug-in (c/n)^2 overstates f^2 by f(1 - f)/n on average, so
    summed over thousands of rare outputs it overstates the adversary's success and understates
    E_M; c(c - 1) / (n(n - 1)) is unbiased.
    """
    samples = channel.samples_per_word
    if samples is None or samples < 2:
        exact: np.ndarray = channel.probability**2
        return exact
    counts = np.rint(channel.probability * samples)
    unbiased: np.ndarray = counts * (counts - 1) / (samples * (samples - 1))
    return unbiased


def inference_errors(channel: Channel, prior: np.ndarray | None = None) -> tuple[float, float]:
    """(E_M of the posterior-sampling adversary, error of the MAP adversary) for d_E = 1[w != w].

    For a Monte Carlo channel the squared terms of E_M are estimated without bias (see
    :func:`_squared_probabilities`); the MAP error, a maximum over noisy estimates, stays slightly
    optimistic for the adversary (biased low) at small sample sizes.
    """
    weights = _prior(prior, len(channel.words))
    joint = weights[channel.input_row] * channel.probability
    columns = int(channel.output.max()) + 1
    mass = np.bincount(channel.output, weights=joint, minlength=columns)
    squares = np.bincount(
        channel.output,
        weights=weights[channel.input_row] ** 2 * _squared_probabilities(channel),
        minlength=columns,
    )
    seen = mass > 0
    best = np.zeros(columns)
    np.maximum.at(best, channel.output, joint)
    return float(1.0 - (squares[seen] / mass[seen]).sum()), float(1.0 - best.sum())


def utility_loss(
    channel: Channel, distance: UtilityDistance, prior: np.ndarray | None = None
) -> float:
    """L_M = sum pi(w) f(w'|w) d_L(w, w'); ``distance`` maps (input ids, output ids) to losses."""
    weights = _prior(prior, len(channel.words))
    losses = distance(channel.words[channel.input_row], channel.output)
    return float((weights[channel.input_row] * channel.probability * losses).sum())


@dataclass(frozen=True)
class EmpiricalPrivacy:
    """Empirical privacy of one mechanism on one word set (see the module docstring)."""

    inference_error: float
    map_inference_error: float
    utility_loss: float | None
    unchanged: float  # mean N_w
    distinct_outputs: float | None  # mean S_w (Monte Carlo only)
    samples_per_word: int | None
    words: int
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in self.__dataclass_fields__}


def _unchanged_per_word(channel: Channel) -> np.ndarray:
    same = channel.output == channel.words[channel.input_row]
    return np.bincount(
        channel.input_row[same], weights=channel.probability[same], minlength=len(channel.words)
    )


def _mean_interval(values: np.ndarray) -> tuple[float, float]:
    half = _T_975 * values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else 0.0
    return float(values.mean() - half), float(values.mean() + half)


def evaluate(
    channel: Channel,
    *,
    prior: np.ndarray | None = None,
    distance: UtilityDistance | None = None,
    outputs: np.ndarray | None = None,
    rng: RandomSource | int | None = None,
) -> EmpiricalPrivacy:
    """Empirical privacy of a channel; pass the raw Monte Carlo ``outputs`` for bootstrap intervals."""
    error, map_error = inference_errors(channel, prior)
    loss = None if distance is None else utility_loss(channel, distance, prior)
    unchanged = _unchanged_per_word(channel)
    intervals = {"unchanged": _mean_interval(unchanged)}
    if channel.distinct_outputs is not None:
        intervals["distinct_outputs"] = _mean_interval(channel.distinct_outputs.astype(float))
    if outputs is not None:
        estimates = {"inference_error": error, "map_inference_error": map_error}
        if loss is not None:
            estimates["utility_loss"] = loss
        intervals.update(_bootstrap(channel, outputs, estimates, prior, distance, resolve_rng(rng)))
    return EmpiricalPrivacy(
        inference_error=error,
        map_inference_error=map_error,
        utility_loss=loss,
        unchanged=float(unchanged.mean()),
        distinct_outputs=None
        if channel.distinct_outputs is None
        else float(channel.distinct_outputs.mean()),
        samples_per_word=channel.samples_per_word,
        words=len(channel.words),
        intervals=intervals,
    )


def _bootstrap(
    sampled: Channel,
    outputs: np.ndarray,
    estimates: dict[str, float],
    prior: np.ndarray | None,
    distance: UtilityDistance | None,
    rng: RandomSource,
) -> dict[str, tuple[float, float]]:
    """Pivotal bootstrap intervals from resampling each word's Monte Carlo outputs with replacement.

    In the bootstrap world the true channel is the sampled one, taken as exact (theta_0); each
    replicate theta* estimates it as theta estimates the real channel, so theta* - theta_0 stands
    in for the estimation error and the interval is [theta - (q_97.5 - theta_0), theta - (q_2.5 -
    theta_0)]. Percentile intervals of theta* would not even contain the estimate: resampled
    channels are more concentrated than the sampled one, which shifts the replicates of E_M down.
    ``estimates`` are theta, as :func:`evaluate` computed them from ``sampled``.
    """
    count, samples = outputs.shape
    words = sampled.words
    exact_error, exact_map_error = inference_errors(replace(sampled, samples_per_word=None), prior)
    # theta_0; the utility loss is linear in the channel, so its estimate is unbiased already
    centres = {**estimates, "inference_error": exact_error, "map_inference_error": exact_map_error}
    replicates: dict[str, list[float]] = {
        "inference_error": [],
        "map_inference_error": [],
        "utility_loss": [],
    }
    for _ in range(BOOTSTRAP_REPLICATES):
        picks = rng.integers(samples, count * samples).reshape(count, samples)
        channel = Channel.from_samples(words, np.take_along_axis(outputs, picks, axis=1))
        error, map_error = inference_errors(channel, prior)
        replicates["inference_error"].append(error)
        replicates["map_inference_error"].append(map_error)
        if distance is not None:
            replicates["utility_loss"].append(utility_loss(channel, distance, prior))
    return {
        key: (
            float(estimates[key] - (np.percentile(values, 97.5) - centres[key])),
            float(estimates[key] - (np.percentile(values, 2.5) - centres[key])),
        )
        for key, values in replicates.items()
        if values
    }


@dataclass(frozen=True)
class Selection:
    """The outcome of :func:`select_parameters` and every point it evaluated."""

    epsilon: float
    t: float
    inference_error: float
    utility_loss: float
    trace: list[dict[str, float]]


def select_parameters(
    make_mechanism: Callable[[float, float], WordMechanism],
    words: Sequence[int],
    *,
    distance: UtilityDistance,
    max_loss: float,
    prior: np.ndarray | None = None,
    epsilon0: float = 0.5,
    samples: int = 200,
    t_grid: Sequence[float] = tuple(np.round(np.arange(0.05, 1.0001, 0.05), 2)),
    max_doublings: int = 30,
) -> Selection:
    """Alg. 2: double epsilon (at t = 0) until L_M < C, then scan t for the largest E_M with L_M <= C.

    ``make_mechanism(epsilon, t)`` builds the mechanism (e.g. a Vickrey with that t). Assumes, as the
    paper does, that L_M decreases as epsilon grows.
    """
    trace: list[dict[str, float]] = []

    def measure(epsilon: float, t: float) -> tuple[float, float]:
        channel, _ = sample_channel(make_mechanism(epsilon, t), words, samples)
        error, _ = inference_errors(channel, prior)
        loss = utility_loss(channel, distance, prior)
        trace.append({"epsilon": epsilon, "t": t, "inference_error": error, "utility_loss": loss})
        return error, loss

    epsilon = epsilon0
    error, loss = measure(epsilon, 0.0)
    doublings = 0
    while loss >= max_loss:
        if doublings == max_doublings:
            raise InputError(f"utility loss stays >= {max_loss} up to epsilon {epsilon}")
        epsilon *= 2
        doublings += 1
        error, loss = measure(epsilon, 0.0)
    best = (error, 0.0, loss)
    for t in t_grid:
        error, loss = measure(epsilon, float(t))
        if loss <= max_loss and error > best[0]:
            best = (error, float(t), loss)
    return Selection(epsilon, best[1], best[0], best[2], trace)
