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


@pytest.mark.parametrize("guard", [[], ["--protect", "none"]])
def test_each_line_comes_out_before_the_next_goes_in(guard):
    command = [sys.executable, "-m", "edgedp.cli", "privatize", "--mechanism", "brr"]
    command += ["--epsilon", "50", "--oov", "mask", "--seed", "3", *guard]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert process.stdin is not None and process.stdout is not None
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_reader, args=(process.stdout, lines), daemon=True).start()
    try:
        for text in ("the cat sat on the mat\n", "a dog ran home\n", "\n", "it rained\n"):
            process.stdin.write(text.encode())
            process.stdin.flush()  # the pipe stays open: the next line is not sent yet
            out = lines.get(timeout=LINE_WAIT_S)
            assert out is not None and out.endswith(b"\n")
            # epsilon 50 per bit keeps (nearly) every word: the output is this line's, not a later one's
            assert len(out.split()) == len(text.split())
        process.stdin.close()
        assert lines.get(timeout=LINE_WAIT_S) is None
        assert process.wait(timeout=LINE_WAIT_S) == 0
    finally:
        process.kill()


def test_embed_answers_each_line_of_a_pipe_before_the_next():
    command = [sys.executable, "-m", "edgedp.cli", "embed", "--input", "lines"]
    command += ["--epsilon", "10", "--seed", "3"]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert process.stdin is not None and process.stdout is not None
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_reader, args=(process.stdout, lines), daemon=True).start()
    try:
        for number, text in enumerate(["The market rose. Banks led.\n", "It rained. We left.\n"]):
            process.stdin.write(text.encode())
            process.stdin.flush()
            out = lines.get(timeout=LINE_WAIT_S)
            assert out is not None and f'"document": {number},'.encode() in out
        process.stdin.close()
        assert lines.get(timeout=LINE_WAIT_S) is None
        assert process.wait(timeout=LINE_WAIT_S) == 0
    finally:
        process.kill()
