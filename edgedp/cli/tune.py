"""``edgedp tune``: the epsilon that meets a target share kept, inference error or loss bound."""

from __future__ import annotations

import argparse

from edgedp.cli.languages import add_pack_language_argument, pack_argument
from edgedp.cli.mechanisms import WordMechanismOptions, add_word_mechanism_arguments
from edgedp.cli.options import parse_epsilon
from edgedp.cli.writing import print_report
from edgedp.errors import InputError
from edgedp.evaluation.explain import mechanism_metric
from edgedp.evaluation.tune import AGGREGATES, PRIORS, TUNE_SAMPLES, TUNE_WORDS, tune
from edgedp.privacy.validation import check_positive_int
from edgedp.progress import Progress

NAME = "tune"
HELP = "find the epsilon that keeps a share of words, meets an inference error or a loss bound"
#: Where the search starts when --start-epsilon is not given, by metric (else START_ELSE).
START = {"hamming": 0.5, "euclidean": 10.0, "mahalanobis": 10.0}
START_ELSE = 1.0


def _start_help() -> str:
    """START as ``--start-epsilon`` states it."""
    spaces: dict[float, list[str]] = {}
    for metric, value in START.items():
        spaces.setdefault(value, []).append(metric.capitalize())
    starts = [
        f"{value:g}{' per bit' if names == ['Hamming'] else ''} in {' or '.join(names)} space"
        for value, names in spaces.items()
    ]
    return f"where the search starts (default: {', '.join(starts)}, else {START_ELSE:g})"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Find epsilon for a word mechanism by what it does: --keep K (share of a text's words "
        "released unchanged), --inference-error E (Bayesian adversary's E_M) by bisection in "
        "log epsilon on a Monte Carlo over fixed public words, or --loss-bound B (epsilon * "
        "average or maximum vocabulary distance = B, exact). Vickrey: --choose-t picks t by "
        "Xu et al.'s Alg. 2."
    )
    add_word_mechanism_arguments(parser)
    add_pack_language_argument(parser)
    target = parser.add_mutually_exclusive_group(required=True)
    one = "; one target is required"
    target.add_argument("--keep", type=float, help="target share of words kept, in (0, 1)" + one)
    target.add_argument("--inference-error", type=float, help="target E_M, in (0, 1)" + one)
    target.add_argument(
        "--loss-bound", type=float, help="target per-word loss bound epsilon * d" + one
    )
    parser.add_argument(
        "--aggregate", choices=AGGREGATES, default="avg", help="for --loss-bound (default: avg)"
    )
    parser.add_argument(
        "--prior", choices=PRIORS, default="zipf", help="for --inference-error (default: zipf)"
    )
    parser.add_argument(
        "--start-epsilon",
        help=_start_help(),
    )
    parser.add_argument(
        "--choose-t", action="store_true", help="vickrey: choose t by Alg. 2 at equal utility loss"
    )
    parser.add_argument(
        "--words", type=int, default=TUNE_WORDS, help="public words measured (default: %(default)s)"
    )
    parser.add_argument(
        "--samples", type=int, default=TUNE_SAMPLES, help="releases per word (default: %(default)s)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> None:
    if args.choose_t and args.mechanism != "vickrey":
        raise InputError("--choose-t applies to --mechanism vickrey")
    args.pack = pack_argument(args)
    chosen = WordMechanismOptions.from_args(args)
    if args.start_epsilon is not None:
        start = parse_epsilon(args.start_epsilon)
    else:
        metric, _ = mechanism_metric(chosen.build(1.0))
        start = START.get(metric or "", START_ELSE)
    mechanism = chosen.build(start)
    with Progress("tune: epsilons evaluated (total estimated)") as progress:
        result = tune(
            mechanism,
            keep=args.keep,
            inference_error=args.inference_error,
            loss_bound=args.loss_bound,
            aggregate=args.aggregate,
            prior=args.prior,
            words=check_positive_int(args.words, "--words", minimum=2),
            samples=check_positive_int(args.samples, "--samples", minimum=2),
            choose_t=args.choose_t,
            progress=progress.reporter(),
        )
    print_report(result, args.json)
