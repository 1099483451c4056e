"""The read step of the commands that read documents (``privatize``, ``embed``): FILE or stdin,
decoded strictly and incrementally, in bounded blocks whose bytes are counted for progress.

A :class:`Reader` gives its input as a stream of text (:meth:`Reader.pieces`, bounded memory
whatever the line lengths) or as lines (:meth:`Reader.lines`). Bytes the encoding cannot decode
end the input with an :class:`~edgedp.errors.InputError` naming their offset, unless the reader is
given an ``--on-error`` policy (:class:`~edgedp.text.records.BadRecords`): then the line that
holds them is that policy's bad line. ``skip`` reports it on one stderr line and leaves the line
out (a stream keeps its line break, so one line still comes out per line in); ``stop`` ends the
input before it, so that the lines before it are released and written, and keeps the error in
:attr:`Reader.failure` for the command to raise then. A line that part of was already passed on
(longer than :data:`HOLD_CHARS`) is cut at its bad bytes.
"""

from __future__ import annotations

import codecs
import os
import stat
import sys
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, BinaryIO

from edgedp.errors import InputError
from edgedp.progress import Progress
from edgedp.text.records import BadRecords, parse_record
from edgedp.text.segmentation import MAX_TEXT_CHARS

#: Bytes read at a time; each read is decoded whole (64 kB reads cost more peak RSS:
#: bench/reports/2026-11-23-footprint.md).
READ_BYTES = 1 << 14
#: Characters of a line held back until its end, so that a bad byte anywhere in it drops it whole;
#: a longer line is passed on as it comes (a stream's memory stays bounded).
HOLD_CHARS = READ_BYTES
#: What stands for undecodable bytes in decoded text: a lone surrogate, which no strictly decoded
#: text holds (and which every release refuses, should one ever get that far).
BAD_BYTES = "\udcff"
_BAD_INPUT_ERRORS = "edgedp.bad-input"
#: Where each undecodable run starts in the bytes of the decode call that met it.
_BAD_STARTS: ContextVar[list[int]] = ContextVar("bad input starts")


def _mark_bad_bytes(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeDecodeError):
        raise error
    _BAD_STARTS.get().append(error.start)
    return BAD_BYTES, error.end


codecs.register_error(_BAD_INPUT_ERRORS, _mark_bad_bytes)


def text_decoder(encoding: str, errors: str = "strict") -> codecs.IncrementalDecoder:
    """An incremental decoder for ``encoding``, which must decode bytes to text.

    Python's codec registry also holds bytes-to-bytes codecs (``base64``, ``hex``, ``zlib``) and
    text-to-text ones (``rot13``); they are refused here, by the registry's own flag.
    """
    try:
        info = codecs.lookup(encoding)
    except (LookupError, TypeError, ValueError):
        raise InputError(f"unknown encoding {encoding!r}") from None
    if not getattr(info, "_is_text_encoding", True):
        raise InputError(
            f"{encoding!r} is not a text encoding (it does not decode bytes to text); use e.g. "
            "utf-8, utf-16 or latin-1"
        )
    return info.incrementaldecoder(errors=errors)


def open_input(path: str | BinaryIO | None) -> BinaryIO:
    """The binary input stream: stdin for ``None`` or ``-``; a stream already open, as it is."""
    if path is None or path == "-":
        return sys.stdin.buffer
    if not isinstance(path, str):
        return path
    try:
        return open(path, "rb")  # closed by the caller's with-statement
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror or error}") from None


def input_bytes(paths: Sequence[str | None]) -> int | None:
    """The bytes of the inputs if every one is a regular file (what progress counts up to); None
    for stdin or a pipe."""
    total = 0
    for path in paths:
        if path in (None, "-"):
            return None
        try:
            status = os.stat(path)
        except OSError:
            return None  # open_input reports it
        if not stat.S_ISREG(status.st_mode):
            return None
        total += status.st_size
    return total


class Line(str):
    """A line of input; ``drained``: the input held nothing more when it was read (a pipe
    waiting for its writer), so whatever is batched with it should be released now; ``skipped``:
    a line the encoding cannot decode, left out under ``--on-error skip`` (its text is empty,
    its line break kept)."""

    drained: bool = False
    skipped: bool = False


def too_long(where: str) -> InputError:
    return InputError(
        f"{where}: a document is longer than the limit of {MAX_TEXT_CHARS:,} characters; split "
        "it (e.g. --input lines or jsonl)"
    )


def _body(line: str) -> str:
    """``line`` without its line break."""
    return line.splitlines()[0] if line else ""


class Reader:
    """One input, FILE or stdin (``path`` ``None`` or ``-``) or a binary stream, read in
    ``encoding``; see the module docstring. ``bad`` is the ``--on-error`` policy for undecodable
    lines (``None``: they end the input with an error); ``name`` prefixes the line numbers in
    messages (``name:3``)."""

    def __init__(
        self,
        path: str | BinaryIO | None,
        encoding: str,
        progress: Progress | None = None,
        *,
        bad: BadRecords | None = None,
        name: str | None = None,
    ) -> None:
        self.path, self.encoding, self.progress = path, encoding, progress
        self.bad = bad
        self.name = name
        #: Under ``--on-error stop``, the undecodable line that ended the input.
        self.failure: InputError | None = None
        self._starts: list[int] = []  # where each undecodable run starts, not yet reported

    def blocks(self) -> Iterator[tuple[str, bool]]:
        """The decoded input in pieces of one read each, with, for each, whether the read was
        short: the input held nothing more at that moment (a pipe between two writes), so what
        was read should be answered now rather than batched with what has not come yet."""
        decoder = text_decoder(self.encoding, "strict" if self.bad is None else _BAD_INPUT_ERRORS)
        offset = 0
        first = True
        with open_input(self.path) as stream:
            # read1: what the pipe holds now (at least a byte), so a line typed into a pipe is
            # read, and released, before the next one arrives; read() would wait for READ_BYTES.
            read = getattr(stream, "read1", stream.read)
            while True:
                block = read(READ_BYTES)
                pending = len(decoder.getstate()[0])
                starts: list[int] = []
                token = _BAD_STARTS.set(starts)
                try:
                    text = decoder.decode(block, final=not block)
                except UnicodeDecodeError as error:
                    raise InputError(
                        f"input is not valid {self.encoding} at byte "
                        f"{offset - pending + error.start}; convert it (e.g. iconv) or pass "
                        "--encoding"
                    ) from None
                except UnicodeError as error:  # e.g. "UTF-16 stream does not start with BOM"
                    raise InputError(
                        f"input is not valid {self.encoding} ({error}); convert it (e.g. iconv) "
                        "or pass --encoding"
                    ) from None
                finally:
                    _BAD_STARTS.reset(token)
                self._starts += [offset - pending + start for start in starts]
                offset += len(block)
                if self.progress is not None:
                    self.progress.update(len(block))
                if first and text:  # a byte order mark the codec kept (utf-8, ...) is not text
                    text, first = text.removeprefix("\ufeff"), False
                if text:
                    yield text, len(block) < READ_BYTES
                if not block:
                    return

    def _bad_line(self, number: int, text: str) -> bool:
        """Handle line ``number`` if ``text`` (all or part of it) holds undecodable bytes: True if
        it does (reported under skip; under stop :attr:`failure` is set and the input ends)."""
        policy, marks = self.bad, text.count(BAD_BYTES)
        if policy is None or not marks:
            return False
        first = self._starts[0]
        self._forget(text)
        where = f"{self.name}:{number}" if self.name else f"line {number}"
        error = InputError(
            f"{where}: not valid {self.encoding} at byte {first}; convert it (e.g. iconv) or "
            "pass --encoding"
        )
        if policy.stops:
            self.failure = error
        else:
            policy.skip(error)
        return True

    def _forget(self, text: str) -> None:
        """Drop the offsets of the undecodable runs in ``text`` (reported, or dropped with it)."""
        self._starts = self._starts[text.count(BAD_BYTES) :]

    def pieces(self) -> Iterator[str]:
        """The input as a stream of text, each line's text passed on once it ends (or once it
        is longer than :data:`HOLD_CHARS`); an undecodable line is handled per :attr:`bad`."""
        held = ""  # the start of the current line, not passed on yet
        passed = False  # part of the current line was passed on
        dropping = False  # the rest of a bad line that was partly passed on
        number = 1
        for text, _ in self.blocks():
            lines = (held + text).splitlines(keepends=True)
            held, out = "", list[str]()
            last = lines.pop() if lines and _incomplete(lines[-1]) else ""
            for line in lines:
                if not dropping and self._bad_line(number, line):
                    if self.failure is not None:
                        yield from out
                        return
                    line = line[len(_body(line)) :]  # its line break alone
                elif dropping:
                    self._forget(line)
                    line = line[len(_body(line)) :]
                out.append(line)
                number, passed, dropping = number + 1, False, False
            if last:
                if not dropping and self._bad_line(number, last):
                    if self.failure is not None:
                        yield from out
                        return
                    dropping = True
                elif not dropping and (passed or len(last) > HOLD_CHARS):
                    out.append(last)
                    passed = True
                elif not dropping:
                    held = last
                else:
                    self._forget(last)
            if out:
                yield "".join(out)
        if held:
            yield held

    def lines(self, *, keep_ends: bool = False) -> Iterator[Line]:
        """The input's lines (as ``str.splitlines`` cuts them, without their ends unless
        ``keep_ends``), each as soon as it is complete; a line over :data:`MAX_TEXT_CHARS` is
        refused as soon as it passes the limit, an undecodable one is handled per :attr:`bad`
        (skipped: a :class:`Line` with ``skipped`` set)."""
        pending = ""  # the last line seen, maybe incomplete (or a "\r" whose "\n" comes next)
        number = 1
        for piece, drained in self.blocks():
            lines = (pending + piece).splitlines(keepends=True)
            pending = lines.pop() if lines and _incomplete(lines[-1]) else ""
            if len(pending) > MAX_TEXT_CHARS:
                raise too_long(self.path if isinstance(self.path, str) else "stdin")
            for index, text in enumerate(lines):
                line = self._line(number, text, keep_ends)
                if line is None:
                    return
                line.drained = drained and index == len(lines) - 1 and not pending
                yield line
                number += 1
        if pending:
            line = self._line(number, pending, keep_ends)
            if line is not None:
                line.drained = True
                yield line

    def messages(self, input_format: str) -> Iterator[Message]:
        """The input as messages, each released on its own: lines (``text``, with their line
        breaks) or JSON Lines records (``jsonl``: an object with a ``"text"`` string; an empty
        line stays empty; a bad record, like an undecodable line, is handled per :attr:`bad`)."""
        if input_format == "text":
            for number, line in enumerate(self.lines(keep_ends=True), start=1):
                ending = line[len(_body(line)) :]
                text = None if line.skipped else str(line)
                yield Message(f"line {number}", text, ending, drained=line.drained)
            return
        for number, line in enumerate(self.lines(), start=1):
            where = f"line {number}"
            if line.skipped:
                continue
            if not line.strip():
                yield Message(where, None, "\n", drained=line.drained)
                continue
            try:
                record = parse_record(line, where)
            except InputError as error:
                if self.bad is None or self.bad.stops:
                    self.failure = error
                    return
                self.bad.skip(error)
                continue
            yield Message(where, record["text"], record=record, drained=line.drained)

    def _line(self, number: int, text: str, keep_ends: bool) -> Line | None:
        """Line ``number`` of ``text`` (with its break); None if it ends the input (stop)."""
        skipped = self._bad_line(number, text)
        if self.failure is not None:
            return None
        if skipped:
            text = text[len(_body(text)) :]
        line = Line(text if keep_ends else _body(text))
        line.skipped = skipped
        return line


def _incomplete(line: str) -> bool:
    """Whether the last line of a block may go on in the next: no line break yet, or a ``\\r``
    whose ``\\n`` may come next."""
    return len(_body(line)) == len(line) or line.endswith("\r")


@dataclass
class Message:
    """A line (``--input text`` with a ledger) or a JSON Lines record, released on its own.

    ``text`` is what is privatized (a line with its line break), ``None`` for nothing (an empty
    record line, a skipped line); ``ending`` is what a line that is not released leaves (its line
    break); ``record`` is a record's object, its ``"text"`` replaced on release; ``drained``: see
    :class:`Line`.
    """

    where: str
    text: str | None
    ending: str = ""
    record: dict[str, Any] | None = None
    drained: bool = False
