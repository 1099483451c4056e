"""Options that several ``edgedp`` commands share: epsilon and delta, --seed, --ledger and --scope.

Every command module imports them from here (never from a sibling command), so one option reads,
validates and warns the same way in ``privatize``, ``embed``, ``explain``, ``tune`` and
``calibrate``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from edgedp.errors import InputError
from edgedp.privacy.validation import check_delta, check_epsilon
from edgedp.progress import message

if TYPE_CHECKING:  # the ledger (sqlite3) is imported only when a run charges one
    from edgedp.privacy.ledger import Chargeable


def parse_epsilon(text: str) -> float:
    """An epsilon from the command line, validated like every other epsilon."""
    return check_epsilon(_number(text))


def _number(text: str) -> object:
    """A float if ``text`` reads as one; else the text itself, for the validator to reject."""
    try:
        return float(text)
    except ValueError:
        return text


def parse_delta(text: str) -> float:
    """--delta from the command line: a number in (0, 1)."""
    try:
        number = float(text)
    except ValueError:
        raise InputError(f"--delta must be a number, got {text!r}") from None
    return check_delta(number)


def add_seed_argument(parser: argparse.ArgumentParser, what: str = "output") -> None:
    """--seed: reproducible and NOT private; the default is OS entropy."""
    parser.add_argument(
        "--seed",
        type=int,
        help=f"fixed seed: reproducible {what}, NOT private (default: none, OS entropy: private)",
    )


def warn_if_seeded(seed: int | None) -> None:
    """Say on stderr that a --seed run is not private (the library warns too, in Python)."""
    if seed is not None:
        message(f"edgedp: warning: --seed {seed} makes the output reproducible and NOT private")


def add_ledger_arguments(parser: argparse.ArgumentParser) -> None:
    """--ledger and --scope: charge every release to a privacy ledger first."""
    parser.add_argument(
        "--ledger", help="privacy ledger file to charge before each release (default: none)"
    )
    parser.add_argument(
        "--scope", help="ledger scope (user or stream) to charge (required with --ledger)"
    )


def ledger_charger(
    args: argparse.Namespace, mechanism: Chargeable
) -> Callable[[list[Any]], None] | None:
    """A function charging a batch's cost to the ledger, or None without --ledger."""
    if (args.ledger is None) != (args.scope is None):
        raise InputError("--ledger and --scope go together")
    if args.ledger is None:
        return None
    from edgedp.privacy.ledger import PrivacyLedger

    ledger = PrivacyLedger(args.ledger)

    def charge(batch: list[Any]) -> None:
        ledger.charge(args.scope, mechanism.privacy_cost(batch))

    return charge
