"""Building a ``subspace`` pack for SubspaceMean: public mean, principal directions, clip radii, d'.

The command line is :mod:`edgedp_export.commands.subspace`. No torch and no model folder: the
pack references the encoder pack of an installed sentences or subspace pack (``--encoder-from``,
:func:`edgedp_export.sentences.reuse_encoder`; a pack that carries its own encoder gets an encoder
pack written for it), the public documents' sentences are embedded with it (batched), and the rest
is linear algebra on those embeddings (seconds for 10,000 documents).

* **Mean** mu: the mean of the public sentence embeddings.
* **Directions**: the principal directions of the public *document means* around mu (the
  directions in which documents differ, which is what the release must keep; the principal
  directions of single sentences also weigh within-document variation, which averaging removes).
* **d' and the clip radius C per (epsilon, delta, k)**: the (d', clip quantile) with the largest
  *signal kept* (:mod:`edgedp.evaluation.subspace_mean_fit`: the share of the non-private mean
  embedding's variance a linear probe of the release recovers, noise of the real lattice release
  included), cross-fitted: the public documents are cut in two halves (seeded), directions and
  radii are fitted on one half and the signal is measured on the other, both ways, and averaged;
  the pack's own directions and radii are then fitted on all documents. C is a quantile of the
  public projected sentence norms ||P_d' (s - mu)||. Only public documents are read; no label is.

Every document of the corpus's train and validation splits is used (the test split, if the corpus
has one, is never read).
"""

from __future__ import annotations

import importlib.metadata
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import edgedp_export
from edgedp.documents.pack import SentencePack
from edgedp.documents.subspace_pack import SubspacePack
from edgedp.encoder.pack import EncoderPack
from edgedp.errors import InputError
from edgedp.evaluation.subspace_mean_fit import (
    CLIP_QUANTILES,
    DELTA_GRID,
    EPSILON_GRID,
    RECOMMENDED_DOMAIN_DOCUMENTS,
    SENTENCES_GRID,
    Choice,
    cross_fitted_choices,
    dims_grid,
    fit_subspace,
    projection_norms,
)
from edgedp_export.corpus import PublicCorpus
from edgedp_export.encoder_pack import encoder_reference
from edgedp_export.pack_writer import FileWriter, lines_writer, npy_writer, write_pack
from edgedp_export.sentences import (
    encode_sentences,
    encoder_pack_for,
    existing_encoder_pack,
    per_document,
    reuse_encoder,
    split_documents,
)

#: Most directions a pack stores (the largest d' any recommendation may use).
DIRECTIONS = 64
#: The clip quantile of the per-d' default radius (``SubspaceMean(..., dims=d)`` without ``clip=``).
DEFAULT_CLIP_QUANTILE = 0.25
#: A pack needs at least this many public documents with a sentence.
MIN_DOCUMENTS = 20
_VERSIONED = ("edgedp-export", "numpy", "onnxruntime", "tokenizers", "sentencex")


@dataclass(frozen=True)
class SubspaceConfig:
    """What to build; ``command`` is the canonical command line recorded in the manifest."""

    name: str
    command: str
    directions: int = DIRECTIONS
    seed: int = 0
    threads: int = 2


def library_versions() -> dict[str, str]:
    """Versions of the libraries that shaped the pack's bytes (absent ones are left out)."""
    versions = {}
    for name in _VERSIONED:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    versions["edgedp-export"] = edgedp_export.__version__
    return versions


def recommendation_rows(
    choices: list[Choice], radius: dict[tuple[int, float], float]
) -> list[dict[str, Any]]:
    """Manifest rows, one per change of (d', quantile) along k (the runtime takes the row of the
    most sentences not above k, so the rows in between add nothing)."""
    rows: list[dict[str, Any]] = []
    previous: tuple[float, float, int, float] | None = None
    ordered = sorted(choices, key=lambda c: (c.delta, c.epsilon, c.sentences))
    for choice in ordered:
        key = (choice.delta, choice.epsilon, choice.dims, choice.quantile)
        if previous == key:
            continue
        previous = key
        rows.append(
            {
                "epsilon": choice.epsilon,
                "delta": choice.delta,
                "sentences": choice.sentences,
                "dims": choice.dims,
                "quantile": choice.quantile,
                "clip": radius[(choice.dims, choice.quantile)],
                "signal": round(choice.signal, 4),
            }
        )
    return rows


@dataclass(frozen=True)
class SubspaceContents:
    """What a subspace pack holds, computed from public documents' sentence embeddings."""

    mean: np.ndarray
    basis: np.ndarray
    variances: np.ndarray
    clips: list[dict[str, Any]]
    recommended: list[dict[str, Any]]


def subspace_contents(documents: list[np.ndarray], directions: int, seed: int) -> SubspaceContents:
    """Mean, directions, default clip radii and the recommendation rows (module docstring).

    On one BLAS thread: the products are small and many, and OpenBLAS's threads made them 6.6x
    slower on a loaded 2-core machine (never slower than one thread, as edgedp.runtime.native).
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _contents(documents, directions, seed)


def _contents(documents: list[np.ndarray], directions: int, seed: int) -> SubspaceContents:
    mean, basis, variances = fit_subspace(documents, directions)
    print(
        f"choosing d' and C for {len(EPSILON_GRID)} epsilons x {len(DELTA_GRID) + 1} deltas x "
        f"{len(SENTENCES_GRID)} lengths on two halves of {len(documents):,} documents",
        file=sys.stderr,
    )
    choices = cross_fitted_choices(documents, directions, seed)
    norms = projection_norms(documents, mean, basis)
    radius = {
        (dims, quantile): float(np.quantile(norms[:, dims - 1], quantile))
        for dims in dims_grid(basis.shape[0])
        for quantile in CLIP_QUANTILES
    }
    clips = [
        {
            "dims": dims,
            "radius": radius[(dims, DEFAULT_CLIP_QUANTILE)],
            "quantile": DEFAULT_CLIP_QUANTILE,
        }
        for dims in dims_grid(basis.shape[0])
    ]
    return SubspaceContents(mean, basis, variances, clips, recommendation_rows(choices, radius))


def build_subspace_pack(
    corpus: PublicCorpus,
    encoder_from: SentencePack | SubspacePack | EncoderPack,
    config: SubspaceConfig,
    out: Path,
    *,
    force: bool,
    encoder_out: Path,
) -> tuple[Path, EncoderPack]:
    """Build, verify and atomically write a subspace pack at ``out``; the pack and its encoder
    pack (``encoder_out``: where one is written, or reused, if the source pack carries its own
    encoder)."""
    parts = reuse_encoder(encoder_from)
    existing = existing_encoder_pack(parts, encoder_out, force=force)
    encoder = parts.encoder(config.threads)
    sentences = [
        found for split in ("train", "validation") for found in split_documents(corpus, split)[1]
    ]
    if len(sentences) < MIN_DOCUMENTS:
        raise InputError(
            f"a subspace pack needs at least {MIN_DOCUMENTS} public documents with a sentence "
            f"(the corpus has {len(sentences)} outside its test split)"
        )
    if len(sentences) < RECOMMENDED_DOMAIN_DOCUMENTS:
        print(
            f"note: {len(sentences)} public documents; a pack from "
            f"{RECOMMENDED_DOMAIN_DOCUMENTS} or more keeps more (in the held-out study 200 "
            "kept within 5 points of 1,000 on most domains)",
            file=sys.stderr,
        )
    flat = [sentence for document in sentences for sentence in document]
    documents = per_document(
        encode_sentences(encoder, flat, "public sentences"), [len(d) for d in sentences]
    )
    contents = subspace_contents(documents, config.directions, config.seed)
    basis = contents.basis
    versions = library_versions()
    encoder_pack = encoder_pack_for(
        parts, existing, encoder_out, command=config.command, versions=versions, force=force
    )
    manifest = {
        "kind": "subspace",
        "name": config.name,
        "description": (
            f"SubspaceMean pack: {parts.section['model']['name']} encoder, the "
            f"{basis.shape[0]} leading directions of {len(documents):,} public documents "
            f"from {corpus.provenance['name']}"
        ),
        "source": dict(corpus.provenance),
        "build_command": config.command,
        "built_with": versions,
        "encoder": encoder_reference(encoder_pack),
        "subspace": {
            "basis": "basis.npy",
            "mean": "mean.npy",
            "count": int(basis.shape[0]),
            "space": "principal directions of the public documents' mean sentence embeddings "
            "around the public mean of sentence embeddings, leading first",
            "variances": [float(f"{v:.6g}") for v in contents.variances],
            "documents": len(documents),
            "sentences": len(flat),
            "clip": contents.clips,
            "clip_by": "quantile of the public sentences' projected norms ||P_d' (s - mu)||",
            "recommended": contents.recommended,
            "recommended_by": "largest signal kept (edgedp.evaluation.subspace_mean_fit), "
            "cross-fitted on two halves of the public documents (seed "
            f"{config.seed}); rows apply from their number of sentences up",
            "grids": {
                "dims": dims_grid(basis.shape[0]),
                "quantiles": list(CLIP_QUANTILES),
                "sentences": list(SENTENCES_GRID),
                "epsilon": list(EPSILON_GRID),
                "delta": [0.0, *DELTA_GRID],
            },
        },
        "reference": {
            "sentences": "reference_sentences.txt",
            "embeddings": "reference_embeddings.npy",
            "count": len(parts.reference_sentences),
            "computed_with": parts.reference_computed_with,
            "min_cosine": round(
                float(
                    np.min(
                        np.sum(
                            encoder.encode(list(parts.reference_sentences))
                            * parts.reference_embeddings,
                            axis=1,
                        )
                    )
                ),
                6,
            ),
        },
    }
    files: dict[str, FileWriter] = {
        "basis.npy": npy_writer(basis.astype(np.float32)),
        "mean.npy": npy_writer(contents.mean.astype(np.float32)),
        "reference_sentences.txt": lines_writer(list(parts.reference_sentences)),
        "reference_embeddings.npy": npy_writer(parts.reference_embeddings),
    }
    written = write_pack(out, manifest, files, force=force, search=[encoder_pack.path.parent])
    return written, encoder_pack
