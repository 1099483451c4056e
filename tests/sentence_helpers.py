"""Shared by the sentence-level tests: the bundled sentences pack and packs with chosen candidates."""

from __future__ import annotations

import dataclasses
from functools import cache

import numpy as np
import pytest

import edgedp
from edgedp.documents.tukey import CandidateDepth

BUNDLED_SENTENCE_PACK = "sentences-bbc"


@cache
def bundled_sentence_pack() -> edgedp.SentencePack:
    return edgedp.load_pack(BUNDLED_SENTENCE_PACK)


@pytest.fixture(scope="session")
def sentence_pack() -> edgedp.SentencePack:
    return bundled_sentence_pack()


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
