"""Each mechanism is described once, in edgedp.registry, and everything else follows from it.

The entries agree with their classes (name, pack, options and their defaults, the metric of the
guarantee); the docs and the public names list every registered class; and a toy mechanism added
with one registry entry is at once in the command line, calibrate, explain and the corpus jobs.
"""

from __future__ import annotations

import inspect
import io
import re
import sys
import warnings

import pandas as pd
import pytest
import toy_mechanism
from helpers import REPO_ROOT

import edgedp
from edgedp.adept import adept
from edgedp.cli import main
from edgedp.engines.corpus import plan_privatize, privatize_batches
from edgedp.packs.manifest import PACK_KINDS
from edgedp.registry import (
    DOCUMENT_BASELINES,
    DOCUMENT_MECHANISMS,
    GEOMETRY,
    METRICS,
    NOISE,
    PACK_TYPES,
    SENTENCE_REWRITERS,
    WORD_MECHANISMS,
)
from edgedp.words.spaces import GEOMETRIES

REGISTRIES = (WORD_MECHANISMS, SENTENCE_REWRITERS, DOCUMENT_MECHANISMS, DOCUMENT_BASELINES)
ENTRIES = [(registry, entry) for registry in REGISTRIES for entry in registry.entries()]


@pytest.mark.parametrize(("registry", "entry"), ENTRIES, ids=lambda item: getattr(item, "name", ""))
def test_each_entry_is_its_class(registry, entry):
    cls = registry[entry.name]
    assert cls.name == entry.name
    assert entry.pack == cls.pack_type.DEFAULT_PACK
    signature = inspect.signature(cls.__init__).parameters
    for option in entry.options:
        assert option.keyword in signature, (entry.name, option.keyword)
        default = signature[option.keyword].default
        if option.required:
            assert default is inspect.Parameter.empty, (entry.name, option.keyword)
        elif option.default is not None:  # stated in --help: it must be the constructor's
            assert default == option.default, (entry.name, option.keyword)


def test_one_keyword_is_one_option_in_each_command():
    for registries in ((WORD_MECHANISMS, SENTENCE_REWRITERS), (DOCUMENT_MECHANISMS,)):
        options = [
            option for registry in registries for e in registry.entries() for option in e.options
        ]
        for option in options:
            assert all(other == option for other in options if other.keyword == option.keyword)


def test_pack_types_and_option_choices_are_their_owners():
    assert set(PACK_TYPES) == set(PACK_KINDS)
    assert all(kind == cls.PACK_KIND for kind, cls in PACK_TYPES.items())
    assert GEOMETRY.choices == GEOMETRIES
    assert NOISE.choices == adept.NOISES


def test_the_metric_of_each_entry_is_its_guarantees(euclid_pack):
    for entry in WORD_MECHANISMS.entries():
        required = {"weights": [0.0, 0.1]} if entry.name == "generalized-vickrey" else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", edgedp.UtilityWarning)
            mechanism = WORD_MECHANISMS[entry.name](euclid_pack, epsilon=1.0, **required)
            assert mechanism.guarantee().metric == entry.metric, entry.name
            for name, metric in entry.calibration_names().items():
                assert METRICS[name] == metric
                if name.endswith("-hamming"):
                    hamming = WORD_MECHANISMS[entry.name](
                        euclid_pack, epsilon=1.0, geometry="hamming", **required
                    )
                    assert hamming.guarantee().metric == "hamming", name
    assert {"hamming", "euclidean"} <= set(METRICS)
    assert "custext" not in METRICS  # plain DP within output sets: no privacy ratio


def test_the_docs_and_the_public_names_list_every_mechanism():
    theory = (REPO_ROOT / "docs" / "theory.md").read_text(encoding="utf-8")
    table = theory.split("## Mechanisms and their guarantees", 1)[1].split("\n\n", 2)[1]
    api = (REPO_ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    for registry in (WORD_MECHANISMS, SENTENCE_REWRITERS, DOCUMENT_MECHANISMS):
        for name in registry:
            cls_name = registry[name].__name__
            assert re.search(rf"^\| `{cls_name}`", table, re.MULTILINE), f"theory.md: {cls_name}"
            assert f"   {cls_name}\n" in api, f"api.md: {cls_name}"
            assert cls_name in edgedp.__all__


# -- adding a mechanism: its module and one registry line -------------------------------------


@pytest.fixture
def toy(monkeypatch):
    """The toy mechanism registered as one line would register it."""
    monkeypatch.setitem(WORD_MECHANISMS._described, "toy", toy_mechanism.ENTRY)
    return toy_mechanism.ENTRY


def run(argv: list[str], capsys, monkeypatch, stdin: str = "") -> tuple[int, str, str]:
    monkeypatch.setenv("COLUMNS", "200")  # one help entry a line
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    try:
        status = main(argv)
    except SystemExit as done:  # --help
        status = int(done.code or 0)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_a_registered_mechanism_is_in_the_command_line(toy, capsys, monkeypatch):
    status, out, _ = run(["privatize", "--help"], capsys, monkeypatch)
    assert status == 0
    assert "toy}" in out or "toy," in out  # a --mechanism choice
    assert re.search(r"--share SHARE\s+toy: share of epsilon spent \(default: 1\.0\)", out)
    argv = ["privatize", "--mechanism", "toy", "--share", "1", "--epsilon", "50"]
    argv += ["--seed", "1", "--oov", "mask", "--protect", "none", "--decode", "nearest"]
    status, out, err = run(argv, capsys, monkeypatch, stdin="the cat sat\n")
    assert (status, out) == (0, "the cat sat\n"), err
    argv = ["privatize", "--mechanism", "brr", "--share", "0.5", "--epsilon", "1"]
    status, _, err = run(argv, capsys, monkeypatch, stdin="the cat\n")
    assert status == 1 and "--share does not apply to --mechanism brr" in err


def test_a_registered_mechanism_is_in_calibrate_and_explain(toy, capsys, monkeypatch):
    argv = ["calibrate", "--from", "toy", "--to", "brr", "--epsilon", "0.6"]
    status, out, err = run(argv, capsys, monkeypatch)
    assert status == 0, err
    assert out.startswith("brr at epsilon 0.6 has the same mean privacy-loss bound")
    argv = ["explain", "--mechanism", "toy", "--share", "0.5", "--epsilon", "0.6"]
    argv += ["--words", "4", "--samples", "3", "--adversary-samples", "3", "--seed", "1"]
    argv += ["--json"]
    status, out, err = run(argv, capsys, monkeypatch)
    assert status == 0, err
    assert '"mechanism": "Toy"' in out and '"share": 0.5' in out


def test_a_registered_mechanism_is_in_the_corpus_jobs(toy):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        job = plan_privatize("text", "toy", epsilon=50.0, share=1.0, seed=1, decode="nearest")
    frame = pd.DataFrame({"text": ["the cat sat", None]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.UtilityWarning)
        (out,) = privatize_batches([frame], job, partition=0)
    assert out["text"].tolist()[0] == "the cat sat" and out["text"].isna().tolist()[1]
