"""``edgedp privatize``: rewrite text with a word-level mechanism, streaming stdin or a file."""

from __future__ import annotations

import argparse
import codecs
import io
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from typing import TYPE_CHECKING, Any, BinaryIO

from edgedp.cli.word_options import (
    add_word_mechanism_arguments,
    build_word_mechanism,
    mechanism_options,
)
from edgedp.errors import InputError, NotPrivateWarning
from edgedp.packs.loading import load_pack
from edgedp.packs.native import set_num_threads
from edgedp.privacy.validation import check_delta, check_epsilon
from edgedp.registry import SENTENCE_REWRITERS
from edgedp.words.streaming import privatize_stream

if TYPE_CHECKING:  # the ledger (sqlite3) and ADePT are imported only when a run needs them
    from edgedp.privacy.ledger import Chargeable

#: ADePT's noises and default pack (edgedp.adept.mechanism.NOISES / DEFAULT_PACK; test_cli checks).
ADEPT_NOISES = ("laplace", "gaussian")
DEFAULT_ADEPT_PACK = "adept-bbc"

NAME = "privatize"
HELP = "privatize text word by word (reads FILE or stdin, writes stdout)"
#: Bytes read at a time; each read is decoded whole (64 kB cost ~0.2 MB more peak RSS, issue 17).
_READ_BYTES = 1 << 14


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Privatize text with a word-level metric-DP mechanism. One output line per input line; "
        "whitespace and punctuation pass through, every word is resampled."
    )
    add_word_mechanism_arguments(parser, extra_mechanisms=tuple(SENTENCE_REWRITERS))
    parser.add_argument("--noise", choices=ADEPT_NOISES, help="adept: noise (default laplace)")
    parser.add_argument("--delta", help="adept with --noise gaussian: delta in (0, 1)")
    parser.add_argument(
        "--seed", type=int, help="fixed seed: reproducible and NOT private (tests, benchmarks)"
    )
    parser.add_argument("--threads", type=int, help="threads for the nearest-neighbour search")
    add_ledger_arguments(parser)
    parser.add_argument("--encoding", default="utf-8", help="input encoding (default utf-8)")
    parser.add_argument("file", nargs="?", help="input file (default: stdin)")


def parse_epsilon(text: str) -> float:
    """An epsilon from the command line, validated like every other epsilon."""
    return check_epsilon(_number(text))


def _number(text: str) -> object:
    """A float if ``text`` reads as one; else the text itself, for the validator to reject."""
    try:
        return float(text)
    except ValueError:
        return text


def text_decoder(encoding: str) -> codecs.IncrementalDecoder:
    """A strict incremental decoder for ``encoding``, which must decode bytes to text.

    Python's codec registry also holds bytes-to-bytes codecs (``base64``, ``hex``, ``zlib``) and
    text-to-text ones (``rot13``); they are refused here, by the registry's own flag.
    """
    try:
        info = codecs.lookup(encoding)
    except (LookupError, TypeError, ValueError):
        raise InputError(f"unknown encoding {encoding!r}") from None
    if not getattr(info, "_is_text_encoding", True):
        raise InputError(
            f"{encoding!r} is not a text encoding (it does not decode bytes to text); use e.g. "
            "utf-8, utf-16 or latin-1"
        )
    return info.incrementaldecoder(errors="strict")


def read_pieces(stream: BinaryIO, encoding: str) -> Iterator[str]:
    """Decode ``stream`` incrementally and strictly, in bounded pieces.

    A byte order mark is honoured by ``utf-16``/``utf-32`` and dropped by every other codec; input that
    ends inside a character (an odd byte count in UTF-16) or that a codec rejects is an
    :class:`InputError` naming the byte offset where known.
    """
    decoder = text_decoder(encoding)
    offset = 0
    first = True
    while True:
        block = stream.read(_READ_BYTES)
        try:
            text = decoder.decode(block, final=not block)
        except UnicodeDecodeError as error:
            raise InputError(
                f"input is not valid {encoding} at byte {offset + error.start}; convert it "
                "(e.g. iconv) or pass --encoding"
            ) from None
        except UnicodeError as error:  # e.g. "UTF-16 stream does not start with BOM"
            raise InputError(
                f"input is not valid {encoding} ({error}); convert it (e.g. iconv) or pass "
                "--encoding"
            ) from None
        offset += len(block)
        if first and text:  # a byte order mark the codec kept (utf-8, utf-16-le ...) is not text
            text, first = text.removeprefix("\ufeff"), False
        if text:
            yield text
        if not block:
            return


def open_input(path: str | None) -> BinaryIO:
    """The binary input stream: stdin for ``None`` or ``-``."""
    if path in (None, "-"):
        return sys.stdin.buffer
    try:
        return open(path, "rb")  # closed by the caller's with-statement
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror or error}") from None


def warn_if_seeded(seed: int | None) -> None:
    if seed is not None:
        print(
            f"edgedp: warning: --seed {seed} makes the output reproducible and NOT private",
            file=sys.stderr,
        )


def write_privatized(
    path: str | None, encoding: str, privatize: Callable[[Iterator[str]], Iterable[str]]
) -> None:
    """Stream FILE (or stdin) through ``privatize`` to stdout, as UTF-8."""
    out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="")
    try:
        with open_input(path) as source:
            for text in privatize(read_pieces(source, encoding)):
                out.write(text)
        out.flush()
    finally:
        out.detach()


def _parse_delta(text: str) -> float:
    return check_delta(_number(text))


def _run_sentence_rewriter(args: argparse.Namespace) -> None:
    """ADePT: each line split into sentences, each sentence rewritten; one line out per line in."""
    mechanism_options(args)  # rejects the word mechanisms' flags
    for name in ("oov", "casing", "protect"):
        if getattr(args, name) is not None:
            raise InputError(f"--{name} applies to the word mechanisms, not {args.mechanism}")
    delta = None if args.delta is None else _parse_delta(args.delta)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotPrivateWarning)  # announced once, below
        mechanism = SENTENCE_REWRITERS[args.mechanism](
            load_pack(args.pack or DEFAULT_ADEPT_PACK, kind="autoencoder"),
            epsilon=parse_epsilon(args.epsilon),
            delta=delta,
            noise=args.noise or "laplace",
            rng=args.seed,
        )
    warn_if_seeded(args.seed)
    charge = ledger_charger(args, mechanism)
    from edgedp.adept.mechanism import privatize_lines

    write_privatized(
        args.file, args.encoding, lambda pieces: privatize_lines(mechanism, pieces, charge)
    )


def run(args: argparse.Namespace) -> None:
    if args.threads is not None:
        set_num_threads(args.threads)
    if args.mechanism in SENTENCE_REWRITERS:
        _run_sentence_rewriter(args)
        return
    if args.noise is not None or args.delta is not None:
        raise InputError("--noise and --delta apply to --mechanism adept only")
    mechanism = build_word_mechanism(args, parse_epsilon(args.epsilon), rng=args.seed)
    warn_if_seeded(args.seed)
    charge = ledger_charger(args, mechanism)

    def privatize(pieces: Iterator[str]) -> Iterator[str]:
        first = next(pieces, None)
        if first is None:  # no input: nothing to warn about
            return
        from edgedp.words.keep_rate import keep_warning

        # once the input reads, warn if epsilon keeps < 5 % or > 95 % of words: a small Monte
        # Carlo on public words, cached in memory per pack and parameters. Computed before the
        # first batch, whose work then reuses its freed memory (issue 17: ~1 MB less peak RSS),
        # and printed once that batch is released (not if the ledger refuses it), as before.
        warning = keep_warning(mechanism)
        released = privatize_stream(mechanism, chain([first], pieces), before_release=charge)
        first_release = next(released, None)
        if first_release is None:
            return
        if warning is not None:
            print(f"edgedp: warning: {warning}", file=sys.stderr)
        yield first_release
        yield from released

    write_privatized(args.file, args.encoding, privatize)


def add_ledger_arguments(parser: argparse.ArgumentParser) -> None:
    """--ledger and --scope: charge every release to a privacy ledger first."""
    parser.add_argument("--ledger", help="privacy ledger file to charge before each release")
    parser.add_argument("--scope", help="ledger scope (user or stream) to charge")


def ledger_charger(
    args: argparse.Namespace, mechanism: Chargeable
) -> Callable[[list[Any]], None] | None:
    """A function charging a batch's cost to the ledger, or None without --ledger."""
    if (args.ledger is None) != (args.scope is None):
        raise InputError("--ledger and --scope go together")
    if args.ledger is None:
        return None
    from edgedp.privacy.ledger import PrivacyLedger

    ledger = PrivacyLedger(args.ledger)

    def charge(batch: list[Any]) -> None:
        ledger.charge(args.scope, mechanism.privacy_cost(batch))

    return charge
