"""The whole-vocabulary adversary of explain's second figure: against brute force, and its reach.

The estimate (edgedp.evaluation.empirical_privacy.point_adversary) must agree with the exact
success of the Bayes-optimal adversary who sees the randomized-response code, computed here by
enumerating every code of a 16-bit pack; its interval must cover that value about as often as a
95 % interval should; a mechanism that copies its input must be seen as one.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from helpers import write_word_pack

import edgedp
from edgedp.evaluation.empirical_privacy import (
    point_adversary,
    posterior_map,
    wilson_interval,
    zipf_log_prior,
)
from edgedp.evaluation.explain import explain
from edgedp.words.spaces import HammingSpace

BITS = 16


@pytest.fixture(scope="module")
def small_pack(tmp_path_factory: pytest.TempPathFactory) -> edgedp.WordPack:
    """24 words with random 16-bit codes: every one of the 65,536 noisy codes can be enumerated."""
    words = [f"w{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(24)]
    codes = np.random.default_rng(11).integers(0, 256, size=(24, BITS // 8), dtype=np.uint8)
    return edgedp.load_pack(write_word_pack(tmp_path_factory.mktemp("small") / "p", words, codes))


def quiet(seed: int) -> edgedp.RandomSource:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        return edgedp.RandomSource.seeded(seed)


def brr(pack: edgedp.WordPack, epsilon: float, seed: int) -> edgedp.BRR:
    return edgedp.BRR(pack, epsilon=epsilon, rng=quiet(seed), decode="nearest")


def exact_success(pack: edgedp.WordPack, epsilon: float) -> float:
    """sum_y max_w pi(w) Pr[RR(phi(w)) = y] over all 2^16 codes y (brute force)."""
    flip = edgedp.BRR(pack, epsilon=epsilon, decode="nearest").flip_probability
    prior = np.exp(zipf_log_prior(pack))
    codes = np.unpackbits(np.asarray(pack.codes), axis=1).astype(np.int64)
    values = codes @ (1 << np.arange(BITS - 1, -1, -1))
    every = np.arange(2**BITS)
    distances = np.stack([np.bitwise_count(every ^ value) for value in values])  # (words, codes)
    joint = prior[:, None] * flip**distances * (1 - flip) ** (BITS - distances)
    return float(joint.max(axis=0).sum())


def test_the_prior_is_zipf_over_the_word_like_words(small_pack):
    prior = np.exp(zipf_log_prior(small_pack))
    expected = 1 / np.arange(1, 25)
    np.testing.assert_allclose(prior, expected / expected.sum())


@pytest.mark.parametrize("epsilon", [0.3, 0.8, 1.5])
def test_estimate_agrees_with_brute_force(small_pack, epsilon):
    exact = exact_success(small_pack, epsilon)
    result = point_adversary(brr(small_pack, epsilon, 1), samples=4000, rng=quiet(2))
    assert result is not None and result.consistent
    assert result.low <= exact <= result.high, (result, exact)
    assert result.model_low <= exact <= result.model_high, (result, exact)
    assert result.floor == pytest.approx(1 / sum(1 / r for r in range(1, 25)))
    assert exact > result.floor  # one release tells the adversary something


def test_interval_covers_about_95_percent(small_pack):
    exact = exact_success(small_pack, 0.8)
    covered = 0
    for seed in range(30):
        result = point_adversary(brr(small_pack, 0.8, 100 + seed), samples=300, rng=quiet(seed))
        assert result is not None
        covered += result.low <= exact <= result.high
    assert covered >= 25  # Binomial(30, 0.95): below 25 has probability < 2 %


def test_fast_posteriors_equal_the_generic_path(small_pack, euclid_pack):
    mechanisms = [
        brr(small_pack, 0.7, 3),
        edgedp.Madlib(euclid_pack, epsilon=8.0, rng=quiet(4)),
        edgedp.Mahalanobis(euclid_pack, epsilon=8.0, lam=0.4, rng=quiet(5)),
        edgedp.Vickrey(euclid_pack, epsilon=8.0, t=0.3, rng=quiet(6)),
    ]
    for mechanism in mechanisms:
        prior = zipf_log_prior(mechanism.pack)
        points = mechanism.space.perturb(np.arange(40) % len(mechanism.pack.vocabulary))
        fast = posterior_map(mechanism.space, points, prior)
        slow = posterior_map(mechanism.space, points, prior, generic=True)
        np.testing.assert_array_equal(fast[0], slow[0])
        np.testing.assert_allclose(fast[1], slow[1], rtol=1e-6)


class Verbatim(edgedp.BRR):
    """Broken: claims BRR's guarantee but releases the input's code untouched."""

    class _Space(HammingSpace):
        def perturb(self, word_ids: np.ndarray) -> np.ndarray:
            return np.asarray(self.pack.codes[word_ids])

    def _build_space(self) -> HammingSpace:
        return self._Space(self.pack, self.epsilon, self.rng)


def test_a_copying_mechanism_is_named_every_time(tiny_pack):
    honest = point_adversary(brr(tiny_pack, 0.3, 7), samples=500, rng=quiet(8))
    broken = point_adversary(
        Verbatim(tiny_pack, epsilon=0.3, rng=quiet(7), decode="nearest"), samples=500, rng=quiet(8)
    )
    assert honest is not None and broken is not None
    assert honest.high < 0.8
    # ~1: the attack weighs the stated law (its MAP still prefers a frequent word a few bits
    # from a rare input's code now and then), and it is the measured attack that is reported
    assert broken.low > 0.93 and broken.success > honest.high + 0.2
    assert not broken.consistent  # the stated law predicts far less: flagged


@pytest.mark.filterwarnings("ignore:epsilon 1 keeps")
def test_a_mechanism_without_a_noisy_point_gets_the_lower_bound(tiny_pack):
    from test_explain import Copy

    result = explain(Copy(tiny_pack, epsilon=1.0), words=20, samples=4, rng=quiet(3))
    assert result.adversary is None
    line = result.headline()[1]
    assert "names the input word at least 100 %" in line and "no exact" in line


def test_wilson_interval():
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert math.isclose(sum(wilson_interval(30, 60)), 1.0)
