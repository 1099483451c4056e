"""A persistent, on-device ledger of the privacy events of each scope, with limits.

Every release can be charged to a *scope* (a user, a data stream) before it happens; a charge that
would exceed the scope's limit raises :class:`~edgedp.errors.BudgetError` and nothing is released.

**Events, not totals.** A charge records a :class:`~edgedp.privacy.guarantee.DpEvent`: the mechanism, its
guarantee (accounting unit, neighbouring relation, epsilon and delta per unit) and how many units
were released, with the time. Totals are derived from the events under basic sequential composition
(sum of count * epsilon); because the events are kept, a tighter composition theorem can be applied
to them later without losing history.

**One accounting unit per scope.** A scope takes the accounting unit of its first charge
(``"word:hamming"`` for BRR, ``"document:dp"`` for DeepCandidate, ``"sentence:dp"`` for ADePT, ...)
and refuses a charge in any other unit with :class:`~edgedp.errors.BudgetError`: an epsilon per bit
of Hamming distance and an epsilon per document do not add up. Use one scope per unit, or convert
word-level epsilons with :func:`edgedp.evaluation.calibration.equivalent_epsilon` first.

What a unit means:

* word-level metric DP (BRR, Madlib, Mahalanobis, Vickrey): privatizing a text of n word slots
  counts n units of epsilon * d; for two texts with the same layout the privacy loss is at most
  epsilon * sum_i d(w_i, w'_i). Out-of-vocabulary slots are counted too (their replacement is
  input-independent, so this over-counts, never under-counts).
* SentDP (DeepCandidate, Truncation): one unit per document released (any one sentence protected).
* ADePT: one unit per sentence rewritten.

**Storage.** SQLite in WAL mode with ``synchronous=FULL``: each charge is one ``BEGIN IMMEDIATE``
transaction that reads the scope's unit, total and limit and inserts the event, so concurrent
processes serialize, a committed charge survives a crash (SIGKILL, power loss), and an interrupted
one leaves no trace. Opening a ledger (with the one-time switch of a new or version-1 file to WAL
and the migration of a version-1 ledger) waits for other processes like a charge does. Event ids are
primary keys: an event can never be counted twice. The file (and SQLite's -wal and -shm files, which
take its mode) is created readable and writable by its owner only (0600), whatever the umask. Any
SQLite failure (a read-only file, a lock held past the timeout, a full disk) is a
:class:`~edgedp.errors.LedgerError` (a ``BudgetError``) with a one-line message, and nothing is
released.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol, TypeVar

from edgedp.errors import BudgetError, InputError, LedgerError
from edgedp.privacy.guarantee import DpEvent
from edgedp.privacy.validation import check_epsilon, check_non_negative

LEDGER_VERSION = 2
_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    id TEXT PRIMARY KEY,
    scope TEXT NOT NULL,
    mechanism TEXT NOT NULL,
    accounting_unit TEXT NOT NULL,
    relation TEXT NOT NULL,
    epsilon REAL NOT NULL CHECK (epsilon >= 0),
    delta REAL NOT NULL CHECK (delta >= 0),
    count INTEGER NOT NULL CHECK (count >= 0),
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS events_scope ON events (scope);
CREATE TABLE IF NOT EXISTS scopes (
    scope TEXT PRIMARY KEY,
    accounting_unit TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS limits (
    scope TEXT PRIMARY KEY,
    epsilon REAL NOT NULL,
    delta REAL NOT NULL
);
"""
_DEFAULT_SCOPE = "*"
_BUSY_TIMEOUT_MS = 60_000
_EVENT_FIELDS = (
    "id",
    "mechanism",
    "accounting_unit",
    "relation",
    "epsilon",
    "delta",
    "count",
    "created",
)
_HISTORY_QUERY = (
    "SELECT id, mechanism, accounting_unit, relation, epsilon, delta, count, created FROM events "
    "WHERE scope = ? ORDER BY created, rowid"
)
T = TypeVar("T")


class Chargeable(Protocol):
    """A mechanism that can say what releasing ``inputs`` costs, as a DP event."""

    def privacy_cost(self, inputs: Sequence[Any]) -> DpEvent: ...


def _create_private_file(path: Path) -> None:
    """Create ``path`` with mode 0600 unless it exists (SQLite gives -wal and -shm its mode)."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    except OSError as error:
        raise LedgerError(f"cannot create the privacy ledger {path}: {error.strerror}") from None
    try:
        os.fchmod(descriptor, stat.S_IRUSR | stat.S_IWUSR)  # whatever the umask did
    finally:
        os.close(descriptor)


class PrivacyLedger:
    """A persistent, on-device ledger of the privacy spent by each scope, with limits.

    Every release can be charged to a *scope* (a user, a data stream) before it happens: a charge
    that would exceed the scope's limit, or mix accounting units, raises
    :class:`~edgedp.BudgetError` and nothing is released. :meth:`guard` wraps a mechanism so that
    each release is charged first. The events are kept in a SQLite file (WAL, ``synchronous=FULL``,
    mode 0600): a committed charge survives a crash, concurrent processes serialize.

    Parameters
    ----------
    path : str or PathLike
        The ledger's SQLite file.
    create : bool, optional
        Create the file if it does not exist (default ``True``); ``False`` opens an existing
        ledger only (reading commands use it, so that a mistyped path is an error instead of a
        new, empty ledger that reports nothing spent). Keyword only.
    timeout : float, default 60.0
        How long, in seconds (>= 0), a charge waits for another process's lock before it fails.
        Keyword only.

    Raises
    ------
    ~edgedp.BudgetError
        A ``LedgerError`` (a ``BudgetError``) when the file is missing with ``create=False``, or
        cannot be read or written (read-only, locked past ``timeout``, disk full); from
        :meth:`charge`, when a charge would exceed the limit or mix units.
    ~edgedp.PrivacyParameterError
        If ``timeout`` is negative or not a finite number.

    Notes
    -----
    Totals are derived from the recorded events (mechanism, guarantee, count, time) under basic
    sequential composition: the sum of count * epsilon (and of count * delta). A scope takes the
    accounting unit of its first charge (``"word:hamming"`` for BRR: epsilon per bit of Hamming
    distance, per word slot; ``"document:dp"`` for DeepCandidate) and refuses any other: budgets
    in different units do not add up. Details: :mod:`edgedp.privacy.ledger`.

    Examples
    --------
    >>> import os, tempfile
    >>> import edgedp
    >>> ledger = edgedp.PrivacyLedger(os.path.join(tempfile.mkdtemp(), "ledger.db"))
    >>> ledger.set_limit("alice", 30.0)
    >>> brr = ledger.guard(edgedp.BRR(edgedp.load_pack(), epsilon=0.6), "alice")
    >>> isinstance(brr.privatize("the cat sat"), str)
    True
    >>> round(ledger.spent("alice")[0], 6), ledger.unit("alice")
    (1.8, 'word:hamming')
    >>> brr.privatize("word " * 60)
    Traceback (most recent call last):
    ...
    edgedp.errors.BudgetError: ...
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = True,
        timeout: float = _BUSY_TIMEOUT_MS / 1000,
    ) -> None:
        self.path = Path(path)
        self.timeout = check_non_negative(timeout, "timeout")
        if not create and not self.path.is_file():
            raise LedgerError(f"no privacy ledger at {self.path} (nothing was created)")
        if create:
            _create_private_file(self.path)
        with self._transaction("open it") as connection:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    connection.execute(statement)
            _migrate(connection)

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
        try:
            _enter_wal(connection, time.monotonic() + self.timeout)
            connection.execute("PRAGMA synchronous=FULL")
        except sqlite3.Error:
            connection.close()
            raise
        return connection

    @contextmanager
    def _transaction(self, action: str, *, immediate: bool = True) -> Iterator[sqlite3.Connection]:
        """A connection in one transaction; every SQLite failure becomes a one-line LedgerError."""
        try:
            connection = self._connect()
        except sqlite3.Error as error:
            raise LedgerError(f"privacy ledger {self.path}: cannot {action}: {error}") from None
        try:
            connection.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
            yield connection
            connection.execute("COMMIT")
        except sqlite3.Error as error:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise LedgerError(
                f"privacy ledger {self.path}: cannot {action}: {error}; nothing was released"
            ) from None
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise
        finally:
            connection.close()

    def _read(self, action: str, query: Callable[[sqlite3.Connection], T]) -> T:
        with self._transaction(action, immediate=False) as connection:
            return query(connection)

    def set_limit(self, scope: str, epsilon: float, delta: float = 0.0) -> None:
        """Set the limit of ``scope`` (``"*"`` is the default for scopes without their own)."""
        epsilon = check_epsilon(epsilon, "epsilon limit")
        delta = check_non_negative(delta, "delta limit")
        scope = _check_scope(scope)
        with self._transaction("set a limit") as connection:
            connection.execute(
                "INSERT OR REPLACE INTO limits VALUES (?, ?, ?)", (scope, epsilon, delta)
            )

    def limit(self, scope: str) -> tuple[float, float] | None:
        """The (epsilon, delta) limit that applies to ``scope``, or None if unlimited."""
        scope = _check_scope(scope)
        return self._read("read a limit", lambda connection: _limit(connection, scope))

    def spent(self, scope: str) -> tuple[float, float]:
        """Total (epsilon, delta) of ``scope``'s events under basic composition."""
        scope = _check_scope(scope)
        return self._read("read the spent budget", lambda connection: _spent(connection, scope))

    def remaining(self, scope: str) -> tuple[float, float] | None:
        """What ``scope`` may still spend, (epsilon, delta) = limit - spent (never below 0), read in
        one transaction; None if it has no limit (diffprivlib's ``BudgetAccountant.remaining()``)."""
        scope = _check_scope(scope)

        def query(connection: sqlite3.Connection) -> tuple[float, float] | None:
            limit = _limit(connection, scope)
            if limit is None:
                return None
            epsilon, delta = _spent(connection, scope)
            return max(limit[0] - epsilon, 0.0), max(limit[1] - delta, 0.0)

        return self._read("read the remaining budget", query)

    def unit(self, scope: str) -> str | None:
        """The accounting unit of ``scope`` (set by its first charge), or None."""
        scope = _check_scope(scope)
        return self._read("read a scope", lambda connection: _unit(connection, scope))

    def charge(self, scope: str, event: DpEvent, *, charge_id: str | None = None) -> str:
        """Record ``event``, or raise BudgetError if it would exceed the limit or mix units.

        Returns the event id (a fresh UUID unless given; reusing an id is refused).
        """
        if charge_id is not None and (not isinstance(charge_id, str) or not charge_id):
            raise InputError("a charge id must be a non-empty string")
        return self._record([(scope, event, charge_id or uuid.uuid4().hex)])[0]

    def charge_batch(self, charges: Sequence[tuple[str, DpEvent]]) -> list[str]:
        """Record many ``(scope, event)`` charges in one transaction, all or none.

        Each scope is checked over the whole batch (unit and limit), as if its events were charged
        one after the other; one synchronous commit serves the batch (corpus jobs charge one event
        per record). Returns the fresh event ids, in order.
        """
        return self._record([(scope, event, uuid.uuid4().hex) for scope, event in charges])

    def _record(self, charges: Sequence[tuple[str, DpEvent, str]]) -> list[str]:
        checked = []
        for scope, event, charge_id in charges:
            if not isinstance(event, DpEvent):
                raise InputError(
                    "a charge is a DpEvent (mechanism.privacy_cost(inputs)), got "
                    f"{type(event).__name__}"
                )
            checked.append((_check_scope(scope), event, charge_id))
        if not checked:
            return []
        with self._transaction("record a charge") as connection:
            needed: dict[str, tuple[str, float, float]] = {}
            for scope, event, _ in checked:
                unit = event.guarantee.accounting_unit
                recorded = needed.get(scope, (unit, 0.0, 0.0))
                if recorded[0] != unit:
                    raise BudgetError(
                        f"scope {scope!r} is charged in {recorded[0]} and {unit} in one batch; "
                        "nothing was released"
                    )
                needed[scope] = (unit, recorded[1] + event.epsilon, recorded[2] + event.delta)
            for scope, (unit, epsilon, delta) in needed.items():
                _check_budget(connection, scope, unit, epsilon, delta)
            now = time.time()
            try:
                connection.executemany(
                    "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (
                            charge_id,
                            scope,
                            event.mechanism,
                            event.guarantee.accounting_unit,
                            event.guarantee.relation,
                            event.guarantee.epsilon,
                            event.guarantee.delta,
                            event.count,
                            now,
                        )
                        for scope, event, charge_id in checked
                    ],
                )
            except sqlite3.IntegrityError:
                raise InputError("a charge id was already recorded") from None
        return [charge_id for _, _, charge_id in checked]

    def history(self, scope: str) -> list[dict[str, Any]]:
        """Every event of ``scope``, oldest first (epsilon and delta per unit, and the count)."""
        scope = _check_scope(scope)
        rows = self._read(
            "read the history",
            lambda connection: connection.execute(_HISTORY_QUERY, (scope,)).fetchall(),
        )
        return [dict(zip(_EVENT_FIELDS, row, strict=True)) for row in rows]

    def guard(self, mechanism: Chargeable, scope: str) -> Budgeted:
        """``mechanism`` wrapped so that every release is charged to ``scope`` first."""
        return Budgeted(mechanism, self, scope)


def _enter_wal(connection: sqlite3.Connection, deadline: float) -> None:
    """``PRAGMA journal_mode=WAL``, waiting for other writers like any other write until
    ``deadline`` (``time.monotonic()``).

    Switching a rollback-journal file (a new or a version-1 ledger) to WAL reads the header under a
    shared lock and then takes the write lock; SQLite does not call the busy handler for that
    upgrade (two readers upgrading would deadlock), so when several processes open such a file at
    one instant all but one get "database is locked" at once, whatever the timeout. The switch is
    retried here instead, with a short growing pause, until it succeeds or the deadline passes.
    """
    pause = 0.001
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            busy = getattr(error, "sqlite_errorcode", sqlite3.SQLITE_BUSY) & 0xFF
            if busy != sqlite3.SQLITE_BUSY or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _check_scope(scope: object) -> str:
    if not isinstance(scope, str) or not scope or len(scope) > 200:
        raise InputError("a ledger scope must be a non-empty string of at most 200 characters")
    return scope


def _migrate(connection: sqlite3.Connection) -> None:
    """Bring a version-1 ledger (bare totals per charge) to events, once.

    A version-1 charge knew its mechanism but not its unit: the unit is taken from the mechanism's
    name where that names it, and charges of an unknown mechanism stay in the unit ``legacy``.
    """
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    if version >= LEDGER_VERSION:
        return
    legacy_units = {
        "brr": "word:hamming",
        "madlib": "word:euclidean",
        "mahalanobis": "word:mahalanobis",
        "deepcandidate": "document:dp",
        "truncation": "document:dp",
        "adept": "sentence:dp",
    }
    has_charges = connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'charges'"
    ).fetchone()
    if has_charges:
        for charge_id, scope, epsilon, delta, mechanism, created in connection.execute(
            "SELECT id, scope, epsilon, delta, mechanism, created FROM charges"
        ).fetchall():
            unit = legacy_units.get(mechanism, "legacy")
            connection.execute(
                "INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)",
                (charge_id, scope, mechanism, unit, "edgedp 0.1 charge", epsilon, delta, created),
            )
            connection.execute("INSERT OR IGNORE INTO scopes VALUES (?, ?)", (scope, unit))
        connection.execute("DROP TABLE charges")
    connection.execute(f"PRAGMA user_version = {LEDGER_VERSION}")


def _check_budget(
    connection: sqlite3.Connection, scope: str, unit: str, epsilon: float, delta: float
) -> None:
    """Refuse (BudgetError) a charge of (epsilon, delta) in ``unit`` that ``scope`` cannot take;
    a scope without events takes ``unit``."""
    recorded = _unit(connection, scope)
    if recorded is not None and recorded != unit:
        raise BudgetError(
            f"scope {scope!r} accounts in {recorded}; this release is in {unit}: use another "
            "scope; nothing was released"
        )
    limit = _limit(connection, scope)
    total_epsilon, total_delta = _spent(connection, scope)
    if limit is not None and (total_epsilon + epsilon > limit[0] or total_delta + delta > limit[1]):
        raise BudgetError(
            f"scope {scope!r} has spent epsilon {total_epsilon:.6g} (delta {total_delta:.3g}) of "
            f"its limit {limit[0]:.6g} ({limit[1]:.3g}); this release needs {epsilon:.6g} "
            f"({delta:.3g}): nothing was released"
        )
    if recorded is None:
        connection.execute("INSERT INTO scopes VALUES (?, ?)", (scope, unit))


def _limit(connection: sqlite3.Connection, scope: str) -> tuple[float, float] | None:
    row = connection.execute(
        "SELECT epsilon, delta FROM limits WHERE scope IN (?, ?) ORDER BY scope = ? LIMIT 1",
        (scope, _DEFAULT_SCOPE, _DEFAULT_SCOPE),
    ).fetchone()
    return None if row is None else (float(row[0]), float(row[1]))


def _spent(connection: sqlite3.Connection, scope: str) -> tuple[float, float]:
    row = connection.execute(
        "SELECT TOTAL(epsilon * count), TOTAL(delta * count) FROM events WHERE scope = ?",
        (scope,),
    ).fetchone()
    return float(row[0]), float(row[1])


def _unit(connection: sqlite3.Connection, scope: str) -> str | None:
    row = connection.execute(
        "SELECT accounting_unit FROM scopes WHERE scope = ?", (scope,)
    ).fetchone()
    return None if row is None else str(row[0])


class Budgeted:
    """A mechanism whose every release is charged to a ledger scope before it happens."""

    def __init__(self, mechanism: Chargeable, ledger: PrivacyLedger, scope: str) -> None:
        if not callable(getattr(mechanism, "privacy_cost", None)):
            raise InputError(f"{type(mechanism).__name__} cannot be charged to a ledger")
        self.mechanism, self.ledger, self.scope = mechanism, ledger, _check_scope(scope)

    def _release(self, method: str, inputs: Iterable[Any]) -> Any:
        batch = list(inputs)
        self.ledger.charge(self.scope, self.mechanism.privacy_cost(batch))
        return getattr(self.mechanism, method)(batch)

    def privatize(self, text: str) -> Any:
        return self._release("privatize_batch", [text])[0]

    def privatize_batch(self, texts: Iterable[str]) -> Any:
        return self._release("privatize_batch", texts)

    def embed(self, document: Any) -> Any:
        return self._release("embed_batch", [document])[0]

    def embed_batch(self, documents: Iterable[Any]) -> Any:
        return self._release("embed_batch", documents)
