"""``edgedp calibrate``: the epsilon of one mechanism that matches another's privacy-loss bound."""

from __future__ import annotations

import argparse
import json
from typing import Any

from edgedp.cli.options import parse_epsilon
from edgedp.cli.word_options import add_decoder_arguments, decoder_options
from edgedp.errors import InputError
from edgedp.evaluation.calibration import AGGREGATES, METRICS, equivalent_epsilon, metric_statistics
from edgedp.evaluation.matching import STATISTICS
from edgedp.words.pack import WordPack

NAME = "calibrate"
#: Mechanisms that --match builds from a name and an epsilon alone.
MATCHABLE = ("brr", "madlib", "mahalanobis", "tem", "santext")
HELP = "convert an epsilon between mechanisms with different metrics (privacy ratio)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "epsilon_to * P_d(to) = epsilon_from * P_d(from), with P_d the average (or maximum) distance "
        "between vocabulary words under each mechanism's metric (BRR paper, Sec. 5)."
    )
    parser.add_argument("--from", dest="source", required=True, choices=sorted(METRICS))
    parser.add_argument("--epsilon", required=True, help="epsilon of the --from mechanism")
    parser.add_argument("--to", dest="target", required=True, choices=sorted(METRICS))
    parser.add_argument(
        "--aggregate", choices=AGGREGATES, default="avg", help="P_d over pairs (default: avg)"
    )
    parser.add_argument(
        "--match",
        choices=("bound", *STATISTICS),
        default="bound",
        help="bound (default): equal aggregate privacy-loss bound, exact; kept or inference-error: "
        "the --to epsilon with the same share of words kept or the same Bayesian inference error "
        "E_M as --from (Monte Carlo on public words; both mechanisms run on --pack, so Euclidean "
        "ones need a pack with vectors)",
    )
    parser.add_argument(
        "--lam", type=float, default=0.2, help="lambda of mahalanobis (default: 0.2)"
    )
    parser.add_argument("--pack", help="words pack (default: words-small)")
    add_decoder_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the statistics used as JSON")


def run(args: argparse.Namespace) -> None:
    pack = WordPack.load(args.pack)
    epsilon = parse_epsilon(args.epsilon)
    if args.match != "bound":
        _run_match(args, pack, epsilon)
        return
    if args.decode not in (None, "nearest"):
        raise InputError(
            "--decode applies to --match kept or inference-error: the bound is the guarantee's, "
            "which no decoder changes (decoding is post-processing)"
        )
    result = equivalent_epsilon(
        pack,
        epsilon,
        source=args.source,
        target=args.target,
        aggregate=args.aggregate,
        lam=args.lam,
    )
    if not args.json:
        print(
            f"{args.target} at epsilon {result:.6g} has the same {_AGGREGATE[args.aggregate]} "
            f"privacy-loss bound over the pack's word pairs as {args.source} at epsilon "
            f"{epsilon:g} (exact; --json for the numbers behind it)"
        )
        return
    statistics = {
        name: dict(metric_statistics(pack, METRICS[name], lam=args.lam))
        for name in (args.source, args.target)
    }
    print(
        json.dumps(
            {
                "from": args.source,
                "epsilon": epsilon,
                "to": args.target,
                "aggregate": args.aggregate,
                "equivalent_epsilon": result,
                "pack": pack.name,
                "statistics": statistics,
            },
            indent=2,
            default=list,
        )
    )


#: How ``--aggregate`` reads in a sentence.
_AGGREGATE = {"avg": "mean", "max": "largest"}


def _run_match(args: argparse.Namespace, pack: Any, epsilon: float) -> None:
    """``--match kept|inference-error``: empirical matching (edgedp.evaluation.matching)."""
    from edgedp.evaluation.matching import matched_epsilon
    from edgedp.registry import WORD_MECHANISMS

    for name in (args.source, args.target):
        if name not in MATCHABLE:
            raise InputError(f"--match supports {', '.join(MATCHABLE)}, not {name!r}")
    start = equivalent_epsilon(pack, epsilon, source=args.source, target=args.target, lam=args.lam)

    def build(name: str, value: float) -> Any:
        options: dict[str, Any] = {"lam": args.lam} if name == "mahalanobis" else {}
        return WORD_MECHANISMS[name](pack, epsilon=value, **options, **decoder_options(args))

    source, target = build(args.source, epsilon), build(args.target, start)
    match = matched_epsilon(source, target, statistic=args.match)
    if not args.json:
        what = "share of words kept unchanged" if args.match == "kept" else "adversary's error"
        decoded = (
            f", both decoded with --decode {args.decode}, words alone"
            if args.decode not in (None, "nearest")
            else ""
        )
        print(
            f"{args.target} at epsilon {match.epsilon:.6g} has the same {what} as {args.source} "
            f"at epsilon {epsilon:g} (Monte Carlo, 95 % intervals: {match.target_estimate} "
            f"against {match.source_estimate}{decoded}; --json for more)"
        )
        return
    print(json.dumps({**match.as_dict(), "pack": pack.name, "bound_epsilon": start}, indent=2))
