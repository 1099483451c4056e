"""Choosing epsilon by what it does: the epsilon of a word mechanism that meets a target.

One function per target, each returning a :class:`Tuning`, and :func:`tune`, which takes the
target as a keyword (``keep=``, ``inference_error=`` or ``loss_bound=``) and calls the right one:

* :func:`tune_loss_bound`: a per-word privacy-loss bound B, exact. epsilon = B / P_d, with P_d the
  average (``aggregate="avg"``) or maximum pairwise distance of the vocabulary under the
  mechanism's metric, so that epsilon * P_d = B.
* :func:`tune_keep`: a share of words kept (the Zipf-weighted, text-like share released unchanged),
  and :func:`tune_inference_error`: an inference error (the Bayesian adversary's E_M under the Zipf
  or uniform prior). Both are Monte Carlo on the fixed public word set of
  :mod:`edgedp.evaluation.keep_rate`. The share kept grows with epsilon and E_M falls, so the
  search is a bisection in log epsilon: starting from the mechanism's epsilon, epsilon is doubled
  or halved until the target is bracketed (at most :data:`MAX_EXPANSIONS` times), then the bracket
  [lo, hi] is halved geometrically until hi / lo <= 1 + ``rel_tol`` (or after
  :data:`MAX_BISECTIONS` halvings). **What is returned**: the end of the final bracket that *meets*
  the target: for ``keep`` the smallest epsilon whose estimate keeps at least the target share (lo
  keeps less), for ``inference_error`` the largest epsilon whose estimated E_M is at least the
  target (hi's is lower); so the result is within a factor 1 + ``rel_tol`` (2 % by default) of the
  epsilon where the estimate crosses the target, on the side that meets it. It is reported with
  the estimate there, its 95 % interval, the final bracket and every evaluation. Every evaluation
  draws the same public random numbers (a fixed evaluation seed: common random numbers), which
  makes the estimate close to monotone in epsilon; the words are public, nothing private is drawn
  or released.
* Vickrey's t: with ``choose_t=True`` the mechanism must have a ``t``; after epsilon is tuned at
  t = 0 (plain Madlib / BRR), Xu et al.'s Alg. 2
  (:func:`edgedp.evaluation.empirical_privacy.select_parameters`) scans t at that epsilon for the
  largest E_M whose utility loss (the metric distance between input and output word) is no worse
  than t = 0's, and the estimate is reported at the chosen (epsilon, t).

The functions are generic over :class:`~edgedp.words.mechanism.WordMechanism`: they rebuild the
mechanism as ``type(mechanism)(pack, **mechanism.parameters())`` with another epsilon, so new
mechanisms work without changes. The cheap check behind ``edgedp privatize``'s warning on the share
kept is :func:`edgedp.evaluation.keep_rate.keep_warning`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from edgedp.errors import InputError, PrivacyParameterError
from edgedp.evaluation.empirical_privacy import select_parameters
from edgedp.evaluation.explain import loss_statistics, measure, mechanism_metric, rebuild
from edgedp.evaluation.keep_rate import Estimate, public_word_set, zipf_prior
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
    """The outcome of :func:`tune` and of its per-target functions.

    Attributes
    ----------
    mechanism, pack : str
        The mechanism's class name and its pack's name.
    target : str
        The target met, with its aggregate or prior (``"keep"``, ``"inference_error (zipf prior)"``,
        ``"loss_bound (avg)"``).
    target_value : float
        The value asked for.
    epsilon : float
        The epsilon found.
    parameters : dict
        The mechanism's parameters at the result (epsilon, and t when chosen, included).
    estimate : Estimate or None
        The target's estimate at ``epsilon``; None for a loss bound, which is exact.
    kept : Estimate
        The share of words kept at the result, whatever the target.
    bracket : tuple of float or None
        The search's final bracket; None for a loss bound.
    stopped : str
        How the search ended (or, for a loss bound, the equation solved).
    evaluations : list of dict
        Every estimate of the search: epsilon, value and its 95 % interval.
    t : float or None
        Vickrey's t chosen by Alg. 2, when ``choose_t`` was asked.
    """

    mechanism: str
    pack: str
    target: str
    target_value: float
    epsilon: float
    parameters: dict[str, Any]
    estimate: Estimate | None
    kept: Estimate
    bracket: tuple[float, float] | None
    stopped: str
    evaluations: list[dict[str, float]] = field(default_factory=list)
    t: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """The fields as a dictionary (for JSON)."""
        return asdict(self)

    def render(self) -> str:
        """The result as lines of text, for the command line."""
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
    """The estimate the search inverts, from a fixed public evaluation stream.

    Parameters
    ----------
    mechanism : WordMechanism
        The mechanism measured, at the epsilon tried.
    words : numpy.ndarray
        Vocabulary ids of the public word set (:func:`edgedp.evaluation.keep_rate.public_word_set`).
    samples : int
        Releases of each word.
    target : str
        ``"keep"`` (the Zipf-weighted share kept) or ``"inference_error"`` (E_M under ``prior``).
    prior : str
        ``"zipf"`` or ``"uniform"``: the prior of the inference error (unused for ``"keep"``).

    Returns
    -------
    Estimate
        The statistic with its 95 % interval.
    """
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

    Calls :func:`tune_keep`, :func:`tune_inference_error` or :func:`tune_loss_bound`, by the
    target given; the options a target does not use are checked and ignored (``edgedp tune``
    passes them all).

    Parameters
    ----------
    mechanism : WordMechanism
        The mechanism to tune.
    keep : float, optional
        Target share of words kept, in (0, 1).
    inference_error : float, optional
        Target inference error E_M, in (0, 1).
    loss_bound : float, optional
        Target per-word privacy-loss bound epsilon * d, > 0.
    aggregate : {"avg", "max"}
        The vocabulary distance of ``loss_bound``.
    prior : {"zipf", "uniform"}
        The adversary's prior of ``inference_error`` (and of Alg. 2 with ``choose_t``).
    words : int
        Public words measured.
    samples : int
        Releases of each word.
    rel_tol : float
        The search stops when its bracket's ratio is at most 1 + ``rel_tol``.
    choose_t : bool
        Choose Vickrey's t by Alg. 2 after tuning epsilon at t = 0 (not for ``loss_bound``).
    progress : callable, optional
        ``progress(done, total)`` hears of each evaluation, against an estimate of how many the
        search needs (it grows while the target is not yet bracketed).

    Returns
    -------
    Tuning
        The epsilon found, the estimate there and how the search went.

    Raises
    ------
    InputError
        If ``mechanism`` is not a word mechanism, if not exactly one target is given, if a choice
        is unknown, if ``choose_t`` is asked of a mechanism without t, or if a target is not
        reached.
    PrivacyParameterError
        If the target's value is out of its range.

    Examples
    --------
    >>> import edgedp
    >>> brr = edgedp.BRR(edgedp.load_pack(), epsilon=0.5)
    >>> tuning = tune(brr, keep=0.5, words=40, samples=8)
    >>> tuning.target, tuning.estimate.value >= 0.5
    ('keep', True)
    """
    _check_mechanism(mechanism, choose_t)
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
    check_choice(prior, "prior", PRIORS)
    check_choice(aggregate, "aggregate", AGGREGATES)
    if target == "loss_bound":
        return tune_loss_bound(mechanism, value, aggregate=aggregate, words=words, samples=samples)
    return _search(mechanism, target, value, prior, words, samples, rel_tol, choose_t, progress)


def tune_loss_bound(
    mechanism: WordMechanism,
    loss_bound: float,
    *,
    aggregate: str = "avg",
    words: int = TUNE_WORDS,
    samples: int = TUNE_SAMPLES,
) -> Tuning:
    """The epsilon of ``mechanism`` whose per-word privacy-loss bound is ``loss_bound``: exact.

    epsilon = ``loss_bound`` / P_d, with P_d the average or maximum pairwise distance of the
    vocabulary under the mechanism's metric (the pack's calibration statistics). The share of
    words kept there is estimated as :func:`tune_keep` estimates it.

    Parameters
    ----------
    mechanism : WordMechanism
        The mechanism to tune; its guarantee must have a metric.
    loss_bound : float
        The bound epsilon * P_d, > 0.
    aggregate : {"avg", "max"}
        P_d: the average or the maximum distance over pairs of vocabulary words.
    words : int
        Public words of the share-kept estimate.
    samples : int
        Releases of each word.

    Returns
    -------
    Tuning
        The epsilon, with no estimate and no bracket (it is exact), and the share kept there.

    Raises
    ------
    InputError
        If ``mechanism`` is not a word mechanism, ``aggregate`` is unknown or the mechanism's
        guarantee has no metric.
    PrivacyParameterError
        If ``loss_bound`` is not > 0.

    Examples
    --------
    >>> import edgedp
    >>> brr = edgedp.BRR(edgedp.load_pack(), epsilon=0.5)
    >>> tuning = tune_loss_bound(brr, 40.0, words=20, samples=4)
    >>> round(tuning.epsilon * brr.pack.calibration["hamming"]["average"], 9)
    40.0
    """
    _check_mechanism(mechanism)
    aggregate = check_choice(aggregate, "aggregate", AGGREGATES)
    word_ids = public_word_set(mechanism.pack, words)
    metric, _ = mechanism_metric(mechanism)
    bound = check_epsilon(loss_bound, "loss_bound")
    if metric is None:
        raise InputError("a loss bound needs the mechanism's metric")
    lam = float(mechanism.parameters().get("lam", 0.2))  # type: ignore[arg-type]
    statistics = loss_statistics(mechanism.pack, metric, lam)
    distance = float(statistics["average" if aggregate == "avg" else "maximum"])
    epsilon = bound / distance
    kept = estimate_statistic(_rebuilt(mechanism, epsilon), word_ids, samples, "keep", "zipf")
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


def tune_keep(
    mechanism: WordMechanism,
    keep: float,
    *,
    words: int = TUNE_WORDS,
    samples: int = TUNE_SAMPLES,
    rel_tol: float = 0.02,
    choose_t: bool = False,
    prior: str = "zipf",
    progress: ProgressCallback | None = None,
) -> Tuning:
    """The smallest epsilon of ``mechanism`` whose estimate keeps at least ``keep`` of the words.

    The share kept is Zipf-weighted: the share of a running text's words released unchanged. The
    search is the module's bisection in log epsilon; the result is within a factor
    1 + ``rel_tol`` of the epsilon where the estimate crosses ``keep``, on the side that meets it.

    Parameters
    ----------
    mechanism : WordMechanism
        The mechanism to tune; its epsilon is where the search starts.
    keep : float
        Target share of words kept, in (0, 1).
    words : int
        Public words measured.
    samples : int
        Releases of each word.
    rel_tol : float
        The search stops when its bracket's ratio is at most 1 + ``rel_tol``.
    choose_t : bool
        Then choose Vickrey's t by Alg. 2 at the epsilon found (the mechanism must have a t).
    prior : {"zipf", "uniform"}
        The prior of Alg. 2's inference error, with ``choose_t``.
    progress : callable, optional
        ``progress(done, total)`` hears of each evaluation, against an estimate of how many the
        search needs (it grows while the target is not yet bracketed).

    Returns
    -------
    Tuning
        The epsilon, the estimate there with its 95 % interval, the final bracket and every
        evaluation.

    Raises
    ------
    InputError
        If ``mechanism`` is not a word mechanism, has no t to choose, or if ``keep`` is not
        reached within :data:`MAX_EXPANSIONS` doublings or halvings of epsilon.
    PrivacyParameterError
        If ``keep`` is not strictly between 0 and 1.

    Examples
    --------
    >>> import edgedp
    >>> brr = edgedp.BRR(edgedp.load_pack(), epsilon=0.5)
    >>> tuning = tune_keep(brr, 0.5, words=40, samples=8)
    >>> tuning.estimate.value >= 0.5, tuning.bracket[1] == tuning.epsilon
    (True, True)
    """
    return _search(mechanism, "keep", keep, prior, words, samples, rel_tol, choose_t, progress)


def tune_inference_error(
    mechanism: WordMechanism,
    inference_error: float,
    *,
    prior: str = "zipf",
    words: int = TUNE_WORDS,
    samples: int = TUNE_SAMPLES,
    rel_tol: float = 0.02,
    choose_t: bool = False,
    progress: ProgressCallback | None = None,
) -> Tuning:
    """The largest epsilon of ``mechanism`` whose estimated inference error is at least the target.

    The inference error is the Bayesian adversary's E_M under ``prior`` (Xu et al. 2021, Sec. 3),
    which falls as epsilon grows. The search is the module's bisection in log epsilon; the result
    is within a factor 1 + ``rel_tol`` of the epsilon where the estimate crosses the target, on
    the side that meets it.

    Parameters
    ----------
    mechanism : WordMechanism
        The mechanism to tune; its epsilon is where the search starts.
    inference_error : float
        Target E_M, in (0, 1).
    prior : {"zipf", "uniform"}
        The adversary's prior over the words.
    words : int
        Public words measured.
    samples : int
        Releases of each word.
    rel_tol : float
        The search stops when its bracket's ratio is at most 1 + ``rel_tol``.
    choose_t : bool
        Then choose Vickrey's t by Alg. 2 at the epsilon found (the mechanism must have a t).
    progress : callable, optional
        ``progress(done, total)`` hears of each evaluation, against an estimate of how many the
        search needs (it grows while the target is not yet bracketed).

    Returns
    -------
    Tuning
        The epsilon, the estimate there with its 95 % interval, the final bracket and every
        evaluation.

    Raises
    ------
    InputError
        If ``mechanism`` is not a word mechanism, has no t to choose, if ``prior`` is unknown, or
        if the target is not reached within :data:`MAX_EXPANSIONS` doublings or halvings of
        epsilon.
    PrivacyParameterError
        If ``inference_error`` is not strictly between 0 and 1.

    Examples
    --------
    >>> import edgedp
    >>> brr = edgedp.BRR(edgedp.load_pack(), epsilon=0.5)
    >>> tuning = tune_inference_error(brr, 0.8, words=30, samples=8)
    >>> tuning.estimate.value >= 0.8, tuning.bracket[0] == tuning.epsilon
    (True, True)
    """
    return _search(
        mechanism,
        "inference_error",
        inference_error,
        prior,
        words,
        samples,
        rel_tol,
        choose_t,
        progress,
    )


def _check_mechanism(mechanism: WordMechanism, choose_t: bool = False) -> None:
    """Raise unless ``mechanism`` is a word mechanism (with a t, if t is to be chosen)."""
    if not isinstance(mechanism, WordMechanism):
        raise InputError(f"tune needs a word mechanism, got {type(mechanism).__name__}")
    if choose_t and "t" not in mechanism.parameters():
        raise InputError(f"{type(mechanism).__name__} has no t to choose")


def _rebuilt(mechanism: WordMechanism, epsilon: float, **changes: Any) -> WordMechanism:
    """``mechanism`` at ``epsilon`` (and ``changes``), drawing the fixed public evaluation stream."""
    built: WordMechanism = rebuild(
        mechanism, public_statistics_source(1), epsilon=epsilon, **changes
    )
    return built


@dataclass
class _Evaluations:
    """The estimates of one search, by epsilon, each reported to ``progress`` as it comes."""

    mechanism: WordMechanism
    target: str
    prior: str
    word_ids: np.ndarray
    samples: int
    rel_tol: float
    changes: dict[str, Any]
    progress: ProgressCallback | None
    measured: dict[float, Estimate] = field(default_factory=dict)
    log: list[dict[str, float]] = field(default_factory=list)
    bracket: tuple[float, float] | None = None  # once the target is bracketed

    def remaining(self) -> int:
        """Bisections left at most (from the bracket, or from a doubling bracket), and one more."""
        ratio = self.bracket[1] / self.bracket[0] if self.bracket else 2.0
        return math.ceil(math.log2(max(math.log(ratio) / math.log1p(self.rel_tol), 1.0))) + 2

    def __call__(self, epsilon: float) -> Estimate:
        """The estimate at ``epsilon``, recorded."""
        result = estimate_statistic(
            _rebuilt(self.mechanism, epsilon, **self.changes),
            self.word_ids,
            self.samples,
            self.target,
            self.prior,
        )
        self.measured[epsilon] = result
        self.log.append(
            {"epsilon": epsilon, "value": result.value, "low": result.low, "high": result.high}
        )
        if self.progress is not None:
            done = len(self.log)
            self.progress(float(done), float(done + self.remaining() - (1 if self.bracket else 0)))
        return result


def _search(
    mechanism: WordMechanism,
    target: str,
    value: float,
    prior: str,
    words: int,
    samples: int,
    rel_tol: float,
    choose_t: bool,
    progress: ProgressCallback | None,
) -> Tuning:
    """The bisection of :func:`tune_keep` and :func:`tune_inference_error` (``target``)."""
    _check_mechanism(mechanism, choose_t)
    prior = check_choice(prior, "prior", PRIORS)
    word_ids = public_word_set(mechanism.pack, words)
    value = float(check_unit_interval(value, target))
    if not 0.0 < value < 1.0:
        raise PrivacyParameterError(f"{target} must be strictly between 0 and 1, got {value}")
    increasing = target == "keep"  # E_M falls as epsilon grows
    changes: dict[str, Any] = {"t": 0.0} if choose_t else {}
    evaluate = _Evaluations(mechanism, target, prior, word_ids, samples, rel_tol, changes, progress)
    low, high = _bracket(evaluate, value, increasing)
    low, high, exhausted = _bisect(evaluate, low, high, value, increasing)
    stopped = (
        f"{'smallest' if increasing else 'largest'} epsilon whose estimate meets the target, "
        f"within a factor {1 + rel_tol:g} (bracket ratio)"
    )
    if exhausted:
        stopped += f"; stopped after {MAX_BISECTIONS} bisections"
    found = high if increasing else low
    result = evaluate.measured[found]
    t = None
    if choose_t:
        found, t = _choose_t(mechanism, found, word_ids, samples, prior)
        result = estimate_statistic(
            _rebuilt(mechanism, found, t=t), word_ids, samples, target, prior
        )
        stopped += f"; then Alg. 2 chose t = {t:g} at equal utility loss"
    final = {**changes, "t": t} if t is not None else changes
    kept = (
        result
        if target == "keep"
        else estimate_statistic(
            _rebuilt(mechanism, found, **final), word_ids, samples, "keep", prior
        )
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
        evaluate.log,
        t,
    )


def _bracket(evaluate: _Evaluations, value: float, increasing: bool) -> tuple[float, float]:
    """Double or halve epsilon from the mechanism's until the target lies between two of them.

    Meeting the target (an estimate at least ``value``): for keep (``increasing``) every epsilon
    above a crossing, for E_M every one below.
    """
    start = previous = evaluate.mechanism.epsilon
    meets = evaluate(previous).value >= value
    grow = meets != increasing
    for _ in range(MAX_EXPANSIONS):
        candidate = previous * 2 if grow else previous / 2
        if (evaluate(candidate).value >= value) != meets:
            low, high = sorted((previous, candidate))
            return low, high
        previous = candidate
    raise InputError(
        f"{evaluate.target} {value:g} not reached between epsilon {start:g} and "
        f"{candidate:g} (last estimate {evaluate.measured[candidate].value:.3f})"
    )


def _bisect(
    evaluate: _Evaluations, low: float, high: float, value: float, increasing: bool
) -> tuple[float, float, bool]:
    """Halve [low, high] geometrically until high / low <= 1 + rel_tol, keeping the crossing inside.

    Returns the final bracket and whether :data:`MAX_BISECTIONS` halvings stopped it first.
    """
    for _ in range(MAX_BISECTIONS):
        if high / low <= 1 + evaluate.rel_tol:
            return low, high, False
        middle = math.sqrt(low * high)
        evaluate.bracket = (low, high)
        if (evaluate(middle).value >= value) == increasing:
            high = middle
        else:
            low = middle
    return low, high, True


def _choose_t(
    mechanism: WordMechanism, epsilon: float, word_ids: np.ndarray, samples: int, prior: str
) -> tuple[float, float]:
    """Alg. 2 at ``epsilon``: the t with the largest E_M whose utility loss is <= t = 0's."""
    pack = mechanism.pack
    metric, _ = mechanism_metric(mechanism)
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

    def at(eps: float, t: float) -> WordMechanism:
        return _rebuilt(mechanism, eps, t=t)

    weights = zipf_prior(pack, word_ids) if prior == "zipf" else None
    # the utility loss of t = 0 at this epsilon, measured exactly as Alg. 2 measures
    probe = select_parameters(
        at,
        word_ids.tolist(),
        distance=distance,
        max_loss=float("inf"),
        prior=weights,
        epsilon0=epsilon,
        samples=samples,
        t_grid=(),
    )
    selection = select_parameters(
        at,
        word_ids.tolist(),
        distance=distance,
        max_loss=probe.utility_loss * 1.0001 + 1e-12,
        prior=weights,
        epsilon0=epsilon,
        samples=samples,
    )
    return selection.epsilon, selection.t
