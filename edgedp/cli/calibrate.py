"""``edgedp calibrate``: the epsilon of one mechanism that matches another's privacy-loss bound."""

from __future__ import annotations

import argparse
import json

from edgedp.cli.privatize import parse_epsilon
from edgedp.evaluation.calibration import AGGREGATES, METRICS, equivalent_epsilon, metric_statistics
from edgedp.packs.loading import load_pack

NAME = "calibrate"
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
        "--lam", type=float, default=0.2, help="lambda of mahalanobis (default: 0.2)"
    )
    parser.add_argument("--pack", help="words pack (default: words-small)")
    parser.add_argument("--json", action="store_true", help="print the statistics used as JSON")


def run(args: argparse.Namespace) -> None:
    pack = load_pack(args.pack, kind="words")
    epsilon = parse_epsilon(args.epsilon)
    result = equivalent_epsilon(
        pack,
        epsilon,
        source=args.source,
        target=args.target,
        aggregate=args.aggregate,
        lam=args.lam,
    )
    if not args.json:
        print(f"{result:.6g}")
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
