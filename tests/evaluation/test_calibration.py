"""Calibration statistics equal brute force; sampled statistics cover the exact value."""

from __future__ import annotations

import numpy as np
import pytest
from edgedp_export.calibration import hamming_statistics
from scipy.spatial.distance import pdist

from edgedp.evaluation.calibration import (
    diameter,
    exact_pairwise_statistics,
    sampled_pairwise_statistics,
)
from edgedp.privacy.randomness import public_statistics_source


@pytest.mark.parametrize("count", [2, 3, 2049, 4500])
def test_euclidean_statistics_are_exact(count):
    points = np.random.default_rng(count).standard_normal((count, 6))
    stats = exact_pairwise_statistics(points)
    distances = pdist(points)
    assert stats["average"] == pytest.approx(distances.mean(), rel=1e-12)
    assert stats["maximum"] == pytest.approx(distances.max(), rel=1e-12)
    assert stats["pairs"] == len(distances)


@pytest.mark.parametrize(("count", "nbytes"), [(2, 1), (500, 4), (3000, 8)])
def test_hamming_statistics_are_exact(count, nbytes):
    codes = np.random.default_rng(count).integers(0, 256, size=(count, nbytes), dtype=np.uint8)
    stats = hamming_statistics(codes)
    distances = pdist(np.unpackbits(codes, axis=1), "hamming") * nbytes * 8
    assert stats["average"] == pytest.approx(distances.mean(), rel=1e-12)
    assert stats["maximum"] == distances.max()


def test_pack_calibration_matches_brute_force(euclid_pack):
    calibration = euclid_pack.calibration
    vectors = np.asarray(euclid_pack.vectors, dtype=np.float64)
    bits = np.unpackbits(np.asarray(euclid_pack.codes), axis=1)
    assert calibration["euclidean"]["average"] == pytest.approx(pdist(vectors).mean(), rel=1e-9)
    assert calibration["euclidean"]["maximum"] == pytest.approx(pdist(vectors).max(), rel=1e-9)
    hamming = pdist(bits, "hamming") * bits.shape[1]
    assert calibration["hamming"]["average"] == pytest.approx(hamming.mean(), rel=1e-12)
    assert calibration["hamming"]["maximum"] == hamming.max()


def test_sampled_statistics_cover_the_exact_average_and_find_the_exact_maximum():
    points = np.random.default_rng(5).standard_normal((3000, 5)) * np.arange(1, 6)
    stats = sampled_pairwise_statistics(points, pairs=200_000, rng=public_statistics_source(1))
    exact = pdist(points)
    low, high = stats["average_ci95"]
    assert low <= exact.mean() <= high
    assert high - low < 0.01 * exact.mean()
    assert stats["maximum"] == pytest.approx(exact.max(), rel=1e-12)  # exact (pruned) search


@pytest.mark.parametrize(
    "shape",
    ["gaussian", "sphere", "two_clusters", "outlier_pair", "duplicates"],
)
def test_diameter_is_the_exact_largest_pairwise_distance(shape):
    rng = np.random.default_rng(11)
    points = rng.standard_normal((2000, 6)) * np.arange(1, 7)
    if shape == "sphere":  # every point on the boundary: the pruning keeps them all
        points /= np.linalg.norm(points, axis=1, keepdims=True)
    elif shape == "two_clusters":
        points[:1000] += 40.0
    elif shape == "outlier_pair":  # the farthest pair is not found by sweeping from the centre
        points[0], points[1] = np.full(6, 9.0), np.full(6, -9.0)
        points[2] = np.array([30.0, 0, 0, 0, 0, 0])
    elif shape == "duplicates":
        points = np.repeat(points[:10], 200, axis=0)
    assert diameter(points) == pytest.approx(pdist(points).max(), rel=1e-12)
    assert diameter(points[:1]) == 0.0
