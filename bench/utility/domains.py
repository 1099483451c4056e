"""Document embeddings beyond BBC News, leave-one-domain-out: SubspaceMean, DeepCandidate,
Truncation and the non-private mean (issues 20 and 24).

Protocol (``python -m bench domains``):

* Domains (``bench.utility.domain_data``): fiction (Austen passages, label = novel), manpages (label
  = section), packages (Debian package descriptions, label = archive section; short documents), bbc
  (BBC News, label = topic; research only, never in a public pack), and the unlabelled foldoc,
  jargon, devil (packs only). Embeddings are cached per document.
* Evaluation pool of a held-out domain: its *test* split (20 % by id hash), which no pack has seen.
  Three document sets: ``>= 8 sentences`` (documents with at least 8, up to their first 24),
  ``4 sentences`` (documents with at least 4, cut to their first 4: the short-review regime) and
  ``>= 16 sentences``. Each at epsilon 3 and 10 (pure epsilon-SentDP; SubspaceMean also at
  (10, 1e-6)).
* Classifier, as the independent evaluation of issue 24 does: logistic regression (standardized
  features, C = 1) trained and tested on *released* embeddings (every document released once per
  trial, fresh noise), over 5 random stratified 60/40 splits of the pool; macro-F1. ``kept`` =
  (F1 - F1 of the majority class) / (F1 of the non-private mean - F1 of the majority class): the
  share of the non-private mean embedding's gain kept. The mechanisms are seeded (NOT private: a
  benchmark).
* SubspaceMean packs, built in memory exactly as ``edgedp-export subspace`` builds them
  (:func:`edgedp_export.subspace.subspace_contents`): ``general`` from the public domains **without
  the evaluated one** (at most 1,000 documents each, non-test splits: leave-one-domain-out);
  ``in-domain 100`` and ``in-domain 1000`` from the evaluated domain's train split; and the shipped
  ``subspace-general`` when installed (it holds the non-test splits of fiction, manpages and
  packages, so it is held out only for bbc).
* DeepCandidate with the bundled ``sentences-bbc`` pack, and with packs built as ``edgedp-export
  sentences`` builds them (recoder H, 50 clusters, at most 8 epochs): ``general`` (the same
  leave-one-out mix, at most 250 documents per domain, as issue 20) and ``in-domain 1000``.
  Truncation with the bundled pack's box.
"""

from __future__ import annotations

import dataclasses
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import edgedp
from bench.harness import Report
from bench.utility.domain_data import LABELLED, PUBLIC, Domain, load_domain
from edgedp.documents.subspace_pack import Recommendation, SubspacePack
from edgedp.documents.tukey import CandidateDepth
from edgedp.evaluation.subspace_mean_fit import projection_norms, subspace_fit
from edgedp.evaluation.task_probe import MIN_GAIN, kept_above

EPSILONS = (3.0, 10.0)
GAUSSIAN = (10.0, 1e-6)
TRIALS = 5
SETS = {">= 8 sentences": (8, None), "4 sentences": (4, 4)}
MIN_POOL = 60
#: Classes with fewer test documents in a set are left out of it (5 splits need a few each).
MIN_CLASS = 10
GENERAL_PER_DOMAIN = 1000
CANDIDATE_PER_DOMAIN = 250
#: ``packs fit`` is asked about at most this many public (train split) documents of the domain.
FIT_SAMPLE = 300
#: In-domain packs from this many public documents of the held-out domain (the small-sample curve).
DOMAIN_SIZES = (25, 50, 100, 200, 500, 1000)
#: The general mixes compared: the six corpora of the first subspace-general, and all of PUBLIC.
GENERAL_MIXES = {
    "general, 6 corpora": ("fiction", "manpages", "packages", "foldoc", "jargon", "devil"),
    "general, 9 corpora": PUBLIC,
}
#: Width of the random release that sets the floor (the encoder's: every release has it).
FLOOR_WIDTH = 384
MAX_EPOCHS = 8
MIN_CANDIDATE_SENTENCES = 4
PROJECTION_GRID = (10, 20, 30, 50)


def _seeded(seed: int) -> edgedp.RandomSource:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        return edgedp.RandomSource.seeded(seed)


# -- packs built in memory --------------------------------------------------------------------------


def subspace_pack(name: str, documents: list[np.ndarray], template: SubspacePack) -> SubspacePack:
    """A SubspacePack from public documents' embeddings, as ``edgedp-export subspace`` builds it
    (the encoder and references of ``template``, unused: the study releases embeddings)."""
    from edgedp_export.subspace import DIRECTIONS, subspace_contents

    contents = subspace_contents(documents, DIRECTIONS, seed=0)
    return dataclasses.replace(
        template,
        name=name,
        mean=contents.mean.astype(np.float32),
        basis=contents.basis.astype(np.float32),
        clips={row["dims"]: row["radius"] for row in contents.clips},
        recommendations=tuple(
            Recommendation(
                r["epsilon"], r["delta"], r["sentences"], r["dims"], r["clip"], r["signal"]
            )
            for r in contents.recommended
        ),
    )


def task_basis(
    labelled: list[tuple[list[np.ndarray], list[str | None]]], general: list[np.ndarray], count: int
) -> np.ndarray:
    """Directions for what public tasks separate as well as for spread: the leading eigenvectors
    of C / tr C + S_B / tr S_B, with C the covariance of the general mix's document means and S_B
    the sum over public labelled corpora of each one's between-class scatter, every corpus scaled
    to trace 1 (no corpus dominates)."""
    means = np.stack([d.mean(axis=0) for d in general]).astype(np.float64)
    centred = means - means.mean(axis=0)
    spread = centred.T @ centred
    between = np.zeros_like(spread)
    for documents, labels in labelled:
        rows = np.stack([d.mean(axis=0) for d in documents]).astype(np.float64)
        tags = np.array(labels)
        scatter = np.zeros_like(spread)
        for tag in np.unique(tags):
            offset = rows[tags == tag].mean(axis=0) - rows.mean(axis=0)
            scatter += np.mean(tags == tag) * np.outer(offset, offset)
        between += scatter / np.trace(scatter)
    values, vectors = np.linalg.eigh(spread / np.trace(spread) + between / np.trace(between))
    return vectors[:, np.argsort(values)[::-1][:count]].T


def within_corpus_basis(corpora: list[list[np.ndarray]], count: int) -> np.ndarray:
    """The leading principal directions of the document means, each centred on its own corpus's
    mean (what varies *within* a domain, which is what a task inside one domain separates; the
    directions between domains are left out), every corpus weighted equally."""
    scatter = np.zeros((corpora[0][0].shape[1],) * 2)
    for documents in corpora:
        rows = np.stack([d.mean(axis=0) for d in documents]).astype(np.float64)
        rows -= rows.mean(axis=0)
        scatter += rows.T @ rows / len(rows)
    values, vectors = np.linalg.eigh(scatter)
    return vectors[:, np.argsort(values)[::-1][:count]].T


def with_basis(pack: SubspacePack, basis: np.ndarray, documents: list[np.ndarray]) -> SubspacePack:
    """``pack`` with another basis; every row keeps its d' and its clip *quantile* (the radius is
    re-read at that quantile of the public projected norms in the new basis)."""
    mean = pack.mean.astype(np.float64)
    old = projection_norms(documents, mean, pack.basis.astype(np.float64))
    new = projection_norms(documents, mean, basis)

    def radius(dims: int, clip: float) -> float:
        return float(np.quantile(new[:, dims - 1], np.mean(old[:, dims - 1] <= clip)))

    return dataclasses.replace(
        pack,
        basis=basis.astype(np.float32),
        clips={dims: radius(dims, clip) for dims, clip in pack.clips.items()},
        recommendations=tuple(
            dataclasses.replace(r, clip=radius(r.dims, r.clip)) for r in pack.recommendations
        ),
    )


@dataclass
class CandidatePack:
    """What DeepCandidate needs: the recoder, the candidates, projections and counts per epsilon."""

    name: str
    recode: Callable[[np.ndarray], np.ndarray]
    candidates: np.ndarray
    projections: np.ndarray
    projections_for: dict[float, int]


def candidate_pack(
    name: str, train: list[np.ndarray], validation: list[np.ndarray]
) -> CandidatePack:
    """A DeepCandidate pack from public documents, as ``edgedp-export sentences`` builds it."""
    from edgedp_export.candidates import expected_cosines, public_projections
    from edgedp_export.recoder import (
        cluster_documents,
        nearest_centroid,
        recode_with_torch,
        train_recoder,
    )

    def means(documents: list[np.ndarray]) -> np.ndarray:
        return np.stack([d.mean(axis=0, dtype=np.float64) for d in documents]).astype(np.float32)

    centroids, labels = cluster_documents(means(train), 50, 0)
    training = train_recoder(
        train,
        labels,
        validation,
        nearest_centroid(centroids, means(validation)),
        clusters=50,
        seed=0,
        max_epochs=MAX_EPOCHS,
    )

    def recode(x: np.ndarray) -> np.ndarray:
        return recode_with_torch(training.module, np.asarray(x, np.float32))

    eligible = [recode(d) for d in train if d.shape[0] >= MIN_CANDIDATE_SENTENCES]
    candidates = means(eligible)
    projections = public_projections(max(PROJECTION_GRID), candidates.shape[1], 0)
    sample = [recode(d) for d in validation[:: max(1, len(validation) // 200)]]
    scores = expected_cosines(
        candidates, projections, sample, epsilons=EPSILONS, grid=PROJECTION_GRID
    )
    table = {
        e: int(PROJECTION_GRID[int(np.argmax(r))]) for e, r in zip(EPSILONS, scores, strict=True)
    }
    return CandidatePack(name, recode, candidates, projections, table)


def bundled_candidates() -> CandidatePack:
    pack = edgedp.load_pack("sentences-bbc", kind="sentences")
    return CandidatePack(
        pack.name,
        pack.recoder.recode,
        np.asarray(pack.candidates),
        np.asarray(pack.projections),
        {e: pack.projections_for(e) for e in EPSILONS},
    )


# -- releases -----------------------------------------------------------------------------------------


def deepcandidate_releases(pack: CandidatePack, documents: list[np.ndarray], epsilon: float):
    """A function of the trial: one DeepCandidate release per document (seeded)."""
    from edgedp.privacy.noise import exponential_mechanism_coefficient

    depth = CandidateDepth(pack.candidates, pack.projections).first(pack.projections_for[epsilon])
    recoded = [pack.recode(d) for d in documents]
    scores = np.stack([depth.depths(r) for r in recoded]).astype(np.float64)
    weights = exponential_mechanism_coefficient(epsilon, sensitivity=1) * scores

    def release(trial: int) -> np.ndarray:
        chosen = _seeded(100 + trial).choice_from_log_weights(weights)
        return np.asarray(pack.candidates[chosen], dtype=np.float64)

    return release


def mechanism_releases(make: Callable[[edgedp.RandomSource], object], documents):
    """A function of the trial: ``release_embeddings`` of a mechanism seeded per trial."""

    def release(trial: int) -> np.ndarray:
        mechanism = make(_seeded(200 + trial))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", edgedp.ShortDocumentWarning)
            rows = mechanism.release_embeddings(documents)  # type: ignore[attr-defined]
        return np.asarray(rows, dtype=np.float64)

    return release


# -- classification -----------------------------------------------------------------------------------


def splits(labels: np.ndarray):
    from sklearn.model_selection import StratifiedShuffleSplit

    shuffle = StratifiedShuffleSplit(n_splits=TRIALS, test_size=0.4, random_state=0)
    return list(shuffle.split(np.zeros(len(labels)), labels))


def macro_f1(release: Callable[[int], np.ndarray], labels: np.ndarray, folds) -> float:
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score
    from sklearn.preprocessing import StandardScaler

    scores = []
    for trial, (train, test) in enumerate(folds):
        features = release(trial)
        scaler = StandardScaler().fit(features[train])
        model = LogisticRegression(max_iter=2000, C=1.0)
        model.fit(scaler.transform(features[train]), labels[train])
        predicted = model.predict(scaler.transform(features[test]))
        scores.append(f1_score(labels[test], predicted, average="macro"))
    return float(np.mean(scores))


def floor_f1(labels: np.ndarray, folds) -> float:
    """The floor: the same probe on a release that ignores the document (seeded Gaussian noise of
    the release's width, fresh per split). What any mechanism scores with no information."""
    rows = len(labels)
    return macro_f1(
        lambda trial: np.random.default_rng(300 + trial).standard_normal((rows, FLOOR_WIDTH)),
        labels,
        folds,
    )


def majority_f1(labels: np.ndarray, folds) -> float:
    from sklearn.metrics import f1_score

    scores = []
    for train, test in folds:
        values, counts = np.unique(labels[train], return_counts=True)
        guess = np.full(len(test), values[np.argmax(counts)])
        scores.append(f1_score(labels[test], guess, average="macro"))
    return float(np.mean(scores))


# -- the study --------------------------------------------------------------------------------------


def _public(domain: Domain, split: str, limit: int) -> list[np.ndarray]:
    """At most ``limit`` documents of a split (the sample edgedp_export takes: seeded id hash)."""
    from edgedp_export.corpus import PublicDocument
    from edgedp_export.public_corpora import sample_documents

    indices = domain.where(split)
    chosen = sample_documents([PublicDocument(domain.ids[i], "") for i in indices], limit, seed=0)
    keep = {d.id for d in chosen}
    return [domain.embeddings[i] for i in indices if domain.ids[i] in keep]


def general_by_corpus(
    domains: dict[str, Domain], leave_out: str, limit: int, mix: tuple[str, ...] = PUBLIC
) -> list[list[np.ndarray]]:
    """The public ``mix`` without ``leave_out``, per corpus: at most ``limit`` non-test documents."""
    return [
        _public(domains[name], "train", limit * 7 // 8)
        + _public(domains[name], "validation", limit - limit * 7 // 8)
        for name in mix
        if name != leave_out
    ]


def general_documents(
    domains: dict[str, Domain], leave_out: str, limit: int, mix: tuple[str, ...] = PUBLIC
) -> list[np.ndarray]:
    """:func:`general_by_corpus`, as one list."""
    return [d for corpus in general_by_corpus(domains, leave_out, limit, mix) for d in corpus]


def evaluation_sets(domain: Domain) -> dict[str, tuple[list[np.ndarray], np.ndarray]]:
    out = {}
    for name, (minimum, cut) in SETS.items():
        indices = domain.where("test", min_sentences=minimum)
        tags = [domain.labels[i] for i in indices]
        common = {tag for tag in tags if tags.count(tag) >= MIN_CLASS}
        indices = [i for i, tag in zip(indices, tags, strict=True) if tag in common]
        documents = [domain.embeddings[i][:cut] for i in indices]
        labels = np.array([domain.labels[i] for i in indices])
        if len(documents) >= MIN_POOL and len(np.unique(labels)) > 1:
            out[name] = (documents, labels)
    return out


def run(report: Report, *, quick: bool, candidates: bool = False) -> None:
    """The study; ``EDGEDP_BENCH_DOMAINS=bbc,fiction`` limits the held-out domains evaluated;
    ``candidates=True`` adds DeepCandidate packs trained per held-out domain (torch; slow)."""
    edgedp.set_num_threads(2)
    chosen = os.environ.get("EDGEDP_BENCH_DOMAINS")
    held_out_domains = LABELLED if not chosen else tuple(chosen.split(","))
    domains = {name: load_domain(name, quick=quick) for name in (*PUBLIC, "bbc")}
    template = shipped_or_template()
    truncation_pack = edgedp.load_pack("sentences-bbc", kind="sentences")
    bundled = bundled_candidates()
    limit = 40 if quick else GENERAL_PER_DOMAIN
    for held_out in held_out_domains:
        domain = domains[held_out]
        sets = evaluation_sets(domain)
        if not sets:
            continue
        print(f"== held out: {held_out}", flush=True)
        subspaces = []
        for mix_name, mix in GENERAL_MIXES.items():
            general = general_documents(domains, held_out, limit, mix)
            pack = subspace_pack("general", general, template)
            subspaces.append((f"{mix_name} (without {held_out})", pack))
        labelled = [
            (
                [other.embeddings[i] for i in other.where("train")],
                [other.labels[i] for i in other.where("train")],
            )
            for name, other in domains.items()
            if name in PUBLIC and name in LABELLED and name != held_out
        ]
        basis = task_basis(labelled, general, pack.basis.shape[0])
        subspaces.append(
            (
                f"general, 9 corpora, task directions (without {held_out})",
                with_basis(pack, basis, general),
            )
        )
        by_corpus = general_by_corpus(domains, held_out, limit)
        basis = within_corpus_basis(by_corpus, pack.basis.shape[0])
        subspaces.append(
            (
                f"general, 9 corpora, within-corpus directions (without {held_out})",
                with_basis(pack, basis, general),
            )
        )
        fit_pack = pack
        own = domain.where("train")
        for size in DOMAIN_SIZES:
            if len(own) >= size or (quick and size == DOMAIN_SIZES[0]):
                documents = _public(domain, "train", size)
                subspaces.append(
                    (f"in-domain {len(documents)}", subspace_pack("domain", documents, template))
                )
        if template.name == "subspace-general":
            subspaces.append(("subspace-general as shipped", template))
        candidate_packs = [("sentences-bbc (bundled)", bundled)]
        if candidates and not quick:
            mixed = general_documents(domains, held_out, CANDIDATE_PER_DOMAIN)
            validation = [d for d in mixed[::8]]
            candidate_packs.append(
                (f"general H50 (without {held_out})", candidate_pack("general", mixed, validation))
            )
            train = _public(domain, "train", 1000)
            candidate_packs.append(
                (f"in-domain H50 {len(train)}", candidate_pack("domain", train, train[::8]))
            )
        for set_name, (documents, labels) in sets.items():
            minimum, cut = SETS[set_name]
            public = domain.where("train", minimum)[:FIT_SAMPLE]
            sample = [domain.embeddings[i][:cut] for i in public]
            sample_labels = [str(domain.labels[i]) for i in public]
            evaluate_set(
                report,
                {"domain": held_out, "documents": set_name},
                documents,
                labels,
                subspaces,
                candidate_packs,
                truncation_pack,
                fit_estimate(fit_pack, sample, sample_labels),
            )
    rows = report.table("kept")
    report.sections += summary(rows) + small_sample_curve(rows) + fit_agreement(rows)


def fit_estimate(
    pack: SubspacePack, sample: list[np.ndarray], labels: list[str]
) -> dict[str, float | None]:
    """What ``edgedp packs fit`` estimates for ``pack`` on a labelled public sample at epsilon
    10: the signal kept (no labels used) and the task kept (its labels' linear probe)."""
    if len(sample) < 3:
        return {}

    def recommend(epsilon: float, sentences: int) -> tuple[int, float]:
        row = pack.recommendation(epsilon, 0.0, sentences)
        return row.dims, row.clip

    fit = subspace_fit(pack.name, pack.mean, pack.basis, recommend, sample, labels)
    task = None if fit.task_kept is None else fit.task_kept[10.0]
    return {"fit_signal": fit.signal[10.0], "fit_task": task}


#: Packs evaluated at epsilon 3 too (the rest of the small-sample curve at epsilon 10 only).
_BOTH_EPSILONS = ("general", "subspace-general", "in-domain 200", "in-domain 1000")


def evaluate_set(
    report: Report,
    head: dict,
    documents: list[np.ndarray],
    labels: np.ndarray,
    subspaces: list[tuple[str, SubspacePack]],
    candidate_packs: list[tuple[str, CandidatePack]],
    truncation_pack: edgedp.SentencePack,
    estimate: dict[str, float | None],
) -> None:
    """Every mechanism and pack on one document set of a held-out domain: one row each."""
    folds = splits(labels)
    majority = majority_f1(labels, folds)
    floor = floor_f1(labels, folds)
    plain = np.stack([d.mean(axis=0) for d in documents]).astype(np.float64)
    non_private = macro_f1(lambda _trial: plain, labels, folds)
    k = int(np.median([len(d) for d in documents]))
    base = {
        "table": "kept",
        **head,
        "pool": len(documents),
        "median_k": float(k),
        "floor": floor,
        "majority": majority,
        "non_private": non_private,
    }

    def add(mechanism: str, pack: str, epsilon: float, f1: float, **extra: object) -> None:
        report.add(
            **base,
            mechanism=mechanism,
            pack=pack,
            epsilon=epsilon,
            f1=f1,
            kept=kept_above(f1, floor, non_private),
            kept_over_majority=kept_above(f1, majority, non_private),
            **extra,
        )

    def subspace(pack: SubspacePack, epsilon: float, delta: float | None = None):
        return mechanism_releases(
            lambda rng: edgedp.SubspaceMean(pack, epsilon=epsilon, delta=delta, rng=rng),
            documents,
        )

    def truncation(epsilon: float):
        return mechanism_releases(
            lambda rng: edgedp.Truncation(truncation_pack, epsilon=epsilon, rng=rng), documents
        )

    for epsilon in EPSILONS:
        for label, pack in subspaces:
            if epsilon != 10.0 and not label.startswith(_BOTH_EPSILONS):
                continue
            row = pack.recommendation(epsilon, 0.0, k)
            f1 = macro_f1(subspace(pack, epsilon), labels, folds)
            extra = estimate if label.startswith("general, 9 corpora (") else {}
            add("SubspaceMean", label, epsilon, f1, dims=row.dims, signal=row.signal, **extra)
        for label, candidate in candidate_packs:
            release = deepcandidate_releases(candidate, documents, epsilon)
            add("DeepCandidate", label, epsilon, macro_f1(release, labels, folds))
        f1 = macro_f1(truncation(epsilon), labels, folds)
        add("Truncation", "sentences-bbc (bundled)", epsilon, f1)
    epsilon, delta = GAUSSIAN
    label, pack = subspaces[1]
    f1 = macro_f1(subspace(pack, epsilon, delta), labels, folds)
    add(f"SubspaceMean delta {delta:g}", label, epsilon, f1)


def shipped_or_template() -> SubspacePack:
    """The installed subspace-general pack, else a stand-in holding the bundled encoder."""
    names = {entry.name for entry in edgedp.list_packs()}
    if "subspace-general" in names:
        return edgedp.load_pack("subspace-general", kind="subspace")
    encoder = edgedp.load_pack("sentences-bbc", kind="sentences")
    return SubspacePack(
        name="template",
        path=encoder.path,
        manifest=encoder.manifest,
        encoder=encoder.encoder,
        mean=np.zeros(encoder.dims, np.float32),
        basis=np.eye(1, encoder.dims, dtype=np.float32),
        clips={1: 1.0},
        recommendations=(Recommendation(1.0, 0.0, 1, 1, 1.0),),
        reference_sentences=encoder.reference_sentences,
        reference_embeddings=encoder.reference_embeddings,
        reference_min_cosine=encoder.reference_min_cosine,
    )


def _percent(value: float | None) -> str:
    return "" if value is None else f"{value:.0%}"


def summary(rows: list[dict]) -> list[str]:
    """The kept share per (domain, documents) and mechanism/pack, one column per epsilon."""
    lines = [
        "Share of the non-private mean's macro-F1 signal kept **above the floor** (the F1 of a "
        "release that ignores the document: Gaussian noise of the release's width, same probe and "
        "splits), pure epsilon; logistic regression trained and tested on released embeddings, "
        "5 splits. The last column is the old measure, over the majority class, for comparison. "
        f"Blank: the non-private mean is less than {MIN_GAIN:g} F1 above the floor (nothing to "
        "keep that this probe can measure).",
        "",
        "| held-out domain, documents (median k, pool) | floor / majority / non-private F1 "
        "| mechanism, pack | kept eps 3 | **kept eps 10** | over majority eps 10 |",
        "|---|---|---|---|---|---|",
    ]
    keys = list(dict.fromkeys((r["domain"], r["documents"]) for r in rows))
    for domain, documents in keys:
        group = [r for r in rows if r["domain"] == domain and r["documents"] == documents]
        first = group[0]
        head = f"{domain}, {documents} ({first['median_k']:g}, {first['pool']})"
        scores = f"{first['floor']:.2f} / {first['majority']:.2f} / {first['non_private']:.2f}"
        for mechanism, pack in dict.fromkeys((r["mechanism"], r["pack"]) for r in group):
            found = {
                r["epsilon"]: r for r in group if r["mechanism"] == mechanism and r["pack"] == pack
            }
            three, ten = found.get(3.0), found.get(10.0)
            lines.append(
                f"| {head} | {scores} | {mechanism}, {pack} | {_percent(three and three['kept'])} "
                f"| **{_percent(ten and ten['kept'])}** | "
                f"{_percent(ten and ten['kept_over_majority'])} |"
            )
    return lines


def small_sample_curve(rows: list[dict]) -> list[str]:
    """Kept at epsilon 10 against the number of public in-domain documents, per domain and set."""
    chosen = [
        r
        for r in rows
        if r["mechanism"] == "SubspaceMean" and r["epsilon"] == 10.0
        if r["pack"].startswith(("in-domain", "general, 9 corpora ("))
    ]
    columns = ["general", *[str(size) for size in DOMAIN_SIZES]]
    lines = [
        "",
        "Kept above the floor at epsilon 10 by the number of public in-domain documents the pack "
        "was built from (SubspaceMean; 'general' = the 9-corpora mix without the domain):",
        "",
        "| held-out domain, documents | " + " | ".join(columns) + " |",
        "|---|" + "---|" * len(columns),
    ]
    for domain, documents in dict.fromkeys((r["domain"], r["documents"]) for r in chosen):
        cells = dict.fromkeys(columns, "")
        for r in chosen:
            if r["domain"] == domain and r["documents"] == documents:
                size = "general" if r["pack"].startswith("general") else r["pack"].split()[-1]
                cells[size] = _percent(r["kept"])
        lines.append(f"| {domain}, {documents} | " + " | ".join(cells.values()) + " |")
    return lines


def fit_agreement(rows: list[dict]) -> list[str]:
    """Rank correlation of ``packs fit``'s estimates with the measured kept (general pack, eps 10)."""
    from scipy.stats import spearmanr

    lines = [""]
    for key, what in (
        ("fit_signal", "signal kept (no labels)"),
        ("fit_task", "task kept (the sample's labels)"),
    ):
        pairs = [
            (r[key], r["kept"])
            for r in rows
            if r.get(key) is not None and r["kept"] is not None and r["epsilon"] == 10.0
        ]
        if len(pairs) < 3:
            continue
        rho = spearmanr([a for a, _ in pairs], [b for _, b in pairs]).statistic
        lines.append(
            f"`packs fit` agreement, {what}: Spearman rank correlation {rho:.2f} between its "
            f"estimate on a public sample (<= {FIT_SAMPLE} train-split documents of the domain, "
            "general 9-corpora pack, epsilon 10) and the measured kept above the floor, over "
            f"{len(pairs)} (domain, documents) cells: "
            + ", ".join(f"{a:.0%} vs {b:.0%}" for a, b in pairs)
            + "."
        )
    return lines
