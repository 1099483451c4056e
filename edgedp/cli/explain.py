"""``edgedp explain``: what a word mechanism's release means, in numbers (see edgedp.evaluation.explain)."""

from __future__ import annotations

import argparse

from edgedp.cli.languages import add_pack_language_argument, pack_argument
from edgedp.cli.mechanisms import WordMechanismOptions, add_word_mechanism_arguments
from edgedp.cli.options import add_seed_argument, parse_epsilon, warn_if_seeded
from edgedp.cli.writing import print_report
from edgedp.errors import InputError
from edgedp.evaluation.empirical_privacy import ADVERSARY_SAMPLES
from edgedp.evaluation.explain import (
    DEFAULT_SAMPLES,
    DEFAULT_SWEEP,
    default_epsilons,
    explain,
    explain_epsilons,
)
from edgedp.evaluation.keep_rate import DEFAULT_WORDS
from edgedp.privacy.validation import check_positive_int
from edgedp.progress import Progress

NAME = "explain"
HELP = "explain a word mechanism's epsilon: words kept, what an adversary infers, the formal bound"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Lead with three plain figures per epsilon: the share of a text's words kept unchanged, "
        "how often the Bayes-optimal adversary who sees one release names the input word (over "
        "the whole vocabulary, Zipf prior), and the formal bound in words; then the guarantee, "
        "the per-word privacy-loss bound epsilon * d (vocabulary average and maximum, and per word "
        "of --text), N_w and S_w, with 95 % intervals, and sample rewrites."
    )
    add_word_mechanism_arguments(parser)
    add_pack_language_argument(parser)
    parser.add_argument(
        "--epsilon",
        help="privacy parameter(s), comma-separated to compare several (e.g. 0.5,0.6,0.7); "
        f"default: a sweep ({','.join(f'{e:g}' for e in DEFAULT_SWEEP)} per bit in Hamming "
        "space, scaled by the privacy ratio in another metric)",
    )
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
    parser.add_argument(
        "--adversary-samples",
        type=int,
        default=ADVERSARY_SAMPLES,
        help="inputs drawn from the Zipf prior for the whole-vocabulary adversary "
        "(default: %(default)s)",
    )
    add_seed_argument(parser, "estimates and sample rewrites")
    parser.add_argument("--json", action="store_true", help="print JSON")


def parse_epsilons(text: str) -> list[float]:
    """``--epsilon``: one epsilon or several, comma-separated, each validated."""
    items = [item.strip() for item in text.split(",")]
    if not all(items):
        raise InputError(f"--epsilon takes numbers separated by commas, got {text!r}")
    return [parse_epsilon(item) for item in items]


def run(args: argparse.Namespace) -> None:
    epsilons = None if args.epsilon is None else parse_epsilons(args.epsilon)
    args.pack = pack_argument(args)
    chosen = WordMechanismOptions.from_args(args)
    mechanism = chosen.build(1.0 if epsilons is None else epsilons[0])
    if epsilons is None:
        epsilons = default_epsilons(mechanism)
    warn_if_seeded(args.seed)
    if args.text is not None and not args.text.strip():
        raise InputError("--text is empty")
    options = {
        "text": args.text,
        "samples": check_positive_int(args.samples, "--samples", minimum=2),
        "words": check_positive_int(args.words, "--words", minimum=2),
        "adversary_samples": check_positive_int(
            args.adversary_samples, "--adversary-samples", minimum=2
        ),
    }
    with Progress("explain: Monte Carlo", unit="steps") as progress:
        if len(epsilons) == 1:
            result = explain(mechanism, rng=args.seed, progress=progress.reporter(), **options)
            print_report(result, args.json)
            return
        sweep = explain_epsilons(
            mechanism, epsilons, rng=args.seed, progress=progress.reporter(), **options
        )
    print_report(sweep, args.json)
