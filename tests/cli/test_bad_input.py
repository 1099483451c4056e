"""A line that is not valid in --encoding: under --on-error skip (the default) it is left out
with one stderr line naming it and the lines around it are released; under --on-error stop the
run ends there, after releasing the lines before it. Text and JSON Lines, stdin and a file."""

from __future__ import annotations

import io
import json
import sys

import pytest

from edgedp.cli import main

#: epsilon 50 per bit keeps every word; no guard, no decoder, no randomness in what is printed
SATURATED = ["--epsilon", "50", "--seed", "1", "--protect", "none", "--decode", "nearest"]
LINES = [b"fine text\n", b"\xff\xfe broken\n", b"more text\n"]
RECORDS = [b'{"text": "fine text", "id": 1}\n', b'{"text": "\xe9t\xe9"}\n', b'{"text": "more"}\n']
ADVICE = "convert it (e.g. iconv) or pass --encoding"
#: What each input holds, its bad byte's offset, and what comes out around it.
CASES = {
    "text": (LINES, len(LINES[0]), ["fine text\n", "\n", "more text\n"]),
    "jsonl": (
        RECORDS,
        len(RECORDS[0]) + RECORDS[1].index(b"\xe9"),
        ['{"text": "fine text", "id": 1}\n', '{"text": "more"}\n'],
    ),
}


def privatize(argv, data: bytes, source: str, tmp_path, capsys, monkeypatch):
    if source == "file":
        path = tmp_path / "in"
        path.write_bytes(data)
        argv = [*argv, str(path)]
    else:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    status = main(["privatize", *SATURATED, *argv])
    captured = capsys.readouterr()
    return (
        status,
        captured.out,
        [line for line in captured.err.splitlines() if "warning" not in line],
    )


@pytest.mark.parametrize("source", ["stdin", "file"])
@pytest.mark.parametrize("input_format", ["text", "jsonl"])
def test_skip_names_the_line_and_releases_the_others(
    input_format, source, tmp_path, capsys, monkeypatch
):
    lines, offset, expected = CASES[input_format]
    argv = ["--input", input_format]
    status, out, err = privatize(argv, b"".join(lines), source, tmp_path, capsys, monkeypatch)
    assert status == 0
    assert out.splitlines(keepends=True) == expected
    named = f"edgedp: skipped line 2: not valid utf-8 at byte {offset}; {ADVICE}"
    assert err[0] == named
    assert err[1:] == (
        [] if input_format == "text" else ["edgedp: 1 bad record(s) skipped (--on-error skip)"]
    )


@pytest.mark.parametrize("source", ["stdin", "file"])
@pytest.mark.parametrize("input_format", ["text", "jsonl"])
def test_stop_releases_the_lines_before_and_ends(
    input_format, source, tmp_path, capsys, monkeypatch
):
    lines, offset, expected = CASES[input_format]
    argv = ["--input", input_format, "--on-error", "stop"]
    status, out, err = privatize(argv, b"".join(lines), source, tmp_path, capsys, monkeypatch)
    assert status == 1
    assert out == expected[0]
    assert err == [f"edgedp: error: line 2: not valid utf-8 at byte {offset}; {ADVICE}"]


def test_stop_keeps_the_output_file_with_the_lines_before(tmp_path, capsys, monkeypatch):
    target = tmp_path / "out.txt"
    argv = ["--on-error", "stop", "--output", str(target)]
    status, _, _ = privatize(argv, b"".join(LINES), "stdin", tmp_path, capsys, monkeypatch)
    assert status == 1 and target.read_text() == "fine text\n"


def test_a_ledger_run_skips_the_line_uncharged(tmp_path, capsys, monkeypatch):
    ledger = tmp_path / "ledger.db"
    argv = ["--ledger", str(ledger), "--scope", "me"]
    status, out, err = privatize(argv, b"".join(LINES), "stdin", tmp_path, capsys, monkeypatch)
    assert (status, out) == (0, "fine text\n\nmore text\n")
    assert err == [f"edgedp: skipped line 2: not valid utf-8 at byte 10; {ADVICE}"]
    assert main(["ledger", "show", "--ledger", str(ledger), "--scope", "me", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["events"] == 2


def test_a_long_line_is_cut_at_its_bad_byte_and_the_next_released(tmp_path, capsys, monkeypatch):
    from edgedp.cli.reading import HOLD_CHARS

    long_line = b"the cat " * (HOLD_CHARS // 4) + b"\xff end\n"
    status, out, err = privatize(
        [], long_line + b"more text\n", "stdin", tmp_path, capsys, monkeypatch
    )
    lines = out.splitlines(keepends=True)
    assert status == 0 and len(lines) == 2 and lines[1] == "more text\n"
    assert set(lines[0].split()) == {"the", "cat"} and len(lines[0].split()) <= long_line.count(
        b" "
    )
    assert err == [
        f"edgedp: skipped line 1: not valid utf-8 at byte {len(long_line) - 6}; {ADVICE}"
    ]


def test_several_bad_lines_are_each_named_at_their_own_offset(tmp_path, capsys, monkeypatch):
    data = b"a\n\xff\nb\nc\xfe\xfe\nd\n"
    status, out, err = privatize([], data, "stdin", tmp_path, capsys, monkeypatch)
    assert (status, out) == (0, "a\n\nb\n\nd\n")
    assert [line.split(" at ")[1].split(";")[0] for line in err] == ["byte 2", "byte 7"]
    assert [line.split(": ")[1] for line in err] == ["skipped line 2", "skipped line 4"]
