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

**The whole-vocabulary adversary** (:func:`point_adversary`). The figures above restrict the
adversary to the inputs of the word set S and estimate f_M(w'|w) from a few releases per word:
with 200 candidates instead of 100,000 the adversary's task is far easier than it is, and a MAP over
noisy estimates is biased further. :func:`point_adversary` instead measures how often the
Bayes-optimal adversary names the input word over the WHOLE vocabulary under a Zipf prior over the
word-like words (pi(w) proportional to 1 / rank, rank = vocabulary id + 1: packs are in corpus
frequency order; :func:`zipf_log_prior`). The released *word*'s likelihood Pr[M(w) = w'] is a sum
over every noisy point that decodes to w', which has no closed form; the *noisy point* y
(randomized response's code, Madlib's or Mahalanobis's vector) has an exact likelihood for every
vocabulary word (:func:`vocabulary_log_likelihood`), and the released word is a function of y (plus,
for Vickrey, independent randomness). So the adversary here observes y: by the data-processing
inequality its success is an **upper bound** on the success of any adversary who sees only the
released word, and the share of words kept unchanged (the adversary who guesses the word it sees)
is a lower bound on that. The estimate: draw inputs w ~ pi, release y, compute the exact posterior
over all vocabulary words (in blocks, no candidate set) and take the MAP guess; the share of correct
guesses is an **unbiased** estimate of this attack's success, with a Wilson interval. It is also the
measured success of a concrete attack on the implementation, so it stays a valid lower bound on
the optimum even when a broken mechanism does not follow its stated noise law. The mean posterior
probability of the MAP guess estimates the same number with less variance when the law holds (the
Rao-Blackwellized estimate); a disagreement between the two flags a mechanism that does not.

These are *evaluation* tools: they run the mechanism many times on public words and release nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from edgedp.errors import InputError
from edgedp.evaluation.keep_rate import word_like_mask
from edgedp.privacy.noise import rr_flip_threshold
from edgedp.privacy.randomness import RandomSource, resolve_rng
from edgedp.privacy.validation import check_positive_int
from edgedp.words.mechanism import WordMechanism
from edgedp.words.pack import WordPack
from edgedp.words.spaces import EuclideanSpace, HammingSpace, MahalanobisSpace, Space

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


# -- the whole-vocabulary adversary who observes one noisy point ------------------------------------

#: Inputs drawn from the prior for :func:`point_adversary` (``edgedp explain``'s default).
ADVERSARY_SAMPLES = 1000
#: Vocabulary words per block of the exact posterior (a block of scores stays ~16 MB).
POSTERIOR_BLOCK = 4096
#: Noisy points per block of the exact posterior.
POSTERIOR_QUERIES = 500
_Z_975 = 1.959963984540054


def zipf_log_prior(pack: WordPack) -> np.ndarray:
    """log pi(v) for every vocabulary id v: Zipf's law over the word-like words, -inf elsewhere.

    pi(v) is proportional to 1 / (v + 1) for the word-like words of
    :func:`edgedp.evaluation.keep_rate.word_like_mask` (a running text's word slots; packs are in
    corpus-frequency order, so the id is the frequency rank) and 0 for the others (numbers,
    punctuation: the identifier guard and the segmentation keep them from the mechanism).

    Parameters
    ----------
    pack : WordPack
        Any words pack.

    Returns
    -------
    numpy.ndarray
        float64, one entry per vocabulary word; ``logsumexp`` of it is 0.
    """
    mask = word_like_mask(pack)
    ids = np.flatnonzero(mask)
    log_prior = np.full(len(mask), -np.inf)
    weights = 1.0 / (ids + 1.0)
    log_prior[ids] = np.log(weights) - math.log(float(weights.sum()))
    return log_prior


def _hamming_blocks(space: HammingSpace, points: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """Exact log-likelihoods by block: d_H(y, phi(v)) log(p / (1 - p)) up to a constant of y.

    Hamming distances as a +-1 inner product (d_H = (n - <2a - 1, 2b - 1>) / 2), one float32 matrix
    product per block (exact: integers below 2^24)."""
    flip = rr_flip_threshold(space.epsilon) / 2**64
    slope = math.log(flip / (1.0 - flip))
    queries = 1.0 - 2.0 * np.unpackbits(np.asarray(points, dtype=np.uint8), axis=1).astype(
        np.float32
    )
    codes = space.pack.codes
    for start in range(0, len(codes), POSTERIOR_BLOCK):
        block = np.unpackbits(np.asarray(codes[start : start + POSTERIOR_BLOCK]), axis=1)
        signs = 1.0 - 2.0 * block.astype(np.float32)
        # d_H slope = (bits - <q, s>) slope / 2; the constant bits * slope / 2 is dropped
        likelihood = (queries @ signs.T).astype(np.float64)
        likelihood *= -slope / 2.0
        yield start, likelihood


def _euclidean_blocks(
    space: EuclideanSpace, points: np.ndarray
) -> Iterator[tuple[int, np.ndarray]]:
    """Exact log-densities by block: -||W (y - phi(v))|| / s, W = Sigma_lambda^(-1/2) for the
    Mahalanobis space and the identity for the Euclidean one, s the realised radius scale."""
    transform = space.inverse_root if isinstance(space, MahalanobisSpace) else None
    queries = np.asarray(points, dtype=np.float64)
    if transform is not None:
        queries = queries @ transform  # symmetric: rows z^T W = (W z)^T
    squared = np.einsum("ij,ij->i", queries, queries)[:, None]
    vectors = space.vectors
    for start in range(0, len(vectors), POSTERIOR_BLOCK):
        block = np.asarray(vectors[start : start + POSTERIOR_BLOCK], dtype=np.float64)
        if transform is not None:
            block = block @ transform
        norms = np.einsum("ij,ij->i", block, block)[None, :]
        distances = np.sqrt(np.maximum(squared - 2.0 * queries @ block.T + norms, 0.0))
        yield start, -distances / space.radius_scale


def _generic_blocks(space: Space, points: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """Any space: its own k-NN over the whole vocabulary and :meth:`Space.log_likelihood` (slow:
    the oracle the fast paths are tested against)."""
    size = len(space.pack.vocabulary)
    distances, ids = space.nearest(np.asarray(points), size)
    scores = space.log_likelihood(points, distances, ids)
    out = np.empty((len(points), size))
    np.put_along_axis(out, ids, scores, axis=1)
    yield 0, out


def vocabulary_log_likelihood(
    space: Space, points: np.ndarray, *, generic: bool = False
) -> Iterator[tuple[int, np.ndarray]]:
    """log Pr[noisy point | input word = v] for every vocabulary word v, block by block.

    Parameters
    ----------
    space : Space
        The mechanism's space (:class:`~edgedp.words.spaces.HammingSpace`,
        :class:`~edgedp.words.spaces.EuclideanSpace`, :class:`~edgedp.words.spaces.MahalanobisSpace`,
        or any other through its ``nearest`` and ``log_likelihood``).
    points : numpy.ndarray
        Noisy points of :meth:`Space.perturb`, one row each.
    generic : bool, default False
        Use the space's own k-NN and ``log_likelihood`` over the whole vocabulary (the slow path
        the fast ones are tested against).

    Yields
    ------
    tuple of (int, numpy.ndarray)
        The first vocabulary id of a block and the (points, block) log-likelihoods, up to an
        additive constant of each point (which cancels in a posterior).
    """
    if not generic and isinstance(space, HammingSpace):
        return _hamming_blocks(space, points)
    if not generic and isinstance(space, EuclideanSpace):
        return _euclidean_blocks(space, points)
    return _generic_blocks(space, points)


def posterior_map(
    space: Space, points: np.ndarray, log_prior: np.ndarray, *, generic: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The MAP input word of each noisy point over the whole vocabulary, and its posterior.

    The posterior is pi(v) f(y | v) / sum_u pi(u) f(y | u), computed exactly in log space (a
    running maximum and log-sum-exp over vocabulary blocks); ties go to the lower id.

    Parameters
    ----------
    space : Space
        The mechanism's space.
    points : numpy.ndarray
        Noisy points, one row each.
    log_prior : numpy.ndarray
        log pi(v) per vocabulary id (``-inf`` for words the adversary rules out).
    generic : bool, default False
        See :func:`vocabulary_log_likelihood`.

    Returns
    -------
    tuple of numpy.ndarray
        The MAP ids (int64) and their posterior probabilities (float64), one per point.
    """
    count = len(points)
    best = np.full(count, -np.inf)
    guess = np.zeros(count, dtype=np.int64)
    total = np.full(count, -np.inf)  # running log-sum-exp
    rows = np.arange(count)
    for start, scores in vocabulary_log_likelihood(space, points, generic=generic):
        scores += log_prior[start : start + scores.shape[1]]  # in place: the block's own array
        top = np.argmax(scores, axis=1)
        value = scores[rows, top]
        better = value > best
        guess[better], best[better] = top[better] + start, value[better]
        shift = np.maximum(total, value)
        finite = np.isfinite(shift)
        scores -= np.where(finite, shift, 0.0)[:, None]
        block_sum = np.exp(scores, out=scores).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            total = np.where(finite, shift + np.log(np.exp(total - shift) + block_sum), total)
    return guess, np.exp(best - total)


def wilson_interval(successes: int, trials: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of a binomial proportion."""
    if trials <= 0:
        raise InputError("a proportion needs at least one trial")
    share = successes / trials
    z2 = _Z_975**2
    centre = (share + z2 / (2 * trials)) / (1 + z2 / trials)
    half = (
        _Z_975 * math.sqrt(share * (1 - share) / trials + z2 / (4 * trials**2)) / (1 + z2 / trials)
    )
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class AdversaryEstimate:
    """How often the Bayes-optimal adversary who sees one noisy point names the input word.

    ``success`` [``low``, ``high``]: the MAP attack's measured success (share of correct guesses,
    Wilson interval); ``model_success`` [``model_low``, ``model_high``]: the mean posterior of the
    MAP guess (unbiased under the mechanism's stated noise law, t-interval); ``floor``: the success
    of guessing the likeliest word without looking (max pi); ``consistent``: whether the two
    estimates agree (3.5 combined standard errors).
    """

    success: float
    low: float
    high: float
    model_success: float
    model_low: float
    model_high: float
    floor: float
    samples: int
    observes: str
    consistent: bool
    method: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        return f"{self.success:.3f} [{self.low:.3f}, {self.high:.3f}]"


def point_adversary(
    mechanism: WordMechanism,
    *,
    samples: int = ADVERSARY_SAMPLES,
    rng: RandomSource | int | None = None,
    log_prior: np.ndarray | None = None,
    generic: bool = False,
) -> AdversaryEstimate | None:
    """Estimate the whole-vocabulary MAP adversary's success against one noisy point.

    Parameters
    ----------
    mechanism : WordMechanism
        A mechanism with a space (BRR, Madlib, Mahalanobis, the Vickrey mechanisms); its space's
        :meth:`~edgedp.words.spaces.Space.perturb` draws the noisy points (with its own source).
    samples : int, default ADVERSARY_SAMPLES
        Inputs drawn from the prior (>= 2).
    rng : RandomSource or int or None, default None
        Draws the inputs; ``None`` is OS entropy.
    log_prior : numpy.ndarray or None, default None
        log pi per vocabulary id; ``None`` is :func:`zipf_log_prior`.
    generic : bool, default False
        Use the slow generic likelihood (tests).

    Returns
    -------
    AdversaryEstimate or None
        ``None`` for a mechanism without a noisy point (TEM, SanText, CusText sample a word).

    Notes
    -----
    See the module docstring: the adversary observes the noisy point, so its success bounds from
    above that of an adversary who sees only the released word (data processing). The share of
    correct MAP guesses is unbiased for this attack's success; inputs are public vocabulary words.
    """
    if mechanism.space is None:
        return None
    count = check_positive_int(samples, "samples", minimum=2)
    source = resolve_rng(rng) if rng is not None else RandomSource()
    space = mechanism.space
    prior = zipf_log_prior(mechanism.pack) if log_prior is None else np.asarray(log_prior)
    if prior.shape != (len(mechanism.pack.vocabulary),):
        raise InputError("log_prior needs one entry per vocabulary word")
    weights = np.exp(prior - prior.max())
    cumulative = np.cumsum(weights)
    inputs = np.searchsorted(cumulative, source.uniform(count) * cumulative[-1], side="right")
    inputs = np.minimum(inputs, len(cumulative) - 1).astype(np.int64)
    hits = 0
    posteriors = []
    for start in range(0, count, POSTERIOR_QUERIES):
        words = inputs[start : start + POSTERIOR_QUERIES]
        guess, posterior = posterior_map(space, space.perturb(words), prior, generic=generic)
        hits += int((guess == words).sum())
        posteriors.append(posterior)
    posterior = np.concatenate(posteriors)
    share = hits / count
    low, high = wilson_interval(hits, count)
    model = float(posterior.mean())
    model_half = _Z_975 * float(posterior.std(ddof=1)) / math.sqrt(count)
    spread = math.sqrt(
        max(share * (1 - share), 1.0 / count) / count + float(posterior.var(ddof=1)) / count
    )
    observes = "noisy code" if isinstance(space, HammingSpace) else "noisy vector"
    return AdversaryEstimate(
        success=share,
        low=low,
        high=high,
        model_success=model,
        model_low=max(0.0, model - model_half),
        model_high=min(1.0, model + model_half),
        floor=float(np.exp(prior.max())),
        samples=count,
        observes=observes,
        consistent=abs(share - model) <= 3.5 * spread,
        method=(
            f"{count} inputs drawn from the Zipf prior over {int(np.isfinite(prior).sum()):,} "
            f"vocabulary words; exact posterior over all {len(prior):,} words given the "
            f"{observes}; share of correct MAP guesses, Wilson 95 % interval"
        ),
    )
