"""The progress reporter: stderr only, on a terminal after a delay, off a terminal only when asked."""

from __future__ import annotations

import io

import pytest

from edgedp.progress import DELAY_SECONDS, LOG_SECONDS, Progress, format_amount, message, track


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_sees_nothing_before_the_delay_then_one_line_redrawn(monkeypatch):
    monkeypatch.delenv("EDGEDP_PROGRESS", raising=False)
    clock, screen = Clock(), Terminal()
    with Progress("privatize", total=4_000_000, unit="B", stream=screen, clock=clock) as progress:
        progress.update(1_000_000)
        clock.now += DELAY_SECONDS / 2
        progress.update(1_000_000)
        assert screen.getvalue() == ""  # a fast command prints nothing
        clock.now += DELAY_SECONDS
        progress.update(1_000_000)
        assert screen.getvalue() == (
            "\redgedp: privatize: 3.0 MB of 4.0 MB (75%), 1.0 MB/s, 1 s left\x1b[K"
        )
        progress.update(1_000_000)  # too soon to redraw
        assert screen.getvalue().count("\r") == 1
    # the last state stays, then a line break
    assert screen.getvalue().endswith(
        "edgedp: privatize: 4.0 MB of 4.0 MB (100%), 1.3 MB/s\x1b[K\n"
    )


def test_a_fast_command_on_a_terminal_prints_nothing_at_all(monkeypatch):
    monkeypatch.delenv("EDGEDP_PROGRESS", raising=False)
    clock, screen = Clock(), Terminal()
    with Progress("embed", unit="documents", stream=screen, clock=clock) as progress:
        progress.update(3)
    assert screen.getvalue() == ""


def test_off_a_terminal_nothing_unless_asked(monkeypatch):
    monkeypatch.delenv("EDGEDP_PROGRESS", raising=False)
    clock, log = Clock(), io.StringIO()
    with Progress("embed", unit="documents", stream=log, clock=clock) as progress:
        clock.now += 60
        progress.update(10)
    assert log.getvalue() == ""

    monkeypatch.setenv("EDGEDP_PROGRESS", "1")
    with Progress("embed", unit="documents", stream=log, clock=clock) as progress:
        clock.now += 1
        progress.update(10)  # asked: shown from the start, as whole lines
        clock.now += 1
        progress.update(10)  # within LOG_SECONDS: not shown
        clock.now += LOG_SECONDS
        progress.update(10)
    assert log.getvalue().splitlines() == [
        "edgedp: embed: 10 documents, 10 documents/s",
        "edgedp: embed: 30 documents, 4 documents/s",
    ]


def test_zero_turns_it_off_even_on_a_terminal(monkeypatch):
    monkeypatch.setenv("EDGEDP_PROGRESS", "0")
    clock, screen = Clock(), Terminal()
    with Progress("verify", stream=screen, clock=clock) as progress:
        clock.now += 60
        progress.update()
    assert screen.getvalue() == ""


def test_an_error_ends_the_line_so_the_message_starts_its_own(monkeypatch):
    monkeypatch.delenv("EDGEDP_PROGRESS", raising=False)
    clock, screen = Clock(), Terminal()
    progress = Progress("embed", stream=screen, clock=clock)

    def fail() -> None:
        with progress:
            clock.now += 10
            progress.update()
            raise KeyError

    with pytest.raises(KeyError):
        fail()
    assert screen.getvalue().endswith("\x1b[K\n")
    assert screen.getvalue().count("\r") == 1  # no final redraw after the error


def test_message_goes_below_the_progress_line(monkeypatch, capsys):
    monkeypatch.delenv("EDGEDP_PROGRESS", raising=False)
    clock, screen = Clock(), Terminal()
    with Progress("privatize", stream=screen, clock=clock) as progress:
        clock.now += 10
        progress.update()
        message("edgedp: warning: something")
        assert screen.getvalue().endswith("\x1b[K\n")
    assert capsys.readouterr().err == "edgedp: warning: something\n"


def test_track_counts_items_or_their_sizes(monkeypatch):
    monkeypatch.setenv("EDGEDP_PROGRESS", "1")
    assert list(track(["ab", "cde"], "read", unit="B", size=len)) == ["ab", "cde"]


def test_amounts():
    assert format_amount(999, "B") == "999 B"
    assert format_amount(1_500, "B") == "1.5 kB"
    assert format_amount(2_500_000_000, "B") == "2.5 GB"
    assert format_amount(12_345, "documents") == "12,345 documents"
    assert format_amount(7, "") == "7"
    assert format_amount(0.25, "epsilons") == "0.25 epsilons"  # a slow rate is not "0"


def test_a_reporter_moves_the_progress_to_done_of_total(monkeypatch):
    # explain, tune and the mechanisms' set-ups report (done, total) through a callback
    monkeypatch.setenv("EDGEDP_PROGRESS", "1")
    clock, log = Clock(), io.StringIO()
    with Progress("tune", unit="epsilons", stream=log, clock=clock) as progress:
        report = progress.reporter()
        clock.now += 1
        report(1, 8)
        clock.now += LOG_SECONDS
        report(3, 6)  # the total can change as the work learns more
    assert log.getvalue().splitlines() == [
        "edgedp: tune: 1 epsilons of 8 epsilons (12%), 1 epsilons/s, 7 s left",
        "edgedp: tune: 3 epsilons of 6 epsilons (50%), 0.5 epsilons/s, 6 s left",
    ]
