"""The guard step: which spans of a text never go through a word mechanism (``--protect``,
``--deny``), and ``privatize --dry-run``, which shows them and releases nothing.

The guard itself is :mod:`edgedp.text.identifiers` (applied by the word mechanism as it splits a
text); this module turns the command line into its settings, once, and writes its report.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from edgedp.errors import InputError
from edgedp.text.guard_report import Finding, guard_findings
from edgedp.text.identifiers import DEFAULT_PROTECT, PROTECT_KINDS
from edgedp.text.segmentation import check_deny

#: A line ``--dry-run`` finds in a language without a pack: it is protected whole.
OTHER_LANGUAGE = "other"

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


def write_findings(
    lines: Iterable[str],
    guard: GuardOptions,
    out: TextIO,
    language_of: Callable[[str], str] | None = None,
) -> str:
    """``--dry-run``: per line, the spans the guard keeps out of the mechanism and why (JSON
    Lines); returns the summary line for stderr (a count per kind). Nothing is released.

    ``language_of(line)``: the language the line would be released in (each line's record then
    names it), ``"other"`` for a line protected whole; ``None``: every line is English.
    """
    from edgedp.languages.lexicon import LANGUAGES

    counts: dict[str, int] = {}
    sentence_start = True
    for number, line in enumerate(lines, start=1):
        language = "en" if language_of is None else language_of(line)
        record: dict[str, object] = {"line": number}
        if language_of is not None:
            record["language"] = language
        if language == OTHER_LANGUAGE:  # replaced whole, without being read
            found: list[Finding] = []
            counts[OTHER_LANGUAGE] = counts.get(OTHER_LANGUAGE, 0) + 1
            sentence_start = True
        else:
            # with its line break, which a release reads too (a full stop ends there)
            found, sentence_start = guard_findings(
                f"{line}\n",
                guard.protect,
                sentence_start=sentence_start,
                deny=guard.deny,
                language=language if language in LANGUAGES else "en",
            )
        for finding in found:
            counts[finding.kind] = counts.get(finding.kind, 0) + 1
        record["protected"] = [dataclasses.asdict(finding) for finding in found]
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
    shown = ", ".join(f"{kind} {count}" for kind, count in sorted(counts.items())) or "nothing"
    return f"edgedp: dry run (--protect {','.join(guard.protect) or 'none'}), nothing released: {shown}"
