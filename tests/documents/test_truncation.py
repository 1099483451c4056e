"""Truncation: the noise scale is the formula, the noise is Laplace, clipping bounds the sensitivity,
and bad input gives clear errors or documented outputs."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import edgedp
from edgedp.errors import InputError, PrivacyParameterError


def test_noise_scale_is_sum_of_widths_over_k_epsilon(sentence_pack):
    low, high = np.asarray(sentence_pack.truncation_box, dtype=np.float64)
    exact_widths = sum(Fraction(w) for w in (high - low).tolist())  # high - low is exact here
    for epsilon, k in ((1.0, 1), (3.0, 7), (10.0, 20), (0.3, 100)):
        mechanism = edgedp.Truncation(sentence_pack, epsilon=epsilon)
        exact_scale = exact_widths / (k * Fraction(epsilon))
        assert Fraction(mechanism.noise_scale(k)) >= exact_scale  # never less noise than the proof
        assert mechanism.noise_scale(k) == pytest.approx(float(exact_scale), rel=1e-15)


def test_output_is_clipped_mean_plus_laplace_noise(sentence_pack, seeded):
    mechanism = edgedp.Truncation(sentence_pack, epsilon=2.0, rng=seeded(5))
    rng = np.random.default_rng(1)
    sentences = rng.standard_normal((6, sentence_pack.dims)).astype(np.float32)
    center = mechanism.clipped_mean(sentences)
    assert np.all(center >= mechanism.low - 1e-12) and np.all(center <= mechanism.high + 1e-12)
    outputs = mechanism.release_embeddings([sentences] * 40)
    noise = (outputs.astype(np.float64) - center).ravel() / mechanism.noise_scale(6)
    assert stats.kstest(noise, stats.laplace.cdf).pvalue > 1e-4
    assert stats.kstest(noise, stats.norm.cdf).pvalue < 1e-4  # the test can tell the difference


def test_clipping_bounds_the_change_from_one_sentence(sentence_pack):
    mechanism = edgedp.Truncation(sentence_pack, epsilon=1.0)
    rng = np.random.default_rng(2)
    sentences = rng.standard_normal((5, sentence_pack.dims))
    neighbour = sentences.copy()
    neighbour[2] = 1e6 * rng.standard_normal(sentence_pack.dims)
    change = np.abs(mechanism.clipped_mean(sentences) - mechanism.clipped_mean(neighbour)).sum()
    assert change <= mechanism.l1_width / 5 + 1e-9


def test_empty_document_releases_the_box_centre(sentence_pack):
    mechanism = edgedp.Truncation(sentence_pack, epsilon=1.0)
    centre = (mechanism.low + mechanism.high) / 2
    with pytest.warns(edgedp.ShortDocumentWarning):
        released = mechanism.embed("")
    np.testing.assert_allclose(released, centre.astype(np.float32))


def test_real_text_and_bad_input(sentence_pack):
    mechanism = edgedp.Truncation(sentence_pack, epsilon=5.0)
    with pytest.warns(edgedp.ShortDocumentWarning, match="1 of 2 documents"):
        out = mechanism.embed_batch(["A sentence. Another sentence.", ["Given as a list."]])
    assert out.shape == (2, sentence_pack.dims) and np.all(np.isfinite(out))
    for epsilon in (0, -2.0, float("nan")):
        with pytest.raises(PrivacyParameterError):
            edgedp.Truncation(sentence_pack, epsilon=epsilon)
    with pytest.raises(InputError, match="bytes"):
        mechanism.embed(b"\xff\xfe junk")
    with pytest.raises(InputError, match="finite"):
        mechanism.release_embeddings([np.full((2, sentence_pack.dims), np.inf)])
