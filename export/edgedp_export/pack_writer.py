"""Writing a pack directory atomically and deterministically.

Files are written to a temporary sibling directory, listed in the manifest with their sizes and
SHA-256, loaded back through the edgedp runtime to verify them, and only then renamed into place.
An interrupted export leaves at most a temporary directory (named ``.<name>.tmp-<pid>``) that no
loader mistakes for a pack; rerunning the command starts it afresh and deletes what killed builds
left behind. Same inputs and seed give the
same bytes: no timestamps, sorted JSON keys.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

import edgedp
from edgedp.errors import InputError
from edgedp.packs.manifest import FORMAT, FORMAT_VERSION, MANIFEST_NAME, sha256_file

FileWriter = Callable[[Path], None]


def npy_writer(array: np.ndarray) -> FileWriter:
    """Write ``array`` as a .npy file (never pickled)."""
    return lambda path: np.save(path, np.ascontiguousarray(array), allow_pickle=False)


def lines_writer(lines: list[str]) -> FileWriter:
    """Write one item per line, UTF-8, final newline."""
    return lambda path: path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")


def json_writer(data: Any) -> FileWriter:
    """Write JSON deterministically."""
    return lambda path: path.write_text(_dumps(data), encoding="utf-8")


def _dumps(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_pack(
    out: Path,
    manifest: dict[str, Any],
    files: dict[str, FileWriter],
    *,
    force: bool = False,
    search: Sequence[Path] = (),
) -> Path:
    """Write ``files`` and a manifest built from ``manifest`` into the pack directory ``out``.

    ``search``: directories that hold packs the new one references (its encoder pack, when that
    is neither beside ``out`` nor installed), searched as ``EDGEDP_PACKS`` while the runtime
    checks the pack.
    """
    out = out.resolve()
    if out.exists() and not force:
        raise InputError(f"{out} exists; pass --force to replace it")
    _remove_leftovers(out)
    staging = out.parent / f".{out.name}.tmp-{os.getpid()}"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    try:
        listed = {}
        for name, write in files.items():
            write(staging / name)
            listed[name] = {
                "bytes": (staging / name).stat().st_size,
                "sha256": sha256_file(staging / name),
            }
        document = {"format": FORMAT, "format_version": FORMAT_VERSION, **manifest, "files": listed}
        (staging / MANIFEST_NAME).write_text(_dumps(document), encoding="utf-8")
        with _searching(search):  # the runtime must accept it before it is published
            edgedp.load_pack(staging, verify=True)
        _replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return out


@contextmanager
def _searching(directories: Sequence[Path]) -> Iterator[None]:
    """``EDGEDP_PACKS`` with ``directories`` first, for the duration of the block."""
    before = os.environ.get("EDGEDP_PACKS")
    if directories:
        os.environ["EDGEDP_PACKS"] = os.pathsep.join(
            [*map(str, directories), *([before] if before else [])]
        )
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("EDGEDP_PACKS", None)
        else:
            os.environ["EDGEDP_PACKS"] = before


def _remove_leftovers(out: Path) -> None:
    """Delete the staging and retired directories of earlier builds of ``out`` that were killed."""
    if not out.parent.is_dir():
        return
    for leftover in out.parent.glob(f".{out.name}.*-*"):
        kind, _, pid = leftover.name.rpartition("-")
        if kind.endswith((".tmp", ".old")) and pid.isdigit() and not _is_running(int(pid)):
            shutil.rmtree(leftover, ignore_errors=True)


def _is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, owned by another user
    return True


def _replace(staging: Path, out: Path) -> None:
    if not out.exists():
        staging.rename(out)
        return
    retired = out.parent / f".{out.name}.old-{os.getpid()}"
    out.rename(retired)
    staging.rename(out)
    shutil.rmtree(retired)
