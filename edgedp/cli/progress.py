"""Progress of slow commands on stderr: the smallest reporter ``explain``, ``tune`` and the word
mechanisms' one-time set-ups need (issue 25).

Issue 26 brings the general one (``edgedp.progress``); this one has the same interface
(:class:`Progress` as a context manager, :meth:`Progress.update`) so that the two merge into one.
What is shown, and when: **never on stdout**; on a terminal one line redrawn in place once the work
has run :data:`DELAY_SECONDS`; off a terminal nothing, unless ``EDGEDP_PROGRESS=1`` (``0`` turns it
off everywhere). A line says how far the work is, never what the data is.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable
from types import TracebackType
from typing import TextIO

#: Seconds of work before anything is shown on a terminal.
DELAY_SECONDS = 2.0
#: Seconds between redraws.
REDRAW_SECONDS = 0.25
ENVIRONMENT = "EDGEDP_PROGRESS"


class Progress:
    """Progress of one piece of work (``description``) towards ``total`` (``None``: unknown)."""

    def __init__(
        self,
        description: str,
        *,
        total: float | None = None,
        unit: str = "",
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.description, self.total, self.unit = description, total, unit
        self.done = 0.0
        self._stream = sys.stderr if stream is None else stream
        self._clock = clock
        asked = os.environ.get(ENVIRONMENT, "").strip()
        terminal = _is_terminal(self._stream)
        self.enabled = terminal if asked not in ("0", "1") else asked == "1"
        self._terminal = terminal
        self._delay = DELAY_SECONDS if asked != "1" else 0.0
        self._started = clock()
        self._shown = -math.inf
        self._drawn = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._drawn:
            self._stream.write("\n")
            self._stream.flush()

    def update(self, amount: float = 1) -> None:
        """``amount`` more is done; shows a line if it is time to."""
        self.done += amount
        now = self._clock()
        if not self.enabled or now - self._started < self._delay:
            return
        if now - self._shown < REDRAW_SECONDS:
            return
        self._shown = now
        line = f"edgedp: {self.description}: {self.done:,.0f}"
        if self.total:
            line += f" of {self.total:,.0f} {self.unit} ({min(self.done / self.total, 1.0):.0%})"
        elif self.unit:
            line += f" {self.unit}"
        line += f", {now - self._started:.0f} s"
        self._stream.write(f"\r{line}\x1b[K" if self._terminal else line + "\n")
        self._stream.flush()
        self._drawn = self._terminal

    def reporter(self) -> Callable[[float, float], None]:
        """A ``(done, total)`` callback (what the evaluation and the mechanisms report)."""

        def report(done: float, total: float) -> None:
            self.total = total
            self.update(done - self.done)

        return report


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False
