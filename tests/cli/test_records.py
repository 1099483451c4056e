"""JSON Lines records in privatize and embed (issue 34): other fields pass through, a bad record
stops the run after every record before it is released and written (and charged: no more), or is
skipped with one stderr line and counted; with a ledger, each line or record is its own charge, and
one the budget refuses does not end the filter (unless --on-error stop)."""

from __future__ import annotations

import io
import json
import sys

import pytest

from edgedp.cli import main
from edgedp.privacy.ledger import PrivacyLedger

GOOD_BAD_GOOD = (
    '{"id": 1, "text": "one two"}\n{"id": 2, "txt": "oops"}\n{"id": 3, "text": "three"}\n'
)


def _main(monkeypatch, capsys, argv: list[str], stdin: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    status = main(argv)
    out, err = capsys.readouterr()
    return status or 0, out, err


def test_privatize_stops_at_a_bad_record_after_writing_the_ones_before(
    monkeypatch, capsys, tmp_path
):
    target = tmp_path / "out.jsonl"
    argv = ["privatize", "--input", "jsonl", "--epsilon", "50", "--output", str(target)]
    status, _, err = _main(monkeypatch, capsys, [*argv, "--on-error", "stop"], GOOD_BAD_GOOD)
    assert status == 1 and err.splitlines()[-1].startswith("edgedp: error: line 2: expected")
    written = [json.loads(line) for line in target.read_text().splitlines()]
    assert [record["id"] for record in written] == [1]  # released, so written (and charged)


def test_privatize_skips_bad_records_one_line_each_and_counts_them(monkeypatch, capsys):
    argv = ["privatize", "--input", "jsonl", "--epsilon", "50", "--on-error", "skip"]
    status, out, err = _main(monkeypatch, capsys, argv, GOOD_BAD_GOOD + "not json\n")
    assert status == 0
    assert [json.loads(line)["id"] for line in out.splitlines()] == [1, 3]
    assert "edgedp: skipped line 2: expected" in err and "edgedp: skipped line 4: not JSON" in err
    assert "edgedp: 2 bad record(s) skipped (--on-error skip)" in err


def test_the_ledger_is_charged_for_exactly_the_records_released(monkeypatch, capsys, tmp_path):
    path = tmp_path / "ledger.db"
    argv = ["privatize", "--input", "jsonl", "--epsilon", "1", "--ledger", str(path)]
    argv += ["--on-error", "stop"]
    status, _, _ = _main(monkeypatch, capsys, [*argv, "--scope", "me"], GOOD_BAD_GOOD)
    assert status == 1
    epsilon, _ = PrivacyLedger(path, create=False).spent("me")
    assert epsilon == pytest.approx(2.0)  # "one two": 2 words at epsilon 1, nothing after


def test_embed_passes_fields_through_and_stops_or_skips(monkeypatch, capsys, tmp_path):
    records = (
        '{"id": "a", "lang": "en", "text": "The market rose. Banks led."}\n'
        '{"id": "b", "embedding": [1]}\n'
        '{"id": "c", "sentences": ["It rained.", "We left."]}\n'
    )
    argv = ["embed", "--input", "jsonl", "--epsilon", "10", "--seed", "1"]
    status, out, err = _main(monkeypatch, capsys, [*argv, "--on-error", "skip"], records)
    assert status == 0
    released = [json.loads(line) for line in out.splitlines()]
    assert [(r["id"], r.get("lang")) for r in released] == [("a", "en"), ("c", None)]
    assert all(len(r["embedding"]) > 0 and r["mechanism"] == "subspace-mean" for r in released)
    assert "edgedp: skipped stdin:2: expected" in err and "1 bad record(s) skipped" in err
    clash = '{"id": "d", "epsilon": 3, "text": "One. Two."}\n'
    status, out, err = _main(monkeypatch, capsys, argv, records.splitlines()[0] + "\n" + clash)
    assert status == 1 and [json.loads(line)["id"] for line in out.splitlines()] == ["a"]
    assert "stdin:2: field(s) epsilon are written by embed; rename them" in err


def _ledger(tmp_path, limit: float) -> str:
    path = tmp_path / "ledger.db"
    PrivacyLedger(path).set_limit("bob", limit)
    return str(path)


# One pipe write of three lines: "one two" (2 word slots at epsilon 1), "three four five six" (4),
# "seven" (1) under a budget of 5: the second line alone is refused, the first and third released.
THREE_LINES = "one two\nthree four five six\r\nseven\n"


def test_a_refused_line_gets_an_error_line_and_the_filter_goes_on(monkeypatch, capsys, tmp_path):
    ledger = ["--ledger", _ledger(tmp_path, 5.0), "--scope", "bob"]
    argv = ["privatize", "--epsilon", "1", "--seed", "3", "--protect", "none", *ledger]
    status, out, err = _main(monkeypatch, capsys, argv, THREE_LINES)
    assert status == 0
    lines = out.split("\n")
    assert len(lines[0].split()) == 2 and lines[1] == "\r" and len(lines[2].split()) == 1
    assert out.endswith("\n") and out.count("\n") == 3  # one line out per line in
    assert "edgedp: line 2 not released:" in err and "1 line(s) or record(s) refused" in err
    spent, _ = PrivacyLedger(tmp_path / "ledger.db", create=False).spent("bob")
    assert spent == pytest.approx(3.0)  # each line its own charge: 2 + 1, the refused one nothing


def test_on_error_stop_ends_the_filter_at_a_refused_line(monkeypatch, capsys, tmp_path):
    ledger = ["--ledger", _ledger(tmp_path, 5.0), "--scope", "bob", "--on-error", "stop"]
    argv = ["privatize", "--epsilon", "1", "--seed", "3", "--protect", "none", *ledger]
    status, out, err = _main(monkeypatch, capsys, argv, THREE_LINES)
    assert status == 1 and out.count("\n") == 1 and "edgedp: error:" in err


def test_a_refused_record_comes_out_as_an_error_record(monkeypatch, capsys, tmp_path):
    records = '{"id": "a", "text": "one two"}\n{"id": "b", "text": "three four five six"}\n'
    records += '{"id": "c", "text": "seven"}\n'
    ledger = ["--ledger", _ledger(tmp_path, 5.0), "--scope", "bob"]
    argv = ["privatize", "--input", "jsonl", "--epsilon", "1", "--protect", "none", *ledger]
    status, out, err = _main(monkeypatch, capsys, argv, records)
    assert status == 0
    written = [json.loads(line) for line in out.splitlines()]
    assert [r["id"] for r in written] == ["a", "b", "c"]
    assert "text" not in written[1] and "budget" in written[1]["error"]
    assert "text" in written[0] and "text" in written[2] and "edgedp: line 2 not released" in err
