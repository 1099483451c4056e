"""DeepCandidate: exact exponential-mechanism probabilities, the SentDP bound between neighbouring
documents, the paper's Table 1, sampling, parameters and the API on the bundled pack."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats
from sentence_helpers import unit_rows, with_candidates

import edgedp
from edgedp.documents.deepcandidate import selection_probabilities
from edgedp.errors import InputError, PrivacyParameterError
from edgedp.privacy.noise import LOG_WEIGHT_ROUNDING
from edgedp.privacy.randomness import RandomSource
from edgedp.privacy.realised_distributions import gumbel_max_slack

SPORT_TEXT = (
    "The striker scored twice as United beat their rivals 3-1 in the league on Saturday. "
    "The manager praised his defenders after a tough first half. "
    "The goalkeeper made three fine saves before the break. "
    "Fans celebrated the win, which lifts the club to second in the table. "
    "The midfielder was booked for a late tackle in the second half. "
    "The team now faces a cup quarter-final away from home next week. "
    "Injuries to two forwards could force changes to the line-up. "
    "The coach said the squad must keep its focus for the title race. "
    "Their captain has played every minute of the season so far. "
    "Tickets for the next home match sold out within hours."
)


def exact(depths: list[int], epsilon: float) -> list[float]:
    weights = [math.exp(epsilon / 2 * depth) for depth in depths]
    return [weight / sum(weights) for weight in weights]


@pytest.fixture
def toy(sentence_pack, seeded):
    """Candidates with known depths among 8 sentence embeddings symmetric about the origin."""
    rng = np.random.default_rng(0)
    dims = sentence_pack.dims
    half = rng.standard_normal((4, dims))
    sentences = np.vstack([half, -half])
    candidates = np.vstack([np.zeros(dims), 0.02 * half[0], 50 * np.ones(dims), half[1] * 1e3])
    pack = with_candidates(sentence_pack, candidates, unit_rows(rng, 40, dims))
    return pack, sentences


def test_probabilities_are_exactly_softmax_of_half_epsilon_times_depth(toy, seeded):
    pack, sentences = toy
    for epsilon in (0.5, 3.0, 10.0):
        mechanism = edgedp.DeepCandidate(pack, epsilon=epsilon, projections=40, rng=seeded(1))
        depths = mechanism.depths(sentences)
        assert depths.tolist()[0] == 4 and depths.tolist()[2:] == [0, 0]
        np.testing.assert_allclose(
            mechanism.probabilities(sentences), exact(depths.tolist(), epsilon), rtol=1e-12
        )


def test_sampling_follows_the_exact_distribution(toy, seeded):
    pack, sentences = toy
    mechanism = edgedp.DeepCandidate(pack, epsilon=1.0, projections=40, rng=seeded(2))
    expected = mechanism.probabilities(sentences)
    draws = 4000
    chosen = mechanism.choose([sentences] * draws)
    counts = np.bincount(chosen, minlength=len(expected))
    assert stats.chisquare(counts, expected * draws).pvalue > 1e-4
    # A mechanism that ignored depth (uniform) would be rejected by the same test.
    assert stats.chisquare(counts, np.full(len(expected), draws / len(expected))).pvalue < 1e-4


@pytest.mark.parametrize("epsilon", [1e-6, 0.5, 3.0, 30.0, 1000.0])
def test_choice_leaves_room_for_the_float_draw(toy, seeded, monkeypatch, epsilon):
    # choose() draws by Gumbel-max over floats: realised loss <= 2 c + xi, xi = 4 eta (scores up
    # to B = epsilon / 2 * k, a depth being at most the k sentences: a public bound, not the
    # batch's private depths) + the rounding of c * depth (4 * 2^-50 B). Exactly: 2 c + xi <= eps.
    pack, sentences = toy
    seen: list[np.ndarray] = []
    draw = RandomSource.choice_from_log_weights

    def spy(self, log_weights):
        seen.append(np.array(log_weights))
        return draw(self, log_weights)

    monkeypatch.setattr(RandomSource, "choice_from_log_weights", spy)
    mechanism = edgedp.DeepCandidate(pack, epsilon=epsilon, projections=40, rng=seeded(3))
    depths = mechanism.depths(sentences)
    mechanism.choose([sentences])
    assert depths[0] == 4
    coefficient = Fraction(float(seen[0][0, 0])) / 4  # c * 4 is exact
    bound = epsilon / 2 * len(sentences)
    xi = Fraction(gumbel_max_slack(bound, epsilon)[0]) + 4 * Fraction(
        LOG_WEIGHT_ROUNDING
    ) * Fraction(bound)
    assert 2 * coefficient + xi <= Fraction(epsilon)


@pytest.mark.parametrize(
    ("epsilon", "b", "j_star"), [(3, 55, 5), (6, 25, 3), (10, 5, 2), (23, 1, 1)]
)
def test_paper_table_1(epsilon, b, j_star):
    m = 5000

    def deep_mass(depth: int) -> float:
        depths = np.zeros(m, dtype=np.int64)
        depths[:b] = depth
        return float(selection_probabilities(depths, epsilon)[:b].sum())

    assert deep_mass(j_star) >= 0.95
    # j* is the least depth that works: this fails if the exponent lacks the factor 1/2.
    assert deep_mass(j_star - 1) < 0.95


def test_neighbouring_documents_are_epsilon_indistinguishable(sentence_pack, seeded):
    rng = np.random.default_rng(4)
    dims = sentence_pack.dims
    pack = with_candidates(
        sentence_pack, rng.standard_normal((300, dims)) * 0.3, unit_rows(rng, 25, dims)
    )
    for trial in range(20):
        epsilon = [1.0, 3.0, 10.0, 30.0][trial % 4]
        mechanism = edgedp.DeepCandidate(pack, epsilon=epsilon, projections=25, rng=seeded(0))
        document = rng.standard_normal((rng.integers(1, 25), dims))
        neighbour = document.copy()
        neighbour[rng.integers(len(document))] = rng.standard_normal(dims) * rng.choice([0.01, 100])
        before, after = mechanism.probabilities(document), mechanism.probabilities(neighbour)
        assert np.max(np.abs(np.log(before) - np.log(after))) <= epsilon * (1 + 1e-12)


def test_documents_with_fewer_than_two_sentences_get_a_uniform_candidate(sentence_pack, seeded):
    mechanism = edgedp.DeepCandidate(sentence_pack, epsilon=10.0, rng=seeded(0))
    m = len(sentence_pack.candidates)
    empty = np.empty((0, sentence_pack.dims), dtype=np.float32)
    single = sentence_pack.reference_recoded[:1]
    for embeddings in (empty, single):
        np.testing.assert_allclose(mechanism.probabilities(embeddings), np.full(m, 1 / m))
    with pytest.warns(edgedp.ShortDocumentWarning):  # private, and useless: said so
        release = mechanism.release("")
    assert release.sentences == 0 and 0 <= release.index < m


def test_release_on_real_text(sentence_pack, seeded):
    mechanism = edgedp.DeepCandidate(sentence_pack, epsilon=10.0, rng=seeded(3))
    release = mechanism.release(SPORT_TEXT)
    assert isinstance(release, edgedp.CandidateRelease)
    assert release.sentences == 10
    assert np.array_equal(release.embedding, sentence_pack.candidates[release.index])
    assert mechanism.embed(SPORT_TEXT).shape == (sentence_pack.dims,)
    with pytest.warns(edgedp.ShortDocumentWarning, match="1 of 3 documents"):
        batch = mechanism.embed_batch([SPORT_TEXT, ["One sentence.", "Another one."], ""])
    assert batch.shape == (3, sentence_pack.dims) and batch.dtype == np.float32
    assert all(row.tolist() in sentence_pack.candidates.tolist() for row in batch)
    assert not mechanism.is_private  # seeded
    with pytest.warns(edgedp.NotPrivateWarning):
        recoded_mean = edgedp.NonPrivateMean(sentence_pack, embedding_space="recoded").embed(
            SPORT_TEXT
        )
    sentences = edgedp.text.sentences.split_sentences(SPORT_TEXT)
    expected = sentence_pack.recoder.recode(sentence_pack.encoder.encode(sentences)).mean(axis=0)
    np.testing.assert_allclose(recoded_mean, expected, rtol=1e-5, atol=1e-6)


def test_deep_candidates_are_relevant(sentence_pack):
    # Exact probabilities, no sampling: most of the mass falls on sport articles at epsilon 30.
    mechanism = edgedp.DeepCandidate(sentence_pack, epsilon=30.0)
    sentences = edgedp.text.sentences.split_sentences(SPORT_TEXT)
    recoded = sentence_pack.recoder.recode(sentence_pack.encoder.encode(sentences))
    probabilities = mechanism.probabilities(recoded)
    sport = np.array([source.startswith("sport") for source in sentence_pack.candidate_sources])
    assert probabilities[sport].sum() > 0.5 > sport.mean()


def test_default_projections_follow_the_pack(sentence_pack):
    for epsilon, count in sentence_pack.recommended_projections.items():
        assert edgedp.DeepCandidate(sentence_pack, epsilon=epsilon).projections == count
    assert (
        edgedp.DeepCandidate(sentence_pack, epsilon=0.01).projections
        == (sentence_pack.recommended_projections[min(sentence_pack.recommended_projections)])
    )
    assert edgedp.DeepCandidate(sentence_pack, epsilon=2, projections=7).projections == 7


def test_parameters_are_validated(sentence_pack, default_pack):
    for epsilon in (0, -1.0, float("nan"), float("inf"), True, "1"):
        with pytest.raises(PrivacyParameterError):
            edgedp.DeepCandidate(sentence_pack, epsilon=epsilon)
    available = len(sentence_pack.projections)
    for projections in (0, available + 1, 2.5):
        with pytest.raises(InputError):
            edgedp.DeepCandidate(sentence_pack, epsilon=1.0, projections=projections)
    with pytest.raises(InputError, match="sentences pack"):
        edgedp.DeepCandidate(default_pack, epsilon=1.0)
    with pytest.raises(InputError, match="numpy generators"):
        edgedp.DeepCandidate(sentence_pack, epsilon=1.0, rng=np.random.default_rng(0))
    with pytest.raises(TypeError):
        edgedp.DeepCandidate(sentence_pack, 1.0)  # privacy arguments are keyword-only


def test_bad_documents_are_clear_errors(sentence_pack):
    mechanism = edgedp.DeepCandidate(sentence_pack, epsilon=1.0)
    with pytest.raises(InputError, match="bytes"):
        mechanism.embed(b"\x00\xff binary")
    with pytest.raises(InputError, match="sequence of sentence strings"):
        mechanism.embed(42)
    with pytest.raises(InputError, match="not a single document"):
        mechanism.embed_batch("a document, not a batch")
    with pytest.raises(InputError, match="surrogate"):
        mechanism.embed("bad \ud800 text")
    with pytest.raises(InputError, match="shape"):
        mechanism.depths(np.ones((3, 5)))
