"""Shared by the sentence-level tests: the bundled sentences pack and packs with chosen candidates."""

from __future__ import annotations

import dataclasses
import json
from functools import cache

import numpy as np
import pytest

import edgedp
from edgedp.documents.tukey import CandidateDepth
from edgedp.encoder.pack import EncoderPack, referenced_encoder_pack

BUNDLED_SENTENCE_PACK = "sentences-bbc"


@cache
def bundled_sentence_pack() -> edgedp.SentencePack:
    return edgedp.load_pack(BUNDLED_SENTENCE_PACK)


@pytest.fixture(scope="session")
def sentence_pack() -> edgedp.SentencePack:
    return bundled_sentence_pack()


@cache
def bundled_encoder_pack() -> EncoderPack:
    """The encoder pack the bundled sentences pack references (encoder-minilm)."""
    return referenced_encoder_pack(bundled_sentence_pack().manifest)


@pytest.fixture(scope="session")
def encoder_pack() -> EncoderPack:
    return bundled_encoder_pack()


def with_candidates(
    pack: edgedp.SentencePack, candidates: np.ndarray, projections: np.ndarray
) -> edgedp.SentencePack:
    """The pack with other candidates and projections (the encoder and recoder are kept)."""
    candidates = np.asarray(candidates, dtype=np.float32)
    projections = np.asarray(projections, dtype=np.float32)
    return dataclasses.replace(
        pack,
        candidates=candidates,
        candidate_sources=tuple(f"synthetic-{i}" for i in range(len(candidates))),
        projections=projections,
        candidate_depth=CandidateDepth(candidates, projections),
    )


def unit_rows(rng: np.random.Generator, count: int, dims: int) -> np.ndarray:
    rows = rng.standard_normal((count, dims))
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def write_subspace_pack(
    directory,
    basis: np.ndarray,
    mean: np.ndarray | None = None,
    *,
    clips: dict[int, float] | None = None,
    recommended: list[dict] | None = None,
    real_encoder: bool = False,
):
    """A subspace pack with a chosen basis (and mean, clip radii, recommendations) and the
    bundled sentences pack's references. With ``real_encoder`` it references the encoder pack of
    the bundled sentences pack, by digest; otherwise it carries its encoder inline, as packs did
    before encoder packs: that encoder pack's tokenizer and a placeholder model that loads but is
    never run (the tests release precomputed embeddings)."""
    from pathlib import Path

    from edgedp_export.pack_writer import lines_writer, npy_writer, write_pack

    source = bundled_sentence_pack()
    encoder_pack = bundled_encoder_pack()
    basis = np.asarray(basis, dtype=np.float32)
    count, dims = basis.shape
    mean = np.zeros(dims, dtype=np.float32) if mean is None else np.asarray(mean, np.float32)
    clips = clips or {d: 0.5 for d in range(1, count + 1)}
    if recommended is None:
        recommended = [
            {"epsilon": 10.0, "delta": 0.0, "sentences": 1, "dims": 1, "clip": clips[1]},
            {"epsilon": 10.0, "delta": 0.0, "sentences": 4, "dims": min(2, count), "clip": 0.5},
            {"epsilon": 10.0, "delta": 1e-6, "sentences": 1, "dims": count, "clip": 0.5},
        ]
    if real_encoder:
        section = dict(source.manifest.data["encoder"])
        files = {}
    else:
        section = json.loads(json.dumps(encoder_pack.manifest.data["encoder"], default=dict))
        files = {
            "encoder.onnx": lambda path: path.write_bytes(b"placeholder: never run"),
            "tokenizer.json": lambda path: path.write_bytes(
                encoder_pack.manifest.contents(encoder_pack.tokenizer_path.name)
            ),
        }
    files |= {
        "basis.npy": npy_writer(basis),
        "mean.npy": npy_writer(mean),
        "reference_sentences.txt": lines_writer(list(source.reference_sentences)),
        "reference_embeddings.npy": npy_writer(np.asarray(source.reference_embeddings)),
    }
    manifest = {
        "kind": "subspace",
        "name": Path(directory).name,
        "encoder": section,
        "subspace": {
            "basis": "basis.npy",
            "mean": "mean.npy",
            "count": count,
            "clip": [{"dims": d, "radius": r} for d, r in sorted(clips.items())],
            "recommended": recommended,
        },
        "reference": {
            "sentences": "reference_sentences.txt",
            "embeddings": "reference_embeddings.npy",
            "count": len(source.reference_sentences),
            "min_cosine": source.reference_min_cosine,
        },
    }
    return write_pack(Path(directory), manifest, files, force=True)


def orthonormal_rows(rng: np.random.Generator, count: int, dims: int) -> np.ndarray:
    """``count`` orthonormal rows in ``dims`` dimensions."""
    q, _ = np.linalg.qr(rng.standard_normal((dims, count)))
    return q.T.copy()
