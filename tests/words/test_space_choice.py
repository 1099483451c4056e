"""Mechanisms with a choice of space default to the pack's: they work on the bundled binary-only
pack, and asking for a space the pack lacks gives the one-flag fix first (issue 26)."""

from __future__ import annotations

import argparse
import io
import subprocess
import sys

import numpy as np
import pytest

import edgedp
from edgedp.cli import COMMAND_MODULES, build_parser, main
from edgedp.words.spaces import choose_geometry

CHOOSERS = [
    (edgedp.Vickrey, {}),
    (edgedp.GeneralizedVickrey, {"weights": [0.0, 0.1]}),
    (edgedp.TEM, {}),
    (edgedp.CusText, {"k": 4}),
]


@pytest.mark.parametrize(("mechanism", "options"), CHOOSERS)
def test_binary_only_pack_defaults_to_hamming(tiny_pack, mechanism, options):
    built = mechanism(tiny_pack, epsilon=0.5, **options)
    assert built.geometry == "hamming" and built.parameters()["geometry"] == "hamming"
    promise = built.guarantee()
    assert promise.metric in ("hamming", None)  # CusText: plain DP within its output sets
    assert built.privatize("wab wac")  # it runs


@pytest.mark.parametrize(("mechanism", "options"), CHOOSERS)
def test_a_pack_with_vectors_defaults_to_euclidean(euclid_pack, mechanism, options):
    assert mechanism(euclid_pack, epsilon=5.0, **options).geometry == "euclidean"


@pytest.mark.parametrize(("mechanism", "options"), CHOOSERS)
def test_euclidean_on_a_binary_pack_names_the_hamming_fix(tiny_pack, mechanism, options):
    with pytest.raises(edgedp.AssetError) as caught:
        mechanism(tiny_pack, epsilon=0.5, geometry="euclidean", **options)
    message = str(caught.value)
    assert message.index("--geometry hamming") < message.index("edgedp-export")


def test_choose_geometry_checks_the_name(tiny_pack):
    with pytest.raises(edgedp.InputError, match="geometry must be one of euclidean, hamming"):
        choose_geometry(tiny_pack, "manhattan", "Vickrey")


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


# -- space= is renamed geometry= (one release of a deprecated alias) --------------------------------

WORDS = np.arange(40, dtype=np.int64)


@pytest.mark.parametrize(("mechanism", "options"), CHOOSERS)
def test_the_old_space_keyword_warns_and_releases_the_same(euclid_pack, seeded, mechanism, options):
    new = mechanism(euclid_pack, epsilon=2.0, geometry="hamming", rng=seeded(5), **options)
    with pytest.warns(
        DeprecationWarning, match="space= is renamed geometry=; space= will be removed"
    ):
        old = mechanism(euclid_pack, epsilon=2.0, space="hamming", rng=seeded(5), **options)
    assert old.geometry == new.geometry == "hamming" and old.parameters() == new.parameters()
    assert np.array_equal(old.privatize_ids(WORDS), new.privatize_ids(WORDS))


@pytest.mark.parametrize(("mechanism", "options"), CHOOSERS)
def test_space_and_geometry_together_are_refused(euclid_pack, mechanism, options):
    with pytest.raises(edgedp.InputError, match="space= is the deprecated name of geometry="):
        mechanism(euclid_pack, epsilon=2.0, geometry="hamming", space="hamming", **options)


def test_the_old_cli_flag_warns_and_releases_the_same(capsys, monkeypatch):
    def privatize(*flags: str) -> tuple[str, str]:
        monkeypatch.setattr(
            sys, "stdin", io.TextIOWrapper(io.BytesIO(b"the patient was admitted\n"))
        )
        argv = ["privatize", "--mechanism", "tem", "--epsilon", "1", "--seed", "3", *flags]
        assert main(argv) == 0
        captured = capsys.readouterr()
        return captured.out, captured.err

    new_out, new_err = privatize("--geometry", "hamming")
    old_out, old_err = privatize("--space", "hamming")
    notice = "edgedp: warning: --space is renamed --geometry; --space will be removed in the next "
    assert old_out == new_out and f"{notice}release" in old_err.splitlines()
    assert "--space" not in new_err
    both = ["--mechanism", "tem", "--epsilon", "1", "--geometry", "hamming", "--space", "hamming"]
    with pytest.raises(SystemExit):  # argparse: not allowed together
        main(["privatize", *both])


def test_privatize_help_shows_geometry_not_space():
    parser, _ = build_parser("edgedp", "", COMMAND_MODULES, ["privatize", "--help"])
    text = next(
        sub
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
        for name, sub in action.choices.items()
        if name == "privatize"
    ).format_help()
    assert "--geometry {euclidean,hamming}" in text and "--space" not in text
