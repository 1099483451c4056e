"""The privacy ledger: limits, atomic charges under concurrency, and no lost or double-counted
charge when processes are killed with SIGKILL at random points."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

import edgedp
from edgedp.errors import BudgetError, InputError, LedgerError, PrivacyParameterError
from edgedp.privacy.guarantee import DpEvent, Guarantee
from edgedp.privacy.ledger import PrivacyLedger


def event(epsilon: float, delta: float = 0.0, *, unit: str = "document", count: int = 1):
    """A DP event of ``count`` units of (epsilon, delta) each."""
    guarantee = Guarantee("a test unit", "test neighbours", unit, epsilon, delta)
    return DpEvent("test", guarantee, count)


def test_limits_and_totals(tmp_path):
    ledger = PrivacyLedger(tmp_path / "l.db")
    ledger.set_limit("alice", 1.0, 1e-6)
    ledger.charge("alice", event(0.4))
    ledger.charge("alice", event(0.3, 5e-7, count=2))  # exactly at the limit is allowed
    with pytest.raises(BudgetError, match="nothing was released"):
        ledger.charge("alice", event(1e-9))
    assert ledger.spent("alice") == pytest.approx((1.0, 1e-6))
    assert ledger.spent("bob") == (0.0, 0.0) and ledger.limit("bob") is None
    ledger.set_limit("*", 5.0)
    assert ledger.limit("bob") == (5.0, 0.0) and ledger.limit("alice") == (1.0, 1e-6)
    assert len(ledger.history("alice")) == 2


def test_the_remaining_budget_is_one_call(tmp_path):
    ledger = PrivacyLedger(tmp_path / "l.db")
    assert ledger.remaining("alice") is None  # no limit: unlimited
    ledger.set_limit("alice", 1.0, 1e-6)
    assert ledger.remaining("alice") == (1.0, 1e-6)
    ledger.charge("alice", event(0.4, 2e-7))
    assert ledger.remaining("alice") == pytest.approx((0.6, 8e-7))
    ledger.set_limit("alice", 0.3)  # a limit lowered below what was spent: nothing remains
    assert ledger.remaining("alice") == (0.0, 0.0)


@pytest.mark.parametrize("bad", [(-1.0, 0.0), (float("nan"), 0.0), (1.0, float("inf"))])
def test_bad_events_are_refused(bad):
    with pytest.raises((InputError, PrivacyParameterError)):
        event(*bad)


@pytest.mark.parametrize("bad", ["1", 1.0, None, (1.0, 0.0)])
def test_a_charge_must_be_an_event(tmp_path, bad):
    with pytest.raises(InputError, match="DpEvent"):
        PrivacyLedger(tmp_path / "l.db").charge("s", bad)


@pytest.mark.parametrize(
    "limit", [{"epsilon": "1"}, {"epsilon": 1.0, "delta": "x"}, {"epsilon": 10**400}]
)
def test_bad_limits_are_privacy_parameter_errors(tmp_path, limit):
    with pytest.raises(PrivacyParameterError):
        PrivacyLedger(tmp_path / "l.db").set_limit("s", **limit)


def test_a_charge_id_counts_once(tmp_path):
    ledger = PrivacyLedger(tmp_path / "l.db")
    ledger.charge("s", event(0.5), charge_id="x")
    with pytest.raises(InputError, match="already recorded"):
        ledger.charge("s", event(0.5), charge_id="x")
    assert ledger.spent("s") == (0.5, 0.0)


def test_a_batch_of_charges_is_recorded_whole_or_not_at_all(tmp_path):
    ledger = PrivacyLedger(tmp_path / "ledger.db")
    ledger.set_limit("ann", 2.0)
    ids = ledger.charge_batch([("ann", event(0.5)), ("bob", event(3.0)), ("ann", event(0.5))])
    assert len(set(ids)) == 3
    assert ledger.spent("ann") == (1.0, 0.0) and ledger.spent("bob") == (3.0, 0.0)
    with pytest.raises(BudgetError):  # ann: 1.0 + 0.6 + 0.6 > 2.0, checked over the batch
        ledger.charge_batch([("bob", event(1.0)), ("ann", event(0.6)), ("ann", event(0.6))])
    with pytest.raises(BudgetError, match="in one batch"):
        ledger.charge_batch([("cat", event(0.1)), ("cat", event(0.1, unit="word"))])
    assert ledger.spent("ann") == (1.0, 0.0) and ledger.spent("bob") == (3.0, 0.0)
    assert ledger.unit("cat") is None
    with pytest.raises(InputError, match="DpEvent"):
        ledger.charge_batch([("ann", 0.1)])  # type: ignore[list-item]
    assert ledger.charge_batch([]) == []


def test_history_lists_the_events_of_one_batch_in_the_order_charged(tmp_path):
    # one batch shares one timestamp; its event ids are random, so they cannot order it
    ledger = PrivacyLedger(tmp_path / "l.db")
    ids = ledger.charge_batch([("ann", event(0.1, count=count)) for count in range(1, 21)])
    history = ledger.history("ann")
    assert [item["count"] for item in history] == list(range(1, 21))
    assert [item["id"] for item in history] == ids


def test_a_scope_keeps_the_unit_of_its_first_charge(tmp_path, default_pack):
    ledger = PrivacyLedger(tmp_path / "l.db")
    ledger.guard(edgedp.BRR(default_pack, epsilon=0.5), "alice").privatize("one two")
    assert ledger.unit("alice") == "word:hamming"
    with pytest.raises(BudgetError, match=r"accounts in word:hamming.*nothing was released"):
        ledger.charge("alice", event(0.1, unit="document"))
    assert ledger.spent("alice") == (1.0, 0.0)
    history = ledger.history("alice")
    assert [(row["mechanism"], row["count"], row["epsilon"]) for row in history] == [
        ("brr", 2, 0.5)
    ]


class TestLedgerFiles:
    """Ledger files are private to their owner, and every SQLite failure is a one-line error."""

    def test_files_are_created_0600_whatever_the_umask(self, tmp_path):
        old = os.umask(0)
        try:
            ledger = PrivacyLedger(tmp_path / "l.db")
            ledger.charge("s", event(0.1))
            connection = sqlite3.connect(tmp_path / "l.db")  # keep -wal and -shm alive
            connection.execute("SELECT 1").fetchall()
            modes = {path.name: path.stat().st_mode & 0o777 for path in tmp_path.glob("l.db*")}
            connection.close()
        finally:
            os.umask(old)
        assert modes and set(modes.values()) == {0o600}, modes

    def test_reading_a_missing_ledger_creates_nothing(self, tmp_path):
        with pytest.raises(LedgerError, match="no privacy ledger"):
            PrivacyLedger(tmp_path / "typo.db", create=False)
        assert list(tmp_path.iterdir()) == []

    def test_a_read_only_ledger_refuses_charges_cleanly(self, tmp_path):
        if os.geteuid() == 0:
            # root ignores file modes: make SQLite itself refuse writes instead
            ledger = PrivacyLedger(tmp_path / "l.db")
            original = ledger._connect

            def read_only():
                connection = original()
                connection.execute("PRAGMA query_only = ON")
                return connection

            ledger._connect = read_only
        else:
            PrivacyLedger(tmp_path / "l.db")
            os.chmod(tmp_path / "l.db", 0o400)
            ledger = PrivacyLedger(tmp_path / "l.db")
        with pytest.raises(LedgerError, match="nothing was released"):
            ledger.charge("s", event(0.1))

    def test_a_lock_held_past_the_timeout_is_a_ledger_error(self, tmp_path):
        PrivacyLedger(tmp_path / "l.db")
        holder = sqlite3.connect(tmp_path / "l.db", isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            with pytest.raises(LedgerError, match="locked"):
                PrivacyLedger(tmp_path / "l.db", timeout=0.2).charge("s", event(0.1))
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert PrivacyLedger(tmp_path / "l.db").spent("s") == (0.0, 0.0)

    def test_a_full_disk_is_a_ledger_error_and_records_nothing(self, tmp_path):
        ledger = PrivacyLedger(tmp_path / "l.db")
        original = ledger._connect

        def full():
            connection = original()
            pages = connection.execute("PRAGMA page_count").fetchone()[0]
            connection.execute(f"PRAGMA max_page_count = {pages}")
            return connection

        ledger._connect = full

        def fill() -> None:
            for _ in range(10_000):  # until the last page is full
                ledger.charge("s", event(1e-9))

        with pytest.raises(LedgerError, match="full"):
            fill()
        ledger._connect = original
        recorded = len(ledger.history("s"))
        assert 0 < recorded < 10_000  # the failing charge left nothing behind
        assert ledger.spent("s")[0] == pytest.approx(recorded * 1e-9)

    def test_a_version_1_ledger_is_migrated_to_events(self, tmp_path):
        path = tmp_path / "old.db"
        write_version_1_ledger(path)
        ledger = PrivacyLedger(path)
        assert ledger.spent("u") == (2.0, 0.0) and ledger.limit("u") == (3.0, 0.0)
        assert ledger.unit("u") == "word:hamming"
        assert [row["id"] for row in ledger.history("u")] == ["a", "b"]


def write_version_1_ledger(path) -> None:
    """A ledger as edgedp 0.1 wrote it: bare charges, rollback journal, user_version 0."""
    old = sqlite3.connect(path)
    old.executescript(
        "CREATE TABLE charges (id TEXT PRIMARY KEY, scope TEXT NOT NULL, epsilon REAL NOT "
        "NULL, delta REAL NOT NULL, mechanism TEXT NOT NULL, created REAL NOT NULL);"
        "CREATE TABLE limits (scope TEXT PRIMARY KEY, epsilon REAL NOT NULL, delta REAL NOT "
        "NULL);"
        "INSERT INTO charges VALUES ('a', 'u', 1.5, 0, 'brr', 1.0);"
        "INSERT INTO charges VALUES ('b', 'u', 0.5, 0, 'brr', 2.0);"
        "INSERT INTO limits VALUES ('u', 3.0, 0);"
    )
    old.commit()
    old.close()


OPENER = """
import sys
from edgedp.privacy.ledger import PrivacyLedger
print("ready", flush=True)
for path in sys.stdin:  # one line per round: every worker opens that ledger at once
    try:
        PrivacyLedger(path.strip())
        print("ok", flush=True)
    except Exception as error:
        print(type(error).__name__ + ": " + str(error).replace("\\n", " "), flush=True)
"""


@pytest.mark.parametrize("held", [True, False], ids=["while-one-migrates", "at-one-instant"])
def test_processes_opening_a_version_1_ledger_at_once_wait_for_the_migration(tmp_path, held):
    """Six processes (and the test) open one version-1 ledger at one instant (issue 27: one of
    them failed at once with "database is locked"). The first to switch the file to WAL makes the
    others' switch fail without waiting; they must wait like any other writer. ``held``: the test
    holds the write lock of the version-1 file, as a process in the middle of the switch does,
    while the workers are released (this fails every round before the fix); otherwise the workers
    race among themselves (about 3 % of rounds failed before the fix on a 2-core machine)."""
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", OPENER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        for _ in range(6)
    ]
    try:
        assert [worker.stdout.readline().strip() for worker in workers] == ["ready"] * 6
        for round_number in range(3 if held else 20):
            path = tmp_path / f"old-{round_number}.db"
            write_version_1_ledger(path)
            holder = sqlite3.connect(path, isolation_level=None)
            if held:
                holder.execute("BEGIN IMMEDIATE")
            for worker in workers:  # the barrier: every worker is blocked reading this line
                worker.stdin.write(f"{path}\n")
            for worker in workers:
                worker.stdin.flush()
            if held:
                time.sleep(0.3)
                holder.execute("COMMIT")
            holder.close()
            answers = [worker.stdout.readline().strip() for worker in workers]
            assert answers == ["ok"] * 6, f"round {round_number}: {answers}"
            ledger = PrivacyLedger(path)
            assert [row["id"] for row in ledger.history("u")] == ["a", "b"]  # migrated once
            assert ledger.spent("u") == (2.0, 0.0)
    finally:
        for worker in workers:
            worker.stdin.close()
            worker.wait(timeout=60)


def test_guard_charges_before_releasing_and_refuses_over_budget(tmp_path, default_pack):
    ledger = PrivacyLedger(tmp_path / "l.db")
    ledger.set_limit("u", 3.0)
    brr = ledger.guard(edgedp.BRR(default_pack, epsilon=0.5), "u")
    assert len(brr.privatize("one two three").split()) == 3  # 3 slots x 0.5
    assert ledger.spent("u")[0] == pytest.approx(1.5)
    with pytest.raises(BudgetError):
        brr.privatize_batch(["four five six", "seven"])  # would need 2.0
    assert ledger.spent("u")[0] == pytest.approx(1.5)


def test_cli_charges_the_ledger(tmp_path):
    ledger_path = tmp_path / "l.db"
    cli = [sys.executable, "-m", "edgedp.cli"]
    subprocess.run(
        [*cli, "ledger", "limit", "--ledger", str(ledger_path), "--scope", "me", "--epsilon", "5"],
        check=True,
        capture_output=True,
        timeout=120,
    )
    ok = subprocess.run(
        [*cli, "privatize", "--epsilon", "1", "--ledger", str(ledger_path), "--scope", "me"],
        input=b"one two three\n",
        capture_output=True,
        timeout=120,
    )
    assert ok.returncode == 0 and ok.stdout.count(b" ") == 2
    refused = subprocess.run(
        [*cli, "privatize", "--epsilon", "1", "--ledger", str(ledger_path), "--scope", "me"],
        input=b"one two three\n",
        capture_output=True,
        timeout=120,
    )  # the filter goes on: an empty line for the refused one, and one line saying why
    assert refused.returncode == 0 and b"line 1 not released" in refused.stderr
    assert b"nothing was released" in refused.stderr and refused.stdout == b"\n"
    stop = ["--ledger", str(ledger_path), "--scope", "me", "--on-error", "stop"]
    stopped = subprocess.run(
        [*cli, "privatize", "--epsilon", "1", *stop],
        input=b"one two three\n",
        capture_output=True,
        timeout=120,
    )
    assert stopped.returncode == 1 and b"nothing was released" in stopped.stderr
    assert stopped.stdout == b""
    shown = subprocess.run(
        [*cli, "ledger", "show", "--ledger", str(ledger_path), "--scope", "me", "--json"],
        capture_output=True,
        timeout=120,
        check=True,
    )
    state = json.loads(shown.stdout)
    # one shape: spent and limit are both {"epsilon", "delta"}; the unit is explained
    assert state["spent"] == {"epsilon": pytest.approx(3.0), "delta": 0.0}
    assert state["limit"] == {"epsilon": 5.0, "delta": 0.0}
    assert state["unit"] == "word:hamming" and "epsilon per bit" in state["unit_meaning"]
    assert state["events"] == 1 and "history" not in state
    listed = subprocess.run(
        [*cli, "ledger", "show", "--ledger", str(ledger_path), "--scope", "me", "--events"],
        capture_output=True,
        timeout=120,
        check=True,
    )
    text = listed.stdout.decode()
    assert "unit: word:hamming (metric DP: epsilon per bit of Hamming distance" in text
    assert re.search(
        r"^    \d{4}-\d\d-\d\dT[\d:]+\+00:00  brr: 3 x epsilon 1 \(delta 0\) = 3$", text, re.M
    )


def test_a_new_scope_has_no_limit_and_no_unit(tmp_path):
    from edgedp.cli.ledger import render, report

    state = report(PrivacyLedger(tmp_path / "l.db"), "nobody", events=True)
    assert state == {
        "scope": "nobody",
        "unit": None,
        "unit_meaning": None,
        "spent": {"epsilon": 0.0, "delta": 0.0},
        "limit": None,
        "events": 0,
        "history": [],
    }
    assert "limit: none" in render(state) and "unit: none yet" in render(state)


@pytest.mark.parametrize(
    ("unit", "phrase"),
    [
        ("word:hamming", "epsilon per bit of Hamming distance"),
        ("word:euclidean", "epsilon per unit of Euclidean distance"),
        ("document:dp", "epsilon-DP for any one sentence of each document released"),
        ("sentence:dp", "plain epsilon-DP per sentence rewritten"),
    ],
)
def test_every_accounting_unit_is_explained(unit, phrase):
    from edgedp.privacy.guarantee import unit_meaning

    assert phrase in unit_meaning(unit)


def test_every_connection_runs_in_wal_mode_with_full_sync(tmp_path, monkeypatch):
    """Checked on each connection the ledger opens: the statements it runs (FULL is also the
    default of many SQLite builds, so the effective value alone would not catch a missing
    PRAGMA) and the effective settings."""
    ledger = PrivacyLedger(tmp_path / "l.db")
    connect, opened = sqlite3.connect, ledger._connect
    statements: list[list[str]] = []
    settings = []

    def tracing_connect(*args, **kwargs):
        connection = connect(*args, **kwargs)
        statements.append([])
        connection.set_trace_callback(statements[-1].append)
        return connection

    def checked_connect():
        connection = opened()
        settings.append(
            (
                connection.execute("PRAGMA journal_mode").fetchone()[0],
                connection.execute("PRAGMA synchronous").fetchone()[0],
            )
        )
        return connection

    monkeypatch.setattr(sqlite3, "connect", tracing_connect)
    monkeypatch.setattr(ledger, "_connect", checked_connect)
    ledger.set_limit("s", 1.0)
    ledger.charge("s", event(0.5))
    ledger.spent("s")
    assert settings == [("wal", 2)] * 3  # synchronous 2 is FULL
    assert len(statements) == 3
    for executed in statements:
        normalized = {statement.replace(" ", "").lower() for statement in executed}
        assert {"pragmajournal_mode=wal", "pragmasynchronous=full"} <= normalized
    monkeypatch.undo()
    journal = sqlite3.connect(tmp_path / "l.db").execute("PRAGMA journal_mode").fetchone()[0]
    assert journal == "wal"  # WAL is a property of the file: every other process uses it too


WORKER = """
import os, sys, uuid
from edgedp.privacy.ledger import PrivacyLedger
from edgedp.errors import BudgetError
from edgedp.privacy.guarantee import DpEvent, Guarantee
event = DpEvent("test", Guarantee("a test unit", "test neighbours", "document", 0.001), 1)
ledger = PrivacyLedger(sys.argv[1])
log = open(sys.argv[2], "a")
log.write("ready\\n"); log.flush()
while True:
    charge = uuid.uuid4().hex
    try:
        ledger.charge(sys.argv[3], event, charge_id=charge)
    except BudgetError:
        log.write("full\\n"); log.flush(); os.fsync(log.fileno()); break
    log.write(charge + "\\n"); log.flush(); os.fsync(log.fileno())
"""


def start_workers(database, logs, scope: str) -> list[subprocess.Popen]:
    """One charging process per log file; returns once every one is running."""
    processes = [
        subprocess.Popen([sys.executable, "-c", WORKER, str(database), str(log), scope])
        for log in logs
    ]
    deadline = time.monotonic() + 120
    while not all(log.exists() and "ready" in log.read_text() for log in logs):
        assert time.monotonic() < deadline, "workers did not start"
        time.sleep(0.02)
    return processes


def acknowledged(logs) -> set[str]:
    """The charge ids the workers logged after their commit returned."""
    return {line for log in logs for line in log.read_text().split()} - {"full", "ready"}


def test_sigkill_during_concurrent_charges_loses_and_duplicates_nothing(tmp_path):
    rounds, workers = 6, 4
    # Kill times are random; EDGEDP_LEDGER_SEED replays a failing trial's schedule (the OS
    # scheduling still varies). The seed is printed, so pytest shows it with a failure.
    seed = int(os.environ.get("EDGEDP_LEDGER_SEED") or int.from_bytes(os.urandom(4), "big"))
    print(f"EDGEDP_LEDGER_SEED={seed}")
    schedule = random.Random(seed)
    database = tmp_path / "ledger.db"
    ledger = PrivacyLedger(database)
    # A fresh scope per round, with a limit no round can reach (~2,000 charges/s for <= 0.6 s):
    # every kill lands on a worker that is still charging.
    ledger.set_limit("*", 1000.0)
    committed: set[str] = set()
    for round_number in range(rounds):
        logs = [tmp_path / f"worker-{round_number}-{i}.log" for i in range(workers)]
        processes = start_workers(database, logs, f"round-{round_number}")
        started = time.monotonic()
        kills = sorted((schedule.uniform(0.05, 0.6), i) for i in range(workers))  # staggered
        for at, worker in kills:
            time.sleep(max(0.0, started + at - time.monotonic()))
            assert processes[worker].poll() is None, f"worker {worker} stopped early (seed {seed})"
            os.kill(processes[worker].pid, signal.SIGKILL)
        for process in processes:
            process.wait(timeout=60)
        committed |= acknowledged(logs)
    rows = sqlite3.connect(database).execute("SELECT id FROM events").fetchall()
    recorded = [row[0] for row in rows]
    report = os.environ.get("EDGEDP_LEDGER_REPORT")  # the trust report's statistics
    if report:
        with open(report, "a", encoding="utf-8") as handle:
            handle.write(
                json.dumps(
                    {
                        "seed": seed,
                        "kills": rounds * workers,
                        "committed": len(committed),
                        "recorded": len(recorded),
                        "in_flight": len(set(recorded) - committed),
                        "lost": len(committed - set(recorded)),
                        "duplicated": len(recorded) - len(set(recorded)),
                    }
                )
                + "\n"
            )
    assert len(recorded) == len(set(recorded)), f"counted twice (seed {seed})"
    assert committed <= set(recorded), f"acknowledged charges lost (seed {seed})"
    # at most one charge in flight (committed, not yet logged) per kill
    assert len(recorded) - len(committed) <= rounds * workers, f"seed {seed}"
    assert len(committed) > 50  # the test really exercised concurrent commits


def test_the_limit_holds_under_concurrent_charges(tmp_path):
    database = tmp_path / "ledger.db"
    ledger = PrivacyLedger(database)
    ledger.set_limit("capped", 0.2)  # about 200 charges of 0.001
    logs = [tmp_path / f"worker-{i}.log" for i in range(4)]
    for process in start_workers(database, logs, "capped"):
        assert process.wait(timeout=120) == 0
    assert all("full" in log.read_text() for log in logs)
    spent = ledger.spent("capped")[0]
    assert 0.2 - 0.001 - 1e-9 < spent <= 0.2  # filled, never exceeded
    assert len(ledger.history("capped")) == len(acknowledged(logs))


def test_sentence_mechanisms_are_charged_per_document_and_sentence(tmp_path):
    ledger = PrivacyLedger(tmp_path / "l.db")
    sentences = edgedp.load_pack("sentences-bbc")
    deep = ledger.guard(edgedp.DeepCandidate(sentences, epsilon=2.0), "docs")
    deep.embed_batch(["One sentence. Two sentences.", "Another document. Of two sentences."])
    assert ledger.spent("docs") == (4.0, 0.0)  # epsilon per document
    adept = edgedp.ADePT(edgedp.load_pack("adept-bbc"), epsilon=50.0, noise="gaussian", delta=1e-6)
    cost = adept.privacy_cost(["First. Second.\nThird."])
    assert (cost.count, cost.epsilon, cost.delta) == pytest.approx((3, 150.0, 3e-6))
    assert cost.guarantee.accounting_unit == "sentence:dp"
    with pytest.warns(edgedp.NotPrivateWarning):
        not_private = edgedp.NonPrivateMean(sentences)
    with pytest.raises(InputError, match="NOT private"):
        ledger.guard(not_private, "docs").embed("x")


def test_a_guarantee_states_itself():
    promise = event(0.5, 1e-6, unit="sentence").guarantee
    assert promise.accounting_unit == "sentence:dp"
    statement = promise.statement()
    assert "a test unit" in statement and "test neighbours" in statement
    # delta is additive, not part of the factor: "e^0.5 + 1e-06" read as a factor (issue 26)
    assert "by at most a factor e^0.5, plus an additive delta = 1e-06" in statement
    assert "e^0.5 +" not in statement and statement.endswith("Charged per sentence.")
    hamming = Guarantee("a word", "two words", "word", 0.6, metric="hamming", metric_unit="bit")
    assert "e^(0.6 * d_hamming)" in hamming.statement() and "per bit" in hamming.statement()
    assert hamming.as_dict()["accounting_unit"] == "word:hamming"
    with pytest.raises(InputError):
        Guarantee("a word", "two words", "paragraph", 1.0)
