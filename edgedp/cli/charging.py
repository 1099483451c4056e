"""The ledger step: with ``--ledger`` and ``--scope``, every release is charged to a privacy
ledger before it happens (:class:`~edgedp.PrivacyLedger`); nothing is charged without them.

``privatize`` charges each line or record on its own (one event each), a batch of them through one
call, :meth:`Charges.charge_each`; ``embed`` charges a batch of documents as one event
(:meth:`Charges.charge`). The ledger (sqlite3) is imported only when a run charges one.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from edgedp.errors import BudgetError, InputError

if TYPE_CHECKING:
    from edgedp.privacy.guarantee import DpEvent
    from edgedp.privacy.ledger import Chargeable


def add_ledger_arguments(parser: argparse.ArgumentParser) -> None:
    """--ledger and --scope: charge every release to a privacy ledger first."""
    parser.add_argument(
        "--ledger", help="privacy ledger file to charge before each release (default: none)"
    )
    parser.add_argument(
        "--scope", help="ledger scope (user or stream) to charge (required with --ledger)"
    )


@dataclass(frozen=True)
class LedgerOptions:
    """The ledger file and the scope charged."""

    path: str
    scope: str

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> LedgerOptions | None:
        """``--ledger`` and ``--scope`` (together, or neither: ``None``)."""
        if (args.ledger is None) != (args.scope is None):
            raise InputError("--ledger and --scope go together")
        return None if args.ledger is None else cls(args.ledger, args.scope)


class Charges:
    """Charges for the releases of ``mechanism`` to one scope of a ledger."""

    def __init__(self, options: LedgerOptions, mechanism: Chargeable) -> None:
        from edgedp.privacy.ledger import PrivacyLedger

        self.ledger = PrivacyLedger(options.path)
        self.scope = options.scope
        self.mechanism = mechanism

    def cost(self, inputs: Sequence[Any]) -> DpEvent:
        """What releasing ``inputs`` together costs (one event)."""
        return self.mechanism.privacy_cost(inputs)

    def charge(self, inputs: Sequence[Any]) -> None:
        """Charge the release of ``inputs`` as one event (:class:`BudgetError` if refused)."""
        self.ledger.charge(self.scope, self.cost(inputs))

    def charge_each(
        self, events: Sequence[DpEvent], *, stop: bool = False
    ) -> list[BudgetError | None]:
        """Charge each of ``events`` on its own, in order: for each, ``None`` if it was charged,
        else the refusal (the budget could not take it; a ledger that cannot be used raises
        :class:`~edgedp.errors.LedgerError` instead). With ``stop``, nothing after the first
        refusal is charged and the list ends there.

        One call per batch of lines or records, one ledger transaction (one synchronous commit)
        for all of them (:meth:`~edgedp.PrivacyLedger.charge_each`): each is decided as if charged
        alone, in order; a crash leaves all of them charged or none, and none is released before.
        """
        refusals: dict[int, BudgetError] = {}
        ids = self.ledger.charge_each(
            self.scope, events, stop=stop, on_refused=refusals.__setitem__
        )
        outcomes: list[BudgetError | None] = []
        for index, event_id in enumerate(ids):
            if event_id is None:
                outcomes.append(refusals[index])  # under stop, the first refusal ends the list
                if stop:
                    break
            else:
                outcomes.append(None)
        return outcomes
