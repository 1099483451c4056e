"""``edgedp ledger``: limits per rolling day, week and month and over a lifetime, and ``show``,
which says per window what was spent, what remains, how many releases, and what it means."""

from __future__ import annotations

import json
import time

import pytest

from edgedp.cli import main
from edgedp.privacy.guarantee import DpEvent, Guarantee
from edgedp.privacy.ledger import PrivacyLedger

HOUR, DAY = 3600.0, 86_400.0
BRR_GUARANTEE = Guarantee(
    "each vocabulary word", "same layout", "word", 0.5, metric="hamming", metric_unit="bit"
)


def ledger_command(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["ledger", *argv])
    out, err = capsys.readouterr()
    return status or 0, out, err


def brr_history(path) -> None:
    """Alice's messages: 10 words 3 days ago, then 8 and 6 words in the last hour (BRR, 0.5)."""
    now = time.time()
    for age, words in ((3 * DAY, 10), (HOUR, 8), (HOUR / 2, 6)):
        ledger = PrivacyLedger(path, clock=lambda age=age: now - age)
        ledger.charge("alice", DpEvent("brr", BRR_GUARANTEE, words))


def test_limits_per_window_are_set_shown_and_removed(tmp_path, capsys):
    path = str(tmp_path / "l.db")
    status, out, _ = ledger_command(
        capsys, "limit", "--ledger", path, "--scope", "alice", "--per-day", "40",
        "--per-month", "600", "--lifetime", "5000", "--json",
    )  # fmt: skip
    assert status == 0
    state = json.loads(out)
    limits = {window["window"]: window["limit"] for window in state["windows"]}
    assert limits == {
        "day": {"epsilon": 40.0, "delta": 0.0},
        "week": None,
        "month": {"epsilon": 600.0, "delta": 0.0},
        "lifetime": {"epsilon": 5000.0, "delta": 0.0},
    }
    assert state["limit"] == {"epsilon": 5000.0, "delta": 0.0}  # the lifetime's, as before
    argv = ["limit", "--ledger", path, "--scope", "alice", "--per-day", "none"]
    status, out, _ = ledger_command(capsys, *argv, "--per-week", "100,1e-6", "--json")
    limits = {window["window"]: window["limit"] for window in json.loads(out)["windows"]}
    assert limits["day"] is None and limits["week"] == {"epsilon": 100.0, "delta": 1e-6}
    assert PrivacyLedger(path).limits("alice") == {
        "week": (100.0, 1e-6),
        "month": (600.0, 0.0),
        "lifetime": (5000.0, 0.0),
    }
    # the lifetime limit as it always was written
    ledger_command(capsys, "limit", "--ledger", path, "--scope", "bob", "--epsilon", "5")
    assert PrivacyLedger(path).limit("bob") == (5.0, 0.0)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "ledger limit needs a limit: --per-day, --per-week, --per-month or --lifetime"),
        (["--per-day", "lots"], "--per-day takes EPSILON or EPSILON,DELTA or none, got 'lots'"),
        (["--per-week", "1,2,3"], "--per-week takes EPSILON or EPSILON,DELTA or none"),
        (["--per-month", "-1"], "--per-month epsilon must be > 0"),
        (["--lifetime", "5", "--epsilon", "5"], "--epsilon is the lifetime limit: give it or"),
        (["--delta", "1e-6"], "--delta goes with --epsilon"),
    ],
)
def test_bad_limits_are_one_line_errors_and_create_nothing(tmp_path, capsys, argv, message):
    path = tmp_path / "l.db"
    status, out, err = ledger_command(capsys, "limit", "--ledger", str(path), "--scope", "s", *argv)
    assert status == 1 and out == "" and err.startswith(f"edgedp: error: {message}")
    assert err.count("\n") == 1 and not path.exists()


def test_show_says_what_each_window_spent_and_what_it_means(tmp_path, capsys):
    path = tmp_path / "l.db"
    brr_history(path)
    argv = ["limit", "--ledger", str(path), "--scope", "alice", "--per-day", "40"]
    ledger_command(capsys, *argv, "--lifetime", "5000")
    status, out, _ = ledger_command(capsys, "show", "--ledger", str(path), "--scope", "alice")
    assert status == 0
    rows = {line.split("  ")[1].strip(): line.split() for line in out.splitlines()[3:7]}
    # 14 words in the last 24 hours at 0.5 per bit: 7 of 40; 24 words in all: 12 of 5000
    assert rows["the last 24 hours"][-5:] == ["7", "40", "33", "2", "14"]
    assert rows["the last 7 days"][-5:] == ["12", "none", "-", "3", "24"]
    assert rows["all time"][-5:] == ["12", "5000", "4988", "3", "24"]
    assert "window" in out and out.splitlines()[2].endswith("word slots")
    assert "the oldest release of the last 24 hours leaves it at 20" in out
    plain = " ".join(out.split())
    assert (
        "For two versions of a text that differ in one word, whose codes differ in d bits, any "
        "release is at most e^(0.5 d) times likelier for one than for the other" in plain
    )
    assert (
        "The last 24 hours: versions that differ in every one of its 14 word slots, each by at "
        "most d, are at most e^(7 d) apart; the per-day limit keeps this within e^(40 d) over "
        "any 24 hours." in plain
    )
    assert "The last 7 days: versions that differ in every one of its 24 word slots" in plain
    assert "only the lifetime limit bounds all releases together (epsilon 5000)" in plain
    assert "events: 3 (--events lists them)" in out


def test_show_json_has_one_shape_per_scope_and_every_scope_without_scope(tmp_path, capsys):
    path = tmp_path / "l.db"
    brr_history(path)
    PrivacyLedger(path).set_limit("*", 30.0, window="week")
    status, out, _ = ledger_command(capsys, "show", "--ledger", str(path), "--json", "--events")
    assert status == 0
    states = json.loads(out)["scopes"]
    assert [state["scope"] for state in states] == ["*", "alice"]
    alice = states[1]
    assert alice["unit"] == "word:hamming" and alice["events"] == 3 and len(alice["history"]) == 3
    week = alice["windows"][1]
    assert week["limit"] == {"epsilon": 30.0, "delta": 0.0}  # the default scope's
    assert (week["spent"], week["remaining"]) == (
        {"epsilon": 12.0, "delta": 0.0},
        {"epsilon": 18.0, "delta": 0.0},
    )
    assert (week["releases"], week["units"], week["seconds"]) == (3, 24, 7 * DAY)
    assert week["next_expiry"].endswith("+00:00")  # UTC
    assert alice["meaning"][-1].startswith("A window bounds what its releases reveal together")


def test_show_never_creates_a_ledger(tmp_path, capsys):
    path = tmp_path / "typo.db"
    status, _, err = ledger_command(capsys, "show", "--ledger", str(path))
    assert status == 1 and "no privacy ledger" in err and not path.exists()


def test_show_explains_a_unit_it_does_not_know(tmp_path, capsys):
    """A version-1 ledger's charge of an unknown mechanism migrates to the unit ``legacy``."""
    import sqlite3

    path = tmp_path / "old.db"
    old = sqlite3.connect(path)
    old.executescript(
        "CREATE TABLE charges (id TEXT PRIMARY KEY, scope TEXT NOT NULL, epsilon REAL NOT "
        "NULL, delta REAL NOT NULL, mechanism TEXT NOT NULL, created REAL NOT NULL);"
        "INSERT INTO charges VALUES ('a', 'u', 1.5, 0, 'custom', 1.0);"
    )
    old.commit()
    old.close()
    status, out, _ = ledger_command(capsys, "show", "--ledger", str(path))
    assert status == 0 and "unit: legacy (a unit this edgedp does not know" in out
    assert "Spent adds up epsilons in a unit this edgedp does not know" in out
