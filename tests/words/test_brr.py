"""BRR: parameters, the exact output distribution, metric DP, and the privacy invariant."""

from __future__ import annotations

import math
import string

import numpy as np
import pytest
from helpers import (
    all_codes,
    assert_only_public_tokens,
    brr_exact_distribution,
    metric_dp_violations,
    write_word_pack,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

import edgedp
from edgedp.errors import InputError, PrivacyParameterError
from edgedp.privacy.noise import rr_flip_threshold


@pytest.mark.parametrize(
    "bad", [0, 0.0, -1, -0.5, float("nan"), float("inf"), -float("inf"), "1.0", None, True, [1]]
)
def test_invalid_epsilon_is_a_value_error(tiny_pack, bad):
    with pytest.raises(PrivacyParameterError) as caught:
        edgedp.BRR(tiny_pack, epsilon=bad)
    assert isinstance(caught.value, ValueError)
    assert "epsilon" in str(caught.value)


def test_epsilon_is_keyword_only(tiny_pack):
    with pytest.raises(TypeError):
        edgedp.BRR(tiny_pack, 1.0)  # type: ignore[misc]


@pytest.mark.parametrize(("name", "value"), [("oov", "keep"), ("oov", None), ("casing", "title")])
def test_invalid_policies_are_rejected(tiny_pack, name, value):
    with pytest.raises(InputError):
        edgedp.BRR(tiny_pack, epsilon=1.0, **{name: value})


def test_pack_must_be_a_word_pack():
    with pytest.raises(InputError):
        edgedp.BRR("words-small", epsilon=1.0)  # type: ignore[arg-type]


def test_docstring_states_the_guarantee():
    doc = edgedp.BRR.__doc__
    assert "per bit" in doc and "d_H" in doc and "metric" in doc and "OOV" in doc.upper()


def test_realised_parameters_round_toward_privacy(tiny_pack):
    brr = edgedp.BRR(tiny_pack, epsilon=1.0)
    assert brr.flip_probability >= 1 / (1 + math.e)
    assert brr.realised_epsilon <= 1.0


@pytest.fixture(scope="module")
def four_bit_pack(tmp_path_factory):
    """Five words with 4-bit codes, some at equal distance (ties), for exact computations."""
    codes_int = [0b0000, 0b0011, 0b0101, 0b1111, 0b1000]
    codes = all_codes(4)[codes_int]
    path = write_word_pack(tmp_path_factory.mktemp("p") / "four", ["a", "b", "c", "d", "e"], codes)
    return edgedp.load_pack(path), codes_int


@pytest.mark.parametrize("epsilon", [0.4, 1.2])
def test_output_distribution_matches_the_exact_one(four_bit_pack, seeded, epsilon):
    pack, codes_int = four_bit_pack
    exact = brr_exact_distribution(codes_int, 4, rr_flip_threshold(epsilon) / 2**64)
    brr = edgedp.BRR(pack, epsilon=epsilon, rng=seeded(12))
    n = 40_000
    for word in range(5):
        counts = np.bincount(brr.privatize_ids(np.full(n, word)), minlength=5)
        expected = exact[word] * n
        nonzero = expected > 0
        assert counts[~nonzero].sum() == 0
        assert stats.chisquare(counts[nonzero], expected[nonzero]).pvalue > 1e-4


@pytest.mark.parametrize("epsilon", [0.4, 1.2, 3.0])
def test_exact_distribution_is_epsilon_hamming_metric_dp(four_bit_pack, epsilon):
    _, codes_int = four_bit_pack
    exact = brr_exact_distribution(codes_int, 4, rr_flip_threshold(epsilon) / 2**64)
    assert metric_dp_violations(exact, codes_int, epsilon) == []


def test_high_epsilon_keeps_and_low_epsilon_changes_words(default_pack, seeded):
    ids = np.arange(0, 5000, 7)
    kept_high = np.mean(
        edgedp.BRR(default_pack, epsilon=8.0, rng=seeded(1)).privatize_ids(ids) == ids
    )
    kept_low = np.mean(
        edgedp.BRR(default_pack, epsilon=0.3, rng=seeded(1)).privatize_ids(ids) == ids
    )
    assert kept_high > 0.99
    assert kept_low < 0.05


def test_perturb_releases_codes_of_the_pack_width(tiny_pack, seeded):
    brr = edgedp.BRR(tiny_pack, epsilon=1.0, rng=seeded(0))
    noisy = brr.perturb(np.asarray(tiny_pack.codes[:10]))
    assert noisy.shape == (10, 4) and noisy.dtype == np.uint8
    with pytest.raises(InputError):
        brr.perturb(np.zeros((3, 8), dtype=np.uint8))


@pytest.mark.parametrize("bad", [[-1], [64], [[1, 2]], ["a"], [1.5]])
def test_privatize_ids_rejects_bad_ids(tiny_pack, bad):
    with pytest.raises(InputError):
        edgedp.BRR(tiny_pack, epsilon=1.0).privatize_ids(bad)


def test_seeded_runs_are_reproducible_and_flagged(default_pack, seeded):
    text = "the cat sat on the mat with a hat"
    first = edgedp.BRR(default_pack, epsilon=0.6, rng=seeded(5))
    second = edgedp.BRR(default_pack, epsilon=0.6, rng=seeded(5))
    assert first.privatize(text) == second.privatize(text)
    assert not first.is_private
    assert edgedp.BRR(default_pack, epsilon=0.6).is_private


def test_batch_matches_single_texts_structurally(default_pack):
    brr = edgedp.BRR(default_pack, epsilon=50.0)  # flip probability 2**-64: the identity
    texts = ["Hello there, world.", "", "a\nb", "Zyxq 1234567 the"]
    out = brr.privatize_batch(texts)
    assert out[:3] == ["hello there, world.", "", "a\nb"]
    assert out[3].endswith(" the") and "zyxq" not in out[3] and "1234567" not in out[3]
    with pytest.raises(InputError):
        brr.privatize_batch("not a list")


@pytest.mark.parametrize(
    ("policy", "expected"), [("mask", "[OOV] loves the [OOV]"), ("drop", " loves the ")]
)
def test_oov_policies(default_pack, policy, expected):
    brr = edgedp.BRR(default_pack, epsilon=50.0, oov=policy)
    assert brr.privatize("Xqzzyv loves the Zwplk") == expected


# Random names, digit strings and junk: none of these may ever appear in any output.
SECRETS = st.text(alphabet=string.ascii_letters + string.digits, min_size=6, max_size=12).map(
    lambda s: "Qx" + s
)


@settings(
    max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None
)
@given(
    text=st.text(max_size=200),
    secret=SECRETS,
    epsilon=st.sampled_from([0.2, 1.0, 50.0]),
    policy=st.sampled_from(["sample", "mask", "drop"]),
)
def test_privacy_invariant_for_arbitrary_unicode(default_pack, text, secret, epsilon, policy):
    brr = edgedp.BRR(default_pack, epsilon=epsilon, oov=policy)
    output = brr.privatize(f"{text} {secret} {text}")
    assert secret.lower() not in output.lower()
    assert_only_public_tokens(output, default_pack.vocabulary)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(digits=st.integers(min_value=10**7, max_value=10**15))
def test_numbers_outside_the_vocabulary_never_appear(default_pack, digits):
    output = edgedp.BRR(default_pack, epsilon=50.0).privatize(f"call me on {digits} today")
    assert str(digits) not in output
    assert_only_public_tokens(output, default_pack.vocabulary)
