"""The privacy ledger's throughput: one transaction per event against batches in one transaction.

Tables (every speed with a ratio to a baseline measured in the same run: the rows of a table are
timed in turns, round after round, and a ratio is the median over rounds of the ratio within a
round, so that the drift of a shared machine cancels):

* **what a chat message costs**: the word slots BRR charges per message (vocabulary words the
  identifier guard does not protect; out-of-vocabulary tokens and protected spans cost nothing)
  against all its slots, on the short messages of the ``epsilon`` suite's chat use (Debian
  fortunes under 120 characters), and what 20, 50 and 150 such messages a day cost at epsilon 0.5
  per bit: the figures of the budget-sizing guide.
* **charges per second**: :meth:`~edgedp.PrivacyLedger.charge` (one ``BEGIN IMMEDIATE`` ...
  ``COMMIT`` and one synchronous WAL commit per event; also as edgedp did it before, with a new
  connection per transaction, whose closing checkpoints the WAL) against
  :meth:`~edgedp.PrivacyLedger.charge_each` with batches of 8, 64 and 256 events (one transaction
  and one commit per batch), on a ledger file on the disk the benchmark runs from
  (``synchronous=FULL``: the fsync really happens), with limits in all four windows; on an empty
  scope and on one holding 20,000 earlier events spread over 30 days (a heavy user's month: every
  window's sum reads them).
* **records per second**: BRR on ``words-small`` at epsilon 0.5 privatizing BBC News sentences as
  JSON Lines records do on the command line (batches of about 2,048 characters, each record its
  own release): without a ledger, with one ``charge`` per record (the command line before
  batching), and with one ``charge_each`` per batch (each record still its own event), with the
  default (context) decoding and with ``decode="nearest"`` (where the mechanism is cheapest and
  the ledger's share largest). The ledger's cost includes ``privacy_cost`` (segmenting each record
  to count its slots).

Run: ``python -m bench ledger [--quick]``.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from functools import cache, partial
from pathlib import Path

import numpy as np

import edgedp
from bench.datasets import bbc_documents
from bench.harness import ROOT, Report, threads
from edgedp.privacy.guarantee import DpEvent
from edgedp.privacy.ledger import PrivacyLedger
from edgedp.text.sentences import split_sentences
from edgedp.words.streaming import BATCH_CHARS

EPSILON = 0.5
BATCH_SIZES = (8, 64, 256)
HISTORY_EVENTS = 20_000
DAY = 86_400.0
ONE_BY_ONE = "charge (one event per transaction)"
NO_LEDGER = "no ledger"
#: Record batches per timed call of the records table (each round takes the next ones).
BATCHES_PER_CALL = 4


@cache
def message_event() -> DpEvent:
    """What a 12-word message costs with BRR at :data:`EPSILON`."""
    return DpEvent("brr", edgedp.BRR(edgedp.load_pack(), epsilon=EPSILON).guarantee(), 12)


def in_turns(runs: dict[str, Callable[[int], int]], rounds: int) -> dict[str, list[float]]:
    """Items per second of each run in each round (``run(round)`` returns how many items it
    handled), the runs timed in turns within a round, after one warm-up call each."""
    for run in runs.values():
        run(0)
    rates: dict[str, list[float]] = {label: [] for label in runs}
    for round_number in range(rounds):
        for label, run in runs.items():
            start = time.perf_counter()
            items = run(round_number)
            rates[label].append(items / (time.perf_counter() - start))
    return rates


def summary(rates: dict[str, list[float]], baseline: str) -> dict[str, tuple[float, float]]:
    """(median rate, median over rounds of the rate's ratio to the baseline's in the same round)
    of each run: pairing the rounds cancels the drift of a shared machine."""
    return {
        label: (
            float(np.median(values)),
            float(np.median(np.array(values) / np.array(rates[baseline]))),
        )
        for label, values in rates.items()
    }


def limited_ledger(path: Path, history: int) -> PrivacyLedger:
    """A ledger with limits no run reaches in all four windows and ``history`` earlier events of
    scope ``user`` over the last 30 days (written in one batch per day)."""
    now = time.time()
    days = 30
    per_day = history // days
    for day in range(days if history else 0):
        earlier = PrivacyLedger(path, clock=lambda day=day: now - (days - day - 0.5) * DAY)
        earlier.charge_each("user", [message_event()] * per_day)
    ledger = PrivacyLedger(path)
    for window in ("day", "week", "month", "lifetime"):
        ledger.set_limit("*", 1e12, window=window)
    return ledger


def charge_runs(
    ledger: PrivacyLedger, sizes: tuple[int, ...], per_call: int
) -> dict[str, Callable[[int], int]]:
    """Charging ``per_call`` 12-word messages (a quarter as many one by one: each commits)."""
    event = message_event()

    def one_by_one(_: int) -> int:
        for _ in range(per_call // 4):
            ledger.charge("user", event)
        return per_call // 4

    def reconnecting(_: int) -> int:  # how edgedp charged before it kept its connection
        for _ in range(per_call // 4):
            ledger.close()  # the last connection to a WAL file checkpoints it on closing
            ledger.charge("user", event)
        return per_call // 4

    def batched(size: int, _: int) -> int:
        for _ in range(max(1, per_call // size)):
            ledger.charge_each("user", [event] * size)
        return max(1, per_call // size) * size

    runs: dict[str, Callable[[int], int]] = {
        ONE_BY_ONE: one_by_one,
        "charge, a new connection each (before)": reconnecting,
    }
    for size in sizes:
        runs[f"charge_each, batches of {size}"] = partial(batched, size)
    return runs


def charges(report: Report, directory: Path, quick: bool) -> None:
    sizes = BATCH_SIZES[:2] if quick else BATCH_SIZES
    for history in (0, 200 if quick else HISTORY_EVENTS):
        ledger = limited_ledger(directory / f"charges-{history}.db", history)
        rates = in_turns(charge_runs(ledger, sizes, 64 if quick else 256), 3 if quick else 9)
        for label, (rate, ratio) in summary(rates, ONE_BY_ONE).items():
            report.add(
                table="charges per second",
                earlier_events=history,
                method=label,
                charges_per_s=rate,
                ratio_to_one_by_one=ratio,
            )


def record_batches(quick: bool) -> list[list[str]]:
    """BBC News sentences, grouped as the command line groups records (about BATCH_CHARS each)."""
    sentences = [
        sentence
        for _, text in bbc_documents()[: 4 if quick else 20]
        for sentence in split_sentences(text)
        if sentence.strip()
    ]
    batches: list[list[str]] = [[]]
    size = 0
    for sentence in sentences:
        if size + len(sentence) > BATCH_CHARS and batches[-1]:
            batches.append([])
            size = 0
        batches[-1].append(sentence)
        size += len(sentence)
    return batches


def record_runs(
    brr: edgedp.BRR, ledger: PrivacyLedger, batches: list[list[str]]
) -> dict[str, Callable[[int], int]]:
    """Privatizing the record batches of a round (:data:`BATCHES_PER_CALL` of them, the next ones
    each round) without a ledger, charging each record in its own transaction, and charging each
    batch's records with one charge_each."""

    def chunk(round_number: int) -> list[list[str]]:
        start = round_number * BATCHES_PER_CALL % len(batches)
        return (batches + batches)[start : start + BATCHES_PER_CALL]

    def plain(round_number: int) -> int:
        work = chunk(round_number)
        for batch in work:
            brr.privatize_batch(batch)
        return sum(map(len, work))

    def per_record(round_number: int) -> int:
        work = chunk(round_number)
        for batch in work:
            for text in batch:
                ledger.charge("user", brr.privacy_cost([text]))
            brr.privatize_batch(batch)
        return sum(map(len, work))

    def per_batch(round_number: int) -> int:
        work = chunk(round_number)
        for batch in work:
            ids = ledger.charge_each("user", [brr.privacy_cost([text]) for text in batch])
            brr.privatize_batch([text for text, i in zip(batch, ids, strict=True) if i is not None])
        return sum(map(len, work))

    return {NO_LEDGER: plain, "charge per record": per_record, "charge_each per batch": per_batch}


def records(report: Report, directory: Path, quick: bool) -> None:
    batches = record_batches(quick)
    words = sum(len(sentence.split()) for batch in batches for sentence in batch)
    report.notes.append(
        f"records: {sum(map(len, batches))} BBC News sentences ({words:,} words) in "
        f"{len(batches)} batches of about {BATCH_CHARS:,} characters"
    )
    pack = edgedp.load_pack()
    ledger = limited_ledger(directory / "records.db", 0)
    for decode in ("auto", "nearest"):
        brr = edgedp.BRR(pack, epsilon=EPSILON, decode=decode)
        rates = in_turns(record_runs(brr, ledger, batches), 2 if quick else 15)
        for label, (rate, ratio) in summary(rates, NO_LEDGER).items():
            report.add(
                table="records per second",
                decode=brr.decode,
                ledger=label,
                records_per_s=rate,
                ratio_to_no_ledger=ratio,
            )


def message_costs(report: Report, quick: bool) -> None:
    """What a chat message costs: the word slots BRR charges (vocabulary words the guard does not
    protect) against all slots, on the short messages of the ``epsilon`` suite's chat use, and
    what a day of messages costs at the recommended chat epsilon."""
    from bench.utility.epsilon import chat_messages

    train, _, test, _ = chat_messages(60 if quick else 360)
    messages = train + test
    brr = edgedp.BRR(edgedp.load_pack(), epsilon=EPSILON)
    slots = np.array([len(brr.segment(message).words) for message in messages])
    charged = np.array([brr.units([message]) for message in messages])
    report.add(
        table="what a chat message costs",
        messages=len(messages),
        slots_per_message=float(slots.mean()),
        charged_per_message=float(charged.mean()),
        charged_p90=float(np.percentile(charged, 90)),
        free_share=1 - charged.sum() / slots.sum(),
        epsilon_per_message=EPSILON * float(charged.mean()),
    )
    for per_day in (20, 50, 150):
        day = per_day * EPSILON * float(charged.mean())
        report.add(
            table="what a day of messages costs (BRR, epsilon 0.5 per bit)",
            messages_a_day=per_day,
            epsilon_per_day=day,
            per_week=7 * day,
            per_month=30 * day,
        )


def run(report: Report, *, quick: bool) -> None:
    # The ledger lives where a device keeps it, on disk (not a RAM disk): the commits' fsync is
    # the cost being measured.
    with tempfile.TemporaryDirectory(dir=ROOT / "bench") as scratch, threads(1):
        directory = Path(scratch)
        message_costs(report, quick)
        charges(report, directory, quick)
        records(report, directory, quick)
    report.notes.append(
        "charge: one BEGIN IMMEDIATE transaction and one synchronous (FULL) WAL commit per event; "
        "charge_each: one per batch, each event decided as if charged one after the other"
    )
