"""``edgedp embed --mechanism subspace-mean`` and corpus jobs with SubspaceMean: records, lifting,
the Gaussian variant, .npy output and one-line errors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sentence_helpers import orthonormal_rows, write_subspace_pack

import edgedp
from edgedp.cli import main
from edgedp.engines import corpus

DOCUMENT = "The market rose on Monday. Shares in banks led the gains.\nAnalysts were surprised."


@pytest.fixture(scope="module")
def pack_dir(tmp_path_factory):
    basis = orthonormal_rows(np.random.default_rng(3), 8, 384)
    return write_subspace_pack(tmp_path_factory.mktemp("cli") / "sub", basis, real_encoder=True)


def run(capsys, *argv: str) -> tuple[int, list[dict], str]:
    code = main(["embed", "--mechanism", "subspace-mean", *argv])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def test_records_carry_the_directions_and_the_space(tmp_path, capsys, pack_dir):
    path = tmp_path / "a.txt"
    path.write_text(DOCUMENT, encoding="utf-8")
    args = ["--pack", str(pack_dir), "--epsilon", "10", "--seed", "2", str(path)]
    code, records, err = run(capsys, *args)
    assert code == 0 and "NOT private" in err
    (record,) = records
    assert record["mechanism"] == "subspace-mean" and record["sentences"] == 3
    # The test pack recommends 1 direction below 4 sentences, 2 from 4 on: the output is 2 wide.
    assert record["dims"] == 1 and record["delta"] is None and record["space"] == "subspace"
    assert len(record["embedding"]) == 2 and record["embedding"][1] == 0.0
    code, lifted, _ = run(capsys, *args, "--lift")
    assert code == 0 and lifted[0]["space"] == "encoder" and len(lifted[0]["embedding"]) == 384
    pack = edgedp.load_pack(pack_dir, kind="subspace")
    expected = np.asarray(pack.mean) + np.asarray(record["embedding"]) @ np.asarray(pack.basis[:2])
    np.testing.assert_allclose(lifted[0]["embedding"], expected, atol=1e-5)


def test_gaussian_variant_and_npy_output(tmp_path, capsys, pack_dir):
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text(
        json.dumps({"text": DOCUMENT}) + "\n" + json.dumps({"sentences": ["One.", "Two."]}) + "\n"
    )
    base = ["--pack", str(pack_dir), "--epsilon", "10", "--delta", "1e-6", "--input", "jsonl"]
    code, records, _ = run(capsys, *base, str(jsonl))
    assert code == 0 and [r["delta"] for r in records] == [1e-6, 1e-6]
    assert all(len(r["embedding"]) == 8 and r["dims"] == 8 for r in records)
    out = tmp_path / "out.npy"
    assert run(capsys, *base, "--output", str(out), str(jsonl))[0] == 0
    assert np.load(out).shape == (2, 8) and np.load(out).dtype == np.float32


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--mechanism", "deepcandidate", "--epsilon", "3", "--dims", "4"], "subspace-mean only"),
        (["--mechanism", "truncation", "--epsilon", "3", "--lift"], "subspace-mean only"),
        (["--epsilon", "3", "--delta", "abc"], "--delta must be a number"),
        (["--epsilon", "3", "--delta", "2"], "delta must be in (0, 1)"),
        (["--epsilon", "3", "--dims", "99"], "dims must be at most 8"),
        (["--epsilon", "3", "--projections", "5"], "deepcandidate only"),
    ],
)
def test_usage_errors_are_one_line(tmp_path, capsys, pack_dir, argv, message):
    path = tmp_path / "a.txt"
    path.write_text(DOCUMENT, encoding="utf-8")
    code = main(
        ["embed", "--mechanism", "subspace-mean", "--pack", str(pack_dir), *argv, str(path)]
    )
    err = capsys.readouterr().err
    assert code == 1 and message in err and len(err.strip().splitlines()) == 1


def test_a_sentences_pack_is_refused_for_subspace_mean(tmp_path, capsys):
    path = tmp_path / "a.txt"
    path.write_text(DOCUMENT, encoding="utf-8")
    code, _, err = run(capsys, "--pack", "sentences-bbc", "--epsilon", "3", str(path))
    # the error names the mechanism that pack serves (issue 34)
    assert code == 1 and "is a sentences pack" in err and "add --mechanism deepcandidate" in err
    code = main(
        [
            "embed",
            "--mechanism",
            "truncation",
            "--pack",
            "subspace-general",
            "--epsilon",
            "3",
            str(path),
        ]
    )
    err = capsys.readouterr().err
    assert code == 1 and "drop --mechanism truncation" in err and err.count("\n") == 1


def test_corpus_jobs_embed_with_subspace_mean(pack_dir):
    job = corpus.plan_embed(
        "text", mechanism="subspace-mean", pack=str(pack_dir), epsilon=10.0, dims=4
    )
    frame = pd.DataFrame({"user": ["a", "b"], "text": [DOCUMENT, None]})
    (out,) = corpus.privatize_batches([frame], job)
    first = out["embedding"][0]
    assert len(first) == 4 and np.asarray(first).dtype == np.float32
    assert out["embedding"][1] is None
    with pytest.raises(edgedp.InputError):
        corpus.plan_embed(
            "text", mechanism="subspace-mean", pack=str(pack_dir), epsilon=1.0, dims=99
        )
