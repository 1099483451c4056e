"""What a word mechanism's release means, in numbers a person can read: :func:`explain`.

For a word mechanism (any :class:`~edgedp.words.mechanism.WordMechanism`, on its pack, with its
parameters) the explanation leads with **three plain figures**, one line each
(:meth:`Explanation.headline`):

1. **words kept**: the share of words that come back unchanged, with the mechanism's settings
   and decoder: :func:`edgedp.evaluation.keep_rate.words_kept`, the one words-kept figure edgedp
   prints (Zipf-weighted over the vocabulary, each word released alone, on a fixed public stream:
   the same settings always give the same figure; 95 % interval);
2. **the adversary**: how often an adversary who sees ONE release names the input word. Measured
   for the Bayes-optimal (MAP) adversary over the WHOLE vocabulary under a Zipf prior, observing the
   mechanism's noisy point (code or vector), whose likelihood is exact
   (:func:`measured_adversary`, on a fixed public stream): an unbiased estimate of that attack's
   success with a Wilson interval, and an upper bound on any adversary who sees only that word's
   release. The words kept are the matching lower bound (the adversary who guesses the word it
   sees), and the prior alone (guessing the commonest word) is the floor printed beside it.
   Mechanisms that sample the released word (TEM, SanText, CusText) have no noisy point: for them
   only the lower bound is printed;
3. **the formal bound in plain words**: the guarantee is local, e^(epsilon * d) between two words
   d apart; the distance within which that factor is at most e^2, how many other words a typical
   word has that close, and its nearest other word (:func:`local_guarantee`).

Every explanation ends with a **statement** (:meth:`Explanation.statement`, also in the JSON):
what is released, the formal guarantee in real word pairs of the pack (an example word, its
nearest words, their distances and bounds, the radii of the factors e^1 and e^2), the measured
protection (figure 2 beside guessing and the words kept), and what is not hidden: a paragraph that
can go into a data-protection impact assessment as printed.

:func:`explain_epsilons` explains several epsilons in one call (the three figures of every epsilon
first); :func:`default_epsilons` is the sweep ``edgedp explain`` runs without ``--epsilon``.

The detailed sections follow:

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
* **the share of words kept unchanged** (N_w averaged over a word set) and **S_w**, the number of
  distinct outputs per word (Xu et al. 2021, Sec. 3; :mod:`edgedp.evaluation.empirical_privacy`),
  estimated by Monte Carlo on a fixed public word set. The Bayesian adversary's inference error
  E_M and the MAP error *restricted to that word set* are in the JSON output (``inference_error``,
  ``map_inference_error``: :func:`edgedp.evaluation.tune.tune` targets E_M) but not printed: an
  adversary told that the input is one of 200 words, with a channel estimated from a few releases,
  names far more words than one facing the whole vocabulary (figure 2 replaces them);
* **three sample rewrites** of a fixed public sentence.

**The word set and the priors.** The Monte Carlo runs on :data:`DEFAULT_WORDS` word-like
vocabulary words (letters, or letters and digits that are not a number) at geometrically spaced
frequency ranks (dense among frequent words, reaching the rare tail), each released
:data:`DEFAULT_SAMPLES` times on the fixed public stream of the words-kept figure
(:func:`edgedp.evaluation.keep_rate.public_releases`): public words only, so nothing private is
computed or cached. The
word-frequency prior is Zipf's law from the vocabulary rank, pi(w) proportional to 1 / rank(w):
the packs' vocabularies are in corpus-frequency order (GloVe's), so this needs no frequency table
at run time (for a pack built from a list in another order, read the uniform figures). Each word of
the set stands for the ranks between its neighbours and carries their Zipf mass (a stratified
sample), so the weighted share of kept words estimates the share of a running text's words that
come out unchanged when each is released alone; it is the ``kept`` figure. With
``decode="context"`` a running text keeps more (its words help decode each other).

**Intervals** (95 %): for the uniform share kept and S_w a t-interval over the words; for the
Zipf-weighted share kept, the normal interval of the weighted Monte Carlo error,
sum_w pi(w)^2 p_w(1 - p_w) / n with p_w smoothed as (c + 1) / (n + 2); for E_M and the MAP error,
estimate +- 1.96 standard deviations of bootstrap replicates (each word's releases resampled).
They cover the Monte Carlo error on this word set, not the choice of the word set. With few
releases per word most outputs are seen once: E_M uses the unbiased estimate of f^2, the MAP
error stays biased low (optimistic for the adversary).
"""

from __future__ import annotations

import math
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
    ADVERSARY_SAMPLES,
    BOOTSTRAP_REPLICATES,
    AdversaryEstimate,
    Channel,
    evaluate,
    inference_errors,
    point_adversary,
    sample_channel,
)
from edgedp.evaluation.keep_rate import (
    DEFAULT_SAMPLES as DEFAULT_SAMPLES,  # explain's default releases per word, re-exported
)
from edgedp.evaluation.keep_rate import (
    DEFAULT_WORDS,
    Z_975,
    Estimate,
    public_releases,
    public_word_set,
    weighted_keep,
    word_like_mask,
    zipf_prior,
)
from edgedp.privacy.randomness import RandomSource, public_statistics_source, resolve_rng
from edgedp.privacy.validation import check_positive_int, check_unit_interval
from edgedp.progress import ProgressCallback
from edgedp.text.segmentation import check_text
from edgedp.words.euclidean import regularized_covariance, symmetric_square_root
from edgedp.words.mechanism import WordMechanism
from edgedp.words.pack import WordPack

#: The fixed public sentence of the sample rewrites.
PUBLIC_SENTENCE = "The old man walked to the market with his dog on a cold winter morning."
REWRITES = 3
#: Mahalanobis maximum: exact over pairs with one of this many outermost words.
MAHALANOBIS_EXTREMES = 200
#: Public words whose nearest other vocabulary words give the formal bound's typical distances.
NEAREST_WORDS = 50
#: Distances kept per public word of :data:`NEAREST_WORDS` (its nearest other words, sorted).
NEIGHBOUR_DISTANCES = 1000
#: The typical word's k-th nearest other word printed beside its nearest (hiding among k words).
HIDING_AMONG = 10
#: The statement's example word: the first of these in the pack's vocabulary (else a public word
#: of middle rank), with its :data:`EXAMPLE_NEIGHBOURS` nearest other words.
EXAMPLE_WORDS = ("doctor", "money", "house", "time")
EXAMPLE_NEIGHBOURS = 3
#: Factors e^k of the statement's protection radii: the distance within which an observer's odds
#: between two words move by at most e^k.
RADIUS_EXPONENTS = (1.0, 2.0)
#: Seed of the public stream of the adversary's figure (:func:`measured_adversary`).
ADVERSARY_SEED = 2
#: ``edgedp explain``'s sweep without ``--epsilon``: BRR's per-bit epsilons, converted to another
#: metric by the ratio of average pair distances (the privacy ratio, BRR paper Sec. 5).
DEFAULT_SWEEP = (0.4, 0.5, 0.6, 0.7, 0.8)


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


def _share(value: float) -> str:
    return f"{100 * value:.0f} %"


def _interval(low: float, high: float) -> str:
    return f"[{100 * low:.0f} %, {100 * high:.0f} %]"


def _factor(exponent: float) -> str:
    """e^x in words: ``e^2 = 7.39x``, ``e^6 = 403x``, ``e^20 = 4.9e+08x``."""
    if exponent >= 700:
        return f"e^{exponent:.3g}"
    if exponent > math.log(1e6):
        return f"e^{exponent:.3g} = {math.exp(exponent):.1e}x"
    return f"e^{exponent:.3g} = {math.exp(exponent):,.{0 if exponent > 2.3 else 2}f}x"


def _apart(metric: str | None, distance: float) -> str:
    """A distance in the metric's words: ``41 bits``, ``0.83 (euclidean)``."""
    if metric == "hamming":
        return f"{distance:.0f} bit" + ("" if distance == 1 else "s")
    return f"{distance:.3g} ({metric})"


def _listed(items: Sequence[str]) -> str:
    return ",".join(items) if items else "none"


def _count(radius: Mapping[str, Any]) -> str:
    """How many other words a typical word has within a radius (a floor when capped)."""
    words = f"{radius['words']:,.0f}"
    return f"{words} or more" if radius["capped"] else words


@dataclass(frozen=True)
class Explanation:
    """The outcome of :func:`explain`; ``as_dict()`` for JSON, ``render()`` for people.

    :meth:`headline` gives the three plain figures (words kept, the whole-vocabulary adversary,
    the formal bound in words) that :meth:`render` leads with.
    """

    mechanism: str
    pack: str
    parameters: dict[str, Any]
    guarantee: str
    metric: str | None
    metric_unit: str | None
    loss_bound: dict[str, Any]
    kept: Estimate  # Zipf-weighted: the share of a running text's words kept
    kept_uniform: Estimate  # mean N_w over the word set
    inference_error: dict[str, Estimate]  # restricted to the word set, by prior: E_M
    map_inference_error: dict[str, Estimate]  # restricted to the word set
    distinct_outputs: Estimate  # mean S_w
    word_set: str
    sentence: str
    rewrites: list[str]
    text: list[SlotLoss] | None = None
    text_totals: dict[str, float] | None = None
    notes: list[str] = field(default_factory=list)
    #: The whole-vocabulary MAP adversary who sees the noisy point (None: no noisy point).
    adversary: AdversaryEstimate | None = None
    #: The local guarantee with real word pairs (:func:`local_guarantee`; empty without a metric).
    protection: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["headline"] = self.headline()
        out["statement"] = self.statement()
        return out

    @property
    def epsilon(self) -> float:
        return float(self.parameters["epsilon"])

    def headline(self) -> list[str]:
        """The three plain figures, one line each: words kept, the adversary, the formal bound."""
        tag = f"epsilon {self.epsilon:g}"
        decode = self.parameters.get("decode", "nearest")
        kept = self.kept
        lines = [
            f"{tag}: words kept unchanged: {_share(kept.value)} {_interval(kept.low, kept.high)} "
            f"of words come back as they were (each released alone, weighted by word frequency; "
            f"{self.mechanism}, decode={decode})"
        ]
        lower = f"at least {_share(kept.value)} by guessing the word it sees"
        if self.adversary is not None:
            attack = self.adversary
            lines.append(
                f"{tag}: an adversary who sees one release names the input word at most "
                f"{_share(attack.success)} {_interval(attack.low, attack.high)} of the time "
                f"(Bayes-optimal over the whole vocabulary, Zipf prior, sees the {attack.observes}; "
                f"{lower}; {_share(attack.floor)} without looking)"
            )
        else:
            lines.append(
                f"{tag}: an adversary who sees one release names the input word {lower} "
                f"({_share(kept.value)} {_interval(kept.low, kept.high)}; {self.mechanism} samples "
                "the released word: no exact whole-vocabulary likelihood here, so no "
                "Bayes-optimal figure)"
            )
        lines.append(f"{tag}: formal bound: " + self._bound_in_words())
        return lines

    def _bound_in_words(self) -> str:
        epsilon = self.epsilon
        if self.metric is None or not self.protection:
            return (
                f"for any two words an observer's odds between them move by at most "
                f"{_factor(epsilon)}"
            )
        protection, metric = self.protection, self.metric
        widest = protection["radii"][-1]
        inside = (
            "where a typical word has no other word"
            if widest["words"] == 0
            else f"where a typical word has {_count(widest)} other words"
        )
        unit = (
            "codes are d bits apart" if metric == "hamming" else f"vectors are d apart ({metric})"
        )
        return (
            f"local: odds between two words whose {unit} move by at most e^({epsilon:g} d): at most "
            f"{_factor(widest['exponent'])} within {_apart(metric, widest['distance'])}, {inside} "
            f"(its nearest: {_apart(metric, protection['nearest'])}, "
            f"{_factor(epsilon * protection['nearest'])}); the statement below says what that means"
        )

    def statement(self) -> list[str]:
        """A statement for a data-protection impact assessment, one paragraph per line.

        What is released; the formal guarantee with real word pairs from the pack and the
        distances within which it bounds an observer's odds by e^1 and e^2; the measured
        protection (the whole-vocabulary adversary beside guessing and the words kept); and what
        is not hidden. Every figure is this explanation's own.
        """
        epsilon, parameters = self.epsilon, self.parameters
        unit = f" per {self.metric_unit}" if self.metric_unit else ""
        decode = parameters.get("decode")
        header = (
            f"Statement: {self.mechanism}, epsilon {epsilon:g}{unit}, pack {self.pack!r}"
            + (f", decode={decode}" if decode else "")
            + "."
        )
        protect = parameters.get("protect") or []
        released = (
            "Released: each word of a text is replaced by a word of the public vocabulary drawn "
            "by the mechanism; whitespace and punctuation are kept; out-of-vocabulary tokens and "
            f"the spans the guard protects (protect={_listed(sorted(protect))}) are replaced "
            "without being read."
        )
        lines = [header, released, self._formal_statement(), self._measured_statement()]
        lines.append(
            "Not hidden: the replacements are chosen to be close in meaning, so the topic of a "
            "text survives, a sensitive topic (a health condition, a religion) included; nor are "
            "the number of words, line breaks and punctuation, which slots were protected, when "
            "and how often texts are sent, or the writing style."
        )
        return lines

    def _formal_statement(self) -> str:
        epsilon, metric, protection = self.epsilon, self.metric, self.protection
        if metric is None or not protection:
            return (
                f"Formal guarantee: for any two words, any release is at most {_factor(epsilon)} "
                "times likelier for one than for the other."
            )
        kind = (
            "codes differ in d bits" if metric == "hamming" else f"vectors are d apart ({metric})"
        )
        radii = [
            f"{_factor(radius['exponent'])} within {_apart(metric, radius['distance'])}"
            for radius in protection["radii"]
        ]
        radii[0] = "at most " + radii[0]
        widest = protection["radii"][-1]
        among = protection["hiding_among"]
        example = protection["example"]
        pairs = ", ".join(
            f"{n['word']!r} {_apart(metric, n['distance'])} ({_factor(epsilon * n['distance'])})"
            for n in example["neighbours"]
        )
        share = widest["share"]
        within = (
            "no other word"
            if widest["words"] == 0
            else f"{_count(widest)} other words ({100 * share:.2g} % of the vocabulary)"
        )
        meaningful = (
            "So at this epsilon the formal bound does not hide a word among other words: what "
            "protects it is the noise, measured next."
            if widest["words"] == 0
            else f"So the formal bound hides a typical word among about {_count(widest)} others "
            f"at {_factor(widest['exponent'])}."
        )
        return (
            f"Formal guarantee (local): for two words whose {kind}, any release is at most "
            f"e^({epsilon:g} d) times likelier for one than for the other; over a text the "
            f"exponents add up word by word. The factor is {' and '.join(radii)}, and a typical "
            f"word has {within} within {_apart(metric, widest['distance'])} (median over "
            f"{protection['words']} public words): its "
            f"nearest other word is {_apart(metric, protection['nearest'])} away "
            f"({_factor(epsilon * protection['nearest'])}), its {among['k']}th nearest "
            f"{_apart(metric, among['distance'])} ({_factor(epsilon * among['distance'])}). For "
            f"example {example['word']!r} and its nearest words: {pairs}. {meaningful}"
        )

    def _measured_statement(self) -> str:
        kept = self.kept
        reading = (
            f"reading the released word names it {_share(kept.value)} "
            f"{_interval(kept.low, kept.high)} of the time (the words kept, each word released "
            "alone)"
        )
        if self.adversary is None:
            return (
                f"Measured protection: an adversary who knows the algorithm and the public packs, "
                f"{reading}; {self.mechanism} samples the released word, so no Bayes-optimal "
                "figure is computed here."
            )
        attack = self.adversary
        return (
            "Measured protection: an adversary who knows the algorithm, the public packs and "
            f"word frequencies and sees the {attack.observes} of one word drawn by frequency "
            f"names that word {_share(attack.success)} {_interval(attack.low, attack.high)} of "
            f"the time (Bayes-optimal over the whole vocabulary, {attack.samples:,} trials), "
            f"against {_share(attack.floor)} by guessing the commonest word; {reading}. An "
            "adversary who also reads the neighbouring words of a text (as the context decoder "
            "does) can do better than the first figure."
        )

    def details(self) -> list[str]:
        """The detailed sections that follow the headline."""
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
        if self.adversary is not None:
            attack = self.adversary
            lines += [
                "",
                "The adversary of figure 2 (whole vocabulary, exact posterior given the "
                f"{attack.observes}):",
                f"  names the input: {attack} ({attack.method})",
                f"  mean posterior of its guess: {attack.model_success:.3f} "
                f"[{attack.model_low:.3f}, {attack.model_high:.3f}] (the same number when the "
                "mechanism follows its stated noise law)",
                f"  guessing the commonest word without looking: {attack.floor:.3f}",
            ]
        lines += [
            "",
            f"Monte Carlo on {self.word_set}:",
            f"  words kept unchanged (text-like, Zipf-weighted): {self.kept}",
            f"  words kept unchanged (uniform over the word set, mean N_w): {self.kept_uniform}",
            f"  distinct outputs per word in {self.kept.samples} releases (mean S_w): "
            f"{self.distinct_outputs}",
        ]
        lines += ["", f"Sample rewrites of the public sentence {self.sentence!r}:"]
        lines += [f"  {rewrite}" for rewrite in self.rewrites]
        lines += [f"Note: {note}" for note in self.notes]
        lines += ["", *self.statement()]
        return lines

    def render(self) -> str:
        """A human-readable report: the three plain figures first, then the details, which end
        with the statement (:meth:`statement`)."""
        return "\n".join([*self.headline(), "", *self.details()])


@dataclass(frozen=True)
class Sweep:
    """:func:`explain_epsilons`'s outcome: one :class:`Explanation` per epsilon."""

    explanations: list[Explanation]

    def as_dict(self) -> dict[str, Any]:
        return {"explanations": [item.as_dict() for item in self.explanations]}

    def render(self) -> str:
        """Every epsilon's three plain figures first, then each epsilon's details."""
        lines: list[str] = []
        for item in self.explanations:
            lines += item.headline()
        for item in self.explanations:
            lines += ["", f"== epsilon {item.epsilon:g}", *item.details()]
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
    outputs: np.ndarray | None = None,
) -> dict[str, Any]:
    """Monte Carlo statistics of ``mechanism`` on ``words`` (see the module docstring).

    ``outputs`` (one row of ``samples`` releases per word) replaces drawing them with
    ``mechanism`` (:func:`edgedp.evaluation.keep_rate.public_releases` gives the words-kept
    figure's). ``progress(done, total)`` hears of the releases and then of each bootstrap
    replicate."""
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

    if outputs is None:
        channel, outputs = sample_channel(mechanism, words.tolist(), samples)
    else:
        outputs = np.asarray(outputs, dtype=np.int64)
        if outputs.shape != (len(words), samples):
            raise InputError(f"outputs must have shape ({len(words)}, {samples})")
        channel = Channel.from_samples(words.tolist(), outputs)
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
    ids = mechanism.lookup(segmented.words)  # chat spellings as their words, as released
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


@cache
def _neighbour_distances(pack: WordPack, metric: str, lam: float) -> np.ndarray:
    """Rows: for each of :data:`NEAREST_WORDS` public words, the sorted distances to its
    :data:`NEIGHBOUR_DISTANCES` nearest other vocabulary words."""
    ids = public_word_set(pack, NEAREST_WORDS)
    distances = distances_from(pack, metric, ids.tolist(), lam=lam)
    distances[np.arange(len(ids)), ids] = np.inf
    count = max(1, min(NEIGHBOUR_DISTANCES, distances.shape[1] - 1))
    nearest = np.partition(distances, count - 1, axis=1)[:, :count]
    rows: np.ndarray = np.sort(nearest, axis=1)
    rows.flags.writeable = False
    return rows


def _example_word(pack: WordPack) -> int:
    """The first of :data:`EXAMPLE_WORDS` in the vocabulary, else a public word of middle rank."""
    ids = pack.vocabulary.ids(list(EXAMPLE_WORDS))
    mask = word_like_mask(pack)
    found = [int(i) for i in ids if i >= 0 and mask[i]]
    if found:
        return found[0]
    words = public_word_set(pack, NEAREST_WORDS)
    return int(words[len(words) // 2])


def local_guarantee(mechanism: WordMechanism) -> dict[str, Any]:
    """The local guarantee of a metric mechanism in real word pairs of its pack.

    epsilon * d metric DP bounds an observer's odds between two words by e^(epsilon d): this
    gives, for :data:`RADIUS_EXPONENTS` k, the distance k / epsilon within which the factor is at
    most e^k and how many other words a typical word has that close (the median over
    :data:`NEAREST_WORDS` public words, and as a share of the other vocabulary words); the typical
    word's nearest and :data:`HIDING_AMONG`-th nearest other word; and an example word
    (:data:`EXAMPLE_WORDS`) with its :data:`EXAMPLE_NEIGHBOURS` nearest words and their distances.

    Parameters
    ----------
    mechanism : WordMechanism
        Any word mechanism.

    Returns
    -------
    dict
        ``example`` (``word``, ``neighbours``: ``word``, ``distance``, ``bound``), ``nearest``,
        ``hiding_among`` (``k``, ``distance``), ``radii`` (``exponent``, ``distance``, ``words``,
        ``share``, ``capped``: the count reached :data:`NEIGHBOUR_DISTANCES`), ``words`` (public
        words the medians are over) and ``vocabulary``; ``{}`` without a metric.

    Examples
    --------
    >>> import edgedp
    >>> from edgedp.evaluation.explain import local_guarantee
    >>> found = local_guarantee(edgedp.BRR(edgedp.load_pack(), epsilon=0.5))
    >>> found["example"]["word"], [r["distance"] for r in found["radii"]]
    ('doctor', [2.0, 4.0])
    """
    metric = mechanism.guarantee().metric
    if metric is None:
        return {}
    lam = float(mechanism.parameters().get("lam", 0.2))  # type: ignore[arg-type]
    pack, epsilon = mechanism.pack, mechanism.epsilon
    rows = _neighbour_distances(pack, metric, lam)
    others = len(pack.vocabulary) - 1
    radii = []
    for exponent in RADIUS_EXPONENTS:
        distance = exponent / epsilon
        if metric == "hamming":
            distance = float(math.floor(distance + 1e-9))
        words = float(np.median((rows <= distance).sum(axis=1)))
        radii.append(
            {
                "exponent": exponent,
                "distance": distance,
                "words": words,
                "share": words / max(1, others),
                "capped": words >= rows.shape[1],
            }
        )
    word_id = _example_word(pack)
    distances = distances_from(pack, metric, [word_id], lam=lam)[0]
    distances[word_id] = np.inf
    closest = np.argsort(distances, kind="stable")[:EXAMPLE_NEIGHBOURS]
    vocabulary = pack.vocabulary
    among = min(HIDING_AMONG, rows.shape[1])
    return {
        "example": {
            "word": vocabulary[word_id],
            "neighbours": [
                {
                    "word": vocabulary[int(i)],
                    "distance": float(distances[i]),
                    "bound": epsilon * float(distances[i]),
                }
                for i in closest
            ],
        },
        "nearest": float(np.median(rows[:, 0])),
        "hiding_among": {"k": among, "distance": float(np.median(rows[:, among - 1]))},
        "radii": radii,
        "words": int(rows.shape[0]),
        "vocabulary": len(vocabulary),
    }


def measured_adversary(
    mechanism: WordMechanism, *, samples: int = ADVERSARY_SAMPLES
) -> AdversaryEstimate | None:
    """The whole-vocabulary adversary's figure of ``mechanism``, on a fixed public stream.

    :func:`~edgedp.evaluation.empirical_privacy.point_adversary` with a copy of the mechanism
    and inputs drawn on the public stream of :data:`ADVERSARY_SEED` (public words only): the same
    settings always give the same figure, in ``edgedp explain`` and in the benchmarks.

    Parameters
    ----------
    mechanism : WordMechanism
        Any word mechanism.
    samples : int, default ADVERSARY_SAMPLES
        Inputs drawn from the Zipf prior (>= 2).

    Returns
    -------
    AdversaryEstimate or None
        ``None`` for a mechanism without a noisy point.
    """
    source = public_statistics_source(ADVERSARY_SEED)
    return point_adversary(rebuild(mechanism, source), samples=samples, rng=source)


def default_epsilons(mechanism: WordMechanism) -> list[float]:
    """The sweep of ``edgedp explain`` without ``--epsilon``.

    :data:`DEFAULT_SWEEP` (BRR's per-bit epsilons, where it keeps from about a tenth to nine
    tenths of a text's words on the bundled pack) in Hamming space; in another metric the same
    values scaled by the ratio of average pair distances (Hamming / the metric's, the privacy
    ratio of the BRR paper, Sec. 5), rounded to 2 significant digits; without a metric, 1 to 5.

    Parameters
    ----------
    mechanism : WordMechanism
        The mechanism whose metric and pack set the scale.

    Returns
    -------
    list of float
        Increasing epsilons.
    """
    metric = mechanism.guarantee().metric
    if metric is None:
        return [1.0, 2.0, 3.0, 4.0, 5.0]
    if metric == "hamming":
        return list(DEFAULT_SWEEP)
    lam = float(mechanism.parameters().get("lam", 0.2))  # type: ignore[arg-type]
    ratio = float(loss_statistics(mechanism.pack, "hamming")["average"]) / float(
        loss_statistics(mechanism.pack, metric, lam)["average"]
    )
    return [float(f"{value * ratio:.2g}") for value in DEFAULT_SWEEP]


def explain_epsilons(
    mechanism: WordMechanism,
    epsilons: Sequence[float],
    *,
    rng: RandomSource | int | None = None,
    progress: ProgressCallback | None = None,
    **options: Any,
) -> Sweep:
    """:func:`explain` at each of ``epsilons`` (the mechanism rebuilt with its other parameters).

    Parameters
    ----------
    mechanism : WordMechanism
        The mechanism; its own epsilon is ignored.
    epsilons : sequence of float
        The epsilons to explain (each > 0), in the order given.
    rng : RandomSource or int or None, default None
        Drives the bootstrap intervals and the sample rewrites (see :func:`explain`); ``None``
        is OS entropy.
    progress : callable or None, default None
        ``progress(done, total)`` over all epsilons.
    **options
        :func:`explain`'s other keyword arguments (``text``, ``samples``, ``words``,
        ``adversary_samples``).

    Returns
    -------
    Sweep
        One :class:`Explanation` per epsilon; ``render()`` prints every epsilon's three figures
        first.
    """
    if not epsilons:
        raise InputError("explain_epsilons needs at least one epsilon")
    source = resolve_rng(rng)
    out = []
    for number, epsilon in enumerate(epsilons):
        at = rebuild(mechanism, source, epsilon=epsilon)

        def step(done: float, total: float, number: int = number) -> None:
            if progress is not None:
                progress(number + done / max(total, 1.0), float(len(epsilons)))

        out.append(explain(at, rng=source, progress=step, **options))
    return Sweep(out)


def explain(
    mechanism: WordMechanism,
    *,
    text: str | None = None,
    samples: int = DEFAULT_SAMPLES,
    words: int = DEFAULT_WORDS,
    adversary_samples: int = ADVERSARY_SAMPLES,
    rng: RandomSource | int | None = None,
    progress: ProgressCallback | None = None,
) -> Explanation:
    """Explain what a word mechanism's releases mean, in numbers a person can read.

    Measures, on public words only, what the mechanism does at its settings (and decoder): the
    share of words that come back unchanged, how often a Bayes-optimal adversary who sees one
    release names the input word, and the local formal bound e^(epsilon * d) in real word pairs;
    then the detailed sections (the guarantee, the per-word loss bound, empirical privacy, sample
    rewrites), ending with a statement for a data-protection impact assessment
    (:meth:`Explanation.statement`). ``edgedp explain`` prints the same report.

    Parameters
    ----------
    mechanism : WordMechanism
        Any word mechanism, with its parameters and decoder.
    text : str or None, default None
        Adds per-word bounds for this text (read, not stored).
    samples : int, default DEFAULT_SAMPLES
        Releases per public word of the word-set Monte Carlo (>= 2; default 20).
    words : int, default DEFAULT_WORDS
        Public words of the word set (>= 2).
    adversary_samples : int, default ADVERSARY_SAMPLES
        Inputs drawn from the Zipf prior for the whole-vocabulary adversary (>= 2; default 1000).
    rng : ~edgedp.RandomSource, int or None, default None
        Drives the bootstrap intervals of E_M and the sample rewrites (public words only); ``None``
        is OS entropy. The words kept and the adversary's figure are drawn on fixed public
        streams (:func:`~edgedp.evaluation.keep_rate.words_kept`, :func:`measured_adversary`):
        the same settings give the same figures in every report.
    progress : callable or None, default None
        ``progress(done, total)`` hears how the Monte Carlo goes.

    Returns
    -------
    Explanation
        ``render()`` leads with the three plain figures (:meth:`Explanation.headline`).

    Raises
    ------
    ~edgedp.InputError
        For a mechanism that is not a word mechanism, ``text`` without a metric, or a count
        below its range.

    See Also
    --------
    equivalent_epsilon : the epsilon of another mechanism with the same privacy ratio.

    Notes
    -----
    Explaining spends no privacy: every Monte Carlo runs on public vocabulary words, and ``text``
    (when given) is only read to bound each of its words' loss, epsilon * d(w, w') in the
    mechanism's metric, never released. The figures are estimates with intervals (they vary from
    run to run); the guarantee they illustrate is the mechanism's own (``mechanism.guarantee()``).
    Details: :mod:`edgedp.evaluation.explain`.

    References
    ----------
    * Z. Xu, A. Aggarwal, O. Feyisetan, N. Teissier. "On a Utilitarian Approach to Privacy
      Preserving Text Generation", 2021 (empirical privacy: the Bayesian adversary's inference
      error).

    Examples
    --------
    >>> import edgedp
    >>> brr = edgedp.BRR(edgedp.load_pack(), epsilon=0.6)
    >>> report = edgedp.explain(brr, samples=4, words=8, adversary_samples=4)
    >>> report.mechanism, report.metric
    ('BRR', 'hamming')
    >>> "words kept unchanged" in report.render()
    True
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
    # The word set's releases on the fixed public stream: the words kept are words_kept's figure.
    outputs = public_releases(mechanism, word_ids, samples)
    stats = measure(evaluator, word_ids, samples, rng=source, progress=progress, outputs=outputs)
    adversary = measured_adversary(mechanism, samples=adversary_samples)
    if adversary is not None and not adversary.consistent:
        notes.append(
            "the adversary's share of correct guesses and the mean posterior of its guesses "
            "disagree: the mechanism's releases do not follow its stated noise law (the share "
            "of correct guesses is the measured one)"
        )
    rewrites = [evaluator.privatize(PUBLIC_SENTENCE) for _ in range(REWRITES)]
    slots = totals = None
    if text is not None:
        if metric is None:
            raise InputError("per-word bounds need the mechanism's metric")
        slots, totals = text_losses(mechanism, text, metric)
    if mechanism.decoder is not None:
        notes.append(
            f"words are decoded with decode={mechanism.decode!r}: post-processing, the guarantee "
            "is unchanged; the words kept are measured with the decoder, on words alone (in a "
            "sentence, context decoding keeps more); the adversary of figure 2 sees the noisy "
            "point before any decoding"
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
        adversary=adversary,
        protection=local_guarantee(mechanism),
    )
