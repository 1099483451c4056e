"""DeepCandidate beyond BBC News: a general pack, leave-one-domain-out, and the recoder measured.

Protocol (``python -m bench domains``):

* Domains (``bench.utility.domain_data``): fiction (Austen, label = novel), manpages (label = section),
  packages (Debian package descriptions, label = archive section; short documents), bbc (BBC
  News, label = topic; research-only, never in a general pack), and three unlabelled ones that
  only ever go into packs: foldoc, jargon, devil.
* Packs, built in memory exactly as ``edgedp-export sentences`` builds them (k-means + recoder H,
  at most 8 epochs, recoded means as candidates, public projections, projection count per
  epsilon chosen on the pack's validation documents by expected cosine) from *train/validation*
  documents only:
  - ``bbc``: the bundled ``sentences-bbc`` pack itself;
  - ``general``: the public domains mixed (at most ``PER_DOMAIN`` documents each), **leaving out
    the evaluated domain** (leave-one-domain-out; for bbc every public domain is in);
  - ``in-domain``: built from the evaluated domain's own train split (what a domain pack gives),
    also from only 100 of its documents (how many a domain pack needs).
  The general pack is built with each recoder variant: ``H50`` (the bundled recipe, 50 clusters),
  ``H200`` (200 clusters: H asked to keep finer structure), ``PCA64`` (projection on the 64
  leading principal components of the public document means, zero-padded to 384 dimensions) and
  ``identity`` (no recoder), and ``F8``/``F32``: projection on the 8 or 32 leading Fisher
  directions of *document identity* (between-document over within-document scatter of the public
  sentences, the within-document scatter whitened): the linear map that makes the sentences of one
  document agree and different documents differ, which is what approximate Tukey depth needs.
* Evaluation on the evaluated domain's *test* split (20 %, by id hash: documents no pack saw):
  logistic regression (standardized, C on the validation split) trained on the train split's
  non-private features of the space it will see (plain means for "non-private", recoded means of
  the pack for DeepCandidate), as in ``bench.utility.doc_utility``; DeepCandidate at epsilon 3, 10, 23
  (seeded, NOT private: a benchmark; 3 trials); macro-F1. ``kept`` = the share of the non-private
  mean's gain over the majority class that DeepCandidate keeps at epsilon 10:
  (F1_dc - F1_majority) / (F1_plain - F1_majority). ``recoded kept`` is the same for the
  non-private recoded mean (what H alone loses).
* The fit check (:func:`edgedp.documents.fit.fit_from_embeddings`) runs on the train split of the
  evaluated domain (a public sample) for every pack, so its numbers can be read against ``kept``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import edgedp
from bench.harness import Report
from bench.utility.doc_utility import Classifier
from bench.utility.domain_data import LABELLED, PUBLIC, Domain, load_domain
from edgedp.documents.fit import fit_from_embeddings
from edgedp.documents.tukey import CandidateDepth
from edgedp.privacy.noise import exponential_mechanism_coefficient

EPSILONS = (3.0, 10.0, 23.0)
TRIALS = 3
PER_DOMAIN = 250
MIN_SENTENCES = 4
PROJECTION_GRID = (10, 20, 30, 50)
RECODERS = ("H50", "H200", "PCA64", "identity", "F8", "F32")
PCA_COMPONENTS = 64
VALIDATION_SAMPLE = 200
#: Recoder epochs (the bundled BBC recoder stopped at 11 of 20).
MAX_EPOCHS = 8
#: Built packs evaluated as they are, beside the in-memory ones, when bundled or found in
#: $EDGEDP_PACKS (build it with ``edgedp-export sentences --general --out DIR/sentences-general``).
SHIPPED = ("sentences-general",)
#: Smaller in-domain packs (public training documents), to see how many a domain pack needs.
DOMAIN_PACK_SIZES = (100,)


@dataclass
class PackArrays:
    """What DeepCandidate needs from a pack: the recoder, the candidates, the projections."""

    name: str
    recode: Callable[[np.ndarray], np.ndarray]
    candidates: np.ndarray
    projections: np.ndarray
    projections_for: dict[float, int]


def _means(documents: list[np.ndarray]) -> np.ndarray:
    return np.stack([d.mean(axis=0, dtype=np.float64) for d in documents]).astype(np.float32)


def _fisher(train: list[np.ndarray], directions: int) -> Callable[[np.ndarray], np.ndarray]:
    """Projection on the leading generalized eigenvectors of (between, within)-document scatter."""
    documents = [np.asarray(d, np.float64) for d in train if d.shape[0] >= 2]
    centre = np.concatenate(documents).mean(axis=0)
    dims = centre.shape[0]
    within, between, count = np.zeros((dims, dims)), np.zeros((dims, dims)), 0
    for sentences in documents:
        mean = sentences.mean(axis=0)
        within += (sentences - mean).T @ (sentences - mean)
        between += len(sentences) * np.outer(mean - centre, mean - centre)
        count += len(sentences)
    within = within / count + 1e-3 * np.trace(within / count) / dims * np.eye(dims)
    values, vectors = np.linalg.eigh(within)
    whitening = vectors / np.sqrt(values)
    ratios, eigenvectors = np.linalg.eigh(whitening.T @ (between / count) @ whitening)
    weight = whitening @ eigenvectors[:, np.argsort(ratios)[::-1][:directions]]
    print(f"   Fisher ratios (between/within): {np.sort(ratios)[::-1][:directions].round(2)}")
    return lambda x: ((np.asarray(x, np.float64) - centre) @ weight).astype(np.float32)


def _recoder(kind: str, train: list[np.ndarray], validation: list[np.ndarray], seed: int):
    if kind.startswith("F"):
        return _fisher(train, int(kind[1:]))
    if kind == "identity":
        return lambda x: np.asarray(x, dtype=np.float32)
    if kind.startswith("PCA"):
        means = _means(train).astype(np.float64)
        centre = means.mean(axis=0)
        _, _, vt = np.linalg.svd(means - centre, full_matrices=False)
        weight = np.zeros((means.shape[1], means.shape[1]))
        weight[:PCA_COMPONENTS] = vt[:PCA_COMPONENTS]
        return lambda x: ((np.asarray(x, np.float64) - centre) @ weight.T).astype(np.float32)
    from edgedp_export.recoder import (
        cluster_documents,
        nearest_centroid,
        recode_with_torch,
        train_recoder,
    )

    clusters = int(kind[1:])
    centroids, labels = cluster_documents(_means(train), clusters, seed)
    training = train_recoder(
        train,
        labels,
        validation,
        nearest_centroid(centroids, _means(validation)),
        clusters=clusters,
        seed=seed,
        max_epochs=MAX_EPOCHS,
    )
    return lambda x: recode_with_torch(training.module, np.asarray(x, np.float32))


def build_pack(
    name: str, kind: str, train: list[np.ndarray], validation: list[np.ndarray], seed: int = 0
) -> PackArrays:
    """A pack from public documents (sentence embeddings), as ``edgedp-export sentences`` does."""
    from edgedp_export.candidates import expected_cosines, public_projections

    recode = _recoder(kind, train, validation, seed)
    recoded = [recode(d) for d in train]
    eligible = [d for d in recoded if d.shape[0] >= MIN_SENTENCES]
    candidates = _means(eligible)
    projections = public_projections(max(PROJECTION_GRID), candidates.shape[1], seed)
    sample = validation[:: max(1, len(validation) // VALIDATION_SAMPLE)]
    scores = expected_cosines(
        candidates,
        projections,
        [recode(d) for d in sample],
        epsilons=EPSILONS,
        grid=PROJECTION_GRID,
    )
    table = {
        e: int(PROJECTION_GRID[int(np.argmax(row))])
        for e, row in zip(EPSILONS, scores, strict=True)
    }
    return PackArrays(name, recode, candidates, projections, table)


def bundled(name: str = "sentences-bbc") -> PackArrays:
    """A built pack (bundled name or directory) as the arrays DeepCandidate uses."""
    pack = edgedp.load_pack(name)
    return PackArrays(
        pack.name,
        pack.recoder.recode,
        np.asarray(pack.candidates),
        np.asarray(pack.projections),
        {e: pack.projections_for(e) for e in EPSILONS},
    )


def _seeded(seed: int) -> edgedp.RandomSource:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        return edgedp.RandomSource.seeded(seed)


def _majority_f1(train_labels: np.ndarray, test_labels: np.ndarray) -> float:
    from sklearn.metrics import f1_score

    values, counts = np.unique(train_labels, return_counts=True)
    guess = np.full(len(test_labels), values[np.argmax(counts)])
    return float(f1_score(test_labels, guess, average="macro"))


def evaluate(pack: PackArrays, domain: Domain, report: Report, variant: str) -> dict:
    """One (pack, domain) row: non-private, recoded and DeepCandidate macro-F1, fit estimate."""
    split = {s: domain.where(s) for s in ("train", "validation", "test")}
    labels = {s: np.array([domain.labels[i] for i in idx]) for s, idx in split.items()}
    docs = {s: [domain.embeddings[i] for i in idx] for s, idx in split.items()}
    recoded = {s: [pack.recode(d) for d in docs[s]] for s in docs}
    plain_c = Classifier(
        (_means(docs["train"]), labels["train"]), (_means(docs["validation"]), labels["validation"])
    )
    recoded_c = Classifier(
        (_means(recoded["train"]), labels["train"]),
        (_means(recoded["validation"]), labels["validation"]),
    )
    truth = labels["test"]
    majority = _majority_f1(labels["train"], truth)
    plain = plain_c.macro_f1(_means(docs["test"]), truth)
    recoded_f1 = recoded_c.macro_f1(_means(recoded["test"]), truth)
    gain = plain - majority
    depth = CandidateDepth(pack.candidates, pack.projections)
    row = {
        "domain": domain.name,
        "pack": pack.name,
        "variant": variant,
        "test_documents": len(truth),
        "median_sentences": float(np.median([d.shape[0] for d in docs["test"]])),
        "majority": majority,
        "non_private": plain,
        "recoded_mean": recoded_f1,
        "recoded_kept": (recoded_f1 - majority) / gain if gain > 0 else None,
        "candidates": int(pack.candidates.shape[0]),
    }
    rng = _seeded(1)
    for epsilon in EPSILONS:
        chosen_depth = depth.first(pack.projections_for[epsilon])
        scores = np.stack([chosen_depth.depths(d) for d in recoded["test"]]).astype(np.float64)
        log_weights = exponential_mechanism_coefficient(epsilon, sensitivity=1) * scores
        runs = [
            recoded_c.macro_f1(pack.candidates[rng.choice_from_log_weights(log_weights)], truth)
            for _ in range(TRIALS)
        ]
        row[f"dc_{epsilon:g}"] = float(np.mean(runs))
    row["kept_10"] = (row["dc_10"] - majority) / gain if gain > 0 else None
    fit = fit_from_embeddings(
        pack.name,
        pack.candidates,
        pack.projections,
        pack.projections_for,
        docs["train"],
        recoded["train"],
        list(labels["train"]),
        depth=depth,
    )
    row |= {
        "fit_neighbours_kept": fit.neighbours_kept,
        "fit_label_signal_kept": fit.label_signal_kept,
        "fit_relative_10": fit.relative[10.0],
        "fit_hits_10": fit.hits[10.0],
        "fit_random_hits": fit.random_hits,
        "fit_coverage": fit.coverage,
        "fit_expected_cosine_10": fit.expected_cosine[10.0],
        "fit_short_share": fit.short_share,
        "fit_verdict": fit.verdict,
    }
    report.add(**row)
    print(
        f"  {domain.name:9s} {variant:18s} plain {plain:.3f} rec {recoded_f1:.3f} "
        f"dc10 {row['dc_10']:.3f} kept {row['kept_10']} fit {fit.verdict} "
        f"rel10 {fit.relative[10.0]:.2f} nb {fit.neighbours_kept} hits10 {fit.hits[10.0]:.2f} "
        f"random {fit.random_hits:.2f} cover {fit.coverage:.2f}",
        flush=True,
    )
    return row


def _public_split(domain: Domain, split: str, limit: int) -> list[np.ndarray]:
    from edgedp_export.corpus import PublicDocument
    from edgedp_export.public_corpora import sample_documents

    indices = domain.where(split)
    chosen = sample_documents([PublicDocument(domain.ids[i], "") for i in indices], limit, seed=0)
    keep = {d.id for d in chosen}
    return [domain.embeddings[i] for i in indices if domain.ids[i] in keep]


def general_documents(
    domains: dict[str, Domain], leave_out: str | None, per_domain: int
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Train and validation documents of the public mix without ``leave_out``."""
    train, validation = [], []
    for name in PUBLIC:
        if name == leave_out:
            continue
        share = per_domain * 7 // 8
        train += _public_split(domains[name], "train", share)
        validation += _public_split(domains[name], "validation", per_domain - share)
    return train, validation


def run(report: Report, *, quick: bool, recoders: tuple[str, ...] = RECODERS) -> None:
    edgedp.set_num_threads(2)
    domains = {name: load_domain(name, quick=quick) for name in (*PUBLIC, "bbc")}
    per_domain = 30 if quick else PER_DOMAIN
    bbc = bundled("sentences-bbc")
    shipped = [bundled(name) for name in SHIPPED if name in _bundled_names()]
    for held_out in LABELLED:
        domain = domains[held_out]
        print(f"== held out: {held_out}", flush=True)
        evaluate(bbc, domain, report, "bbc pack")
        for pack in shipped:  # contains the train split of its own domains (not their test split)
            evaluate(pack, domain, report, f"{pack.name} (as shipped)")
        leave_out = held_out if held_out in PUBLIC else None
        train, validation = general_documents(domains, leave_out, per_domain)
        for kind in recoders:
            pack = build_pack(f"general-{kind}", kind, train, validation)
            evaluate(pack, domain, report, f"general {kind}")
        own_train = [domain.embeddings[i] for i in domain.where("train")]
        own_validation = [domain.embeddings[i] for i in domain.where("validation")]
        pack = build_pack(f"{held_out}-H50", "H50", own_train, own_validation)
        evaluate(pack, domain, report, f"in-domain H50, {len(own_train)} docs")
        for size in () if quick else DOMAIN_PACK_SIZES:  # how many public documents are enough
            if size < len(own_train):
                chosen = _public_split(domain, "train", size)
                pack = build_pack(f"{held_out}-H50-{size}", "H50", chosen, own_validation)
                evaluate(pack, domain, report, f"in-domain H50, {size} docs")
    report.sections += _tables(report.rows)


def _bundled_names() -> set[str]:
    return {entry.name for entry in edgedp.packs.loading.list_packs()}


def _cell(value) -> str:
    return "" if value is None else f"{value:.2f}" if isinstance(value, float) else str(value)


def _tables(rows: list[dict]) -> list[str]:
    lines = [
        "Macro-F1 on each domain's held-out test split; kept = share of the non-private mean's "
        "gain over the majority class that DeepCandidate keeps at epsilon 10.",
        "",
        "| domain | pack | median k | majority | non-private mean | recoded mean (kept) "
        "| DC eps 3 / 10 / 23 | kept at eps 10 | fit: hits@10, neighbours kept, verdict |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['domain']} | {r['variant']} | {r['median_sentences']:g} | {r['majority']:.2f} "
            f"| {r['non_private']:.2f} | {r['recoded_mean']:.2f} ({_cell(r['recoded_kept'])}) "
            f"| {r['dc_3']:.2f} / {r['dc_10']:.2f} / {r['dc_23']:.2f} | {_cell(r['kept_10'])} "
            f"| {r['fit_hits_10']:.2f}, {_cell(r['fit_neighbours_kept'])}, {r['fit_verdict']} |"
        )
    return lines
