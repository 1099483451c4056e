"""Madlib: the noise law (Gamma radius, uniform direction), the output, and pack requirements."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import edgedp
from edgedp.errors import AssetError, PrivacyParameterError
from edgedp.words.euclidean import multivariate_laplace


@pytest.mark.parametrize(("dims", "epsilon"), [(2, 1.0), (16, 5.0), (50, 10.0)])
def test_noise_norm_is_gamma_d_over_epsilon(seeded, dims, epsilon):
    noise = multivariate_laplace(20_000, dims, epsilon, seeded(dims))
    norms = np.linalg.norm(noise, axis=1)
    assert stats.kstest(norms, stats.gamma(dims, scale=1 / epsilon).cdf).pvalue > 1e-4


def test_noise_direction_is_uniform(seeded):
    dims = 6
    noise = multivariate_laplace(20_000, dims, 2.0, seeded(1))
    directions = noise / np.linalg.norm(noise, axis=1, keepdims=True)
    # each coordinate of a uniform direction: (x + 1) / 2 ~ Beta((d - 1) / 2, (d - 1) / 2)
    beta = stats.beta((dims - 1) / 2, (dims - 1) / 2)
    for axis in range(dims):
        assert stats.kstest((directions[:, axis] + 1) / 2, beta.cdf).pvalue > 1e-4
    assert np.abs(directions.mean(axis=0)).max() < 0.03


def test_density_is_exp_minus_epsilon_norm(seeded):
    # In 1-D the law is Laplace(0, 1/epsilon): the density proportional to exp(-epsilon |z|).
    noise = multivariate_laplace(50_000, 1, 3.0, seeded(2))[:, 0]
    assert stats.kstest(noise, stats.laplace(scale=1 / 3.0).cdf).pvalue > 1e-4


def test_madlib_outputs_nearest_words(euclid_pack, planted, seeded):
    _, _, labels = planted
    ids = np.arange(200)
    precise = edgedp.Madlib(euclid_pack, epsilon=1e4, rng=seeded(0)).privatize_ids(ids)
    assert np.mean(precise == ids) > 0.99  # tiny noise: the word itself
    moderate = edgedp.Madlib(euclid_pack, epsilon=15.0, rng=seeded(0)).privatize_ids(ids)
    assert np.mean(labels[moderate] == labels) > 0.9  # moderate noise: stays in the cluster
    loud = edgedp.Madlib(euclid_pack, epsilon=0.05, rng=seeded(0)).privatize_ids(ids)
    assert np.mean(labels[loud] == labels) < 0.3


def test_needs_vectors_with_a_helpful_error(default_pack):
    with pytest.raises(AssetError, match="--from-pack words-small --vectors float16"):
        edgedp.Madlib(default_pack, epsilon=1.0).privatize("hello")


@pytest.mark.parametrize("bad", [0, -1, math.nan, math.inf, "2"])
def test_epsilon_is_validated(euclid_pack, bad):
    with pytest.raises(PrivacyParameterError):
        edgedp.Madlib(euclid_pack, epsilon=bad)


def test_docstring_states_the_guarantee():
    assert "epsilon * d_2 metric DP" in edgedp.Madlib.__doc__
