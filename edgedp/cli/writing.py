"""The write step: output to stdout or ``--output``, whole or not at all.

A file is written beside its target and renamed into place once the command succeeds, so a
failure never leaves half a file (nor truncates the previous one), and a missing directory is
refused before any work. Stdout is flushed line by line: a pipe's reader gets each line as soon
as it is released.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from edgedp.errors import InputError


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


def print_report(report: Any, as_json: bool) -> None:
    """An explain or tune result on stdout: ``report.render()``, or ``report.as_dict()`` as JSON."""
    if as_json:
        json.dump(report.as_dict(), sys.stdout, indent=2, default=str)
        print()
    else:
        print(report.render())
