"""explain and tune: their estimates against exact values, their generic reach, and the CLI."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest

import edgedp
from edgedp.errors import InputError
from edgedp.evaluation.explain import distances_from, explain, measure, rebuild
from edgedp.evaluation.keep_rate import keep_warning, public_word_set, zipf_prior
from edgedp.evaluation.tune import tune
from edgedp.text.identifiers import PROTECT_KINDS
from edgedp.words.mechanism import WordMechanism


class KaryRR(WordMechanism):
    """k-ary randomized response over the vocabulary: a mechanism these modules never saw.

    Keeps the word with probability p = e^eps / (e^eps + V - 1), else a uniform other word: every
    statistic has a closed form.
    """

    name = "k-rr"

    def keep_probability(self) -> float:
        size = len(self.pack.vocabulary)
        return 1.0 / (1.0 + (size - 1) * math.exp(-self.epsilon))

    def _release(self, word_ids: np.ndarray) -> np.ndarray:
        size = len(self.pack.vocabulary)
        keep = self.rng.uniform(len(word_ids)) < self.keep_probability()
        other = self.rng.integers(size - 1, len(word_ids))
        other = other + (other >= word_ids)
        return np.where(keep, word_ids, other).astype(np.int64)


class Copy(KaryRR):
    """The broken variant: releases its input."""

    def _release(self, word_ids: np.ndarray) -> np.ndarray:
        return word_ids.copy()


def exact_error(p: float, size: int, words: int) -> float:
    """E_M of k-ary RR on ``words`` inputs (uniform prior) over ``size`` outputs."""
    q = (1 - p) / (size - 1)
    inside = (p**2 + (words - 1) * q**2) / (p + (words - 1) * q)  # per output in the word set
    return 1 - inside - (size - words) * q / words  # outputs outside it: pi * q each


def test_zipf_weights_are_exact_on_the_whole_vocabulary(tiny_pack):
    ids = public_word_set(tiny_pack, 64)
    assert len(ids) == 64
    expected = 1 / (ids + 1.0)
    np.testing.assert_allclose(zipf_prior(tiny_pack, ids), expected / expected.sum())
    some = public_word_set(tiny_pack, 10)
    assert zipf_prior(tiny_pack, some).sum() == pytest.approx(1.0)
    assert zipf_prior(tiny_pack, some)[0] > zipf_prior(tiny_pack, some)[-1]


@pytest.mark.parametrize("epsilon", [2.0, 4.0, 6.0])
def test_kept_and_inference_error_match_closed_forms(tiny_pack, seeded, epsilon):
    mechanism = KaryRR(tiny_pack, epsilon=epsilon, rng=seeded(int(epsilon)))
    words = public_word_set(tiny_pack, 64)
    stats = measure(mechanism, words, 200, rng=seeded(1))
    p = mechanism.keep_probability()
    for key in ("kept", "kept_uniform"):  # within the 99.9 % interval (95 % ones widened)
        half = (stats[key].high - stats[key].low) / 2 * 3.29 / 1.96
        assert abs(stats[key].value - p) <= half, (key, stats[key], p)
    error = exact_error(p, 64, 64)
    assert stats["error_uniform"].low - 0.01 <= error <= stats["error_uniform"].high + 0.01


def test_a_copying_mechanism_is_exposed(tiny_pack):
    stats = measure(Copy(tiny_pack, epsilon=1.0), public_word_set(tiny_pack, 64), 20)
    assert stats["kept"].value == pytest.approx(1.0)
    assert stats["error_uniform"].value == 0.0
    assert stats["distinct"].value == 1.0


def test_tune_recovers_the_closed_form_epsilon(tiny_pack):
    # k-ary RR keeps half of the words at epsilon = ln(V - 1): tune must find it from samples
    result = tune(KaryRR(tiny_pack, epsilon=1.0), keep=0.5, samples=200)
    assert result.estimate is not None
    assert result.estimate.low <= 0.5 <= result.estimate.high
    assert result.epsilon == pytest.approx(math.log(63), rel=0.1)
    high = tune(KaryRR(tiny_pack, epsilon=1.0), keep=0.9, samples=200)
    assert high.epsilon > result.epsilon  # monotone in the target


def test_tune_inference_error_and_loss_bound(default_pack):
    brr = edgedp.BRR(default_pack, epsilon=0.5)
    bound = tune(brr, loss_bound=40.0)
    average = default_pack.calibration["hamming"]["average"]
    assert bound.epsilon * average == pytest.approx(40.0)
    assert tune(brr, loss_bound=40.0, aggregate="max").epsilon < bound.epsilon
    result = tune(brr, inference_error=0.8, words=60, samples=10)
    assert result.estimate is not None and result.estimate.low <= 0.8 <= result.estimate.high
    with pytest.raises(InputError):
        tune(brr, keep=0.5, loss_bound=1.0)
    with pytest.raises(edgedp.PrivacyParameterError):
        tune(brr, keep=1.5)


def test_tune_chooses_vickrey_t_by_algorithm_2(default_pack):
    vickrey = edgedp.Vickrey(default_pack, epsilon=0.5, t=0.5, geometry="hamming")
    result = tune(vickrey, keep=0.5, words=40, samples=10, choose_t=True)
    assert result.t is not None and 0.0 <= result.t <= 1.0
    assert result.parameters["t"] == result.t
    with pytest.raises(InputError):
        tune(edgedp.BRR(default_pack, epsilon=0.5), keep=0.5, choose_t=True)


def test_explain_bounds_each_word_of_a_text(default_pack):
    # an out-of-vocabulary token no guard rule protects: every kind on but rare words
    kinds = [kind for kind in PROTECT_KINDS if kind != "rare-words"]
    brr = edgedp.BRR(default_pack, epsilon=0.5, protect=kinds)
    text = "the cat zyxqv mailed jane@example.com"
    result = explain(brr, text=text, words=30, samples=5)
    assert [slot.released_by for slot in result.text] == [
        "mechanism",
        "mechanism",
        "oov",
        "mechanism",
        "protected",
    ]
    cat = default_pack.vocabulary.ids(["cat"])[0]
    distances = distances_from(default_pack, "hamming", [cat])[0]
    codes = np.unpackbits(np.asarray(default_pack.codes[[cat, 0, 5000]]), axis=1).astype(int)
    assert distances[0] == np.abs(codes[0] - codes[1]).sum()
    assert distances[5000] == np.abs(codes[0] - codes[2]).sum()
    slot = result.text[1]
    assert slot.farthest == pytest.approx(0.5 * distances.max())
    assert slot.nearest == pytest.approx(0.5 * np.delete(distances, cat).min())
    assert result.text_totals["farthest"] == pytest.approx(sum(s.farthest for s in result.text))
    average = default_pack.calibration["hamming"]["average"]
    assert result.loss_bound["average"] == pytest.approx(0.5 * average)
    assert "per bit" in result.guarantee or "Hamming" in result.guarantee
    assert len(result.rewrites) == 3
    document = json.loads(json.dumps(result.as_dict(), default=str))
    assert document["kept"]["samples"] == 5 and document["kept"]["words"] == 30


@pytest.mark.parametrize(
    "build",
    [
        lambda p: edgedp.Madlib(p, epsilon=20.0),
        lambda p: edgedp.Mahalanobis(p, epsilon=20.0, lam=0.3),
        lambda p: edgedp.Vickrey(p, epsilon=20.0, t=0.3),
        lambda p: edgedp.Vickrey(p, epsilon=2.0, t=0.3, geometry="hamming"),
        lambda p: edgedp.GeneralizedVickrey(p, epsilon=20.0, weights=[0, 1]),
    ],
)
def test_explain_and_tune_on_a_float_pack(euclid_pack, build):
    mechanism = build(euclid_pack)
    result = explain(mechanism, text="waa0 wab0", words=50, samples=10)
    assert result.metric in ("euclidean", "mahalanobis", "hamming")
    assert 0.0 <= result.kept.value <= 1.0
    assert result.text[0].farthest > result.text[0].nearest >= 0  # equal codes: 0
    tuned = tune(mechanism, keep=0.5, words=50, samples=20)
    assert tuned.estimate is not None
    assert abs(tuned.estimate.value - 0.5) < 0.15


def test_rebuild_keeps_the_other_parameters(default_pack):
    vickrey = edgedp.Vickrey(default_pack, epsilon=0.5, t=0.3, geometry="hamming", protect=())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        other = rebuild(vickrey, 1, epsilon=0.7)
    assert (other.epsilon, other.t, other.geometry, other.protect) == (0.7, 0.3, "hamming", set())


def test_keep_warning_at_the_extremes(default_pack):
    assert "unrelated" in keep_warning(edgedp.BRR(default_pack, epsilon=0.2))
    assert "copy" in keep_warning(edgedp.BRR(default_pack, epsilon=1.5))
    assert keep_warning(edgedp.BRR(default_pack, epsilon=0.6)) is None


def run(*args: str, stdin: str = ""):
    return subprocess.run(
        [sys.executable, "-m", "edgedp.cli", *args],
        input=stdin.encode(),
        capture_output=True,
        timeout=300,
    )


def test_cli_explain_and_tune(euclid_pack):
    done = run("explain", "--epsilon", "0.6", "--words", "20", "--samples", "4", "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["metric"] == "hamming" and len(document["rewrites"]) == 3
    assert document["adversary"]["samples"] == 1000 and len(document["headline"]) == 3
    assert (
        document["statement"][0]
        == "Statement: BRR, epsilon 0.6 per bit, pack 'words-small', decode=context."
    )
    done = run("explain", "--epsilon", "0.6", "--words", "20", "--samples", "4", "--text", "hi")
    assert done.returncode == 0 and b"adversary who sees one release" in done.stdout
    done = run("tune", "--loss-bound", "40", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["epsilon"] == pytest.approx(
        40 / edgedp.load_pack().calibration["hamming"]["average"]
    )
    done = run(
        "tune",
        "--mechanism",
        "madlib",
        "--pack",
        str(euclid_pack.path),
        "--keep",
        "0.5",
        "--words",
        "40",
    )
    assert done.returncode == 0, done.stderr
    assert b"epsilon =" in done.stdout
    done = run("tune", "--keep", "0.5", "--choose-t")
    assert done.returncode == 1 and b"vickrey" in done.stderr


def test_cli_privatize_warns_and_protects():
    done = run("privatize", "--epsilon", "0.2", stdin="hello world\n")
    assert done.returncode == 0 and b"unrelated words" in done.stderr
    done = run("privatize", "--epsilon", "0.6", stdin="hello world\n")
    assert done.returncode == 0 and b"warning" not in done.stderr
    text = "mail jane.doe@example.com now\n"
    done = run("privatize", "--epsilon", "50", "--oov", "mask", stdin=text)
    assert done.stdout == b"mail [OOV] now\n"
    done = run("privatize", "--epsilon", "50", "--oov", "mask", "--protect", "none", stdin=text)
    assert done.stdout == text.encode()  # the broken default: the identifier is copied
    done = run("privatize", "--epsilon", "1", "--protect", "phones", stdin=text)
    assert done.returncode == 1 and b"--protect" in done.stderr


def test_explain_takes_any_word_mechanism(tiny_pack):
    """The explanation evaluates a mechanism from outside (edgedp.explain): no method, no import circle."""
    result = edgedp.explain(KaryRR(tiny_pack, epsilon=3.0), words=20, samples=5)
    assert result.mechanism == "KaryRR" and result.kept.words == 20


def test_explain_leads_with_the_three_plain_figures(default_pack, seeded):
    brr = edgedp.BRR(default_pack, epsilon=0.6)
    result = explain(brr, words=40, samples=5, adversary_samples=300, rng=seeded(4))
    first = result.render().splitlines()[:3]
    assert first == result.headline()
    kept, attack = result.kept, result.adversary
    assert attack is not None
    assert first[0].startswith(
        f"epsilon 0.6: words kept unchanged: {100 * kept.value:.0f} % "
        f"[{100 * kept.low:.0f} %, {100 * kept.high:.0f} %] of words come back as they were "
        "(each released alone"
    )
    assert "decode=context" in first[0] or "decode=nearest" in first[0]
    assert first[1].startswith(
        "epsilon 0.6: an adversary who sees one release names the input word at most "
        f"{100 * attack.success:.0f} % [{100 * attack.low:.0f} %, {100 * attack.high:.0f} %]"
    )
    assert f"at least {100 * kept.value:.0f} % by guessing the word it sees" in first[1]
    assert "whole vocabulary" in first[1] and "without looking" in first[1]
    # the point adversary bounds the word-seeing one from above: it names at least the kept words
    assert attack.high >= kept.low
    protection = result.protection
    nearest = protection["nearest"]
    assert first[2].startswith(
        "epsilon 0.6: formal bound: local: odds between two words whose codes are d bits apart "
        "move by at most e^(0.6 d)"
    )
    assert f"its nearest: {nearest:.0f} bits, e^{0.6 * nearest:.3g}" in first[2]
    assert "no meaningful limit" not in result.render()
    assert "Bayesian adversary" not in result.render()  # the word-set figures are not printed


def test_explain_several_epsilons_in_one_call(default_pack, seeded):
    from edgedp.evaluation.explain import default_epsilons, explain_epsilons

    mechanism = edgedp.BRR(default_pack, epsilon=1.0, decode="nearest")
    sweep = explain_epsilons(
        mechanism, [0.4, 0.8], words=20, samples=4, adversary_samples=200, rng=seeded(5)
    )
    lines = sweep.render().splitlines()
    assert [line.split(":")[0] for line in lines[:6]] == ["epsilon 0.4"] * 3 + ["epsilon 0.8"] * 3
    low, high = (item.adversary.success for item in sweep.explanations)
    assert low < high  # a larger epsilon tells the adversary more
    assert default_epsilons(mechanism) == [0.4, 0.5, 0.6, 0.7, 0.8]
    assert len(sweep.as_dict()["explanations"]) == 2


def test_cli_explain_compares_epsilons():
    done = run(
        "explain", "--epsilon", "0.5,0.7", "--words", "20", "--samples", "4",
        "--adversary-samples", "100", "--seed", "1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()
    assert lines[0].startswith("epsilon 0.5: words kept unchanged")
    assert lines[4].startswith("epsilon 0.7: an adversary who sees one release")
    done = run("explain", "--epsilon", "0.5,", "--words", "20")
    assert done.returncode != 0 and b"--epsilon" in done.stderr


def test_words_kept_is_one_figure_everywhere(default_pack, seeded):
    """explain's words kept, the warning's estimate and words_kept are one estimate, reproducible."""
    from edgedp.evaluation.keep_rate import WARNING_STAGES, quick_keep, words_kept

    brr = edgedp.BRR(default_pack, epsilon=0.55, decode="nearest")
    first = explain(brr, words=20, samples=3, adversary_samples=30, rng=seeded(1))
    second = explain(brr, words=20, samples=3, adversary_samples=30, rng=seeded(2))
    figure = words_kept(brr, words=20, samples=3)
    assert first.kept == second.kept == figure  # not the explanation's own random stream
    assert first.adversary == second.adversary  # nor is the adversary's figure
    assert quick_keep(brr) in {words_kept(brr, words=w, samples=n) for w, n in WARNING_STAGES}
    # the figure counts each public word's releases: recomputed here from the same releases
    from edgedp.evaluation.keep_rate import public_releases

    ids = public_word_set(default_pack, 20)
    released = public_releases(brr, ids, 3)
    expected = zipf_prior(default_pack, ids) @ (released == ids[:, None]).mean(axis=1)
    assert figure.value == pytest.approx(expected)
    # a mechanism that keeps more words gets a larger figure
    assert (
        words_kept(
            edgedp.BRR(default_pack, epsilon=0.8, decode="nearest"), words=20, samples=3
        ).value
        > figure.value
    )


def test_the_local_guarantee_in_real_word_pairs(default_pack):
    from edgedp.evaluation.explain import NEAREST_WORDS, local_guarantee

    brr = edgedp.BRR(default_pack, epsilon=0.4, decode="nearest")
    found = local_guarantee(brr)
    example = found["example"]
    assert example["word"] == "doctor"
    doctor = default_pack.vocabulary.ids(["doctor"])[0]
    codes = np.unpackbits(np.asarray(default_pack.codes), axis=1)
    bits = (codes != codes[doctor]).sum(axis=1).astype(float)
    bits[doctor] = np.inf
    closest = np.sort(bits)[:3]
    assert [n["distance"] for n in example["neighbours"]] == closest.tolist()
    assert all(n["bound"] == pytest.approx(0.4 * n["distance"]) for n in example["neighbours"])
    # radii: e^1 within floor(1 / 0.4) = 2 bits, e^2 within 5 bits; counted by brute force
    assert [r["distance"] for r in found["radii"]] == [2.0, 5.0]
    ids = public_word_set(default_pack, NEAREST_WORDS)
    within, nearest, tenth = [], [], []
    for i in ids:
        row = (codes != codes[i]).sum(axis=1).astype(float)
        row[i] = np.inf
        within.append(int((row <= 5).sum()))
        ordered = np.sort(row)
        nearest.append(ordered[0])
        tenth.append(ordered[9])
    assert found["radii"][1]["words"] == np.median(within)
    assert found["nearest"] == np.median(nearest)
    assert found["hiding_among"] == {"k": 10, "distance": np.median(tenth)}


def test_explain_ends_with_a_statement_for_a_dpia(default_pack, seeded):
    brr = edgedp.BRR(default_pack, epsilon=0.5, decode="nearest")
    result = explain(brr, words=30, samples=4, adversary_samples=200, rng=seeded(3))
    statement = result.statement()
    assert result.render().splitlines()[-len(statement) :] == statement
    text = " ".join(statement)
    attack, kept = result.adversary, result.kept
    assert f"names that word {100 * attack.success:.0f} % [{100 * attack.low:.0f} %" in text
    assert f"against {100 * attack.floor:.0f} % by guessing the commonest word" in text
    assert f"reading the released word names it {100 * kept.value:.0f} %" in text
    neighbour = result.protection["example"]["neighbours"][0]
    assert (
        f"'doctor' and its nearest words: {neighbour['word']!r} {neighbour['distance']:.0f} bits"
        in text
    )
    assert "does not hide a word among other words" in text  # no word within 4 bits here
    assert "Not hidden:" in text and "topic" in text
    document = json.loads(json.dumps(result.as_dict(), default=str))
    assert document["statement"] == statement


def test_the_statement_of_other_metrics(euclid_pack, tiny_pack):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.UtilityWarning)  # epsilon 30 keeps most words
        madlib = explain(
            edgedp.Madlib(euclid_pack, epsilon=30.0), words=20, samples=4, adversary_samples=50
        )
    text = " ".join(madlib.statement())
    assert "vectors are d apart (euclidean)" in text and "e^(30 d)" in text
    radius = madlib.protection["radii"][-1]
    assert radius["distance"] == pytest.approx(2 / 30)
    generic = explain(KaryRR(tiny_pack, epsilon=3.0), words=20, samples=5)
    text = " ".join(generic.statement())
    assert generic.protection == {} and "for any two words, any release is at most e^3" in text
    assert generic.adversary is None and "KaryRR samples the released word" in text


@pytest.mark.slow
@pytest.mark.parametrize("epsilon", [0.55, 0.7])
def test_the_privacy_officer_page_quotes_explain(default_pack, epsilon):
    """The statements of docs/guide/privacy-officer.md are explain's, as printed today (its
    figures come from fixed public streams): a change of pack, decoder or wording shows here."""
    from helpers import REPO_ROOT

    page = (REPO_ROOT / "docs" / "guide" / "privacy-officer.md").read_text(encoding="utf-8")
    quoted = [line[2:] for line in page.splitlines() if line.startswith("> ")]
    statement = explain(edgedp.BRR(default_pack, epsilon=epsilon)).statement()
    assert statement[0] in quoted, "the page has no statement for this epsilon"
    start = quoted.index(statement[0])
    assert quoted[start : start + len(statement)] == statement, (
        "docs/guide/privacy-officer.md quotes an outdated statement: paste the paragraphs "
        f"`edgedp explain --mechanism brr --epsilon {epsilon}` ends with"
    )
