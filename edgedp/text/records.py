"""JSON Lines records: the one parser of ``{"text": ...}`` lines (``privatize --input jsonl``,
``embed --input jsonl``, ``packs fit`` samples and export corpora), and what a command does with a
bad one (``--on-error``).

A record is a JSON object with a ``"text"`` string (or, where sentences may be given as they are,
a ``"sentences"`` list of strings); anything else is an :class:`~edgedp.errors.InputError` naming
the line. ``--on-error stop`` (the default) releases and writes every record before the bad one,
then ends with that error; ``--on-error skip`` reports each bad record on one stderr line, releases
the rest, and counts the skipped at the end.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from edgedp.errors import InputError
from edgedp.progress import PROGRAM

#: What a command does with a record it cannot read.
ON_ERROR = ("stop", "skip")


def parse_record(line: str, where: str, *, sentences: bool = False) -> dict[str, Any]:
    """The object of one JSON line, with a ``"text"`` string (or, with ``sentences``, a
    ``"sentences"`` list of strings instead); :class:`InputError` naming ``where`` otherwise."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise InputError(f"{where}: not JSON ({error.msg})") from None
    if isinstance(record, dict):
        found: dict[str, Any] = record
        listed = found.get("sentences")
        if isinstance(found.get("text"), str) or (
            sentences and isinstance(listed, list) and all(isinstance(s, str) for s in listed)
        ):
            return found
    expected = '{"text": "..."} or {"sentences": ["...", ...]}' if sentences else '{"text": "..."}'
    raise InputError(f"{where}: expected an object like {expected}")


class BadRecords:
    """The ``--on-error`` policy of one run. ``stops``: the run ends at the first bad record (after
    releasing the records before it); otherwise :meth:`skip` reports each on one line through
    ``report`` and counts it, and :meth:`summary` gives the count at the end (None if none)."""

    def __init__(self, policy: str, report: Callable[[str], None]) -> None:
        if policy not in ON_ERROR:
            raise InputError(f"--on-error takes {' or '.join(ON_ERROR)}, got {policy!r}")
        self.stops = policy == "stop"
        self.report = report
        self.skipped = 0

    def skip(self, error: InputError) -> None:
        self.skipped += 1
        self.report(f"{PROGRAM}: skipped {error}")

    def summary(self) -> str | None:
        if not self.skipped:
            return None
        return f"{PROGRAM}: {self.skipped} bad record(s) skipped (--on-error skip)"
