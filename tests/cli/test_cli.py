"""The edgedp CLI: golden behaviour, streaming, and one-line errors (never a traceback)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers import tokens_of

import edgedp
from edgedp.text.segmentation import PASS_THROUGH_PUNCTUATION


def run(*args: str, stdin: bytes | str = b"", env: dict | None = None):
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(
        [sys.executable, "-m", "edgedp.cli", *args],
        input=data,
        capture_output=True,
        timeout=300,
        env=env,
    )


def test_golden_identity_at_saturated_epsilon():
    # epsilon 50 per bit: flip probability 2**-64, so in-vocabulary words come back normalized
    # and the OOV name is replaced by the mask.
    result = run(
        "privatize",
        "--epsilon",
        "50",
        "--oov",
        "mask",
        stdin="The quick brown fox, Mr. Zyxwv, jumps!\n\nover  the dog\n",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode() == "the quick brown fox, mr. [OOV], jumps!\n\nover  the dog\n"
    # the only message: epsilon 50 keeps every word (edgedp.evaluation.tune.keep_warning)
    assert result.stderr.startswith(b"edgedp: warning: epsilon 50 keeps about 100% of words")
    assert result.stderr.count(b"\n") == 1


def test_output_has_one_line_per_input_line_and_only_public_tokens(default_pack, tmp_path):
    text = "".join(f"line {i}: Patient Qwzx{i} took {i * 37} mg of aspirin.\n" for i in range(300))
    path = tmp_path / "in.txt"
    path.write_text(text)
    result = run("privatize", "--epsilon", "0.5", str(path))
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    assert out.count("\n") == 300
    assert "qwzx" not in out.lower()
    for token in tokens_of(out):
        assert token in PASS_THROUGH_PUNCTUATION or token in default_pack.vocabulary


def test_seed_is_reproducible_and_loud():
    first = run("privatize", "--epsilon", "0.6", "--seed", "3", stdin="a small test of seeds\n")
    second = run("privatize", "--epsilon", "0.6", "--seed", "3", stdin="a small test of seeds\n")
    assert first.stdout == second.stdout
    assert b"NOT private" in first.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["privatize", "--epsilon", "0"], b"epsilon must be > 0"),
        (["privatize", "--epsilon", "-3"], b"epsilon must be > 0"),
        (["privatize", "--epsilon", "nan"], b"epsilon must be finite"),
        (["privatize", "--epsilon", "inf"], b"epsilon must be finite"),
        (["privatize", "--epsilon", "abc"], b"epsilon must be a real number"),
        (["privatize", "--epsilon", "1", "--pack", "/no/such/pack"], b"no pack at"),
        (["privatize", "--epsilon", "1", "/no/such/file.txt"], b"cannot read /no/such/file.txt"),
        (["privatize", "--epsilon", "1", "--encoding", "klingon"], b"unknown encoding"),
        (["privatize", "--epsilon", "1", "--threads", "0"], b"threads must be >= 1"),
        (["privatize"], b"required: --epsilon"),
        (["packs", "verify", "/no/such/pack"], b"no pack at"),
        (["frobnicate"], b"invalid choice"),
    ],
)
def test_errors_are_one_line_without_traceback(args, message):
    result = run(*args, stdin="hello\n")
    assert result.returncode != 0
    assert result.stderr.count(b"\n") == 1, result.stderr
    assert message in result.stderr
    assert b"Traceback" not in result.stderr


def test_invalid_utf8_is_reported_with_its_offset():
    result = run("privatize", "--epsilon", "1", stdin=b"fine text\n\xff\xfe broken\n")
    assert result.returncode == 1
    assert b"not valid utf-8 at byte 10" in result.stderr
    assert result.stderr.count(b"\n") == 1


def test_other_encodings_are_accepted():
    result = run(
        "privatize",
        "--epsilon",
        "50",
        "--encoding",
        "latin-1",
        stdin="caf\xe9 au lait\n".encode("latin-1"),
    )
    assert result.stdout.decode() == "café au lait\n"


def test_tampered_pack_fails_cleanly(tmp_path):
    pack = tmp_path / "pack"
    import shutil

    shutil.copytree(edgedp.load_pack().path, pack)
    with (pack / "vocab.txt").open("a") as handle:
        handle.write("extra\n")
    result = run("privatize", "--epsilon", "1", "--pack", str(pack), stdin="hello\n")
    assert result.returncode == 1 and b"vocab.txt" in result.stderr
    assert result.stderr.count(b"\n") == 1


def test_packs_commands(tmp_path):
    listed = run("packs", "list")
    assert listed.returncode == 0 and b"words-small\twords" in listed.stdout
    info = run("packs", "info", "words-small")
    assert info.returncode == 0 and b'"vocabulary": 100000' in info.stdout
    verified = run("packs", "verify")
    assert verified.returncode == 0 and b"SHA-256 verified" in verified.stdout


def test_console_script_is_installed():
    script = Path(sys.executable).with_name("edgedp")
    result = subprocess.run(
        [str(script), "privatize", "--epsilon", "50"],
        input=b"the cat\n",
        capture_output=True,
        timeout=120,
    )
    assert result.stdout == b"the cat\n"
