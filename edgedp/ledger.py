"""A persistent, on-device ledger of privacy loss spent per scope, with limits.

Every release can be charged to a *scope* (a user, a data stream) before it happens; a charge that
would exceed the scope's limit raises :class:`~edgedp.errors.BudgetError` and nothing is released.

**Storage.** SQLite in WAL mode with ``synchronous=FULL``: each charge is one ``BEGIN IMMEDIATE``
transaction that reads the scope's total and limit and inserts the charge, so concurrent processes
serialize, a committed charge survives a crash (SIGKILL, power loss), and an interrupted one leaves
no trace. Charge ids are primary keys: a charge can never be counted twice.

**What a charge means (composition).** Totals add up under basic sequential composition:

* word-level metric DP (BRR, Madlib, Mahalanobis, Vickrey): privatizing a text of n word slots with
  epsilon costs n * epsilon in units of the mechanism's metric: for two texts with the same layout the
  privacy loss is at most epsilon * sum_i d(w_i, w'_i) <= n * epsilon * max d. Out-of-vocabulary slots
  are charged too (their replacement is input-independent, so this over-counts, never under-counts).
  Totals of mechanisms with different metrics are not comparable: use one ledger scope per metric or
  convert with :func:`edgedp.evaluation.calibration.equivalent_epsilon`.
* SentDP (DeepCandidate, Truncation): epsilon per document released (any one sentence protected).
* ADePT: epsilon (and delta) per sentence rewritten; a document of s sentences costs s * epsilon.
"""

from __future__ import annotations

import math
import os
import sqlite3
import time
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

from edgedp.errors import BudgetError, InputError
from edgedp.validation import check_positive

_SCHEMA = """
CREATE TABLE IF NOT EXISTS charges (
    id TEXT PRIMARY KEY,
    scope TEXT NOT NULL,
    epsilon REAL NOT NULL CHECK (epsilon >= 0),
    delta REAL NOT NULL CHECK (delta >= 0),
    mechanism TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS charges_scope ON charges (scope);
CREATE TABLE IF NOT EXISTS limits (
    scope TEXT PRIMARY KEY,
    epsilon REAL NOT NULL,
    delta REAL NOT NULL
);
"""
_DEFAULT_SCOPE = "*"
_BUSY_TIMEOUT_MS = 60_000


class Chargeable(Protocol):
    """A mechanism that can say what a release of ``inputs`` costs: (epsilon, delta)."""

    name: str

    def privacy_cost(self, inputs: Sequence[Any]) -> tuple[float, float]: ...


class PrivacyLedger:
    """Privacy loss spent per scope, in a SQLite file (see the module docstring)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        with self._connect() as connection:
            connection.executescript(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        try:
            connection = sqlite3.connect(
                self.path, timeout=_BUSY_TIMEOUT_MS / 1000, isolation_level=None
            )
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL")
        except sqlite3.Error as error:
            raise InputError(f"cannot open the privacy ledger {self.path}: {error}") from None
        return connection

    def set_limit(self, scope: str, epsilon: float, delta: float = 0.0) -> None:
        """Set the limit of ``scope`` (``"*"`` is the default for scopes without their own)."""
        epsilon = check_positive(epsilon, "epsilon limit")
        if not (math.isfinite(delta) and delta >= 0):
            raise InputError(f"delta limit must be finite and >= 0, got {delta!r}")
        with self._connect() as connection:
            connection.execute(
                "INSERT OR REPLACE INTO limits VALUES (?, ?, ?)",
                (_check_scope(scope), epsilon, float(delta)),
            )

    def limit(self, scope: str) -> tuple[float, float] | None:
        """The (epsilon, delta) limit that applies to ``scope``, or None if unlimited."""
        with self._connect() as connection:
            return _limit(connection, _check_scope(scope))

    def spent(self, scope: str) -> tuple[float, float]:
        """Total (epsilon, delta) charged to ``scope``."""
        with self._connect() as connection:
            return _spent(connection, _check_scope(scope))

    def charge(
        self,
        scope: str,
        epsilon: float,
        delta: float = 0.0,
        *,
        mechanism: str = "",
        charge_id: str | None = None,
    ) -> str:
        """Record a release's cost, or raise BudgetError if it would exceed the limit.

        Returns the charge id (a fresh UUID unless given; reusing an id is refused).
        """
        scope = _check_scope(scope)
        if not (math.isfinite(epsilon) and epsilon >= 0 and math.isfinite(delta) and delta >= 0):
            raise InputError(f"a charge needs finite epsilon, delta >= 0 (got {epsilon}, {delta})")
        charge_id = charge_id or uuid.uuid4().hex
        connection = self._connect()
        try:
            connection.execute("BEGIN IMMEDIATE")
            limit = _limit(connection, scope)
            total_epsilon, total_delta = _spent(connection, scope)
            if limit is not None and (
                total_epsilon + epsilon > limit[0] or total_delta + delta > limit[1]
            ):
                connection.execute("ROLLBACK")
                raise BudgetError(
                    f"scope {scope!r} has spent epsilon {total_epsilon:.6g} (delta "
                    f"{total_delta:.3g}) of its limit {limit[0]:.6g} ({limit[1]:.3g}); this "
                    f"release needs {epsilon:.6g} ({delta:.3g}): nothing was released"
                )
            connection.execute(
                "INSERT INTO charges VALUES (?, ?, ?, ?, ?, ?)",
                (charge_id, scope, float(epsilon), float(delta), mechanism, time.time()),
            )
            connection.execute("COMMIT")
        except sqlite3.IntegrityError:
            connection.execute("ROLLBACK")
            raise InputError(f"charge id {charge_id!r} was already recorded") from None
        finally:
            connection.close()
        return charge_id

    def history(self, scope: str) -> list[dict[str, Any]]:
        """Every charge of ``scope``, oldest first."""
        with self._connect() as connection:
            rows = connection.execute(
                "SELECT id, epsilon, delta, mechanism, created FROM charges WHERE scope = ? "
                "ORDER BY created, id",
                (_check_scope(scope),),
            ).fetchall()
        return [
            dict(zip(("id", "epsilon", "delta", "mechanism", "created"), row, strict=True))
            for row in rows
        ]

    def guard(self, mechanism: Chargeable, scope: str) -> Budgeted:
        """``mechanism`` wrapped so that every release is charged to ``scope`` first."""
        return Budgeted(mechanism, self, scope)


def _check_scope(scope: object) -> str:
    if not isinstance(scope, str) or not scope or len(scope) > 200:
        raise InputError("a ledger scope must be a non-empty string of at most 200 characters")
    return scope


def _limit(connection: sqlite3.Connection, scope: str) -> tuple[float, float] | None:
    row = connection.execute(
        "SELECT epsilon, delta FROM limits WHERE scope IN (?, ?) ORDER BY scope = ? LIMIT 1",
        (scope, _DEFAULT_SCOPE, _DEFAULT_SCOPE),
    ).fetchone()
    return None if row is None else (float(row[0]), float(row[1]))


def _spent(connection: sqlite3.Connection, scope: str) -> tuple[float, float]:
    row = connection.execute(
        "SELECT TOTAL(epsilon), TOTAL(delta) FROM charges WHERE scope = ?", (scope,)
    ).fetchone()
    return float(row[0]), float(row[1])


class Budgeted:
    """A mechanism whose every release is charged to a ledger scope before it happens."""

    def __init__(self, mechanism: Chargeable, ledger: PrivacyLedger, scope: str) -> None:
        if not callable(getattr(mechanism, "privacy_cost", None)):
            raise InputError(f"{type(mechanism).__name__} cannot be charged to a ledger")
        self.mechanism, self.ledger, self.scope = mechanism, ledger, _check_scope(scope)

    def _charge(self, inputs: Sequence[Any]) -> None:
        epsilon, delta = self.mechanism.privacy_cost(inputs)
        self.ledger.charge(self.scope, epsilon, delta, mechanism=self.mechanism.name)

    def _release(self, method: str, inputs: Iterable[Any]) -> Any:
        batch = list(inputs)
        self._charge(batch)
        return getattr(self.mechanism, method)(batch)

    def privatize(self, text: str) -> Any:
        return self._release("privatize_batch", [text])[0]

    def privatize_batch(self, texts: Iterable[str]) -> Any:
        return self._release("privatize_batch", texts)

    def embed(self, document: Any) -> Any:
        return self._release("embed_batch", [document])[0]

    def embed_batch(self, documents: Iterable[Any]) -> Any:
        return self._release("embed_batch", documents)
