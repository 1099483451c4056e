"""``edgedp ledger``: set limits on, and show, the privacy loss spent per scope.

``show`` (and ``limit``, after setting) prints the scope's accounting unit and what it means, the
epsilon and delta spent (basic composition over its events), its limit and how many events it
holds; ``--events`` lists them. Text for people, or ``--json``: one object whose shape never
changes (``spent`` and ``limit`` are ``{"epsilon": ..., "delta": ...}``, ``limit`` null when
there is none; ``history`` is there with ``--events``).
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from typing import Any

from edgedp.privacy.guarantee import unit_meaning
from edgedp.privacy.ledger import PrivacyLedger

NAME = "ledger"
HELP = "show or limit the privacy loss recorded in a ledger"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = __doc__.split("\n", 2)[2].replace("``", "")
    commands = parser.add_subparsers(
        dest="ledger_command", required=True, parser_class=type(parser)
    )
    show = commands.add_parser("show", help="spent and limit of a scope, and its events")
    limit = commands.add_parser("limit", help="set a scope's limit ('*' for the default)")
    for sub in (show, limit):
        sub.add_argument("--ledger", required=True, help="ledger file")
        sub.add_argument("--scope", required=True, help="scope (user or stream)")
        sub.add_argument("--json", action="store_true", help="print JSON")
    show.add_argument("--events", action="store_true", help="also list every event, oldest first")
    limit.add_argument("--epsilon", type=float, required=True, help="epsilon limit")
    limit.add_argument("--delta", type=float, default=0.0, help="delta limit (default: 0)")


def report(ledger: PrivacyLedger, scope: str, *, events: bool) -> dict[str, Any]:
    """The scope's state, in the one shape ``ledger show --json`` prints."""
    epsilon, delta = ledger.spent(scope)
    limit = ledger.limit(scope)
    unit = ledger.unit(scope)
    history = ledger.history(scope)
    state: dict[str, Any] = {
        "scope": scope,
        "unit": unit,
        "unit_meaning": None if unit is None else unit_meaning(unit),
        "spent": {"epsilon": epsilon, "delta": delta},
        "limit": None if limit is None else {"epsilon": limit[0], "delta": limit[1]},
        "events": len(history),
    }
    if events:
        state["history"] = [
            {
                **event,
                "total_epsilon": event["epsilon"] * event["count"],
                "time": _time(event["created"]),
            }
            for event in history
        ]
    return state


def _time(created: float) -> str:
    return datetime.fromtimestamp(created, UTC).isoformat(timespec="seconds")


def render(state: dict[str, Any]) -> str:
    spent, limit = state["spent"], state["limit"]
    lines = [
        f"scope {state['scope']}",
        "  unit: "
        + (
            f"{state['unit']} ({state['unit_meaning']})"
            if state["unit"]
            else "none yet (set by the first charge)"
        ),
        f"  spent: epsilon {spent['epsilon']:g}, delta {spent['delta']:g}",
        "  limit: "
        + ("none" if limit is None else f"epsilon {limit['epsilon']:g}, delta {limit['delta']:g}"),
        f"  events: {state['events']}" + ("" if "history" in state else " (--events lists them)"),
    ]
    for event in state.get("history", []):
        lines.append(
            f"    {event['time']}  {event['mechanism']}: {event['count']} x epsilon "
            f"{event['epsilon']:g} (delta {event['delta']:g}) = {event['total_epsilon']:g}"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> None:
    # Reading never creates a ledger: a mistyped path is an error, not an empty ledger.
    ledger = PrivacyLedger(args.ledger, create=args.ledger_command == "limit")
    if args.ledger_command == "limit":
        ledger.set_limit(args.scope, args.epsilon, args.delta)
    state = report(ledger, args.scope, events=getattr(args, "events", False))
    print(json.dumps(state, indent=2) if args.json else render(state))
