"""The edgedp CLI: golden behaviour, streaming, and one-line errors (never a traceback)."""

from __future__ import annotations

import json
import os
import re
import shutil
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
    # identifiers only: the default also hides names and capitalized words ("brown", "Mr.")
    result = run(
        "privatize",
        "--epsilon",
        "50",
        "--oov",
        "mask",
        "--protect",
        "identifiers",
        stdin="The quick brown fox, Mr. Zyxwv, jumps!\n\nover  the dog\n",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode() == "the quick brown fox, mr. [OOV], jumps!\n\nover  the dog\n"
    # the only message: epsilon 50 keeps every word (edgedp.evaluation.keep_rate.keep_warning)
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
    argv = ("privatize", "--epsilon", "1", "--on-error", "stop")
    result = run(*argv, stdin=b"fine text\n\xff\xfe broken\n")
    assert result.returncode == 1
    assert result.stderr.endswith(
        b"edgedp: error: line 2: not valid utf-8 at byte 10; convert it "
        b"(e.g. iconv) or pass --encoding\n"
    )


def test_other_encodings_are_accepted():
    result = run(
        "privatize",
        "--epsilon",
        "50",
        "--encoding",
        "latin-1",
        "--protect",
        "identifiers",  # "au" is also a name (Vietnamese), which the names guard would hold back
        "--language",
        "en",  # French words of the English pack (found as French, the line would be protected)
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
    assert listed.returncode == 0
    lines = listed.stdout.decode().splitlines()
    assert lines[0].split() == ["NAME", "KIND", "ORIGIN", "PATH"]
    assert any(
        line.split()[:4] == ["words-small", "words", "bundled", "(pinned)"] for line in lines
    )
    info = run("packs", "info", "words-small")
    assert info.returncode == 0 and "vocabulary: 100000\n" in info.stdout.decode()
    info_json = run("packs", "info", "words-small", "--json")
    assert json.loads(info_json.stdout)["vocabulary"] == 100000
    verified = run("packs", "verify")
    assert verified.returncode == 0 and b"SHA-256 verified" in verified.stdout
    verified_json = json.loads(run("packs", "verify", "--json").stdout)
    assert verified_json["ok"] is True and verified_json["pinned_by"] == "bundled"


def test_packs_list_shows_what_each_name_finds(tmp_path):
    """EDGEDP_PACKS and the working directory are listed; a name found earlier shadows a later
    pack of that name; an unreadable manifest is listed with its problem, not fatal."""
    extra = tmp_path / "extra"
    extra.mkdir()
    shutil.copytree(edgedp.load_pack().path, extra / "words-small")  # shadowed by the bundled one
    shutil.copytree(edgedp.load_pack().path, extra / "mine")
    (tmp_path / "work" / "broken").mkdir(parents=True)
    (tmp_path / "work" / "broken" / "manifest.json").write_text("{not json")
    env = {**os.environ, "EDGEDP_PACKS": str(extra)}
    result = subprocess.run(
        [sys.executable, "-m", "edgedp.cli", "packs", "list", "--json"],
        capture_output=True, timeout=300, env=env, cwd=tmp_path / "work", check=True,
    )  # fmt: skip
    entries = {(e["name"], e["origin"].split(",")[0]): e for e in json.loads(result.stdout)}
    assert entries["words-small", "EDGEDP_PACKS"]["shadowed"] is True
    assert entries["words-small", "bundled"]["shadowed"] is False
    mine = entries["mine", "EDGEDP_PACKS"]
    assert mine["origin"] == "EDGEDP_PACKS, manifest name 'words-small'" and not mine["shadowed"]
    broken = entries["broken", "working directory"]
    assert broken["kind"] == "?" and "manifest" in broken["problem"]


def test_console_script_is_installed():
    script = Path(sys.executable).with_name("edgedp")
    result = subprocess.run(
        [str(script), "privatize", "--epsilon", "50"],
        input=b"the cat\n",
        capture_output=True,
        timeout=120,
    )
    assert result.stdout == b"the cat\n"


def test_jsonl_records_keep_their_other_fields(default_pack, tmp_path):
    records = [
        {"id": 7, "text": "Patient Jane was admitted.\nShe is fine.", "meta": {"ward": "b"}},
        {"text": "", "id": 8},
        {"id": 9, "text": "über naïve café"},
    ]
    source = tmp_path / "in.jsonl"
    source.write_text(
        "\n".join(json.dumps(record) for record in records[:2]) + "\n\n" + json.dumps(records[2])
    )
    target = tmp_path / "out.jsonl"
    result = run(
        "privatize", "--input", "jsonl", "--epsilon", "0.6", "--output", str(target), str(source)
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == b""
    lines = target.read_text(encoding="utf-8").split("\n")
    assert lines[2] == "" and lines[-1] == ""  # the empty line stays, one line per line
    out = [json.loads(line) for line in lines if line]
    assert [{k: v for k, v in record.items() if k != "text"} for record in out] == [
        {k: v for k, v in record.items() if k != "text"} for record in records
    ]
    assert out[0]["text"].count("\n") == 1 and out[1]["text"] == ""  # each text's layout
    for record in out:
        for token in tokens_of(record["text"]):
            assert token in PASS_THROUGH_PUNCTUATION or token in default_pack.vocabulary


@pytest.mark.parametrize(
    ("line", "expected"),
    [("not json", "line 2: not JSON"), ('{"text": 3}', "line 2: expected an object like")],
)
def test_jsonl_errors_name_the_line(line, expected, tmp_path):
    target = tmp_path / "out.jsonl"
    stdin = '{"text": "fine"}\n' + line + "\n"
    result = run(
        "privatize", "--input", "jsonl", "--epsilon", "1", "--output", str(target),
        "--on-error", "stop", stdin=stdin,
    )  # fmt: skip
    assert result.returncode == 1 and expected in result.stderr.decode()
    # --on-error stop: the record before the bad one was released (and charged),
    # so it is written, and nothing else is left beside the output
    assert len(target.read_text(encoding="utf-8").splitlines()) == 1
    assert list(tmp_path.iterdir()) == [target]


def test_output_to_a_missing_directory_fails_before_reading(tmp_path):
    target = tmp_path / "nowhere" / "out.txt"
    result = run("privatize", "--epsilon", "1", "--output", str(target), str(tmp_path / "absent"))
    assert result.returncode == 1
    assert result.stderr.decode() == (
        f"edgedp: error: --output {target}: the directory {target.parent} does not exist\n"
    )


def test_summary_states_the_release_the_guarantee_and_the_keep_rate():
    result = run(
        "privatize", "--epsilon", "0.6", "--protect", "identifiers,names", "--summary",
        stdin="Patient Jane was admitted on 12 March.\n",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    err = result.stderr.decode()
    # 6 slots ("12 March" is one), 4 through the mechanism: Jane (a name) and the date are not
    assert "released 4 word slots with brr at epsilon 0.6 per bit" in err
    assert "epsilon * d_hamming metric DP" in err and "(--protect identifiers,names)" in err
    # measured on the text released (4 vocabulary words), beside explain's figure
    assert re.search(r"\d+% of the 4 vocabulary words of this text came back unchanged", err)
    assert re.search(r"`edgedp explain`'s words-kept figure at this epsilon, words released "
                     r"alone: \d+%", err)  # fmt: skip
    assert "decoded with --decode context (post-processing: the same guarantee)" in err
    assert "edgedp explain --mechanism brr --epsilon 0.6" in err


def test_progress_only_on_stderr_and_only_when_asked_off_a_terminal(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("a few words of text\n" * 2000)
    quiet = run("privatize", "--epsilon", "50", "--seed", "1", str(source))
    env = {**os.environ, "EDGEDP_PROGRESS": "1"}
    loud = run("privatize", "--epsilon", "50", "--seed", "1", str(source), env=env)
    assert quiet.returncode == loud.returncode == 0
    assert loud.stdout == quiet.stdout  # never on stdout
    assert b"edgedp: privatize:" not in quiet.stderr  # not a terminal, not asked
    size = source.stat().st_size / 1000
    assert f"edgedp: privatize: {size:.1f} kB of {size:.1f} kB (100%)" in loud.stderr.decode()


def test_version_and_info():
    version = run("--version")
    assert version.returncode == 0 and version.stdout.decode() == f"edgedp {edgedp.__version__}\n"
    info = run("info")
    assert info.returncode == 0, info.stderr
    text = info.stdout.decode()
    assert text.startswith(f"edgedp {edgedp.__version__} (")
    assert "dependencies: numpy " in text and "faiss-cpu " in text and "onnxruntime " in text
    assert re.search(r"^words-small +words +bundled \(pinned\)", text, re.MULTILINE)
    report = json.loads(run("info", "--json").stdout)
    assert report["edgedp"] == edgedp.__version__ and report["dependencies"]["numpy"]
    assert {"name": "words-small", "origin": "bundled"} in [
        {key: pack[key] for key in ("name", "origin")} for pack in report["packs"]
    ]
    assert report["platform"] and report["python"]


def test_protect_all_turns_every_guard_on():
    from edgedp.cli.guarding import parse_protect
    from edgedp.text.identifiers import PROTECT_KINDS

    assert parse_protect("all") == parse_protect(",".join(PROTECT_KINDS)) == tuple(PROTECT_KINDS)
    assert parse_protect("none") == ()
