"""Documents in eight languages: SubspaceMean with the multilingual pack, against the null release.

Protocol (``python -m bench multilingual``):

* **Tasks**, held out from every pack (the *test* split, 20 % by id hash, of each corpus of
  :mod:`edgedp_export.multilingual_corpora`; the packs read only the other splits):
  ``help modules``: the LibreOffice help pages of each language labelled by module (Writer, Calc,
  Impress, Draw, Base, Math, Chart, Basic): the same pages in en, es, de, fr, pt, it, ru and pl,
  so the task is exactly the same in every language; ``fortune topics``: fortune cookies four to
  a document, labelled by topic file, in en, es, de and ru (the languages with topic files; never
  Debian's reserved fortunes-it and fortunes-pl). Documents keep their first 12 sentences and need
  at least 2; topics of fewer than 10 documents are left out.
* **Encoders and packs**: ``subspace-multilingual`` (the multilingual Universal Sentence Encoder)
  in every language, and ``subspace-general`` (all-MiniLM-L6-v2, English only) in every language
  too: what an English-only pack makes of the language.
* **Measure**, as ``python -m bench domains``: logistic regression (standardized, C = 1) trained
  and tested on *released* embeddings (fresh noise per split), 5 stratified 60/40 splits, macro-F1.
  ``kept`` = (F1 - floor) / (F1 of the non-private mean - floor), where the floor is the same probe
  on a release that ignores the document (noise only): the share of the signal kept above the null
  release. SubspaceMean at epsilon 10 and 3 (pure epsilon-SentDP; seeded: NOT private, a
  benchmark).
* **Speed and memory**: a fresh process per encoder and tier loads the subspace pack and releases
  documents of six sentences, one document per call (every sentence encoded on its own, the DP
  path), on one thread; sentences/s (median of 3 passes) and the process's peak RSS (VmHWM), and
  the peak of a process that releases one document.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import warnings
from pathlib import Path

import numpy as np

import edgedp
from bench.harness import Report, run_python
from bench.utility.domains import floor_f1, macro_f1, mechanism_releases, splits
from edgedp.evaluation.task_probe import kept_above
from edgedp.text.sentences import split_sentences

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "assets"
CACHE = Path.home() / ".cache" / "edgedp-bench" / "multilingual"
EPSILONS = (10.0, 3.0)
PACKS = ("subspace-multilingual", "subspace-general")
LANGUAGES = ("en", "es", "de", "fr", "pt", "it", "ru", "pl")
FORTUNE_LANGUAGES = ("en", "es", "de", "ru")
MAX_SENTENCES = 12
MIN_SENTENCES = 2
MIN_CLASS = 10
SPEED_DOCUMENTS = 40
SPEED_SENTENCES = 6


def load(name: str) -> edgedp.SubspacePack:
    """A pack from ``assets/`` (the multilingual ones are not installed as wheels here)."""
    return edgedp.load_pack(ASSETS / name, kind="subspace")


def task_documents(language: str, task: str, quick: bool) -> tuple[list[list[str]], np.ndarray]:
    """The held-out documents (their sentences) and labels of one task in one language."""
    from edgedp_export.multilingual_corpora import (
        FORTUNE_TOPICS,
        libreoffice_help,
        translated_fortunes,
    )
    from edgedp_export.public_corpora import FORTUNE_FILES

    if task == "help modules":
        corpus = libreoffice_help(language)
        topics = None
    else:
        corpus = translated_fortunes(language)
        topics = FORTUNE_FILES if language == "en" else FORTUNE_TOPICS[language]
    documents, labels = [], []
    for document in corpus.split("test"):
        if document.label is None or (topics is not None and document.label not in topics):
            continue
        sentences = split_sentences(document.text)[:MAX_SENTENCES]
        if len(sentences) >= MIN_SENTENCES:
            documents.append(sentences)
            labels.append(document.label)
    pairs = list(zip(documents, labels, strict=True))[:: 4 if quick else 1]
    names, counts = np.unique([label for _, label in pairs], return_counts=True)
    kept = set(names[counts >= (3 if quick else MIN_CLASS)])
    pairs = [(d, label) for d, label in pairs if label in kept]
    return [d for d, _ in pairs], np.array([label for _, label in pairs])


def embedded(pack: edgedp.SubspacePack, key: str, documents: list[list[str]]) -> list[np.ndarray]:
    """Sentence embeddings of every document (batched: public text), cached by pack and input."""
    digest = hashlib.sha256(
        (pack.manifest.digest + key + json.dumps(documents)).encode()
    ).hexdigest()[:24]
    path = CACHE / f"{digest}.npz"
    if path.exists():
        with np.load(path) as stored:
            flat, sizes = stored["flat"], stored["sizes"]
    else:
        flat = pack.encoder.encode([s for document in documents for s in document])
        sizes = np.array([len(document) for document in documents])
        CACHE.mkdir(parents=True, exist_ok=True)
        np.savez(path.with_suffix(".partial.npz"), flat=flat, sizes=sizes)
        path.with_suffix(".partial.npz").replace(path)
    bounds = np.cumsum([0, *sizes])
    return [flat[bounds[i] : bounds[i + 1]] for i in range(len(sizes))]


def utility(report: Report, quick: bool) -> None:
    packs = {name: load(name) for name in PACKS}
    tasks = [("help modules", language) for language in LANGUAGES]
    tasks += [("fortune topics", language) for language in FORTUNE_LANGUAGES]
    for task, language in tasks:
        documents, labels = task_documents(language, task, quick)
        folds = splits(labels)
        floor = floor_f1(labels, folds)
        for name, pack in packs.items():
            sentences = embedded(pack, f"{task}/{language}", documents)
            plain = np.stack([s.mean(axis=0) for s in sentences]).astype(np.float64)
            reference = macro_f1(lambda _trial, plain=plain: plain, labels, folds)
            k = int(np.median([len(s) for s in sentences]))
            for epsilon in EPSILONS:

                def make(rng, pack=pack, epsilon=epsilon):
                    return edgedp.SubspaceMean(pack, epsilon=epsilon, rng=rng)

                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
                    f1 = macro_f1(mechanism_releases(make, sentences), labels, folds)
                report.add(
                    table="kept above the null release",
                    task=task,
                    language=language,
                    pack=name,
                    epsilon=epsilon,
                    documents=len(documents),
                    classes=len(set(labels)),
                    median_k=k,
                    floor=round(floor, 4),
                    non_private=round(reference, 4),
                    f1=round(f1, 4),
                    kept=_rounded(kept_above(f1, floor, reference)),
                )


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


_SPEED_CHILD = """
import json, os, sys, time, warnings
os.environ["EDGEDP_BACKEND"] = sys.argv[1]
import edgedp
documents = json.loads(sys.stdin.read())
pack = edgedp.load_pack(sys.argv[2], kind="subspace")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    mechanism = edgedp.SubspaceMean(pack, epsilon=10.0, rng=0)
    mechanism.release(documents[0])  # warm-up: the session or the weights built
    rates = []
    for _ in range(int(sys.argv[3])):
        start = time.perf_counter()
        for document in documents:
            mechanism.release(document)
        rates.append(sum(map(len, documents)) / (time.perf_counter() - start))
rates.sort()
print(json.dumps({"tier": pack.encoder.backend, "rate": rates[len(rates) // 2]}))
"""


def speed(report: Report, quick: bool) -> None:
    from edgedp_export.multilingual_corpora import libreoffice_help

    documents = []
    for language in LANGUAGES:
        corpus = libreoffice_help(language)
        pages = [split_sentences(d.text) for d in corpus.split("test")[: SPEED_DOCUMENTS * 2]]
        documents += [p[:SPEED_SENTENCES] for p in pages if len(p) >= SPEED_SENTENCES][
            : (2 if quick else SPEED_DOCUMENTS) // len(LANGUAGES) + 1
        ]
    payload = json.dumps(documents).encode()
    for name in PACKS:
        for tier in ("native", "numpy"):
            argv = ["-c", _SPEED_CHILD, tier, str(ASSETS / name), "1" if quick else "3"]
            run = run_python(argv, payload)
            one = run_python([*argv[:4], "1"], json.dumps(documents[:1]).encode())
            measured = json.loads(run.stdout.decode().splitlines()[-1])
            report.add(
                table="speed and memory",
                encoder="multilingual USE v3" if name == PACKS[0] else "all-MiniLM-L6-v2",
                pack=name,
                tier=measured["tier"],
                documents=len(documents),
                sentences_per_s=round(measured["rate"], 1),
                peak_rss_mib=round(run.peak_rss_mb, 1),
                one_document_peak_rss_mib=round(one.peak_rss_mb, 1),
                load_average=round(os.getloadavg()[0], 2),
            )


def run(report: Report, *, quick: bool) -> None:
    utility(report, quick)
    speed(report, quick)
    report.notes.append(
        "kept = (F1 - floor) / (non-private F1 - floor); the floor is the same probe on noise "
        "that ignores the document; non-private = the mean sentence embedding of the same encoder"
    )
    report.notes.append(
        "speed: one thread per process (BLAS and onnxruntime), one document per call; the "
        "machine is shared (2 cores, other jobs running), so the load average is shown and only "
        "ratios within one run mean much"
    )


if __name__ == "__main__":
    result = Report("multilingual", "--quick" in sys.argv)
    run(result, quick=result.quick)
    print(result.write(Path("bench/results")))
