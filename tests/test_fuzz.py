"""Fuzzing the API and the CLI: arbitrary unicode and bytes, empty input, a 50 MB line, 200,000
short lines, NUL bytes, mixed scripts and emoji. Nothing crashes, memory stays bounded, and no token
outside the public pass-through set reaches the output unless sampled from the vocabulary or drawn
from the public filler emoji."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import REPO_ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import edgedp
from edgedp.cli import main as cli_main
from edgedp.languages.packs import installed_languages, word_pack
from edgedp.text.emoji import filler_emoji
from edgedp.text.segmentation import PASS_THROUGH_PUNCTUATION, segment

ROOT = REPO_ROOT
MIXED = st.text(
    alphabet=st.sampled_from(list("aZ 9,.!\n\t\x00\u00a0é北京😀\u200d\u202e\u0301\ufeffзд€"))
    | st.characters(exclude_categories=["Cs"]),  # lone surrogates: a clean InputError, tested apart
    max_size=300,
)


def assert_public(output: str, *vocabularies) -> None:
    segmented = segment(output.replace(edgedp.OOV_MASK, " "))
    for piece in segmented.pieces:
        if piece is not None and not piece.isspace():
            assert all(char in PASS_THROUGH_PUNCTUATION for char in piece)
    filler = set(filler_emoji())
    assert all(
        any(word in vocabulary for vocabulary in vocabularies) or word in filler
        for word in segmented.words
    )


@pytest.fixture(scope="module")
def served_vocabularies():
    """The vocabularies of every language the command line serves here: a line is released with
    the pack of the language found for it."""
    return [
        edgedp.WordPack.load(word_pack(language)).vocabulary for language in installed_languages()
    ]


@pytest.fixture(scope="module")
def mechanisms(euclid_pack):
    return [
        edgedp.BRR(euclid_pack, epsilon=0.5),
        edgedp.Madlib(euclid_pack, epsilon=2.0, oov="mask"),
        edgedp.Mahalanobis(euclid_pack, epsilon=2.0, oov="drop"),
        edgedp.Vickrey(euclid_pack, epsilon=2.0, t=0.5, casing="sentence"),
        edgedp.Vickrey(euclid_pack, epsilon=0.5, t=0.5, geometry="hamming"),
        edgedp.GeneralizedVickrey(euclid_pack, epsilon=2.0, weights=[1.0, 2.0, 0.5]),
        edgedp.TEM(euclid_pack, epsilon=2.0),
        edgedp.TEM(euclid_pack, epsilon=0.5, geometry="hamming", oov="mask"),
        edgedp.SanText(euclid_pack, epsilon=2.0, oov="drop"),
        edgedp.SanTextPlus(euclid_pack, epsilon=2.0, casing="sentence"),
        edgedp.CusText(euclid_pack, epsilon=2.0, k=5),
    ]


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=MIXED, choice=st.integers(0, 10))
def test_every_word_mechanism_keeps_the_invariant(mechanisms, euclid_pack, text, choice):
    words = " ".join(euclid_pack.vocabulary.words[:3])
    output = mechanisms[choice].privatize(f"{text} {words} {text}")
    assert_public(output.replace(edgedp.OOV_MASK, " ").lower(), euclid_pack.vocabulary)


def run_cli(data: bytes, *args: str) -> tuple[int, bytes, str]:
    stdin, stdout, stderr = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(data))
    sys.stdout = io.TextIOWrapper(io.BytesIO(), write_through=True)
    sys.stderr = io.StringIO()
    try:
        code = cli_main(["privatize", "--epsilon", "0.5", *args])
        return code, sys.stdout.buffer.getvalue(), sys.stderr.getvalue()
    finally:
        sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=2000))
def test_cli_on_arbitrary_bytes(served_vocabularies, data):
    code, out, err = run_cli(data)
    assert code == 0  # a line that is not UTF-8 is skipped (--on-error skip), named on stderr
    assert all(
        line.startswith("edgedp: skipped line ") for line in err.splitlines() if "not valid" in line
    )
    assert_public(out.decode("utf-8"), *served_vocabularies)
    assert out.count(b"\n") == data.decode("utf-8", "surrogateescape").count("\n")


@pytest.mark.parametrize("data", [b"", b"\n", b"\x00\x00\n", b"\xef\xbb\xbfbom\n", b"\r\n\r\n"])
def test_cli_edge_inputs(served_vocabularies, data):
    code, out, _ = run_cli(data)
    assert code == 0
    assert out.count(b"\n") == data.count(b"\n")
    assert_public(out.decode(), *served_vocabularies)


def peak_rss_of_cli(data_path: Path, tmp_path: Path) -> tuple[bytes, float]:
    rss_file = tmp_path / "rss"
    with data_path.open("rb") as stdin:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "bench.performance.peak_rss",
                "-m",
                "edgedp.cli",
                "privatize",
                "--epsilon",
                "0.5",
            ],
            stdin=stdin,
            capture_output=True,
            timeout=600,
            cwd=ROOT,
            env={**os.environ, "EDGEDP_BENCH_RSS_FILE": str(rss_file)},
        )
    assert result.returncode == 0, result.stderr
    return result.stdout, int(rss_file.read_text()) / 1024


def test_a_50_mb_line_streams_in_bounded_memory(tmp_path):
    path = tmp_path / "big.txt"
    with path.open("wb") as handle:
        handle.write(b"start ")
        for _ in range(50):
            handle.write(b"x" * (1 << 20))  # one 50 MiB token, no separator
        handle.write(b" the end\n")
    out, peak_mb = peak_rss_of_cli(path, tmp_path)
    assert len(out.split()) == 4 and out.count(b" ") == 3 and out.endswith(b"\n")
    assert b"xx" not in out
    assert peak_mb < 200  # the 50 MiB line is never held in memory


def test_short_lines_stream_in_memory_that_does_not_grow_with_them(tmp_path):
    peaks = []
    for lines in (20_000, 200_000):
        path = tmp_path / "lines.txt"
        path.write_bytes(b"q7z!\n" * lines)  # one out-of-vocabulary slot per line
        out, peak_mb = peak_rss_of_cli(path, tmp_path)
        released = out.split(b"\n")
        assert len(released) == lines + 1 and released[-1] == b""
        assert all(line.endswith(b"!") and b"q7z" not in line for line in released[:-1])
        peaks.append(peak_mb)
    # 180,000 more lines: 20 bytes kept per line would add 3.4 MB (the peaks differ by ~0.2 MB)
    assert peaks[1] - peaks[0] < 3.0, peaks
    assert peaks[1] < 200


def test_atheris_harness():
    pytest.importorskip("atheris")
    # -rss_limit_mb=0: libFuzzer reads ru_maxrss, which a child inherits from its parent's peak
    # (this pytest process); memory bounds are measured with VmHWM in the tests above.
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tests" / "fuzz" / "fuzz_privatize.py"),
            "-runs=3000",
            "-max_len=2048",
            "-seed=1",
            "-rss_limit_mb=0",
        ],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Done 3000 runs" in result.stderr


@pytest.fixture(scope="module")
def sentence_mechanisms():
    sentences = edgedp.load_pack("sentences-bbc")
    return (
        edgedp.DeepCandidate(sentences, epsilon=3.0),
        edgedp.Truncation(sentences, epsilon=3.0),
        edgedp.ADePT(edgedp.load_pack("adept-bbc"), epsilon=100.0),
    )


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=MIXED)
@pytest.mark.filterwarnings("ignore::edgedp.errors.ShortDocumentWarning")  # most texts are short
def test_sentence_mechanisms_on_arbitrary_unicode(sentence_mechanisms, text):
    deep, truncation, adept = sentence_mechanisms
    release = deep.release(text)
    assert 0 <= release.index < len(deep.pack.candidates)
    embedding = truncation.embed(text)
    assert embedding.shape == (truncation.pack.dims,) and bool(np.isfinite(embedding).all())
    assert adept.privatize(text).count("\n") == text.count("\n")  # one line out per line in


@settings(max_examples=30, deadline=None)
@given(data=st.binary(max_size=1500))
def test_embed_cli_on_arbitrary_bytes(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("embed") / "document.txt"
    path.write_bytes(data)
    out, err = io.TextIOWrapper(io.BytesIO(), write_through=True), io.StringIO()
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = cli_main(["embed", "--epsilon", "3", "--input", "lines", str(path)])
    finally:
        sys.stdout, sys.stderr = stdout, stderr
    assert code in (0, 1), err.getvalue()
    if code == 1:
        assert err.getvalue().count("\n") == 1 and "Traceback" not in err.getvalue()
    else:
        records = out.buffer.getvalue().decode().splitlines()
        assert len(records) == len(data.decode("utf-8").splitlines())
