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

EPSILONS = (3.0, 10.0)
GAUSSIAN = (10.0, 1e-6)
TRIALS = 5
SETS = {">= 8 sentences": (8, None), "4 sentences": (4, 4), ">= 16 sentences": (16, None)}
MIN_POOL = 60
GENERAL_PER_DOMAIN = 1000
CANDIDATE_PER_DOMAIN = 250
DOMAIN_SIZES = (100, 1000)
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


def general_documents(domains: dict[str, Domain], leave_out: str, limit: int) -> list[np.ndarray]:
    """The public mix without ``leave_out``: at most ``limit`` non-test documents per domain."""
    documents = []
    for name in PUBLIC:
        if name != leave_out:
            documents += _public(domains[name], "train", limit * 7 // 8)
            documents += _public(domains[name], "validation", limit - limit * 7 // 8)
    return documents


def evaluation_sets(domain: Domain) -> dict[str, tuple[list[np.ndarray], np.ndarray]]:
    out = {}
    for name, (minimum, cut) in SETS.items():
        indices = domain.where("test", min_sentences=minimum)
        documents = [domain.embeddings[i][:cut] for i in indices]
        labels = np.array([domain.labels[i] for i in indices])
        if len(documents) >= MIN_POOL and len(np.unique(labels)) > 1:
            out[name] = (documents, labels)
    return out


def run(report: Report, *, quick: bool, candidates: bool = True) -> None:
    """The study; ``EDGEDP_BENCH_DOMAINS=bbc,fiction`` limits the held-out domains evaluated."""
    edgedp.set_num_threads(2)
    chosen = os.environ.get("EDGEDP_BENCH_DOMAINS")
    held_out_domains = LABELLED if not chosen else tuple(chosen.split(","))
    domains = {name: load_domain(name, quick=quick) for name in (*PUBLIC, "bbc")}
    template = shipped_or_template()
    truncation_pack = edgedp.load_pack("sentences-bbc", kind="sentences")
    bundled = bundled_candidates()
    for held_out in held_out_domains:
        domain = domains[held_out]
        sets = evaluation_sets(domain)
        if not sets:
            continue
        print(f"== held out: {held_out}", flush=True)
        general = general_documents(domains, held_out, 40 if quick else GENERAL_PER_DOMAIN)
        own = domain.where("train")
        subspaces = [(f"general (without {held_out})", subspace_pack("general", general, template))]
        for size in DOMAIN_SIZES:
            if len(own) >= size or quick:
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
            evaluate_set(
                report,
                {"domain": held_out, "documents": set_name},
                documents,
                labels,
                subspaces,
                candidate_packs,
                truncation_pack,
            )
    report.sections += summary(report.table("kept"))


def evaluate_set(
    report: Report,
    head: dict,
    documents: list[np.ndarray],
    labels: np.ndarray,
    subspaces: list[tuple[str, SubspacePack]],
    candidate_packs: list[tuple[str, CandidatePack]],
    truncation_pack: edgedp.SentencePack,
) -> None:
    """Every mechanism and pack on one document set of a held-out domain: one row each."""
    folds = splits(labels)
    majority = majority_f1(labels, folds)
    plain = np.stack([d.mean(axis=0) for d in documents]).astype(np.float64)
    non_private = macro_f1(lambda _trial: plain, labels, folds)
    k = int(np.median([len(d) for d in documents]))
    base = {
        "table": "kept",
        **head,
        "pool": len(documents),
        "median_k": float(k),
        "majority": majority,
        "non_private": non_private,
    }

    def add(mechanism: str, pack: str, epsilon: float, f1: float, **extra: object) -> None:
        gain = non_private - majority
        kept = (f1 - majority) / gain if gain > 0 else None
        report.add(
            **base, mechanism=mechanism, pack=pack, epsilon=epsilon, f1=f1, kept=kept, **extra
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
            row = pack.recommendation(epsilon, 0.0, k)
            f1 = macro_f1(subspace(pack, epsilon), labels, folds)
            add("SubspaceMean", label, epsilon, f1, dims=row.dims, signal=row.signal)
        for label, candidate in candidate_packs:
            release = deepcandidate_releases(candidate, documents, epsilon)
            add("DeepCandidate", label, epsilon, macro_f1(release, labels, folds))
        f1 = macro_f1(truncation(epsilon), labels, folds)
        add("Truncation", "sentences-bbc (bundled)", epsilon, f1)
    epsilon, delta = GAUSSIAN
    label, pack = subspaces[0]
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


def summary(rows: list[dict]) -> list[str]:
    """The kept share per (domain, documents) and mechanism/pack, one column per epsilon."""
    lines = [
        "Share of the non-private mean's macro-F1 gain over the majority class kept (pure "
        "epsilon; logistic regression trained and tested on released embeddings, 5 splits).",
        "",
        "| held-out domain, documents (median k, pool) | non-private F1 | mechanism, pack "
        "| kept at eps 3 | kept at eps 10 |",
        "|---|---|---|---|---|",
    ]
    keys = list(dict.fromkeys((r["domain"], r["documents"]) for r in rows))
    for domain, documents in keys:
        group = [r for r in rows if r["domain"] == domain and r["documents"] == documents]
        head = f"{domain}, {documents} ({group[0]['median_k']:g}, {group[0]['pool']})"
        for mechanism, pack in dict.fromkeys((r["mechanism"], r["pack"]) for r in group):
            cells = []
            for epsilon in EPSILONS:
                match = [
                    r
                    for r in group
                    if r["mechanism"] == mechanism and r["pack"] == pack and r["epsilon"] == epsilon
                ]
                cells.append(
                    "" if not match or match[0]["kept"] is None else f"{match[0]['kept']:.0%}"
                )
            lines.append(
                f"| {head} | {group[0]['non_private']:.2f} | {mechanism}, {pack} | {cells[0]} | {cells[1]} |"
            )
    return lines
