"""What a word mechanism's release means, in numbers a person can read: :func:`explain`.

For a word mechanism (any :class:`~edgedp.words.mechanism.WordMechanism`, on its pack, with its
parameters) the explanation reports:

* **the guarantee**: ``mechanism.guarantee()`` when the mechanism has it, else the "Guarantee"
  paragraph of its docstring, and the metric of its metric-DP bound;
* **the per-word privacy-loss bound** epsilon * d(w, w'): its average and maximum over all pairs of
  vocabulary words (the pack's calibration statistics, :mod:`edgedp.evaluation.calibration`) and,
  for a given text, per word slot w (a vocabulary word released by the mechanism): the bound
  against the nearest other vocabulary word, min_{w' != w} epsilon * d(w, w') (how well the word
  hides among its closest alternatives), and against the farthest, max_{w'} epsilon * d(w, w')
  (the worst case for that word: no alternative text is told apart from it by more). Slots that are
  out of vocabulary or protected by the identifier guard are released independently of their
  content: bound 0. The text's totals are the sums over its slots (basic composition). The text is
  only read, nothing of it is stored;
* **the share of words kept unchanged** (N_w averaged over a word set), **the Bayesian adversary's
  inference error** E_M (and the MAP adversary's) under a uniform and a word-frequency prior, and
  **S_w**, the number of distinct outputs per word (Xu et al. 2021, Sec. 3;
  :mod:`edgedp.evaluation.empirical_privacy`), estimated by Monte Carlo on a fixed public word set;
* **three sample rewrites** of a fixed public sentence.

**The word set and the priors.** The Monte Carlo runs on :data:`DEFAULT_WORDS` word-like
vocabulary words (letters, or letters and digits that are not a number) at geometrically spaced
frequency ranks (dense among frequent words, reaching the rare tail), each released
:data:`DEFAULT_SAMPLES` times: public words only, so nothing private is computed or cached. The
word-frequency prior is Zipf's law from the vocabulary rank, pi(w) proportional to 1 / rank(w):
the packs' vocabularies are in corpus-frequency order (GloVe's), so this needs no frequency table
at run time (for a pack built from a list in another order, read the uniform figures). Each word of
the set stands for the ranks between its neighbours and carries their Zipf mass (a stratified
sample), so the weighted share of kept words estimates the share of a running text's words that
come out unchanged; it is the ``kept`` figure (on the bundled pack it reproduces the share measured
on real text: BRR 0.21, 0.47, 0.72 at epsilon 0.5, 0.6, 0.7).

**Intervals** (95 %): for the uniform share kept and S_w a t-interval over the words; for the
Zipf-weighted share kept, the normal interval of the weighted Monte Carlo error,
sum_w pi(w)^2 p_w(1 - p_w) / n with p_w smoothed as (c + 1) / (n + 2); for E_M and the MAP error,
estimate +- 1.96 standard deviations of bootstrap replicates (each word's releases resampled).
They cover the Monte Carlo error on this word set, not the choice of the word set. With few
releases per word most outputs are seen once: E_M uses the unbiased estimate of f^2, the MAP
error stays biased low (optimistic for the adversary).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from typing import Any

import numpy as np

from edgedp.errors import InputError, NotPrivateWarning
from edgedp.evaluation.calibration import (
    EXACT_PAIRS_LIMIT,
    exact_pairwise_statistics,
    metric_statistics,
)
from edgedp.evaluation.empirical_privacy import (
    BOOTSTRAP_REPLICATES,
    Channel,
    evaluate,
    inference_errors,
    sample_channel,
)
from edgedp.privacy.randomness import RandomSource, public_statistics_source, resolve_rng
from edgedp.privacy.validation import check_positive_int, check_unit_interval
from edgedp.progress import ProgressCallback
from edgedp.text.segmentation import check_text
from edgedp.words.euclidean import regularized_covariance, symmetric_square_root
from edgedp.words.keep_rate import DEFAULT_WORDS as DEFAULT_WORDS  # re-exported (moved)
from edgedp.words.keep_rate import Z_975, weighted_keep
from edgedp.words.keep_rate import Estimate as Estimate
from edgedp.words.keep_rate import public_word_set as public_word_set
from edgedp.words.keep_rate import zipf_prior as zipf_prior
from edgedp.words.mechanism import WordMechanism
from edgedp.words.pack import WordPack

#: Releases of each word.
DEFAULT_SAMPLES = 20
#: The fixed public sentence of the sample rewrites.
PUBLIC_SENTENCE = "The old man walked to the market with his dog on a cold winter morning."
REWRITES = 3
#: Mahalanobis maximum: exact over pairs with one of this many outermost words.
MAHALANOBIS_EXTREMES = 200


@dataclass(frozen=True)
class SlotLoss:
    """The privacy-loss bounds of one word slot of a text (see the module docstring)."""

    slot: int
    word: str
    released_by: str  # "mechanism", "oov" or "protected"
    nearest: float  # epsilon * d to the nearest other vocabulary word (0 if not released by it)
    farthest: float  # epsilon * d to the farthest vocabulary word

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Explanation:
    """The outcome of :func:`explain`; ``as_dict()`` for JSON, ``render()`` for people."""

    mechanism: str
    pack: str
    parameters: dict[str, Any]
    guarantee: str
    metric: str | None
    metric_unit: str | None
    loss_bound: dict[str, Any]
    kept: Estimate  # Zipf-weighted: the share of a running text's words kept
    kept_uniform: Estimate  # mean N_w over the word set
    inference_error: dict[str, Estimate]  # by prior: posterior-sampling adversary, E_M
    map_inference_error: dict[str, Estimate]
    distinct_outputs: Estimate  # mean S_w
    word_set: str
    sentence: str
    rewrites: list[str]
    text: list[SlotLoss] | None = None
    text_totals: dict[str, float] | None = None
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        return out

    def render(self) -> str:
        """A human-readable report."""
        unit = f" per {self.metric_unit}" if self.metric_unit else ""
        bound = self.loss_bound
        lines = [
            f"{self.mechanism} on pack {self.pack!r} with "
            + ", ".join(f"{key}={value}" for key, value in self.parameters.items()),
            "",
            "Guarantee: " + self.guarantee,
            "",
            f"Privacy-loss bound per word, epsilon * d_{self.metric}{unit}:",
            f"  average over vocabulary pairs {bound['average']:.3g}, maximum {bound['maximum']:.3g}"
            f"  (e^bound is the largest factor by which one output's probability can differ)",
        ]
        if self.text is not None and self.text_totals is not None:
            lines.append("  for your text (nearest / farthest other vocabulary word):")
            for slot in self.text:
                if slot.released_by == "mechanism":
                    lines.append(f"    {slot.word!r}: {slot.nearest:.3g} / {slot.farthest:.3g}")
                else:
                    lines.append(f"    slot {slot.slot}: {slot.released_by}, independent of it: 0")
            lines.append(
                f"    whole text: {self.text_totals['nearest']:.3g} / "
                f"{self.text_totals['farthest']:.3g} (sum over words)"
            )
        lines += [
            "",
            f"Monte Carlo on {self.word_set}:",
            f"  words kept unchanged (text-like, Zipf-weighted): {self.kept}",
            f"  words kept unchanged (uniform over the word set, mean N_w): {self.kept_uniform}",
            f"  distinct outputs per word in {self.kept.samples} releases (mean S_w): "
            f"{self.distinct_outputs}",
            "  Bayesian adversary's inference error E_M (1 = never guesses the input):",
        ]
        for prior, estimate in self.inference_error.items():
            lines.append(
                f"    {prior} prior: {estimate}; the MAP adversary (guesses the likeliest input): "
                f"{self.map_inference_error[prior]}, biased low: its true error is at least about "
                "this"
            )
        lines += ["", f"Sample rewrites of the public sentence {self.sentence!r}:"]
        lines += [f"  {rewrite}" for rewrite in self.rewrites]
        lines += [f"Note: {note}" for note in self.notes]
        return "\n".join(lines)


@cache
def _mahalanobis_statistics(pack: WordPack, lam: float) -> dict[str, Any]:
    points = _whitened(pack, lam)
    if len(points) <= EXACT_PAIRS_LIMIT:
        return dict(exact_pairwise_statistics(points))
    rng = public_statistics_source(0)
    first, second = rng.integers(len(points), 200_000), rng.integers(len(points), 200_000)
    keep = first != second
    average = float(np.linalg.norm(points[first[keep]] - points[second[keep]], axis=1).mean())
    radius = np.linalg.norm(points - points.mean(axis=0), axis=1)
    extreme = np.argsort(radius)[-MAHALANOBIS_EXTREMES:]
    maximum = max(float(np.linalg.norm(points - points[i], axis=1).max()) for i in extreme)
    return {
        "average": average,
        "maximum": maximum,
        "note": (
            f"Mahalanobis distances: average over {int(keep.sum()):,} random pairs; maximum over "
            f"pairs with one of the {MAHALANOBIS_EXTREMES} words farthest from the centroid (the "
            "exhaustive statistics of edgedp calibrate take minutes on 100,000 words)"
        ),
    }


def _whitened(pack: WordPack, lam: float) -> np.ndarray:
    vectors = np.asarray(pack.require_vectors("Mahalanobis distances"), dtype=np.float64)
    matrix = regularized_covariance(np.asarray(pack.covariance), check_unit_interval(lam, "lam"))
    return vectors @ np.linalg.inv(symmetric_square_root(matrix))  # d_M(x, y) = ||W (x - y)||


def loss_statistics(pack: WordPack, metric: str, lam: float = 0.2) -> Mapping[str, Any]:
    """Average and maximum pairwise distance under ``metric`` (the pack's, or fast Mahalanobis)."""
    if metric == "mahalanobis":
        return _mahalanobis_statistics(pack, float(lam))
    return metric_statistics(pack, metric)


def rebuild(mechanism: WordMechanism, rng: RandomSource | int | None, **changes: Any) -> Any:
    """The same mechanism class on the same pack with ``parameters()`` overridden by ``changes``."""
    parameters = {**mechanism.parameters(), **changes}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotPrivateWarning)  # evaluation on public words only
        return type(mechanism)(mechanism.pack, rng=rng, **parameters)


def mechanism_metric(mechanism: WordMechanism) -> tuple[str | None, str | None]:
    """(metric, metric unit) of the mechanism's guarantee."""
    promise = mechanism.guarantee()
    return promise.metric, promise.metric_unit


def guarantee_statement(mechanism: WordMechanism) -> str:
    """The mechanism's own statement of its guarantee."""
    return mechanism.guarantee().statement()


def _error_interval(
    words: np.ndarray,
    outputs: np.ndarray,
    prior: np.ndarray | None,
    estimates: tuple[float, float],
    rng: RandomSource,
    step: Callable[[], None],
) -> list[tuple[float, float]]:
    """Normal bootstrap intervals of (E_M, MAP error): estimate +- 1.96 sd of resampled estimates.

    Each replicate resamples every word's releases with replacement. (The pivotal interval of
    :func:`edgedp.evaluation.empirical_privacy.evaluate` is centred on the plug-in channel; at a
    few releases per word, where most outputs are seen once, that centre is far from the unbiased
    E_M and the interval misses the estimate.)
    """
    count, samples = outputs.shape
    replicates = []
    for _ in range(BOOTSTRAP_REPLICATES):
        picks = rng.integers(samples, count * samples).reshape(count, samples)
        channel = Channel.from_samples(words.tolist(), np.take_along_axis(outputs, picks, axis=1))
        replicates.append(inference_errors(channel, prior))
        step()
    spread = np.asarray(replicates).std(axis=0, ddof=1)
    return [
        (max(0.0, value - Z_975 * float(sd)), min(1.0, value + Z_975 * float(sd)))
        for value, sd in zip(estimates, spread, strict=True)
    ]


def measure(
    mechanism: WordMechanism,
    words: np.ndarray,
    samples: int,
    *,
    rng: RandomSource | int | None = None,
    inference: bool = True,
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """Monte Carlo statistics of ``mechanism`` on ``words`` (see the module docstring).

    ``progress(done, total)`` hears of the releases and then of each bootstrap replicate."""
    samples = check_positive_int(samples, "samples", minimum=2)
    source = resolve_rng(rng) if rng is not None else RandomSource()
    words = np.asarray(words, dtype=np.int64)
    releases = len(words) * samples
    total = float(releases + (2 * BOOTSTRAP_REPLICATES * releases // 100 if inference else 0))
    done = [0.0]

    def step(amount: float) -> None:
        done[0] += amount
        if progress is not None:
            progress(done[0], total)

    channel, outputs = sample_channel(mechanism, words.tolist(), samples)
    step(releases)
    kept_per_word = (outputs == words[:, None]).mean(axis=1)
    prior = zipf_prior(mechanism.pack, words)
    count = len(words)
    out: dict[str, Any] = {"kept": weighted_keep(kept_per_word, prior, samples, count)}
    if not inference:
        return out
    for name, weights in (("uniform", None), ("zipf", prior)):
        result = evaluate(channel, prior=weights)
        estimates = (result.inference_error, result.map_inference_error)
        error_ci, map_ci = _error_interval(
            words, outputs, weights, estimates, source, lambda: step(releases // 100)
        )
        method = f"{BOOTSTRAP_REPLICATES} bootstrap resamples of each word's releases, normal"
        out[f"error_{name}"] = Estimate(
            result.inference_error, *error_ci, count, samples, f"E_M (unbiased f^2); {method}"
        )
        out[f"map_{name}"] = Estimate(
            result.map_inference_error,
            *map_ci,
            count,
            samples,
            f"MAP adversary (biased low when outputs are seen once); {method}",
        )
        if name == "uniform":
            out["kept_uniform"] = Estimate(
                result.unchanged,
                *result.intervals["unchanged"],
                count,
                samples,
                "mean N_w over the word set; t-interval over words",
            )
            out["distinct"] = Estimate(
                float(result.distinct_outputs or 0.0),
                *result.intervals["distinct_outputs"],
                count,
                samples,
                "mean S_w (distinct outputs); t-interval over words",
            )
    return out


def distances_from(
    pack: WordPack, metric: str, word_ids: Sequence[int], *, lam: float = 0.2
) -> np.ndarray:
    """d(w, v) for each w of ``word_ids`` (rows) and every vocabulary word v (columns)."""
    ids = np.asarray(word_ids, dtype=np.int64)
    if metric == "hamming":
        codes = np.asarray(pack.codes)
        return np.stack(
            [np.bitwise_count(codes ^ codes[i]).sum(axis=1, dtype=np.int64) for i in ids]
        ).astype(np.float64)
    if metric == "mahalanobis":
        vectors = _whitened(pack, lam)
    else:
        vectors = np.asarray(pack.require_vectors(f"{metric} distances"), dtype=np.float64)
    return np.stack([np.linalg.norm(vectors - vectors[i], axis=1) for i in ids])


def text_losses(
    mechanism: WordMechanism, text: str, metric: str
) -> tuple[list[SlotLoss], dict[str, float]]:
    """Per word slot of ``text``: epsilon * d to the nearest other and the farthest vocabulary word."""
    segmented = mechanism.segment(check_text(text))
    ids = mechanism.pack.vocabulary.ids(segmented.words)
    known = [
        (slot, int(word_id))
        for slot, word_id in enumerate(ids)
        if word_id >= 0 and slot not in segmented.protected
    ]
    lam = float(mechanism.parameters().get("lam", 0.2))  # type: ignore[arg-type]
    unique = sorted({word_id for _, word_id in known})
    bounds: dict[int, tuple[float, float]] = {}
    if unique:
        distances = distances_from(mechanism.pack, metric, unique, lam=lam)
        for row, word_id in enumerate(unique):
            others = np.delete(distances[row], word_id)
            bounds[word_id] = (
                mechanism.epsilon * float(others.min()) if len(others) else 0.0,
                mechanism.epsilon * float(distances[row].max()),
            )
    slots = []
    lookup = dict(known)
    for slot, word in enumerate(segmented.words):
        if slot in lookup:
            nearest, farthest = bounds[lookup[slot]]
            slots.append(SlotLoss(slot, word, "mechanism", nearest, farthest))
        else:
            how = "protected" if slot in segmented.protected else "oov"
            slots.append(SlotLoss(slot, "", how, 0.0, 0.0))
    totals = {
        "nearest": float(sum(slot.nearest for slot in slots)),
        "farthest": float(sum(slot.farthest for slot in slots)),
        "slots": len(slots),
    }
    return slots, totals


def explain(
    mechanism: WordMechanism,
    *,
    text: str | None = None,
    samples: int = DEFAULT_SAMPLES,
    words: int = DEFAULT_WORDS,
    rng: RandomSource | int | None = None,
    progress: ProgressCallback | None = None,
) -> Explanation:
    """Explain what ``mechanism``'s releases mean (see the module docstring).

    ``rng`` drives the Monte Carlo and the sample rewrites (public words only); ``None`` is OS
    entropy. ``text`` adds per-word bounds for that text (read, not stored). ``progress(done,
    total)`` hears how the Monte Carlo goes.
    """
    if not isinstance(mechanism, WordMechanism):
        raise InputError(f"explain needs a word mechanism, got {type(mechanism).__name__}")
    source = resolve_rng(rng)
    metric, metric_unit = mechanism_metric(mechanism)
    parameters = mechanism.parameters()
    lam = float(parameters.get("lam", 0.2))  # type: ignore[arg-type]
    notes = []
    if metric is None:
        loss_bound: dict[str, Any] = {"average": float("nan"), "maximum": float("nan")}
        notes.append("the mechanism's metric is unknown here: no loss bound")
    else:
        statistics = loss_statistics(mechanism.pack, metric, lam)
        if "note" in statistics:
            notes.append(str(statistics["note"]))
        loss_bound = {
            "average": mechanism.epsilon * float(statistics["average"]),
            "maximum": mechanism.epsilon * float(statistics["maximum"]),
            "distance_average": float(statistics["average"]),
            "distance_maximum": float(statistics["maximum"]),
        }
    word_ids = public_word_set(mechanism.pack, words)
    evaluator = rebuild(mechanism, source)
    stats = measure(evaluator, word_ids, samples, rng=source, progress=progress)
    rewrites = [evaluator.privatize(PUBLIC_SENTENCE) for _ in range(REWRITES)]
    slots = totals = None
    if text is not None:
        if metric is None:
            raise InputError("per-word bounds need the mechanism's metric")
        slots, totals = text_losses(mechanism, text, metric)
    if mechanism.decoder is not None:
        notes.append(
            f"words are decoded with decode={mechanism.decode!r}: post-processing, the guarantee "
            "is unchanged; the words kept and the adversary's error above are measured with the "
            "decoder, on words alone (in a sentence, context decoding keeps more)"
        )
    if not mechanism.is_private:
        notes.append("the mechanism uses a fixed seed: its outputs are NOT private")
    return Explanation(
        mechanism=type(mechanism).__name__,
        pack=mechanism.pack.name,
        parameters=parameters,
        guarantee=guarantee_statement(mechanism),
        metric=metric,
        metric_unit=metric_unit,
        loss_bound=loss_bound,
        kept=stats["kept"],
        kept_uniform=stats["kept_uniform"],
        inference_error={"uniform": stats["error_uniform"], "zipf": stats["error_zipf"]},
        map_inference_error={"uniform": stats["map_uniform"], "zipf": stats["map_zipf"]},
        distinct_outputs=stats["distinct"],
        word_set=(
            f"{len(word_ids)} public word-like vocabulary words at geometrically spaced "
            f"frequency ranks, {samples} releases each"
        ),
        sentence=PUBLIC_SENTENCE,
        rewrites=rewrites,
        text=slots,
        text_totals=totals,
        notes=notes,
    )
