"""Approximate Tukey depth: equals a brute-force O(m k p) reference, known configurations, and the
sensitivity that DeepCandidate's privacy proof needs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sentence_helpers import unit_rows

from edgedp.documents.tukey import CandidateDepth, approximate_tukey_depth
from edgedp.errors import InputError


def brute_force_depth(points: np.ndarray, candidates: np.ndarray, projections: np.ndarray):
    """The definition, one candidate, projection and point at a time."""
    depths = []
    for candidate in candidates:
        per_projection = []
        for direction in projections:
            value = float(direction @ candidate)
            above = sum(1 for point in points if float(direction @ point) >= value)
            below = sum(1 for point in points if float(direction @ point) <= value)
            per_projection.append(min(above, below))
        depths.append(min(per_projection))
    return np.array(depths)


@pytest.mark.parametrize("seed", range(12))
def test_equals_brute_force_on_random_small_cases(seed):
    rng = np.random.default_rng(seed)
    m, k, p, d = rng.integers(1, 40), rng.integers(0, 15), rng.integers(1, 12), rng.integers(1, 6)
    points = rng.standard_normal((k, d))
    candidates = rng.standard_normal((m, d)) * 0.7
    projections = unit_rows(rng, p, d)
    depths = approximate_tukey_depth(points, candidates, projections)
    assert depths.dtype == np.int64 and depths.shape == (m,)
    assert np.array_equal(depths, brute_force_depth(points, candidates, projections))


def test_equals_brute_force_with_ties():
    # Integer coordinates and axis projections: many exact ties between candidates and points.
    rng = np.random.default_rng(5)
    points = rng.integers(-2, 3, size=(9, 3)).astype(float)
    candidates = np.vstack([points[:4], rng.integers(-2, 3, size=(20, 3)).astype(float)])
    projections = np.vstack([np.eye(3), unit_rows(rng, 4, 3)])
    assert np.array_equal(
        approximate_tukey_depth(points, candidates, projections),
        brute_force_depth(points, candidates, projections),
    )


def test_known_configurations():
    # 2k points symmetric about the origin: the centre is as deep as possible, far points have 0.
    rng = np.random.default_rng(0)
    half = rng.standard_normal((10, 8))
    points = np.vstack([half, -half])
    projections = unit_rows(rng, 50, 8)
    candidates = np.vstack([np.zeros(8), 100 * np.ones(8), -100 * np.ones(8), half[0] * 1e3])
    depths = approximate_tukey_depth(points, candidates, projections)
    assert depths.tolist() == [10, 0, 0, 0]
    # A point equal to all k sentences lies in every closed halfspace through it: depth k.
    same = np.ones((5, 3))
    assert approximate_tukey_depth(same, np.ones((1, 3)), unit_rows(rng, 7, 3)).tolist() == [5]


def test_minimum_over_projections_not_maximum():
    # Candidate far along e1 and central along e2: depth is its worst projection (0), not 2.
    points = np.array([[-1.0, -1.0], [1.0, 1.0], [-1.0, 1.0], [1.0, -1.0]])
    candidate = np.array([[10.0, 0.0]])
    assert approximate_tukey_depth(points, candidate, np.eye(2)).tolist() == [0]
    assert approximate_tukey_depth(points, candidate, np.eye(2)[1:]).tolist() == [2]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.integers(1, 12),
    replaced=st.integers(0, 11),
    scale=st.sampled_from([0.01, 1.0, 1e3]),
)
def test_replacing_one_point_changes_every_depth_by_at_most_one(seed, k, replaced, scale):
    rng = np.random.default_rng(seed)
    points = rng.standard_normal((k, 4))
    candidates = np.vstack([rng.standard_normal((30, 4)) * 0.5, points[:2]])
    depth = CandidateDepth(candidates, unit_rows(rng, 9, 4))
    neighbour = points.copy()
    neighbour[replaced % k] = rng.standard_normal(4) * scale  # any other sentence, however far
    before, after = depth.depths(points), depth.depths(neighbour)
    assert np.abs(before - after).max() <= 1
    assert before.min() >= 0 and before.max() <= k


def test_first_projections_match_a_fresh_computation():
    rng = np.random.default_rng(3)
    candidates, points = rng.standard_normal((50, 6)), rng.standard_normal((11, 6))
    projections = unit_rows(rng, 20, 6)
    full = CandidateDepth(candidates, projections)
    for count in (1, 7, 20):
        first = full.first(count)
        assert first.projections == count and first.candidates == 50
        expected = CandidateDepth(candidates, projections[:count]).depths(points)
        assert np.array_equal(first.depths(points), expected)
    with pytest.raises(InputError, match="only 20 projections"):
        full.first(21)
    with pytest.raises(InputError):
        full.first(0)


def test_no_points_gives_depth_zero_everywhere():
    depth = CandidateDepth(np.eye(3), np.eye(3))
    assert depth.depths(np.empty((0, 3))).tolist() == [0, 0, 0]


def test_bad_input_is_a_clear_error():
    depth = CandidateDepth(np.eye(3), np.eye(3))
    with pytest.raises(InputError, match=r"shape \(n, 3\)"):
        depth.depths(np.ones((2, 4)))
    with pytest.raises(InputError, match="finite"):
        depth.depths(np.array([[np.nan, 0.0, 0.0]]))
    with pytest.raises(InputError, match="at least one"):
        CandidateDepth(np.empty((0, 3)), np.eye(3))
    with pytest.raises(InputError, match=r"shape \(n, 3\)"):
        CandidateDepth(np.eye(3), np.ones((2, 2)))
