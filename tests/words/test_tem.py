"""TEM: exact output distribution (both spaces), the paper's gamma, the auditor, the peers' bugs.

The exact channel is computed here from the paper's algorithm (candidates, bottom element, uniform
word outside L_w), independently of the implementation, and the samples are chi-square tested
against it, also with the near-far draw forced through its rejection path (a small Hamming radius,
a small Euclidean near set). Two planted broken variants reproduce the peers' bugs (issue 19):
MLDP's and pyPANTERA's "return the input when bottom wins", and MLDP's bottom score
ln(|V| / |L_w|). Both are caught by the auditor on a pack built so that the bound is tight (a word
at the edge of a cluster).
"""

from __future__ import annotations

import dataclasses
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from helpers import (
    SEEDED_ON_PURPOSE,
    all_codes,
    assert_only_public_tokens,
    hamming_distances,
    write_word_pack,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sampling_helpers import (
    SECRETS,
    chi_square_pvalue,
    metric_violations,
    vector_pack,
)

import edgedp
import edgedp.words.exponential_selection
import edgedp.words.tem
import edgedp.words.vocabulary_draw
from edgedp.evaluation.audit import audit_pair
from edgedp.words.exponential_selection import Complements, select_ragged, uniform_outside
from edgedp.words.tem import TEM, gamma_for_beta
from edgedp.words.vocabulary_draw import NearSets

pytestmark = SEEDED_ON_PURPOSE  # reproducible statistics

N = int(os.environ.get("EDGEDP_AUDIT_SAMPLES", "200000"))

# -- packs -------------------------------------------------------------------------------------

#: 1-D positions: w0 = 0 and w1 = 0.1 (distance 0.1), a cluster of 20 words just beyond gamma = 1
#: from w0 but within it from w1, and 20 far words. |L_w0| = 2 and |L_w1| = 22: MLDP's bottom
#: score ln(|V| / |L_w|) weighs the far words ~6 times more for w0 than for w1.
TRAP = np.concatenate([[0.0, 0.1], 1.05 + 1e-3 * np.arange(20), 100.0 + np.arange(20)])
TRAP_GAMMA = 1.0


@pytest.fixture(scope="module")
def trap_pack(tmp_path_factory):
    return vector_pack(tmp_path_factory.mktemp("trap"), TRAP.reshape(-1, 1))


@pytest.fixture(scope="module")
def code_pack(tmp_path_factory):
    """All 16 codes of 4 bits: Hamming distances 0..4 in every pattern."""
    words = [f"c{chr(97 + i)}" for i in range(16)]
    return edgedp.load_pack(
        write_word_pack(tmp_path_factory.mktemp("c") / "p", words, all_codes(4))
    )


def line_distances(positions: np.ndarray) -> np.ndarray:
    return np.abs(positions[:, None] - positions[None, :])


def code_distances(pack: edgedp.WordPack) -> np.ndarray:
    codes = np.asarray(pack.codes)
    return hamming_distances(codes, codes).astype(np.float64)


def tem_channel(
    distances: np.ndarray, epsilon: float, gamma: float, bottom: str = "paper"
) -> np.ndarray:
    """Exact Pr[TEM(w) = y] from the algorithm as printed (bottom: "paper", "mldp", "input")."""
    size = len(distances)
    channel = np.zeros((size, size))
    for word in range(size):
        inside = distances[word] <= gamma
        outside = size - int(inside.sum())
        weights = np.exp(-epsilon / 2 * distances[word, inside])
        if bottom == "mldp":
            log_bottom = epsilon / 2 * (-gamma + 2 * math.log(size / inside.sum()) / epsilon)
        else:
            log_bottom = (
                epsilon / 2 * (-gamma + 2 * math.log(outside) / epsilon) if outside else -1e300
            )
        bottom_weight = math.exp(log_bottom) if outside else 0.0
        total = weights.sum() + bottom_weight
        channel[word, inside] = weights / total
        if outside:
            if bottom == "input":
                channel[word, word] += bottom_weight / total
            else:
                channel[word, ~inside] += bottom_weight / total / outside
    return channel


def sampler(mechanism, word: int):
    return lambda n: mechanism.privatize_ids(np.full(n, word))


# -- the exact channel and the proof -------------------------------------------------------------


@pytest.mark.parametrize("gamma", [0.5, 1.0, 1.5])
def test_the_printed_algorithm_is_the_exponential_mechanism_with_truncated_distance(gamma):
    distances = line_distances(TRAP)
    epsilon = 1.3
    scores = np.exp(-epsilon / 2 * np.minimum(distances, gamma))
    expected = scores / scores.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(tem_channel(distances, epsilon, gamma), expected, rtol=1e-12)
    # hence epsilon * d metric DP, and epsilon * gamma DP between any two words
    assert metric_violations(expected, epsilon * distances) == 0
    assert metric_violations(expected, epsilon * np.minimum(distances, gamma)) == 0


@pytest.mark.parametrize("bottom", ["mldp", "input"])
def test_the_peers_bottom_branches_break_the_bound(bottom):
    distances = line_distances(TRAP)
    broken = tem_channel(distances, 1.0, TRAP_GAMMA, bottom)
    assert metric_violations(broken, 1.0 * distances) > 0


def test_gamma_recipe_bounds_the_bottom_probability(trap_pack):
    epsilon, beta = 3.0, 0.01
    tem = TEM(trap_pack, epsilon=epsilon, beta=beta, rng=1)
    size = len(TRAP)
    assert tem.gamma == pytest.approx(2 / epsilon * math.log((1 - beta) * size / beta))
    assert gamma_for_beta(epsilon, beta, size) == tem.gamma
    channel = tem_channel(line_distances(TRAP), epsilon, tem.gamma)
    far = line_distances(TRAP) > tem.gamma
    assert (channel * far).sum(axis=1).max() <= beta
    assert tem.parameters()["beta"] == beta and "gamma" not in tem.parameters()


# -- samples against the exact channel -----------------------------------------------------------


@pytest.mark.parametrize("word", [0, 1, 5, 30])
def test_euclidean_samples_match_the_exact_channel(trap_pack, seeded, word):
    tem = TEM(trap_pack, epsilon=1.0, gamma=TRAP_GAMMA, rng=seeded(word))
    channel = tem_channel(line_distances(TRAP), 1.0, TRAP_GAMMA)
    outputs = tem.privatize_ids(np.full(100_000, word))
    assert chi_square_pvalue(outputs, channel[word]) > 1e-4


@pytest.mark.parametrize(("word", "gamma"), [(0, 1.0), (5, 1.0), (5, 2.0), (15, 0.0)])
def test_hamming_samples_match_the_exact_channel(code_pack, seeded, word, gamma):
    tem = TEM(code_pack, epsilon=0.8, gamma=gamma, geometry="hamming", rng=seeded(word))
    channel = tem_channel(code_distances(code_pack), 0.8, gamma)
    outputs = tem.privatize_ids(np.full(100_000, word))
    assert chi_square_pvalue(outputs, channel[word]) > 1e-4


def test_a_broken_channel_fails_the_chi_square(trap_pack, seeded):
    """The distribution test can fail: samples of the MLDP-bottom variant against the paper."""
    broken = _MldpBottom(trap_pack, epsilon=1.0, gamma=TRAP_GAMMA, rng=seeded(3))
    channel = tem_channel(line_distances(TRAP), 1.0, TRAP_GAMMA)
    assert chi_square_pvalue(broken.privatize_ids(np.full(100_000, 0)), channel[0]) < 1e-6


@pytest.mark.parametrize("radius", [0, 1, 2])
def test_hamming_rejection_path_matches_the_exact_channel(code_pack, seeded, monkeypatch, radius):
    # A radius below gamma leaves words within gamma in the far set: they are drawn by rejection
    # from the envelope e^(-c (radius + 1)), and the law must still be the paper's.
    monkeypatch.setattr(edgedp.words.tem, "hamming_radius", lambda *_: radius)
    tem = TEM(code_pack, epsilon=1.5, gamma=3.0, geometry="hamming", rng=seeded(radius))
    assert tem.radius == radius
    channel = tem_channel(code_distances(code_pack), 1.5, 3.0)
    for word in (0, 6):
        outputs = tem.privatize_ids(np.full(60_000, word))
        assert chi_square_pvalue(outputs, channel[word]) > 1e-4


@pytest.mark.parametrize("near_words", [1, 3, 8])
@pytest.mark.parametrize("table", [True, False])
def test_euclidean_rejection_path_matches_the_exact_channel(
    tmp_path, seeded, monkeypatch, near_words, table
):
    # A near set smaller than L_w: the far words within gamma are drawn by rejection from the
    # certified bound of the pack's neighbour table, or of a float32 search without one.
    monkeypatch.setattr(edgedp.words.vocabulary_draw, "EUCLIDEAN_NEAR_WORDS", near_words)
    pack = vector_pack(tmp_path, TRAP.reshape(-1, 1), neighbours=near_words if table else 0)
    tem = TEM(pack, epsilon=1.0, gamma=30.0, rng=seeded(near_words))
    near = tem.near_sets(np.array([0, 5, 30]))
    assert np.diff(near.unit_lims).max() <= near_words + 1
    channel = tem_channel(line_distances(TRAP), 1.0, 30.0)
    for word in (0, 5, 30):
        outputs = tem.privatize_ids(np.full(60_000, word))
        assert chi_square_pvalue(outputs, channel[word]) > 1e-4


@pytest.mark.parametrize("space", ["euclidean", "hamming"])
@pytest.mark.parametrize("near_words", [4, 32])
def test_near_sets_are_exact_and_every_far_word_is_beyond_the_bound(
    euclid_pack, monkeypatch, space, near_words
):
    monkeypatch.setattr(edgedp.words.vocabulary_draw, "EUCLIDEAN_NEAR_WORDS", near_words)
    gamma = 1.0 if space == "euclidean" else 22
    tem = TEM(euclid_pack, epsilon=3.0, gamma=gamma, geometry=space, rng=1)
    words = np.arange(0, 200, 7)
    near = tem.near_sets(words)
    if space == "euclidean":
        vectors = np.asarray(euclid_pack.vectors, dtype=np.float64)
        truth = np.linalg.norm(vectors[words, None, :] - vectors[None, :, :], axis=2)
        bounds = near.far_offsets / tem.coefficient
    else:
        codes = np.asarray(euclid_pack.codes)
        truth = hamming_distances(codes[words], codes).astype(np.float64)
        bounds = np.full(len(words), tem.radius + 1.0)
        assert tem.radius <= gamma
    size = len(euclid_pack.vocabulary)
    for row, word in enumerate(words):
        units = slice(near.unit_lims[row], near.unit_lims[row + 1])
        members = [
            near.members[start : start + count]
            for start, count in zip(near.unit_starts[units], near.unit_sizes[units], strict=True)
        ]
        found = np.concatenate(members)
        assert word in found and len(set(found.tolist())) == len(found)
        assert (truth[row, found] <= gamma + 1e-9).all()
        # each unit: its members at one exact distance, log weight ln |unit| - c d
        for weight, group in zip(near.unit_log_weights[units], members, strict=True):
            distance = truth[row, group]
            assert np.ptp(distance) < 1e-9
            expected = math.log(len(group)) - tem.coefficient * min(distance[0], gamma)
            assert weight == pytest.approx(expected, abs=1e-9)
        far = np.setdiff1d(np.arange(size), found)
        assert (truth[row, far] >= bounds[row] - 1e-9).all()  # the envelope is valid
        assert near.far_log_weights[row] == pytest.approx(
            math.log(len(far)) - tem.coefficient * min(bounds[row], gamma)
        )


# -- the auditor: TEM passes, the peers' variants are caught ----------------------------------


class _ProposesInput(NearSets):
    def propose_far(self, rows, rng):
        return self.inputs[rows]


class _InputInBottom(TEM):
    """Broken (pyPANTERA, MLDP on OOV): returns the input when bottom wins."""

    def near_sets(self, word_ids):
        near = super().near_sets(word_ids)
        return _ProposesInput(**{f.name: getattr(near, f.name) for f in dataclasses.fields(near)})


class _MldpBottom(TEM):
    """Broken (MLDP): bottom scored -gamma + 2 ln(|V| / |L_w|) / epsilon."""

    def near_sets(self, word_ids):
        near = super().near_sets(word_ids)
        inside = np.diff(near.near.lims).astype(np.float64)
        size = len(self.pack.vocabulary)
        mldp = -0.5 * self.epsilon * self.gamma + np.log(size / inside)
        return dataclasses.replace(near, far_log_weights=mldp)


def test_tem_passes_the_audit(trap_pack, seeded):
    tem = TEM(trap_pack, epsilon=1.0, gamma=TRAP_GAMMA, rng=seeded(11))
    result = audit_pair(sampler(tem, 0), sampler(tem, 1), claimed_epsilon=0.1, samples=N)
    assert result.passed


def test_tem_hamming_passes_the_audit(code_pack, seeded):
    tem = TEM(code_pack, epsilon=0.7, gamma=1, geometry="hamming", rng=seeded(12))
    # codes 0000 and 1000: one bit apart
    result = audit_pair(sampler(tem, 0), sampler(tem, 8), claimed_epsilon=0.7, samples=N)
    assert result.passed and result.epsilon_lower_bound > 0


@pytest.mark.parametrize("broken", [_InputInBottom, _MldpBottom])
def test_the_peers_bottom_branches_are_caught(trap_pack, seeded, broken):
    tem = broken(trap_pack, epsilon=1.0, gamma=TRAP_GAMMA, rng=seeded(13))
    result = audit_pair(sampler(tem, 0), sampler(tem, 1), claimed_epsilon=0.1, samples=N)
    assert not result.passed


# -- no input token reaches the output ------------------------------------------------------------


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    text=st.text(max_size=80),
    secret=SECRETS,
    epsilon=st.sampled_from([0.05, 1.0, 50.0]),
    gamma=st.sampled_from([None, 0.0, 3.0]),
    policy=st.sampled_from(["sample", "mask", "drop"]),
)
def test_no_input_token_reaches_the_output(
    euclid_pack, default_pack, text, secret, epsilon, gamma, policy
):
    for pack, space in ((euclid_pack, "euclidean"), (default_pack, "hamming")):
        tem = TEM(pack, epsilon=epsilon, gamma=gamma, geometry=space, oov=policy)
        output = tem.privatize(f"{text} {secret} {text}")
        assert secret.lower() not in output.lower()
        assert_only_public_tokens(output, pack.vocabulary)


def test_bottom_never_returns_the_input_when_gamma_isolates_it(trap_pack, seeded):
    """gamma = 0: L_w = {w}; every other output comes from the bottom, uniformly over V minus {w}."""
    tem = TEM(trap_pack, epsilon=2.0, gamma=0.0, rng=seeded(5))
    outputs = tem.privatize_ids(np.full(50_000, 3))
    channel = tem_channel(line_distances(TRAP), 2.0, 0.0)
    assert chi_square_pvalue(outputs, channel[3]) > 1e-4


# -- the shared selection helpers -------------------------------------------------------------


def test_ragged_selection_is_exact_across_blocks(seeded, monkeypatch):
    monkeypatch.setattr(
        edgedp.words.exponential_selection, "BLOCK_ELEMENTS", 14
    )  # blocks of 2 or 3 rows
    lims = np.array([0, 3, 4, 9])
    weights = np.array([0.0, -1.0, np.log(3.0), 7.0, -np.inf, 0.0, 0.0, 1.0, -2.0])
    rows = 6_000
    repeated_lims = np.concatenate([[0], np.cumsum(np.tile(np.diff(lims), rows))])
    chosen = select_ragged(repeated_lims, np.tile(weights, rows), seeded(7))
    offsets = (chosen - repeated_lims[:-1]).reshape(rows, 3)
    for row in range(3):
        local = weights[lims[row] : lims[row + 1]]
        probabilities = np.exp(local - local.max())
        assert chi_square_pvalue(offsets[:, row], probabilities / probabilities.sum()) > 1e-4


class _FixedDraw:
    def __init__(self, value: int) -> None:
        self.value = value

    def integers(self, upper, size):
        assert 0 <= self.value < upper
        return np.array([self.value])


def test_complements_draw_uniformly_outside_each_set(seeded):
    # row 0: most of the vocabulary is inside (the exact fallback runs); row 1: a small set
    lims = np.array([0, 8, 10])
    ids = np.array([0, 1, 2, 3, 4, 5, 6, 8, 3, 7])
    rows = np.repeat([0, 1], 20_000)
    drawn = Complements.of(lims, ids, 10).uniform(rows, seeded(9), rounds=2)
    expected_0 = np.zeros(10)
    expected_0[[7, 9]] = 0.5
    expected_1 = np.full(10, 1 / 8)
    expected_1[[3, 7]] = 0.0
    assert chi_square_pvalue(drawn[:20_000], expected_0) > 1e-4
    assert chi_square_pvalue(drawn[20_000:], expected_1) > 1e-4


def test_uniform_outside_enumerates_the_complement():
    members = np.array([0, 2, 3, 7, 9])
    complement = [1, 4, 5, 6, 8]
    drawn = [uniform_outside(members, 10, _FixedDraw(k)) for k in range(5)]
    assert drawn == complement


# -- parameters, errors, CLI ---------------------------------------------------------------------


def test_guarantee_and_registry(trap_pack, code_pack):
    from edgedp.evaluation.calibration import METRICS
    from edgedp.registry import WORD_MECHANISMS

    assert WORD_MECHANISMS["tem"] is TEM
    euclidean = TEM(trap_pack, epsilon=2.0, rng=1).guarantee()
    hamming = TEM(code_pack, epsilon=0.5, geometry="hamming", rng=1).guarantee()
    assert (euclidean.metric, euclidean.epsilon, euclidean.unit) == ("euclidean", 2.0, "word")
    assert (hamming.metric, hamming.metric_unit) == ("hamming", "bit")
    assert METRICS["tem"] == "euclidean" and METRICS["tem-hamming"] == "hamming"
    # vocabulary words only: the out-of-vocabulary "xyz" is replaced without the mechanism (the
    # made-up words of the test pack are no English: protect=() keeps the rare-words guard off)
    cost = TEM(trap_pack, epsilon=2.0, rng=1, protect=()).privacy_cost(["waa wab, wad xyz"])
    assert (cost.count, cost.epsilon) == (3, 6.0)
    # Euclidean: the float draw's and distances' additive slack is a delta per word (it cannot be
    # folded into epsilon * d); Hamming: folded (integer distances), no delta.
    assert 0.0 < cost.delta == 3 * euclidean.delta < 1e-9
    assert hamming.delta == 0.0


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"gamma": -1.0}, edgedp.InputError),
        ({"gamma": float("nan")}, edgedp.InputError),
        ({"gamma": "2"}, edgedp.InputError),
        ({"beta": 0.0}, edgedp.InputError),
        ({"beta": 1.5}, edgedp.InputError),
        ({"geometry": "cosine"}, edgedp.InputError),
        ({"epsilon": 0.0}, edgedp.PrivacyParameterError),
    ],
)
def test_bad_parameters_raise_edgedp_errors(trap_pack, kwargs, error):
    with pytest.raises(error):
        TEM(trap_pack, **{"epsilon": 1.0, **kwargs})


def test_euclidean_tem_needs_vectors(default_pack):
    with pytest.raises(edgedp.AssetError, match="--geometry hamming"):
        TEM(default_pack, epsilon=1.0, geometry="euclidean")


def _cli(*args: str, stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "edgedp.cli", *args],
        input=stdin.encode(),
        capture_output=True,
        timeout=300,
    )


def test_cli_privatizes_with_tem_in_hamming_space():
    result = _cli(
        "privatize",
        "--mechanism",
        "tem",
        "--geometry",
        "hamming",
        "--epsilon",
        "1",
        "--beta",
        "0.01",
        stdin="the patient Zorbulak called 0412555019\n",
    )
    assert result.returncode == 0, result.stderr
    output = result.stdout.decode()
    assert len(output.split()) == 5 and "zorbulak" not in output and "0412555019" not in output


def test_gamma_and_beta_are_exclusive(trap_pack):
    # issue 27: both were accepted and beta was silently ignored
    with pytest.raises(edgedp.InputError, match="not both"):
        TEM(trap_pack, epsilon=1.0, gamma=2.0, beta=0.01)
    result = _cli(
        "privatize",
        "--mechanism",
        "tem",
        "--epsilon",
        "1",
        "--gamma",
        "2",
        "--beta",
        "0.01",
        stdin="a\n",
    )
    assert result.returncode == 2
    assert b"argument --beta: not allowed with argument --gamma" in result.stderr


def test_cli_rejects_options_of_other_mechanisms():
    result = _cli("privatize", "--mechanism", "brr", "--epsilon", "1", "--gamma", "2", stdin="a\n")
    assert result.returncode != 0 and b"--gamma does not apply" in result.stderr


@pytest.mark.parametrize("space", ["euclidean", "hamming"])
def test_gamma_beyond_the_diameter_is_the_exponential_mechanism_over_the_vocabulary(
    trap_pack, code_pack, seeded, space
):
    pack, gamma = (trap_pack, 1000.0) if space == "euclidean" else (code_pack, 8)
    distances = line_distances(TRAP) if space == "euclidean" else code_distances(code_pack)
    tem = TEM(pack, epsilon=0.9, gamma=gamma, geometry=space, rng=seeded(40))
    channel = tem_channel(distances, 0.9, gamma)
    for word in (0, 5):
        outputs = tem.privatize_ids(np.full(50_000, word))
        assert chi_square_pvalue(outputs, channel[word]) > 1e-4
