"""Subspace packs: a public low-dimensional subspace of sentence embeddings, for :class:`SubspaceMean`.

Layout of a ``subspace`` pack (``edgedp-export subspace`` builds one in seconds, without torch, from
public documents and an installed pack's encoder; see ``assets/subspace-general/manifest.json``):

* the manifest's ``encoder``: a reference, by name and manifest SHA-256, to the encoder pack of the
  sentence encoder G (``encoder-minilm``, the one the sentences pack uses: :mod:`edgedp.encoder.pack`;
  packs built before encoder packs hold ``encoder.onnx`` and ``tokenizer.json`` themselves), with
  reference sentences and torch embeddings (``reference_*``) to check it on the device
  (:meth:`SubspacePack.check_encoder`).
* ``mean.npy`` (dims,) float32: the public mean mu of sentence embeddings.
* ``basis.npy`` (count, dims) float32: public directions (principal directions of public document
  means, leading first); the mechanism uses the first d' of them. Privacy needs nothing of them
  (any public matrix works); utility needs them to carry what distinguishes documents.
* the manifest's ``subspace.clip``: the default clip radius C per d', and ``subspace.recommended``:
  the (d', C) to use per (epsilon, delta, number of sentences k), chosen on the public documents by
  the rule of :mod:`edgedp.documents.subspace_utility` (never on evaluation labels).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from edgedp.documents.pack import DocumentPack, load_references
from edgedp.encoder.pack import encoder_summary, pack_encoder
from edgedp.errors import AssetError, InputError
from edgedp.packs.loading import DEFAULT_SUBSPACE_PACK, LoadablePack
from edgedp.packs.manifest import Manifest
from edgedp.privacy.noise import KNORM_MAX_DIMS


@dataclass(frozen=True, slots=True)
class Recommendation:
    """One row of a subspace pack's table: for documents of at least ``sentences`` sentences at
    ``epsilon`` (and ``delta``; 0 for pure epsilon), use the first ``dims`` directions and clip
    radius ``clip``; ``signal`` is the estimated share of the non-private mean's variance kept."""

    epsilon: float
    delta: float
    sentences: int
    dims: int
    clip: float
    signal: float | None = None


@dataclass(frozen=True, slots=True, eq=False)
class SubspacePack(DocumentPack, LoadablePack):
    """A loaded ``subspace`` pack: the encoder, a public mean and basis, and clip radii.

    Load one with ``SubspacePack.load(name)`` (``SubspacePack.load()`` is ``subspace-general``, a
    pack distribution, not bundled) or :func:`~edgedp.load_pack`, never by hand: loading verifies
    every file. Arrays are read-only views of the verified bytes. :class:`~edgedp.SubspaceMean`
    reads one (see :mod:`edgedp.documents.subspace_pack`).

    Parameters
    ----------
    name : str
        The pack's name.
    path : Path
        Its directory.
    manifest : Manifest
        The verified manifest (file digests, dims, versions).
    encoder : SentenceEncoder
        The sentence encoder G (MiniLM, ONNX; its session is created on first use).
    reference_sentences : tuple of str
        Reference sentences, to check the encoder on this device.
    reference_embeddings : ndarray
        Their embeddings as torch computed them at export.
    reference_min_cosine : float
        The lowest cosine to them the encoder must reach here.
    mean : ndarray
        The public mean mu of sentence embeddings.
    basis : ndarray
        The public orthonormal directions P, most informative first.
    clips : Mapping of int to float
        The default clip radius C per number of directions d'.
    recommendations : tuple of Recommendation
        The table of (d', C) per epsilon, delta and document length, chosen on public documents.

    Raises
    ------
    ~edgedp.AssetError
        From :func:`~edgedp.load_pack`, for a missing, modified or inconsistent pack; from
        ``check_encoder()``, when the encoder does not reproduce the reference embeddings on this
        device.

    Notes
    -----
    Everything in the pack is public (computed from public sentences); loading it costs no
    privacy. The examples need the pack, which is not bundled with edgedp (see
    :doc:`/guide/documents`); the example below only checks the class.

    Examples
    --------
    >>> import edgedp
    >>> edgedp.SubspaceMean.pack_type is edgedp.SubspacePack
    True
    """

    mean: np.ndarray
    basis: np.ndarray
    clips: Mapping[int, float]
    recommendations: tuple[Recommendation, ...]

    PACK_KIND = "subspace"
    DEFAULT_PACK = DEFAULT_SUBSPACE_PACK

    @classmethod
    def from_manifest(cls, manifest: Manifest) -> SubspacePack:
        """Build the pack from its verified manifest (:meth:`load` is the way in)."""
        return load_subspace_pack(manifest)

    @property
    def count(self) -> int:
        """How many public directions the pack holds (the largest d')."""
        return int(self.basis.shape[0])

    @property
    def largest_clip(self) -> float:
        """:func:`largest_projected_norm` of the pack's basis and mean."""
        return largest_projected_norm(self.basis, self.mean)

    def clip_for(self, dims: int) -> float:
        """The default clip radius for the first ``dims`` directions."""
        if dims not in self.clips:
            raise InputError(
                f"pack {self.name} has no clip radius for {dims} dims; choose one of "
                f"{', '.join(map(str, sorted(self.clips)))} or pass clip="
            )
        return self.clips[dims]

    def recommendation(self, epsilon: float, delta: float, sentences: int) -> Recommendation:
        """The table row for (epsilon, delta, k): the same kind of noise (pure when delta is 0,
        else the nearest delta in log scale), the nearest epsilon in log scale (the smaller on a
        tie), and the row for the most sentences not above k (the shortest row if k is below)."""
        rows = [row for row in self.recommendations if (row.delta == 0) == (delta == 0)]
        if not rows:
            noise = "pure epsilon" if delta == 0 else "(epsilon, delta)"
            raise InputError(f"pack {self.name} has no {noise} recommendations; pass dims=")
        if delta:
            nearest_delta = min(
                {row.delta for row in rows}, key=lambda d: (abs(math.log(d / delta)), -d)
            )
            rows = [row for row in rows if row.delta == nearest_delta]
        nearest = min({row.epsilon for row in rows}, key=lambda e: (abs(math.log(e / epsilon)), e))
        rows = sorted((row for row in rows if row.epsilon == nearest), key=lambda r: r.sentences)
        fitting = [row for row in rows if row.sentences <= sentences]
        return fitting[-1] if fitting else rows[0]

    def widest(self, epsilon: float, delta: float) -> int:
        """The most dims any k is recommended at this (epsilon, delta): the output width."""
        return max(
            self.recommendation(epsilon, delta, row.sentences).dims for row in self.recommendations
        )

    def describe(self) -> dict[str, Any]:
        """A short summary for ``edgedp packs info``."""
        return {
            **self.manifest.summary(),
            "dims": self.dims,
            "directions": self.count,
            "clip": {str(dims): radius for dims, radius in self.clips.items()},
            "recommendations": len(self.recommendations),
            "encoder": encoder_summary(self.manifest.data["encoder"]),
        }


def largest_projected_norm(basis: np.ndarray, mean: np.ndarray) -> float:
    """The largest ||B (s - mu)|| a sentence embedding s (unit length: the encoder normalizes)
    can have, ||B||_2 (1 + ||mu||). A clip radius above it clips nothing and only scales the noise
    (a radius of 1e300 made every release inf): such a radius is refused."""
    spectral = float(np.linalg.norm(np.asarray(basis, np.float64), 2))
    return spectral * (1.0 + float(np.linalg.norm(np.asarray(mean, np.float64))))


def _number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return math.nan
    return float(value)


def _clips(manifest: Manifest, count: int) -> Mapping[int, float]:
    table: dict[int, float] = {}
    for row in manifest.field("subspace", "clip", (list, tuple)):
        dims, radius = row.get("dims"), _number(row.get("radius"))
        if (
            isinstance(dims, bool)
            or not isinstance(dims, int)
            or not 1 <= dims <= count
            or not (math.isfinite(radius) and radius > 0)
            or dims in table
        ):
            raise AssetError(f"pack {manifest.directory}: invalid clip entry {dict(row)}")
        table[dims] = radius
    return MappingProxyType(dict(sorted(table.items())))


def _recommendations(manifest: Manifest, count: int) -> tuple[Recommendation, ...]:
    rows = []
    for row in manifest.field("subspace", "recommended", (list, tuple)):
        epsilon, delta = _number(row.get("epsilon")), _number(row.get("delta"))
        sentences, dims, clip = row.get("sentences"), row.get("dims"), _number(row.get("clip"))
        signal = row.get("signal")
        if (
            not (math.isfinite(epsilon) and epsilon > 0)
            or not 0 <= delta < 1
            or isinstance(sentences, bool)
            or not isinstance(sentences, int)
            or sentences < 1
            or isinstance(dims, bool)
            or not isinstance(dims, int)
            or not 1 <= dims <= count
            or (delta == 0 and dims > KNORM_MAX_DIMS)
            or not (math.isfinite(clip) and clip > 0)
            or (signal is not None and not 0 <= _number(signal) <= 1)
        ):
            raise AssetError(f"pack {manifest.directory}: invalid recommendation {dict(row)}")
        rows.append(
            Recommendation(
                epsilon, delta, sentences, dims, clip, None if signal is None else float(signal)
            )
        )
    if not rows:
        raise AssetError(f"pack {manifest.directory}: no recommended dims and clip radii")
    return tuple(rows)


def load_subspace_pack(manifest: Manifest) -> SubspacePack:
    """Build a :class:`SubspacePack` from a validated manifest (files already verified)."""
    where = f"pack {manifest.directory}"
    encoder = pack_encoder(manifest)
    dims = encoder.dims
    count = manifest.field("subspace", "count", int)
    if count < 1:
        raise AssetError(f"{where}: the subspace needs at least one direction")
    basis = manifest.array(manifest.field("subspace", "basis", str), np.float32, (count, dims))
    mean = manifest.array(manifest.field("subspace", "mean", str), np.float32, (dims,))
    if not (np.isfinite(basis).all() and np.isfinite(mean).all()):
        raise AssetError(f"{where}: the basis and the mean must be finite")
    if not np.all(np.linalg.norm(basis, axis=1) > 0):
        raise AssetError(f"{where}: a basis direction is zero")
    clips, recommendations = _clips(manifest, count), _recommendations(manifest, count)
    bound = largest_projected_norm(basis, mean)
    for radius in sorted({*clips.values(), *(row.clip for row in recommendations)}):
        if radius > bound:
            raise AssetError(
                f"{where}: clip radius {radius:g} is above {bound:.4g}, the largest norm a "
                "projected sentence can have (it would release noise only)"
            )
    sentences, embeddings, min_cosine = load_references(manifest, dims)
    return SubspacePack(
        name=manifest.name,
        path=manifest.directory,
        manifest=manifest,
        encoder=encoder,
        mean=mean,
        basis=basis,
        clips=clips,
        recommendations=recommendations,
        reference_sentences=sentences,
        reference_embeddings=embeddings,
        reference_min_cosine=min_cosine,
    )
