"""``edgedp privatize``: rewrite text with a word-level mechanism, streaming stdin or a file.

Input (``--input``): ``text`` (default), streamed in bounded memory, one output line per input line
(whitespace and punctuation pass through); or ``jsonl``, one JSON object per line whose ``"text"``
is privatized and whose other fields are passed through as they are, NOT privatized (an empty
line stays empty).
With ``--ledger``, each line (or record) is its own release and its own charge, whatever a pipe
delivers together. A line the budget refuses is not released: one ``edgedp: line N not released``
line on stderr and an empty line out (a record: the record without its ``"text"``, with an
``"error"`` field), and the filter goes on; ``--on-error stop`` ends the run there instead. A line
that is not valid in ``--encoding`` is skipped the same way (one stderr line naming it; an empty
line out, a record: nothing) or, under ``--on-error stop``, ends the run there.
Output: stdout, or ``--output FILE`` (written whole on success; after a bad line or record or a
refusal under ``--on-error stop``, with exactly the lines or records released before it; nothing
on any other failure).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from edgedp.cli.charging import Charges, LedgerOptions, add_ledger_arguments
from edgedp.cli.guarding import GuardOptions, write_findings
from edgedp.cli.languages import LanguageOptions, add_language_argument
from edgedp.cli.mechanisms import (
    MechanismOptions,
    WordMechanismOptions,
    add_mechanism_arguments,
    add_word_arguments,
    build_mechanism,
)
from edgedp.cli.options import add_seed_argument, parse_epsilon, warn_if_seeded
from edgedp.cli.reading import Reader, input_bytes
from edgedp.cli.releasing import Release, WordRelease
from edgedp.cli.writing import check_output, text_output
from edgedp.errors import EdgedpError, InputError
from edgedp.progress import PROGRAM, Progress, message
from edgedp.registry import SENTENCE_REWRITERS, WORD_MECHANISMS
from edgedp.runtime.native import set_num_threads
from edgedp.text.records import ON_ERROR, BadRecords

INPUTS = ("text", "jsonl")
#: The registries ``--mechanism`` chooses from.
REGISTRIES = (WORD_MECHANISMS, SENTENCE_REWRITERS)

NAME = "privatize"
HELP = "privatize text word by word (reads FILE or stdin, writes stdout or --output)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Privatize text with a word-level metric-DP mechanism (or ADePT, sentence by sentence). "
        "One output line per input line; whitespace and punctuation pass through, every word is "
        "resampled from the public vocabulary."
    )
    parser.epilog = __doc__.split("\n", 2)[2].replace("``", "")
    add_mechanism_arguments(parser, REGISTRIES, default="brr")
    add_word_arguments(parser)
    add_language_argument(parser)
    parser.add_argument("--epsilon", help="privacy parameter (> 0; required unless --dry-run)")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="release nothing: print, per input line, the spans the guard (--protect) would keep "
        "out of the mechanism and why (JSON Lines), and a count per kind on stderr",
    )
    add_seed_argument(parser)
    parser.add_argument(
        "--threads",
        type=int,
        help="threads for the nearest-neighbour search (default: the libraries', one per core)",
    )
    add_ledger_arguments(parser)
    parser.add_argument(
        "--input", choices=INPUTS, default="text", help="input format (default: %(default)s)"
    )
    parser.add_argument("--output", type=Path, help="output file (default: stdout)")
    parser.add_argument(
        "--summary",
        action="store_true",
        help="word mechanisms: then print on stderr what was released, the guarantee, and the "
        "share of words this epsilon keeps unchanged",
    )
    parser.add_argument(
        "--on-error",
        choices=ON_ERROR,
        default="skip",
        help="a line or record the --ledger budget refuses, a line not valid in --encoding, or "
        '(--input jsonl) a record that is not an object with a "text" string: skip (one stderr '
        "line each, the filter goes on: an empty line or an error record out for a refused one) "
        "or stop (what came before it is released and written, then the run ends) "
        "(default: %(default)s)",
    )
    parser.add_argument("--encoding", default="utf-8", help="input encoding (default: %(default)s)")
    parser.add_argument("file", nargs="?", help="input file (default: stdin)")


@dataclass(frozen=True)
class InputOptions:
    """Where the text comes from, in which format and encoding, and what a bad line does."""

    path: str | None
    format: str
    encoding: str
    on_error: str

    def reader(self, progress: Progress) -> Reader:
        return Reader(self.path, self.encoding, progress, bad=BadRecords(self.on_error, message))


@dataclass(frozen=True)
class PrivatizeOptions:
    """Everything a run of ``privatize`` does, read from the command line once (:meth:`from_args`)."""

    source: InputOptions
    output: Path | None
    words: WordMechanismOptions
    language: LanguageOptions
    epsilon: float
    ledger: LedgerOptions | None
    summary: bool
    threads: int | None

    @property
    def rewrites_sentences(self) -> bool:
        """Whether the mechanism rewrites whole sentences (ADePT) rather than words."""
        return self.words.mechanism.name in SENTENCE_REWRITERS

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> PrivatizeOptions:
        if args.epsilon is None:
            raise InputError("the following arguments are required: --epsilon (or --dry-run)")
        if args.mechanism in SENTENCE_REWRITERS:
            MechanismOptions.from_args(args, REGISTRIES)  # another mechanism's flags first
            if args.language != "auto":
                raise InputError(f"--language applies to the word mechanisms, not {args.mechanism}")
            for name in ("oov", "casing", "protect"):
                if getattr(args, name) is not None:
                    raise InputError(
                        f"--{name} applies to the word mechanisms, not {args.mechanism}"
                    )
            if args.summary:
                raise InputError(f"--summary applies to the word mechanisms, not {args.mechanism}")
        words = WordMechanismOptions.from_args(args, REGISTRIES)
        return cls(
            source=InputOptions(args.file, args.input, args.encoding, args.on_error),
            output=args.output,
            words=words,
            language=LanguageOptions.from_args(args),
            epsilon=parse_epsilon(args.epsilon),
            ledger=LedgerOptions.from_args(args),
            summary=args.summary,
            threads=args.threads,
        )


def run(args: argparse.Namespace) -> None:
    check_output(args.output)
    if args.dry_run:
        if args.input != "text" or args.mechanism in SENTENCE_REWRITERS:
            raise InputError("--dry-run shows the word guard on --input text")
        dry_run(
            InputOptions(args.file, args.input, args.encoding, args.on_error),
            GuardOptions.from_args(args),
            args.output,
            LanguageOptions.from_args(args),
            args.pack,
        )
        return
    privatize(PrivatizeOptions.from_args(args))


def privatize(options: PrivatizeOptions) -> None:
    """Read, guard, privatize, decode and write: the guard and the decoder are the word
    mechanism's (built with their options), each line or record charged first with a ledger."""
    if options.threads is not None:
        set_num_threads(options.threads)
    release = _release(options)
    failure: EdgedpError | None = None
    with (
        Progress(NAME, total=input_bytes([options.source.path]), unit="B") as progress,
        text_output(options.output) as out,
    ):
        reader = options.source.reader(progress)
        if options.ledger is None and options.source.format == "text":
            _write_stream(release, reader, out, flush=options.output is None)
        else:
            _write_messages(release, reader, options.source.format, out, options.output is None)
        failure = reader.failure or release.failure
    if options.source.format == "jsonl" and reader.bad is not None and reader.bad.summary():
        message(str(reader.bad.summary()))
    if release.refused:
        message(f"{PROGRAM}: {release.refused} line(s) or record(s) refused by the budget")
    if failure is not None:
        raise failure
    if isinstance(release, WordRelease) and release.kept is not None:
        message(release.summary())


def _release(options: PrivatizeOptions) -> Release:
    """The mechanism (with the guard and decoder) and the ledger step, ready to release."""
    seed = options.words.mechanism.seed
    if options.rewrites_sentences:
        from edgedp.adept.adept import privatize_lines

        chosen = options.words.mechanism
        rewriter = build_mechanism(chosen, SENTENCE_REWRITERS, epsilon=options.epsilon, rng=seed)
        warn_if_seeded(seed)
        charges = None if options.ledger is None else Charges(options.ledger, rewriter)
        return Release(
            rewriter,
            lambda pieces: privatize_lines(rewriter, pieces),
            charges=charges,
            stops=options.source.on_error == "stop",
        )
    mechanism = options.words.build_in(options.language, options.epsilon, rng=seed)
    warn_if_seeded(seed)
    return WordRelease(
        mechanism,
        charges=None if options.ledger is None else Charges(options.ledger, mechanism),
        stops=options.source.on_error == "stop",
        summary=options.summary,
    )


def _write_stream(release: Release, reader: Reader, out: TextIO, *, flush: bool) -> None:
    for text in release.stream(reader.pieces()):
        out.write(text)
        if flush and text.endswith("\n"):
            out.flush()  # line in, line out: a pipe's reader gets each line at once


def _write_messages(
    release: Release, reader: Reader, input_format: str, out: TextIO, flush: bool
) -> None:
    """Each line or record's release (a line refused or skipped: its line break; a record
    refused: the record without its text, with an ``"error"``)."""
    for item, released in release.messages(reader.messages(input_format)):
        if item.record is None:
            out.write(item.ending if released is None else released)
        else:
            record = dict(item.record)
            if released is None:
                del record["text"]
                record["error"] = "not released: the privacy budget refused it"
            else:
                record["text"] = released
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        if flush:
            out.flush()


def dry_run(
    source: InputOptions,
    guard: GuardOptions,
    output: Path | None,
    language: LanguageOptions | None = None,
    pack: str | None = None,
) -> None:
    """``--dry-run``: the guard's findings per line, each line's language (that of ``pack``, or
    found as a release finds it); nothing goes through a mechanism."""
    language = language or LanguageOptions()
    served = tuple(language.packs(pack))
    with (
        Progress(NAME, total=input_bytes([source.path]), unit="B") as progress,
        text_output(output) as out,
    ):
        reader = Reader(source.path, source.encoding, progress)
        found = write_findings(
            reader.lines(), guard, out, lambda line: language.of_line(line, served)
        )
    message(found)
