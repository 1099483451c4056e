"""Input and output of the commands that read documents (``privatize``, ``embed``).

Input is decoded strictly and incrementally, in bounded pieces, from FILE or stdin; its bytes are
counted for progress. Output goes to stdout or to ``--output``: a file is written beside its target
and renamed into place once the command succeeds, so a failure never leaves half a file (nor
truncates the previous one), and a missing directory is refused before any work.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import os
import stat
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

from edgedp.errors import InputError
from edgedp.progress import Progress
from edgedp.text.segmentation import MAX_TEXT_CHARS

#: Bytes read at a time; each read is decoded whole (64 kB reads cost more peak RSS:
#: bench/reports/2026-11-23-footprint.md).
READ_BYTES = 1 << 14


def text_decoder(encoding: str) -> codecs.IncrementalDecoder:
    """A strict incremental decoder for ``encoding``, which must decode bytes to text.

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
    return info.incrementaldecoder(errors="strict")


def read_pieces(stream: BinaryIO, encoding: str, progress: Progress | None = None) -> Iterator[str]:
    """Decode ``stream`` incrementally and strictly, in bounded pieces (each block's bytes are
    reported to ``progress``).

    A byte order mark is honoured by ``utf-16``/``utf-32`` and dropped by every other codec; input that
    ends inside a character (an odd byte count in UTF-16) or that a codec rejects is an
    :class:`InputError` naming the byte offset where known.
    """
    for text, _ in read_blocks(stream, encoding, progress):
        yield text


def read_blocks(
    stream: BinaryIO, encoding: str, progress: Progress | None = None
) -> Iterator[tuple[str, bool]]:
    """:func:`read_pieces` with, for each piece, whether its read was short: the input held
    nothing more at that moment (a pipe between two writes), so what was read should be answered
    now rather than batched with what has not come yet."""
    decoder = text_decoder(encoding)
    offset = 0
    first = True
    # read1: what the pipe holds now (at least a byte), so a line typed into a pipe is read, and
    # released, before the next one arrives; read() would wait for READ_BYTES or the end.
    read = getattr(stream, "read1", stream.read)
    while True:
        block = read(READ_BYTES)
        try:
            text = decoder.decode(block, final=not block)
        except UnicodeDecodeError as error:
            raise InputError(
                f"input is not valid {encoding} at byte {offset + error.start}; convert it "
                "(e.g. iconv) or pass --encoding"
            ) from None
        except UnicodeError as error:  # e.g. "UTF-16 stream does not start with BOM"
            raise InputError(
                f"input is not valid {encoding} ({error}); convert it (e.g. iconv) or pass "
                "--encoding"
            ) from None
        offset += len(block)
        if progress is not None:
            progress.update(len(block))
        if first and text:  # a byte order mark the codec kept (utf-8, utf-16-le ...) is not text
            text, first = text.removeprefix("\ufeff"), False
        if text:
            yield text, len(block) < READ_BYTES
        if not block:
            return


def open_input(path: str | None) -> BinaryIO:
    """The binary input stream: stdin for ``None`` or ``-``."""
    if path in (None, "-"):
        return sys.stdin.buffer
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
    waiting for its writer), so whatever is batched with it should be released now."""

    drained: bool = False


def read_lines(
    path: str | None,
    encoding: str,
    progress: Progress | None = None,
    *,
    keep_ends: bool = False,
) -> Iterator[Line]:
    """The input's lines (as ``str.splitlines`` cuts them, without their ends unless
    ``keep_ends``), streamed as soon as each is complete; a line over :data:`MAX_TEXT_CHARS` is
    refused as soon as it passes the limit."""
    pending = ""  # the last line seen, maybe incomplete (or a "\r" whose "\n" comes next)
    with open_input(path) as source:
        for piece, drained in read_blocks(source, encoding, progress):
            lines = (pending + piece).splitlines(keepends=True)
            pending = lines.pop() if lines and not lines[-1].endswith("\n") else ""
            if len(pending) > MAX_TEXT_CHARS:
                raise too_long(path or "stdin")
            for index, line in enumerate(lines):
                yield _line(line, drained and index == len(lines) - 1 and not pending, keep_ends)
    if pending:
        yield _line(pending, True, keep_ends)


def _line(text: str, drained: bool, keep_ends: bool) -> Line:
    line = Line(text if keep_ends else text.splitlines()[0])
    line.drained = drained
    return line


def too_long(where: str) -> InputError:
    return InputError(
        f"{where}: a document is longer than the limit of {MAX_TEXT_CHARS:,} characters; split "
        "it (e.g. --input lines or jsonl)"
    )


def check_output(path: Path | None, suffixes: Sequence[str] = ()) -> None:
    """Refuse an ``--output`` that cannot be written, before any work: a missing or non-directory
    parent, a directory in its place, or a suffix not in ``suffixes`` (if given)."""
    if path is None:
        return
    if suffixes and path.suffix not in suffixes:
        raise InputError(f"--output must end in {' or '.join(suffixes)}, got {str(path)!r}")
    parent = path.parent
    if not parent.is_dir():
        raise InputError(f"--output {path}: the directory {parent} does not exist")
    if path.is_dir():
        raise InputError(f"--output {path} is a directory; name a file")


@contextlib.contextmanager
def output_file(path: Path) -> Iterator[Path]:
    """A temporary path beside ``path``, renamed to ``path`` if the block succeeds, else removed."""
    temporary = path.parent / f".{path.name}.tmp-{os.urandom(4).hex()}"  # secrets loads OpenSSL
    # created as open() would create the file itself (0666 less the umask), never over another
    os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    try:
        yield temporary
        os.replace(temporary, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


@contextlib.contextmanager
def text_output(path: Path | None) -> Iterator[io.TextIOWrapper]:
    """UTF-8 text out: to ``path`` (see :func:`output_file`), or to stdout for ``None``."""
    if path is None:
        out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="")
        try:
            yield out
            out.flush()
        finally:
            out.detach()
        return
    with output_file(path) as temporary, open(temporary, "w", encoding="utf-8", newline="") as out:
        yield out
