"""The black-box auditor passes every shipped mechanism and catches deliberately broken variants.

The mechanisms audited are the shipped classes and functions (BRR, Madlib, Mahalanobis, Vickrey,
GeneralizedVickrey, DeepCandidate on the bundled sentences pack, Truncation, ADePT's release). Each
broken variant is injected into shipped code by monkeypatching one epsilon -> noise-parameter
conversion where the mechanism's module looks it up, reproducing a bug the field has shipped: a wrong
flip probability, epsilon instead of epsilon/2 in the exponential mechanism (DeepCandidate), Laplace
noise a factor sqrt(d) too small (ADePT), Truncation noise for one coordinate's sensitivity, too
little Madlib noise; plus a Vickrey that excludes the input word. Neighbouring inputs are chosen
where the bound is nearly tight (words on a line, opposite corners of ADePT's L2 ball, a document
pair with a large exact loss), so a factor-2 error is visible at moderate N.
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
import edgedp.adept.adept
import edgedp.documents.deepcandidate
import edgedp.documents.truncation
import edgedp.words.euclidean
import edgedp.words.hamming
from edgedp.documents.deepcandidate import DeepCandidate
from edgedp.documents.mechanism import sentence_embeddings
from edgedp.evaluation.audit import (
    AuditResult,
    audit_pair,
    clopper_pearson,
    regularized_incomplete_beta,
)
from edgedp.privacy.noise import (
    exponential_mechanism_coefficient,
    gumbel_max_coefficient,
    laplace_scale,
    multivariate_laplace_radius_scale,
    rr_flip_threshold,
    snapped_laplace,
)
from edgedp.words.hamming import randomized_response

# EDGEDP_AUDIT_SAMPLES raises N for the trust report (python -m bench trust); the tests use 200k.
N = int(os.environ.get("EDGEDP_AUDIT_SAMPLES", "200000"))
REPORT = os.environ.get("EDGEDP_TRUST_REPORT")


@pytest.fixture(autouse=True)
def record_audits(request, monkeypatch):
    """With EDGEDP_TRUST_REPORT set, append every audit's result to that JSON-lines file."""
    if REPORT is None:
        yield
        return
    import edgedp.evaluation.audit as audit_module

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


def test_a_set_of_outputs_gives_a_tighter_bound_than_any_single_output(seeded):
    # 200 outputs, each rare; A makes the first 100 e times likelier than B does (and the set too)
    rng, favoured = seeded(17), np.arange(200) < 100

    def sampler(log_weights: np.ndarray):
        return lambda n: rng.choice_from_log_weights(np.tile(log_weights, (n, 1)))

    result = audit_pair(
        sampler(favoured.astype(float)),
        sampler((~favoured).astype(float)),
        claimed_epsilon=1.0,
        samples=20_000,
    )
    assert result.passed and result.epsilon_lower_bound > 0.9  # single outputs reach about 0.6
    assert result.event.endswith("values) (favouring A)")


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


def test_wrong_flip_probability_is_caught(seeded, monkeypatch):
    # the bug: the flip threshold of 2 epsilon, i.e. flip probability 1 / (1 + e^(2 epsilon))
    monkeypatch.setattr(
        edgedp.words.hamming,
        "rr_flip_threshold",
        lambda epsilon: rr_flip_threshold(2 * epsilon),
    )
    rng = seeded(2)
    result = audit_pair(
        rr_sampler(0b1000_0000, 1.0, rng),
        rr_sampler(0, 1.0, rng),
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
            four_bit_pack, epsilon=epsilon, t=0.5, geometry="hamming", rng=seeded(3)
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


def vector_pack(directory, vectors: np.ndarray) -> edgedp.WordPack:
    """A pack of the given float32 word vectors (words aa, bb, ...), built by the exporter."""
    words = [chr(97 + i) * 2 for i in range(len(vectors))]
    source = write_vector_file(directory / "vectors.txt", words, vectors.astype(np.float32))
    command = ["words", "--source-file", str(source), "--words", str(len(words))]
    command += ["--bits", "8", "--vectors", "float32", "--out", str(directory / "pack")]
    assert export_main(command) == 0
    return edgedp.load_pack(directory / "pack")


@pytest.fixture(scope="module")
def line_pack(tmp_path_factory):
    """Six words at 0, 1, ..., 5 on a line (1-D vectors): Madlib is the 1-D Laplace mechanism."""
    return vector_pack(tmp_path_factory.mktemp("line"), np.arange(6.0).reshape(-1, 1))


def test_madlib_passes_and_is_nearly_tight(line_pack, seeded):
    madlib = edgedp.Madlib(line_pack, epsilon=1.0, rng=seeded(4))
    result = audit_pair(
        word_sampler(madlib, 1), word_sampler(madlib, 0), claimed_epsilon=1.0, samples=N
    )  # distance 1; event "output = 5" has ratio exactly e
    assert result.passed and result.epsilon_lower_bound > 0.8


def test_madlib_with_too_little_noise_is_caught(line_pack, seeded, monkeypatch):
    # the bug: the Gamma radius scale of 2 epsilon (half the noise)
    monkeypatch.setattr(
        edgedp.words.euclidean,
        "multivariate_laplace_radius_scale",
        lambda epsilon: multivariate_laplace_radius_scale(2 * epsilon),
    )
    broken = edgedp.Madlib(line_pack, epsilon=1.0, rng=seeded(5))
    result = audit_pair(
        word_sampler(broken, 1), word_sampler(broken, 0), claimed_epsilon=1.0, samples=N
    )
    assert not result.passed


def test_vickrey_passes(line_pack, seeded):
    # The audit is tight here (the event's ratio is exactly e), so at alpha = 0.05 some streams fail
    # a correct mechanism. Seed 6 did with the issue-14 samplers (event count 4.1 sd above its
    # exact mean 63,212 in one 200,000 chunk); the law itself matches: over seeds 20-31 x 10^6
    # samples Pr[output in {2..5} | 1] is 0.31606 (1 - 1/e)/2 within z mean -0.7, variance 1.0.
    vickrey = edgedp.Vickrey(line_pack, epsilon=1.0, t=0.5, rng=seeded(7))
    result = audit_pair(
        word_sampler(vickrey, 1), word_sampler(vickrey, 0), claimed_epsilon=1.0, samples=N
    )
    assert result.passed and result.epsilon_lower_bound > 0.5


def test_generalized_vickrey_passes(line_pack, seeded):
    vickrey = edgedp.GeneralizedVickrey(
        line_pack, epsilon=1.0, weights=[0.5, 1.0, 2.0], rng=seeded(11)
    )
    result = audit_pair(
        word_sampler(vickrey, 1), word_sampler(vickrey, 0), claimed_epsilon=1.0, samples=N
    )
    assert result.passed and result.epsilon_lower_bound > 0.5


class _ExcludingVickrey(edgedp.Vickrey):
    """Broken: the printed algorithm, which searches the neighbours among W minus {input}."""

    def _release(self, word_ids):
        distances, ids = self.space.neighbours(word_ids, 3)
        keep = ids != word_ids[:, None]
        order = np.argsort(~keep, axis=1, kind="stable")[:, :2]
        rows = np.arange(len(ids))[:, None]
        chosen_ids, chosen_distances = ids[rows, order], distances[rows, order]
        from edgedp.words.vickrey import choose_first_or_second

        return choose_first_or_second(chosen_ids, chosen_distances, self.t, self.rng)


def test_vickrey_excluding_the_input_word_is_caught(line_pack, seeded):
    broken = _ExcludingVickrey(line_pack, epsilon=1.0, t=0.5, rng=seeded(7))
    result = audit_pair(
        word_sampler(broken, 0), word_sampler(broken, 1), claimed_epsilon=1.0, samples=N
    )  # Pr[M(0) = 0] = 0 < Pr[M(1) = 0]
    assert not result.passed


@pytest.fixture(scope="module")
def plane_pack(tmp_path_factory):
    """Words at (0, 0), ..., (5, 0) and (2.5, +-1): the covariance stretches the x axis, so the
    Mahalanobis distance of neighbours on the line is below their Euclidean distance."""
    line = np.column_stack([np.arange(6.0), np.zeros(6)])
    vectors = np.vstack([line, [[2.5, 1.0], [2.5, -1.0]]])
    return vector_pack(tmp_path_factory.mktemp("plane"), vectors)


def test_mahalanobis_passes_at_its_metric(plane_pack, seeded):
    mahalanobis = edgedp.Mahalanobis(plane_pack, epsilon=1.0, lam=0.5, rng=seeded(12))
    step = np.array([1.0, 0.0])  # words 1 and 0
    distance = math.sqrt(step @ np.linalg.solve(mahalanobis.metric_matrix, step))
    assert distance < 0.9  # the claim is below Madlib's epsilon * d_2 = 1
    result = audit_pair(
        word_sampler(mahalanobis, 1),
        word_sampler(mahalanobis, 0),
        claimed_epsilon=1.0 * distance,
        samples=N,
    )
    assert result.passed and result.epsilon_lower_bound > 0.5 * distance


# -- the exponential mechanism: the worst case, and DeepCandidate on the bundled pack ------------


def exponential_sampler(utilities: np.ndarray, epsilon: float, rng):
    coefficient = exponential_mechanism_coefficient(epsilon, sensitivity=1)

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


# Two documents that differ in their second sentence, picked among random pairs of news-like
# sentences for a large exact loss (from DeepCandidate.probabilities): 0.68 epsilon for the best
# event, 1.66 epsilon with the broken coefficient.
DOCUMENT = [
    "Oil prices hit a record high as demand grew.",
    "Hello!",
    "Shares in the bank fell sharply after the profit warning.",
    "The striker scored twice as United beat their rivals 3-1 in the league on Saturday.",
    "The new phone has a faster chip and a better camera.",
]
NEIGHBOUR = [*DOCUMENT[:1], "The minister announced a new tax on fuel.", *DOCUMENT[2:]]
CANDIDATE_EPSILON = 4.0


@pytest.fixture(scope="module")
def recoded(sentence_pack):
    """DOCUMENT and NEIGHBOUR encoded once, exactly as DeepCandidate.release encodes them."""
    return sentence_embeddings(sentence_pack, [DOCUMENT, NEIGHBOUR], "recoded")


class _MemoizedDepth:
    """A CandidateDepth that computes the depths of each distinct document once.

    The audit feeds one document n times to ``DeepCandidate.choose``; the depths are a
    deterministic function of the embeddings, so this only saves time.
    """

    def __init__(self, depth) -> None:
        self._depth, self._seen = depth, {}

    def depths(self, points: np.ndarray) -> np.ndarray:
        key = points.tobytes()
        if key not in self._seen:
            self._seen[key] = self._depth.depths(points)
        return self._seen[key]


def in_chunks(draw, n: int, chunk: int = 4096) -> np.ndarray:
    """``draw(size)`` concatenated to n draws, ``chunk`` at a time (bounded memory)."""
    return np.concatenate([draw(min(chunk, n - start)) for start in range(0, n, chunk)])


def audit_deepcandidate(pack, recoded, rng) -> AuditResult:
    mechanism = DeepCandidate(pack, epsilon=CANDIDATE_EPSILON, rng=rng)
    mechanism._depth = _MemoizedDepth(mechanism._depth)

    def sampler(embeddings: np.ndarray):
        return lambda n: in_chunks(lambda size: mechanism.choose([embeddings] * size), n)

    return audit_pair(
        sampler(recoded[0]),
        sampler(recoded[1]),
        claimed_epsilon=CANDIDATE_EPSILON,  # SentDP: one sentence changed
        samples=N // 5,
    )


def test_deepcandidate_chooses_what_it_releases(sentence_pack, recoded, seeded):
    released = DeepCandidate(sentence_pack, epsilon=CANDIDATE_EPSILON, rng=seeded(13))
    chosen = DeepCandidate(sentence_pack, epsilon=CANDIDATE_EPSILON, rng=seeded(13))
    indices = [release.index for release in released.release_batch([DOCUMENT] * 8)]
    assert indices == chosen.choose([recoded[0]] * 8).tolist()


@pytest.mark.slow
def test_deepcandidate_passes(sentence_pack, recoded, seeded):
    result = audit_deepcandidate(sentence_pack, recoded, seeded(14))
    assert result.passed and result.epsilon_lower_bound > 0.25 * CANDIDATE_EPSILON


@pytest.mark.slow
def test_deepcandidate_with_epsilon_instead_of_half_is_caught(
    sentence_pack, recoded, seeded, monkeypatch
):
    def broken(*args, **kwargs):  # the coefficient epsilon, not epsilon / 2
        right = gumbel_max_coefficient(*args, **kwargs)
        return dataclasses.replace(right, coefficient=2 * right.coefficient)

    monkeypatch.setattr(edgedp.documents.deepcandidate, "gumbel_max_coefficient", broken)
    assert not audit_deepcandidate(sentence_pack, recoded, seeded(15)).passed


# -- Truncation: Laplace noise on a clipped mean -------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "broken", [False, True], ids=["l1-scale-passes", "one-coordinate-scale-is-caught"]
)
def test_truncation(sentence_pack, seeded, monkeypatch, broken):
    if broken:  # the sensitivity of one coordinate (the mean box width), not of the L1 norm
        # (issue 14: the noise comes from the exact snapped Laplace conversion, broken here)
        monkeypatch.setattr(
            edgedp.documents.truncation,
            "snapped_laplace",
            lambda sensitivity, dims, epsilon: snapped_laplace(sensitivity / dims, dims, epsilon),
        )
    # A real pair's loss is spread over 384 coordinates, so the correct noise shows a positive bound
    # only at a large epsilon; the broken one is caught at any epsilon, even with few samples.
    epsilon = 2.0 if broken else 8.0
    truncation = edgedp.Truncation(sentence_pack, epsilon=epsilon, rng=seeded(16))
    document, neighbour = sentence_embeddings(
        sentence_pack, [DOCUMENT[:3], NEIGHBOUR[:3]], "sentence"
    )
    mean_a, mean_b = truncation.clipped_mean(document), truncation.clipped_mean(neighbour)

    def log_likelihood_ratio(outputs: np.ndarray) -> np.ndarray:  # the most powerful statistic
        return (np.abs(outputs - mean_b) - np.abs(outputs - mean_a)).sum(axis=1)

    def sampler(embeddings: np.ndarray):
        return lambda n: in_chunks(
            lambda size: log_likelihood_ratio(truncation.release_embeddings([embeddings] * size)), n
        )

    result = audit_pair(
        sampler(document),
        sampler(neighbour),
        claimed_epsilon=epsilon,
        samples=N // 10,
        statistic=np.asarray,  # the samplers return the statistic (computed chunk by chunk)
    )
    assert result.passed is not broken and result.epsilon_lower_bound > 0


# -- ADePT's release: Laplace noise on the L2 ball, and the paper's sqrt(d) error ----------------


def adept_sampler(mechanism: edgedp.ADePT, sentence: str):
    return lambda n: mechanism.noisy_latents([sentence] * n)


@pytest.mark.parametrize(
    "broken", [False, True], ids=["correct-scale-passes", "paper-scale-is-caught"]
)
def test_adept_release_on_opposite_corners_of_the_l2_ball(seeded, monkeypatch, broken):
    if broken:  # the ADePT paper's scale 2C / epsilon, without sqrt(d)
        monkeypatch.setattr(
            edgedp.adept.adept,
            "l2_ball_laplace_scale",
            lambda radius, dims, epsilon: laplace_scale(2 * radius, epsilon),
        )
        # (issue 14: the released noise is the exact snapped Laplace for this L1 diameter)
        monkeypatch.setattr(edgedp.adept.adept, "l2_ball_l1_diameter", lambda r, d: 2 * r)
    epsilon = 1.0
    adept = edgedp.ADePT(edgedp.load_pack("adept-bbc"), epsilon=epsilon, rng=seeded(10))
    dims, radius = adept.pack.latent_dims, adept.pack.clip_norm
    # Any encoder may send two sentences anywhere; the worst case for the L1 sensitivity is two
    # opposite corners (outside the ball: the release clips them onto its sphere).
    corner = np.full(dims, 3 * radius / math.sqrt(dims))
    north = adept.autoencoder.tokenize(["north"])[0]
    monkeypatch.setattr(
        adept.autoencoder,
        "encode",
        lambda tokens, independent: np.array([corner if t == north else -corner for t in tokens]),
    )
    result = audit_pair(
        adept_sampler(adept, "north"),
        adept_sampler(adept, "south"),
        claimed_epsilon=epsilon,
        samples=N // 4,
        statistic=lambda outputs: outputs.sum(axis=1),
    )
    assert result.passed is not broken
    # not vacuous: the sum statistic sees the signal (far too much noise gives ~0). The bound varies
    # with the stream: 0.156 with the old float samplers at this seed, 0.068 with the exact ones;
    # over seeds 0-2, 10-12, 20-22 float Laplace gave 0.073-0.226 and the snapped discrete Laplace
    # 0.097-0.233 (same law up to the grid), so 0.05 is the margin that is not a seed lottery.
    assert broken or result.epsilon_lower_bound > 0.05
