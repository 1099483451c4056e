"""The black-box auditor passes every shipped mechanism and catches deliberately broken variants.

Each broken variant reproduces a bug the field has shipped: a wrong flip probability, epsilon instead
of epsilon/2 in the exponential mechanism, a Vickrey that excludes the input word, Laplace noise a
factor sqrt(d) too small. Neighbouring inputs are chosen where the bound is nearly tight (words on a
line, the exponential mechanism's worst case), so a factor-2 error is visible at moderate N.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os

import numpy as np
import pytest
from edgedp_export.cli import main as export_main
from helpers import all_codes, write_vector_file, write_word_pack
from scipy import stats

import edgedp
from edgedp.audit import audit_pair, clopper_pearson, regularized_incomplete_beta
from edgedp.noise import exponential_mechanism_coefficient, laplace_scale
from edgedp.randomized_response import randomized_response

# EDGEDP_AUDIT_SAMPLES raises N for the trust report (python -m bench trust); the tests use 200k.
N = int(os.environ.get("EDGEDP_AUDIT_SAMPLES", "200000"))
REPORT = os.environ.get("EDGEDP_TRUST_REPORT")


@pytest.fixture(autouse=True)
def record_audits(request, monkeypatch):
    """With EDGEDP_TRUST_REPORT set, append every audit's result to that JSON-lines file."""
    if REPORT is None:
        yield
        return
    import edgedp.audit as audit_module

    def recording(*args, **kwargs):
        result = audit_module.audit_pair(*args, **kwargs)
        with open(REPORT, "a", encoding="utf-8") as handle:
            handle.write(
                json.dumps(
                    {
                        "case": request.node.name,
                        **dataclasses.asdict(result),
                        "passed": result.passed,
                    }
                )
                + "\n"
            )
        return result

    monkeypatch.setitem(globals(), "audit_pair", recording)
    yield


@pytest.mark.parametrize(
    ("successes", "trials"), [(0, 10), (3, 10), (10, 10), (7, 100_000), (40_000, 200_000)]
)
def test_clopper_pearson_matches_scipy(successes, trials):
    lower, upper = clopper_pearson(successes, trials, 0.05)
    expected_lower = stats.beta.ppf(0.025, successes, trials - successes + 1) if successes else 0.0
    expected_upper = (
        stats.beta.ppf(0.975, successes + 1, trials - successes) if successes < trials else 1.0
    )
    assert lower == pytest.approx(expected_lower, rel=1e-9, abs=1e-15)
    assert upper == pytest.approx(expected_upper, rel=1e-9, abs=1e-15)
    assert regularized_incomplete_beta(2.5, 3.5, 0.3) == pytest.approx(
        stats.beta.cdf(0.3, 2.5, 3.5)
    )


# -- randomized response and BRR ----------------------------------------------------------------


def rr_sampler(code: int, epsilon: float, rng):
    def sample(n: int) -> np.ndarray:
        return randomized_response(np.full((n, 1), code, dtype=np.uint8), epsilon, rng)[:, 0]

    return sample


def top_bit(outputs: np.ndarray) -> np.ndarray:
    return outputs >> 7  # the bit in which the two codes differ


def test_randomized_response_passes(seeded):
    rng = seeded(1)  # codes one bit apart
    result = audit_pair(
        rr_sampler(0b1000_0000, 1.0, rng),
        rr_sampler(0, 1.0, rng),
        claimed_epsilon=1.0,
        samples=N,
        statistic=top_bit,
    )
    assert result.passed and result.epsilon_lower_bound > 0.9  # nearly tight, not vacuous


def test_wrong_flip_probability_is_caught(seeded):
    rng = seeded(2)  # the bug: flip probability 1 / (1 + e^(2 epsilon))
    result = audit_pair(
        rr_sampler(0b1000_0000, 2.0, rng),
        rr_sampler(0, 2.0, rng),
        claimed_epsilon=1.0,
        samples=N,
        statistic=top_bit,
    )
    assert not result.passed


@pytest.fixture(scope="module")
def four_bit_pack(tmp_path_factory):
    codes = all_codes(4)[[0b0000, 0b0011, 0b0101, 0b1111, 0b1000]]
    path = write_word_pack(tmp_path_factory.mktemp("a") / "p", list("abcde"), codes)
    return edgedp.load_pack(path)


def word_sampler(mechanism, word: int):
    return lambda n: mechanism.privatize_ids(np.full(n, word))


@pytest.mark.parametrize("space", ["brr", "vickrey-hamming"])
def test_hamming_mechanisms_pass(four_bit_pack, seeded, space):
    epsilon = 0.7
    if space == "brr":
        mechanism = edgedp.BRR(four_bit_pack, epsilon=epsilon, rng=seeded(3))
    else:
        mechanism = edgedp.Vickrey(
            four_bit_pack, epsilon=epsilon, t=0.5, space="hamming", rng=seeded(3)
        )
    # words 0 (0000) and 4 (1000) are one bit apart
    result = audit_pair(
        word_sampler(mechanism, 0),
        word_sampler(mechanism, 4),
        claimed_epsilon=epsilon * 1,
        samples=N,
    )
    assert result.passed and result.epsilon_lower_bound > 0


# -- Euclidean mechanisms on a line: the metric-DP bound is tight in the tail --------------------


@pytest.fixture(scope="module")
def line_pack(tmp_path_factory):
    """Six words at 0, 1, ..., 5 on a line (1-D vectors): Madlib is the 1-D Laplace mechanism."""
    directory = tmp_path_factory.mktemp("line")
    words = ["aa", "bb", "cc", "dd", "ee", "ff"]
    source = write_vector_file(
        directory / "line.txt", words, np.arange(6, dtype=np.float32).reshape(-1, 1)
    )
    assert (
        export_main(
            [
                "words",
                "--source-file",
                str(source),
                "--words",
                "6",
                "--bits",
                "8",
                "--vectors",
                "float32",
                "--out",
                str(directory / "pack"),
            ]
        )
        == 0
    )
    return edgedp.load_pack(directory / "pack")


def test_madlib_passes_and_is_nearly_tight(line_pack, seeded):
    madlib = edgedp.Madlib(line_pack, epsilon=1.0, rng=seeded(4))
    result = audit_pair(
        word_sampler(madlib, 1), word_sampler(madlib, 0), claimed_epsilon=1.0, samples=N
    )  # distance 1; event "output = 5" has ratio exactly e
    assert result.passed and result.epsilon_lower_bound > 0.8


class _HalfNoiseMadlib(edgedp.Madlib):
    """Broken: the noise radius is half what epsilon needs (as if epsilon were doubled)."""

    def _noise(self, count, dims):
        return super()._noise(count, dims) / 2


def test_madlib_with_too_little_noise_is_caught(line_pack, seeded):
    broken = _HalfNoiseMadlib(line_pack, epsilon=1.0, rng=seeded(5))
    result = audit_pair(
        word_sampler(broken, 1), word_sampler(broken, 0), claimed_epsilon=1.0, samples=N
    )
    assert not result.passed


def test_vickrey_passes(line_pack, seeded):
    vickrey = edgedp.Vickrey(line_pack, epsilon=1.0, t=0.5, rng=seeded(6))
    result = audit_pair(
        word_sampler(vickrey, 1), word_sampler(vickrey, 0), claimed_epsilon=1.0, samples=N
    )
    assert result.passed and result.epsilon_lower_bound > 0.5


class _ExcludingVickrey(edgedp.Vickrey):
    """Broken: the printed algorithm, which searches the neighbours among W minus {input}."""

    def _release(self, word_ids):
        self.candidates = 3
        distances, ids = self._neighbours(word_ids)
        self.candidates = 2
        keep = ids != word_ids[:, None]
        order = np.argsort(~keep, axis=1, kind="stable")[:, :2]
        rows = np.arange(len(ids))[:, None]
        chosen_ids, chosen_distances = ids[rows, order], distances[rows, order]
        from edgedp.vickrey import choose_first_or_second

        return choose_first_or_second(chosen_ids, chosen_distances, self.t, self.rng)


def test_vickrey_excluding_the_input_word_is_caught(line_pack, seeded):
    broken = _ExcludingVickrey(line_pack, epsilon=1.0, t=0.5, rng=seeded(7))
    result = audit_pair(
        word_sampler(broken, 0), word_sampler(broken, 1), claimed_epsilon=1.0, samples=N
    )  # Pr[M(0) = 0] = 0 < Pr[M(1) = 0]
    assert not result.passed


# -- the exponential mechanism (DeepCandidate's sampler) ----------------------------------------


def exponential_sampler(utilities: np.ndarray, epsilon: float, rng, *, broken: bool = False):
    coefficient = epsilon if broken else exponential_mechanism_coefficient(epsilon, sensitivity=1)

    def sample(n: int) -> np.ndarray:
        return rng.choice_from_log_weights(np.tile(coefficient * utilities, (n, 1)))

    return sample


# The worst case: one utility vector drops by 1 everywhere but the last candidate, which rises by 1.
WORST_A = np.array([1.0] * 19 + [0.0])
WORST_B = np.array([0.0] * 19 + [1.0])


def test_exponential_mechanism_passes(seeded):
    rng = seeded(8)
    result = audit_pair(
        exponential_sampler(WORST_A, 1.0, rng),
        exponential_sampler(WORST_B, 1.0, rng),
        claimed_epsilon=1.0,
        samples=N,
    )
    assert result.passed and result.epsilon_lower_bound > 0.6


def test_exponential_mechanism_with_epsilon_instead_of_half_is_caught(seeded):
    rng = seeded(9)
    result = audit_pair(
        exponential_sampler(WORST_A, 1.0, rng, broken=True),
        exponential_sampler(WORST_B, 1.0, rng, broken=True),
        claimed_epsilon=1.0,
        samples=N,
    )
    assert not result.passed


# -- Laplace on an L2 ball (ADePT): the sqrt(d) error --------------------------------------------


def ball_laplace_sampler(centre: np.ndarray, scale: float, rng):
    return lambda n: centre + scale * rng.laplace((n, len(centre)))


@pytest.mark.parametrize(
    "broken", [False, True], ids=["correct-scale-passes", "paper-scale-is-caught"]
)
def test_laplace_on_the_l2_ball(seeded, broken):
    dims, radius, epsilon = 16, 1.0, 1.0
    corner = np.full(dims, radius / math.sqrt(dims))  # on the L2 sphere; -corner is 2r sqrt(d) away
    correct = laplace_scale(2 * radius * math.sqrt(dims), epsilon)
    scale = 2 * radius / epsilon if broken else correct  # the ADePT paper's scale
    rng = seeded(10)
    result = audit_pair(
        ball_laplace_sampler(corner, scale, rng),
        ball_laplace_sampler(-corner, scale, rng),
        claimed_epsilon=epsilon,
        samples=N // 4,
        statistic=lambda outputs: outputs.sum(axis=1),
    )
    assert result.passed is not broken
