"""Document-level utility of word mechanisms: the BRR paper's Sec. 6 setup on BBC News.

* Data: BBC News (5 topics) with ``edgedp_export.corpus``'s hash split, the split of every other
  benchmark. The *training* documents are privatized word by word (every vocabulary word replaced by
  the mechanism; out-of-vocabulary tokens carry no embedding and are left out of the features, for
  privatized and original documents alike), the classifier is trained on them and tested on the
  held-out *original* test documents, as in the paper. ``TRAIN_DOCUMENTS`` training documents (an
  even stride through the split, all topics) keep one trial to about a minute.
* Classifier: bag of embeddings, i.e. the mean GloVe vector (the pack's vectors) of a document's
  words, standardized, then logistic regression (the paper used fastText, a linear model on averaged
  embeddings that also learns them).
* Mechanisms: Madlib at epsilon in ``MADLIB_EPSILONS`` and BRR at the per-bit epsilon with the same
  average privacy-loss bound (privacy ratio, Sec. 5), both on the ``medium`` pack (the bundled
  pack's 100k words and codes plus float16 vectors). ``TRIALS`` independent privatizations each; the
  band is a 95 % t-interval over trials. The non-private line trains on the original documents.
* Membership inference (Shokri et al. 2017, as in the paper): the attacker trains a shadow model the
  way the target was trained (on documents privatized by the same mechanism and epsilon: every
  other test document), labels the shadow's output probability vectors on its own training
  documents "member" and on the remaining test documents "non-member", and fits an attack MLP
  (two hidden layers of 64 ReLU units). It then scores the target: members are original training
  documents of the target, non-members the validation split (never seen by either model); the
  figure is the attack's ROC AUC (0.5: no better than chance).

Mechanisms run with seeded random sources: reproducible, NOT private (a benchmark).
"""

from __future__ import annotations

import numpy as np

import edgedp
from bench.datasets import bbc_splits
from bench.harness import Report, figure, progress
from bench.packs import ensure_pack
from bench.utility.product_reviews import seeded
from edgedp.evaluation.calibration import privacy_ratio
from edgedp.text.segmentation import segment

MADLIB_EPSILONS = (2.0, 5.0, 10.0, 20.0, 40.0)
QUICK_EPSILONS = (10.0,)
TRIALS, QUICK_TRIALS = 3, 2
TRAIN_DOCUMENTS, QUICK_DOCUMENTS = 400, 60
TABLE = "BBC News topic accuracy, classifier trained on privatized documents"


class Corpus:
    """Vocabulary ids, labels and features of the BBC documents used here."""

    def __init__(self, pack: edgedp.WordPack, quick: bool) -> None:
        splits = bbc_splits()
        train = splits["train"]
        keep = QUICK_DOCUMENTS if quick else TRAIN_DOCUMENTS
        self.parts = {
            # evenly spread over the split (it is ordered by topic): every topic is represented
            "train": [
                train[i] for i in np.linspace(0, len(train) - 1, min(keep, len(train))).astype(int)
            ],
            "test": splits["test"][:: 4 if quick else 1],
            "validation": splits["validation"][:: 4 if quick else 1],
        }
        self.topics = sorted({doc.label for doc in splits["train"]})
        missing = set(self.topics) - {doc.label for doc in self.parts["train"]}
        if missing:
            raise SystemExit(f"document classification: no training documents of {sorted(missing)}")
        self.vectors = np.asarray(pack.vectors, dtype=np.float32)
        self.ids = {
            name: [self._ids(pack, d.text) for d in docs] for name, docs in self.parts.items()
        }
        self.labels = {
            name: np.array([self.topics.index(d.label) for d in docs])
            for name, docs in self.parts.items()
        }
        # alternate documents (the split is ordered by topic): both halves hold every topic
        self.shadow_in, self.shadow_out = self.ids["test"][0::2], self.ids["test"][1::2]

    @staticmethod
    def _ids(pack: edgedp.WordPack, text: str) -> np.ndarray:
        ids = pack.vocabulary.ids(segment(text).words)
        return ids[ids >= 0]

    def features(self, documents: list[np.ndarray]) -> np.ndarray:
        return np.stack([self.vectors[ids].mean(axis=0) for ids in documents])


def privatize(mechanism: edgedp.WordMechanism, documents: list[np.ndarray]) -> list[np.ndarray]:
    """Every word of every document through the mechanism, in one vectorized call."""
    released = mechanism.privatize_ids(np.concatenate(documents))
    return np.split(released, np.cumsum([len(d) for d in documents])[:-1])


def classifier(features: np.ndarray, labels: np.ndarray):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(features, labels)


def attack_features(model, features: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Shokri et al.'s attack input: the sorted probability vector and the true class's probability."""
    probabilities = model.predict_proba(features)
    ordered = -np.sort(-probabilities, axis=1)
    columns = np.searchsorted(model.classes_, labels)
    return np.hstack([ordered, probabilities[np.arange(len(labels)), columns][:, None]])


def membership_auc(target, corpus: Corpus, shadow_train: list[np.ndarray], seed: int) -> float:
    """AUC of a shadow-model attack against ``target`` (see the module docstring)."""
    from sklearn.metrics import roc_auc_score
    from sklearn.neural_network import MLPClassifier

    half = len(corpus.shadow_in)
    shadow_labels, out_labels = corpus.labels["test"][0::2], corpus.labels["test"][1::2]
    shadow = classifier(corpus.features(shadow_train), shadow_labels)
    x = np.vstack(
        [
            attack_features(shadow, corpus.features(corpus.shadow_in), shadow_labels),
            attack_features(shadow, corpus.features(corpus.shadow_out), out_labels),
        ]
    )
    y = np.r_[np.ones(half), np.zeros(len(out_labels))]
    attack = MLPClassifier((64, 64), max_iter=2000, random_state=seed).fit(x, y)
    members = np.random.default_rng(seed).permutation(len(corpus.ids["train"]))
    members = members[: len(corpus.ids["validation"])]
    scores = np.r_[
        attack.predict_proba(
            attack_features(
                target,
                corpus.features([corpus.ids["train"][i] for i in members]),
                corpus.labels["train"][members],
            )
        )[:, 1],
        attack.predict_proba(
            attack_features(
                target, corpus.features(corpus.ids["validation"]), corpus.labels["validation"]
            )
        )[:, 1],
    ]
    truth = np.r_[np.ones(len(members)), np.zeros(len(corpus.ids["validation"]))]
    return float(roc_auc_score(truth, scores))


def interval(values: list[float]) -> tuple[float, float, float]:
    """Mean and 95 % t-interval over trials (clipped to [0, 1])."""
    from scipy.stats import t

    mean = float(np.mean(values))
    if len(values) < 2:
        return mean, mean, mean
    half = float(t.ppf(0.975, len(values) - 1) * np.std(values, ddof=1) / np.sqrt(len(values)))
    return mean, max(0.0, mean - half), min(1.0, mean + half)  # accuracies and AUCs lie in [0, 1]


#: The sampling mechanisms beside Madlib and BRR (TEM-Hamming at BRR's per-bit epsilon).
SAMPLING = ("TEM", "TEM-Hamming", "SanText", "CusText")


def build(
    pack: edgedp.WordPack, name: str, epsilon: float, to_brr: float, rng: edgedp.RandomSource
) -> edgedp.WordMechanism:
    """The mechanism ``name`` at the epsilon matched to Madlib's ``epsilon``.

    CusText is plain epsilon-DP within output sets; it runs at Madlib's epsilon times the average
    distance between two words of a set (see bench.utility.product_reviews.sampling_curves).
    """
    if name == "Madlib":
        return edgedp.Madlib(pack, epsilon=epsilon, rng=rng)
    if name == "BRR":
        return edgedp.BRR(pack, epsilon=epsilon * to_brr, rng=rng)
    if name == "TEM":
        return edgedp.TEM(pack, epsilon=epsilon, rng=rng)
    if name == "TEM-Hamming":
        return edgedp.TEM(pack, epsilon=epsilon * to_brr, geometry="hamming", rng=rng)
    if name == "SanText":
        return edgedp.SanText(pack, epsilon=epsilon, rng=rng)
    from bench.utility.product_reviews import CUSTEXT_K, within_set_distance

    scale = _CUSTEXT_SCALE.setdefault(pack.name, within_set_distance(pack, CUSTEXT_K))
    return edgedp.CusText(pack, epsilon=epsilon * scale, k=CUSTEXT_K, rng=rng)


_CUSTEXT_SCALE: dict[str, float] = {}


def run(report: Report, *, quick: bool) -> None:
    pack = ensure_pack("quick" if quick else "medium")
    corpus = Corpus(pack, quick)
    test_features = corpus.features(corpus.ids["test"])
    y_train, y_test = corpus.labels["train"], corpus.labels["test"]
    baseline = classifier(corpus.features(corpus.ids["train"]), y_train)
    accuracy = float((baseline.predict(test_features) == y_test).mean())
    auc = membership_auc(baseline, corpus, corpus.shadow_in, seed=0)
    report.add(
        table=TABLE,
        mechanism="non-private",
        madlib_epsilon=None,
        epsilon=None,
        accuracy=accuracy,
        mia_auc=auc,
    )
    to_brr = privacy_ratio(pack, "madlib", "brr")
    trials = QUICK_TRIALS if quick else TRIALS
    settings = [
        (name, epsilon)
        for epsilon in (QUICK_EPSILONS if quick else MADLIB_EPSILONS)
        for name in ("Madlib", "BRR", *SAMPLING)
    ]
    for number, (name, epsilon) in enumerate(progress(settings, "document classification")):
        accuracies, aucs = [], []
        for trial in range(trials):
            seed = 1000 * number + trial
            mechanism = build(pack, name, epsilon, to_brr, seeded(seed))
            private_train = privatize(mechanism, corpus.ids["train"])
            model = classifier(corpus.features(private_train), y_train)
            accuracies.append(float((model.predict(test_features) == y_test).mean()))
            shadow_train = privatize(mechanism, corpus.shadow_in)
            aucs.append(membership_auc(model, corpus, shadow_train, seed=seed))
        mean, low, high = interval(accuracies)
        auc_mean, auc_low, auc_high = interval(aucs)
        report.add(
            table=TABLE,
            mechanism=name,
            madlib_epsilon=epsilon,
            epsilon=mechanism.epsilon,
            accuracy=mean,
            accuracy_ci=[low, high],
            mia_auc=auc_mean,
            mia_auc_ci=[auc_low, auc_high],
            trials=trials,
        )
    sizes = {name: len(docs) for name, docs in corpus.parts.items()}
    report.notes.append(
        f"BBC classification: {sizes['train']} training documents (privatized), {sizes['test']} "
        f"test documents (original; every other one also trains the attacker's shadow model), "
        f"{sizes['validation']} validation documents (membership-attack non-members); pack "
        f"{pack.name} ({len(pack.vocabulary):,} words); BRR epsilon = {to_brr:.4f} x Madlib "
        "epsilon per bit (average privacy ratio)."
    )
    _plot(report)


def _plot(report: Report) -> None:
    rows = report.table(TABLE)
    fig, axes = figure(1, 2, (12, 4.5))
    baseline = next(r for r in rows if r["mechanism"] == "non-private")
    for axis, key, label in (
        (axes[0][0], "accuracy", "test accuracy (original documents)"),
        (axes[0][1], "mia_auc", "membership-inference AUC"),
    ):
        for name, colour in (("Madlib", "tab:blue"), ("BRR", "tab:orange")):
            series = [r for r in rows if r["mechanism"] == name]
            x = [r["madlib_epsilon"] for r in series]
            y = [r[key] for r in series]
            low = [r[f"{'accuracy' if key == 'accuracy' else 'mia_auc'}_ci"][0] for r in series]
            high = [r[f"{'accuracy' if key == 'accuracy' else 'mia_auc'}_ci"][1] for r in series]
            axis.plot(x, y, "o-", color=colour, label=name)
            axis.fill_between(x, low, high, color=colour, alpha=0.2)
        axis.axhline(baseline[key], color="black", linestyle="--", label="non-private")
        axis.set_xscale("log")
        axis.set_xlabel("Madlib epsilon (BRR at the matched per-bit epsilon)")
        axis.set_ylabel(label)
        axis.grid(alpha=0.3)
        axis.legend()
    axes[0][1].axhline(0.5, color="grey", linewidth=0.8)
    axes[0][0].set_title("BBC News, bag-of-embeddings classifier")
    report.figures["document_classification.png"] = fig
