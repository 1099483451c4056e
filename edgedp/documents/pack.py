"""Sentence packs: what the sentence-level mechanisms need on the device, loaded from a directory.

Layout of a ``sentences`` pack (see ``assets/sentences-bbc/manifest.json`` for a full example):

* the manifest's ``encoder``: a reference, by name and manifest SHA-256, to the encoder pack that
  holds the sentence encoder G (all-MiniLM-L6-v2 in ``encoder-minilm``; :mod:`edgedp.encoder.pack`).
  Packs built before encoder packs hold ``encoder.onnx`` and ``tokenizer.json`` themselves, and
  load as they did.
* ``recoder.onnx``: the recoder H (SentDP Sec. 4.3), R^d -> R^d, trained on public documents.
* ``candidates.npy`` (m, d) float32: the candidate set F, the mean recoded sentence embedding of m
  *public* documents (``candidate_sources.txt`` names each one); no text is shipped.
* ``projections.npy`` (p_max, d) float32: public random unit vectors for the approximate Tukey depth,
  shared by every device; the manifest gives the recommended count per epsilon (chosen on public
  validation documents).
* ``truncation_box.npy`` (2, d) float32: lower and upper bounds per dimension (central 75 % of public
  document embeddings) for the Truncation baseline.
* ``reference_*``: a few sentences with their embeddings computed by torch at export time, so that a
  device can check its onnxruntime encoder (:meth:`SentencePack.check_encoder`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from edgedp.documents.tukey import CandidateDepth
from edgedp.encoder.pack import encoder_summary, pack_encoder
from edgedp.encoder.sentence_encoder import Recoder, SentenceEncoder
from edgedp.errors import REBUILD_HINT, AssetError
from edgedp.packs.loading import DEFAULT_SENTENCE_PACK, LoadablePack
from edgedp.packs.manifest import Manifest


@dataclass(frozen=True, slots=True, eq=False)
class DocumentPack:
    """What every pack of the document mechanisms holds: the sentence encoder G (from the encoder
    pack its manifest references) and the reference sentences with the embeddings torch computed
    at export, to check the encoder on this device."""

    name: str
    path: Path
    manifest: Manifest
    encoder: SentenceEncoder
    reference_sentences: tuple[str, ...]
    reference_embeddings: np.ndarray
    reference_min_cosine: float

    @property
    def dims(self) -> int:
        """Dimension of the sentence embeddings (the encoder's; candidates, boxes and bases
        are checked against it at load)."""
        return self.encoder.dims

    def check_encoder(self) -> float:
        """Encode the reference sentences on this device; the lowest cosine to torch's embeddings
        (:func:`check_reference_encoder`)."""
        return check_reference_encoder(
            self.encoder,
            self.reference_sentences,
            self.reference_embeddings,
            self.reference_min_cosine,
            self.path,
        )


@dataclass(frozen=True, slots=True, eq=False)
class SentencePack(DocumentPack, LoadablePack):
    """A loaded ``sentences`` pack: the encoder, recoder, public candidates and truncation box.

    Load one with ``SentencePack.load(name)`` (``SentencePack.load()`` is ``sentences-bbc``, a pack
    distribution, not bundled) or :func:`~edgedp.load_pack`, never by hand: loading verifies every
    file. Arrays are read-only views of the verified bytes and the models are held as verified
    bytes; the onnxruntime sessions of :attr:`encoder` and :attr:`recoder` are created on first use,
    and :attr:`candidate_depth` holds the candidates projected on every stored projection, sorted
    once at load. :class:`~edgedp.DeepCandidate`, :class:`~edgedp.Truncation` and the baselines read
    one.

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
    recoder : Recoder
        The recoder H (ONNX).
    candidates : ndarray
        The public candidates: mean recoded embeddings of public documents.
    candidate_sources : tuple of str
        Where each candidate comes from.
    projections : ndarray
        Public random unit directions of the approximate Tukey depth.
    recommended_projections : Mapping of float to int
        The number of projections to use per epsilon, chosen on public validation documents.
    truncation_box : ndarray
        Truncation's box, (low, high) per dimension.
    reference_recoded : ndarray
        The reference sentences' recoded embeddings at export.
    candidate_depth : CandidateDepth
        The candidates projected on every projection, sorted.

    Raises
    ------
    ~edgedp.AssetError
        From :func:`~edgedp.load_pack`, for a missing, modified or inconsistent pack; from
        ``check_encoder()``, when the encoder does not reproduce the reference embeddings on this
        device.

    Notes
    -----
    Everything in the pack is public (candidates and boxes come from public documents); loading
    it costs no privacy. The examples need the pack, which is not bundled with edgedp (see
    :doc:`/guide/documents`); the example below only checks the class.

    Examples
    --------
    >>> import edgedp
    >>> edgedp.DeepCandidate.pack_type is edgedp.SentencePack
    True
    """

    recoder: Recoder
    candidates: np.ndarray
    candidate_sources: tuple[str, ...]
    projections: np.ndarray
    recommended_projections: Mapping[float, int]
    truncation_box: np.ndarray
    reference_recoded: np.ndarray
    candidate_depth: CandidateDepth

    PACK_KIND = "sentences"
    DEFAULT_PACK = DEFAULT_SENTENCE_PACK

    @classmethod
    def from_manifest(cls, manifest: Manifest) -> SentencePack:
        """Build the pack from its verified manifest (:meth:`load` is the way in)."""
        return load_sentence_pack(manifest)

    def projections_for(self, epsilon: float) -> int:
        """The recommended number of projections for ``epsilon`` (nearest tabulated, in log scale)."""
        table = sorted(self.recommended_projections.items())
        nearest = min(table, key=lambda item: (abs(np.log(item[0] / epsilon)), item[0]))
        return nearest[1]

    def describe(self) -> dict[str, Any]:
        """A short summary for ``edgedp packs info``."""
        data = self.manifest.data
        return {
            **self.manifest.summary(),
            "dims": self.dims,
            "candidates": int(self.candidates.shape[0]),
            "projections": int(self.projections.shape[0]),
            "recommended_projections": {str(k): v for k, v in self.recommended_projections.items()},
            "encoder": encoder_summary(data["encoder"]),
        }


def check_reference_encoder(
    encoder: SentenceEncoder,
    sentences: tuple[str, ...],
    embeddings: np.ndarray,
    min_cosine: float,
    path: Path,
) -> float:
    """Encode a pack's reference sentences on this device; the lowest cosine to the embeddings
    torch computed at export.

    Raises :class:`AssetError` if it is below the fidelity recorded at export (with a margin of
    1e-4), which would mean that this onnxruntime computes something else than the exporter.
    """
    encoded = encoder.encode(sentences)
    cosine = float(np.min(np.sum(encoded * embeddings, axis=1)))
    if cosine < min_cosine - 1e-4:
        raise AssetError(
            f"pack {path}: the ONNX encoder reproduces the torch reference embeddings only "
            f"to cosine {cosine:.6f} (export measured {min_cosine:.6f}); check "
            "the onnxruntime version or rebuild the pack"
        )
    return cosine


def load_references(manifest: Manifest, dims: int) -> tuple[tuple[str, ...], np.ndarray, float]:
    """A pack's reference sentences, their torch embeddings and the fidelity measured at export."""
    count = manifest.field("reference", "count", int)
    if count < 1:
        raise AssetError(f"pack {manifest.directory}: the reference count must be >= 1")
    return (
        manifest.lines(manifest.field("reference", "sentences", str), count),
        manifest.array(manifest.field("reference", "embeddings", str), np.float32, (count, dims)),
        float(manifest.field("reference", "min_cosine", float)),
    )


def _recommended(manifest: Manifest, available: int) -> Mapping[float, int]:
    rows = manifest.field("projections", "recommended", (list, tuple))
    table: dict[float, int] = {}
    for row in rows:
        epsilon, count = row.get("epsilon"), row.get("projections")
        if (
            isinstance(epsilon, bool)
            or not isinstance(epsilon, int | float)
            or not epsilon > 0
            or isinstance(count, bool)
            or not isinstance(count, int)
            or not 1 <= count <= available
        ):
            raise AssetError(
                f"pack {manifest.directory}: invalid recommended projections entry {dict(row)}"
            )
        table[float(epsilon)] = count
    if not table:
        raise AssetError(f"pack {manifest.directory}: no recommended projection counts")
    return MappingProxyType(dict(sorted(table.items())))


def load_sentence_pack(manifest: Manifest) -> SentencePack:
    """Build a :class:`SentencePack` from a validated manifest (files already verified)."""
    where = f"pack {manifest.directory}"
    encoder = pack_encoder(manifest)
    dims = encoder.dims
    count = manifest.field("candidates", "count", int)
    available = manifest.field("projections", "count", int)
    if count < 1 or available < 1:
        raise AssetError(f"{where}: candidates and projections must be >= 1")
    candidates = manifest.array(
        manifest.field("candidates", "file", str), np.float32, (count, dims)
    )
    projections = manifest.array(
        manifest.field("projections", "file", str), np.float32, (available, dims)
    )
    norms = np.linalg.norm(projections, axis=1)
    if not np.all(np.abs(norms - 1.0) < 1e-3):
        raise AssetError(f"{where}: projections must be unit vectors; {REBUILD_HINT}")
    box = manifest.array(manifest.field("truncation", "file", str), np.float32, (2, dims))
    if not np.all(box[1] > box[0]):
        raise AssetError(f"{where}: the truncation box needs upper > lower on every dimension")
    sentences, embeddings, min_cosine = load_references(manifest, dims)
    references = len(sentences)
    return SentencePack(
        name=manifest.name,
        path=manifest.directory,
        manifest=manifest,
        encoder=encoder,
        recoder=Recoder(manifest.contents(manifest.field("recoder", "file", str)), dims=dims),
        candidates=candidates,
        candidate_sources=manifest.lines(manifest.field("candidates", "sources", str), count),
        projections=projections,
        recommended_projections=_recommended(manifest, available),
        truncation_box=box,
        reference_sentences=sentences,
        reference_embeddings=embeddings,
        reference_recoded=manifest.array(
            manifest.field("reference", "recoded", str), np.float32, (references, dims)
        ),
        reference_min_cosine=min_cosine,
        candidate_depth=CandidateDepth(candidates, projections),
    )
