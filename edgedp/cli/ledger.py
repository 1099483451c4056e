"""``edgedp ledger``: set the limits of, and show, the privacy loss spent per scope.

``limit`` sets a scope's limits (scope ``'*'``: the default of every scope without its own):
per rolling day, week and month (any 24 hours, 7 days, 30 days) and over its lifetime, in any
combination; EPSILON[,DELTA], or ``none`` to remove the scope's own limit in that window. ``show`` (and
``limit``, after setting) prints, per scope, its accounting unit, what was spent, the limit and
what remains in each window, the releases and units counted there, and what that means in plain
words; ``--events`` lists the events. Without ``--scope``, ``show`` prints every scope. Times are
UTC. Text for people, or ``--json``: one object per scope whose shape never changes (``spent`` and
``limit`` are the lifetime's ``{"epsilon": ..., "delta": ...}``, ``limit`` null when there is none;
``windows`` lists every window; ``history`` is there with ``--events``); without ``--scope``,
``{"scopes": [...]}``.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from edgedp.errors import InputError
from edgedp.privacy.guarantee import unit_meaning
from edgedp.privacy.ledger import WINDOW_SPANS, PrivacyLedger, WindowBudget, timestamp
from edgedp.privacy.validation import check_epsilon, check_non_negative

NAME = "ledger"
HELP = "show or limit the privacy loss recorded in a ledger"
#: The ``limit`` option of each window.
_OPTIONS = {"day": "per_day", "week": "per_week", "month": "per_month", "lifetime": "lifetime"}
#: What one unit counts, in the plural, by the unit part of an accounting unit.
_COUNTED = {"word": "word slots", "sentence": "sentences", "document": "documents"}
#: How two words differ in a metric, with d the distance.
_DIFFER = {
    "hamming": "codes differ in d bits",
    "euclidean": "vectors are d apart (Euclidean)",
    "mahalanobis": "vectors are d apart (Mahalanobis)",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = __doc__.split("\n", 2)[2].replace("``", "")
    commands = parser.add_subparsers(
        dest="ledger_command", required=True, parser_class=type(parser)
    )
    show = commands.add_parser(
        "show", help="spent, limit and remaining budget of a scope per window, and its events"
    )
    limit = commands.add_parser(
        "limit", help="set a scope's limits per day, week, month and lifetime ('*': the default)"
    )
    for sub in (show, limit):
        sub.add_argument("--ledger", required=True, help="ledger file")
        sub.add_argument("--json", action="store_true", help="print JSON")
    show.add_argument("--scope", help="scope (user or stream; default: every scope)")
    limit.add_argument("--scope", required=True, help="scope (user or stream)")
    show.add_argument("--events", action="store_true", help="also list every event, oldest first")
    for window, option in _OPTIONS.items():
        limit.add_argument(
            f"--{option.replace('_', '-')}",
            metavar="EPSILON[,DELTA]",
            help=f"limit over {_over(window)} ('none': remove the scope's own; default: unchanged)",
        )
    limit.add_argument(
        "--epsilon", type=float, help="lifetime epsilon limit (as --lifetime; default: unchanged)"
    )
    limit.add_argument(
        "--delta", type=float, help="lifetime delta limit with --epsilon (default: 0)"
    )


def _over(window: str) -> str:
    """The span a window's limit holds over: ``any 24 hours``, ``all time``."""
    return WINDOW_SPANS[window].replace("the last", "any")


def parse_limit(value: str, option: str) -> tuple[float, float] | None:
    """``EPSILON[,DELTA]`` as (epsilon, delta), or None for ``none``."""
    if value.strip().lower() == "none":
        return None
    parts = value.split(",")
    try:
        numbers = [float(part) for part in parts]
    except ValueError:
        numbers = []
    if len(numbers) not in (1, 2):
        raise InputError(f"--{option} takes EPSILON or EPSILON,DELTA or none, got {value!r}")
    epsilon = check_epsilon(numbers[0], f"--{option} epsilon")
    delta = check_non_negative(numbers[1] if len(numbers) == 2 else 0.0, f"--{option} delta")
    return epsilon, delta


def requested_limits(args: argparse.Namespace) -> dict[str, tuple[float, float] | None]:
    """The limits ``ledger limit`` sets (None: removes), by window; at least one."""
    limits: dict[str, tuple[float, float] | None] = {}
    for window, option in _OPTIONS.items():
        value = getattr(args, option)
        if value is not None:
            limits[window] = parse_limit(value, option.replace("_", "-"))
    if args.epsilon is not None:
        if "lifetime" in limits:
            raise InputError("--epsilon is the lifetime limit: give it or --lifetime, not both")
        limits["lifetime"] = (
            check_epsilon(args.epsilon, "--epsilon"),
            check_non_negative(args.delta or 0.0, "--delta"),
        )
    elif args.delta is not None:
        raise InputError("--delta goes with --epsilon (or write --lifetime EPSILON,DELTA)")
    if not limits:
        raise InputError(
            "ledger limit needs a limit: --per-day, --per-week, --per-month or --lifetime"
        )
    return limits


def _pair(values: tuple[float, float] | None) -> dict[str, float] | None:
    return None if values is None else {"epsilon": values[0], "delta": values[1]}


def report(ledger: PrivacyLedger, scope: str, *, events: bool) -> dict[str, Any]:
    """The scope's state, in the one shape ``ledger show --json`` prints."""
    windows = ledger.budget(scope)
    lifetime = windows[-1]
    unit = ledger.unit(scope)
    state: dict[str, Any] = {
        "scope": scope,
        "unit": unit,
        "unit_meaning": None if unit is None else _unit_meaning(unit),
        "spent": _pair(lifetime.spent),
        "limit": _pair(lifetime.limit),
        "events": lifetime.releases,
        "windows": [
            {
                "window": budget.window,
                "span": budget.span,
                "seconds": budget.seconds,
                "spent": _pair(budget.spent),
                "limit": _pair(budget.limit),
                "remaining": _pair(budget.remaining),
                "releases": budget.releases,
                "units": budget.units,
                "next_expiry": None
                if budget.next_expiry is None
                else timestamp(budget.next_expiry),
            }
            for budget in windows
        ],
        "meaning": meaning(unit, windows),
    }
    if events:
        state["history"] = [
            {
                **event,
                "total_epsilon": event["epsilon"] * event["count"],
                "time": timestamp(event["created"]),
            }
            for event in ledger.history(scope)
        ]
    return state


def _unit_meaning(unit: str) -> str:
    try:
        return unit_meaning(unit)
    except InputError:  # "legacy": charges of edgedp 0.1 whose mechanism named no unit
        return "a unit this edgedp does not know (charges migrated from edgedp 0.1)"


def meaning(unit: str | None, windows: list[WindowBudget]) -> list[str]:
    """What the scope's spending means, in plain words: what spent counts, what one release
    guarantees, what the releases of each window with releases or a limit guarantee together,
    and what no window covers."""
    if unit is None:
        return ["Nothing was released in this scope yet."]
    kind, _, metric = unit.partition(":")
    if kind not in _COUNTED:
        return [f"Spent adds up epsilons in {_unit_meaning(unit)}: what they guarantee is unknown."]
    counted = _COUNTED[kind]
    largest = max(budget.largest_epsilon for budget in windows)
    word_metric = metric in _DIFFER
    if word_metric:
        lines = [
            f"Spent is epsilon per {'bit' if metric == 'hamming' else 'unit of distance'}, "
            f"summed over the {counted} that went through the mechanism (a message of n such "
            "words released at epsilon e spends n x e; out-of-vocabulary and protected words "
            "cost nothing).",
            f"For two versions of a text that differ in one word, whose {_DIFFER[metric]}, any "
            f"release is at most e^({largest:g} d) times likelier for one than for the other "
            "(at the largest epsilon recorded); over many words the exponents add up word by "
            "word.",
        ]
    else:
        one = "sentence of a document" if kind == "document" and metric == "dp" else kind
        lines = [
            f"Spent is epsilon summed over the {counted} released (basic composition).",
            f"For two versions that differ in one {one}, any release is at most "
            f"{_factor(largest)} times likelier for one than for the other (at the largest "
            "epsilon recorded).",
        ]
    for budget in windows:
        if not (budget.releases or budget.limit is not None):
            continue
        spent = budget.spent[0]
        head = f"{budget.span[0].upper()}{budget.span[1:]}: "
        if word_metric:
            bound = (
                f"versions that differ in every one of its {budget.units} {counted}, each by at "
                f"most d, are at most e^({spent:.6g} d) apart"
            )
        else:
            delta = f", plus delta {budget.spent[1]:.3g}" if budget.spent[1] > 0 else ""
            bound = (
                f"versions that differ in one unit of each of its {budget.releases} release(s) "
                f"are at most {_factor(spent)} apart{delta}"
            )
        if budget.limit is None:
            lines.append(f"{head}{bound} (no limit).")
            continue
        name = "lifetime" if budget.window == "lifetime" else f"per-{budget.window}"
        cap = f"e^({budget.limit[0]:g} d)" if word_metric else _factor(budget.limit[0])
        lines.append(
            f"{head}{bound}; the {name} limit keeps this within {cap} over {_over(budget.window)}."
        )
    lifetime = windows[-1].limit
    lines.append(
        "A window bounds what its releases reveal together; a fact repeated in every window is "
        "released again in each, so only the lifetime limit bounds all releases together ("
        + ("none is set" if lifetime is None else f"epsilon {lifetime[0]:g}")
        + ")."
    )
    return lines


def _factor(exponent: float) -> str:
    if exponent > 700:
        return f"e^{exponent:.3g}"
    return f"e^{exponent:.3g} ({math.exp(exponent):.3g}x)"


def render(state: dict[str, Any]) -> str:
    unit = state["unit"]
    counted = _COUNTED.get(unit.partition(":")[0], "units") if unit else "units"
    lines = [
        f"scope {state['scope']}",
        "  unit: " + (f"{unit} ({state['unit_meaning']})" if unit else "none yet (set by the first charge)"),
        f"  {'window':<18} {'spent':>12} {'limit':>12} {'remaining':>12} {'releases':>9}  {counted}",
    ]  # fmt: skip
    deltas = any(w["spent"]["delta"] or (w["limit"] or {}).get("delta") for w in state["windows"])
    for window in state["windows"]:
        limit, remaining = window["limit"], window["remaining"]
        lines.append(
            f"  {window['span']:<18} {_amount(window['spent'], deltas):>12} "
            f"{_amount(limit, deltas) if limit else 'none':>12} "
            f"{_amount(remaining, deltas) if remaining else '-':>12} "
            f"{window['releases']:>9}  {window['units']}"
        )
    expiring = [w for w in state["windows"] if w["next_expiry"] and w["limit"]]
    for window in expiring:
        lines.append(
            f"  the oldest release of {window['span']} leaves it at {window['next_expiry']}"
        )
    lines.append("  in plain words:")
    lines.extend(f"    {line}" for line in state["meaning"])
    lines.append(
        f"  events: {state['events']}" + ("" if "history" in state else " (--events lists them)")
    )
    for event in state.get("history", []):
        lines.append(
            f"    {event['time']}  {event['mechanism']}: {event['count']} x epsilon "
            f"{event['epsilon']:g} (delta {event['delta']:g}) = {event['total_epsilon']:g}"
        )
    return "\n".join(lines)


def _amount(pair: dict[str, float], deltas: bool) -> str:
    """Epsilon, and delta where the scope has any (``1.5/1e-06``)."""
    return f"{pair['epsilon']:.6g}" + (f"/{pair['delta']:.2g}" if deltas else "")


def run(args: argparse.Namespace) -> None:
    # Reading never creates a ledger: a mistyped path is an error, not an empty ledger.
    setting = args.ledger_command == "limit"
    limits = requested_limits(args) if setting else {}
    ledger = PrivacyLedger(args.ledger, create=setting)
    for window, limit in limits.items():
        if limit is None:
            ledger.remove_limit(args.scope, window=window)
        else:
            ledger.set_limit(args.scope, *limit, window=window)
    scopes = [args.scope] if args.scope is not None else ledger.scopes()
    events = getattr(args, "events", False)
    states = [report(ledger, scope, events=events) for scope in scopes]
    if args.json:
        print(json.dumps(states[0] if args.scope is not None else {"scopes": states}, indent=2))
    else:
        print("\n\n".join(render(state) for state in states) or "no scopes in this ledger")
