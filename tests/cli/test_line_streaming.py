"""``edgedp privatize`` as a line filter: each line written to its stdin comes out, flushed, before
the next line is written (issue 34: line 1 came out only when line 2 arrived)."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading

import pytest

LINE_WAIT_S = 60.0  # a cold start loads the pack; the test fails on a line that never comes


def _reader(stream, lines: queue.Queue) -> None:
    for line in iter(stream.readline, b""):
        lines.put(line)
    lines.put(None)


def one_line_at_a_time(arguments: list[str], texts: list[str]) -> list[bytes]:
    """Run ``edgedp ARGUMENTS`` and write ``texts`` one at a time, each only after the output line
    of the one before has come (the pipe stays open in between): the output lines, in order. A line
    that does not come fails the test after LINE_WAIT_S; then the pipe is closed and the command
    must end with status 0."""
    command = [sys.executable, "-m", "edgedp.cli", *arguments]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert process.stdin is not None and process.stdout is not None
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_reader, args=(process.stdout, lines), daemon=True).start()
    outputs = []
    try:
        for text in texts:
            process.stdin.write(text.encode())
            process.stdin.flush()  # the pipe stays open: the next line is not sent yet
            out = lines.get(timeout=LINE_WAIT_S)
            assert out is not None, f"the output ended before the answer to {text!r}"
            outputs.append(out)
        process.stdin.close()
        assert lines.get(timeout=LINE_WAIT_S) is None
        assert process.wait(timeout=LINE_WAIT_S) == 0
    finally:
        process.kill()
    return outputs


@pytest.mark.parametrize("guard", [[], ["--protect", "none"]])
def test_each_line_comes_out_before_the_next_goes_in(guard):
    texts = ["the cat sat on the mat\n", "a dog ran home\n", "\n", "it rained\n"]
    arguments = ["privatize", "--mechanism", "brr", "--epsilon", "50", "--oov", "mask"]
    outputs = one_line_at_a_time([*arguments, "--seed", "3", *guard], texts)
    for text, out in zip(texts, outputs, strict=True):
        # epsilon 50 per bit keeps (nearly) every word: the output is this line's, not a later one's
        assert out.endswith(b"\n") and len(out.split()) == len(text.split())


def test_embed_answers_each_line_of_a_pipe_before_the_next():
    texts = ["The market rose. Banks led.\n", "It rained. We left.\n"]
    arguments = ["embed", "--input", "lines", "--epsilon", "10", "--seed", "3"]
    outputs = one_line_at_a_time(arguments, texts)
    for number, out in enumerate(outputs):
        assert f'"document": {number},'.encode() in out
