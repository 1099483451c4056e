"""Decoders for the noisy word releases (issue 33): what post-processing buys at the same epsilon.

Per point (Madlib at epsilon 5, 10, 20 on the ``medium`` pack: the bundled vocabulary and codes
with float16 GloVe vectors; BRR at the epsilon ``edgedp calibrate --match kept`` gives for it) the
mechanism's noisy release of every document is drawn once (seeded), then decoded three ways
(``nearest``, ``map``, ``context`` with ``lm-general``), so the decoders see the same noise:

* **Downstream macro-F1** on two public tasks whose text ``lm-general`` never saw: BBC News topics
  (5 classes; every other document of the test split, of ~20 sentences each, and every fourth of the
  train split) and Debian fortunes (the fortune file, its 4 largest: songs-poems,
  politics, people, science; short texts of 2-5 sentences). TF-IDF (sublinear) over vocabulary ids and
  logistic regression, trained on the clean training documents and tested on the released test
  documents ("clean"), and trained and tested on released documents ("private"). **kept** = (F1 -
  floor) / (F1 of the clean text - floor), the floor being the same probe on documents of the same
  lengths drawn from ``lm-general``'s unigram distribution (a release that ignores the input).
* **Fluency**: per-token perplexity of each task's released test sentences under the *judge*
  bigram model (the train splits of BBC News and fortunes: text the decoder's model never saw, and
  not the test documents; :mod:`bench.utility.judge_lm`), against the clean text's; protected and
  out-of-vocabulary slots count as the unknown word for every row alike.
* **Words kept** (share of the test documents' vocabulary slots printed unchanged) and the
  empirical privacy of the mechanism *with the decoder* on isolated public words
  (:func:`edgedp.evaluation.explain.measure`: Zipf-weighted share kept, the Bayesian adversary's
  inference error E_M under a Zipf prior).
* **Speed**: words/s of ``privatize_batch`` on BBC text, one thread, each decoder against
  ``nearest`` in the same run.

Mechanisms run seeded: reproducible, NOT private (a benchmark). Rows are cached in :data:`CACHE`.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import edgedp
from bench.datasets import bbc_splits
from bench.harness import Report, cached, progress, threads
from bench.packs import ensure_pack
from bench.utility.judge_lm import judge_language_model
from bench.utility.product_reviews import seeded
from edgedp.evaluation.calibration import equivalent_epsilon
from edgedp.evaluation.explain import measure
from edgedp.evaluation.keep_rate import public_word_set
from edgedp.evaluation.matching import matched_epsilon
from edgedp.text.identifiers import DEFAULT_PROTECT
from edgedp.text.segmentation import segment
from edgedp.words.decoding import DEFAULT_CANDIDATES, PERTURBED, Decoder
from edgedp.words.language_model import LanguageModelPack, slot_sentences

CACHE = Path.home() / ".cache" / "edgedp-bench" / "decoding"
MADLIB_EPSILONS, QUICK_EPSILONS = (5.0, 10.0, 20.0), (10.0,)
DECODERS = ("nearest", "map", "context")
PRIVACY_WORDS, PRIVACY_SAMPLES = 200, 20
SPEED_DOCUMENTS = 40
#: The fortune files classified: the largest four (19 files, most of a few dozen cookies, give a
#: macro-F1 of 0.17 on clean text: too little signal to measure what a decoder keeps).
FORTUNE_CLASSES = 4
UTILITY = "downstream macro-F1, words kept and fluency per decoder (same noise)"
PRIVACY = "empirical privacy with the decoder (200 public words x 20 releases, words alone)"
SPEED = "speed: words/s of privatize_batch on BBC text, one thread"
EXAMPLES = "examples: the first BBC test sentence"


@dataclass
class Task:
    """A labelled public task: per split, each document's slot ids (-1: not a vocabulary word,
    or protected), its sentences (slot indices) and its text."""

    name: str
    texts: dict[str, list[str]]
    labels: dict[str, np.ndarray]
    slots: dict[str, list[np.ndarray]]
    sentences: dict[str, list[list[list[int]]]]


def _slot_ids(pack: edgedp.WordPack, text: str) -> tuple[np.ndarray, list[list[int]]]:
    """A text's slot ids as the mechanisms see them (the default guard's protected slots -1)."""
    segmented = segment(text, frozenset(DEFAULT_PROTECT))
    ids = pack.vocabulary.ids(segmented.words)
    ids[list(segmented.kinds)] = -1
    return ids, slot_sentences(segmented)


def load_task(name: str, pack: edgedp.WordPack, quick: bool) -> Task:
    """BBC News topics (train, test) or Debian fortunes by file (train, test)."""
    if name == "bbc":
        splits = bbc_splits()
        documents = {"train": splits["train"][::4], "test": splits["test"][::2]}
    else:
        from edgedp_export.public_corpora import fortunes

        corpus = fortunes()
        counts = Counter(document.label for document in corpus.split("train"))
        labels = {label for label, _ in counts.most_common(FORTUNE_CLASSES)}
        documents = {
            split: [document for document in corpus.split(split) if document.label in labels]
            for split in ("train", "test")
        }
    if quick:
        documents = {split: items[::6] for split, items in documents.items()}
    task = Task(name, {}, {}, {}, {})
    for split, items in documents.items():
        task.texts[split] = [document.text for document in items]
        task.labels[split] = np.array([document.label for document in items])
        parsed = [_slot_ids(pack, document.text) for document in items]
        task.slots[split] = [ids for ids, _ in parsed]
        task.sentences[split] = [sentences for _, sentences in parsed]
    return task


class Probe:
    """TF-IDF logistic regression over vocabulary ids (negative ids left out)."""

    def __init__(self, size: int, documents: list[np.ndarray], labels: np.ndarray) -> None:
        from sklearn.feature_extraction.text import TfidfTransformer
        from sklearn.linear_model import LogisticRegression

        self.size = size
        self.tfidf = TfidfTransformer(sublinear_tf=True).fit(self._matrix(documents))
        features = self.tfidf.transform(self._matrix(documents))
        self.model = LogisticRegression(max_iter=2000, C=10.0).fit(features, labels)

    def _matrix(self, documents: list[np.ndarray]):
        from scipy.sparse import csr_matrix

        kept = [ids[ids >= 0] for ids in documents]
        rows = np.repeat(np.arange(len(kept)), [len(ids) for ids in kept])
        values = np.ones(len(rows))
        return csr_matrix((values, (rows, np.concatenate(kept))), shape=(len(kept), self.size))

    def f1(self, documents: list[np.ndarray], labels: np.ndarray) -> float:
        from sklearn.metrics import f1_score

        predicted = self.model.predict(self.tfidf.transform(self._matrix(documents)))
        return float(f1_score(labels, predicted, average="macro"))


def _floor_documents(
    lm: LanguageModelPack, documents: list[np.ndarray], seed: int
) -> list[np.ndarray]:
    """Documents of the same lengths drawn from the public unigram: they ignore the input."""
    rng = np.random.default_rng(seed)
    weights = np.exp(lm.unigram(np.arange(lm.vocabulary_size)))
    weights /= weights.sum()
    return [rng.choice(lm.vocabulary_size, size=len(ids), p=weights) for ids in documents]


def _decode_documents(
    mechanism: edgedp.WordMechanism,
    decoders: dict[str, Decoder | None],
    task: Task,
    split: str,
) -> dict[str, list[np.ndarray]]:
    """Each document of ``split`` released once (seeded) and decoded by every decoder."""
    out: dict[str, list[np.ndarray]] = {name: [] for name in decoders}
    for text in task.texts[split]:
        # The in-process release every decoder of the mechanism reads (Madlib's float points are
        # not a release to send: noisy_release refuses them), decoded here three ways.
        release = mechanism._noisy_release(mechanism.space, [mechanism.segment(text)])
        for name, decoder in decoders.items():
            if decoder is None:  # nearest: the mechanism's own rule for BRR and Madlib
                fixed = release.fixed.copy()
                if len(release.points):
                    nearest = mechanism.space.nearest(release.points, 1)[1][:, 0]
                    fixed[fixed == PERTURBED] = nearest
                out[name].append(fixed)
            else:
                out[name].append(decoder.decode(release))
    return out


def _judge_sentences(task: Task, documents: list[np.ndarray]) -> list[list[int]]:
    """Sentences of slot ids of ``documents`` (the test split's, clean or released) for the judge
    model; a slot that was not a vocabulary word in the input is the unknown word in every row
    (the word a release puts there is drawn independently of the text: noise for every decoder)."""
    return [
        [int(ids[slot]) if truth[slot] >= 0 else -1 for slot in sentence]
        for ids, truth, document in zip(
            documents, task.slots["test"], task.sentences["test"], strict=True
        )
        for sentence in document
    ]


def decoding(lm: LanguageModelPack, decoder: str) -> dict:
    """A mechanism's keyword arguments for ``decoder`` with ``lm``."""
    return {} if decoder == "nearest" else {"decode": decoder, "language_model": lm}


def _points(pack: edgedp.WordPack, quick: bool) -> list[tuple[str, float, float]]:
    """(label, Madlib epsilon, BRR epsilon at calibrate --match kept) per point."""
    points = []
    for epsilon in QUICK_EPSILONS if quick else MADLIB_EPSILONS:

        def match(epsilon: float = epsilon) -> dict:
            start = equivalent_epsilon(pack, epsilon, source="madlib", target="brr")
            madlib = edgedp.Madlib(pack, epsilon=epsilon, rng=seeded(5))
            found = matched_epsilon(madlib, edgedp.BRR(pack, epsilon=start, rng=seeded(6)))
            return {"brr": found.epsilon}

        brr = cached(CACHE, f"match-{epsilon}", quick, match)["brr"]
        points.append((f"Madlib {epsilon:g}", epsilon, brr))
    return points


def utility(report: Report, pack, lm, judge, tasks: list[Task], quick: bool) -> None:
    """The F1, kept, words-kept and perplexity rows of every point, mechanism and decoder."""
    for label, madlib_epsilon, brr_epsilon in progress(_points(pack, quick), "points"):
        for name, epsilon in (("Madlib", madlib_epsilon), ("BRR", brr_epsilon)):
            cls = edgedp.Madlib if name == "Madlib" else edgedp.BRR
            space = cls(pack, epsilon=epsilon).space
            decoders: dict[str, Decoder | None] = {
                "nearest": None,
                **{
                    mode: Decoder(space, lm, mode=mode, candidates=DEFAULT_CANDIDATES)
                    for mode in ("map", "context")
                },
            }
            for task in tasks:

                def compute(
                    task: Task = task, cls=cls, epsilon: float = epsilon, decoders=decoders
                ) -> dict:
                    released = {
                        split: _decode_documents(
                            cls(pack, epsilon=epsilon, rng=seeded(21)), decoders, task, split
                        )
                        for split in ("train", "test")
                    }
                    return _scores(pack, lm, judge, task, released)

                key = f"{task.name}-{name}-{epsilon:.6g}-k{DEFAULT_CANDIDATES}"
                scores = cached(CACHE, key, quick, compute)
                for decoder in DECODERS:
                    report.add(
                        table=UTILITY,
                        task=task.name,
                        point=label,
                        mechanism=name,
                        epsilon=epsilon,
                        decoder=decoder,
                        **scores[decoder],
                        floor_clean=scores["floor_clean"],
                        floor_private=scores["floor_private"],
                        clean_f1=scores["clean_f1"],
                        clean_perplexity=scores["clean_perplexity"],
                    )


def _scores(pack, lm, judge, task: Task, released: dict[str, dict[str, list[np.ndarray]]]) -> dict:
    size = len(pack.vocabulary)
    clean = Probe(size, task.slots["train"], task.labels["train"])
    clean_f1 = clean.f1(task.slots["test"], task.labels["test"])
    floor_test = _floor_documents(lm, task.slots["test"], 1)
    floor_train = _floor_documents(lm, task.slots["train"], 2)
    floor_clean = clean.f1(floor_test, task.labels["test"])
    floor_private = Probe(size, floor_train, task.labels["train"]).f1(
        floor_test, task.labels["test"]
    )
    out: dict = {
        "clean_f1": clean_f1,
        "floor_clean": floor_clean,
        "floor_private": floor_private,
        "clean_perplexity": judge.perplexity(_judge_sentences(task, task.slots["test"])),
    }
    truth = np.concatenate(task.slots["test"])
    vocabulary = truth >= 0
    for decoder in DECODERS:
        test, train = released["test"][decoder], released["train"][decoder]
        f1_clean = clean.f1(test, task.labels["test"])
        f1_private = Probe(size, train, task.labels["train"]).f1(test, task.labels["test"])
        out[decoder] = {
            "words_kept": float((np.concatenate(test) == truth)[vocabulary].mean()),
            "f1_clean": f1_clean,
            "kept_clean": (f1_clean - floor_clean) / (clean_f1 - floor_clean),
            "f1_private": f1_private,
            "kept_private": (f1_private - floor_private) / (clean_f1 - floor_private),
            "perplexity": judge.perplexity(_judge_sentences(task, test)),
        }
    return out


def empirical_privacy(report: Report, pack, lm, quick: bool) -> None:
    """Share kept and E_M of each mechanism with each decoder, on isolated public words."""
    words = public_word_set(pack, PRIVACY_WORDS // (4 if quick else 1))
    for label, madlib_epsilon, brr_epsilon in _points(pack, quick):
        for name, epsilon in (("Madlib", madlib_epsilon), ("BRR", brr_epsilon)):
            for decoder in DECODERS:

                def compute(name: str = name, epsilon: float = epsilon, decoder: str = decoder):
                    cls = edgedp.Madlib if name == "Madlib" else edgedp.BRR
                    mechanism = cls(pack, epsilon=epsilon, rng=seeded(31), **decoding(lm, decoder))
                    stats = measure(mechanism, words, PRIVACY_SAMPLES, rng=seeded(32))
                    return {
                        "kept": stats["kept"].value,
                        "e_m_zipf": stats["error_zipf"].value,
                        "e_m_uniform": stats["error_uniform"].value,
                    }

                row = cached(CACHE, f"privacy-{name}-{epsilon:.6g}-{decoder}", quick, compute)
                report.add(
                    table=PRIVACY,
                    point=label,
                    mechanism=name,
                    epsilon=epsilon,
                    decoder=decoder,
                    **row,
                )


def speed(report: Report, pack, lm, task: Task, quick: bool) -> None:
    """words/s of privatize_batch per decoder, one thread, BRR at the Madlib 10 point."""
    texts = task.texts["test"][: SPEED_DOCUMENTS // (4 if quick else 1)]
    words = sum(len(segment(text).words) for text in texts)
    brr_epsilon = next(brr for label, madlib, brr in _points(pack, quick) if madlib == 10.0)
    for name, cls, epsilon in (("BRR", edgedp.BRR, brr_epsilon), ("Madlib", edgedp.Madlib, 10.0)):
        seconds = {}
        for decoder in DECODERS:
            mechanism = cls(pack, epsilon=epsilon, **decoding(lm, decoder))
            mechanism.privatize_batch(texts[:2])  # warm-up
            with threads(1):
                start = time.perf_counter()
                mechanism.privatize_batch(texts)
                seconds[decoder] = time.perf_counter() - start
        for decoder in DECODERS:
            report.add(
                table=SPEED,
                mechanism=name,
                decoder=decoder,
                words=words,
                words_per_second=words / seconds[decoder],
                ratio_to_nearest=seconds["nearest"] / seconds[decoder],
            )


def examples(report: Report, pack, lm, task: Task) -> None:
    """The first BBC test sentence, released at each point by each decoder (same noise)."""
    text = task.texts["test"][0].split("\n")[0]
    report.add(table=EXAMPLES, mechanism="input", decoder="-", text=text)
    for label, madlib_epsilon, brr_epsilon in _points(pack, quick=False)[:2]:
        for name, cls, epsilon in (
            ("Madlib", edgedp.Madlib, madlib_epsilon),
            ("BRR", edgedp.BRR, brr_epsilon),
        ):
            for decoder in DECODERS:
                mechanism = cls(pack, epsilon=epsilon, rng=seeded(41), **decoding(lm, decoder))
                report.add(
                    table=EXAMPLES,
                    mechanism=f"{name} ({label})",
                    decoder=decoder,
                    text=mechanism.privatize(text),
                )


def run(report: Report, *, quick: bool) -> None:
    pack = ensure_pack("medium")
    lm = edgedp.load_pack("lm-general", kind="lm")
    judge = judge_language_model(pack)
    tasks = [load_task(name, pack, quick) for name in ("bbc", "fortunes")]
    utility(report, pack, lm, judge, tasks, quick)
    empirical_privacy(report, pack, lm, quick)
    speed(report, pack, lm, tasks[0], quick)
    examples(report, pack, lm, tasks[0])
    report.notes.append(
        "kept_clean / kept_private = (F1 - floor) / (clean F1 - floor); floor: the same probe on "
        "documents of the same lengths drawn from lm-general's unigram distribution. Perplexity: "
        "the judge bigram model (BBC train + fortunes), never the decoder's."
    )
