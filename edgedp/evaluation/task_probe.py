"""What a linear probe of a release keeps of a labelled PUBLIC sample's task, above chance.

The measure of ``python -m bench domains`` (and of the independent evaluation), in numpy so that
``edgedp packs fit`` can report it for a sample whose records carry a ``"label"``:

    kept = (F1(release) - F1(floor)) / (F1(non-private mean) - F1(floor)),

macro-F1 of a linear probe (ridge regression on one-hot labels over standardized features, the
arg-max class predicted) in seeded stratified :data:`FOLDS`-fold cross-validation; the *floor* is
the same probe on a release that ignores the document (Gaussian noise of the release's width), not
the majority class, which macro-F1 puts below a random guess and so credits noise with signal.
Where the non-private mean is less than :data:`MIN_GAIN` above the floor, the task is not one this
probe measures and the answer is None.

Everything here reads public documents and seeded noise; nothing is private, and it must never run
on private documents (its output is an exact function of them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

#: Cross-validation folds (every class needs at least this many documents).
FOLDS = 5
#: The ridge penalty on standardized features.
RIDGE = 1.0
#: No answer where the non-private mean's macro-F1 is less than this above the floor's.
MIN_GAIN = 0.1
#: Seed of the folds and of the floor's noise (public data: reproducible, nothing to hide).
SEED = 0

Folds = list[tuple[np.ndarray, np.ndarray]]


def usable_labels(labels: Sequence[str]) -> bool:
    """Whether labels support the probe: two classes or more, each with :data:`FOLDS` documents."""
    _, counts = np.unique(np.asarray(labels), return_counts=True)
    return len(counts) >= 2 and int(counts.min()) >= FOLDS


def stratified_folds(labels: np.ndarray, seed: int = SEED) -> Folds:
    """(train, test) indices of :data:`FOLDS` folds, each class dealt round-robin after a shuffle."""
    rng = np.random.default_rng(seed)
    fold_of = np.empty(len(labels), dtype=np.int64)
    for tag in np.unique(labels):
        members = rng.permutation(np.flatnonzero(labels == tag))
        fold_of[members] = (np.arange(len(members)) + rng.integers(FOLDS)) % FOLDS
    return [(np.flatnonzero(fold_of != f), np.flatnonzero(fold_of == f)) for f in range(FOLDS)]


def macro_f1(truth: np.ndarray, predicted: np.ndarray) -> float:
    """The unweighted mean over the classes of ``truth`` of F1 (0 for a class never predicted)."""
    scores = []
    for tag in np.unique(truth):
        hits = float(np.sum((predicted == tag) & (truth == tag)))
        denominator = float(np.sum(predicted == tag) + np.sum(truth == tag))
        scores.append(2.0 * hits / denominator if denominator else 0.0)
    return float(np.mean(scores))


def probe_f1(features: np.ndarray, labels: np.ndarray, folds: Folds) -> float:
    """Mean macro-F1 over ``folds`` of the ridge probe trained on each fold's training rows."""
    classes, codes = np.unique(labels, return_inverse=True)
    scores = []
    for train, test in folds:
        centre = features[train].mean(axis=0)
        scale = features[train].std(axis=0)
        scale[scale == 0] = 1.0
        x = (features[train] - centre) / scale
        targets = np.eye(len(classes))[codes[train]]
        prior = targets.mean(axis=0)  # the intercept of centred features: the class shares
        gram = x.T @ x + RIDGE * np.eye(x.shape[1])
        weights = np.linalg.solve(gram, x.T @ (targets - prior))
        margins = ((features[test] - centre) / scale) @ weights + prior
        predicted = classes[np.argmax(margins, axis=1)]
        scores.append(macro_f1(labels[test], predicted))
    return float(np.mean(scores))


def task_kept(
    release: Callable[[np.random.Generator], np.ndarray],
    plain: np.ndarray,
    labels: Sequence[str],
    trials: int = 3,
) -> float | None:
    """The share kept above the floor by ``release(rng)`` (rows: one simulated release per
    document; fresh noise per trial) of the probe's signal on ``plain`` (the non-private means)."""
    tags = np.asarray(labels)
    folds = stratified_folds(tags)
    rng = np.random.default_rng(SEED)
    reference = probe_f1(plain, tags, folds)
    floor = float(
        np.mean([probe_f1(rng.standard_normal(plain.shape), tags, folds) for _ in range(trials)])
    )
    if reference - floor < MIN_GAIN:
        return None
    scores = [probe_f1(release(rng), tags, folds) for _ in range(trials)]
    return kept_above(float(np.mean(scores)), floor, reference)


def kept_above(f1: float, floor: float, reference: float) -> float | None:
    """(F1 - floor) / (reference - floor), or None where the reference is less than
    :data:`MIN_GAIN` above the floor (a ratio of two small noisy differences measures nothing)."""
    gain = reference - floor
    return (f1 - floor) / gain if gain >= MIN_GAIN else None
