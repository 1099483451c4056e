"""Options shared by the commands that build a word mechanism (``explain``, ``tune``, ``privatize``)."""

from __future__ import annotations

import argparse
import warnings

from edgedp.errors import InputError, NotPrivateWarning
from edgedp.identifiers import DEFAULT_PROTECT, PROTECT_KINDS
from edgedp.mechanisms import WORD_MECHANISMS
from edgedp.packs import load_pack
from edgedp.text import CASINGS
from edgedp.words.mechanism import OOV_POLICIES, WordMechanism
from edgedp.words.vickrey import SPACES

PROTECT_HELP = (
    "identifier guard: comma-separated kinds released like out-of-vocabulary tokens, never "
    f"through the mechanism ({', '.join(PROTECT_KINDS)}), or 'none' "
    f"(default: {','.join(DEFAULT_PROTECT)})"
)


def parse_protect(text: str | None) -> tuple[str, ...]:
    """``--protect`` as a tuple of kinds (``none`` is the empty tuple)."""
    if text is None:
        return DEFAULT_PROTECT
    if text.strip().lower() == "none":
        return ()
    kinds = tuple(item.strip() for item in text.split(",") if item.strip())
    unknown = [kind for kind in kinds if kind not in PROTECT_KINDS]
    if unknown or not kinds:
        raise InputError(
            f"--protect takes {', '.join(PROTECT_KINDS)} (comma-separated) or none, got {text!r}"
        )
    return kinds


def add_word_mechanism_arguments(parser: argparse.ArgumentParser, *, epsilon: bool = True) -> None:
    """--mechanism (word mechanisms), --epsilon, the mechanism-specific flags, pack and policies."""
    parser.add_argument("--mechanism", choices=sorted(WORD_MECHANISMS), default="brr")
    if epsilon:
        parser.add_argument("--epsilon", required=True, help="privacy parameter (> 0)")
    parser.add_argument("--lam", type=float, help="mahalanobis: regularization lambda in [0, 1]")
    parser.add_argument("--t", type=float, help="vickrey: tuning parameter t in [0, 1]")
    parser.add_argument("--weights", help="generalized-vickrey: t_1,...,t_k (comma-separated)")
    parser.add_argument("--space", choices=SPACES, help="vickrey mechanisms: euclidean or hamming")
    parser.add_argument("--pack", help="pack directory or bundled pack name (default: bundled)")
    parser.add_argument("--oov", choices=OOV_POLICIES, help="out-of-vocabulary tokens")
    parser.add_argument("--casing", choices=CASINGS, help="output casing (default: lower)")
    parser.add_argument("--protect", help=PROTECT_HELP)


def build_word_mechanism(
    args: argparse.Namespace, epsilon: float, *, rng: int | None = None
) -> WordMechanism:
    """The word mechanism the arguments describe (a seed's warning is the caller's to print)."""
    from edgedp.cli.privatize import mechanism_options

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotPrivateWarning)
        return WORD_MECHANISMS[args.mechanism](
            load_pack(args.pack),
            epsilon=epsilon,
            rng=rng,
            oov=args.oov or "sample",
            casing=args.casing or "lower",
            protect=parse_protect(args.protect),
            **mechanism_options(args),
        )
