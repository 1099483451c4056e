"""``edgedp embed``: input formats, JSONL and .npy output, labels, reproducibility and errors."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import edgedp
from edgedp.cli import main

DOCUMENT = (
    "The market rose sharply on Monday. Shares in banks led the gains.\nAnalysts were surprised."
)


def run(capsys, *argv: str) -> tuple[int, list[dict], str]:
    code = main(["embed", *argv])
    out, err = capsys.readouterr()
    records = [json.loads(line) for line in out.splitlines()]
    return code, records, err


def test_text_files_are_documents(tmp_path, capsys, sentence_pack):
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text(DOCUMENT, encoding="utf-8")
    second.write_text("One short document.", encoding="utf-8")
    dc = ("--mechanism", "deepcandidate")
    code, records, err = run(capsys, *dc, "--epsilon", "6", "--seed", "3", str(first), str(second))
    assert code == 0 and "NOT private" in err
    assert [record["document"] for record in records] == [0, 1]
    assert [record["sentences"] for record in records] == [3, 1]
    first_record = records[0]
    assert first_record["mechanism"] == "deepcandidate" and first_record["epsilon"] == 6.0
    assert first_record["private"] is False  # seeded
    index = first_record["candidate"]
    np.testing.assert_allclose(
        first_record["embedding"], sentence_pack.candidates[index], rtol=1e-6
    )
    assert first_record["projections"] == sentence_pack.projections_for(6.0)
    again = run(capsys, *dc, "--epsilon", "6", "--seed", "3", str(first), str(second))[1]
    assert again == records


def test_lines_and_jsonl_inputs_and_npy_output(tmp_path, capsys, sentence_pack):
    lines = tmp_path / "docs.txt"
    lines.write_text(
        "First document. Two sentences.\n\nThird line is a document.\n", encoding="utf-8"
    )
    code, records, _ = run(
        capsys, "--input", "lines", "--epsilon", "1", "--mechanism", "truncation", str(lines)
    )
    assert code == 0 and [record["sentences"] for record in records] == [2, 0, 1]
    assert all(record["private"] and "candidate" not in record for record in records)
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text(
        json.dumps({"text": DOCUMENT})
        + "\n\n"
        + json.dumps({"sentences": ["As given.", "Yes"]})
        + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "out.npy"
    code, records, _ = run(
        capsys,
        *("--mechanism", "deepcandidate", "--input", "jsonl", "--epsilon", "2"),
        *("--output", str(out), str(jsonl)),
    )
    assert code == 0 and records == []
    array = np.load(out)
    assert array.shape == (2, sentence_pack.dims) and array.dtype == np.float32
    assert all(row.tolist() in sentence_pack.candidates.tolist() for row in array)


def test_mean_is_labelled_not_private(tmp_path, capsys):
    path = tmp_path / "a.txt"
    path.write_text(DOCUMENT, encoding="utf-8")
    code, records, err = run(capsys, "--mechanism", "mean", str(path))
    assert code == 0 and "NOT PRIVATE" in err
    assert records[0]["private"] is False and "epsilon" not in records[0]
    assert run(capsys, "--mechanism", "mean", "--epsilon", "1", str(path))[0] == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "needs --epsilon"),
        (["--epsilon", "0"], "epsilon must be > 0"),
        (["--epsilon", "abc"], "epsilon must be a real number"),
        (["--epsilon", "1", "--mechanism", "deepcandidate", "--projections", "0"], "must be >= 1"),
        (
            ["--epsilon", "1", "--mechanism", "truncation", "--projections", "5"],
            "deepcandidate only",
        ),
        (["--epsilon", "1", "--pack", "words-small"], "needs a subspace pack"),
        (
            ["--epsilon", "1", "--mechanism", "truncation", "--pack", "words-small"],
            "is a words pack; embed needs a subspace pack",
        ),
        (["--epsilon", "1", "--output", "x.csv"], ".jsonl or .npy"),
    ],
)
def test_usage_errors_are_one_line(tmp_path, capsys, argv, message):
    path = tmp_path / "a.txt"
    path.write_text(DOCUMENT, encoding="utf-8")
    code, _, err = run(capsys, *argv, str(path))
    assert code == 1 and message in err and len(err.strip().splitlines()) == 1


def test_bad_input_files(tmp_path, capsys):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\xff\xfe\x00binary\x80")
    code, _, err = run(capsys, "--epsilon", "1", str(junk))
    assert code == 1 and "not valid utf-8" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "ok"}\n{"nope": 1}\n', encoding="utf-8")
    code, _, err = run(capsys, "--epsilon", "1", "--input", "jsonl", str(bad))
    assert code == 1 and "bad.jsonl:2" in err
    code, _, err = run(capsys, "--epsilon", "1", str(tmp_path / "missing.txt"))
    assert code == 1 and "cannot read" in err


def test_installed_console_script_reads_stdin():
    result = subprocess.run(
        [sys.executable, "-m", "edgedp.cli", "embed", "--epsilon", "3"],
        input=DOCUMENT.encode(),
        capture_output=True,
        timeout=120,
        check=True,
    )
    (record,) = [json.loads(line) for line in result.stdout.splitlines()]
    # the default (issue 24): subspace-mean with the subspace-general pack, in its basis
    assert record["mechanism"] == "subspace-mean" and record["space"] == "subspace"
    assert record["private"] is True and record["sentences"] == 3
    general = edgedp.load_pack("subspace-general", kind="subspace")
    assert record["dims"] == general.recommendation(3.0, 0.0, 3).dims
    assert len(record["embedding"]) == edgedp.SubspaceMean(general, epsilon=3.0).output_dims


def test_too_short_documents_are_flagged_and_warned_about(tmp_path, capsys, sentence_pack):
    lines = tmp_path / "docs.txt"
    lines.write_text(f"{DOCUMENT.replace(chr(10), ' ')}\n\nOne sentence only.\n", encoding="utf-8")
    code, records, err = run(capsys, "--input", "lines", "--epsilon", "6", str(lines))
    assert code == 0
    assert [record["too_short"] for record in records] == [False, True, True]
    assert "2 of 3 documents (number 1, 2) have fewer than 2 sentences" in err
    assert err.count("\n") == 1
    # the same flag whatever the mechanism (the shared code path), and also for .npy output
    for mechanism in ("truncation", "deepcandidate"):
        out = tmp_path / f"{mechanism}.npy"
        code = main(["embed", "--input", "lines", "--mechanism", mechanism, "--epsilon", "6",
                     "--output", str(out), str(lines)])  # fmt: skip
        err = capsys.readouterr().err
        assert code == 0 and np.load(out).shape == (3, sentence_pack.dims)
        assert "2 of 3 documents (number 1, 2)" in err
    # the non-private mean is informative at any length: no flag
    code, records, err = run(capsys, "--input", "lines", "--mechanism", "mean", str(lines))
    assert [record["too_short"] for record in records] == [False, False, False]
    assert "fewer than" not in err


def test_output_to_a_missing_directory_is_refused_before_any_work(tmp_path, capsys):
    target = tmp_path / "missing" / "out.jsonl"
    code = main(["embed", "--epsilon", "6", "--output", str(target), str(tmp_path / "absent")])
    err = capsys.readouterr().err
    assert code == 1 and f"the directory {target.parent} does not exist" in err
    assert err.count("\n") == 1


def test_a_failed_run_leaves_no_output_file(tmp_path, capsys, sentence_pack):
    target = tmp_path / "out.jsonl"
    target.write_text("the previous run\n")
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text(DOCUMENT, encoding="utf-8")
    bad.write_bytes(b"\xff\xfe not utf-8")
    code = main(["embed", "--epsilon", "6", "--output", str(target), str(good), str(bad)])
    assert code == 1 and "not valid utf-8" in capsys.readouterr().err
    assert target.read_text() == "the previous run\n"  # untouched, and no temporary left over
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bad.txt", "good.txt", "out.jsonl"]
