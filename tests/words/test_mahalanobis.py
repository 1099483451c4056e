"""Mahalanobis: the noise has the right Mahalanobis-norm law, and the root is computed once."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import edgedp
from edgedp.words.euclidean import regularized_covariance, symmetric_square_root


def noise_of(mechanism, count: int) -> np.ndarray:
    return mechanism.space.noise(count, mechanism.metric_matrix.shape[0])


@pytest.mark.parametrize("lam", [0.0, 0.2, 0.9])
def test_mahalanobis_norm_of_the_noise_is_gamma(euclid_pack, seeded, lam):
    epsilon = 4.0
    mechanism = edgedp.Mahalanobis(euclid_pack, epsilon=epsilon, lam=lam, rng=seeded(3))
    noise = noise_of(mechanism, 20_000)
    inverse = np.linalg.inv(mechanism.metric_matrix)
    norms = np.sqrt(np.einsum("ij,jk,ik->i", noise, inverse, noise))
    dims = noise.shape[1]
    assert stats.kstest(norms, stats.gamma(dims, scale=1 / epsilon).cdf).pvalue > 1e-4


def test_renormalized_noise_would_be_caught(euclid_pack, seeded):
    # The classic bug: rescale the elliptical noise back to the isotropic radius. Its Mahalanobis
    # norm no longer follows Gamma(d, 1/epsilon): the test above must be able to see that.
    mechanism = edgedp.Mahalanobis(euclid_pack, epsilon=4.0, lam=0.9, rng=seeded(3))
    noise = noise_of(mechanism, 20_000)
    isotropic = noise @ np.linalg.inv(mechanism.space.root)
    broken = (
        noise
        / np.linalg.norm(noise, axis=1, keepdims=True)
        * np.linalg.norm(isotropic, axis=1, keepdims=True)
    )
    inverse = np.linalg.inv(mechanism.metric_matrix)
    norms = np.sqrt(np.einsum("ij,jk,ik->i", broken, inverse, broken))
    dims = noise.shape[1]
    assert stats.kstest(norms, stats.gamma(dims, scale=1 / 4.0).cdf).pvalue < 1e-6


def test_lambda_zero_is_madlib_noise(euclid_pack, seeded):
    mahalanobis = edgedp.Mahalanobis(euclid_pack, epsilon=2.0, lam=0.0, rng=seeded(9))
    madlib = edgedp.Madlib(euclid_pack, epsilon=2.0, rng=seeded(9))
    ids = np.arange(200)
    assert np.array_equal(mahalanobis.privatize_ids(ids), madlib.privatize_ids(ids))


def test_root_is_computed_once_not_per_call(euclid_pack, monkeypatch):
    mechanism = edgedp.Mahalanobis(euclid_pack, epsilon=2.0, lam=0.5)

    def forbidden(*args, **kwargs):
        raise AssertionError("matrix root recomputed during privatization")

    monkeypatch.setattr(np.linalg, "eigh", forbidden)
    monkeypatch.setattr(np.linalg, "inv", forbidden)
    mechanism.privatize_ids(np.arange(50))


def test_regularized_covariance_and_root():
    covariance = np.array([[4.0, 1.0], [1.0, 2.0]])
    matrix = regularized_covariance(covariance, 0.5)
    assert np.trace(matrix) == pytest.approx(2.0)  # unit average variance is kept
    root = symmetric_square_root(matrix)
    assert np.allclose(root @ root, matrix) and np.allclose(root, root.T)


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), "0.2"])
def test_lambda_is_validated(euclid_pack, bad):
    with pytest.raises(edgedp.PrivacyParameterError):
        edgedp.Mahalanobis(euclid_pack, epsilon=1.0, lam=bad)
