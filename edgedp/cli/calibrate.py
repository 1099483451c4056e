"""``edgedp calibrate``: the epsilon of one mechanism that matches another's privacy-loss bound."""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from typing import Any

from edgedp.cli.decoding import DecodeOptions, add_decoder_arguments
from edgedp.cli.languages import add_pack_language_argument, pack_argument
from edgedp.cli.options import parse_epsilon
from edgedp.errors import InputError
from edgedp.evaluation.calibration import AGGREGATES, equivalent_epsilon, metric_statistics
from edgedp.evaluation.matching import STATISTICS
from edgedp.registry import LAM, METRICS, WORD_MECHANISMS
from edgedp.words.pack import WordPack

NAME = "calibrate"
HELP = "convert an epsilon between mechanisms with different metrics (privacy ratio)"
#: What --decode is when not given: calibration measures the mechanisms' own rule.
DEFAULT_DECODE = "nearest"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "epsilon_to * P_d(to) = epsilon_from * P_d(from), with P_d the average (or maximum) distance "
        "between vocabulary words under each mechanism's metric (BRR paper, Sec. 5)."
    )
    parser.add_argument("--from", dest="source", required=True, choices=sorted(METRICS))
    parser.add_argument("--epsilon", required=True, help="epsilon of the --from mechanism")
    parser.add_argument("--to", dest="target", required=True, choices=sorted(METRICS))
    parser.add_argument(
        "--aggregate",
        choices=AGGREGATES,
        default="avg",
        help="P_d over pairs (default: %(default)s)",
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
    takers = [entry.name for entry in WORD_MECHANISMS.entries() if LAM in entry.options]
    parser.add_argument(
        LAM.flag,
        type=LAM.parse,
        default=LAM.default,
        help=f"{LAM.help} of {', '.join(takers)} (default: %(default)s)",
    )
    parser.add_argument("--pack", help="words pack (default: words-small)")
    add_pack_language_argument(parser)
    add_decoder_arguments(parser, DEFAULT_DECODE)
    parser.add_argument("--json", action="store_true", help="print the statistics used as JSON")


@dataclass(frozen=True)
class CalibrateOptions:
    """One ``calibrate`` run, read from the command line once."""

    source: str
    target: str
    epsilon: float
    aggregate: str
    match: str
    lam: float
    pack: str | None
    decode: DecodeOptions
    as_json: bool

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> CalibrateOptions:
        return cls(
            args.source,
            args.target,
            parse_epsilon(args.epsilon),
            args.aggregate,
            args.match,
            args.lam,
            pack_argument(args),
            DecodeOptions.from_args(args, DEFAULT_DECODE),
            args.json,
        )


def run(args: argparse.Namespace) -> None:
    options = CalibrateOptions.from_args(args)
    pack = WordPack.load(options.pack)
    if options.match != "bound":
        _run_match(options, pack)
        return
    if options.decode.named:
        raise InputError(
            "--decode applies to --match kept or inference-error: the bound is the guarantee's, "
            "which no decoder changes (decoding is post-processing)"
        )
    result = equivalent_epsilon(
        pack,
        options.epsilon,
        source=options.source,
        target=options.target,
        aggregate=options.aggregate,
        lam=options.lam,
    )
    if not options.as_json:
        print(
            f"{options.target} at epsilon {result:.6g} has the same "
            f"{_AGGREGATE[options.aggregate]} privacy-loss bound over the pack's word pairs as "
            f"{options.source} at epsilon {options.epsilon:g} (exact; --json for the numbers "
            "behind it)"
        )
        return
    statistics = {
        name: dict(metric_statistics(pack, METRICS[name], lam=options.lam))
        for name in (options.source, options.target)
    }
    print(
        json.dumps(
            {
                "from": options.source,
                "epsilon": options.epsilon,
                "to": options.target,
                "aggregate": options.aggregate,
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


def _run_match(options: CalibrateOptions, pack: WordPack) -> None:
    """``--match kept|inference-error``: empirical matching (edgedp.evaluation.matching)."""
    from edgedp.evaluation.matching import matched_epsilon

    matchable = [entry.name for entry in WORD_MECHANISMS.entries() if entry.matchable]
    for name in (options.source, options.target):
        if name not in matchable:
            raise InputError(f"--match supports {', '.join(matchable)}, not {name!r}")
    epsilon = options.epsilon
    start = equivalent_epsilon(
        pack, epsilon, source=options.source, target=options.target, lam=options.lam
    )

    def build(name: str, value: float) -> Any:
        entry = WORD_MECHANISMS.entry(name)
        own: dict[str, Any] = {LAM.keyword: options.lam} if LAM in entry.options else {}
        return WORD_MECHANISMS[name](pack, epsilon=value, **own, **options.decode.keywords())

    source, target = build(options.source, epsilon), build(options.target, start)
    match = matched_epsilon(source, target, statistic=options.match)
    if not options.as_json:
        what = "share of words kept unchanged" if options.match == "kept" else "adversary's error"
        decoded = (
            f", both decoded with --decode {options.decode.decode}, words alone"
            if options.decode.named
            else ""
        )
        print(
            f"{options.target} at epsilon {match.epsilon:.6g} has the same {what} as "
            f"{options.source} at epsilon {epsilon:g} (Monte Carlo, 95 % intervals: "
            f"{match.target_estimate} against {match.source_estimate}{decoded}; --json for more)"
        )
        return
    print(json.dumps({**match.as_dict(), "pack": pack.name, "bound_epsilon": start}, indent=2))
