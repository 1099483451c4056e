"""The privacy ledger: limits, atomic charges under concurrency, and no lost or double-counted
charge when processes are killed with SIGKILL at random points."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

import edgedp
from edgedp.errors import BudgetError, InputError
from edgedp.ledger import PrivacyLedger


def test_limits_and_totals(tmp_path):
    ledger = PrivacyLedger(tmp_path / "l.db")
    ledger.set_limit("alice", 1.0, 1e-6)
    ledger.charge("alice", 0.4)
    ledger.charge("alice", 0.6, 1e-6)  # exactly at the limit is allowed
    with pytest.raises(BudgetError, match="nothing was released"):
        ledger.charge("alice", 1e-9)
    assert ledger.spent("alice") == pytest.approx((1.0, 1e-6))
    assert ledger.spent("bob") == (0.0, 0.0) and ledger.limit("bob") is None
    ledger.set_limit("*", 5.0)
    assert ledger.limit("bob") == (5.0, 0.0) and ledger.limit("alice") == (1.0, 1e-6)
    assert len(ledger.history("alice")) == 2


@pytest.mark.parametrize("bad", [(-1.0, 0.0), (float("nan"), 0.0), (1.0, float("inf"))])
def test_bad_charges_are_refused(tmp_path, bad):
    with pytest.raises(InputError):
        PrivacyLedger(tmp_path / "l.db").charge("s", *bad)


def test_a_charge_id_counts_once(tmp_path):
    ledger = PrivacyLedger(tmp_path / "l.db")
    ledger.charge("s", 0.5, charge_id="x")
    with pytest.raises(InputError, match="already recorded"):
        ledger.charge("s", 0.5, charge_id="x")
    assert ledger.spent("s") == (0.5, 0.0)


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
    )
    assert refused.returncode == 1 and b"nothing was released" in refused.stderr
    assert refused.stdout == b""
    shown = subprocess.run(
        [*cli, "ledger", "show", "--ledger", str(ledger_path), "--scope", "me"],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert json.loads(shown.stdout)["spent"]["epsilon"] == pytest.approx(3.0)


WORKER = """
import os, sys, uuid
from edgedp.ledger import PrivacyLedger
from edgedp.errors import BudgetError
ledger = PrivacyLedger(sys.argv[1])
log = open(sys.argv[2], "a")
log.write("ready\\n"); log.flush()
while True:
    charge = uuid.uuid4().hex
    try:
        ledger.charge("shared", 0.001, charge_id=charge)
    except BudgetError:
        log.write("full\\n"); log.flush(); os.fsync(log.fileno()); break
    log.write(charge + "\\n"); log.flush(); os.fsync(log.fileno())
"""


def test_sigkill_during_concurrent_charges_loses_and_duplicates_nothing(tmp_path):
    rounds, workers = 6, 4
    database = tmp_path / "ledger.db"
    ledger = PrivacyLedger(database)
    ledger.set_limit("shared", 1.0)  # 1000 charges of 0.001 fit
    random.seed(0)
    committed: set[str] = set()
    for round_number in range(rounds):
        logs = [tmp_path / f"worker-{round_number}-{i}.log" for i in range(workers)]
        processes = [
            subprocess.Popen([sys.executable, "-c", WORKER, str(database), str(log)])
            for log in logs
        ]
        deadline = time.monotonic() + 120
        while not all(log.exists() and "ready" in log.read_text() for log in logs):
            assert time.monotonic() < deadline, "workers did not start"
            time.sleep(0.02)
        time.sleep(random.uniform(0.05, 0.6))
        for process in processes:
            os.kill(process.pid, signal.SIGKILL)
        for process in processes:
            process.wait(timeout=60)
        for log in logs:
            if log.exists():
                committed |= set(log.read_text().split()) - {"full", "ready"}
    rows = sqlite3.connect(database).execute("SELECT id FROM charges").fetchall()
    recorded = [row[0] for row in rows]
    assert len(recorded) == len(set(recorded))  # nothing counted twice
    assert committed <= set(recorded)  # every charge acknowledged as committed is there
    assert len(recorded) - len(committed) <= rounds * workers  # at most one in flight per kill
    assert ledger.spent("shared")[0] <= 1.0 + 1e-9  # the limit held under concurrency
    assert len(committed) > 50  # the test really exercised concurrent commits


def test_sentence_mechanisms_are_charged_per_document_and_sentence(tmp_path):
    ledger = PrivacyLedger(tmp_path / "l.db")
    sentences = edgedp.load_pack("sentences-bbc")
    deep = ledger.guard(edgedp.DeepCandidate(sentences, epsilon=2.0), "docs")
    deep.embed_batch(["One sentence. Two sentences.", "Another document."])
    assert ledger.spent("docs") == (4.0, 0.0)  # epsilon per document
    adept = edgedp.ADePT(edgedp.load_pack("adept-bbc"), epsilon=50.0, noise="gaussian", delta=1e-6)
    assert adept.privacy_cost(["First. Second.\nThird."]) == pytest.approx((150.0, 3e-6))
    with pytest.raises(InputError, match="NOT private"):
        ledger.guard(edgedp.NonPrivateMean(sentences), "docs").embed("x")
