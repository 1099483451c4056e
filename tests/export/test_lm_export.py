"""edgedp-export lm: the command builds an lm pack from public corpora over a words pack's vocabulary,
records its sources, vocabulary and held-out perplexity, gives the same bytes twice, and refuses
bad arguments with one clear line."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
from edgedp_export.cli import main as export_main
from edgedp_export.commands import lm as command
from edgedp_export.corpus import PublicCorpus, PublicDocument
from helpers import write_word_pack

import edgedp

WORDS = [f"w{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(64)]


def tiny_corpus() -> PublicCorpus:
    rng = np.random.default_rng(0)
    documents = []
    for number in range(60):
        sentences = [
            " ".join(WORDS[(start + step) % 20] for step in range(4)) + "."
            for start in rng.integers(0, 20, 3)
        ]
        documents.append(PublicDocument(f"doc{number}", " ".join(sentences)))
    provenance = {"name": "synthetic", "license": "CC0-1.0", "attribution": "the tests"}
    return PublicCorpus(tuple(documents), provenance, 20, 20)


@pytest.fixture
def words_dir(tmp_path, monkeypatch):
    monkeypatch.setitem(command.CORPORA, "tiny", tiny_corpus)
    return write_word_pack(tmp_path / "words", WORDS, np.zeros((64, 4), dtype=np.uint8))


def test_the_command_builds_a_loadable_pack_twice_the_same(words_dir, tmp_path):
    outs = []
    for number in (1, 2):
        out = tmp_path / f"lm{number}" / "tiny-lm"
        args = ["lm", "--words-from", str(words_dir), "--corpora", "tiny", "--out", str(out)]
        assert export_main(args) == 0
        outs.append(out)
    first, second = (
        {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in out.iterdir()} for out in outs
    )
    assert first == second
    pack = edgedp.load_pack(outs[0], kind="lm")
    pack.check_vocabulary(edgedp.load_pack(words_dir))
    manifest = json.loads((outs[0] / "manifest.json").read_text())
    assert manifest["build_command"].startswith("edgedp-export lm --words-from tiny --corpora tiny")
    assert "CC0-1.0" in manifest["source"]["license"]
    lm = manifest["lm"]
    assert lm["min_count"] == 2 and lm["vocabulary"]["size"] == 64
    assert 1 < lm["heldout"]["perplexity"] < 66  # well below uniform over 66 outcomes
    assert lm["heldout"]["split"] == "validation" and lm["training"]["split"] == "train"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--corpora", "nope"], "--corpora takes names"),
        (["--corpora", "tiny", "--min-count", "0"], "--min-count must be >= 1"),
    ],
)
def test_bad_arguments_are_one_line(words_dir, tmp_path, capsys, extra, message):
    args = ["lm", "--words-from", str(words_dir), "--out", str(tmp_path / "x"), *extra]
    assert export_main(args) != 0
    error = capsys.readouterr().err.strip()
    assert message in error and "\n" not in error


def test_the_general_corpora_leave_fortunes_and_bbc_out():
    assert "fortunes" not in command.GENERAL_LM_CORPORA
    assert set(command.GENERAL_LM_CORPORA) <= set(command.CORPORA)
