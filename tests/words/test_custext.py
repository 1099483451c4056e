"""CusText: the output-set mapping, the exact channel within a set, the auditor and a broken variant.

The broken variant scores by the raw distance instead of the normalised one: without the
normalisation to [-1, 0] the score's sensitivity is the set's diameter, not 1, and the epsilon-DP
proof fails (caught by the auditor on a set whose diameter is 6).
"""

from __future__ import annotations

import hashlib
import json
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
import edgedp.words.custext
from edgedp.evaluation.audit import audit_pair
from edgedp.words.custext import CusText, build_output_sets, set_members

pytestmark = SEEDED_ON_PURPOSE  # reproducible statistics

N = int(os.environ.get("EDGEDP_AUDIT_SAMPLES", "200000"))
#: Two groups of three on a line: with k = 3 the sets are {0, 1, 2} and {3, 4, 5}.
POSITIONS = np.array([0.0, 1.0, 3.0, 10.0, 13.0, 14.5])


@pytest.fixture(scope="module")
def small_pack(tmp_path_factory):
    return vector_pack(tmp_path_factory.mktemp("six"), POSITIONS.reshape(-1, 1))


@pytest.fixture(scope="module")
def wide_pack(tmp_path_factory):
    """Three words at 0, 3, 6: one output set of diameter 6 (k = 3)."""
    return vector_pack(tmp_path_factory.mktemp("wide"), np.array([[0.0], [3.0], [6.0]]))


def custext_channel(positions: np.ndarray, members: np.ndarray, set_of, epsilon: float):
    """Exact Pr[CusText(x) = y] from the paper's formula, given the mapping."""
    size = len(positions)
    channel = np.zeros((size, size))
    for word in range(size):
        group = members[set_of[word]]
        group = group[group >= 0]
        gaps = np.abs(positions[group] - positions[word])
        spread = gaps.max() - gaps.min()
        scores = -(gaps - gaps.min()) / spread if spread > 0 else np.zeros(len(group))
        weights = np.exp(epsilon * scores / 2)
        channel[word, group] = weights / weights.sum()
    return channel


def sampler(mechanism, word: int):
    return lambda n: mechanism.privatize_ids(np.full(n, word))


# -- the mapping ---------------------------------------------------------------------------------


def test_output_sets_partition_the_vocabulary_into_similar_words(euclid_pack, planted):
    _, _, labels = planted
    mechanism = CusText(euclid_pack, epsilon=1.0, k=5, rng=1)
    set_of, members = mechanism.output_sets()
    flat = members[members >= 0]
    assert sorted(flat.tolist()) == list(range(len(labels)))  # each word in exactly one set
    sizes = (members >= 0).sum(axis=1)
    assert sizes.min() >= 5 and sizes.max() <= 9
    for index, row in enumerate(members):
        assert (set_of[row[row >= 0]] == index).all()
    within = np.mean([len(set(labels[row[row >= 0]])) == 1 for row in members])
    assert within >= 0.9  # planted clusters of 10: sets stay inside them
    again = CusText(euclid_pack, epsilon=3.0, k=5, rng=2).output_sets()
    np.testing.assert_array_equal(again[1], members)  # public and deterministic


def test_walk_takes_the_nearest_free_words_in_frequency_order():
    positions = np.array([0.0, 5.0, 1.0, 6.0, 2.0, 7.0, 100.0])

    def neighbours(ids, count):
        gaps = np.abs(positions[ids, None] - positions[None, :])
        return np.argsort(gaps, axis=1, kind="stable")[:, :count]

    def distances(first, second):
        return np.abs(positions[first] - positions[second])

    set_of = build_output_sets(len(positions), 3, neighbours, distances)
    groups = [sorted(row[row >= 0].tolist()) for row in set_members(set_of)]
    # word 0 opens {0, 2, 4}; word 1 opens {1, 3, 5}; the remainder {6} joins the last set
    assert groups == [[0, 2, 4], [1, 3, 5, 6]]
    assert set_of.tolist() == [0, 1, 0, 1, 0, 1, 1]


def test_a_vocabulary_no_larger_than_k_is_one_set():
    set_of = build_output_sets(3, 5, lambda ids, m: None, lambda a, b: None)
    assert set_of.tolist() == [0, 0, 0] and set_members(set_of).tolist() == [[0, 1, 2]]


# -- the channel ---------------------------------------------------------------------------------


def test_channel_is_epsilon_dp_within_a_set_and_reveals_only_the_set(small_pack):
    mechanism = CusText(small_pack, epsilon=2.0, k=3, rng=1)
    set_of, members = mechanism.output_sets()
    assert sorted(sorted(row[row >= 0].tolist()) for row in members) == [[0, 1, 2], [3, 4, 5]]
    channel = custext_channel(POSITIONS, members, set_of, 2.0)
    same = set_of[:, None] == set_of[None, :]
    bound = np.where(same, 2.0, np.inf)
    assert metric_violations(channel, bound) == 0
    assert (channel[:3, 3:] == 0).all() and (channel[3:, :3] == 0).all()


@pytest.mark.parametrize("word", range(6))
def test_samples_match_the_exact_channel(small_pack, seeded, word):
    mechanism = CusText(small_pack, epsilon=2.0, k=3, rng=seeded(word))
    set_of, members = mechanism.output_sets()
    channel = custext_channel(POSITIONS, members, set_of, 2.0)
    outputs = mechanism.privatize_ids(np.full(60_000, word))
    assert chi_square_pvalue(outputs, channel[word]) > 1e-4


def test_hamming_space_samples_within_the_set(euclid_pack, seeded):
    mechanism = CusText(euclid_pack, epsilon=1.0, k=4, geometry="hamming", rng=seeded(3))
    set_of, _ = mechanism.output_sets()
    words = np.arange(200)
    outputs = mechanism.privatize_ids(np.repeat(words, 20))
    assert (set_of[outputs] == set_of[np.repeat(words, 20)]).all()
    assert mechanism.guarantee().metric is None


# -- the auditor ---------------------------------------------------------------------------------


class _Unnormalised(CusText):
    """Broken: scores -d(x, y) instead of the normalised -(d - min) / (max - min)."""

    def log_weights(self, word_ids):
        candidates, _ = super().log_weights(word_ids)
        gaps = self._distances(np.repeat(word_ids, candidates.shape[1]), candidates.ravel())
        return candidates, -0.5 * self.epsilon * gaps.reshape(candidates.shape)


def test_custext_passes_the_audit(wide_pack, seeded):
    mechanism = CusText(wide_pack, epsilon=1.0, k=3, rng=seeded(30))
    result = audit_pair(
        sampler(mechanism, 0), sampler(mechanism, 2), claimed_epsilon=1.0, samples=N
    )
    assert result.passed and result.epsilon_lower_bound > 0.3


def test_custext_without_normalisation_is_caught(wide_pack, seeded):
    broken = _Unnormalised(wide_pack, epsilon=1.0, k=3, rng=seeded(31))
    result = audit_pair(sampler(broken, 0), sampler(broken, 2), claimed_epsilon=1.0, samples=N)
    assert not result.passed


# -- no input token reaches the output ------------------------------------------------------------


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    text=st.text(max_size=80),
    secret=SECRETS,
    epsilon=st.sampled_from([0.05, 1.0, 50.0]),
    space=st.sampled_from(["euclidean", "hamming"]),
    policy=st.sampled_from(["sample", "mask", "drop"]),
)
def test_no_input_token_reaches_the_output(euclid_pack, text, secret, epsilon, space, policy):
    mechanism = CusText(euclid_pack, epsilon=epsilon, k=5, geometry=space, oov=policy)
    output = mechanism.privatize(f"{text} {secret} {text}")
    assert secret.lower() not in output.lower()
    assert_only_public_tokens(output, euclid_pack.vocabulary)


# -- guarantee, registry, errors ---------------------------------------------------------------


def test_guarantee_and_registry(small_pack):
    from edgedp.evaluation.calibration import METRICS
    from edgedp.registry import WORD_MECHANISMS

    assert WORD_MECHANISMS["custext"] is CusText
    assert "custext" not in METRICS  # plain DP within sets: no privacy ratio
    guarantee = CusText(small_pack, epsilon=2.0, k=3, rng=1).guarantee()
    assert guarantee.metric is None and guarantee.epsilon == 2.0
    assert "output set" in guarantee.relation
    assert CusText(small_pack, epsilon=2.0, k=3, rng=1).parameters()["k"] == 3


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"k": 1}, edgedp.InputError),
        ({"k": 2.5}, edgedp.InputError),
        ({"geometry": "cosine"}, edgedp.InputError),
        ({"epsilon": -1.0}, edgedp.PrivacyParameterError),
    ],
)
def test_bad_parameters_raise_edgedp_errors(small_pack, kwargs, error):
    with pytest.raises(error):
        CusText(small_pack, **{"epsilon": 1.0, **kwargs})


def test_euclidean_custext_needs_vectors(default_pack):
    with pytest.raises(edgedp.AssetError, match="--geometry hamming"):
        CusText(default_pack, epsilon=1.0, geometry="euclidean")


# -- output sets stored in the pack -------------------------------------------------------------


def test_stored_sets_are_the_ones_the_mechanism_would_build(tmp_path, planted):
    # The exporter writes the default k's sets with the runtime's own functions: a pack built with
    # them loads them (no walk), one built without them walks to the same partition.
    _, vectors, _ = planted
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with_sets = vector_pack(tmp_path / "a", vectors, neighbours=0)
    without = vector_pack(tmp_path / "b", vectors, neighbours=0, custext=0)
    assert with_sets.custext_k == 20 and set(with_sets.custext_sets) == {"hamming", "euclidean"}
    assert without.custext_k is None and not without.custext_sets
    for space in ("hamming", "euclidean"):
        stored = CusText(with_sets, epsilon=1.0, geometry=space, rng=1).output_sets()[0]
        built = CusText(without, epsilon=1.0, geometry=space, rng=1).output_sets()[0]
        np.testing.assert_array_equal(stored, built)
        np.testing.assert_array_equal(stored, with_sets.custext_sets[space])


def test_sets_are_built_once_per_pack_and_k(small_pack, monkeypatch):
    calls = []
    real = edgedp.words.custext.euclidean_output_sets

    def counting(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(edgedp.words.custext, "euclidean_output_sets", counting)
    for epsilon in (1.0, 2.0, 3.0):  # tune and explain rebuild the mechanism at many epsilons
        CusText(small_pack, epsilon=epsilon, k=2, rng=1).prepare()
    CusText(small_pack, epsilon=1.0, k=4, rng=1).prepare()
    assert calls == [2, 4]


def test_stored_sets_with_the_wrong_sizes_are_refused(tmp_path, planted):
    _, vectors, _ = planted
    pack = vector_pack(tmp_path, vectors, neighbours=0)
    set_of = np.load(pack.path / "custext-hamming.npy")
    set_of[0] = set_of.max() + 1  # a singleton set: word 0 would be released as itself
    path = pack.path / "custext-hamming.npy"
    np.save(path, set_of)
    content = path.read_bytes()
    manifest = json.loads((pack.path / "manifest.json").read_text())
    manifest["files"][path.name] = {
        "bytes": len(content),
        "sha256": hashlib.sha256(content).hexdigest(),
    }
    (pack.path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(edgedp.AssetError, match="partition"):
        edgedp.load_pack(pack.path)


def test_stored_sets_are_released_after_the_load_check_and_read_again_on_first_use(
    tmp_path, planted
):
    """Only CusText reads its sets: the load checks them and lets their bytes go; CusText's first
    use reads the file again, checked against the manifest as at load (a file changed since is
    refused, never used)."""
    _, vectors, _ = planted
    pack = vector_pack(tmp_path, vectors, neighbours=0)
    loaded = edgedp.load_pack(pack.path)
    with pytest.raises(edgedp.AssetError, match="was not read"):
        loaded.manifest.contents("custext-hamming.npy")
    stored = np.load(pack.path / "custext-hamming.npy")
    np.testing.assert_array_equal(loaded.custext_sets["hamming"], stored)
    changed = edgedp.load_pack(pack.path)
    path = pack.path / "custext-hamming.npy"
    np.save(path, stored[::-1].copy())  # the same size, other bytes
    with pytest.raises(edgedp.AssetError, match="changed since the pack was loaded"):
        changed.custext_sets["hamming"]  # the first use reads the file
