"""Which epsilon for which use: measured recommendations for BRR and Madlib (``python -m bench epsilon``).

Three uses, each on at least three public domains (:mod:`bench.utility.epsilon_tasks`: topic
classification, search queries and the chat stand-in, and why those stand in for chat). Each
mechanism runs on a grid of epsilons; every point reports

* **words kept**: ``edgedp explain``'s figure (:func:`edgedp.evaluation.keep_rate.words_kept`: the
  Zipf-weighted share of vocabulary words released unchanged, each word released alone with the
  mechanism's decoder; one figure per epsilon), and beside it, per domain, the share of the
  domain's own word slots released unchanged **on its running text** (counted on the released
  texts, :meth:`edgedp.words.mechanism.WordMechanism.count_kept`), labelled as such;
* **adversary**: ``edgedp explain``'s adversary figure
  (:func:`edgedp.evaluation.explain.measured_adversary`: the Bayes-optimal adversary who sees one
  noisy point and names the input word over the whole vocabulary under a Zipf prior; Wilson 95 %
  interval);
* **utility** of each domain's task computed on the released texts, beside the **floor**: the same
  task on a release that ignores the input (every word slot replaced by a word drawn from the public
  Zipf prior, independently of the text, the same number of slots) and the non-private
  **reference**; ``kept above floor`` = (score - floor) / (reference - floor) (GUIDE section 6),
  with a 95 % bootstrap interval over the items (score, floor and reference resampled together).

The recommended epsilon of a use is the smallest grid epsilon whose utility keeps at least half of
the non-private signal above the floor on **every** domain of the use.

BRR runs on the bundled pack with its default decoder (``context``), Madlib on the medium float
pack (default decoder ``nearest``) at the epsilons with BRR's average privacy-loss bound on that
pack (the privacy ratio). Mechanisms run on seeded sources: reproducible, NOT private (a
benchmark). Each point's per-item results are cached in :data:`CACHE` (delete it to measure
afresh), so an interrupted run resumes; ``--quick`` is smaller and caches nothing.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np

import edgedp
from bench.harness import Report, cached
from bench.utility.epsilon_tasks import USES, Task
from edgedp.evaluation.calibration import equivalent_epsilon
from edgedp.evaluation.empirical_privacy import zipf_log_prior
from edgedp.evaluation.explain import measured_adversary
from edgedp.evaluation.keep_rate import words_kept

BRR_EPSILONS = (0.4, 0.5, 0.55, 0.6, 0.7, 0.8)
#: Madlib runs at the epsilons with the average privacy-loss bound of BRR at these (per bit); it
#: keeps half the signal at lower BRR-equivalents than BRR itself, hence the two lower points.
MADLIB_AS_BRR = (0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.8)
QUICK = 0.1
ADVERSARY_SAMPLES = 1000
BOOTSTRAP = 200
HALF = 0.5
TABLE = "kept above the floor per use, domain and epsilon"
FIGURES = "words kept and the adversary per epsilon"
CACHE = Path.home() / ".cache" / "edgedp-bench" / "epsilon"
#: Part of every cache key: change it when what a point measures changes.
VERSION = "2026-11-29"


def seeded(seed: int) -> edgedp.RandomSource:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        return edgedp.RandomSource.seeded(seed)


def input_ignoring(pack: edgedp.WordPack, texts: list[str], seed: int) -> list[str]:
    """Each text's word slots replaced by words drawn from the Zipf prior, ignoring the text."""
    prior = np.exp(zipf_log_prior(pack))
    cumulative = np.cumsum(prior)
    source = seeded(seed)
    vocabulary = pack.vocabulary
    out = []
    for text in texts:
        count = max(1, len(text.split()))
        draws = np.searchsorted(cumulative, source.uniform(count) * cumulative[-1], side="right")
        out.append(" ".join(vocabulary[int(min(i, len(prior) - 1))] for i in draws))
    return out


def build(name: str, pack: edgedp.WordPack, epsilon: float, seed: int) -> edgedp.WordMechanism:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "BRR":
            return edgedp.BRR(pack, epsilon=epsilon, rng=seeded(seed))
        return edgedp.Madlib(pack, epsilon=epsilon, rng=seeded(seed))


def _items(values: np.ndarray) -> list:
    return [v.item() if hasattr(v, "item") else v for v in values]


def kept_above_floor(
    task: Task, released: list, floor: list, reference: list, seed: int = 0
) -> tuple[float, float, float]:
    """(share, low, high): (score - floor) / (reference - floor) and its bootstrap interval."""
    truth = np.asarray(task.truth, dtype=object)
    arrays = [np.asarray(values, dtype=object) for values in (released, floor, reference)]

    def share(index: np.ndarray) -> float:
        score, low, high = (task.aggregate(a[index], truth[index]) for a in arrays)
        return (score - low) / (high - low) if high != low else float("nan")

    everything = np.arange(len(truth))
    draws = np.random.default_rng(seed).integers(0, len(truth), size=(BOOTSTRAP, len(truth)))
    replicates = np.array([share(index) for index in draws])
    replicates = replicates[np.isfinite(replicates)]
    low, high = np.percentile(replicates, [2.5, 97.5]) if len(replicates) else (np.nan, np.nan)
    return share(everything), float(low), float(high)


def point(
    task: Task, mechanism_name: str, pack: edgedp.WordPack, epsilon: float, quick: bool
) -> dict[str, Any]:
    """One (task, mechanism, epsilon): the per-item results of the released texts (cached)."""

    def compute() -> dict[str, Any]:
        mechanism = build(mechanism_name, pack, epsilon, 4)
        counter = mechanism.count_kept()
        released = mechanism.privatize_batch(task.texts)
        return {
            "items": _items(task.items(released)),
            "kept_text": counter.unchanged / max(1, counter.released),
        }

    key = f"{VERSION}-{task.use}-{task.domain}-{mechanism_name}-{pack.name}-{epsilon:g}"
    return cached(CACHE, key, quick, compute)


def figures(mechanism_name: str, pack: edgedp.WordPack, epsilon: float, quick: bool) -> dict:
    """``edgedp explain``'s words-kept and adversary figures at one epsilon (cached)."""

    def compute() -> dict[str, Any]:
        mechanism = build(mechanism_name, pack, epsilon, 1)
        kept = words_kept(mechanism)
        attack = measured_adversary(
            mechanism, samples=int(ADVERSARY_SAMPLES * (0.2 if quick else 1))
        )
        if attack is None:
            raise SystemExit(f"{mechanism_name} has no noisy point to attack")
        return {
            "words_kept": kept.value,
            "words_kept_low": kept.low,
            "words_kept_high": kept.high,
            "adversary": attack.success,
            "adversary_low": attack.low,
            "adversary_high": attack.high,
            "adversary_floor": attack.floor,
        }

    key = f"{VERSION}-figures-{mechanism_name}-{pack.name}-{epsilon:g}"
    return cached(CACHE, key, quick, compute)


def run(report: Report, *, quick: bool) -> None:
    from bench.packs import ensure_pack

    scale = QUICK if quick else 1.0
    tasks: list[Task] = []
    for use, make in USES.items():
        made = make(scale)
        print(f"   {use}: " + ", ".join(f"{t.domain} ({len(t.texts)})" for t in made), flush=True)
        tasks += made
    small = edgedp.load_pack()
    medium = ensure_pack("medium")
    madlib_grid = tuple(
        float(f"{equivalent_epsilon(medium, e, source='brr', target='madlib'):.2g}")
        for e in MADLIB_AS_BRR
    )
    grids: dict[str, tuple[edgedp.WordPack, tuple[float, ...]]] = {
        "BRR": (small, BRR_EPSILONS),
        "Madlib": (medium, madlib_grid),
    }
    if quick:
        grids = {name: (pack, grid[1::2]) for name, (pack, grid) in grids.items()}
    rows: list[dict[str, Any]] = []
    measured: dict[tuple[str, float], dict[str, Any]] = {}
    for mechanism_name, (pack, grid) in grids.items():
        for epsilon in grid:
            found = figures(mechanism_name, pack, epsilon, quick)
            measured[mechanism_name, epsilon] = found
            report.add(table=FIGURES, mechanism=mechanism_name, epsilon=epsilon, **found)
        for task in tasks:
            reference = _items(task.items(task.texts))
            floor = _items(task.items(input_ignoring(pack, task.texts, 3)))
            for epsilon in grid:
                result = point(task, mechanism_name, pack, epsilon, quick)
                share, low, high = kept_above_floor(task, result["items"], floor, reference)
                truth = task.truth
                row = {
                    "use": task.use,
                    "domain": task.domain,
                    "metric": task.metric,
                    "mechanism": mechanism_name,
                    "pack": pack.name,
                    "epsilon": epsilon,
                    "score": task.aggregate(np.asarray(result["items"], dtype=object), truth),
                    "floor": task.aggregate(np.asarray(floor, dtype=object), truth),
                    "reference": task.aggregate(np.asarray(reference, dtype=object), truth),
                    "kept_above_floor": share,
                    "kept_above_low": low,
                    "kept_above_high": high,
                    "kept_on_text": result["kept_text"],
                    "items": len(task.texts),
                    "held_out": task.held_out,
                }
                rows.append(row)
                report.add(table=TABLE, **row)
    report.sections += results_markdown(rows, measured)


def half_from(rows: list[dict[str, Any]]) -> float | None:
    """The smallest epsilon of one domain's rows keeping >= half the signal (None: never)."""
    useful = sorted(r["epsilon"] for r in rows if r["kept_above_floor"] >= HALF)
    return useful[0] if useful else None


def recommended(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (use, mechanism): the smallest epsilon keeping >= half the signal on every domain."""
    out = []
    for use in dict.fromkeys(row["use"] for row in rows):
        for mechanism in dict.fromkeys(row["mechanism"] for row in rows):
            mine = [r for r in rows if r["use"] == use and r["mechanism"] == mechanism]
            grid = sorted({r["epsilon"] for r in mine})
            by_epsilon = {e: [r for r in mine if r["epsilon"] == e] for e in grid}
            useful = [e for e in grid if all(r["kept_above_floor"] >= HALF for r in by_epsilon[e])]
            epsilon = useful[0] if useful else grid[-1]
            at = by_epsilon[epsilon]
            out.append(
                {
                    "use": use,
                    "mechanism": mechanism,
                    "epsilon": epsilon,
                    "met": bool(useful),
                    "lowest": bool(useful) and epsilon == grid[0],
                    "domains": at,
                    "weakest": min(at, key=lambda r: r["kept_above_floor"]),
                    "per_domain": {
                        r["domain"]: half_from([x for x in mine if x["domain"] == r["domain"]])
                        for r in at
                    },
                }
            )
    return out


def _epsilon_mark(row: dict[str, Any]) -> str:
    if not row["met"]:
        return f"> {row['epsilon']:g} (half never reached on every domain)"
    if row["lowest"]:
        return f"<= {row['epsilon']:g} (the grid's smallest)"
    return f"{row['epsilon']:g}"


def summary_table(
    rows: list[dict[str, Any]], measured: dict[tuple[str, float], dict[str, Any]]
) -> list[str]:
    """The recommendation table (the README's "Which epsilon" table is this one)."""
    lines = [
        "| use (domains) | mechanism | epsilon | words kept | adversary [95 %] | kept above the "
        "floor, weakest domain (all domains) |",
        "|---|---|---|---|---|---|",
    ]
    for row in recommended(rows):
        found = measured[row["mechanism"], row["epsilon"]]
        weakest = row["weakest"]
        shares = ", ".join(f"{r['kept_above_floor']:.2f}" for r in row["domains"])
        lines.append(
            f"| {row['use']} ({len(row['domains'])}) | {row['mechanism']} | "
            f"{_epsilon_mark(row)} | {100 * found['words_kept']:.0f} % | "
            f"{100 * found['adversary']:.0f} % [{100 * found['adversary_low']:.0f}, "
            f"{100 * found['adversary_high']:.0f}] | {weakest['kept_above_floor']:.2f} "
            f"{weakest['domain']} ({shares}) |"
        )
    return lines


def results_markdown(
    rows: list[dict[str, Any]], measured: dict[tuple[str, float], dict[str, Any]]
) -> list[str]:
    """The recommendations, the figures per epsilon and every domain's curve as Markdown (the
    suite's report ends with them)."""
    lines = [
        "## Which epsilon: measured recommendations",
        "",
        "`python -m bench epsilon` (bench/utility/epsilon.py and epsilon_tasks.py describe the "
        "data, tasks and floors). Recommended: the smallest epsilon of the grid that keeps at "
        "least half of the non-private signal above the input-ignoring floor on every domain of "
        "the use. Words kept: `edgedp explain`'s figure (Zipf-weighted over the vocabulary, each "
        "word released alone with the default decoder). Adversary: `edgedp explain`'s figure "
        "(the Bayes-optimal adversary who sees one noisy point names the input word, whole "
        "vocabulary, Zipf prior, 95 % Wilson interval; 8 % guessing the commonest word).",
        "",
        *summary_table(rows, measured),
        "",
        "### Words kept and the adversary per epsilon",
        "",
        "| mechanism | epsilon | words kept [95 %] | adversary [95 %] |",
        "|---|---|---|---|",
    ]
    for (mechanism, epsilon), found in measured.items():
        lines.append(
            f"| {mechanism} | {epsilon:g} | {100 * found['words_kept']:.0f} % "
            f"[{100 * found['words_kept_low']:.0f}, {100 * found['words_kept_high']:.0f}] | "
            f"{100 * found['adversary']:.0f} % [{100 * found['adversary_low']:.0f}, "
            f"{100 * found['adversary_high']:.0f}] |"
        )
    for row in recommended(rows):
        use, mechanism = row["use"], row["mechanism"]
        mine = [r for r in rows if r["use"] == use and r["mechanism"] == mechanism]
        grid = sorted({r["epsilon"] for r in mine})
        lines += [
            "",
            f"### {use}, {mechanism}: kept above the floor [95 %] (words kept on the running text)",
            "",
            "| domain | metric | floor | non-private | "
            + " | ".join(f"{e:g}" for e in grid)
            + " | half from |",
            "|---|---|---|---|" + "---|" * len(grid) + "---|",
        ]
        for domain in dict.fromkeys(r["domain"] for r in mine):
            cells = {r["epsilon"]: r for r in mine if r["domain"] == domain}
            first = cells[grid[0]]
            half = row["per_domain"].get(domain)
            lines.append(
                f"| {domain} | {first['metric']} | {first['floor']:.3f} | "
                f"{first['reference']:.3f} | "
                + " | ".join(
                    f"{c['kept_above_floor']:.2f} [{c['kept_above_low']:.2f}, "
                    f"{c['kept_above_high']:.2f}] ({100 * c['kept_on_text']:.0f} %)"
                    for c in (cells[e] for e in grid)
                )
                + f" | {'never' if half is None else f'{half:g}'} |"
            )
    counts = {(r["use"], r["domain"]): (r["items"], r["held_out"]) for r in rows}
    lines += [
        "",
        "Items and what the context decoder's language model saw: "
        + "; ".join(f"{d} {n} ({h})" for (_, d), (n, h) in counts.items())
        + ". BRR on words-small (decode=context), Madlib on the medium pack (decode=nearest). One "
        "seeded privatization per point: the intervals cover the choice of items, not the noise "
        "of the one privatization.",
    ]
    return lines
