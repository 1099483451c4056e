"""A persistent, on-device ledger of the privacy events of each scope, with limits per time window.

Every release can be charged to a *scope* (a user, a data stream) before it happens; a charge that
would exceed any of the scope's limits raises :class:`~edgedp.errors.BudgetError` and nothing is
released.

**Events, not totals.** A charge records a :class:`~edgedp.privacy.guarantee.DpEvent`: the mechanism, its
guarantee (accounting unit, neighbouring relation, epsilon and delta per unit) and how many units
were released, with the time. Totals are derived from the events under basic sequential composition
(sum of count * epsilon); because the events are kept, a tighter composition theorem can be applied
to them later without losing history.

**Limits per window.** A scope can have a limit in each of four windows (:data:`WINDOWS`), in any
combination: ``day``, ``week`` and ``month`` are *rolling* windows (the last 24 hours, 7 days, 30
days before the charge), ``lifetime`` is all time. A charge must fit every window that has a
limit; the refusal names the window and when enough of it frees up. Rolling rather than calendar
windows because the limit then holds for *every* interval of that length: with calendar days, a
day's budget spent before midnight and the next day's after it would release twice the daily limit
within minutes, and a local calendar day has 23 or 25 hours when the clocks change. Times are
seconds since the epoch (UTC, ``time.time()`` or the ``clock`` given); the command line prints them
in UTC. Scope ``"*"`` holds the default limit of each window for scopes without their own.

**What a window does and does not protect.** A per-day limit bounds what the releases of any 24
hours reveal together (basic composition of their events); a fact repeated every day is exposed
again each day, so only the lifetime limit bounds what all releases reveal
(:doc:`/guide/budget`).

**Exact arithmetic.** A charge fits a window if the exact sum of the window's recorded costs (each
``count * epsilon``, a float) plus the charge is at most the limit: computed with floats, and
exactly (fractions) whenever the floats' rounding could change the answer. A limit is never
exceeded by a rounding error, and the order in which events were charged never changes a decision.

**One accounting unit per scope.** A scope takes the accounting unit of its first charge
(``"word:hamming"`` for BRR, ``"document:dp"`` for DeepCandidate, ``"sentence:dp"`` for ADePT, ...)
and refuses a charge in any other unit with :class:`~edgedp.errors.BudgetError`: an epsilon per bit
of Hamming distance and an epsilon per document do not add up. Use one scope per unit, or convert
word-level epsilons with :func:`edgedp.evaluation.calibration.equivalent_epsilon` first.

What a unit means:

* word-level metric DP (BRR, Madlib, Mahalanobis, Vickrey, ...): privatizing a text counts one
  unit of epsilon * d per word slot that goes through the mechanism (a vocabulary word the
  identifier guard does not protect); for two texts with the same layout the privacy loss is at
  most epsilon * sum_i d(w_i, w'_i). Out-of-vocabulary tokens and protected spans are replaced
  independently of their content (epsilon 0) and cost nothing; which slots they were is layout,
  released as is.
* SentDP (DeepCandidate, Truncation): one unit per document released (any one sentence protected).
* ADePT: one unit per sentence rewritten.

**Storage.** SQLite in WAL mode with ``synchronous=FULL``: each charge is one ``BEGIN IMMEDIATE``
transaction that reads the scope's unit, limits and spending and inserts the event, so concurrent
processes serialize, a committed charge survives a crash (SIGKILL, power loss), and an interrupted
one leaves no trace. A ledger object keeps its connection between transactions (opening one per
transaction halved the charges per second: the last connection to close a WAL file checkpoints
it); a forked child opens its own. :meth:`PrivacyLedger.charge_each` charges many events of one
scope in one such transaction (one synchronous commit), deciding each as if they were charged one
after the other.
Opening a ledger (with the one-time switch of a new or old file to WAL and the migration of an
older ledger, :data:`LEDGER_VERSION`) waits for other processes like a charge does. Event ids are
primary keys: an event can never be counted twice. The file (and SQLite's -wal and -shm files, which
take its mode) is created readable and writable by its owner only (0600), whatever the umask. Any
SQLite failure (a read-only file, a lock held past the timeout, a full disk) is a
:class:`~edgedp.errors.LedgerError` (a ``BudgetError``) with a one-line message, and nothing is
released.

**Versions.** Version 1 (edgedp 0.1) stored bare totals, version 2 events and one limit per scope;
version 3 adds the windows. Opening an older ledger migrates it in place, once (its limit becomes
the lifetime limit). An older edgedp refuses to charge a version-3 ledger (its limits query fails:
a ``LedgerError``, nothing released) rather than ignore the windows it does not know; this edgedp
refuses a ledger written by a newer one.
"""

from __future__ import annotations

import contextlib
import math
import os
import sqlite3
import stat
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol, TypeVar

from edgedp.errors import BudgetError, InputError, LedgerError
from edgedp.privacy.guarantee import DpEvent
from edgedp.privacy.validation import check_choice, check_epsilon, check_non_negative

LEDGER_VERSION = 3
_DAY = 86_400.0
#: The windows a limit applies over, with their length in seconds: rolling windows ending at the
#: charge, and ``lifetime`` (``None``: all time).
WINDOWS: Mapping[str, float | None] = MappingProxyType(
    {"day": _DAY, "week": 7 * _DAY, "month": 30 * _DAY, "lifetime": None}
)
#: The length of each rolling window, in words.
_LENGTHS = {"day": "24 hours", "week": "7 days", "month": "30 days"}
#: Each window in words, as the span of time before a charge.
WINDOW_SPANS: Mapping[str, str] = MappingProxyType(
    {
        **{window: f"the last {length}" for window, length in _LENGTHS.items()},
        "lifetime": "all time",
    }
)
_TABLES = """
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
CREATE TABLE IF NOT EXISTS scopes (
    scope TEXT PRIMARY KEY,
    accounting_unit TEXT NOT NULL
)
"""
# Not the column names of version 2's limits (epsilon, delta): an older edgedp fails to read
# these limits instead of reading a per-day limit as its one limit.
_LIMITS = """
CREATE TABLE IF NOT EXISTS limits (
    scope TEXT NOT NULL,
    window_name TEXT NOT NULL CHECK (window_name IN ('day', 'week', 'month', 'lifetime')),
    max_epsilon REAL NOT NULL CHECK (max_epsilon > 0),
    max_delta REAL NOT NULL CHECK (max_delta >= 0),
    PRIMARY KEY (scope, window_name)
)
"""
# Covering what a charge sums per window: the sums read the index alone.
_INDEX = (
    "CREATE INDEX IF NOT EXISTS events_scope_created ON events "
    "(scope, created, epsilon, delta, count)"
)
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
_TOTALS_QUERY = (
    "SELECT TOTAL(epsilon * count), TOTAL(delta * count), COUNT(*) FROM events "
    "WHERE scope = ? AND created > ?"
)
_COSTS_QUERY = (
    "SELECT epsilon * count, delta * count, count, epsilon, created FROM events "
    "WHERE scope = ? AND created > ?"
)
_INSERT = "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
T = TypeVar("T")


class Chargeable(Protocol):
    """A mechanism that can say what releasing ``inputs`` costs, as a DP event."""

    def privacy_cost(self, inputs: Sequence[Any]) -> DpEvent: ...


@dataclass(frozen=True, slots=True)
class WindowBudget:
    """What one scope spent, may spend and released in one window, at one instant.

    ``spent``, ``limit`` and ``remaining`` are (epsilon, delta) in the scope's accounting unit
    (``limit`` and ``remaining`` ``None`` without a limit in this window); ``releases`` is the number
    of events in the window and ``units`` the units they counted (word slots, sentences,
    documents); ``largest_epsilon`` the largest epsilon per unit among them (0 without any);
    ``next_expiry`` when the oldest of them leaves the window (seconds since the epoch; ``None``
    for ``lifetime`` or an empty window).
    """

    window: str
    seconds: float | None
    spent: tuple[float, float]
    limit: tuple[float, float] | None
    remaining: tuple[float, float] | None
    releases: int
    units: int
    largest_epsilon: float
    next_expiry: float | None

    @property
    def span(self) -> str:
        """The window in words (``"the last 24 hours"``)."""
        return WINDOW_SPANS[self.window]


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
    """A persistent, on-device ledger of the privacy spent by each scope, with limits per window.

    Every release can be charged to a *scope* (a user, a data stream) before it happens: a charge
    that would exceed any of the scope's limits (per rolling day, week or month, or lifetime), or
    mix accounting units, raises :class:`~edgedp.BudgetError` and nothing is released.
    :meth:`guard` wraps a mechanism so that each release is charged first; :meth:`charge_each`
    charges a batch of releases in one transaction. The events are kept in a SQLite file (WAL,
    ``synchronous=FULL``, mode 0600): a committed charge survives a crash, concurrent processes
    serialize.

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
    clock : callable, optional
        Returns the current time in seconds since the epoch (default :func:`time.time`): the time
        recorded with each event and the end of every window. Tests pass a fake clock. Keyword
        only.

    Raises
    ------
    ~edgedp.BudgetError
        A ``LedgerError`` (a ``BudgetError``) when the file is missing with ``create=False``,
        cannot be read or written (read-only, locked past ``timeout``, disk full), or was written
        by a newer edgedp; from :meth:`charge`, when a charge would exceed a limit or mix units.
    ~edgedp.PrivacyParameterError
        If ``timeout`` is negative or not a finite number.
    ~edgedp.InputError
        If ``clock`` is not callable (or, at a charge, returns no finite number).

    Notes
    -----
    Totals are derived from the recorded events (mechanism, guarantee, count, time) under basic
    sequential composition: the sum of count * epsilon (and of count * delta). A scope takes the
    accounting unit of its first charge (``"word:hamming"`` for BRR: epsilon per bit of Hamming
    distance, per word slot that goes through the mechanism; ``"document:dp"`` for DeepCandidate)
    and refuses any other: budgets in different units do not add up. Windows are rolling
    (:data:`WINDOWS`); :doc:`/guide/budget` says how to size them. The ledger keeps one SQLite
    connection per process between calls (threads take turns on it); :meth:`close`, or leaving a
    ``with`` block, closes it. Details: :mod:`edgedp.privacy.ledger`.

    Examples
    --------
    >>> import os, tempfile
    >>> import edgedp
    >>> ledger = edgedp.PrivacyLedger(os.path.join(tempfile.mkdtemp(), "ledger.db"))
    >>> ledger.set_limit("alice", 30.0)
    >>> ledger.set_limit("alice", 12.0, window="day")
    >>> brr = ledger.guard(edgedp.BRR(edgedp.load_pack(), epsilon=0.6), "alice")
    >>> isinstance(brr.privatize("the cat sat"), str)
    True
    >>> round(ledger.spent("alice")[0], 6), ledger.unit("alice")
    (1.8, 'word:hamming')
    >>> round(ledger.remaining("alice")[0], 6)  # the tightest window: 12 - 1.8
    10.2
    >>> brr.privatize("word " * 60)
    Traceback (most recent call last):
    ...
    edgedp.errors.BudgetError: scope 'alice': the per-day limit ...
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = True,
        timeout: float = _BUSY_TIMEOUT_MS / 1000,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = Path(path)
        self.timeout = check_non_negative(timeout, "timeout")
        if not callable(clock):
            raise InputError("clock must be a function returning seconds since the epoch")
        self.clock = clock
        if not create and not self.path.is_file():
            raise LedgerError(f"no privacy ledger at {self.path} (nothing was created)")
        if create:
            _create_private_file(self.path)
        self._open: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        _LEDGERS.add(self)
        with self._transaction("open it") as connection:
            _bring_up_to_date(connection, self.path)

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(
            self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False
        )
        try:
            _enter_wal(connection, time.monotonic() + self.timeout)
            connection.execute("PRAGMA synchronous=FULL")
        except sqlite3.Error:
            connection.close()
            raise
        return connection

    def _connection(self) -> sqlite3.Connection:
        """This process's connection, opened at its first use (one per process: see
        :func:`_abandon_connections_after_fork`)."""
        if self._open is None:
            self._open = self._connect()
        return self._open

    def close(self) -> None:
        """Close the ledger's connection (the next call opens a new one); also on ``with``."""
        with self._lock:
            if self._open is not None:
                self._open.close()
                self._open = None

    def __enter__(self) -> PrivacyLedger:
        return self

    def __exit__(self, *exception: object) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its connection and lock (a worker opens its own)."""
        return {key: value for key, value in vars(self).items() if key not in ("_open", "_lock")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        vars(self).update(state, _open=None, _lock=threading.Lock())
        _LEDGERS.add(self)

    @contextmanager
    def _transaction(self, action: str, *, immediate: bool = True) -> Iterator[sqlite3.Connection]:
        """The connection in one transaction; every SQLite failure becomes a one-line LedgerError.

        The connection is kept between transactions: opening one per transaction halved the
        charges per second (the last connection to close a WAL file checkpoints it, the next one
        creates the WAL again). Threads take turns on it.
        """
        with self._lock:
            try:
                connection = self._connection()
            except sqlite3.Error as error:
                raise LedgerError(f"privacy ledger {self.path}: cannot {action}: {error}") from None
            try:
                connection.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
                yield connection
                connection.execute("COMMIT")
            except sqlite3.Error as error:
                self._roll_back(connection, drop=True)
                raise LedgerError(
                    f"privacy ledger {self.path}: cannot {action}: {error}; nothing was released"
                ) from None
            except BaseException:
                self._roll_back(connection, drop=False)
                raise

    def _roll_back(self, connection: sqlite3.Connection, *, drop: bool) -> None:
        """Undo the open transaction; after a SQLite failure, also close the connection (the next
        transaction opens a fresh one)."""
        with suppress(sqlite3.Error):
            if connection.in_transaction:
                connection.execute("ROLLBACK")
        if drop:
            with suppress(sqlite3.Error):
                connection.close()
            self._open = None

    def _read(self, action: str, query: Callable[[sqlite3.Connection], T]) -> T:
        with self._transaction(action, immediate=False) as connection:
            return query(connection)

    def _now(self) -> float:
        """The clock's time, checked (read inside a transaction: after any wait for the lock)."""
        now = self.clock()
        if isinstance(now, bool) or not isinstance(now, int | float) or not math.isfinite(now):
            raise InputError(f"the ledger's clock must return a finite number, got {now!r}")
        return float(now)

    # -- limits ----------------------------------------------------------------------------------

    def set_limit(
        self, scope: str, epsilon: float, delta: float = 0.0, *, window: str = "lifetime"
    ) -> None:
        """Set the (epsilon, delta) limit of ``scope`` in ``window`` (``"*"``: the default of
        every scope without its own limit in that window).

        ``window`` is ``"day"``, ``"week"`` or ``"month"`` (rolling: any 24 hours, 7 days, 30
        days) or ``"lifetime"`` (default: all time). Limits of other windows are kept; lowering a
        limit below what was spent refuses every further charge until the window frees up.
        """
        epsilon = check_epsilon(epsilon, "epsilon limit")
        delta = check_non_negative(delta, "delta limit")
        scope, window = _check_scope(scope), _check_window(window)
        with self._transaction("set a limit") as connection:
            connection.execute(
                "INSERT OR REPLACE INTO limits VALUES (?, ?, ?, ?)", (scope, window, epsilon, delta)
            )

    def remove_limit(self, scope: str, *, window: str = "lifetime") -> None:
        """Remove ``scope``'s own limit in ``window`` (the default scope's then applies, if any)."""
        scope, window = _check_scope(scope), _check_window(window)
        with self._transaction("remove a limit") as connection:
            connection.execute(
                "DELETE FROM limits WHERE scope = ? AND window_name = ?", (scope, window)
            )

    def limit(self, scope: str, *, window: str = "lifetime") -> tuple[float, float] | None:
        """The (epsilon, delta) limit that applies to ``scope`` in ``window``, or None."""
        scope, window = _check_scope(scope), _check_window(window)
        return self._read("read a limit", lambda connection: _limits(connection, scope).get(window))

    def limits(self, scope: str) -> dict[str, tuple[float, float]]:
        """Every limit that applies to ``scope`` (its own, else the default's), by window."""
        scope = _check_scope(scope)
        return self._read("read the limits", lambda connection: _limits(connection, scope))

    # -- what was spent --------------------------------------------------------------------------

    def spent(self, scope: str, *, window: str = "lifetime") -> tuple[float, float]:
        """Total (epsilon, delta) of ``scope``'s events in ``window`` (default: all time) under
        basic composition."""
        scope, window = _check_scope(scope), _check_window(window)

        def query(connection: sqlite3.Connection) -> tuple[float, float]:
            return _Spending.read(connection, scope, [_window_start(window, self._now())])[0].spent

        return self._read("read the spent budget", query)

    def remaining(self, scope: str, *, window: str | None = None) -> tuple[float, float] | None:
        """What ``scope`` may still spend now, (epsilon, delta) = limit - spent (never below 0),
        read in one transaction; None if no limit applies (diffprivlib's
        ``BudgetAccountant.remaining()``).

        Without ``window``, the least that remains over every window with a limit: a charge fits
        if and only if it is at most this (epsilon and delta); with ``window``, that window's.
        """
        scope = _check_scope(scope)
        names = list(WINDOWS) if window is None else [_check_window(window)]
        left = [
            budget.remaining
            for budget in self.budget(scope)
            if budget.window in names and budget.remaining is not None
        ]
        if not left:
            return None
        return min(epsilon for epsilon, _ in left), min(delta for _, delta in left)

    def budget(self, scope: str) -> list[WindowBudget]:
        """What ``scope`` spent, may spend and released in each window (:data:`WINDOWS` order),
        read in one transaction at the clock's time."""
        scope = _check_scope(scope)

        def query(connection: sqlite3.Connection) -> list[WindowBudget]:
            now, limits = self._now(), _limits(connection, scope)
            spendings = _Spending.read(
                connection, scope, [_window_start(window, now) for window in WINDOWS]
            )
            states = []
            for (window, seconds), spending in zip(WINDOWS.items(), spendings, strict=True):
                (epsilon, delta), limit = spending.spent, limits.get(window)
                states.append(
                    WindowBudget(
                        window=window,
                        seconds=seconds,
                        spent=spending.spent,
                        limit=limit,
                        remaining=None
                        if limit is None
                        else (max(limit[0] - epsilon, 0.0), max(limit[1] - delta, 0.0)),
                        releases=spending.releases,
                        units=spending.units,
                        largest_epsilon=spending.largest_epsilon,
                        next_expiry=None
                        if seconds is None or spending.oldest is None
                        else spending.oldest + seconds,
                    )
                )
            return states

        return self._read("read the budget", query)

    def unit(self, scope: str) -> str | None:
        """The accounting unit of ``scope`` (set by its first charge), or None."""
        scope = _check_scope(scope)
        return self._read("read a scope", lambda connection: _unit(connection, scope))

    def scopes(self) -> list[str]:
        """Every scope with events or a limit of its own, sorted (``"*"`` included if it has one)."""
        rows = self._read(
            "read the scopes",
            lambda connection: connection.execute(
                "SELECT scope FROM scopes UNION SELECT scope FROM limits ORDER BY scope"
            ).fetchall(),
        )
        return [str(row[0]) for row in rows]

    def history(self, scope: str) -> list[dict[str, Any]]:
        """Every event of ``scope``, oldest first (epsilon and delta per unit, and the count)."""
        scope = _check_scope(scope)
        rows = self._read(
            "read the history",
            lambda connection: connection.execute(_HISTORY_QUERY, (scope,)).fetchall(),
        )
        return [dict(zip(_EVENT_FIELDS, row, strict=True)) for row in rows]

    # -- charges ---------------------------------------------------------------------------------

    def charge(self, scope: str, event: DpEvent, *, charge_id: str | None = None) -> str:
        """Record ``event``, or raise BudgetError if it would exceed a limit or mix units.

        Returns the event id (a fresh UUID unless given; reusing an id is refused).
        """
        if charge_id is not None and (not isinstance(charge_id, str) or not charge_id):
            raise InputError("a charge id must be a non-empty string")
        scope, event = _check_scope(scope), _check_event(event)
        with self._transaction("record a charge") as connection:
            account = _Account(connection, scope, self._now())
            refusal = account.refusal(event)
            if refusal is not None:
                raise refusal
            _insert(connection, [account.take(event, charge_id or uuid.uuid4().hex)], [account])
        return account.ids[0]

    def charge_each(
        self,
        scope: str,
        events: Iterable[DpEvent],
        *,
        stop: bool = False,
        on_refused: Callable[[int, BudgetError], None] | None = None,
    ) -> list[str | None]:
        """Charge ``events`` to ``scope`` in order, in one transaction, refusing each one that
        does not fit.

        Each event is decided as if the events were charged one after the other with
        :meth:`charge` at one instant: it is recorded if it fits every window after the events
        recorded before it (of this batch too), else refused and the next one is tried. One
        synchronous commit serves the batch; a crash leaves all of it or none.

        Parameters
        ----------
        scope : str
            The scope charged.
        events : Iterable of DpEvent
            One event per release (``mechanism.privacy_cost([text])``).
        stop : bool, optional
            Refuse every event after the first refusal too (nothing after it is released);
            default ``False``. Keyword only.
        on_refused : callable, optional
            Called after the commit with the index and the :class:`~edgedp.BudgetError` of each
            refused event (the error :meth:`charge` would have raised; under ``stop``, the first
            only). Keyword only.

        Returns
        -------
        list of str or None
            The event id of each recorded event, ``None`` for each refused one: release exactly
            the ones with an id.

        Raises
        ------
        ~edgedp.InputError
            If an item is not a :class:`~edgedp.privacy.guarantee.DpEvent` (nothing is charged).
        ~edgedp.BudgetError
            A ``LedgerError`` when the ledger cannot be used: nothing is charged.
        """
        scope = _check_scope(scope)
        batch = [_check_event(event) for event in events]
        if not batch:
            return []
        ids: list[str | None] = []
        refusals: list[tuple[int, BudgetError]] = []
        with self._transaction("record a charge") as connection:
            account = _Account(connection, scope, self._now())
            rows = []
            for index, event in enumerate(batch):
                if stop and refusals:
                    ids.append(None)
                    continue
                refusal = account.refusal(event)
                if refusal is not None:
                    ids.append(None)
                    refusals.append((index, refusal))
                    continue
                rows.append(account.take(event, uuid.uuid4().hex))
                ids.append(account.ids[-1])
            _insert(connection, rows, [account])
        if on_refused is not None:
            for index, error in refusals:
                on_refused(index, error)
        return ids

    def charge_batch(self, charges: Sequence[tuple[str, DpEvent]]) -> list[str]:
        """Record many ``(scope, event)`` charges in one transaction, all or none.

        Each event is checked as if the events were charged one after the other (unit, and
        every window of its scope); the first that does not fit raises its
        :class:`~edgedp.BudgetError` and nothing is recorded. One synchronous commit serves the
        batch (corpus jobs charge one event per record). Returns the fresh event ids, in order.
        """
        checked = [(_check_scope(scope), _check_event(event)) for scope, event in charges]
        if not checked:
            return []
        with self._transaction("record a charge") as connection:
            now = self._now()
            accounts: dict[str, _Account] = {}
            rows = []
            for scope, event in checked:
                if scope not in accounts:
                    accounts[scope] = _Account(connection, scope, now)
                refusal = accounts[scope].refusal(event)
                if refusal is not None:
                    raise refusal
                rows.append(accounts[scope].take(event, uuid.uuid4().hex))
            _insert(connection, rows, list(accounts.values()))
        return [str(row[0]) for row in rows]

    def guard(self, mechanism: Chargeable, scope: str) -> Budgeted:
        """``mechanism`` wrapped so that every release is charged to ``scope`` first."""
        return Budgeted(mechanism, self, scope)


@dataclass(frozen=True, slots=True)
class _Spending:
    """The events of a scope in a window: their costs summed exactly, then rounded once (so
    that a total never exceeds a limit the exact sum is within), how many and when the first."""

    spent: tuple[float, float]
    releases: int
    units: int
    largest_epsilon: float
    oldest: float | None

    @classmethod
    def read(
        cls, connection: sqlite3.Connection, scope: str, starts: list[float]
    ) -> list[_Spending]:
        """The spending after each of ``starts``, from one read of the events."""
        rows = connection.execute(_COSTS_QUERY, (scope, min(starts))).fetchall()
        return [cls.of([row for row in rows if row[4] > start]) for start in starts]

    @classmethod
    def of(cls, rows: list[Any]) -> _Spending:
        return cls(
            spent=(math.fsum(row[0] for row in rows), math.fsum(row[1] for row in rows)),
            releases=len(rows),
            units=sum(int(row[2]) for row in rows),
            largest_epsilon=max((float(row[3]) for row in rows), default=0.0),
            oldest=min((float(row[4]) for row in rows), default=None),
        )


@dataclass
class _Window:
    """One window's limit and spending while a transaction decides charges (see :class:`_Account`).

    ``spent`` is SQLite's float sum of the recorded costs plus the float costs taken since, over
    ``terms`` terms; ``exact`` the exact sum of the recorded costs, read only when the floats'
    rounding could decide (:meth:`fits`).
    """

    name: str
    start: float
    limit: tuple[float, float]
    spent: list[float]
    terms: int
    taken: list[tuple[float, float]] = field(default_factory=list)
    exact: tuple[Fraction, Fraction] | None = None

    def fits(self, connection: sqlite3.Connection, scope: str, cost: tuple[float, float]) -> bool:
        """Whether the exact sum of the window's costs and ``cost`` is within the limit, in
        epsilon and in delta."""
        for index in (0, 1):
            total, limit = self.spent[index] + cost[index], self.limit[index]
            # |float sum - exact sum| <= (terms + 1) u * sum of non-negative terms, u = 2^-53,
            # whatever order SQLite adds in; a generous margin, the exact sum inside it
            margin = (self.terms + 8) * 2.0**-50 * max(total, limit)
            if total - margin > limit:
                return False
            if total + margin > limit and self._exact(connection, scope, index, cost) > limit:
                return False
        return True

    def _exact(
        self, connection: sqlite3.Connection, scope: str, index: int, cost: tuple[float, float]
    ) -> Fraction:
        if self.exact is None:
            rows = connection.execute(_COSTS_QUERY, (scope, self.start)).fetchall()
            self.exact = (
                sum((Fraction(row[0]) for row in rows), Fraction(0)),
                sum((Fraction(row[1]) for row in rows), Fraction(0)),
            )
        taken = sum((Fraction(item[index]) for item in self.taken), Fraction(0))
        return self.exact[index] + taken + Fraction(cost[index])

    def take(self, cost: tuple[float, float]) -> None:
        self.spent = [self.spent[0] + cost[0], self.spent[1] + cost[1]]
        self.terms += 1
        self.taken.append(cost)


class _Account:
    """One scope's unit and windows in one write transaction at one instant (``now``): decides
    charges as if they were made one after the other, and takes those that fit."""

    def __init__(self, connection: sqlite3.Connection, scope: str, now: float) -> None:
        self.connection, self.scope, self.now = connection, scope, now
        self.unit = _unit(connection, scope)
        self.unit_is_new = False  # set by an event taken in this transaction
        self.ids: list[str] = []
        self.windows = []
        for name, limit in _limits(connection, scope).items():
            # one indexed range per window: faster than one pass summing every window (CASE)
            start = _window_start(name, now)
            row = connection.execute(_TOTALS_QUERY, (scope, start)).fetchone()
            self.windows.append(
                _Window(name, start, limit, [float(row[0]), float(row[1])], int(row[2]))
            )

    def refusal(self, event: DpEvent) -> BudgetError | None:
        """Why ``event`` cannot be charged now, or None if it fits."""
        unit = event.guarantee.accounting_unit
        if self.unit is not None and self.unit != unit:
            if self.unit_is_new:
                return BudgetError(
                    f"scope {self.scope!r} is charged in {self.unit} and {unit} in one batch; "
                    "nothing was released"
                )
            return BudgetError(
                f"scope {self.scope!r} accounts in {self.unit}; this release is in {unit}: use "
                "another scope; nothing was released"
            )
        cost = (event.epsilon, event.delta)
        for window in self.windows:
            if not window.fits(self.connection, self.scope, cost):
                return BudgetError(self._refused(window, cost))
        return None

    def take(self, event: DpEvent, charge_id: str) -> tuple[Any, ...]:
        """Count ``event`` (that fits) in every window; the row that records it."""
        if self.unit is None:
            self.unit, self.unit_is_new = event.guarantee.accounting_unit, True
        for window in self.windows:
            window.take((event.epsilon, event.delta))
        self.ids.append(charge_id)
        guarantee = event.guarantee
        return (
            charge_id,
            self.scope,
            event.mechanism,
            guarantee.accounting_unit,
            guarantee.relation,
            guarantee.epsilon,
            guarantee.delta,
            event.count,
            self.now,
        )

    def _refused(self, window: _Window, cost: tuple[float, float]) -> str:
        """The one-line refusal: which window, what it holds and needs, when it frees up."""
        limit, spent = window.limit, window.spent
        name = "lifetime" if window.name == "lifetime" else f"per-{window.name}"
        over = f" in any {_LENGTHS[window.name]}" if window.name in _LENGTHS else ""
        return (
            f"scope {self.scope!r}: the {name} limit (epsilon {limit[0]:.6g}, delta "
            f"{limit[1]:.3g}{over}) refuses this release of epsilon {cost[0]:.6g} (delta "
            f"{cost[1]:.3g}): {spent[0]:.6g} (delta {spent[1]:.3g}) spent in "
            f"{WINDOW_SPANS[window.name]}; {self._frees(window, cost)}; nothing was released"
        )

    def _frees(self, window: _Window, cost: tuple[float, float]) -> str:
        """When enough of ``window`` frees up for ``cost`` (its oldest events leaving it)."""
        if cost[0] > window.limit[0] or cost[1] > window.limit[1]:
            return "it exceeds that limit on its own and is never released under it"
        seconds = WINDOWS[window.name]
        if seconds is None:
            return "a lifetime budget never frees up"
        rows = self.connection.execute(
            "SELECT created, epsilon * count, delta * count FROM events WHERE scope = ? AND "
            "created > ? ORDER BY created",
            (self.scope, window.start),
        ).fetchall()
        left = list(window.spent)
        for created, epsilon, delta in [*rows, *((self.now, *item) for item in window.taken)]:
            left = [left[0] - epsilon, left[1] - delta]
            if left[0] + cost[0] <= window.limit[0] and left[1] + cost[1] <= window.limit[1]:
                return f"enough frees up at {timestamp(created + seconds)}"
        return f"enough frees up at {timestamp(self.now + seconds)}"  # rounding: all expired


def timestamp(seconds: float) -> str:
    """Seconds since the epoch as an ISO 8601 time in UTC (``2026-11-30T14:02:11+00:00``)."""
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds")


def _insert(
    connection: sqlite3.Connection, rows: list[tuple[Any, ...]], accounts: list[_Account]
) -> None:
    """Record the events taken and the unit of each scope charged for the first time."""
    for account in accounts:
        if account.unit_is_new:
            connection.execute("INSERT INTO scopes VALUES (?, ?)", (account.scope, account.unit))
    try:
        connection.executemany(_INSERT, rows)
    except sqlite3.IntegrityError:
        raise InputError("a charge id was already recorded") from None


#: Every ledger of this process (weakly): a forked child must not use their connections.
_LEDGERS: weakref.WeakSet[PrivacyLedger] = weakref.WeakSet()
#: Connections inherited across a fork: kept, never used or closed in the child.
_INHERITED: list[sqlite3.Connection] = []


def _abandon_connections_after_fork() -> None:
    """In a forked child, set every ledger's inherited connection aside: SQLite forbids using a
    connection opened before a fork in the child (its locks are the parent's), so each ledger
    opens its own at its next call; the inherited ones are kept referenced, never closed here."""
    for ledger in list(_LEDGERS):
        if ledger._open is not None:
            _INHERITED.append(ledger._open)
            ledger._open = None
        ledger._lock = threading.Lock()  # another thread may have held it at the fork


os.register_at_fork(after_in_child=_abandon_connections_after_fork)


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


def _check_window(window: object) -> str:
    return check_choice(window, "window", WINDOWS)


def _check_event(event: object) -> DpEvent:
    if not isinstance(event, DpEvent):
        raise InputError(
            f"a charge is a DpEvent (mechanism.privacy_cost(inputs)), got {type(event).__name__}"
        )
    return event


def _window_start(window: str, now: float) -> float:
    """Events created after this time are in ``window`` at ``now``."""
    seconds = WINDOWS[window]
    return -math.inf if seconds is None else now - seconds


def _bring_up_to_date(connection: sqlite3.Connection, path: Path) -> None:
    """Create the tables of a new ledger, or migrate an older one to :data:`LEDGER_VERSION`."""
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    if version == LEDGER_VERSION:
        return
    if version > LEDGER_VERSION:
        raise LedgerError(
            f"privacy ledger {path} has version {version}, written by a newer edgedp (this one "
            f"reads up to version {LEDGER_VERSION}): upgrade edgedp; nothing was released"
        )
    for statement in _TABLES.split(";"):
        connection.execute(statement)
    _migrate_charges(connection)
    _migrate_limits(connection)
    connection.execute(_LIMITS)
    connection.execute("DROP INDEX IF EXISTS events_scope")  # version 2's, on scope alone
    connection.execute(_INDEX)
    connection.execute(f"PRAGMA user_version = {LEDGER_VERSION}")


def _migrate_charges(connection: sqlite3.Connection) -> None:
    """Bring a version-1 ledger's bare totals per charge to events.

    A version-1 charge knew its mechanism but not its unit: the unit is taken from the mechanism's
    name where that names it, and charges of an unknown mechanism stay in the unit ``legacy``.
    """
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
    if not has_charges:
        return
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


def _migrate_limits(connection: sqlite3.Connection) -> None:
    """A version-1 or -2 ledger's one limit per scope becomes its lifetime limit."""
    columns = {row[1] for row in connection.execute("PRAGMA table_info(limits)")}
    if not columns or "window_name" in columns:
        return
    connection.execute("ALTER TABLE limits RENAME TO limits_version_2")
    connection.execute(_LIMITS)
    connection.execute(
        "INSERT INTO limits SELECT scope, 'lifetime', epsilon, delta FROM limits_version_2"
    )
    connection.execute("DROP TABLE limits_version_2")


def _limits(connection: sqlite3.Connection, scope: str) -> dict[str, tuple[float, float]]:
    """The limit of each window that has one for ``scope``: its own, else the default scope's."""
    rows = connection.execute(
        "SELECT window_name, max_epsilon, max_delta FROM limits WHERE scope IN (?, ?) "
        "ORDER BY scope = ?",
        (scope, _DEFAULT_SCOPE, _DEFAULT_SCOPE),
    ).fetchall()
    limits: dict[str, tuple[float, float]] = {}
    for window, epsilon, delta in rows:
        limits.setdefault(str(window), (float(epsilon), float(delta)))
    return {window: limits[window] for window in WINDOWS if window in limits}


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
        # the release reuses what the charge read (a word mechanism's cut of each text)
        reading_once = getattr(self.mechanism, "reading_once", contextlib.nullcontext)
        with reading_once():
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
