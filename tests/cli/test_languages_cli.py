"""``privatize --language``: each line released with its language's word pack, found by default."""

from __future__ import annotations

import json
import subprocess
import sys

from edgedp.languages.packs import installed_languages

DUTCH = "tot straks, ik bel je nog\n"  # no Dutch pack: protected whole, never English noise


def run(*args: str, stdin: str = ""):
    return subprocess.run(
        [sys.executable, "-m", "edgedp.cli", "privatize", *args],
        input=stdin.encode(),
        capture_output=True,
        timeout=300,
    )


def test_a_line_in_a_language_without_a_pack_is_protected_whole_and_english_is_released():
    text = "the cat sat on the mat\n" + DUTCH
    result = run("--epsilon", "50", "--oov", "placeholder", "--summary", stdin=text)
    assert result.returncode == 0, result.stderr
    english, dutch = result.stdout.decode().splitlines()
    assert english == "the cat sat on the mat"
    assert set(dutch.replace(",", "").split()) == {"[OTHER-LANGUAGE]"}
    err = result.stderr.decode()
    # the summary counts the six English slots only (a protected line costs nothing)
    assert "released 6 word slots" in err and "packs of the languages found: en" in err


def test_a_fixed_language_is_every_line_s_and_nothing_is_identified():
    result = run("--epsilon", "50", "--oov", "placeholder", "--language", "en", stdin=DUTCH)
    assert result.returncode == 0, result.stderr
    assert "OTHER-LANGUAGE" not in result.stdout.decode()  # English by decree: privatized


def test_dry_run_names_each_line_s_language():
    result = run("--dry-run", stdin="hey maria, call me\n" + DUTCH)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert [record["language"] for record in records] == ["en", "other"]
    assert records[0]["protected"][0]["text"] == "maria" and records[1]["protected"] == []
    assert "other 1" in result.stderr.decode()


def test_language_errors_are_one_line():
    missing = next((code for code in ("es", "de", "ru") if code not in installed_languages()), None)
    cases = [
        (("--language", "xx"), "--language takes auto or one of"),
        (("--language", "es", "--pack", "words-small"), "the pack 'words-small' is in 'en'"),
        (("--mechanism", "adept", "--language", "es"), "--language applies to the word mechanisms"),
    ]
    if missing is not None:
        cases.append((("--language", missing), "is not installed"))
    for args, message in cases:
        result = run("--epsilon", "1", *args, stdin="hello\n")
        err = result.stderr.decode()
        assert result.returncode != 0 and message in err and err.count("\n") == 1, (args, err)


def test_explain_tune_and_calibrate_take_a_language_for_its_pack():
    """``--language es`` is ``--pack words-es`` for the commands about one pack; both, or a
    language without a pack, is a one-line error."""
    language = next((code for code in ("es", "de", "ru") if code in installed_languages()), "en")
    pack = "words-small" if language == "en" else f"words-{language}"
    common = ("--epsilon", "0.55", "--words", "20", "--samples", "4", "--adversary-samples", "4")
    result = subprocess.run(
        [sys.executable, "-m", "edgedp.cli", "explain", "--language", language, *common],
        capture_output=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert f"on pack '{pack}'" in result.stdout.decode()
    needed = {
        "explain": [],
        "tune": ["--keep", "0.5"],
        "calibrate": ["--epsilon", "1", "--from", "brr", "--to", "madlib"],
    }
    for command in ("explain", "tune", "calibrate"):
        both = subprocess.run(
            [
                sys.executable,
                "-m",
                "edgedp.cli",
                command,
                *needed[command],
                "--language",
                "es",
                "--pack",
                "words-small",
            ],
            capture_output=True,
            timeout=300,
        )
        err = both.stderr.decode()
        assert both.returncode != 0 and "not both" in err and err.count("\n") == 1, (command, err)
