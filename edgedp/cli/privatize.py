"""``edgedp privatize``: rewrite text with a word-level mechanism, streaming stdin or a file.

Input (``--input``): ``text`` (default), streamed in bounded memory, one output line per input line
(whitespace and punctuation pass through); or ``jsonl``, one JSON object per line whose ``"text"``
is privatized and whose other fields are passed through as they are, NOT privatized (an empty
line stays empty).
With ``--ledger``, each line (or record) is its own release and its own charge, whatever a pipe
delivers together. A line the budget refuses is not released: one ``edgedp: line N not released``
line on stderr and an empty line out (a record: the record without its ``"text"``, with an
``"error"`` field), and the filter goes on; ``--on-error stop`` ends the run there instead.
Output: stdout, or ``--output FILE`` (written whole on success; after a bad JSON Lines record or a
refusal under ``--on-error stop``, with exactly the records released before it; nothing on any
other failure).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from edgedp.cli.options import (
    add_ledger_arguments,
    add_seed_argument,
    ledger_charger,
    parse_delta,
    parse_epsilon,
    warn_if_seeded,
)
from edgedp.cli.streams import (
    check_output,
    input_bytes,
    open_input,
    read_lines,
    read_pieces,
    text_output,
)
from edgedp.cli.word_options import (
    add_word_mechanism_arguments,
    build_word_mechanism,
    mechanism_options,
    parse_protect,
    read_deny,
)
from edgedp.errors import (
    BudgetError,
    EdgedpError,
    InputError,
    LedgerError,
    NotPrivateWarning,
    UtilityWarning,
)
from edgedp.progress import PROGRAM, Progress, message
from edgedp.registry import SENTENCE_REWRITERS
from edgedp.runtime.native import set_num_threads
from edgedp.text.guard_report import findings_by_line
from edgedp.text.records import ON_ERROR, BadRecords, parse_record
from edgedp.text.segmentation import batches
from edgedp.words.mechanism import KeptCount, WordMechanism
from edgedp.words.streaming import BATCH_CHARS, privatize_stream

#: ADePT's noises and default pack (edgedp.adept.adept.NOISES / DEFAULT_PACK; test_cli checks).
ADEPT_NOISES = ("laplace", "gaussian")
DEFAULT_ADEPT_PACK = "adept-bbc"
INPUTS = ("text", "jsonl")

NAME = "privatize"
HELP = "privatize text word by word (reads FILE or stdin, writes stdout or --output)"

#: A function from the input's decoded pieces to the released text.
Privatizer = Callable[[Iterator[str]], Iterable[str]]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Privatize text with a word-level metric-DP mechanism (or ADePT, sentence by sentence). "
        "One output line per input line; whitespace and punctuation pass through, every word is "
        "resampled from the public vocabulary."
    )
    parser.epilog = __doc__.split("\n", 2)[2].replace("``", "")
    add_word_mechanism_arguments(parser, epsilon=False, extra_mechanisms=tuple(SENTENCE_REWRITERS))
    parser.add_argument("--epsilon", help="privacy parameter (> 0; required unless --dry-run)")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="release nothing: print, per input line, the spans the guard (--protect) would keep "
        "out of the mechanism and why (JSON Lines), and a count per kind on stderr",
    )
    parser.add_argument("--noise", choices=ADEPT_NOISES, help="adept: noise (default: laplace)")
    parser.add_argument(
        "--delta", help="adept with --noise gaussian (required there): delta in (0, 1)"
    )
    add_seed_argument(parser)
    parser.add_argument(
        "--threads",
        type=int,
        help="threads for the nearest-neighbour search (default: the libraries', one per core)",
    )
    add_ledger_arguments(parser)
    parser.add_argument(
        "--input", choices=INPUTS, default="text", help="input format (default: text)"
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
        help="a line or record the --ledger budget refuses, or (--input jsonl) a record that is "
        'not an object with a "text" string: skip (one stderr line each, the filter goes on: an '
        "empty line or an error record out for a refused one) or stop (what came before it is "
        "released and written, then the run ends) (default: skip)",
    )
    parser.add_argument("--encoding", default="utf-8", help="input encoding (default: utf-8)")
    parser.add_argument("file", nargs="?", help="input file (default: stdin)")


class Release:
    """How one run releases text: ``stream`` privatizes the concatenation of decoded pieces (plain
    text, uncharged); :meth:`batch` a list of separate texts (JSON Lines records). ``charge(texts)``
    (a ledger charge) runs for each line or record on its own before it is released, ``prepare``
    before each batch is privatized, ``after()`` once it is released; ``on_error`` says whether a
    refused charge ends the run (``"stop"``) or only its own line (``"skip"``)."""

    def __init__(
        self,
        mechanism: Any,
        stream: Privatizer,
        *,
        charge: Callable[[list[str]], None] | None = None,
        prepare: Callable[[list[str]], None] | None = None,
        after: Callable[[], None] | None = None,
        on_error: str = "skip",
    ) -> None:
        self.mechanism = mechanism
        self.stream = stream
        self.charge = charge
        self.prepare = prepare
        self.after = after
        self.stops = on_error == "stop"
        self.refused = 0

    def allowed(self, text: str, where: str) -> bool:
        """Charge ``text``'s release: False if the budget refuses it and the run goes on (said on
        stderr); the :class:`BudgetError` is raised under ``--on-error stop``, and a ledger that
        cannot be used (:class:`LedgerError`) always ends the run."""
        if self.charge is None:
            return True
        try:
            self.charge([text])
        except LedgerError:
            raise
        except BudgetError as error:
            if self.stops:
                raise
            self.refused += 1
            message(f"{PROGRAM}: {where} not released: {error}")
            return False
        return True

    def batch(
        self, texts: list[str], wheres: list[str]
    ) -> tuple[list[str | None], BudgetError | None]:
        """The released text of each of ``texts`` (``None``: refused), charged one by one; under
        ``--on-error stop`` the texts before a refusal, and the refusal."""
        allowed: list[bool] = []
        failure = None
        for text, where in zip(texts, wheres, strict=True):
            try:
                allowed.append(self.allowed(text, where))
            except LedgerError:
                raise
            except BudgetError as error:
                failure = error
                break
        kept = [text for text, ok in zip(texts, allowed, strict=False) if ok]
        if self.prepare is not None:
            self.prepare(kept)
        released = iter(self.mechanism.privatize_batch(kept) if kept else ())
        out = [next(released) if ok else None for ok in allowed]
        if self.after is not None:
            self.after()
        return out, failure


def write_privatized(args: argparse.Namespace, release: Release) -> None:
    """FILE (or stdin) privatized to stdout or ``--output``, as UTF-8 (see the module docstring).

    A bad JSON Lines record or a refused charge under ``--on-error stop`` ends the run after every
    record before it is released and written (``--output`` is then kept with exactly those: they
    were charged)."""
    total = input_bytes([args.file])
    failure: EdgedpError | None = None
    bad = BadRecords(args.on_error, message)
    with Progress(NAME, total=total, unit="B") as progress, text_output(args.output) as out:
        if args.input == "jsonl":
            lines = read_lines(args.file, args.encoding, progress)
            try:
                for line in privatize_records(lines, release, bad):
                    out.write(line)
                    if args.output is None:
                        out.flush()
            except (InputError, BudgetError) as error:
                if isinstance(error, LedgerError):
                    raise
                failure = error
        elif release.charge is not None:
            _write_lines(args, release, progress, out)
        else:
            _write_text(args, release, progress, out)
    if bad.summary() is not None:
        message(str(bad.summary()))
    if release.refused:
        message(f"{PROGRAM}: {release.refused} line(s) or record(s) refused by the budget")
    if failure is not None:
        raise failure


def _write_text(
    args: argparse.Namespace, release: Release, progress: Progress, out: TextIO
) -> None:
    with open_input(args.file) as source:
        for text in release.stream(read_pieces(source, args.encoding, progress)):
            out.write(text)
            if args.output is None and text.endswith("\n"):
                out.flush()  # line in, line out: a pipe's reader gets each line at once


def _write_lines(
    args: argparse.Namespace, release: Release, progress: Progress, out: TextIO
) -> None:
    """With a ledger: each line charged and released on its own (a refused one: an empty line)."""
    lines = read_lines(args.file, args.encoding, progress, keep_ends=True)
    for number, line in enumerate(lines, start=1):
        if release.allowed(line, f"line {number}"):
            for text in release.stream(iter([line])):
                out.write(text)
        else:
            out.write(line[len(line.splitlines()[0]) :] if line.strip("\r\n") else line)
        if args.output is None:
            out.flush()


def privatize_records(lines: Iterable[str], release: Release, bad: BadRecords) -> Iterator[str]:
    """JSON Lines in, JSON Lines out: each object's ``"text"`` privatized, its other fields kept.

    Records are gathered into batches of about :data:`~edgedp.words.streaming.BATCH_CHARS`
    characters of text (a batch also closes at a line that ends what a pipe held: see
    :class:`~edgedp.cli.streams.Line`); each record's text is a text of its own (its layout and
    casing too) and its own charge. An empty line stays empty; a record the budget refuses comes
    out without its text, with an ``"error"``. A line that is not an object with a string
    ``"text"`` is skipped (``bad`` skips) or, after the records before it are released and
    yielded, raised as the :class:`InputError` naming it (likewise a refusal under stop).
    """

    def parsed() -> Iterator[tuple[dict[str, Any] | InputError | None, bool, int]]:
        for number, line in enumerate(lines, start=1):
            drained = bool(getattr(line, "drained", False))
            if not line.strip():
                yield None, drained, number
                continue
            try:
                yield parse_record(line, f"line {number}"), drained, number
            except InputError as error:
                if bad.stops:
                    yield error, True, number
                    return
                bad.skip(error)

    for batch in batches(parsed(), limit=BATCH_CHARS, size=_size, closes=drained):
        failure = next((r for r, _, _ in batch if isinstance(r, InputError)), None)
        records = [(r, n) for r, _, n in batch if not isinstance(r, InputError)]
        texts = [(r["text"], f"line {n}") for r, n in records if r is not None]
        released, refusal = release.batch([t for t, _ in texts], [w for _, w in texts])
        outputs = iter(released)
        for record, _ in records:
            if record is None:
                yield "\n"
                continue
            text = next(outputs, _STOPPED)
            if text is _STOPPED:
                break
            if text is None:
                del record["text"]
                record["error"] = "not released: the privacy budget refused it"
            else:
                record["text"] = text
            yield json.dumps(record, ensure_ascii=False) + "\n"
        if refusal is not None:
            raise refusal
        if failure is not None:
            raise failure


#: What a batch gives for the records after a refusal under ``--on-error stop``: nothing.
_STOPPED = object()


def drained(item: tuple[object, bool, int]) -> bool:
    """Whether a (record, drained, line number) item ends what the input held: its batch is
    released now."""
    return item[1]


def _size(item: tuple[dict[str, Any] | InputError | None, bool, int]) -> int:
    record = item[0]
    return len(record["text"]) if isinstance(record, dict) else 0


def _run_sentence_rewriter(args: argparse.Namespace) -> None:
    """ADePT: each line split into sentences, each sentence rewritten; one line out per line in."""
    mechanism_options(args)  # rejects the word mechanisms' flags
    for name in ("oov", "casing", "protect"):
        if getattr(args, name) is not None:
            raise InputError(f"--{name} applies to the word mechanisms, not {args.mechanism}")
    if args.summary:
        raise InputError(f"--summary applies to the word mechanisms, not {args.mechanism}")
    delta = None if args.delta is None else parse_delta(args.delta)
    from edgedp.adept.pack import AutoencoderPack

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotPrivateWarning)  # announced once, below
        mechanism = SENTENCE_REWRITERS[args.mechanism](
            AutoencoderPack.load(args.pack or DEFAULT_ADEPT_PACK),
            epsilon=parse_epsilon(args.epsilon),
            delta=delta,
            noise=args.noise or "laplace",
            rng=args.seed,
        )
    warn_if_seeded(args.seed)
    charge = ledger_charger(args, mechanism)
    from edgedp.adept.adept import privatize_lines

    def stream(pieces: Iterator[str]) -> Iterator[str]:
        return privatize_lines(mechanism, pieces)

    write_privatized(args, Release(mechanism, stream, charge=charge, on_error=args.on_error))


def run(args: argparse.Namespace) -> None:
    check_output(args.output)
    if args.dry_run:
        _dry_run(args)
        return
    if args.epsilon is None:
        raise InputError("the following arguments are required: --epsilon (or --dry-run)")
    if args.threads is not None:
        set_num_threads(args.threads)
    if args.mechanism in SENTENCE_REWRITERS:
        _run_sentence_rewriter(args)
        return
    if args.noise is not None or args.delta is not None:
        raise InputError("--noise and --delta apply to --mechanism adept only")
    mechanism = build_word_mechanism(args, parse_epsilon(args.epsilon), rng=args.seed)
    warn_if_seeded(args.seed)
    kept = mechanism.count_kept() if args.summary else None
    charge = ledger_charger(args, mechanism)
    slots = 0
    warning: list[str | None] = []  # the keep-rate warning, decided before the first batch

    def prepare(batch: list[str]) -> None:
        nonlocal slots
        if not warning:
            from edgedp.evaluation.keep_rate import keep_warning

            # warn if epsilon keeps < 5 % or > 95 % of words: a small Monte Carlo on public
            # words, cached in memory per pack and parameters. Computed before the first batch,
            # whose work then reuses its freed memory (less peak RSS), and printed once that
            # batch is released (not if the ledger refuses it).
            warning.append(keep_warning(mechanism))
        if args.summary:
            slots += mechanism.units(batch)

    def announce() -> None:
        if warning and warning[0] is not None:
            message(f"edgedp: warning: {warning[0]}")
            warning[0] = None

    def stream(pieces: Iterator[str]) -> Iterator[str]:
        for text in privatize_stream(mechanism, pieces, before_release=prepare):
            yield text
            announce()

    release = Release(
        mechanism, stream, charge=charge, prepare=prepare, after=announce, on_error=args.on_error
    )
    with warnings.catch_warnings():  # the library's UtilityWarning: said once above, as a line
        warnings.simplefilter("ignore", UtilityWarning)
        write_privatized(args, release)
    if kept is not None:
        message(summary(mechanism, slots, kept))


def _dry_run(args: argparse.Namespace) -> None:
    """``--dry-run``: the guard's findings per line (:mod:`edgedp.text.guard_report`); no pack is
    loaded and nothing goes through a mechanism."""
    if args.input != "text" or args.mechanism in SENTENCE_REWRITERS:
        raise InputError("--dry-run shows the word guard on --input text")
    protect = parse_protect(args.protect)
    counts: dict[str, int] = {}
    total = input_bytes([args.file])
    with Progress(NAME, total=total, unit="B") as progress, text_output(args.output) as out:
        lines = read_lines(args.file, args.encoding, progress)
        found_lines = findings_by_line(lines, protect, read_deny(args.deny))
        for number, found in enumerate(found_lines, start=1):
            for finding in found:
                counts[finding.kind] = counts.get(finding.kind, 0) + 1
            spans = [dataclasses.asdict(finding) for finding in found]
            out.write(json.dumps({"line": number, "protected": spans}, ensure_ascii=False) + "\n")
    shown = ", ".join(f"{kind} {count}" for kind, count in sorted(counts.items())) or "nothing"
    message(f"edgedp: dry run (--protect {','.join(protect) or 'none'}), nothing released: {shown}")


def summary(mechanism: WordMechanism, slots: int, kept: KeptCount) -> str:
    """What ``--summary`` prints: the release, its guarantee, and what the epsilon did to the text
    released (``kept``: counted as it was released; nothing of it is released)."""
    from edgedp.evaluation.keep_rate import quick_keep

    guarantee = mechanism.guarantee()
    per = f" per {guarantee.metric_unit}" if guarantee.metric_unit else ""
    bound = f"epsilon * d_{guarantee.metric} metric DP" if guarantee.metric else "epsilon-DP"
    guarded = ",".join(sorted(mechanism.protect)) or "none"
    name, epsilon = mechanism.name, f"{mechanism.epsilon:g}"
    decoded = (
        f", decoded with --decode {mechanism.decode} (post-processing: the same guarantee)"
        if mechanism.decoder is not None
        else ""
    )
    average = f"{quick_keep(mechanism).value:.0%}"
    if kept.released:
        measured = (
            f"{kept.unchanged / kept.released:.0%} of the {kept.released:,} vocabulary words of "
            f"this text came back unchanged (the vocabulary average at this epsilon: {average})"
        )
    else:
        measured = f"no vocabulary word went through the mechanism (vocabulary average: {average})"
    return "\n".join(
        [
            f"edgedp: released {slots:,} word slots with {name} at epsilon {epsilon}{per}: "
            f"{bound} for each vocabulary word{decoded}",
            f"edgedp: out-of-vocabulary tokens and protected spans (--protect {guarded}) are "
            "replaced without being read",
            f"edgedp: {measured}; see `edgedp explain --mechanism {name} --epsilon {epsilon}` "
            f"and `edgedp tune --mechanism {name} --keep K`",
        ]
    )
