"""CLI error paths of issue 14 section 5: each ends with its documented status and one line.

Never "internal error" (status 70) and never a traceback: Ctrl-C while the command modules are
being imported, codecs that do not decode bytes to text, UTF-16 without or with a broken byte order,
and ``embed`` input over its limit (refused as soon as the limit is passed, not after reading it all).
"""

from __future__ import annotations

import importlib
import io
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from helpers import REPO_ROOT

import edgedp.cli.embed
import edgedp.cli.reading
from edgedp.cli import main

ROOT = REPO_ROOT


def console_entry_point() -> str:
    """The ``module:function`` that pyproject.toml installs as the ``edgedp`` script."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    return scripts["edgedp"]


def run_console(*args: str, stdin: bytes = b"", interrupt_import: str | None = None):
    """Run the console entry point in a fresh interpreter; ``interrupt_import`` makes the import
    of that module raise KeyboardInterrupt, as a Ctrl-C during it would."""
    module, function = console_entry_point().split(":")
    code = (
        "import builtins, sys\n"
        f"target = {interrupt_import!r}\n"
        "real = builtins.__import__\n"
        "def hooked(name, *rest, **kw):\n"
        "    if name == target:\n"
        "        raise KeyboardInterrupt\n"
        "    return real(name, *rest, **kw)\n"
        "builtins.__import__ = hooked\n"
        "import importlib\n"  # command modules are imported with importlib.import_module
        "real_module = importlib.import_module\n"
        "def hooked_module(name, *rest, **kw):\n"
        "    if name == target:\n"
        "        raise KeyboardInterrupt\n"
        "    return real_module(name, *rest, **kw)\n"
        "importlib.import_module = hooked_module\n"
        "import importlib.util\n"  # FAISS's compiled core is loaded from its spec
        "real_spec = importlib.util.module_from_spec\n"
        "def hooked_spec(spec):\n"
        "    if spec.name == target:\n"
        "        raise KeyboardInterrupt\n"
        "    return real_spec(spec)\n"
        "importlib.util.module_from_spec = hooked_spec\n"
        f"from {module} import {function} as entry\n"
        "sys.exit(entry())\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "export")])}
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        input=stdin,
        capture_output=True,
        timeout=300,
        env=env,
    )


class TestCtrlCWhileImporting:
    # FAISS's core is loaded at the first search (a text to privatize), the others at start-up
    @pytest.mark.parametrize(
        ("module", "stdin"),
        [("numpy", b""), ("faiss._swigfaiss", b"the cat\n"), ("edgedp.cli.privatize", b"")],
    )
    def test_exits_130_quietly(self, module, stdin):
        result = run_console("privatize", "--epsilon", "1", interrupt_import=module, stdin=stdin)
        assert result.returncode == 130, result.stderr.decode()
        assert b"Traceback" not in result.stderr and b"KeyboardInterrupt" not in result.stderr

    def test_the_entry_point_still_runs_the_command(self):
        result = run_console("privatize", "--epsilon", "50", stdin=b"the cat\n")
        assert result.returncode == 0 and result.stdout == b"the cat\n"


def one_line_error(capsys, argv: list[str], stdin: bytes, monkeypatch) -> str:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    status = main(argv)
    err = capsys.readouterr().err
    assert status == 1, err
    # one error line, last; before it at most the warnings of what was already released (a line
    # read before the bad bytes is released at once: streaming, issue 34), never a traceback
    lines = err.splitlines()
    assert lines[-1].startswith("edgedp: error: ") and err.endswith("\n")
    assert all(line.startswith("edgedp: warning: ") for line in lines[:-1]), err
    return lines[-1] + "\n"


class TestEncodings:
    @pytest.mark.parametrize("codec", ["base64", "rot13", "hex", "zlib", "bz2", "uu", "quopri"])
    def test_codecs_that_do_not_decode_bytes_to_text_are_refused(self, codec, capsys, monkeypatch):
        argv = ["privatize", "--epsilon", "1", "--encoding", codec]
        assert "not a text encoding" in one_line_error(capsys, argv, b"aGVsbG8=\n", monkeypatch)

    def test_unknown_and_malformed_names(self, capsys, monkeypatch):
        for name in ("no-such-codec", "utf-8\x00", ""):
            argv = ["privatize", "--epsilon", "1", "--encoding", name]
            assert "encoding" in one_line_error(capsys, argv, b"hello\n", monkeypatch)

    @pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
    def test_utf16_and_utf32_work(self, codec, capsys, monkeypatch):
        data = "the cat\n".encode(codec)
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        assert main(["privatize", "--epsilon", "50", "--encoding", codec]) == 0
        assert capsys.readouterr().out == "the cat\n"

    @pytest.mark.parametrize("codec", ["utf-8", "utf-16-le", "utf-16-be"])
    def test_a_byte_order_mark_is_not_part_of_the_first_word(self, codec, capsys, monkeypatch):
        data = "\ufeffthe cat\n".encode(codec)
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        assert main(["privatize", "--epsilon", "50", "--encoding", codec]) == 0
        assert capsys.readouterr().out == "the cat\n"

    @pytest.mark.parametrize(
        "data",
        [
            b"abc",  # no byte order mark, odd length
            "the cat\n".encode("utf-16") + b"x",  # an odd byte count: ends inside a character
            "the cat".encode("utf-16-le") + b"\x00\xd8",  # a lone high surrogate at the end
        ],
    )
    def test_broken_utf16_is_one_line(self, data, capsys, monkeypatch):
        argv = ["privatize", "--epsilon", "1", "--encoding", "utf-16", "--on-error", "stop"]
        assert "not valid utf-16" in one_line_error(capsys, argv, data, monkeypatch)


class CountingStream(io.RawIOBase):
    """An endless-looking input of ``total`` bytes that records how much was read."""

    def __init__(self, total: int, line_every: int | None = None) -> None:
        self.total, self.served, self.line_every = total, 0, line_every

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        count = min(len(buffer), self.total - self.served)
        chunk = bytearray(b"a" * count)
        if self.line_every:
            for position in range(count):
                if (self.served + position) % self.line_every == self.line_every - 1:
                    chunk[position] = 0x0A
        buffer[:count] = chunk
        self.served += count
        return count


class TestEmbedInputLimit:
    LIMIT = 10_000

    @pytest.fixture(autouse=True)
    def small_limit(self, monkeypatch):
        monkeypatch.setattr(edgedp.cli.embed, "MAX_TEXT_CHARS", self.LIMIT, raising=False)
        monkeypatch.setattr(edgedp.cli.reading, "MAX_TEXT_CHARS", self.LIMIT, raising=False)

    @pytest.mark.parametrize("input_format", ["text", "lines", "jsonl"])
    def test_refused_as_soon_as_the_limit_is_passed(self, input_format, capsys, monkeypatch):
        stream = CountingStream(64 << 20)
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(stream)))
        status = main(["embed", "--epsilon", "5", "--input", input_format])
        err = capsys.readouterr().err
        assert status == 1 and "longer than the limit" in err and err.count("\n") == 1
        assert stream.served <= self.LIMIT + (256 << 10)  # a few read blocks, not 64 MiB

    def test_many_short_lines_stream_through(self, capsys, monkeypatch):
        # 12,000 bytes in lines of 100: more than the per-document limit in total, each line fine
        stream = CountingStream(12_000, line_every=100)
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(stream)))
        status = main(["embed", "--mechanism", "mean", "--input", "lines"])
        captured = capsys.readouterr()
        assert status == 0, captured.err
        assert captured.out.count("\n") == 120


def test_console_module_imports_nothing_heavy_before_its_handler():
    source = importlib.util.find_spec("edgedp.console").origin
    text = Path(source).read_text()
    head = text[: text.index("def main")]
    assert "import edgedp" not in head and "from edgedp" not in head


class TestPackOfTheWrongKind:
    """A pack of another kind is one AssetError line (it was an AttributeError, exit 70)."""

    @pytest.mark.parametrize(
        ("command", "pack"),
        [
            (["calibrate", "--from", "madlib", "--epsilon", "10", "--to", "brr"], "sentences-bbc"),
            (["privatize", "--mechanism", "brr", "--epsilon", "0.6"], "adept-bbc"),
            (["embed", "--epsilon", "3"], "words-small"),
        ],
    )
    def test_wrong_kind_is_one_line(self, command, pack, capsys):
        status = main([*command, "--pack", pack])
        error = capsys.readouterr().err
        assert status == 1, error
        assert error.count("\n") == 1 and ("this needs a" in error or "embed needs a" in error)


@pytest.mark.parametrize("columns", [None, "0", "-3", "wide", "37", "200"])
def test_help_width_is_shutils_terminal_width(monkeypatch, columns):
    # the CLI's help formatter finds the width without importing shutil (issue 17)
    import shutil

    from edgedp.cli import terminal_columns

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert terminal_columns() == shutil.get_terminal_size().columns
