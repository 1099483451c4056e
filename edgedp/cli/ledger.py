"""``edgedp ledger``: set limits on, and show, the privacy loss spent per scope."""

from __future__ import annotations

import argparse
import json

from edgedp.privacy.ledger import PrivacyLedger

NAME = "ledger"
HELP = "show or limit the privacy loss recorded in a ledger"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(
        dest="ledger_command", required=True, parser_class=type(parser)
    )
    show = commands.add_parser("show", help="spent and limit of a scope, with its charges")
    limit = commands.add_parser("limit", help="set a scope's limit ('*' for the default)")
    for sub in (show, limit):
        sub.add_argument("--ledger", required=True, help="ledger file")
        sub.add_argument("--scope", required=True, help="scope (user or stream)")
    limit.add_argument("--epsilon", type=float, required=True, help="epsilon limit")
    limit.add_argument("--delta", type=float, default=0.0, help="delta limit (default 0)")


def run(args: argparse.Namespace) -> None:
    # Reading never creates a ledger: a mistyped path is an error, not an empty ledger.
    ledger = PrivacyLedger(args.ledger, create=args.ledger_command == "limit")
    if args.ledger_command == "limit":
        ledger.set_limit(args.scope, args.epsilon, args.delta)
    epsilon, delta = ledger.spent(args.scope)
    print(
        json.dumps(
            {
                "scope": args.scope,
                "spent": {"epsilon": epsilon, "delta": delta},
                "limit": ledger.limit(args.scope),
                "unit": ledger.unit(args.scope),
                "charges": len(ledger.history(args.scope)),
            },
            indent=2,
        )
    )
