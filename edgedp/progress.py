"""Progress of slow work, on stderr: a tiny reporter (edgedp has no tqdm at run time).

Every command that can run longer than a couple of seconds (``privatize`` of a large file,
``embed``, verifying a big pack, ...) wraps its work in a :class:`Progress`. What is shown, and when:

* **never on stdout**, so piped output is byte for byte the same with or without it;
* **on a terminal** (stderr is a TTY): one line redrawn in place, at most every
  :data:`REDRAW_SECONDS`, and only once the work has run :data:`DELAY_SECONDS` (a fast command
  prints nothing); the last state stays on screen, followed by a line break;
* **not on a terminal** (a pipe, a log file, a test): nothing, unless asked with
  ``EDGEDP_PROGRESS=1``: then one line per :data:`LOG_SECONDS` and a last one at the end, from the
  start. ``EDGEDP_PROGRESS=0`` turns it off everywhere.

A progress line says what is done, never what the data is: counts, bytes, rates and the time
left, e.g. ``edgedp: privatize: 12.0 MB of 20.0 MB (60 %), 1.5 MB/s, 5 s left``.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import TextIO, TypeVar

T = TypeVar("T")

#: Seconds of work before anything is shown on a terminal.
DELAY_SECONDS = 2.0
#: Seconds between redraws on a terminal.
REDRAW_SECONDS = 0.25
#: Seconds between lines when asked for progress off a terminal (EDGEDP_PROGRESS=1).
LOG_SECONDS = 5.0
#: The environment variable: ``1`` shows progress everywhere, ``0`` nowhere, unset: terminals.
ENVIRONMENT = "EDGEDP_PROGRESS"

#: The program name at the head of every line (the package's name).
PROGRAM = __name__.partition(".")[0]

#: Told ``(done, total)`` as work goes: how library code that does not print (an evaluation, a
#: mechanism's one-time set-up) reports progress; :meth:`Progress.reporter` makes one.
ProgressCallback = Callable[[float, float], None]

_ACTIVE: list[Progress] = []


def _asked() -> bool | None:
    """``EDGEDP_PROGRESS``: True (1, yes, on, true), False (0, no, off, false), else None."""
    value = os.environ.get(ENVIRONMENT, "").strip().lower()
    if value in ("1", "yes", "on", "true", "always"):
        return True
    if value in ("0", "no", "off", "false", "never"):
        return False
    return None


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def format_amount(amount: float, unit: str) -> str:
    """``12.3 MB`` for bytes (unit ``B``), ``1,234 documents`` otherwise (``0.25 epsilons``
    below one: a slow rate)."""
    if unit == "B":
        for scale, name in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
            if amount >= scale:
                return f"{amount / scale:.1f} {name}"
        return f"{amount:.0f} B"
    if 0 < amount < 1:
        return f"{amount:.2g} {unit}".rstrip()
    return f"{amount:,.0f} {unit}".rstrip()


def _format_duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class Progress:
    """Progress of one piece of work, reported on stderr (see the module docstring).

    ``description`` names the work (``"privatize"``), ``total`` is the amount expected (``None``:
    unknown), ``unit`` what is counted (``"B"`` for bytes, shown as kB/MB/GB). ``show`` forces the
    decision (``True``/``False``) instead of the terminal test and ``EDGEDP_PROGRESS``; ``stream``
    and ``clock`` are for tests. Use it as a context manager; :meth:`update` after each piece.
    """

    def __init__(
        self,
        description: str,
        *,
        total: float | None = None,
        unit: str = "",
        show: bool | None = None,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.description = description
        self.total = total if total is None or total > 0 else None
        self.unit = unit
        self.done = 0.0
        self._stream = stream if stream is not None else sys.stderr
        self._clock = clock
        self._terminal = _is_terminal(self._stream)
        asked = _asked() if show is None else show
        self.enabled = self._terminal if asked is None else asked
        # asked for explicitly: from the start; on a terminal by default: after DELAY_SECONDS
        self._delay = DELAY_SECONDS if asked is None else 0.0
        self._interval = REDRAW_SECONDS if self._terminal else LOG_SECONDS
        self._started = clock()
        self._last_shown: float | None = None
        self._shown_done: float | None = None  # what the last line said was done
        self._drawn = False  # a line is on screen without its line break
        self._closed = False

    def __enter__(self) -> Progress:
        _ACTIVE.append(self)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close(finished=kind is None)

    def update(self, amount: float = 1) -> None:
        """``amount`` more is done; shows a line if it is time to."""
        self.done += amount
        if not self.enabled:
            return
        now = self._clock()
        if now - self._started < self._delay:
            return
        if self._last_shown is not None and now - self._last_shown < self._interval:
            return
        self._show(now)

    def reporter(self) -> ProgressCallback:
        """A ``(done, total)`` callback that moves this progress to ``done`` of ``total``."""

        def report(done: float, total: float) -> None:
            self.total = total if total > 0 else None
            self.update(done - self.done)

        return report

    def line(self, now: float | None = None) -> str:
        """The current state in words (no line break)."""
        elapsed = (self._clock() if now is None else now) - self._started
        parts = [format_amount(self.done, self.unit)]
        if self.total is not None:
            share = min(self.done / self.total, 1.0)
            parts = [f"{parts[0]} of {format_amount(self.total, self.unit)} ({share:.0%})"]
        rate = self.done / elapsed if elapsed > 0 else 0.0
        if rate > 0:
            parts.append(f"{format_amount(rate, self.unit)}/s")
            if self.total is not None and self.done < self.total:
                parts.append(f"{_format_duration((self.total - self.done) / rate)} left")
        return f"{PROGRAM}: {self.description}: " + ", ".join(parts)

    def _show(self, now: float) -> None:
        text = self.line(now)
        if self._terminal:
            self._stream.write(f"\r{text}\x1b[K")
            self._drawn = True
        else:
            self._stream.write(text + "\n")
        self._stream.flush()
        self._last_shown, self._shown_done = now, self.done

    def clear(self) -> None:
        """End the line on screen, so that a message can be printed below it."""
        if self._drawn:
            self._stream.write("\n")
            self._stream.flush()
            self._drawn = False

    def close(self, *, finished: bool = True) -> None:
        """The last state (if anything was shown, or if asked for off a terminal), then a line
        break; after an error only the line break, so that the error starts a line of its own."""
        if self._closed:
            return
        self._closed = True
        if self in _ACTIVE:
            _ACTIVE.remove(self)
        shown = self._last_shown is not None
        due = finished and self.enabled and (shown or not self._terminal)
        if due and self._shown_done != self.done:
            self._show(self._clock())
        self.clear()


def track(
    items: Iterable[T],
    description: str,
    *,
    total: float | None = None,
    unit: str = "",
    size: Callable[[T], float] | None = None,
) -> Iterator[T]:
    """Yield ``items``, reporting progress after each one (``size(item)`` of ``unit``, else 1)."""
    with Progress(description, total=total, unit=unit) as progress:
        for item in items:
            yield item
            progress.update(1 if size is None else size(item))


def message(text: str) -> None:
    """Print ``text`` as one line on stderr, below any progress line on screen."""
    for progress in _ACTIVE:
        progress.clear()
    print(text, file=sys.stderr, flush=True)
