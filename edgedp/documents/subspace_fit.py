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

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from edgedp.errors import InputError
from edgedp.privacy.noise import KNORM_MAX_DIMS, lattice_release

#: The grids of the rule (edgedp-export subspace): d', clip quantiles, k, epsilon, delta.
DIMS_GRID = (1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64)
CLIP_QUANTILES = (0.05, 0.1, 0.25, 0.5)
SENTENCES_GRID = (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 128)
EPSILON_GRID = (0.5, 1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 30.0, 50.0)
DELTA_GRID = (1e-5, 1e-6, 1e-7, 1e-8)
#: Documents (per fold) the statistics are computed on: second moments need no more.
STATISTICS_DOCUMENTS = 2000
#: Public documents of at least k sentences needed to estimate the covariances of k-sentence means.
MIN_DOCUMENTS = 30


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
    public ``documents`` (sentence embeddings per document), ``mean`` and the rows of ``basis``."""
    used = [np.asarray(d, dtype=np.float64) for d in documents if len(d) > 0]
    if len(used) < 3:
        raise InputError("the signal estimate needs at least 3 public documents with sentences")
    lengths = [len(d) for d in used]
    widest = max(dims for dims, _ in settings)
    directions = np.asarray(basis[:widest], dtype=np.float64)
    out: dict[tuple[int, float, int], SignalSpectrum] = {}
    for k in sentences:
        length = supported_length(lengths, k)
        cut = [d[:length] for d in used if len(d) >= length]
        x = np.stack([d.mean(axis=0) for d in cut]) - mean  # (documents, dims of the encoder)
        sentences_x = np.concatenate(cut) - mean
        projected = sentences_x @ directions.T
        squares = np.cumsum(projected * projected, axis=1)
        centred_x = x - x.mean(axis=0)
        total = float((centred_x**2).sum()) / max(len(cut) - 1, 1)
        for dims, clip in settings:
            norms = np.sqrt(squares[:, dims - 1])
            factors = np.minimum(1.0, clip / np.where(norms > 0, norms, 1.0))
            z = (projected[:, :dims] * factors[:, None]).reshape(len(cut), length, dims).mean(1)
            centred_z = z - z.mean(axis=0)
            scale = max(len(cut) - 1, 1)
            values, vectors = np.linalg.eigh(centred_z.T @ centred_z / scale)
            cross = (centred_x.T @ centred_z / scale) @ vectors  # Cov(x, z) v_j
            out[(dims, clip, k)] = SignalSpectrum(
                dims,
                clip,
                k,
                len(cut),
                np.maximum(values, 0.0),
                (cross * cross).sum(axis=0),
                total,
            )
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
