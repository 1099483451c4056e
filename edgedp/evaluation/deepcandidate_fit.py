"""How well a sentences pack fits a domain, estimated from a PUBLIC sample of that domain.

DeepCandidate (:mod:`edgedp.documents.deepcandidate`) releases one of the pack's public candidates, chosen by
approximate Tukey depth among the document's recoded sentence embeddings. It does well only if
(1) the recoder H keeps what distinguishes the domain's documents, (2) some candidates lie near the
domain's documents, and (3) documents have many sentences (depth is at most k / 2). :func:`pack_fit`
measures each of these on a sample of documents, before any private data is touched:

* ``short_share``: the share of documents with fewer than 4 sentences (their release is close to a
  uniformly random candidate whatever the pack);
* ``neighbours_kept``: for each document, how many of its 10 nearest neighbours among the sample
  (cosine of the plain mean sentence embeddings G) are still among its 10 nearest after the recoder
  (mean recoded embeddings): the share of the non-private structure that H keeps (1 = all; a
  random map keeps about 10 / n). With labels in the sample, ``label_signal_kept`` also compares a
  leave-one-out nearest-centroid classifier on recoded means with one on plain means:
  (accuracy_recoded - chance) / (accuracy_plain - chance);
* per epsilon, the **exact** expected cosine between the released candidate and the document's own
  recoded mean, E[cos] = sum_i Pr[i] cos(f_i, mean) with Pr from
  :func:`edgedp.documents.deepcandidate.selection_probabilities` (no sampling), beside its two bounds: a
  uniformly random candidate (what a document with no usable depth gets) and the nearest candidate
  (the best any selection could do). ``relative`` = (E[cos] - random) / (nearest - random): 0 means
  the release says nothing about the document, 1 means DeepCandidate finds the nearest candidate;
* per epsilon, the exact probability ``hits`` that the released candidate is at least as close to
  the document's recoded mean as the document's nearest 5 % of the *other sample documents* are
  (cosine): whether the release is specific to the document within its own domain, not merely "of
  the right domain". ``random_hits`` is the same for a uniformly random candidate, ``coverage`` the
  share of documents for which some candidate qualifies.

The verdict is ``poor`` when ``hits`` at epsilon 10 is below :data:`POOR_HITS` or ``neighbours_kept``
below :data:`POOR_NEIGHBOURS`. Those thresholds were read off ``python -m bench domains``
(bench/reports/2026-11-23-domains.md, "Fit check"): the (pack, held-out domain) pairs above both
kept far more of the non-private mean's macro-F1 gain at epsilon 10 than the others.
``expected_cosine`` and ``relative`` alone did not separate them (a foreign pack can be close in
cosine to a whole domain). The estimate is only as good as the sample is representative;
it is not a privacy statement and spends no privacy budget as long as the sample is public. **Never
run it on private documents**: its output is computed from them without any noise.

A poor general pack (``--default``, ``--general``) is told to build a domain pack. A pack that is
itself a domain pack (built with ``--corpus-jsonl`` or ``--corpus-dir``: :class:`PackSource`) is
never sent to build itself again: it is told how to improve (more public documents, a recoder
with clusters its documents can fill), and that a sample of another domain wants a pack of its
own. A sample that is the pack's own corpus (the same file, or ids among its candidates) is said
to flatter the pack: its candidates are those very documents.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from edgedp.documents.deepcandidate import selection_probabilities
from edgedp.documents.mechanism import Document
from edgedp.documents.pack import SentencePack
from edgedp.documents.tukey import CandidateDepth
from edgedp.errors import InputError
from edgedp.evaluation.public_sample import (
    FIT_EPSILONS,
    MIN_SAMPLE_DOCUMENTS,
    corpus_of,
    encoded_sample,
    is_corpus_file,
    sample_ids,
    too_few_documents,
)

SHORT_SENTENCES = 4
NEIGHBOURS = 10
#: A release "hits" a document if it is as close as its nearest 5 % of the sample's documents.
NEIGHBOUR_SHARE = 0.05
#: Below these ``hits`` at epsilon 10 or ``neighbours_kept`` the fit is poor (measured: see below).
POOR_HITS = 0.6
POOR_NEIGHBOURS = 0.3
#: More than this share of short documents makes every pack a poor fit.
POOR_SHORT_SHARE = 0.5
#: A projection count this much better (expected cosine) than the pack's is advised.
BETTER_PROJECTIONS = 0.01
#: The output directory the rebuild advice names (never the pack that was given).
DOMAIN_PACK = "my-domain-pack"
#: Documents per cluster the recoder's k-means wants (faiss's default minimum of training points
#: per centroid; ``edgedp-export sentences`` warns below it).
DOCUMENTS_PER_CLUSTER = 39


@dataclass(frozen=True)
class PackSource:
    """Where a sentences pack came from, as far as the advice of :func:`pack_fit` needs it.

    Parameters
    ----------
    corpus : str or None, default None
        The public corpus a *domain* pack was built from (``--corpus-jsonl`` file name or the
        corpus's name); None for a pack of general corpora (``--default``, ``--general``).
    documents : int, default 0
        Public documents of that corpus.
    train_documents : int, default 0
        Those that trained the recoder and gave the candidates (the rest validated).
    clusters : int or None, default None
        k-means clusters the recoder H was trained to keep apart; None for a recoder without.
    sample_is_corpus : bool, default False
        The sample file is the corpus file itself (the same SHA-256).
    sample_candidates : int, default 0
        Sample documents whose ``"id"`` is the id of one of the pack's candidates.
    candidates : int, default 0
        The pack's candidates.
    """

    corpus: str | None = None
    documents: int = 0
    train_documents: int = 0
    clusters: int | None = None
    sample_is_corpus: bool = False
    sample_candidates: int = 0
    candidates: int = 0

    def in_sample(self, documents: int) -> bool:
        """Whether a sample of ``documents`` is mostly the pack's own corpus."""
        return self.sample_is_corpus or 2 * self.sample_candidates >= max(documents, 1)


def pack_source(pack: SentencePack, sample: Path | None = None) -> PackSource:
    """:class:`PackSource` of ``pack`` from its manifest, and how the ``sample`` file (if given)
    overlaps the corpus it was built from.

    Parameters
    ----------
    pack : SentencePack
        The pack ``packs fit`` checks.
    sample : pathlib.Path or None, default None
        The sample's JSONL file.

    Returns
    -------
    PackSource
        The pack's origin; a general pack's has ``corpus`` None.
    """
    data = pack.manifest.data
    corpus = corpus_of(data)
    source = data.get("source", {})
    candidates = data.get("candidates", {})
    recoder = data.get("recoder", {})
    clusters = recoder.get("clusters")
    ids = set(pack.candidate_sources)
    in_candidates = 0 if sample is None else sum(i in ids for i in sample_ids(sample))
    return PackSource(
        corpus=corpus,
        documents=int(source.get("documents", 0) or 0),
        train_documents=int(candidates.get("train_documents", 0) or 0),
        clusters=int(clusters) if isinstance(clusters, int) else None,
        sample_is_corpus=sample is not None and is_corpus_file(data, sample),
        sample_candidates=in_candidates,
        candidates=len(pack.candidate_sources),
    )


@dataclass(frozen=True)
class PackFit:
    """The estimate of :func:`pack_fit` (see the module docstring for every field)."""

    pack: str
    documents: int
    median_sentences: float
    short_share: float
    neighbours_kept: float | None
    label_signal_kept: float | None
    random_cosine: float
    nearest_cosine: float
    expected_cosine: dict[float, float]
    relative: dict[float, float]
    coverage: float
    random_hits: float
    hits: dict[float, float]
    projections: dict[float, int]
    verdict: str
    advice: list[str] = field(default_factory=list)
    best_projections: dict[float, int] = field(default_factory=dict)
    best_cosine: dict[float, float] = field(default_factory=dict)
    neighbour_cosine: float | None = None
    built_from: str | None = None
    in_sample: bool = False

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        keys = ("expected_cosine", "relative", "hits", "projections", "best_projections")
        for key in (*keys, "best_cosine"):
            data[key] = {f"{epsilon:g}": value for epsilon, value in data[key].items()}
        return data


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms > 0, norms, 1.0)


def neighbours_kept(plain: np.ndarray, recoded: np.ndarray, k: int = NEIGHBOURS) -> float | None:
    """Mean share of each row's k nearest neighbours (cosine) in ``plain`` kept in ``recoded``."""
    n = plain.shape[0]
    if n <= k + 1:
        return None
    found = []
    for space in (plain, recoded):
        similarity = _unit(space.astype(np.float64)) @ _unit(space.astype(np.float64)).T
        np.fill_diagonal(similarity, -np.inf)
        found.append(np.argpartition(-similarity, k, axis=1)[:, :k])
    kept = [len(set(a) & set(b)) / k for a, b in zip(found[0], found[1], strict=True)]
    return float(np.mean(kept))


def _centroid_accuracy(features: np.ndarray, labels: np.ndarray) -> float:
    """Leave-one-out accuracy of the nearest class centroid (cosine)."""
    unit = _unit(features.astype(np.float64))
    classes, index = np.unique(labels, return_inverse=True)
    sums = np.stack([unit[index == c].sum(axis=0) for c in range(len(classes))])
    counts = np.bincount(index, minlength=len(classes)).astype(np.float64)
    correct = 0
    for row in range(unit.shape[0]):
        own = index[row]
        adjusted = sums.copy()
        adjusted[own] -= unit[row]
        sizes = counts.copy()
        sizes[own] -= 1
        centroids = adjusted / np.where(sizes > 0, sizes, 1.0)[:, None]
        scores = _unit(centroids) @ unit[row]
        scores[sizes == 0] = -np.inf
        correct += int(np.argmax(scores) == own)
    return correct / int(unit.shape[0])


def label_signal_kept(
    plain: np.ndarray, recoded: np.ndarray, labels: Sequence[str]
) -> float | None:
    """(acc_recoded - chance) / (acc_plain - chance) of a nearest-centroid classifier, or None."""
    labels_array = np.asarray([str(label) for label in labels])
    classes, counts = np.unique(labels_array, return_counts=True)
    if len(classes) < 2 or counts.min() < 2:
        return None
    chance = float(counts.max() / counts.sum())
    gain = _centroid_accuracy(plain, labels_array) - chance
    if gain <= 0.02:
        return None  # the plain means carry no label signal to keep
    return float((_centroid_accuracy(recoded, labels_array) - chance) / gain)


def fit_from_embeddings(
    name: str,
    candidates: np.ndarray,
    projections: np.ndarray,
    projections_for: dict[float, int],
    sentences: Sequence[np.ndarray],
    recoded: Sequence[np.ndarray],
    labels: Sequence[str] | None = None,
    *,
    depth: CandidateDepth | None = None,
    alternatives: Sequence[int] = (),
    source: PackSource | None = None,
) -> PackFit:
    """:func:`pack_fit` on precomputed sentence embeddings (plain G and recoded H o G).

    ``alternatives``: other projection counts (the pack's table) tried at every epsilon; the best
    is reported beside the pack's choice, and advised when it is clearly better. ``source``: where
    the pack came from (:class:`PackSource`; default: a general pack, the sample not its corpus).
    """
    source = source if source is not None else PackSource()
    if not sentences or len(sentences) != len(recoded):
        raise InputError("the sample needs documents (one embedding array per document)")
    depth = depth if depth is not None else CandidateDepth(candidates, projections)
    unit_candidates = _unit(np.asarray(candidates, dtype=np.float64))
    sizes = np.array([array.shape[0] for array in recoded])
    used = [i for i, size in enumerate(sizes) if size > 0]
    if not used:
        raise InputError("no document of the sample has a sentence")
    plain_means = np.stack([sentences[i].mean(axis=0, dtype=np.float64) for i in used])
    recoded_means = np.stack([recoded[i].mean(axis=0, dtype=np.float64) for i in used])
    cosines = _unit(recoded_means) @ unit_candidates.T  # (documents, candidates)
    random_cosine = float(cosines.mean())
    nearest_cosine = float(cosines.max(axis=1).mean())
    # A candidate "hits" a document when it is at least as close (cosine of recoded means) as the
    # document's nearest NEIGHBOUR_SHARE of the other sample documents.
    unit_means = _unit(recoded_means)
    if len(used) > 1:
        among = unit_means @ unit_means.T
        np.fill_diagonal(among, np.nan)
        thresholds = np.nanquantile(among, 1.0 - NEIGHBOUR_SHARE, axis=1)
    else:
        thresholds = np.full(1, np.inf)
    hit = cosines >= thresholds[:, None]
    random_hits = float(hit.mean())
    coverage = float(hit.any(axis=1).mean())
    expected: dict[float, float] = {}
    hits: dict[float, float] = {}
    best: dict[float, tuple[float, int]] = {}

    def law(count: int, epsilon: float) -> np.ndarray:
        chosen = depth.first(count)
        return np.stack([selection_probabilities(chosen.depths(recoded[i]), epsilon) for i in used])

    for epsilon, count in projections_for.items():
        probabilities = law(count, epsilon)
        expected[epsilon] = float(np.mean(np.sum(probabilities * cosines, axis=1)))
        hits[epsilon] = float(np.mean(np.sum(probabilities * hit, axis=1)))
        best[epsilon] = (expected[epsilon], count)
        for other in sorted(set(alternatives) - {count}):
            value = float(np.mean(np.sum(law(other, epsilon) * cosines, axis=1)))
            if value > best[epsilon][0]:
                best[epsilon] = (value, other)
    spread = nearest_cosine - random_cosine
    relative = {
        epsilon: float((value - random_cosine) / spread) if spread > 1e-9 else 0.0
        for epsilon, value in expected.items()
    }
    kept = neighbours_kept(plain_means, recoded_means)
    signal = (
        None
        if labels is None
        else label_signal_kept(plain_means, recoded_means, [labels[i] for i in used])
    )
    short = float(np.mean(sizes < SHORT_SENTENCES))
    neighbour = float(np.mean(thresholds)) if len(used) > 1 else None
    verdict, advice = _verdict(
        name, len(used), short, kept, hits, expected, neighbour, projections_for, best, source
    )
    return PackFit(
        pack=name,
        documents=len(sentences),
        median_sentences=float(np.median(sizes)),
        short_share=round(short, 4),
        neighbours_kept=None if kept is None else round(kept, 4),
        label_signal_kept=None if signal is None else round(signal, 4),
        random_cosine=round(random_cosine, 4),
        nearest_cosine=round(nearest_cosine, 4),
        expected_cosine={e: round(v, 4) for e, v in expected.items()},
        relative={e: round(v, 4) for e, v in relative.items()},
        coverage=round(coverage, 4),
        random_hits=round(random_hits, 4),
        hits={e: round(v, 4) for e, v in hits.items()},
        projections=dict(projections_for),
        verdict=verdict,
        advice=advice,
        best_projections={e: count for e, (_, count) in best.items()},
        best_cosine={e: round(value, 4) for e, (value, _) in best.items()},
        neighbour_cosine=None if neighbour is None else round(neighbour, 4),
        built_from=source.corpus,
        in_sample=source.in_sample(len(used)),
    )


def _verdict(
    name: str,
    documents: int,
    short: float,
    kept: float | None,
    hits: dict[float, float],
    expected: dict[float, float],
    neighbour: float | None,
    projections: dict[float, int],
    best: dict[float, tuple[float, int]],
    source: PackSource,
) -> tuple[str, list[str]]:
    advice = too_few_documents(
        documents,
        MIN_SAMPLE_DOCUMENTS,
        f"each document is compared with its {NEIGHBOURS} nearest and its nearest "
        f"{NEIGHBOUR_SHARE:.0%} among the other sample documents, which needs at least "
        f"{MIN_SAMPLE_DOCUMENTS}",
    )
    reference = min(hits, key=lambda e: abs(np.log(e / 10.0)))
    poor_pack = hits[reference] < POOR_HITS
    poor_recoder = kept is not None and kept < POOR_NEIGHBOURS
    if source.in_sample(documents):
        advice.append(_in_sample(name, documents, source))
    if poor_pack:
        advice.append(
            f"at epsilon {reference:g} the released candidate is as close to the document as its "
            f"nearest {NEIGHBOUR_SHARE:.0%} of the other sample documents in only "
            f"{hits[reference]:.0%} of the cases (a good fit needs {POOR_HITS:.0%}): the pack's "
            "candidates do not cover this domain well enough"
        )
        if neighbour is not None and expected[reference] >= neighbour - 0.05:
            advice.append(
                f"the releases are close to the documents (expected cosine "
                f"{expected[reference]:.3f}), but the sample's documents are as close to each "
                f"other (a document's nearest {NEIGHBOUR_SHARE:.0%} of the others at cosine "
                f"{neighbour:.3f} on average): a release says which domain a document is from, "
                "not which document it is"
            )
    if poor_recoder:
        advice.append(
            f"the pack's recoder H (the map of sentence embeddings into the space candidates are "
            f"chosen in) keeps only {kept:.0%} of each document's {NEIGHBOURS} nearest sample "
            f"documents among its {NEIGHBOURS} nearest (a good fit needs {POOR_NEIGHBOURS:.0%}): "
            "it blurs what tells this domain's documents apart"
        )
    if poor_pack or poor_recoder:
        advice += _rebuild(name, documents, source)
    for epsilon, (value, count) in best.items():
        if value > expected[epsilon] + BETTER_PROJECTIONS:
            advice.append(
                f"at epsilon {epsilon:g}, measuring depth along {count} random projections instead "
                f"of the pack's {projections[epsilon]} brings the releases closer to the "
                f"documents (expected cosine {value:.3f} against {expected[epsilon]:.3f} on this "
                f"sample): edgedp embed --projections {count}"
            )
    if short > POOR_SHORT_SHARE:
        advice.append(
            f"{short:.0%} of the documents have fewer than {SHORT_SENTENCES} sentences: "
            "DeepCandidate chooses the candidate that lies deepest among a document's sentences, "
            "and a few sentences cannot tell candidates apart, so these releases are close to a "
            "random candidate with any pack"
        )
    if documents < MIN_SAMPLE_DOCUMENTS:
        return "sample too small", advice
    if poor_pack or poor_recoder:
        return "poor", advice
    if short > POOR_SHORT_SHARE:
        return "short documents", advice
    return "good", advice


def _in_sample(name: str, documents: int, source: PackSource) -> str:
    """The advice line of a sample that is (mostly) the corpus the pack was built from."""
    if source.sample_is_corpus:
        which = f"this sample is {source.corpus}, the file {name} was built from"
    else:
        which = (
            f"{source.sample_candidates} of the sample's {documents} documents are documents "
            f"{name} was built from (their ids are among its candidates)"
        )
    return (
        f"{which}: the pack's candidates are those very documents, so this check flatters it; "
        "check it on public documents of the domain that were not used to build it"
    )


def _rebuild(name: str, documents: int, source: PackSource) -> list[str]:
    """The advice of a poor fit: build a domain pack; for a pack that already is one, how to
    improve it (never "build the pack you have")."""
    out = DOMAIN_PACK if name != DOMAIN_PACK else f"{DOMAIN_PACK}-2"
    command = (
        "edgedp-export sentences --corpus-jsonl public.jsonl --license ... "
        f"--encoder-from {name} --min-sentences 4 --out {out}"
    )
    if source.corpus is None:
        return [
            f"build a domain pack from public documents of this domain: {command} (README; or a "
            "subspace pack for SubspaceMean: edgedp-export subspace)"
        ]
    if source.in_sample(documents):
        lines = [
            f"{name} already is the domain pack of these documents (built from "
            f"{source.corpus}): building it again from them gives the same pack; to do better, "
            f"rebuild it from more public documents of this domain ({source.documents} so far)"
        ]
    else:
        lines = [
            f"{name} is itself a domain pack, built from {source.documents} public documents "
            f"({source.corpus}): if this sample is of that domain, rebuild it from more of that "
            "domain's public documents; if it is of another domain, build a pack from that "
            "domain's public documents: " + command.replace("public.jsonl", "other-domain.jsonl")
        ]
    clusters, train = source.clusters, source.train_documents
    if clusters is not None and 0 < train < DOCUMENTS_PER_CLUSTER * clusters:
        wanted = DOCUMENTS_PER_CLUSTER * clusters * max(source.documents, train) / train
        lines.append(
            f"{name}'s recoder H was trained to keep {clusters} clusters (groups of similar "
            f"documents) apart with {train} training documents, about {round(train / clusters)} "
            f"a cluster where k-means wants {DOCUMENTS_PER_CLUSTER}: rebuild it from about "
            f"{math.ceil(wanted / 100) * 100:,} public documents, or with --clusters "
            f"{max(2, train // DOCUMENTS_PER_CLUSTER)}"
        )
    return lines


def pack_fit(
    pack: SentencePack,
    documents: Sequence[Document],
    labels: Sequence[str] | None = None,
    *,
    epsilons: Sequence[float] = FIT_EPSILONS,
    source: PackSource | None = None,
) -> PackFit:
    """Estimate how DeepCandidate with ``pack`` will do on documents like ``documents``.

    ``documents`` must be PUBLIC (see the module docstring); ``labels`` (optional, one per document)
    add ``label_signal_kept``; ``source`` says where the pack came from and whether the sample is
    its corpus (default: :func:`pack_source` of the pack alone). Nothing here is private: it is a
    planning tool.
    """
    sentences = encoded_sample(pack, documents)
    recoded = [pack.recoder.recode(array) if array.shape[0] else array for array in sentences]
    table = {float(e): pack.projections_for(float(e)) for e in epsilons}
    return fit_from_embeddings(
        pack.name,
        np.asarray(pack.candidates),
        np.asarray(pack.projections),
        table,
        sentences,
        recoded,
        labels,
        depth=pack.candidate_depth,
        alternatives=sorted(set(pack.recommended_projections.values())),
        source=source if source is not None else pack_source(pack),
    )


def format_fit(fit: PackFit) -> str:
    """A short human-readable report of a :class:`PackFit`."""
    lines = [
        f"pack {fit.pack}"
        + ("" if fit.built_from is None else f" (a domain pack built from {fit.built_from})")
        + f": {fit.documents} sample documents, median {fit.median_sentences:g} "
        f"sentences, {fit.short_share:.0%} with fewer than {SHORT_SENTENCES}",
    ]
    if fit.neighbours_kept is not None:
        lines.append(
            f"recoder keeps {fit.neighbours_kept:.0%} of each document's {NEIGHBOURS} nearest "
            "sample documents among its nearest"
        )
    if fit.label_signal_kept is not None:
        lines.append(
            f"recoder keeps {fit.label_signal_kept:.0%} of the label signal (nearest centroid)"
        )
    lines.append(
        f"cosine of a random candidate {fit.random_cosine:.3f}, of the nearest candidate "
        f"{fit.nearest_cosine:.3f} (mean over documents)"
        + (
            ""
            if fit.neighbour_cosine is None
            else f"; a document's nearest {NEIGHBOUR_SHARE:.0%} of the sample: "
            f"{fit.neighbour_cosine:.3f}"
        )
    )
    for epsilon, value in fit.expected_cosine.items():
        lines.append(
            f"epsilon {epsilon:g}: expected cosine {value:.3f} ({fit.relative[epsilon]:.0%} of the "
            f"way from random to nearest), release as close as the document's nearest "
            f"{NEIGHBOUR_SHARE:.0%} of the sample: {fit.hits[epsilon]:.0%} (random candidate "
            f"{fit.random_hits:.0%}; {fit.projections[epsilon]} projections)"
        )
    lines.append(f"fit: {fit.verdict}")
    lines += [f"- {advice}" for advice in fit.advice]
    return "\n".join(lines)
