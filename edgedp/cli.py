"""The ``edgedp`` command line.

    edgedp privatize --mechanism brr --epsilon E [--pack PATH] [--oov POLICY] [--seed N] [FILE]
    edgedp packs list | info PATH | verify PATH

Errors exit with status 1 (2 for usage errors) and one line on stderr; never a traceback unless
``EDGEDP_DEBUG=1`` is set.
"""

from __future__ import annotations

import argparse
import codecs
import io
import json
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import BinaryIO, NoReturn

from edgedp.errors import EdgedpError, InputError, NotPrivateWarning
from edgedp.mechanisms import WORD_MECHANISMS
from edgedp.packs import list_packs, load_pack
from edgedp.streaming import privatize_stream
from edgedp.text import CASINGS
from edgedp.threads import set_num_threads
from edgedp.validation import check_epsilon
from edgedp.word_mechanism import OOV_POLICIES

_READ_CHARS = 1 << 16
EXIT_ERROR, EXIT_USAGE, EXIT_INTERNAL = 1, 2, 70


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors on one line."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="edgedp", description="On-device differential privacy for text.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    privatize = commands.add_parser(
        "privatize",
        help="privatize text word by word (reads FILE or stdin, writes stdout)",
        description="Privatize text with a word-level metric-DP mechanism. One output line per "
        "input line; whitespace and punctuation pass through, every word is resampled.",
    )
    privatize.add_argument("--mechanism", choices=sorted(WORD_MECHANISMS), default="brr")
    privatize.add_argument("--epsilon", required=True, help="privacy parameter (> 0)")
    privatize.add_argument("--pack", help="pack directory or bundled pack name (default: bundled)")
    privatize.add_argument(
        "--oov",
        choices=OOV_POLICIES,
        default="sample",
        help="out-of-vocabulary tokens (default: sample)",
    )
    privatize.add_argument("--casing", choices=CASINGS, default="lower")
    privatize.add_argument(
        "--seed", type=int, help="fixed seed: reproducible and NOT private (tests, benchmarks)"
    )
    privatize.add_argument("--threads", type=int, help="threads for the nearest-neighbour search")
    privatize.add_argument("--encoding", default="utf-8", help="input encoding (default utf-8)")
    privatize.add_argument("file", nargs="?", help="input file (default: stdin)")

    packs = commands.add_parser("packs", help="list, describe and verify asset packs")
    pack_commands = packs.add_subparsers(dest="packs_command", required=True, parser_class=_Parser)
    pack_commands.add_parser("list", help="list the bundled packs and those in $EDGEDP_PACKS")
    for name, text in (
        ("info", "describe a pack"),
        ("verify", "check a pack's files and checksums"),
    ):
        sub = pack_commands.add_parser(name, help=text)
        sub.add_argument("path", nargs="?", help="pack directory or bundled name (default pack)")
    return parser


def _epsilon(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = text  # type: ignore[assignment]  # check_epsilon reports the type error
    return check_epsilon(value)


def _read_pieces(stream: BinaryIO, encoding: str) -> Iterator[str]:
    """Decode ``stream`` incrementally, strictly, in bounded pieces."""
    try:
        decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
    except LookupError:
        raise InputError(f"unknown encoding {encoding!r}") from None
    offset = 0
    while True:
        block = stream.read(_READ_CHARS)
        try:
            text = decoder.decode(block, final=not block)
        except UnicodeDecodeError as error:
            raise InputError(
                f"input is not valid {encoding} at byte {offset + error.start}; convert it "
                "(e.g. iconv) or pass --encoding"
            ) from None
        offset += len(block)
        if text:
            yield text
        if not block:
            return


def _privatize(args: argparse.Namespace) -> None:
    if args.threads is not None:
        set_num_threads(args.threads)
    mechanism_class = WORD_MECHANISMS[args.mechanism]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotPrivateWarning)
        mechanism = mechanism_class(
            load_pack(args.pack),
            epsilon=_epsilon(args.epsilon),
            rng=args.seed,
            oov=args.oov,
            casing=args.casing,
        )
    if not mechanism.is_private:
        print(
            f"edgedp: warning: --seed {args.seed} makes the output reproducible and NOT private",
            file=sys.stderr,
        )
    out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="", write_through=False)
    try:
        source = sys.stdin.buffer if args.file in (None, "-") else _open_input(args.file)
        with source:
            for text in privatize_stream(mechanism, _read_pieces(source, args.encoding)):
                out.write(text)
        out.flush()
    finally:
        out.detach()


def _open_input(path: str) -> BinaryIO:
    try:
        return open(path, "rb")
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror or error}") from None


def _packs(args: argparse.Namespace) -> None:
    if args.packs_command == "list":
        for entry in list_packs():
            print(f"{entry.name}\t{entry.kind}\t{entry.path}")
        return
    pack = load_pack(args.path, verify=True)
    if args.packs_command == "info":
        summary = pack.describe()
        summary["manifest"] = json.loads(json.dumps(pack.manifest.data, default=dict))
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        files = len(pack.manifest.data["files"])
        print(f"ok: {pack.name} ({pack.path}): {files} files, sizes and SHA-256 verified")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``edgedp`` console script; returns the exit status."""
    args = _build_parser().parse_args(argv)
    try:
        if args.command == "privatize":
            _privatize(args)
        else:
            _packs(args)
    except EdgedpError as error:
        print(f"edgedp: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # silence the flush at exit
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # one line, not a traceback (EDGEDP_DEBUG=1 shows it)
        if os.environ.get("EDGEDP_DEBUG"):
            raise
        print(
            f"edgedp: internal error: {type(error).__name__}: {error} "
            "(set EDGEDP_DEBUG=1 for details and please report it)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
    return 0


if __name__ == "__main__":
    sys.exit(main())
