"""Mechanisms with a choice of space default to the pack's: they work on the bundled binary-only
pack, and asking for a space the pack lacks gives the one-flag fix first (issue 26)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import edgedp
from edgedp.words.spaces import choose_space

CHOOSERS = [
    (edgedp.Vickrey, {}),
    (edgedp.GeneralizedVickrey, {"weights": [0.0, 0.1]}),
    (edgedp.TEM, {}),
    (edgedp.CusText, {"k": 4}),
]


@pytest.mark.parametrize(("mechanism", "options"), CHOOSERS)
def test_binary_only_pack_defaults_to_hamming(tiny_pack, mechanism, options):
    built = mechanism(tiny_pack, epsilon=0.5, **options)
    assert built.space_name == "hamming" and built.parameters()["space"] == "hamming"
    promise = built.guarantee()
    assert promise.metric in ("hamming", None)  # CusText: plain DP within its output sets
    assert built.privatize("wab wac")  # it runs


@pytest.mark.parametrize(("mechanism", "options"), CHOOSERS)
def test_a_pack_with_vectors_defaults_to_euclidean(euclid_pack, mechanism, options):
    assert mechanism(euclid_pack, epsilon=5.0, **options).space_name == "euclidean"


@pytest.mark.parametrize(("mechanism", "options"), CHOOSERS)
def test_euclidean_on_a_binary_pack_names_the_hamming_fix(tiny_pack, mechanism, options):
    with pytest.raises(edgedp.AssetError) as caught:
        mechanism(tiny_pack, epsilon=0.5, space="euclidean", **options)
    message = str(caught.value)
    assert message.index("--space hamming") < message.index("edgedp-export")


def test_choose_space_checks_the_name(tiny_pack):
    with pytest.raises(edgedp.InputError, match="space must be one of euclidean, hamming"):
        choose_space(tiny_pack, "manhattan", "Vickrey")


@pytest.mark.parametrize("name", ["vickrey", "tem"])  # custext: slow on a big pack (issue 25)
def test_the_cli_runs_them_on_the_default_pack_and_says_the_space(name):
    result = subprocess.run(
        [sys.executable, "-m", "edgedp.cli", "privatize", "--mechanism", name, "--epsilon", "0.6"],
        input=b"the patient was admitted\n",
        capture_output=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(b" ") == 3 and result.stdout.endswith(b"\n")
    assert b"runs in Hamming space, epsilon per bit" in result.stderr
