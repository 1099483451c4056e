"""``edgedp explain``: what a word mechanism's release means, in numbers (see edgedp.evaluation.explain)."""

from __future__ import annotations

import argparse

from edgedp.cli.options import add_seed_argument, parse_epsilon, warn_if_seeded
from edgedp.cli.word_options import (
    add_word_mechanism_arguments,
    build_word_mechanism,
    print_report,
)
from edgedp.errors import InputError
from edgedp.evaluation.explain import DEFAULT_SAMPLES, DEFAULT_WORDS, explain
from edgedp.privacy.validation import check_positive_int
from edgedp.progress import Progress

NAME = "explain"
HELP = "explain a word mechanism's guarantee, privacy-loss bounds, share kept and inference error"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Report the guarantee, the per-word privacy-loss bound epsilon * d (vocabulary average and "
        "maximum, and per word of --text), the share of words kept unchanged, the Bayesian "
        "adversary's inference error E_M (uniform and Zipf priors), N_w and S_w, with 95 % "
        "intervals from a Monte Carlo on fixed public words, and sample rewrites."
    )
    add_word_mechanism_arguments(parser)
    parser.add_argument(
        "--text", help="also bound each word of this text (read, not stored; default: none)"
    )
    parser.add_argument(
        "--words",
        type=int,
        default=DEFAULT_WORDS,
        help="public words measured (default: %(default)s)",
    )
    parser.add_argument(
        "--samples",
        type=int,
        default=DEFAULT_SAMPLES,
        help="releases per word (default: %(default)s)",
    )
    add_seed_argument(parser, "estimates and sample rewrites")
    parser.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> None:
    mechanism = build_word_mechanism(args, parse_epsilon(args.epsilon))
    warn_if_seeded(args.seed)
    if args.text is not None and not args.text.strip():
        raise InputError("--text is empty")
    with Progress("explain: Monte Carlo", unit="steps") as progress:
        result = explain(
            mechanism,
            text=args.text,
            samples=check_positive_int(args.samples, "--samples", minimum=2),
            words=check_positive_int(args.words, "--words", minimum=2),
            rng=args.seed,
            progress=progress.reporter(),
        )
    print_report(result, args.json)
