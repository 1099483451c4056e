"""Empirical privacy vs utility of word mechanisms: Xu et al. (2021) Sec. 4, "Product Reviews".

Setup, as in the paper except where said:

* Vocabulary and inputs: the Hu & Liu opinion lexicon (``bench.datasets.opinion_lexicon``), every
  word that is a GloVe 6B word: the ``opinion-lexicon`` pack (its vocabulary *is* the lexicon, as in
  the paper; 50-d GloVe 6B vectors and the bundled pack's 256-bit autoencoder codes). The paper used
  300-d GloVe 840B, of which only the 33,825-word subset shipped by MLDP is installable here (it holds
  under half of the lexicon), so the epsilon axis differs from the paper's by the distance scale of
  the embedding: the *shape* of the curves and their ordering are what is compared.
* Utility loss L_M: the misclassification rate, d_L(w, w') = 1[sentiment(w') != sentiment(w)].
* Empirical privacy: the Bayesian adversary's expected inference error E_M with d_E = 1[w_hat != w]
  (posterior sampling, the paper's Eq. 4 with Bayes' rule in place of its typo), and the error of
  the Bayes-optimal MAP adversary, a stronger attack. Priors: uniform, and word frequencies from
  ``wordfreq`` (the paper's informative prior was the empirical word distribution of its corpus).
* Mechanisms: Laplace (= Madlib, = Vickrey t = 0), Mahalanobis (lambda 0.2), Vickrey t in
  {0.25, 0.5, 0.75, 1} in Euclidean space; BRR and Vickrey in Hamming space (randomized response on
  the codes) with the same t. The x axis is Madlib's epsilon; every other mechanism runs at the
  epsilon with the same *average* privacy-loss bound (privacy ratio, BRR paper Sec. 5): Hamming
  mechanisms at epsilon * P_avg(Euclidean) / P_avg(Hamming) per bit, Mahalanobis at
  epsilon * P_avg(Euclidean) / P_avg(Mahalanobis). (The paper put Mahalanobis on the same nominal
  epsilon; on this pack the two differ by a few percent.)
* Monte Carlo: every lexicon word is privatized ``SAMPLES`` times per setting (the channel f_M is
  estimated from the samples); ``*_ci`` are 95 % percentile intervals from bootstrapping each
  word's samples (edgedp.evaluation.empirical_privacy). The plug-in estimate of E_M is biased low: a
  finite-sample channel flatters the adversary (each resample even more so, which is why a
  percentile interval can lie below the estimate). The plots therefore show the estimate with the
  interval's half-width, and the ``samples`` table shows how E_M moves with the sample count.

Mechanisms run with seeded random sources: reproducible, NOT private (a benchmark).
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import edgedp
from bench.datasets import opinion_lexicon
from bench.harness import Report, figure, progress
from bench.packs import ensure_pack
from edgedp.evaluation.calibration import privacy_ratio
from edgedp.evaluation.empirical_privacy import evaluate, sample_channel

MADLIB_EPSILONS = (0.5, 1.0, 2.0, 4.0, 6.0, 8.0, 10.0, 13.0, 20.0)
QUICK_EPSILONS = (5.0, 10.0)
T_VALUES = (0.25, 0.5, 0.75, 1.0)
SAMPLES, QUICK_SAMPLES = 100, 10
SAMPLE_CHECK = (25, 50, 100, 200)
BUDGETS = (0.02, 0.05, 0.1, 0.2)
LAM = 0.2
CUSTEXT_K = 20
TABLE = "product reviews: empirical privacy and misclassification"


@dataclass(frozen=True)
class Curve:
    """One mechanism family member, built at the epsilon matched to a Madlib epsilon."""

    label: str
    geometry: str
    t: float
    build: Callable[[float, edgedp.RandomSource], edgedp.WordMechanism]


def curves(pack: edgedp.WordPack, quick: bool) -> list[Curve]:
    to_hamming = privacy_ratio(pack, "madlib", "brr")
    to_mahalanobis = privacy_ratio(pack, "madlib", "mahalanobis", lam=LAM)
    chosen = [
        Curve(
            "Laplace (Madlib)", "euclidean", 0.0, lambda e, r: edgedp.Madlib(pack, epsilon=e, rng=r)
        )
    ]
    chosen.append(
        Curve(
            f"Mahalanobis (lambda {LAM})",
            "euclidean",
            0.0,
            lambda e, r: edgedp.Mahalanobis(pack, epsilon=e * to_mahalanobis, lam=LAM, rng=r),
        )
    )
    for t in (0.5,) if quick else T_VALUES:
        chosen.append(
            Curve(
                f"Vickrey t={t}",
                "euclidean",
                t,
                lambda e, r, t=t: edgedp.Vickrey(pack, epsilon=e, t=t, rng=r),
            )
        )
    chosen.append(
        Curve("BRR", "hamming", 0.0, lambda e, r: edgedp.BRR(pack, epsilon=e * to_hamming, rng=r))
    )
    for t in (0.5,) if quick else T_VALUES:
        chosen.append(
            Curve(
                f"Vickrey-Hamming t={t}",
                "hamming",
                t,
                lambda e, r, t=t: edgedp.Vickrey(
                    pack, epsilon=e * to_hamming, t=t, geometry="hamming", rng=r
                ),
            )
        )
    chosen += sampling_curves(pack, to_hamming)
    return chosen


def within_set_distance(pack: edgedp.WordPack, k: int) -> float:
    """Average Euclidean distance between two words of the same CusText output set (public)."""
    _, members = edgedp.CusText(pack, epsilon=1.0, k=k).output_sets()
    vectors = np.asarray(pack.vectors, dtype=np.float64)
    total, pairs = 0.0, 0
    for row in members:
        group = vectors[row[row >= 0]]
        gaps = np.linalg.norm(group[:, None, :] - group[None, :, :], axis=2)
        total += float(gaps.sum()) / 2
        pairs += len(group) * (len(group) - 1) // 2
    return total / pairs


def sampling_curves(pack: edgedp.WordPack, to_hamming: float) -> list[Curve]:
    """TEM (both spaces), SanText, SanText+ and CusText at Madlib's matched bounds.

    TEM and SanText(+) are epsilon * d metric DP: same epsilon as Madlib (TEM-Hamming at the
    Hamming ratio). CusText is plain epsilon-DP between words of one output set: it runs at
    Madlib's epsilon times the average distance between two words of a set, i.e. the bound Madlib
    gives, on average, to exactly the pairs CusText protects.
    """
    to_custext = within_set_distance(pack, CUSTEXT_K)
    return [
        Curve("TEM", "euclidean", 0.0, lambda e, r: edgedp.TEM(pack, epsilon=e, rng=r)),
        Curve(
            "TEM-Hamming",
            "hamming",
            0.0,
            lambda e, r: edgedp.TEM(pack, epsilon=e * to_hamming, geometry="hamming", rng=r),
        ),
        Curve("SanText", "euclidean", 0.0, lambda e, r: edgedp.SanText(pack, epsilon=e, rng=r)),
        Curve(
            "SanText+ (p 0.3, w 0.9)",
            "euclidean",
            0.0,
            lambda e, r: edgedp.SanTextPlus(pack, epsilon=e, rng=r),
        ),
        Curve(
            f"CusText (k {CUSTEXT_K})",
            "euclidean",
            0.0,
            lambda e, r: edgedp.CusText(pack, epsilon=e * to_custext, k=CUSTEXT_K, rng=r),
        ),
    ]


def seeded(seed: int) -> edgedp.RandomSource:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        return edgedp.RandomSource.seeded(seed)


def frequency_prior(words: tuple[str, ...]) -> np.ndarray:
    """wordfreq's English frequency of each word (words it does not know get its smallest value)."""
    from wordfreq import word_frequency

    frequencies = np.array([word_frequency(word, "en") for word in words])
    floor = frequencies[frequencies > 0].min() if (frequencies > 0).any() else 1.0
    return np.maximum(frequencies, floor)


def run(report: Report, *, quick: bool) -> None:
    pack = ensure_pack("opinion-lexicon-quick" if quick else "opinion-lexicon")
    lexicon = opinion_lexicon()
    words = pack.vocabulary.words
    sentiment = np.array([lexicon[word] for word in words])
    ids = np.arange(len(words))
    priors = {"uniform": None, "word frequency": frequency_prior(words)}

    def flipped(inputs: np.ndarray, outputs: np.ndarray) -> np.ndarray:
        return (sentiment[inputs] != sentiment[outputs]).astype(np.float64)

    epsilons = QUICK_EPSILONS if quick else MADLIB_EPSILONS
    samples = QUICK_SAMPLES if quick else SAMPLES
    chosen = curves(pack, quick)
    settings = [(curve, epsilon) for curve in chosen for epsilon in epsilons]
    for number, (curve, epsilon) in enumerate(progress(settings, "product reviews")):
        mechanism = curve.build(epsilon, seeded(number))
        channel, outputs = sample_channel(mechanism, ids, samples)
        for prior_name, prior in priors.items():
            result = evaluate(
                channel, prior=prior, distance=flipped, outputs=outputs, rng=seeded(10_000 + number)
            )
            report.add(
                table=TABLE,
                prior=prior_name,
                mechanism=curve.label,
                geometry=curve.geometry,
                t=curve.t,
                madlib_epsilon=epsilon,
                epsilon=mechanism.epsilon,
                inference_error=result.inference_error,
                inference_error_ci=list(result.intervals["inference_error"]),
                map_error=result.map_inference_error,
                misclassification=result.utility_loss,
                misclassification_ci=list(result.intervals["utility_loss"]),
                unchanged=result.unchanged,
                distinct_outputs=result.distinct_outputs,
            )
    if not quick:
        _sample_check(report, chosen[0], ids)
    _budget_table(report, [c.label for c in chosen], priors)
    _ordering_notes(report, epsilons)
    for prior_name in priors:
        _plot(report, prior_name, "inference_error", chosen)
    _plot_map(report, chosen, list(priors))
    positive = int(sentiment.sum())
    report.notes.append(
        f"product reviews: {len(words):,} lexicon words in the pack ({positive:,} positive, "
        f"{len(words) - positive:,} negative) of {len(lexicon):,} in the lexicon; {samples} samples "
        f"per word and setting; privacy ratios on this pack: Hamming epsilon = "
        f"{privacy_ratio(pack, 'madlib', 'brr'):.4f} x Madlib epsilon (per bit), Mahalanobis "
        f"epsilon = {privacy_ratio(pack, 'madlib', 'mahalanobis', lam=LAM):.4f} x Madlib epsilon."
    )


def _sample_check(report: Report, curve: Curve, ids: np.ndarray) -> None:
    """How the Monte Carlo estimate of E_M moves with the number of samples per word."""
    for samples in progress(SAMPLE_CHECK, "sample-count check"):
        channel, _ = sample_channel(curve.build(6.0, seeded(samples)), ids, samples)
        result = evaluate(channel)
        report.add(
            table="samples per word vs the estimate (Madlib, epsilon 6, uniform prior)",
            samples=samples,
            inference_error=result.inference_error,
            map_error=result.map_inference_error,
            distinct_outputs=result.distinct_outputs,
        )


def _budget_table(report: Report, labels: list[str], priors: dict) -> None:
    """The paper's vertical slices: the best E_M each mechanism reaches within a misclassification
    budget, interpolating linearly along its epsilon path (blank: budget not reachable)."""
    for prior_name in priors:
        for label in labels:
            rows = [
                r
                for r in report.table(TABLE)
                if r["mechanism"] == label and r["prior"] == prior_name
            ]
            row = {"table": "E_M within a misclassification budget", "prior": prior_name}
            row["mechanism"] = label
            for budget in BUDGETS:
                row[f"L<={budget}"] = _best_within(rows, budget)
            report.add(**row)


def _best_within(rows: list[dict], budget: float) -> float | None:
    """Max E_M over the piecewise-linear epsilon path restricted to misclassification <= budget."""
    path = [(r["misclassification"], r["inference_error"]) for r in rows]  # in epsilon order
    feasible = [error for loss, error in path if loss <= budget]
    for (l0, e0), (l1, e1) in itertools.pairwise(path):
        if min(l0, l1) <= budget < max(l0, l1):
            feasible.append(e0 + (e1 - e0) * (budget - l0) / (l1 - l0))
    return max(feasible) if feasible else None


def _ordering_notes(report: Report, epsilons) -> None:
    """Does the paper's ordering hold at each epsilon (uniform prior)?"""
    rows = [r for r in report.table(TABLE) if r["prior"] == "uniform"]

    def error(label: str, epsilon: float) -> float | None:
        match = [r for r in rows if r["mechanism"] == label and r["madlib_epsilon"] == epsilon]
        return match[0]["inference_error"] if match else None

    for family, base in (("Vickrey", "Laplace (Madlib)"), ("Vickrey-Hamming", "BRR")):
        labels = [f"{family} t={t}" for t in T_VALUES]
        above_base, monotone = 0, 0
        compared = 0
        for epsilon in epsilons:
            values = [error(label, epsilon) for label in labels]
            reference = error(base, epsilon)
            if reference is None or any(v is None for v in values):
                continue
            compared += 1
            above_base += all(v >= reference - 1e-9 for v in values)
            monotone += values[0] <= values[1] <= values[2] + 1e-9
        if compared:
            report.notes.append(
                f"ordering ({family} vs {base}, uniform prior): every t has E_M >= {base} at "
                f"{above_base}/{compared} epsilons; E_M(t=0.25) <= E_M(0.5) <= E_M(0.75) at "
                f"{monotone}/{compared}."
            )


COLOURS = {
    "Laplace (Madlib)": "black",
    f"Mahalanobis (lambda {LAM})": "tab:red",
    "BRR": "tab:brown",
}
T_COLOURS = dict(zip(T_VALUES, ("tab:green", "tab:blue", "tab:cyan", "tab:purple"), strict=True))


def _style(curve: Curve) -> dict:
    colour = COLOURS.get(curve.label, T_COLOURS.get(curve.t, "grey"))
    return {
        "color": colour,
        "linestyle": "--" if curve.geometry == "hamming" else "-",
        "marker": "o",
    }


def _plot(report: Report, prior: str, metric: str, chosen: list[Curve]) -> None:
    """Paper Fig. 2 (A, B): E_M vs epsilon and E_M vs misclassification; Euclidean family on the
    top row, Hamming family (with Madlib for reference) on the bottom row."""
    fig, axes = figure(2, 2, (12, 9))
    rows = [r for r in report.table(TABLE) if r["prior"] == prior]
    families = (
        [c for c in chosen if c.geometry == "euclidean"],
        [c for c in chosen if c.geometry == "hamming" or c.label == "Laplace (Madlib)"],
    )
    for row_axes, family in zip(axes, families, strict=True):
        for curve in family:
            series = [r for r in rows if r["mechanism"] == curve.label]
            if not series:
                continue
            x = [r["madlib_epsilon"] for r in series]
            y = np.array([r[metric] for r in series])
            # error bars: the bootstrap interval's half-width around the estimate (a percentile
            # interval of this biased estimator need not contain it; see the samples table)
            half = np.array(
                [(r["inference_error_ci"][1] - r["inference_error_ci"][0]) / 2 for r in series]
            )
            style = _style(curve)
            row_axes[0].errorbar(x, y, yerr=half, label=curve.label, capsize=2, **style)
            loss = [r["misclassification"] for r in series]
            row_axes[1].plot(loss, y, label=curve.label, **style)
        row_axes[0].set_xlabel("Madlib epsilon (others matched by the privacy ratio)")
        row_axes[1].set_xlabel("misclassification rate (sentiment flips)")
        for axis in row_axes:
            axis.set_ylabel("adversary's expected inference error E_M")
            axis.set_ylim(-0.02, 1.02)
            axis.grid(alpha=0.3)
        row_axes[0].legend(fontsize=8)
    axes[0][0].set_title(f"Product Reviews, {prior} prior: E_M vs epsilon")
    axes[0][1].set_title("E_M vs utility loss")
    name = "uniform" if prior == "uniform" else "frequency"
    report.figures[f"product_reviews_{name}.png"] = fig


def _plot_map(report: Report, chosen: list[Curve], priors: list[str]) -> None:
    """The MAP (Bayes-optimal) adversary's error, both priors, all mechanisms."""
    fig, axes = figure(len(priors), 2, (12, 4.5 * len(priors)))
    for row_axes, prior in zip(axes, priors, strict=True):
        rows = [r for r in report.table(TABLE) if r["prior"] == prior]
        for curve in chosen:
            series = [r for r in rows if r["mechanism"] == curve.label]
            style = _style(curve)
            x = [r["madlib_epsilon"] for r in series]
            row_axes[0].plot(x, [r["map_error"] for r in series], label=curve.label, **style)
            row_axes[1].plot(
                [r["misclassification"] for r in series],
                [r["map_error"] for r in series],
                label=curve.label,
                **style,
            )
        row_axes[0].set_title(f"MAP adversary, {prior} prior")
        row_axes[0].set_xlabel("Madlib epsilon")
        row_axes[1].set_xlabel("misclassification rate")
        for axis in row_axes:
            axis.set_ylabel("MAP adversary error")
            axis.set_ylim(-0.02, 1.02)
            axis.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    report.figures["product_reviews_map.png"] = fig
