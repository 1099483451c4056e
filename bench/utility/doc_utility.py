"""SentDP Figure 4 on BBC News: macro-F1 of topic classification from private document embeddings.

Protocol (SentDP Sec. 5 and App. A.3, with the bundled ``sentences-bbc`` pack):
* Split: the pack's own split of BBC News by document id (70 % train, 10 % validation: public, the
  pack was built from them; 20 % test: the *private* documents, never seen by the pack).
* Classifiers are trained on non-private embeddings of the public train split and evaluated on the
  private test split (logistic regression on standardized features; C chosen on validation):
  - non-private: mean sentence embedding (encoder G) -> C_nonpriv;
  - DeepCandidate: the released candidate -> C_dc, trained on mean recoded embeddings (H o G);
    the number of projections is the pack's recommendation for each epsilon;
  - Truncation: clipped mean + Laplace noise -> C_trunc, trained on clipped means;
  - word-level metric DP: every word privatized with BRR on the bundled words pack, then the mean
    sentence embedding -> C_nonpriv. BRR's epsilon is per bit; to put it on the same axis its
    per-bit epsilon is epsilon / 256, so that *any* two vocabulary words are epsilon-
    indistinguishable (a per-word guarantee, still much weaker than SentDP: it composes over the
    words of a sentence). One extra row runs BRR at 1.0 per bit (a typical BRR setting);
    Word-level runs on every 2nd test document (it re-encodes all privatized text);
  - random guess: predicts class i with the training frequency q_i; its expected per-class F1 is
    q_i, so its macro-F1 is 1 / classes (its accuracy, SentDP's sum of q_i^2, is noted too);
  - deepest candidate (NOT private): uniform among the deepest candidates (epsilon -> infinity),
    the ceiling of DeepCandidate.
* Sweep epsilon in {1, 3, 6, 10, 23, 30} on whole documents, and the number of sentences k at
  epsilon = 10: the first k sentences of the test documents that have at least k sentences.
* Mechanisms run with seeded sources (reproducible, NOT private: a benchmark), 5 trials (word-level:
  1, it re-encodes every privatized document); mean and standard deviation of macro-F1.

Sentence embeddings of BBC are cached under ``~/.cache/edgedp-bench`` (keyed by the pack digest).
Needs scikit-learn and matplotlib (bench/requirements.txt).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np

import edgedp
from bench.datasets import bbc_splits
from bench.harness import Report, figure
from edgedp.documents.baselines import mean_rows
from edgedp.text.sentences import split_sentences

PACK = "sentences-bbc"
EPSILONS = (1.0, 3.0, 6.0, 10.0, 23.0, 30.0)
K_VALUES = (2, 4, 6, 8, 12, 16, 24, 32)
K_EPSILON = 10.0
BRR_BITS_PER_WORD = 256
TRIALS = 5
DEEPEST = "deepest candidate (NOT private)"
WORD_LEVEL = f"word-level BRR (eps/{BRR_BITS_PER_WORD} per bit)"
WORD_LEVEL_REFERENCE = "word-level BRR (1.0 per bit)"
#: Plot order and colours (tab10), so that both panels agree.
MECHANISMS = (
    "non-private",
    "DeepCandidate",
    DEEPEST,
    "Truncation",
    WORD_LEVEL,
    WORD_LEVEL_REFERENCE,
    "random guess",
)
#: The word-level baseline re-encodes privatized text: every 2nd test document only.
WORD_LEVEL_STRIDE = 2
QUICK_SENTENCES = 8
CACHE = Path.home() / ".cache" / "edgedp-bench"


def _embed(pack: edgedp.SentencePack, name: str, sentences: list[list[str]]) -> list[np.ndarray]:
    """Per document sentence embeddings, cached on disk."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"{pack.manifest.digest[:16]}-{name}.npz"
    sizes = np.array([len(doc) for doc in sentences])
    if path.exists():
        cached = np.load(path)
        if np.array_equal(cached["sizes"], sizes):
            return np.split(cached["embeddings"], np.cumsum(sizes)[:-1])
    flat = [s for doc in sentences for s in doc]
    embeddings = np.concatenate(
        [pack.encoder.encode(flat[i : i + 512]) for i in range(0, len(flat), 512)]
        or [np.empty((0, pack.dims), np.float32)]
    )
    temporary = path.with_suffix(f".tmp-{os.getpid()}.npz")  # suites may run at once: no torn file
    np.savez(temporary, embeddings=embeddings, sizes=sizes)
    temporary.replace(path)
    return np.split(embeddings, np.cumsum(sizes)[:-1])


class Classifier:
    """Logistic regression on standardized features, C chosen on the validation split."""

    def __init__(self, train: tuple, validation: tuple) -> None:
        from sklearn.linear_model import LogisticRegression
        from sklearn.metrics import f1_score
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        best = None
        for c in (0.01, 0.1, 1.0):
            model = make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=3000))
            model.fit(*train)
            score = f1_score(validation[1], model.predict(validation[0]), average="macro")
            if best is None or score > best[0]:
                best = (score, model)
        self.model = best[1]
        self._f1 = f1_score

    def macro_f1(self, features: np.ndarray, labels: np.ndarray) -> float:
        return float(self._f1(labels, self.model.predict(features), average="macro"))


def _seeded(seed: int) -> edgedp.RandomSource:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        return edgedp.RandomSource.seeded(seed)


def _scores(values: list[float]) -> dict[str, float]:
    return {"macro_f1": float(np.mean(values)), "std": float(np.std(values)), "trials": len(values)}


def run(report: Report, *, quick: bool) -> None:
    pack = edgedp.load_pack(PACK)
    splits = bbc_splits()
    if quick:  # a plumbing check: few documents, at most QUICK_SENTENCES sentences each
        strides = {"train": 60, "validation": 10, "test": 30}
        splits = {name: docs[:: strides[name]] for name, docs in splits.items()}
    topics = sorted({doc.label for doc in splits["train"]})
    labels = {
        name: np.array([topics.index(d.label) for d in docs]) for name, docs in splits.items()
    }
    cap = QUICK_SENTENCES if quick else None
    sentences = {
        name: [split_sentences(d.text)[:cap] for d in docs] for name, docs in splits.items()
    }
    stride = 3 if quick else WORD_LEVEL_STRIDE
    tag = "quick-" if quick else ""
    sbert = {name: _embed(pack, f"{tag}{name}", sentences[name]) for name in splits}
    recoded = {name: [pack.recoder.recode(doc) for doc in sbert[name]] for name in splits}
    trials = 1 if quick else TRIALS
    epsilons = (1.0, 10.0) if quick else EPSILONS

    truncation_reference = edgedp.Truncation(pack, epsilon=1.0)
    features = {
        "sentence": {n: mean_rows(sbert[n], pack.dims) for n in splits},
        "recoded": {n: mean_rows(recoded[n], pack.dims) for n in splits},
        "clipped": {
            n: np.stack([truncation_reference.clipped_mean(d) for d in sbert[n]]) for n in splits
        },
    }
    classifiers = {
        space: Classifier(
            (features[space]["train"], labels["train"]),
            (features[space]["validation"], labels["validation"]),
        )
        for space in features
    }
    frequencies = np.bincount(labels["train"], minlength=len(topics)) / len(labels["train"])
    random_f1 = 1 / len(topics)
    y = labels["test"]

    def evaluate(sweep: str, value: float | int, docs: np.ndarray, k: int | None) -> None:
        """Every mechanism on the test documents ``docs``, using their first k sentences."""
        take = slice(None) if k is None else slice(0, k)
        epsilon = value if sweep == "epsilon" else K_EPSILON
        sentence_docs = [sbert["test"][i][take] for i in docs]
        recoded_docs = [recoded["test"][i][take] for i in docs]
        truth = y[docs]
        common = {"sweep": sweep, "epsilon": epsilon, "k": "all" if k is None else k}
        common["documents"] = len(docs)
        nonprivate = classifiers["sentence"].macro_f1(mean_rows(sentence_docs, pack.dims), truth)
        report.add(**common, mechanism="non-private", **_scores([nonprivate]))
        projections = pack.projections_for(epsilon)
        mechanism = edgedp.DeepCandidate(
            pack, epsilon=epsilon, projections=projections, rng=_seeded(1)
        )
        depths = np.stack([mechanism.depths(doc) for doc in recoded_docs])
        scores = mechanism.coefficient * depths.astype(np.float64)
        runs = []
        for _ in range(trials):
            chosen = mechanism.rng.choice_from_log_weights(scores)
            runs.append(classifiers["recoded"].macro_f1(np.asarray(pack.candidates[chosen]), truth))
        report.add(**common, mechanism="DeepCandidate", projections=projections, **_scores(runs))
        deepest = np.where(depths == depths.max(axis=1, keepdims=True), 0.0, -np.inf)
        runs = [
            classifiers["recoded"].macro_f1(
                np.asarray(pack.candidates[mechanism.rng.choice_from_log_weights(deepest)]), truth
            )
            for _ in range(trials)
        ]
        report.add(**common, mechanism=DEEPEST, **_scores(runs))
        truncation = edgedp.Truncation(pack, epsilon=epsilon, rng=_seeded(2))
        runs = [
            classifiers["clipped"].macro_f1(truncation.release_embeddings(sentence_docs), truth)
            for _ in range(trials)
        ]
        report.add(**common, mechanism="Truncation", **_scores(runs))
        subset = docs[docs % stride == 0]
        for label, per_bit in word_level_settings(epsilon):
            embedded = privatized(per_bit)
            word_docs = mean_rows([embedded[i][take] for i in subset], pack.dims)
            f1 = classifiers["sentence"].macro_f1(word_docs, y[subset])
            report.add(**common | {"documents": len(subset)}, mechanism=label, **_scores([f1]))
        report.add(**common, mechanism="random guess", **_scores([random_f1]))

    words_pack = edgedp.load_pack()
    privatized_cache: dict[float, dict[int, np.ndarray]] = {}

    def privatized(per_bit: float) -> dict[int, np.ndarray]:
        """Sentence embeddings of the BRR-privatized test documents (every ``stride``-th)."""
        if per_bit not in privatized_cache:
            brr = edgedp.BRR(words_pack, epsilon=per_bit, rng=_seeded(3))
            chosen = range(0, len(splits["test"]), stride)
            private = edgedp.WordLevelEmbedding(pack, brr).privatized_sentences_batch(
                [splits["test"][i].text for i in chosen]
            )
            private = [doc[:cap] for doc in private]
            flat = [s for doc in private for s in doc]
            embedded = np.split(
                pack.encoder.encode(flat), np.cumsum([len(d) for d in private])[:-1]
            )
            privatized_cache[per_bit] = dict(zip(chosen, embedded, strict=True))
        return privatized_cache[per_bit]

    def word_level_settings(epsilon: float) -> list[tuple[str, float]]:
        settings = [(WORD_LEVEL, epsilon / BRR_BITS_PER_WORD)]
        if epsilon == K_EPSILON:
            settings.append((WORD_LEVEL_REFERENCE, 1.0))
        return settings

    everything = np.arange(len(y))
    for epsilon in epsilons:
        evaluate("epsilon", epsilon, everything, None)
    lengths = np.array([len(doc) for doc in sbert["test"]])
    for k in (2, 8) if quick else K_VALUES:
        evaluate("k", k, np.flatnonzero(lengths >= k), k)

    report.notes.append(
        f"BBC News: {len(splits['train'])} train / {len(splits['validation'])} validation "
        f"(public) / {len(splits['test'])} test (private) documents; {len(topics)} topics; "
        f"pack candidates m = {len(pack.candidates)} (the paper used 5,000)."
    )
    report.notes.append(
        f"random guess: macro-F1 1/{len(topics)} = {random_f1:.3f}; its accuracy "
        f"(sum of q_i^2) = {float(np.sum(frequencies**2)):.3f}."
    )
    report.sections += _pivot(report.rows)
    report.figures["doc-utility.png"] = _plot(report.rows)


def _pivot(rows: list[dict]) -> list[str]:
    """Markdown tables: mechanism x epsilon, mechanism x k."""
    lines = []
    for sweep, key in (("epsilon", "epsilon"), ("k", "k")):
        chosen = [row for row in rows if row["sweep"] == sweep]
        columns = list(dict.fromkeys(row[key] for row in chosen))
        mechanisms = [name for name in MECHANISMS if any(r["mechanism"] == name for r in chosen)]
        title = "epsilon" if sweep == "epsilon" else f"k (epsilon = {K_EPSILON:g})"
        lines += [f"macro-F1 (mean ± std over trials) by {title}:", ""]
        lines.append("| mechanism | " + " | ".join(str(c) for c in columns) + " |")
        lines.append("|---|" + "---|" * len(columns))
        for mechanism in mechanisms:
            cells = []
            for column in columns:
                match = [r for r in chosen if r["mechanism"] == mechanism and r[key] == column]
                cells.append(
                    f"{match[0]['macro_f1']:.3f} ± {match[0]['std']:.3f}"
                    if match and match[0]["trials"] > 1
                    else f"{match[0]['macro_f1']:.3f}"
                    if match
                    else ""
                )
            lines.append(f"| {mechanism} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines


def _plot(rows: list[dict]):
    import matplotlib.pyplot as plt

    fig, grid = figure(1, 2, (12, 4.5))
    axes = grid[0]
    colours = dict(zip(MECHANISMS, plt.get_cmap("tab10").colors, strict=False))
    for axis, (sweep, key) in zip(axes, (("epsilon", "epsilon"), ("k", "k")), strict=True):
        chosen = [row for row in rows if row["sweep"] == sweep]
        for mechanism in MECHANISMS:
            series = [row for row in chosen if row["mechanism"] == mechanism]
            if not series:
                continue
            x = [row[key] for row in series]
            mean = np.array([row["macro_f1"] for row in series])
            std = np.array([row["std"] for row in series])
            style = "--" if "NOT private" in mechanism or mechanism == "non-private" else "-"
            colour = colours[mechanism]
            axis.plot(x, mean, style, marker="o", color=colour, label=mechanism)
            axis.fill_between(x, mean - std, mean + std, alpha=0.2, color=colour)
        axis.set_xlabel(
            "epsilon" if sweep == "epsilon" else f"sentences k (epsilon = {K_EPSILON:g})"
        )
        axis.set_ylabel("test macro-F1")
        axis.set_ylim(0, 1)
        axis.grid(alpha=0.3)
    axes[0].set_xscale("log")
    axes[0].set_xticks(EPSILONS, [f"{e:g}" for e in EPSILONS])
    axes[0].set_title("BBC News: sweep epsilon")
    axes[1].set_title("BBC News: sweep k")
    axes[1].legend(fontsize=8, loc="lower right")
    return fig
