"""The public side of DeepCandidate: candidate set, projections, their recommended count, the box.

* Candidate set F (SentDP Sec. 4.1): the mean recoded sentence embedding of public training
  documents with at least ``min_sentences`` sentences (8 in the paper), at most ``limit`` of them
  (5,000 in the paper; a seeded sample when there are more).
* Projections: ``count`` unit vectors drawn from a public seed; stored in the pack so that every
  device uses the same ones. They depend on nothing but the seed.
* Recommended number of projections p per epsilon (SentDP A.4 takes the best p in 10..100 on
  validation data): for every public validation document, the *exact* output distribution of
  DeepCandidate is computed (no sampling noise) and scored by the expected cosine similarity between
  the released candidate and the document's own (non-private) recoded mean; p maximizes the
  average. Labels are not needed, so a user's unlabelled corpus works the same way.
* Truncation box: the central ``coverage`` (75 %) interval of every dimension of the public training
  documents' mean sentence embeddings (Li and Clifton; SentDP A.3).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tqdm import tqdm

from edgedp.documents.tukey import CandidateDepth
from edgedp.errors import InputError
from edgedp.privacy.noise import exponential_mechanism_coefficient

PROJECTION_GRID = (10, 20, 30, 50, 75, 100)
EPSILON_GRID = (1.0, 3.0, 6.0, 10.0, 23.0, 30.0)


def document_means(documents: Sequence[np.ndarray]) -> np.ndarray:
    """The mean of each document's sentence embeddings (float32 rows)."""
    return np.stack([document.mean(axis=0, dtype=np.float64) for document in documents]).astype(
        np.float32
    )


def select_candidates(
    recoded: Sequence[np.ndarray], ids: Sequence[str], *, min_sentences: int, limit: int, seed: int
) -> tuple[np.ndarray, list[str]]:
    """Candidate embeddings (recoded means) and the id of the public document behind each."""
    eligible = [i for i, document in enumerate(recoded) if document.shape[0] >= min_sentences]
    if not eligible:
        raise InputError(
            f"no public training document has {min_sentences} sentences or more, the fewest a "
            "candidate needs (--min-sentences): give longer documents or a smaller --min-sentences"
        )
    if len(eligible) > limit:
        chosen = np.random.default_rng(seed).choice(len(eligible), size=limit, replace=False)
        eligible = [eligible[i] for i in sorted(chosen)]
    return document_means([recoded[i] for i in eligible]), [ids[i] for i in eligible]


def public_projections(count: int, dims: int, seed: int) -> np.ndarray:
    """``count`` unit vectors uniform on the sphere, from a public seed (float32)."""
    normals = np.random.default_rng(seed).standard_normal((count, dims))
    return (normals / np.linalg.norm(normals, axis=1, keepdims=True)).astype(np.float32)


def truncation_box(document_embeddings: np.ndarray, coverage: float = 0.75) -> np.ndarray:
    """(2, d) float32: the central ``coverage`` interval of every dimension."""
    tail = (1.0 - coverage) / 2
    low, high = np.quantile(document_embeddings.astype(np.float64), [tail, 1.0 - tail], axis=0)
    return np.stack([low, high]).astype(np.float32)


def expected_cosines(
    candidates: np.ndarray,
    projections: np.ndarray,
    documents: Sequence[np.ndarray],
    *,
    epsilons: Sequence[float] = EPSILON_GRID,
    grid: Sequence[int] = PROJECTION_GRID,
) -> np.ndarray:
    """E[cos(released candidate, document mean)] averaged over documents: (epsilons, grid)."""
    depth = CandidateDepth(candidates, projections)
    unit = candidates / np.linalg.norm(candidates, axis=1, keepdims=True)
    coefficients = np.array([exponential_mechanism_coefficient(e, 1.0) for e in epsilons])
    totals = np.zeros((len(epsilons), len(grid)))
    for document in tqdm(documents, desc="choosing projections", unit="doc"):
        mean = document.mean(axis=0, dtype=np.float64)
        cosines = unit @ (mean / np.linalg.norm(mean))
        for column, count in enumerate(grid):
            scores = coefficients[:, None] * depth.first(count).depths(document)[None, :]
            weights = np.exp(scores - scores.max(axis=1, keepdims=True))
            totals[:, column] += (weights @ cosines) / weights.sum(axis=1)
    return totals / len(documents)


def recommend_projections(
    scores: np.ndarray,
    *,
    epsilons: Sequence[float] = EPSILON_GRID,
    grid: Sequence[int] = PROJECTION_GRID,
) -> list[dict[str, Any]]:
    """Per epsilon, the projection count with the highest score (the smallest on ties)."""
    rows = []
    for row, epsilon in enumerate(epsilons):
        best = int(np.argmax(scores[row]))
        rows.append(
            {
                "epsilon": float(epsilon),
                "projections": int(grid[best]),
                "expected_cosine": round(float(scores[row, best]), 6),
                "expected_cosine_by_projections": {
                    str(count): round(float(value), 6)
                    for count, value in zip(grid, scores[row], strict=True)
                },
            }
        )
    return rows
