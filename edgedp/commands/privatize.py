"""``edgedp privatize``: rewrite text with a word-level mechanism, streaming stdin or a file."""

from __future__ import annotations

import argparse
import codecs
import io
import sys
import warnings
from collections.abc import Iterator
from typing import BinaryIO

from edgedp.errors import InputError, NotPrivateWarning
from edgedp.mechanisms import WORD_MECHANISMS
from edgedp.packs import load_pack
from edgedp.streaming import privatize_stream
from edgedp.text import CASINGS
from edgedp.threads import set_num_threads
from edgedp.validation import check_epsilon
from edgedp.word_mechanism import OOV_POLICIES

NAME = "privatize"
HELP = "privatize text word by word (reads FILE or stdin, writes stdout)"
_READ_BYTES = 1 << 16


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Privatize text with a word-level metric-DP mechanism. One output line per input line; "
        "whitespace and punctuation pass through, every word is resampled."
    )
    parser.add_argument("--mechanism", choices=sorted(WORD_MECHANISMS), default="brr")
    parser.add_argument("--epsilon", required=True, help="privacy parameter (> 0)")
    parser.add_argument("--pack", help="pack directory or bundled pack name (default: bundled)")
    parser.add_argument(
        "--oov",
        choices=OOV_POLICIES,
        default="sample",
        help="out-of-vocabulary tokens (default: sample)",
    )
    parser.add_argument("--casing", choices=CASINGS, default="lower")
    parser.add_argument(
        "--seed", type=int, help="fixed seed: reproducible and NOT private (tests, benchmarks)"
    )
    parser.add_argument("--threads", type=int, help="threads for the nearest-neighbour search")
    parser.add_argument("--encoding", default="utf-8", help="input encoding (default utf-8)")
    parser.add_argument("file", nargs="?", help="input file (default: stdin)")


def parse_epsilon(text: str) -> float:
    """An epsilon from the command line, validated like every other epsilon."""
    try:
        value: object = float(text)
    except ValueError:
        value = text  # check_epsilon reports the type error
    return check_epsilon(value)


def read_pieces(stream: BinaryIO, encoding: str) -> Iterator[str]:
    """Decode ``stream`` incrementally and strictly, in bounded pieces."""
    try:
        decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
    except LookupError:
        raise InputError(f"unknown encoding {encoding!r}") from None
    offset = 0
    while True:
        block = stream.read(_READ_BYTES)
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


def run(args: argparse.Namespace) -> None:
    if args.threads is not None:
        set_num_threads(args.threads)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotPrivateWarning)  # announced once, below
        mechanism = WORD_MECHANISMS[args.mechanism](
            load_pack(args.pack),
            epsilon=parse_epsilon(args.epsilon),
            rng=args.seed,
            oov=args.oov,
            casing=args.casing,
        )
    warn_if_seeded(args.seed)
    out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="")
    try:
        with open_input(args.file) as source:
            for text in privatize_stream(mechanism, read_pieces(source, args.encoding)):
                out.write(text)
        out.flush()
    finally:
        out.detach()
