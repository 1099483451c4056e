"""The float slack of the word samplers' Gumbel-max draw (TEM, SanText, SanText+, CusText).

``choice_from_log_weights`` realises each probability within e^(+-2 eta) of the exact law of the
log weights it is given (:func:`edgedp.privacy.realised_distributions.gumbel_max_slack`), and the log
weights themselves
are rounded. Where the neighbour relation has a resolution (plain DP: CusText; integer Hamming
distances: TEM in Hamming space) the slack xi is folded into epsilon; for Euclidean metric DP
(no smallest distance between distinct words) it is stated as delta = e^xi - 1 per word, xi
including the rounding of the float distances. Everything here is exact arithmetic (Fractions over
the floats the mechanisms use, Decimal for the exact laws of their log-weight rows). Against the
mechanisms that used epsilon / 2 and called the draw exact, the coefficient, refusal, delta and
distance tests fail.
"""

from __future__ import annotations

import math
from decimal import Context, Decimal
from fractions import Fraction

import numpy as np
import pytest
from helpers import SEEDED_ON_PURPOSE, all_codes, write_word_pack
from sampling_helpers import vector_pack

import edgedp
import edgedp.words.tem
import edgedp.words.vocabulary_draw
from edgedp.errors import PrivacyParameterError
from edgedp.privacy import realised_distributions as realised
from edgedp.privacy.noise import LOG_WEIGHT_ROUNDING
from edgedp.privacy.realised_distributions import (
    gumbel_max_slack,
    log_sum_exp_rounding,
    near_far_slack,
)
from edgedp.words.custext import CusText
from edgedp.words.exponential_selection import VectorDistances, euclidean_rounding
from edgedp.words.santext import SanText, SanTextPlus
from edgedp.words.tem import TEM
from edgedp.words.vocabulary_draw import euclidean_near_units, log_sum_exp_rows

pytestmark = SEEDED_ON_PURPOSE  # reproducible statistics

EPSILONS = (1e-6, 0.1, 2.0, 30.0, 1000.0)
_HIGH = Context(prec=60, Emax=10**6, Emin=-(10**6))


@pytest.fixture(scope="module")
def code_pack(tmp_path_factory):
    """All 16 codes of 4 bits (Hamming distances 0..4)."""
    words = [f"c{chr(97 + i)}" for i in range(16)]
    return edgedp.load_pack(
        write_word_pack(tmp_path_factory.mktemp("codes") / "p", words, all_codes(4))
    )


SET_POSITIONS = np.array([0.0, 1.0, 3.0, 10.0, 13.0, 14.5])[:, None]


@pytest.fixture(scope="module")
def set_pack(tmp_path_factory):
    """Two groups of three on a line: CusText with k = 3 has the sets {0, 1, 2} and {3, 4, 5}."""
    return vector_pack(tmp_path_factory.mktemp("sets"), SET_POSITIONS)


@pytest.fixture(scope="module")
def set_pack_without_table(tmp_path_factory):
    """The same words without a neighbour table: near sets from a float32 search."""
    return vector_pack(tmp_path_factory.mktemp("search"), SET_POSITIONS, neighbours=0)


def twins(words: int, dims: int) -> np.ndarray:
    """Random float32 vectors (norm ~0.3 sqrt(dims)); the last 20 words repeat words 0..9, the
    first 10 of them exactly and the others moved by 1e-6 in one coordinate."""
    rng = np.random.default_rng(7)
    vectors = (0.3 * rng.standard_normal((words, dims))).astype(np.float32)
    vectors[-20:-10] = vectors[:10]
    vectors[-10:] = vectors[:10]
    vectors[-10:, 0] += np.float32(1e-6)
    return vectors


@pytest.fixture(scope="module")
def twin_pack(tmp_path_factory):
    """A pack with identical and near-identical words (enough others for a full-rank covariance)."""
    return vector_pack(tmp_path_factory.mktemp("twins"), twins(80, 24))


def draw_slack(bound: float, loss: float) -> Fraction:
    """xi of one draw whose log weights are bounded by B: 4 eta and their rounding, exactly."""
    eta4 = Fraction(gumbel_max_slack(bound, loss)[0])
    return eta4 + 4 * Fraction(LOG_WEIGHT_ROUNDING) * Fraction(bound)


def exact_law(row: np.ndarray) -> list[Decimal]:
    """The exact softmax of a row of float log weights (-inf: probability 0), 60 digits."""
    top = max(Decimal(float(w)) for w in row if np.isfinite(w))
    weights = [_HIGH.exp(Decimal(float(w)) - top) if np.isfinite(w) else Decimal(0) for w in row]
    norm = sum(weights, Decimal(0))
    return [_HIGH.divide(weight, norm) for weight in weights]


# -- CusText: plain DP, the slack folded into epsilon ----------------------------------------------


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_custext_coefficient_leaves_room_for_the_draw(set_pack, epsilon):
    # Log weights lie in [-c, 0] with c <= epsilon / 2: the realised loss between two words of a set
    # is at most 2 c + xi, which must not exceed epsilon (the old coefficient was epsilon / 2).
    mechanism = CusText(set_pack, epsilon=epsilon, k=3, rng=1)
    xi = draw_slack(epsilon / 2, epsilon)
    assert 2 * Fraction(mechanism.coefficient) + xi <= Fraction(epsilon)
    assert mechanism.guarantee().delta == 0.0 and mechanism.calibration.folded


@pytest.mark.parametrize("epsilon", [1e-13, 5e-13, 1e-12])
def test_custext_and_hamming_tem_refuse_an_epsilon_the_slack_uses_up(set_pack, code_pack, epsilon):
    assert Fraction(epsilon) <= draw_slack(0.0, epsilon)  # xi is ~1.1e-12 at the least
    with pytest.raises(PrivacyParameterError, match="slack"):
        CusText(set_pack, epsilon=epsilon, k=3, rng=1)
    with pytest.raises(PrivacyParameterError, match="slack"):
        TEM(code_pack, epsilon=epsilon, geometry="hamming", rng=1)
    # Just above it they work (and are all but uniform).
    assert CusText(set_pack, epsilon=1e-10, k=3, rng=1).coefficient > 0


def test_custext_realised_loss_is_within_epsilon_exactly(set_pack):
    # The exact laws of the mechanism's own float rows, plus 4 eta for the draw, between every two
    # words of a set and for every output: at most epsilon (and the worst case 2 c + xi too).
    epsilon = 2.0
    mechanism = CusText(set_pack, epsilon=epsilon, k=3, rng=1)
    ids = np.arange(len(set_pack.vocabulary))
    candidates, weights = mechanism.log_weights(ids)
    laws = {}
    for word, row, members in zip(ids, weights, candidates, strict=True):
        law = exact_law(row)
        laws[int(word)] = {int(y): p for y, p in zip(members, law, strict=True) if y >= 0}
    set_of, _ = mechanism.output_sets()
    limit = Decimal(epsilon)
    for x in ids:
        for other in ids[set_of == set_of[x]]:
            span = max(float(-weights[x].min()), float(-weights[other].min()))
            eta4 = Decimal(gumbel_max_slack(span, epsilon)[0])
            for y, p in laws[int(x)].items():
                loss = _HIGH.ln(p) - _HIGH.ln(laws[int(other)][y]) + eta4
                assert loss <= limit, (x, other, y)


# -- TEM in Hamming space: integer distances, the slack folded with resolution 1 -------------------


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("gamma", [None, 0.0, 2.0, 9.0])
def test_hamming_tem_coefficient_leaves_room_for_the_draw(code_pack, epsilon, gamma):
    # Words are at d = 0 (same code: same row, same law) or d >= 1 bit; the log weights and their
    # differences are bounded by B = c min(gamma, bits) + ln|V|, and the near-far draw (at most
    # bits + 1 units) adds xi. For d >= 1: 2 c d + xi <= epsilon d.
    mechanism = TEM(code_pack, epsilon=epsilon, gamma=gamma, geometry="hamming", rng=1)
    half = Fraction(epsilon) / 2
    bound = float(half * Fraction(min(mechanism.gamma, 4.0))) + math.log(16)
    xi = Fraction(near_far_slack(bound, epsilon * 4, 5)[0])
    assert xi >= 4 * draw_slack(bound, epsilon * 4)  # at least four single Gumbel-max draws
    for d in range(1, 5):
        assert 2 * Fraction(mechanism.coefficient) * d + xi <= Fraction(epsilon) * d
    assert mechanism.guarantee().delta == 0.0


def near_far_law(mechanism, word: int) -> tuple[list[Decimal], float]:
    """Pr[mechanism(word) = y] for every y of the domain (0 outside), exactly, for the near-far draw
    with the mechanism's own floats: its units' log weights, its float log-sum-exp of them, its
    envelope, its gaps t~ = fl(far score) - fl(offset) and the exponential sampler's exact tail
    Pr[X > t~] over bit patterns (edgedp.privacy.realised_distributions.exponential_tail); the two Gumbel-max
    stages by their exact laws (the realised ones are within e^(+-2 eta) of them). Also returns the
    largest |log weight difference| of its rows (the B of eta)."""
    size = len(mechanism.pack.vocabulary)
    near = mechanism.near_sets(np.array([word]))
    stage_one = [float(near.near_totals()[0]), float(near.far_log_weights[0])]
    near_share, far_share = exact_law(np.array(stage_one))
    units = near.unit_log_weights
    law = [Decimal(0)] * size
    for unit, share in enumerate(exact_law(units)):
        members = near.members[
            near.unit_starts[unit] : near.unit_starts[unit] + near.unit_sizes[unit]
        ]
        for y in members:
            law[int(y)] = near_share * share / len(members)
    inside = set(near.members.tolist())
    far = [y for y in range(near.lo, size) if y not in inside]
    if far:
        scores = mechanism.far_scores(np.full(len(far), word), np.array(far))
        gaps = scores - near.far_offsets[0]
        assert (gaps >= 0).all()  # the envelope is valid in floats too
        for y, gap in zip(far, gaps, strict=True):
            tail = _HIGH.exp(Decimal(realised.exponential_tail(float(gap))))
            law[y] = far_share / len(far) * tail
    total = sum(law, Decimal(0))
    finite = [w for w in [*stage_one, *units] if np.isfinite(w)]
    return [p / total for p in law], max(finite) - min(finite)


@pytest.mark.parametrize("radius", [None, 0, 1])
@pytest.mark.parametrize("gamma", [1.0, 2.0, 9.0])
def test_hamming_tem_realised_loss_is_within_epsilon_d_exactly(
    code_pack, monkeypatch, gamma, radius
):
    # The realised law of the mechanism's own floats, between every two words and every output,
    # plus the Gumbel-max stages' 4 (2 eta + 2 eta): at most epsilon * d, through the rejection
    # path too (a radius below gamma).
    if radius is not None:
        monkeypatch.setattr(edgedp.words.tem, "hamming_radius", lambda *_: radius)
    epsilon = 3.0
    mechanism = TEM(code_pack, epsilon=epsilon, gamma=gamma, geometry="hamming", rng=1)
    laws = [near_far_law(mechanism, word) for word in range(16)]
    for x in range(16):
        for other in range(16):
            d = bin(x ^ other).count("1")
            if d == 0:
                continue
            span = max(laws[x][1], laws[other][1])
            eta16 = 4 * Decimal(gumbel_max_slack(span, epsilon * 4)[0])
            for y in range(16):
                loss = _HIGH.ln(laws[x][0][y]) - _HIGH.ln(laws[other][0][y]) + eta16
                assert loss <= Decimal(epsilon) * d, (x, other, y)


def test_log_sum_exp_is_within_its_stated_rounding():
    # The near total is a float log-sum-exp: against 60-digit arithmetic on the same float
    # weights, it is within edgedp.privacy.realised_distributions.log_sum_exp_rounding (rows of 1 to 300
    # units,
    # spreads up to 700).
    rng = np.random.default_rng(3)
    for units in (1, 2, 7, 33, 300):
        for spread in (1e-9, 1.0, 50.0, 700.0):
            values = -spread * rng.random(units) + 20 * rng.standard_normal()
            computed = float(log_sum_exp_rows(np.array([0, units]), values)[0])
            exact = _HIGH.ln(sum((_HIGH.exp(Decimal(float(v))) for v in values), Decimal(0)))
            bound = log_sum_exp_rounding(float(np.abs(values).max() + spread), units)
            assert abs(Decimal(computed) - exact) <= Decimal(bound), (units, spread)


# -- Euclidean metric DP: the slack is a delta, distances within their stated rounding ------------


def test_distances_are_within_their_stated_rounding_exactly():
    # Exact squared distances in Fractions: every computed distance d^ (either formula) satisfies
    # (d^ - err)^2 <= d^2 <= (d^ + err)^2 and d^ <= D, and identical vectors are at distance
    # exactly 0 (|a|^2 + |b|^2 - 2 a.b alone left them ~1e-7 apart in 300 dimensions: a loss
    # that no epsilon * 0 covers).
    vectors = twins(40, 300)
    table = VectorDistances(vectors)
    diameter, err = euclidean_rounding(vectors)
    assert err < 1e-10 * diameter
    ids = np.array([0, 1, 5, 20, 30, 39])
    paired = table.pairs(np.repeat(ids, 40), np.tile(np.arange(40), len(ids))).reshape(-1, 40)
    rows = [[Fraction(float(v)) for v in vector] for vector in vectors.astype(np.float64)]
    bound = Fraction(err)
    for i, word in enumerate(ids):
        for other in range(40):
            exact = sum(((a - b) ** 2 for a, b in zip(rows[word], rows[other], strict=True)))
            computed = Fraction(float(paired[i, other]))
            assert computed <= diameter
            low = max(computed - bound, Fraction(0))
            assert low**2 <= exact <= (computed + bound) ** 2, (word, other)
    assert paired[0, 20] == paired[3, 0] == paired[0, 0] == 0.0


def euclidean_slack(pack: edgedp.WordPack, epsilon: float, gamma: float) -> Fraction:
    """At least the xi of SanText / Euclidean TEM: the near-far draw (log weights and their
    differences up to epsilon / 2 * min(gamma, D) + ln|V|) and 4 c err for the distances."""
    diameter, err = euclidean_rounding(pack.vectors)
    half = Fraction(epsilon) / 2
    bound = float(half * Fraction(min(gamma, diameter))) + math.log(len(pack.vocabulary))
    draw = near_far_slack(bound, epsilon * max(1.0, diameter), euclidean_near_units(pack))[0]
    return Fraction(draw) + 4 * half * Fraction(err)


@pytest.mark.parametrize("epsilon", [1e-9, 0.5, 3.0, 100.0])
def test_euclidean_samplers_state_the_slack_as_delta(twin_pack, epsilon):
    # Distinct words can be arbitrarily close (here 1e-6 apart, or identical), so an additive xi is
    # not below epsilon * d for every pair: the guarantee must carry e^xi - 1 as its delta.
    for mechanism in (  # protect=(): the test pack's made-up words are no English (rare words)
        SanText(twin_pack, epsilon=epsilon, rng=1, protect=()),
        SanTextPlus(twin_pack, epsilon=epsilon, rng=1, protect=()),
        TEM(twin_pack, epsilon=epsilon, rng=1, protect=()),
        TEM(twin_pack, epsilon=epsilon, gamma=0.5, rng=1, protect=()),
    ):
        xi = euclidean_slack(twin_pack, epsilon, getattr(mechanism, "gamma", math.inf))
        guarantee = mechanism.guarantee()
        assert mechanism.coefficient == epsilon / 2  # nothing folded: no resolution to fold with
        assert Fraction(guarantee.delta) >= xi + xi**2 / 2  # >= e^xi - 1
        assert guarantee.delta < 1e-9 * max(1.0, epsilon)
        assert mechanism.privacy_cost(["waa wab"]).delta == 2 * guarantee.delta


@pytest.mark.parametrize("near_words", [2, 32])
@pytest.mark.parametrize("kind", ["santext", "santext-plus", "tem"])
@pytest.mark.parametrize("table", [True, False])
def test_euclidean_realised_loss_is_within_epsilon_d_plus_the_stated_slack(
    set_pack, set_pack_without_table, monkeypatch, near_words, kind, table
):
    # The realised law of the mechanism's own floats (near units, log-sum-exp, certified far bound,
    # exact exponential tails), between every two words (SanText+: two sensitive words), plus the
    # Gumbel-max stages' 16 eta: at most epsilon * d + xi, the slack its guarantee states as delta.
    monkeypatch.setattr(edgedp.words.vocabulary_draw, "EUCLIDEAN_NEAR_WORDS", near_words)
    set_pack = set_pack if table else set_pack_without_table
    epsilon = 2.0
    mechanism = {
        "santext": lambda: SanText(set_pack, epsilon=epsilon, rng=1),
        "santext-plus": lambda: SanTextPlus(
            set_pack, epsilon=epsilon, sensitive_fraction=0.5, rng=1
        ),
        "tem": lambda: TEM(set_pack, epsilon=epsilon, gamma=5.0, rng=1),
    }[kind]()
    size = len(set_pack.vocabulary)
    words = range(size // 2, size) if kind == "santext-plus" else range(size)
    positions = np.asarray(set_pack.vectors, dtype=np.float64)[:, 0]
    xi = mechanism.calibration.slack
    laws = {word: near_far_law(mechanism, word) for word in words}
    for x in words:
        for other in words:
            span = max(laws[x][1], laws[other][1])
            eta16 = 4 * Decimal(gumbel_max_slack(span, epsilon * 20)[0])
            limit = Decimal(epsilon * abs(positions[x] - positions[other]) + xi)
            for y, p in enumerate(laws[x][0]):
                if p == 0:
                    assert laws[other][0][y] == 0
                    continue
                loss = _HIGH.ln(p) - _HIGH.ln(laws[other][0][y]) + eta16
                assert loss <= limit * (1 + Decimal(2) ** -40), (x, other, y)
