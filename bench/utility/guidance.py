"""Guidance for choosing epsilon, and the cost of the identifier guard (issue 16).

1. **Keep-rate tables**: for every word mechanism, the words-kept figure
   (:func:`edgedp.evaluation.keep_rate.words_kept`, the one ``edgedp explain`` prints) and the
   Bayesian adversary's inference error E_M (Zipf prior) on the same releases, at a grid of
   epsilons, on the bundled pack (Hamming mechanisms) and on the medium float pack (all
   mechanisms). 200 public words x 20 releases per point.
2. **Tuned epsilons**: :func:`edgedp.evaluation.tune.tune` for keep 0.25, 0.5 and 0.75 per
   mechanism, with the estimate's interval.
3. **The privatize warning's cost**: one short message through BRR, against the first (uncached)
   and a cached :func:`edgedp.evaluation.keep_rate.keep_warning`, same process, medians.
4. **The identifier guard's utility cost**: BBC topic accuracy (the classifier of
   :mod:`bench.utility.document_classification`, trained on privatized documents, tested on originals)
   with and without the guard, where protected slots are removed from the training documents as
   that benchmark removes out-of-vocabulary tokens (``oov="drop"``); and the share of the Product
   Reviews lexicon (:mod:`bench.utility.product_reviews`) the guard would protect, the upper bound of its
   effect there (that benchmark releases lexicon words by id; a protected word would be released
   as a uniform word instead).

The medium pack: ``EDGEDP_MEDIUM_PACK=DIR`` (built with ``edgedp-export words --preset medium``),
else the bench's own (:func:`bench.packs.ensure_pack`, built once, about two minutes).
"""

from __future__ import annotations

import os
import warnings

import numpy as np

import edgedp
from bench.harness import Report, median_seconds, progress
from edgedp.evaluation.explain import measure, rebuild
from edgedp.evaluation.keep_rate import (
    clear_keep_cache,
    keep_warning,
    public_releases,
    public_word_set,
)
from edgedp.evaluation.tune import tune
from edgedp.text.identifiers import PROTECT_KINDS, check_protect
from edgedp.text.segmentation import segment

HAMMING_EPSILONS = (0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 0.9, 1.0)
EUCLIDEAN_EPSILONS = (2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 15.0, 20.0, 30.0)
QUICK_HAMMING, QUICK_EUCLIDEAN = (0.5, 0.7), (10.0,)
KEEP_TARGETS = (0.25, 0.5, 0.75)
WORDS, SAMPLES = 200, 20
BBC_TRIALS, BBC_DOCUMENTS = 2, 120
BBC_EPSILONS = (10.0,)
KEEP = "share of words kept unchanged (Zipf-weighted) and E_M (Zipf prior) by epsilon"
TUNED = "epsilon tuned for a target share kept"
WARNING = "privatize: cost of the keep-rate warning"
GUARD = "identifier guard: BBC topic accuracy with and without"


def _seeded(seed: int) -> edgedp.RandomSource:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        return edgedp.RandomSource.seeded(seed)


def mechanisms(pack: edgedp.WordPack, float_pack: bool) -> list[tuple[str, edgedp.WordMechanism]]:
    """(label, mechanism at a placeholder epsilon) for every word mechanism the pack supports."""
    out: list[tuple[str, edgedp.WordMechanism]] = [
        ("BRR", edgedp.BRR(pack, epsilon=1.0)),
        ("Vickrey hamming t=0.5", edgedp.Vickrey(pack, epsilon=1.0, t=0.5, geometry="hamming")),
        (
            "GeneralizedVickrey hamming (0,0.05,0.1)",
            edgedp.GeneralizedVickrey(
                pack, epsilon=1.0, weights=[0, 0.05, 0.1], geometry="hamming"
            ),
        ),
    ]
    if float_pack:
        out += [
            ("Madlib", edgedp.Madlib(pack, epsilon=1.0)),
            ("Mahalanobis lam=0.2", edgedp.Mahalanobis(pack, epsilon=1.0, lam=0.2)),
            ("Vickrey euclidean t=0.5", edgedp.Vickrey(pack, epsilon=1.0, t=0.5)),
            (
                "GeneralizedVickrey euclidean (0,1,2)",
                edgedp.GeneralizedVickrey(pack, epsilon=1.0, weights=[0, 1, 2]),
            ),
        ]
    return out


def _medium() -> edgedp.WordPack:
    path = os.environ.get("EDGEDP_MEDIUM_PACK")
    if path:
        return edgedp.load_pack(path)
    from bench.packs import ensure_pack

    return ensure_pack("medium")


def keep_packs(quick: bool) -> list[tuple[str, edgedp.WordPack, bool]]:
    """(label, pack, has float vectors) of the keep-rate tables."""
    packs = [("words-small", edgedp.load_pack(), False)]
    if not quick:
        packs.append(("medium", _medium(), True))
    return packs


def _grid(label: str, quick: bool) -> tuple[float, ...]:
    hamming = "hamming" in label.lower() or label == "BRR"
    if quick:
        return QUICK_HAMMING if hamming else QUICK_EUCLIDEAN
    return HAMMING_EPSILONS if hamming else EUCLIDEAN_EPSILONS


def keep_table(report: Report, quick: bool) -> None:
    """Words kept (``edgedp explain``'s figure, :func:`~edgedp.evaluation.keep_rate.words_kept`)
    and E_M on the same releases, per mechanism and epsilon."""
    for pack_label, pack, floats in keep_packs(quick):
        words = public_word_set(pack, WORDS)
        for label, base in mechanisms(pack, floats):
            for epsilon in progress(_grid(label, quick), f"{pack_label} {label}"):
                mechanism = rebuild(base, _seeded(1), epsilon=epsilon)
                outputs = public_releases(mechanism, words, SAMPLES)
                stats = measure(mechanism, words, SAMPLES, rng=_seeded(2), outputs=outputs)
                report.add(
                    table=KEEP,
                    pack=pack_label,
                    mechanism=label,
                    epsilon=epsilon,
                    kept=stats["kept"].value,
                    kept_ci=[stats["kept"].low, stats["kept"].high],
                    inference_error_zipf=stats["error_zipf"].value,
                    inference_error_ci=[stats["error_zipf"].low, stats["error_zipf"].high],
                    distinct_outputs=stats["distinct"].value,
                )
    report.notes.append(
        f"Keep and E_M: {WORDS} public alphabetic vocabulary words at geometric frequency ranks, "
        f"{SAMPLES} releases each on the public stream of edgedp.evaluation.keep_rate.words_kept "
        "(the figure `edgedp explain` prints), Zipf weights (text-like); intervals 95 %."
    )


def tuned_table(report: Report, quick: bool) -> None:
    """The epsilons :func:`~edgedp.evaluation.tune.tune` finds for each target share kept."""
    for pack_label, pack, floats in keep_packs(quick):
        for label, base in mechanisms(pack, floats):
            hamming = _grid(label, False) is HAMMING_EPSILONS
            for target in KEEP_TARGETS if not quick else (0.5,):
                start = 0.5 if hamming else 10.0
                result = tune(rebuild(base, None, epsilon=start), keep=target)
                estimate = result.estimate or result.kept
                report.add(
                    table=TUNED,
                    pack=pack_label,
                    mechanism=label,
                    keep=target,
                    epsilon=result.epsilon,
                    estimate=estimate.value,
                    estimate_ci=[estimate.low, estimate.high],
                    evaluations=len(result.evaluations),
                    stopped=result.stopped,
                )
    report.notes.append(
        "Tuning: edgedp.evaluation.tune.tune (150 words x 20 releases, bisection in log epsilon)."
    )


def warning_cost(report: Report) -> None:
    pack = edgedp.load_pack()
    brr = edgedp.BRR(pack, epsilon=0.6)
    message = "Patient Jane Zorbulak was admitted on 12 March with chest pain."
    release = median_seconds(lambda: brr.privatize(message), repeats=20)

    def uncached() -> None:
        clear_keep_cache()
        keep_warning(brr)

    first = median_seconds(uncached, repeats=5)
    cached = median_seconds(lambda: keep_warning(brr), repeats=20)
    for what, seconds in (
        ("privatize one message (baseline)", release),
        ("keep_warning, first call (uncached)", first),
        ("keep_warning, cached", cached),
    ):
        report.add(table=WARNING, what=what, ms=seconds * 1e3, ratio_to_message=seconds / release)
    report.notes.append(
        "The CLI computes the warning once per process (cached per pack digest and parameters)."
    )


#: The guards whose utility cost is measured (issue 27: the name guards beside the identifiers).
GUARDS = {
    "identifiers": ("identifiers",),
    "identifiers,names": ("identifiers", "names"),
    "identifiers,proper-nouns": ("identifiers", "proper-nouns"),
    "all": PROTECT_KINDS,
}


def guard_cost(report: Report, quick: bool) -> None:
    from bench.datasets import opinion_lexicon
    from bench.utility import document_classification as dc
    from edgedp.evaluation.calibration import privacy_ratio

    lexicon = opinion_lexicon()
    for guard_name, kinds in GUARDS.items():
        guard = check_protect(kinds)
        protected = sum(bool(segment(word, guard).protected) for word in lexicon)
        report.add(
            table="identifier guard: Product Reviews lexicon words it protects",
            guard=guard_name,
            words=len(lexicon),
            protected=protected,
            share=protected / len(lexicon),
        )
    pack = _medium() if not quick else edgedp.load_pack()
    if pack.vectors is None:
        report.notes.append("BBC guard cost needs a float pack: skipped in --quick")
        return
    dc.TRAIN_DOCUMENTS = BBC_DOCUMENTS  # reduced size (the full benchmark: 400, 13-22 min)
    corpus = dc.Corpus(pack, quick)
    trainings = {"off": corpus.ids["train"]}
    for guard_name, kinds in GUARDS.items():
        guard = check_protect(kinds)
        trainings[guard_name] = [
            _guarded_ids(pack, document.text, guard) for document in corpus.parts["train"]
        ]
        share = 1 - sum(map(len, trainings[guard_name])) / sum(map(len, corpus.ids["train"]))
        report.notes.append(
            f"BBC guard cost: --protect {guard_name} removes {share:.1%} of the training words"
        )
    test_features = corpus.features(corpus.ids["test"])
    y_train, y_test = corpus.labels["train"], corpus.labels["test"]
    to_brr = privacy_ratio(pack, "madlib", "brr")
    for name in ("Madlib", "BRR"):
        for epsilon in BBC_EPSILONS:
            for label, documents in trainings.items():
                accuracies = []
                for trial in range(BBC_TRIALS):
                    rng = _seeded(100 * trial + int(epsilon))
                    mechanism = (
                        edgedp.Madlib(pack, epsilon=epsilon, rng=rng)
                        if name == "Madlib"
                        else edgedp.BRR(pack, epsilon=epsilon * to_brr, rng=rng)
                    )
                    model = dc.classifier(
                        corpus.features(dc.privatize(mechanism, documents)), y_train
                    )
                    accuracies.append(float((model.predict(test_features) == y_test).mean()))
                mean, low, high = dc.interval(accuracies)
                report.add(
                    table=GUARD,
                    mechanism=name,
                    madlib_epsilon=epsilon,
                    guard=label,
                    accuracy=mean,
                    accuracy_ci=[low, high],
                    trials=BBC_TRIALS,
                )
    report.notes.append(
        f"BBC guard cost: {len(corpus.parts['train'])} training documents (reduced from 400), "
        f"{len(corpus.parts['test'])} test documents; protected slots are released as "
        "out-of-vocabulary slots and left out of the training documents."
    )


def _guarded_ids(pack: edgedp.WordPack, text: str, guard: frozenset[str]) -> np.ndarray:
    segmented = segment(text, guard)
    ids = pack.vocabulary.ids(segmented.words)
    ids[list(segmented.protected)] = -1
    return ids[ids >= 0]


def run(report: Report, *, quick: bool) -> None:
    warning_cost(report)
    keep_table(report, quick)
    tuned_table(report, quick)
    guard_cost(report, quick)
