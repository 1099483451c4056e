"""The guard step: which spans of a text never go through a word mechanism (``--protect``,
``--deny``), and ``privatize --dry-run``, which shows them and releases nothing.

The guard itself is :mod:`edgedp.text.identifiers` (applied by the word mechanism as it splits a
text); this module turns the command line into its settings, once, and writes its report.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from edgedp.errors import InputError
from edgedp.text.guard_report import findings_by_line
from edgedp.text.identifiers import DEFAULT_PROTECT, PROTECT_KINDS
from edgedp.text.segmentation import check_deny

PROTECT_HELP = (
    "identifier guard: comma-separated kinds released like out-of-vocabulary tokens, never "
    f"through the mechanism ({', '.join(PROTECT_KINDS)}), 'all' or 'none' "
    f"(default: {','.join(DEFAULT_PROTECT)})"
)


@dataclass(frozen=True)
class GuardOptions:
    """What the guard protects: the kinds of :mod:`edgedp.text.identifiers`, and a deny-list."""

    protect: tuple[str, ...] = DEFAULT_PROTECT
    deny: frozenset[str] = frozenset()

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> GuardOptions:
        """``--protect`` and ``--deny`` read and checked (the deny-list file is read now)."""
        return cls(parse_protect(args.protect), read_deny(args.deny))

    def keywords(self) -> dict[str, object]:
        """The word mechanism's keyword arguments for this guard."""
        return {"protect": self.protect, "deny": self.deny}


def add_guard_arguments(parser: argparse.ArgumentParser) -> None:
    """--protect and --deny."""
    parser.add_argument("--protect", help="word mechanisms: " + PROTECT_HELP)
    parser.add_argument(
        "--deny",
        metavar="FILE",
        help="word mechanisms: a file of words always protected, one a line (e.g. an app's "
        "contact names; '#' lines are comments), whatever --protect says (default: none)",
    )


def read_deny(path: str | None) -> frozenset[str]:
    """The deny-list file of ``--deny`` (one word a line, ``#`` comments) as normalized words."""
    if path is None:
        return frozenset()
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"--deny {path}: cannot read it ({error})") from None
    terms = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    try:
        return check_deny(terms)
    except InputError as error:
        raise InputError(f"--deny {path}: {error}") from None


def parse_protect(text: str | None) -> tuple[str, ...]:
    """``--protect`` as a tuple of kinds (``none`` is the empty tuple, ``all`` every kind)."""
    if text is None:
        return DEFAULT_PROTECT
    if text.strip().lower() == "none":
        return ()
    if text.strip().lower() == "all":
        return tuple(PROTECT_KINDS)
    kinds = tuple(item.strip() for item in text.split(",") if item.strip())
    unknown = [kind for kind in kinds if kind not in PROTECT_KINDS]
    if unknown or not kinds:
        raise InputError(
            f"--protect takes {', '.join(PROTECT_KINDS)} (comma-separated), all or none, got "
            f"{text!r}"
        )
    return kinds


def write_findings(lines: Iterable[str], guard: GuardOptions, out: TextIO) -> str:
    """``--dry-run``: per line, the spans the guard keeps out of the mechanism and why (JSON
    Lines); returns the summary line for stderr (a count per kind). Nothing is released."""
    counts: dict[str, int] = {}
    for number, found in enumerate(findings_by_line(lines, guard.protect, guard.deny), start=1):
        for finding in found:
            counts[finding.kind] = counts.get(finding.kind, 0) + 1
        spans = [dataclasses.asdict(finding) for finding in found]
        out.write(json.dumps({"line": number, "protected": spans}, ensure_ascii=False) + "\n")
    shown = ", ".join(f"{kind} {count}" for kind, count in sorted(counts.items())) or "nothing"
    return f"edgedp: dry run (--protect {','.join(guard.protect) or 'none'}), nothing released: {shown}"
