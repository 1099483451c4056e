"""``edgedp privatize``: rewrite text with a word-level mechanism, streaming stdin or a file."""

from __future__ import annotations

import argparse
import codecs
import io
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, BinaryIO

from edgedp.errors import InputError, NotPrivateWarning
from edgedp.mechanisms import SENTENCE_REWRITERS, WORD_MECHANISMS
from edgedp.native import set_num_threads
from edgedp.packs import load_pack
from edgedp.text import CASINGS
from edgedp.validation import check_delta, check_epsilon
from edgedp.words.mechanism import OOV_POLICIES
from edgedp.words.streaming import privatize_stream
from edgedp.words.vickrey import SPACES

if TYPE_CHECKING:  # the ledger (sqlite3) and ADePT are imported only when a run needs them
    from edgedp.ledger import Chargeable

#: ADePT's noises and default pack (edgedp.adept.mechanism.NOISES / DEFAULT_PACK; test_cli checks).
ADEPT_NOISES = ("laplace", "gaussian")
DEFAULT_ADEPT_PACK = "adept-bbc"

NAME = "privatize"
HELP = "privatize text word by word (reads FILE or stdin, writes stdout)"
_READ_BYTES = 1 << 16


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Privatize text with a word-level metric-DP mechanism. One output line per input line; "
        "whitespace and punctuation pass through, every word is resampled."
    )
    parser.add_argument(
        "--mechanism", choices=sorted([*WORD_MECHANISMS, *SENTENCE_REWRITERS]), default="brr"
    )
    parser.add_argument("--noise", choices=ADEPT_NOISES, help="adept: noise (default laplace)")
    parser.add_argument("--delta", help="adept with --noise gaussian: delta in (0, 1)")
    parser.add_argument("--epsilon", required=True, help="privacy parameter (> 0)")
    parser.add_argument("--lam", type=float, help="mahalanobis: regularization lambda in [0, 1]")
    parser.add_argument("--t", type=float, help="vickrey: tuning parameter t in [0, 1]")
    parser.add_argument("--weights", help="generalized-vickrey: t_1,...,t_k (comma-separated)")
    parser.add_argument("--space", choices=SPACES, help="vickrey mechanisms: euclidean or hamming")
    parser.add_argument("--pack", help="pack directory or bundled pack name (default: bundled)")
    parser.add_argument(
        "--oov",
        choices=OOV_POLICIES,
        help="word mechanisms: out-of-vocabulary tokens (default: sample)",
    )
    parser.add_argument("--casing", choices=CASINGS, help="word mechanisms (default: lower)")
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
    _mechanism_options(args)  # rejects the word mechanisms' flags
    for name in ("oov", "casing"):
        if getattr(args, name) is not None:
            raise InputError(f"--{name} applies to the word mechanisms, not {args.mechanism}")
    delta = None if args.delta is None else _parse_delta(args.delta)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotPrivateWarning)  # announced once, below
        mechanism = SENTENCE_REWRITERS[args.mechanism](
            load_pack(args.pack or DEFAULT_ADEPT_PACK),
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


#: The mechanism-specific flags each word mechanism accepts.
MECHANISM_OPTIONS = {
    "mahalanobis": ("lam",),
    "vickrey": ("t", "space"),
    "generalized-vickrey": ("weights", "space"),
}


def _mechanism_options(args: argparse.Namespace) -> dict[str, object]:
    allowed = MECHANISM_OPTIONS.get(args.mechanism, ())
    options: dict[str, object] = {}
    for name in ("lam", "t", "weights", "space"):
        value = getattr(args, name)
        if value is None:
            continue
        if name not in allowed:
            raise InputError(f"--{name} does not apply to --mechanism {args.mechanism}")
        options[name] = _parse_weights(value) if name == "weights" else value
    if args.mechanism == "generalized-vickrey" and "weights" not in options:
        raise InputError("--mechanism generalized-vickrey needs --weights t1,...,tk")
    return options


def _parse_weights(text: str) -> list[float]:
    try:
        return [float(item) for item in text.split(",")]
    except ValueError:
        raise InputError(f"--weights must be comma-separated numbers, got {text!r}") from None


def run(args: argparse.Namespace) -> None:
    if args.threads is not None:
        set_num_threads(args.threads)
    if args.mechanism in SENTENCE_REWRITERS:
        _run_sentence_rewriter(args)
        return
    if args.noise is not None or args.delta is not None:
        raise InputError("--noise and --delta apply to --mechanism adept only")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotPrivateWarning)  # announced once, below
        mechanism = WORD_MECHANISMS[args.mechanism](
            load_pack(args.pack),
            epsilon=parse_epsilon(args.epsilon),
            rng=args.seed,
            oov=args.oov or "sample",
            casing=args.casing or "lower",
            **_mechanism_options(args),
        )
    warn_if_seeded(args.seed)
    charge = ledger_charger(args, mechanism)
    write_privatized(
        args.file,
        args.encoding,
        lambda pieces: privatize_stream(mechanism, pieces, before_release=charge),
    )


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
    from edgedp.ledger import PrivacyLedger

    ledger = PrivacyLedger(args.ledger)

    def charge(batch: list[Any]) -> None:
        epsilon, delta = mechanism.privacy_cost(batch)
        ledger.charge(args.scope, epsilon, delta, mechanism=mechanism.name)

    return charge
