"""``edgedp privatize --input jsonl`` with and without ``--ledger``: records per second, and what
the charges cost.

Every record is its own release and its own charge (the mechanism's ``privacy_cost`` of that
record, charged before it is released). Tables (rows timed in turns, round after round, so that the
machine's drift hits them alike; medians):

* **command line**: BBC News paragraphs as JSON Lines through ``edgedp privatize`` (BRR, epsilon 1,
  its default decoder, one thread) without a ledger and with one (a fresh ledger file each run),
  and the ratio of their speeds.
* **charges alone**: the same records' events charged one transaction each
  (``PrivacyLedger.charge``, what the command line did until 2026-11-29), in one transaction
  (``PrivacyLedger.charge_each``: each event decided as if charged alone, in order; the command
  line's call, once per batch of records through ``edgedp.cli.charging.Charges.charge_each``), and
  one transaction for the list of (scope, event) pairs (``PrivacyLedger.charge_batch``, the corpus
  jobs' call); and what computing the events costs (``privacy_cost``: the records' word slots).

Run: ``python -m bench ledger-throughput [--quick]``.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import edgedp
from bench.datasets import bbc_documents
from bench.harness import Report, threads
from edgedp.cli import main as cli_main

COMMAND = ["privatize", "--epsilon", "1", "--input", "jsonl", "--threads", "1"]


def records(count: int) -> list[str]:
    """``count`` BBC News paragraphs as JSON Lines records."""
    lines: list[str] = []
    for topic, text in bbc_documents():
        for paragraph in text.splitlines():
            if paragraph.strip() and len(lines) < count:
                lines.append(json.dumps({"text": paragraph.strip(), "topic": topic}))
    return lines


def in_turns(runs: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """The median wall seconds of each run, one of each in turn, after a warm-up each."""
    for run in runs.values():
        run()
    times: dict[str, list[float]] = {label: [] for label in runs}
    for _ in range(rounds):
        for label, run in runs.items():
            start = time.perf_counter()
            run()
            times[label].append(time.perf_counter() - start)
    return {label: float(np.median(values)) for label, values in times.items()}


def run(report: Report, *, quick: bool) -> None:
    count = 60 if quick else 600
    lines = records(count)
    characters = sum(len(json.loads(line)["text"]) for line in lines)
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        source = folder / "records.jsonl"
        source.write_text("\n".join(lines) + "\n", encoding="utf-8")
        output = ["--output", str(folder / "out.jsonl"), str(source)]
        ledgers = iter(range(1_000_000))

        def privatize(*options: str) -> None:
            if cli_main([*COMMAND, *options, *output]) != 0:
                raise RuntimeError("edgedp privatize failed (its error is above)")

        def with_ledger() -> None:
            privatize("--ledger", str(folder / f"ledger-{next(ledgers)}.db"), "--scope", "me")

        runs: dict[str, Callable[[], object]] = {
            "without --ledger": privatize,
            "with --ledger (each record its own charge, one transaction per batch)": with_ledger,
        }
        with threads(1):
            timings = in_turns(runs, 2 if quick else 5)
        table = (
            f"edgedp privatize --input jsonl: {count} BBC News paragraphs ({characters:,} chars)"
        )
        base = timings["without --ledger"]
        for label, seconds in timings.items():
            report.add(
                table=table,
                row=label,
                seconds=seconds,
                records_per_s=count / seconds,
                speed_vs_without=base / seconds,
            )
        charges_alone(report, lines, folder, quick)
    report.notes.append(
        "A speed ratio of at least 0.8 is the goal for --ledger; the charges table shows what "
        "one transaction per batch of records saves against one per record."
    )


def charges_alone(report: Report, lines: list[str], folder: Path, quick: bool) -> None:
    brr = edgedp.BRR(edgedp.load_pack(), epsilon=1.0)
    texts = [json.loads(line)["text"] for line in lines]
    events = [brr.privacy_cost([text]) for text in texts]
    counter = iter(range(1_000_000))

    def fresh() -> edgedp.PrivacyLedger:
        return edgedp.PrivacyLedger(folder / f"charges-{next(counter)}.db")

    def each() -> None:
        ledger = fresh()
        for event in events:
            ledger.charge("me", event)

    def each_in_one_transaction() -> None:
        fresh().charge_each("me", events)

    def one_transaction() -> None:
        fresh().charge_batch([("me", event) for event in events])

    runs: dict[str, Callable[[], object]] = {
        "events computed (privacy_cost of each record)": lambda: [
            brr.privacy_cost([text]) for text in texts
        ],
        "charged one transaction each (charge)": each,
        "charged in one transaction, each decided alone (charge_each: the command line's)": (
            each_in_one_transaction
        ),
        "charged in one transaction (charge_batch: the corpus jobs')": one_transaction,
        "a fresh ledger opened (included in both)": fresh,
    }
    timings = in_turns(runs, 2 if quick else 5)
    table = f"the charges of {len(events)} records alone"
    for label, seconds in timings.items():
        report.add(
            table=table, row=label, seconds=seconds, ms_per_record=seconds / len(events) * 1e3
        )
