"""SanText and SanText+: exact output distributions, guarantees, the auditor and broken variants.

Broken variants, each a bug the field has shipped or could: SanText with exp(-epsilon d) instead of
exp(-epsilon d / 2) (the exponential mechanism without its factor 1/2), and SanText+ that also
keeps *sensitive* words with probability 1 - p (the keep branch applied to every word).
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from helpers import SEEDED_ON_PURPOSE, assert_only_public_tokens
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sampling_helpers import (
    SECRETS,
    chi_square_pvalue,
    metric_violations,
    vector_pack,
)

import edgedp
from edgedp.evaluation.audit import audit_pair
from edgedp.words.santext import SanText, SanTextPlus

pytestmark = SEEDED_ON_PURPOSE  # reproducible statistics

N = int(os.environ.get("EDGEDP_AUDIT_SAMPLES", "200000"))
LINE = np.arange(10.0)


@pytest.fixture(scope="module")
def line_pack(tmp_path_factory):
    """Ten words at 0, 1, ..., 9 on a line (frequency order = position)."""
    return vector_pack(tmp_path_factory.mktemp("line"), LINE.reshape(-1, 1))


def distances() -> np.ndarray:
    return np.abs(LINE[:, None] - LINE[None, :])


def santext_channel(epsilon: float) -> np.ndarray:
    weights = np.exp(-epsilon / 2 * distances())
    return weights / weights.sum(axis=1, keepdims=True)


def santext_plus_channel(epsilon: float, p: float, fraction: float) -> np.ndarray:
    size = len(LINE)
    sensitive = np.arange(size - math.ceil(fraction * size), size)
    channel = np.zeros((size, size))
    weights = np.exp(-epsilon / 2 * distances()[:, sensitive])
    sampled = weights / weights.sum(axis=1, keepdims=True)
    for word in range(size):
        if word in sensitive:
            channel[word, sensitive] = sampled[word]
        else:
            channel[word, sensitive] = p * sampled[word]
            channel[word, word] = 1 - p
    return channel


def sampler(mechanism, word: int):
    return lambda n: mechanism.privatize_ids(np.full(n, word))


# -- exact channels ------------------------------------------------------------------------------


def test_santext_channel_is_epsilon_d_metric_dp_and_the_factor_half_matters():
    assert metric_violations(santext_channel(1.0), 1.0 * distances()) == 0
    assert metric_violations(santext_channel(2.0), 1.0 * distances()) > 0  # exp(-eps d): broken


def test_santext_plus_channel_is_the_papers_umldp():
    epsilon, p = 1.0, 0.3
    channel = santext_plus_channel(epsilon, p, 0.5)
    sensitive = np.arange(5, 10)
    sub = channel[np.ix_(sensitive, sensitive)]
    # (i) epsilon * d between sensitive words
    assert metric_violations(sub, epsilon * distances()[np.ix_(sensitive, sensitive)]) == 0
    # (ii) sensitive outputs: epsilon * d + ln(1/p) between any two words
    outputs = channel[:, sensitive]
    assert metric_violations(outputs, epsilon * distances() + math.log(1 / p)) == 0
    assert metric_violations(outputs, epsilon * distances()) > 0  # the ln(1/p) is needed
    # (iii) a non-sensitive output comes only from that very word
    assert np.count_nonzero(channel[:, :5]) == 5


@pytest.mark.parametrize("word", [0, 4, 9])
def test_santext_samples_match_the_exact_channel(line_pack, seeded, word):
    santext = SanText(line_pack, epsilon=1.5, rng=seeded(word))
    outputs = santext.privatize_ids(np.full(60_000, word))
    assert chi_square_pvalue(outputs, santext_channel(1.5)[word]) > 1e-4


@pytest.mark.parametrize("word", [1, 4, 5, 8])
def test_santext_plus_samples_match_the_exact_channel(line_pack, seeded, word):
    mechanism = SanTextPlus(line_pack, epsilon=1.0, p=0.4, sensitive_fraction=0.5, rng=seeded(word))
    assert mechanism.first_sensitive == 5
    outputs = mechanism.privatize_ids(np.full(60_000, word))
    assert chi_square_pvalue(outputs, santext_plus_channel(1.0, 0.4, 0.5)[word]) > 1e-4


def test_santext_plus_with_p_one_is_santext_restricted_to_sensitive_words(line_pack, seeded):
    mechanism = SanTextPlus(line_pack, epsilon=1.0, p=1.0, sensitive_fraction=0.3, rng=seeded(2))
    outputs = mechanism.privatize_ids(np.tile(np.arange(10), 2000))
    assert outputs.min() >= 7  # every output sampled among the 3 rarest words


def test_a_broken_channel_fails_the_chi_square(line_pack, seeded):
    broken = _NoHalf(line_pack, epsilon=1.5, rng=seeded(4))
    outputs = broken.privatize_ids(np.full(60_000, 4))
    assert chi_square_pvalue(outputs, santext_channel(1.5)[4]) < 1e-6


# -- the auditor ---------------------------------------------------------------------------------


class _NoHalf(SanText):
    """Broken: Pr[y | x] proportional to exp(-epsilon d) (the factor 1/2 forgotten)."""

    def sample(self, word_ids):
        self.coefficient *= 2  # the exponential-mechanism coefficient epsilon, not epsilon / 2
        try:
            return super().sample(word_ids)
        finally:
            self.coefficient /= 2


class _KeepsSensitive(SanTextPlus):
    """Broken: the keep branch applied to every word, sensitive ones included."""

    def _release(self, word_ids):
        keep = ~self.rng.bernoulli(self._resample_threshold, len(word_ids))
        released = self.sample(word_ids)
        released[keep] = word_ids[keep]
        return released


def test_santext_passes_the_audit(line_pack, seeded):
    santext = SanText(line_pack, epsilon=1.0, rng=seeded(20))
    result = audit_pair(sampler(santext, 0), sampler(santext, 1), claimed_epsilon=1.0, samples=N)
    assert result.passed and result.epsilon_lower_bound > 0.5


def test_santext_without_the_half_is_caught(line_pack, seeded):
    broken = _NoHalf(line_pack, epsilon=1.0, rng=seeded(21))
    result = audit_pair(sampler(broken, 0), sampler(broken, 1), claimed_epsilon=1.0, samples=N)
    assert not result.passed


def test_santext_plus_passes_the_audit_between_sensitive_words(line_pack, seeded):
    mechanism = SanTextPlus(line_pack, epsilon=1.0, p=0.3, sensitive_fraction=0.5, rng=seeded(22))
    result = audit_pair(
        sampler(mechanism, 5), sampler(mechanism, 6), claimed_epsilon=1.0, samples=N
    )
    assert result.passed and result.epsilon_lower_bound > 0


def test_santext_plus_keeping_sensitive_words_is_caught(line_pack, seeded):
    broken = _KeepsSensitive(line_pack, epsilon=1.0, p=0.3, sensitive_fraction=0.5, rng=seeded(23))
    result = audit_pair(sampler(broken, 5), sampler(broken, 6), claimed_epsilon=1.0, samples=N)
    assert not result.passed


# -- no input token reaches the output ------------------------------------------------------------


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    text=st.text(max_size=80),
    secret=SECRETS,
    epsilon=st.sampled_from([0.05, 1.0, 50.0]),
    plus=st.booleans(),
    policy=st.sampled_from(["sample", "mask", "drop"]),
)
def test_no_input_token_reaches_the_output(euclid_pack, text, secret, epsilon, plus, policy):
    cls = SanTextPlus if plus else SanText
    mechanism = cls(euclid_pack, epsilon=epsilon, oov=policy)
    output = mechanism.privatize(f"{text} {secret} {text}")
    assert secret.lower() not in output.lower()
    assert_only_public_tokens(output, euclid_pack.vocabulary)


# -- guarantees, registry, errors --------------------------------------------------------------


def test_guarantees_and_registry(line_pack):
    from edgedp.evaluation.calibration import METRICS
    from edgedp.registry import WORD_MECHANISMS

    assert WORD_MECHANISMS["santext"] is SanText and WORD_MECHANISMS["santext-plus"] is SanTextPlus
    assert METRICS["santext"] == METRICS["santext-plus"] == "euclidean"
    plain = SanText(line_pack, epsilon=2.0, rng=1).guarantee()
    plus = SanTextPlus(line_pack, epsilon=2.0, rng=1).guarantee()
    assert (plain.metric, plain.epsilon, plus.metric) == ("euclidean", 2.0, "euclidean")
    assert "sensitive" in plus.relation and "0.7" in plus.protects
    parameters = SanTextPlus(line_pack, epsilon=2.0, p=0.2, sensitive_fraction=0.6, rng=1)
    assert parameters.parameters()["p"] == 0.2
    assert parameters.parameters()["sensitive_fraction"] == 0.6


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"p": 1.5}, edgedp.PrivacyParameterError),
        ({"p": "0.3"}, edgedp.PrivacyParameterError),
        ({"sensitive_fraction": 0.0}, edgedp.PrivacyParameterError),
        ({"sensitive_fraction": -0.1}, edgedp.PrivacyParameterError),
        ({"epsilon": float("inf")}, edgedp.PrivacyParameterError),
    ],
)
def test_bad_parameters_raise_edgedp_errors(line_pack, kwargs, error):
    with pytest.raises(error):
        SanTextPlus(line_pack, **{"epsilon": 1.0, **kwargs})


def test_santext_needs_vectors(default_pack):
    with pytest.raises(edgedp.AssetError):
        SanText(default_pack, epsilon=1.0)
