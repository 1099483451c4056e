"""How much of a document's mean embedding :class:`SubspaceMean` keeps, estimated from PUBLIC documents.

The rule that chooses d' and the clip radius C (``edgedp-export subspace``) and the fit check of a
subspace pack on a sample (``edgedp packs fit``) share one estimate, the **signal kept**: the share
of the variance of the non-private mean sentence embedding of a k-sentence document (all 384
dimensions, around its mean over documents) that the best linear function of the release explains,

    signal kept = tr(Cov(x, y) Cov(y)^-1 Cov(y, x)) / tr(Cov(x)),

where x is the document's mean sentence embedding and y = z + noise its release (z the mean of the
clipped projections, the noise of the mechanism: E ||noise||^2 / d' per coordinate, exact for the
pack's lattice). It counts what the subspace leaves out, what clipping distorts (through the
cross-covariance, not as a bias to subtract: a clip that shrinks every document alike costs nothing)
and the noise; it is invariant to rescaling the release, as a linear classifier is. 1 means a linear
probe of the release recovers the non-private embedding as well as the embedding itself; 0, nothing.

The covariances are those of the means of k-sentence public documents: every public document with
at least k sentences, cut to its first k (for a k longer than :data:`MIN_DOCUMENTS` public documents
reach, the longest k they do: an estimate with more within-document variance than k sentences have,
so it errs low). They are sample covariances, so the estimate is a proper R^2 in [0, 1]. Everything
is computed from public documents; nothing here is private or noisy, and it must **never** run on
private documents (its output is an exact function of them).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from edgedp.documents.mechanism import Document
from edgedp.documents.subspace_pack import SubspacePack
from edgedp.errors import InputError
from edgedp.evaluation.public_sample import (
    FIT_EPSILONS,
    MIN_SAMPLE_DOCUMENTS,
    corpus_of,
    encoded_sample,
    too_few_documents,
)
from edgedp.evaluation.task_probe import task_kept, usable_labels
from edgedp.privacy.noise import KNORM_MAX_DIMS, lattice_release

#: The grids of the rule (edgedp-export subspace): d', clip quantiles, k, epsilon, delta.
DIMS_GRID = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)
CLIP_QUANTILES = (0.05, 0.25, 0.5)
SENTENCES_GRID = (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 128)
EPSILON_GRID = (0.5, 1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 30.0, 50.0)
DELTA_GRID = (1e-5, 1e-6, 1e-7, 1e-8)
#: Documents (per fold) the statistics are computed on: second moments need no more.
STATISTICS_DOCUMENTS = 2000
#: Public documents of at least k sentences needed to estimate the covariances of k-sentence means.
MIN_DOCUMENTS = 30
#: Principal directions of the document means on which Cov(x, z) is computed (see spectra).
CROSS_DIRECTIONS = 128


@dataclass(frozen=True)
class SignalSpectrum:
    """What the signal kept of one (d', C, k) needs: the eigenvalues of Cov(z) (z the mean of the
    clipped projections of a k-sentence public document), the weights w_j = v_j^T Cov(z, x)
    Cov(x, z) v_j of their eigenvectors (x the document's mean sentence embedding, all dims) and
    tr Cov(x). Then signal kept = sum_j w_j / (lambda_j + noise variance) / tr Cov(x)."""

    dims: int
    clip: float
    sentences: int
    documents: int
    values: np.ndarray
    weights: np.ndarray
    total: float

    def signal_kept(self, noise_variance: float) -> float:
        """The share of the non-private mean's variance a linear probe of the release recovers,
        with ``noise_variance`` per coordinate on the mean (mean units)."""
        return float(self.curve(np.array([noise_variance]))[0])

    def curve(self, noise_variances: np.ndarray) -> np.ndarray:
        """:meth:`signal_kept` for several noise variances at once."""
        noise = np.asarray(noise_variances, dtype=np.float64)[:, None]
        denominators = self.values[None, :] + noise
        safe = np.where(denominators > 0, denominators, 1.0)
        explained = np.where(denominators > 0, self.weights[None, :] / safe, 0.0)
        if self.total <= 0:
            return np.zeros(noise.shape[0])
        result: np.ndarray = np.clip(explained.sum(axis=1) / self.total, 0.0, 1.0)
        return result


def projection_norms(
    documents: Sequence[np.ndarray], mean: np.ndarray, basis: np.ndarray
) -> np.ndarray:
    """||P_d' (s - mu)|| of every public sentence for every d' (shape (sentences, directions))."""
    projected = (np.concatenate(documents).astype(np.float64) - mean) @ basis.T
    norms: np.ndarray = np.sqrt(np.cumsum(projected * projected, axis=1))
    return norms


def supported_length(lengths: Sequence[int], sentences: int) -> int:
    """The k whose statistics stand for ``sentences``: itself if at least :data:`MIN_DOCUMENTS`
    public documents have that many sentences, else the longest k that many reach (at least 1)."""
    ordered = sorted(lengths, reverse=True)
    reachable = ordered[MIN_DOCUMENTS - 1] if len(ordered) >= MIN_DOCUMENTS else ordered[-1]
    return max(1, min(sentences, reachable))


def spectra(
    documents: Sequence[np.ndarray],
    mean: np.ndarray,
    basis: np.ndarray,
    settings: Sequence[tuple[int, float]],
    sentences: Sequence[int] = SENTENCES_GRID,
) -> dict[tuple[int, float, int], SignalSpectrum]:
    """:class:`SignalSpectrum` of every (d', C) of ``settings`` and every k of ``sentences``, from
    public ``documents`` (sentence embeddings per document), ``mean`` and the rows of ``basis``.

    Each sentence is projected and clipped once per (d', C); the means of documents cut to their
    first k sentences come from prefix sums; a k that falls back to the same supported length
    (:func:`supported_length`) shares its computation. Cov(x, z) is computed on the leading
    :data:`CROSS_DIRECTIONS` principal directions of the document means x (the rest of x carries
    little variance, and nearly none that a projection on public directions can correlate with);
    tr Cov(x) is exact.
    """
    used = [np.asarray(d, dtype=np.float64) for d in documents if len(d) > 0]
    if len(used) < 3:
        raise InputError("the signal estimate needs at least 3 public documents with sentences")
    lengths = np.array([len(d) for d in used])
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    centred = np.concatenate(used) - mean
    widest = max(dims for dims, _ in settings)
    projected = centred @ np.asarray(basis[:widest], dtype=np.float64).T
    norms = np.sqrt(np.cumsum(projected * projected, axis=1))
    clipped = {}
    for dims, clip in settings:
        factors = np.minimum(1.0, clip / np.where(norms[:, dims - 1] > 0, norms[:, dims - 1], 1))
        clipped[(dims, clip)] = _prefix(projected[:, :dims] * factors[:, None])
    prefix_x = _prefix(centred)
    # Cov(x, z) on the leading principal directions of the (whole) document means.
    means = (prefix_x[starts + lengths] - prefix_x[starts]) / lengths[:, None]
    means = means - means.mean(axis=0)
    _, vectors = np.linalg.eigh(means.T @ means)
    leading = vectors[:, ::-1][:, :CROSS_DIRECTIONS]
    by_length: dict[int, dict[tuple[int, float], tuple[np.ndarray, np.ndarray, float, int]]] = {}
    out: dict[tuple[int, float, int], SignalSpectrum] = {}
    for k in sentences:
        length = supported_length(lengths.tolist(), k)
        if length not in by_length:
            rows = np.flatnonzero(lengths >= length)
            x = (prefix_x[starts[rows] + length] - prefix_x[starts[rows]]) / length
            x = x - x.mean(axis=0)
            scale = max(len(rows) - 1, 1)
            total = float((x * x).sum()) / scale
            reduced = x @ leading
            by_length[length] = {}
            for key, prefix in clipped.items():
                z = (prefix[starts[rows] + length] - prefix[starts[rows]]) / length
                z = z - z.mean(axis=0)
                values, vectors = np.linalg.eigh(z.T @ z / scale)
                cross = (reduced.T @ z / scale) @ vectors  # Cov(x, z) v_j
                by_length[length][key] = (
                    np.maximum(values, 0.0),
                    (cross * cross).sum(axis=0),
                    total,
                    len(rows),
                )
        for (dims, clip), (values, weights, total, count) in by_length[length].items():
            out[(dims, clip, k)] = SignalSpectrum(dims, clip, k, count, values, weights, total)
    return out


def _prefix(rows: np.ndarray) -> np.ndarray:
    """Prefix sums with a leading zero row: sum of rows[a:b] = prefix[b] - prefix[a]."""
    out = np.zeros((rows.shape[0] + 1, rows.shape[1]))
    np.cumsum(rows, axis=0, out=out[1:])
    return out


@lru_cache(maxsize=65536)
def noise_variance(dims: int, clip: float, epsilon: float, delta: float) -> float:
    """Per-coordinate variance of SubspaceMean's noise on the *sum* (value units; divide by k^2
    for the mean): E ||noise||^2 / d' of the pack's lattice release, times grid^2."""
    release = lattice_release(clip, dims, epsilon, delta or None)
    return release.noise_energy() / dims * release.grid**2


@dataclass(frozen=True)
class Choice:
    """The best (d', C) for (epsilon, delta, k) and the signal it keeps (cross-fitted)."""

    epsilon: float
    delta: float
    sentences: int
    dims: int
    quantile: float
    signal: float


#: One cross-fitting fold: spectra measured on held-out documents, and the clip quantile of
#: each (d', C) on the fitting documents.
Fold = tuple[dict[tuple[int, float, int], SignalSpectrum], dict[tuple[int, float], float]]


def choose(
    folds: Sequence[Fold],
    *,
    epsilons: Sequence[float] = EPSILON_GRID,
    deltas: Sequence[float] = (0.0, *DELTA_GRID),
    sentences: Sequence[int] = SENTENCES_GRID,
) -> list[Choice]:
    """For every (epsilon, delta, k): the (d', clip quantile) of largest signal kept, averaged
    over ``folds``. Each fold is (statistics by (d', C) on held-out documents, the quantile of
    each (d', C)): its basis was fitted on other documents, so the estimate is not in-sample.
    Pure epsilon (delta 0) considers at most :data:`KNORM_MAX_DIMS` directions."""
    settings = [(e, d) for e in epsilons for d in deltas]
    # signal[(dims, quantile)][k] = array over settings, averaged over the folds.
    signal: dict[tuple[int, float], dict[int, np.ndarray]] = {}
    for measured, quantiles in folds:
        for (dims, clip, k), spectrum in measured.items():
            variances = np.array(
                [
                    noise_variance(dims, clip, e, d) if d or dims <= KNORM_MAX_DIMS else np.inf
                    for e, d in settings
                ]
            )
            row = signal.setdefault((dims, quantiles[(dims, clip)]), {})
            row[k] = row.get(k, 0.0) + spectrum.curve(variances / (k * k)) / len(folds)
    choices = []
    keys = sorted(signal)
    for k in sentences:
        table = np.stack([signal[key][k] for key in keys])  # (keys, settings)
        best = np.argmax(table, axis=0)
        for column, (epsilon, delta) in enumerate(settings):
            dims, quantile = keys[int(best[column])]
            choices.append(
                Choice(epsilon, delta, k, dims, quantile, float(table[best[column], column]))
            )
    return choices


def fit_subspace(
    documents: Sequence[np.ndarray], directions: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mu, the leading principal directions of the document means around mu, their variances).

    mu is the mean of the sentence embeddings; at most ``directions`` directions, and fewer than
    the documents (the rest carry no variance). What ``edgedp-export subspace`` stores.
    """
    mean = np.concatenate(documents).astype(np.float64).mean(axis=0)
    centred = np.stack([document.mean(axis=0) for document in documents]).astype(np.float64) - mean
    values, vectors = np.linalg.eigh(centred.T @ centred / len(documents))
    order = np.argsort(values)[::-1]
    count = min(directions, len(documents) - 1, len(values))
    return mean, vectors[:, order[:count]].T, np.maximum(values[order[:count]], 0.0)


def dims_grid(count: int) -> list[int]:
    """The d' of :data:`DIMS_GRID` a basis of ``count`` directions can serve."""
    return [dims for dims in DIMS_GRID if dims <= count] or [count]


def _fold(
    fit: Sequence[np.ndarray], held: Sequence[np.ndarray], directions: int, sentences: Sequence[int]
) -> Fold:
    """Directions and radii from ``fit``, spectra on (at most 2,000 of) ``held`` for every k of
    ``sentences`` (any k, not only the grid's: ``packs fit`` asks for the sample's median)."""
    mean, basis, _ = fit_subspace(fit, directions)
    norms = projection_norms(fit, mean, basis)
    settings = {
        (dims, float(np.quantile(norms[:, dims - 1], quantile))): quantile
        for dims in dims_grid(basis.shape[0])
        for quantile in CLIP_QUANTILES
    }
    measured = spectra(held[:STATISTICS_DOCUMENTS], mean, basis, list(settings), sentences)
    return measured, settings


def cross_fitted_choices(
    documents: Sequence[np.ndarray],
    directions: int,
    seed: int,
    *,
    epsilons: Sequence[float] = EPSILON_GRID,
    deltas: Sequence[float] = (0.0, *DELTA_GRID),
    sentences: Sequence[int] = SENTENCES_GRID,
) -> list[Choice]:
    """The (d', clip quantile) of every (epsilon, delta, k), cross-fitted: directions and radii
    fitted on one seeded half of the public documents, the signal measured on the other, both
    ways, averaged (:func:`choose`)."""
    order = np.random.default_rng(seed).permutation(len(documents))
    half = len(documents) // 2
    first = [documents[i] for i in order[:half]]
    second = [documents[i] for i in order[half:]]
    folds = [
        _fold(first, second, directions, sentences),
        _fold(second, first, directions, sentences),
    ]
    return choose(folds, epsilons=epsilons, deltas=deltas, sentences=sentences)


# -- the fit check of a subspace pack (edgedp packs fit) ---------------------------------------------

#: A domain pack is fitted on the sample (cross-fitted halves) from this many documents on.
DOMAIN_SAMPLE_DOCUMENTS = 60
#: Public documents a domain pack should be built from: in the held-out study (bench/README.md,
#: "domains") 200 kept within 5 points of 1,000 on most domains; 25 to 100 already kept most of it.
RECOMMENDED_DOMAIN_DOCUMENTS = 200
#: A domain subspace pack is advised when it would keep this much more signal at epsilon 10.
BETTER_SIGNAL = 0.1
#: The output directory the rebuild advice names (never the pack that was given).
DOMAIN_PACK = "my-subspace-pack"


@dataclass(frozen=True)
class SubspaceFit:
    """How SubspaceMean with a subspace pack will do on documents like a PUBLIC sample.

    ``signal[epsilon]``: the signal kept (module docstring) by the pack's (d', C) for the sample's
    median number of sentences k, measured on the sample; ``domain_signal[epsilon]``: the same for
    a pack built from the sample itself (cross-fitted halves: an estimate of what a domain pack
    from documents like these keeps; None below 60 documents); ``clipped_share``: the share of
    the sample's sentences whose projection the clip shortens (at epsilon 10); ``task_kept[epsilon]``
    (a sample whose every record has a ``"label"``): the share of a linear probe's macro-F1 above
    chance that simulated releases keep for those labels (:mod:`edgedp.evaluation.task_probe`; None
    per epsilon where the non-private mean itself is near chance), the estimate that ranks domains
    as a classifier trained on the releases does.
    """

    pack: str
    documents: int
    median_sentences: float
    single_share: float
    clipped_share: float
    dims: dict[float, int]
    signal: dict[float, float]
    domain_signal: dict[float, float] | None
    verdict: str
    advice: list[str]
    task_kept: dict[float, float | None] | None = None

    def as_dict(self) -> dict[str, object]:
        data = dataclasses.asdict(self)
        for key in ("dims", "signal", "domain_signal", "task_kept"):
            if data[key] is not None:
                data[key] = {f"{epsilon:g}": value for epsilon, value in data[key].items()}
        return data


def subspace_fit(
    name: str,
    mean: np.ndarray,
    basis: np.ndarray,
    recommend: Callable[[float, int], tuple[int, float]],
    documents: Sequence[np.ndarray],
    labels: Sequence[str] | None = None,
    built_from_corpus: bool = False,
) -> SubspaceFit:
    """:class:`SubspaceFit` from a PUBLIC sample's sentence embeddings (and its labels, if any);
    ``recommend(epsilon, k)`` is the pack's (d', C) (:meth:`SubspacePack.recommendation`);
    ``built_from_corpus``: the pack is itself a domain pack (its advice is then never "build a
    domain pack"). Nothing here is private."""
    if labels is not None:
        labels = [tag for tag, d in zip(labels, documents, strict=True) if len(d) > 0]
    used = [np.asarray(d, dtype=np.float64) for d in documents if len(d) > 0]
    if len(used) < 3:
        raise InputError("the sample needs at least 3 documents with a sentence")
    lengths = np.array([len(d) for d in used])
    k = max(1, int(np.median(lengths)))
    dims: dict[float, int] = {}
    signal: dict[float, float] = {}
    for epsilon in FIT_EPSILONS:
        width, clip = recommend(epsilon, k)
        spectrum = spectra(used, mean, basis, [(width, clip)], sentences=[k])[(width, clip, k)]
        dims[epsilon] = width
        signal[epsilon] = round(
            spectrum.signal_kept(noise_variance(width, clip, epsilon, 0.0) / (k * k)), 4
        )
    width, clip = recommend(10.0, k)
    norms = projection_norms(used, mean, basis[:width])[:, width - 1]
    clipped = float(np.mean(norms > clip))
    domain = None
    if len(used) >= DOMAIN_SAMPLE_DOCUMENTS:
        choices = cross_fitted_choices(
            used, int(basis.shape[0]), 0, epsilons=FIT_EPSILONS, deltas=(0.0,), sentences=[k]
        )
        domain = {c.epsilon: round(c.signal, 4) for c in choices}
    task = None
    if labels is not None and usable_labels(labels):
        plain = np.stack([d.mean(axis=0) for d in used])

        def releases_at(epsilon: float) -> Callable[[np.random.Generator], np.ndarray]:
            return lambda rng: simulated_releases(used, mean, basis, recommend, epsilon, rng)

        task = {
            epsilon: _rounded(task_kept(releases_at(epsilon), plain, labels))
            for epsilon in FIT_EPSILONS
        }
    verdict, advice = _subspace_verdict(
        name, len(used), float(np.mean(lengths < 2)), k, signal, domain, built_from_corpus
    )
    return SubspaceFit(
        pack=name,
        documents=len(used),
        median_sentences=float(np.median(lengths)),
        single_share=round(float(np.mean(lengths < 2)), 4),
        clipped_share=round(clipped, 4),
        dims=dims,
        signal=signal,
        domain_signal=domain,
        verdict=verdict,
        advice=advice,
        task_kept=task,
    )


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def simulated_releases(
    documents: Sequence[np.ndarray],
    mean: np.ndarray,
    basis: np.ndarray,
    recommend: Callable[[float, int], tuple[int, float]],
    epsilon: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """SubspaceMean's releases of PUBLIC documents, each at its own k with the pack's (d', C), the
    noise Gaussian with the lattice release's per-coordinate variance (the probe sees the second
    moment; the exact sampler is not needed to estimate it). Rows padded with zeros to the widest
    d'."""
    settings = [recommend(epsilon, len(d)) for d in documents]
    rows = np.zeros((len(documents), max(dims for dims, _ in settings)))
    for row, (document, (dims, clip)) in enumerate(zip(documents, settings, strict=True)):
        projected = (document - mean) @ np.asarray(basis[:dims], dtype=np.float64).T
        norms = np.linalg.norm(projected, axis=1)
        factors = np.minimum(1.0, clip / np.where(norms > 0, norms, 1.0))
        spread = math.sqrt(noise_variance(dims, clip, epsilon, 0.0)) / len(document)
        noise = spread * rng.standard_normal(dims)
        rows[row, :dims] = (projected * factors[:, None]).mean(axis=0) + noise
    return rows


def _subspace_verdict(
    name: str,
    documents: int,
    single: float,
    sentences: int,
    signal: dict[float, float],
    domain: dict[float, float] | None,
    built_from_corpus: bool = False,
) -> tuple[str, list[str]]:
    advice = too_few_documents(
        documents,
        MIN_SAMPLE_DOCUMENTS,
        f"the signal estimate needs at least {MIN_SAMPLE_DOCUMENTS}, the comparison with a "
        f"domain pack {DOMAIN_SAMPLE_DOCUMENTS}",
    )
    if not advice and domain is None:
        advice.append(
            f"with {DOMAIN_SAMPLE_DOCUMENTS} or more sample documents the check also estimates what "
            "a domain pack built from documents like these would keep"
        )
    poor = domain is not None and domain[10.0] >= signal[10.0] + BETTER_SIGNAL
    if poor and domain is not None and built_from_corpus:
        # The pack is itself a domain pack: advising "build a domain pack" would send the user in
        # a circle. Say what the gap can mean instead.
        advice.append(
            f"a pack fitted to documents like these would keep {domain[10.0]:.0%} of the signal at "
            f"epsilon 10 against {signal[10.0]:.0%} with {name}, which was itself built from a "
            "domain corpus: if this sample is of that domain, rebuild the pack from more of its "
            f"public documents ({RECOMMENDED_DOMAIN_DOCUMENTS} or more); if not, this sample is "
            "of another domain and wants a pack of its own"
        )
    elif poor and domain is not None:
        out = DOMAIN_PACK if name != DOMAIN_PACK else f"{DOMAIN_PACK}-2"
        advice.append(
            f"a subspace pack built from documents like these would keep {domain[10.0]:.0%} of the "
            f"signal at epsilon 10 against {signal[10.0]:.0%} with {name}: build one from public "
            f"documents of this domain ({RECOMMENDED_DOMAIN_DOCUMENTS} or more): "
            "edgedp-export subspace --corpus-jsonl public.jsonl "
            f"--license ... --encoder-from {name} --out {out} (README)"
        )
    if sentences < 2 or single > 0.5:
        advice.append(
            f"the median document has {sentences} sentence(s): with any pack, the release of a "
            "one-sentence document is mostly noise, and that of a document without sentences "
            "the public mean"
        )
    if documents < MIN_SAMPLE_DOCUMENTS:
        return "sample too small", advice
    if poor:
        return "poor", advice
    if sentences < 2 or single > 0.5:
        return "short documents", advice
    return "good", advice


def format_subspace_fit(fit: SubspaceFit) -> str:
    """A short human-readable report of a :class:`SubspaceFit`."""
    lines = [
        f"pack {fit.pack}: {fit.documents} sample documents, median {fit.median_sentences:g} "
        f"sentences, {fit.single_share:.0%} with fewer than 2; the clip shortens "
        f"{fit.clipped_share:.0%} of the sentences (epsilon 10)",
        "signal kept (share of the non-private mean embedding's variance a linear probe of the "
        "release recovers, for the median document):",
    ]
    for epsilon, value in fit.signal.items():
        domain = (
            ""
            if fit.domain_signal is None
            else f"; a pack from documents like these: {fit.domain_signal[epsilon]:.0%}"
        )
        lines.append(f"  epsilon {epsilon:g}: {value:.0%} with {fit.dims[epsilon]} dims{domain}")
    if fit.task_kept is not None:
        lines.append(
            "your labels: macro-F1 of a linear probe trained on releases, share kept above chance "
            "(simulated on the sample):"
        )
        for epsilon, kept in fit.task_kept.items():
            shown = (
                "n/a: the labels are near chance even without noise"
                if kept is None
                else f"{kept:.0%}"
            )
            lines.append(f"  epsilon {epsilon:g}: {shown}")
    lines.append(f"fit: {fit.verdict}")
    lines += [f"- {advice}" for advice in fit.advice]
    return "\n".join(lines)


def subspace_pack_fit(
    pack: SubspacePack, documents: Sequence[Document], labels: Sequence[str] | None = None
) -> SubspaceFit:
    """Estimate how SubspaceMean with ``pack`` will do on PUBLIC documents like ``documents``
    (and for their ``labels``' task, if given)."""
    embeddings = encoded_sample(pack, documents)

    def recommend(epsilon: float, sentences: int) -> tuple[int, float]:
        row = pack.recommendation(epsilon, 0.0, sentences)
        return row.dims, row.clip

    from_corpus = corpus_of(pack.manifest.data) is not None
    return subspace_fit(
        pack.name, pack.mean, pack.basis, recommend, embeddings, labels, from_corpus
    )
