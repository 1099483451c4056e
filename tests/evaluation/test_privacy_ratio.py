"""The privacy ratio on a tiny vocabulary computed by hand, and the calibrate command."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys

import numpy as np
import pytest
from edgedp_export.cli import main as export_main
from helpers import write_vector_file

import edgedp
from edgedp.errors import AssetError, InputError
from edgedp.evaluation.calibration import equivalent_epsilon, metric_statistics, privacy_ratio
from edgedp.words.euclidean import regularized_covariance, symmetric_square_root


@pytest.fixture(scope="module")
def triangle(tmp_path_factory):
    """Three words at the corners of a 3-4-5 right triangle, with 8-bit codes."""
    directory = tmp_path_factory.mktemp("triangle")
    vectors = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0]], dtype=np.float32)
    source = write_vector_file(directory / "t.txt", ["aa", "bb", "cc"], vectors)
    assert (
        export_main(
            [
                "words",
                "--source-file",
                str(source),
                "--words",
                "3",
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


def hamming_by_hand(pack):
    bits = np.unpackbits(np.asarray(pack.codes), axis=1).astype(int)
    pairs = [(0, 1), (0, 2), (1, 2)]
    return [int(np.abs(bits[i] - bits[j]).sum()) for i, j in pairs]


def test_statistics_of_a_3_4_5_triangle(triangle):
    euclidean = metric_statistics(triangle, "euclidean")
    assert euclidean["average"] == pytest.approx(4.0) and euclidean["maximum"] == pytest.approx(5.0)
    distances = hamming_by_hand(triangle)
    hamming = metric_statistics(triangle, "hamming")
    assert hamming["average"] == pytest.approx(sum(distances) / 3)
    assert hamming["maximum"] == max(distances)


@pytest.mark.parametrize("aggregate", ["avg", "max"])
def test_equivalent_epsilon_equalizes_the_bounds(triangle, aggregate):
    distances = hamming_by_hand(triangle)
    p_hamming = sum(distances) / 3 if aggregate == "avg" else max(distances)
    p_euclid = 4.0 if aggregate == "avg" else 5.0
    assert privacy_ratio(triangle, "madlib", "brr", aggregate=aggregate) == pytest.approx(
        p_euclid / p_hamming
    )
    epsilon_brr = equivalent_epsilon(
        triangle, 10.0, source="madlib", target="brr", aggregate=aggregate
    )
    assert epsilon_brr * p_hamming == pytest.approx(10.0 * p_euclid)
    back = equivalent_epsilon(
        triangle, epsilon_brr, source="brr", target="madlib", aggregate=aggregate
    )
    assert back == pytest.approx(10.0)


def test_mahalanobis_statistics_match_brute_force(triangle):
    matrix = regularized_covariance(np.asarray(triangle.covariance), 0.5)
    whitening = np.linalg.inv(symmetric_square_root(matrix))
    points = np.asarray(triangle.vectors, dtype=np.float64)
    pairs = [(0, 1), (0, 2), (1, 2)]
    exact = [np.linalg.norm((points[i] - points[j]) @ whitening) for i, j in pairs]
    stats = metric_statistics(triangle, "mahalanobis", lam=0.5)
    assert stats["method"] == "exact"
    assert stats["maximum"] == pytest.approx(max(exact))
    assert stats["average"] == pytest.approx(np.mean(exact))


def test_default_pack_ratio_and_errors(default_pack):
    ratio = privacy_ratio(default_pack, "madlib", "brr")
    calibration = default_pack.calibration
    assert ratio == calibration["euclidean"]["average"] / calibration["hamming"]["average"]
    with pytest.raises(InputError):
        privacy_ratio(default_pack, "madlib", "rot13")
    with pytest.raises(AssetError, match="float word vectors"):
        metric_statistics(default_pack, "mahalanobis")


def test_calibrate_cli(default_pack):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "edgedp.cli",
            "calibrate",
            "--from",
            "madlib",
            "--epsilon",
            "10",
            "--to",
            "brr",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    expected = 10 * privacy_ratio(default_pack, "madlib", "brr")
    assert report["equivalent_epsilon"] == pytest.approx(expected)
    plain = subprocess.run(
        [
            sys.executable,
            "-m",
            "edgedp.cli",
            "calibrate",
            "--from",
            "brr",
            "--epsilon",
            "0.5",
            "--to",
            "madlib",
            "--aggregate",
            "max",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    # a sentence, not a bare number (issue 34): what the number is and what it matches
    found = re.fullmatch(
        r"madlib at epsilon (\S+) has the same largest privacy-loss bound over the pack's word "
        r"pairs as brr at epsilon 0\.5 \(exact; --json for the numbers behind it\)\n",
        plain.stdout,
    )
    assert found is not None, plain.stdout
    assert math.isclose(
        float(found.group(1)),
        0.5 / privacy_ratio(default_pack, "madlib", "brr", aggregate="max"),
        rel_tol=1e-5,
    )
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "edgedp.cli",
            "calibrate",
            "--from",
            "madlib",
            "--epsilon",
            "-1",
            "--to",
            "brr",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1
