"""Empirical matching (edgedp.evaluation.matching) against exact channels on a tiny vocabulary."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
from edgedp_export.cli import main as export_main
from helpers import brr_exact_distribution, write_vector_file

import edgedp
from edgedp.errors import InputError
from edgedp.evaluation.calibration import equivalent_epsilon
from edgedp.evaluation.keep_rate import public_word_set, zipf_prior
from edgedp.evaluation.matching import matched_epsilon, source_statistic
from edgedp.privacy.noise import rr_flip_threshold

WORDS = [f"w{chr(97 + i)}" for i in range(12)]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """12 words in the plane with 8-bit random-hyperplane codes and float32 vectors."""
    directory = tmp_path_factory.mktemp("matching")
    vectors = np.random.default_rng(3).standard_normal((len(WORDS), 2)).astype(np.float32)
    source = write_vector_file(directory / "v.txt", WORDS, vectors)
    arguments = ["words", "--source-file", str(source), "--words", str(len(WORDS)), "--bits", "8"]
    assert export_main([*arguments, "--vectors", "float32", "--out", str(directory / "p")]) == 0
    return edgedp.load_pack(directory / "p")


def exact_brr_kept(pack: edgedp.WordPack, epsilon: float) -> float:
    """The Zipf-weighted share kept of BRR, exactly, over all 2^8 noisy codes (brute force)."""
    codes = [int(code) for code in np.asarray(pack.codes)[:, 0]]
    channel = brr_exact_distribution(codes, 8, rr_flip_threshold(epsilon) / 2**64)
    ids = public_word_set(pack, len(WORDS))
    return float((zipf_prior(pack, ids) * channel[ids, ids]).sum())


def madlib_kept(pack: edgedp.WordPack, epsilon: float, samples: int) -> float:
    """Madlib's Zipf-weighted share kept, by a large Monte Carlo."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        madlib = edgedp.Madlib(pack, epsilon=epsilon, rng=7)
    ids = public_word_set(pack, len(WORDS))
    outputs = madlib.privatize_ids(np.repeat(ids, samples)).reshape(len(ids), samples)
    return float((zipf_prior(pack, ids) * (outputs == ids[:, None]).mean(axis=1)).sum())


def test_brr_matched_to_madlib_keeps_what_madlib_keeps_exactly(tiny):
    madlib = edgedp.Madlib(tiny, epsilon=2.0)
    reference = madlib_kept(tiny, 2.0, 20_000)
    assert 0.2 < reference < 0.8
    bound = equivalent_epsilon(tiny, 2.0, source="madlib", target="brr")
    match = matched_epsilon(
        madlib, edgedp.BRR(tiny, epsilon=bound), statistic="kept", words=12, samples=400
    )
    # the matched epsilon's exact share kept is Madlib's (Monte Carlo tolerance of the search)
    assert exact_brr_kept(tiny, match.epsilon) == pytest.approx(reference, abs=0.05)
    assert match.source_estimate.low <= reference <= match.source_estimate.high
    # the bound calibration (the broken variant here) misses it: the two are not the same point
    assert abs(exact_brr_kept(tiny, bound) - reference) > 0.1


def test_matching_a_mechanism_to_itself_returns_its_epsilon(tiny):
    brr = edgedp.BRR(tiny, epsilon=1.0)
    match = matched_epsilon(brr, edgedp.BRR(tiny, epsilon=0.3), words=12, samples=400)
    assert exact_brr_kept(tiny, match.epsilon) == pytest.approx(exact_brr_kept(tiny, 1.0), abs=0.05)


def test_inference_error_matching(tiny):
    madlib = edgedp.Madlib(tiny, epsilon=2.0)
    match = matched_epsilon(
        madlib, edgedp.BRR(tiny, epsilon=0.5), statistic="inference-error", words=12, samples=400
    )
    reached = source_statistic(
        edgedp.BRR(tiny, epsilon=match.epsilon), "inference-error", words=12, samples=400
    )
    assert reached.low <= match.source_estimate.value <= reached.high


def test_matching_errors(tiny, default_pack):
    with pytest.raises(InputError, match="same pack"):
        matched_epsilon(edgedp.BRR(tiny, epsilon=1.0), edgedp.BRR(default_pack, epsilon=1.0))
    high = edgedp.BRR(default_pack, epsilon=50.0)  # no two codes of the pack are equal
    with pytest.raises(InputError, match="nothing to match"):
        matched_epsilon(high, edgedp.BRR(default_pack, epsilon=1.0), words=20, samples=2)
    with pytest.raises(ValueError, match="statistic"):
        matched_epsilon(edgedp.BRR(tiny, epsilon=1.0), edgedp.BRR(tiny, epsilon=1.0), statistic="x")


def _calibrate(*arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "edgedp.cli", "calibrate", *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def test_calibrate_match_cli(tiny):
    pack = str(tiny.path)
    result = _calibrate(
        "--from", "madlib", "--epsilon", "2", "--to", "brr", "--match", "kept", "--pack", pack,
        "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["statistic"] == "kept" and report["target"] == "BRR"
    assert report["bound_epsilon"] == pytest.approx(
        equivalent_epsilon(tiny, 2.0, source="madlib", target="brr")
    )
    bad = _calibrate("--from", "vickrey", "--epsilon", "2", "--to", "brr", "--match", "kept")
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1
