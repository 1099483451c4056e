"""The entry points of one group, as ``importlib.metadata.entry_points(group=...)`` finds them,
without importing ``importlib.metadata`` where the installation is plain.

``importlib.metadata`` imports ``email``, ``zipfile``, ``shutil``, ``csv``, ``tempfile``, ``socket``
and more: about 4 MB of resident memory, as much as the bundled language model, spent by every
``edgedp privatize`` to look for installed language packs (bench/reports/2026-11-29-footprint.md).
Where every distribution lies in a ``*.dist-info`` or ``*.egg-info`` directory of a directory on
``sys.path`` and the standard path finder is the only distribution finder, :func:`entry_points`
reads them as ``importlib.metadata`` does (the same directories, the same order, the first
distribution of each normalized name, the same ``entry_points.txt`` parsing, the ``Name`` of the
distribution's metadata); anything else (a zip or egg on the path, another finder, a file this
reader does not parse as ``importlib.metadata`` would) is left to ``importlib.metadata`` itself.
tests/packs/test_distributions.py checks both against each other.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import reduce
from importlib.machinery import PathFinder
from typing import Any

#: ``importlib.metadata.EntryPoint.pattern``.
_PATTERN = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")
#: A header line, as the email parser recognises one (its ``headerRE``, less ``From ``).
_HEADER = re.compile(r"[\041-\071\073-\176]+:")
#: What ``importlib.metadata``'s ``read_text`` treats as a missing file.
_MISSING = (FileNotFoundError, IsADirectoryError, KeyError, NotADirectoryError, PermissionError)


class _UnsureError(Exception):
    """The light reader cannot answer exactly as ``importlib.metadata`` would."""


@dataclass(frozen=True)
class Distribution:
    """The part of ``importlib.metadata.Distribution`` an entry point's user reads."""

    name: str


@dataclass(frozen=True)
class EntryPoint:
    """The part of ``importlib.metadata.EntryPoint`` an entry point's user reads."""

    name: str
    value: str
    group: str
    dist: Distribution

    @property
    def module(self) -> str:
        match = _PATTERN.match(self.value)
        assert match is not None  # checked when read  # noqa: S101
        return match.group("module")

    def load(self) -> Any:
        """The object the entry point names (its module imported), as ``EntryPoint.load``."""
        match = _PATTERN.match(self.value)
        assert match is not None  # noqa: S101
        module = importlib.import_module(match.group("module"))
        attributes = filter(None, (match.group("attr") or "").split("."))
        return reduce(getattr, attributes, module)


def entry_points(group: str) -> list[Any]:
    """The entry points of ``group`` of the installed distributions, in ``importlib.metadata``'s
    order (each with ``name``, ``value``, ``module``, ``load()`` and ``dist.name``)."""
    try:
        return list(_light_entry_points(group))
    except _UnsureError:
        from importlib.metadata import entry_points as metadata_entry_points

        return list(metadata_entry_points(group=group))


def _light_entry_points(group: str) -> Iterator[EntryPoint]:
    finders = [finder for finder in sys.meta_path if hasattr(finder, "find_distributions")]
    if finders != [PathFinder]:
        raise _UnsureError("a distribution finder other than the standard path finder")
    seen: set[str] = set()
    found: list[EntryPoint] = []
    for root in sys.path:
        for normalized, directory in _info_directories(root):
            if normalized in seen:
                continue  # importlib.metadata keeps the first distribution of a name
            seen.add(normalized)
            text = _read_text(os.path.join(directory, "entry_points.txt"))
            pairs = _section_pairs(text or "")
            if any(section == group for section, _, _ in pairs):
                distribution = Distribution(_metadata_name(directory))
                for section, name, value in pairs:
                    if section == group:
                        if _PATTERN.match(value) is None:
                            raise _UnsureError(f"entry point value {value!r}")
                        found.append(EntryPoint(name, value, group, distribution))
    return iter(found)


def _normalize(name: str) -> str:
    """``importlib.metadata.Prepared.normalize``."""
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def _info_directories(root: str) -> list[tuple[str, str]]:
    """The metadata directories of one ``sys.path`` entry with their normalized names, in the
    order ``importlib.metadata``'s ``Lookup`` yields them (grouped by name, in listing order)."""
    if not isinstance(root, str) or os.path.basename(root).lower().endswith(".egg"):
        raise _UnsureError(f"sys.path entry {root!r}: not a plain directory name")
    try:
        children = os.listdir(root or ".")
    except Exception:  # importlib.metadata then tries it as a zip file
        if os.path.isfile(root):
            raise _UnsureError(f"a file on sys.path (a zip?): {root}") from None
        return []
    groups: dict[str, list[str]] = {}
    for child in children:
        low = child.lower()
        if low.endswith((".dist-info", ".egg-info")):
            if not child.endswith((".dist-info", ".egg-info")):
                raise _UnsureError(
                    f"{child}: its name is read from its metadata, not its directory"
                )
            normalized = _normalize(low.rpartition(".")[0].partition("-")[0])
            groups.setdefault(normalized, []).append(os.path.join(root, child))
    return [(name, path) for name, paths in groups.items() for path in paths]


def _read_text(path: str) -> str | None:
    """A metadata file's text, ``None`` where ``importlib.metadata`` finds none."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except _MISSING:
        return None
    except UnicodeDecodeError:
        raise _UnsureError(f"{path} is not UTF-8") from None


def _section_pairs(text: str) -> list[tuple[str, str, str]]:
    """(section, name, value) of each entry of an ``entry_points.txt``, as ``Sectioned.
    section_pairs`` reads them (a line without ``=`` in a section: it raises; so do we, unsure)."""
    pairs = []
    section: str | None = None
    for line in map(str.strip, text.splitlines()):
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
            continue
        if section is None:
            continue
        if "=" not in line:
            raise _UnsureError(f"entry points line {line!r}")
        name, value = (part.strip() for part in line.split("=", 1))
        pairs.append((section, name, value))
    return pairs


def _metadata_name(directory: str) -> str:
    """The ``Name`` header of a distribution's metadata (``METADATA``, else ``PKG-INFO``), read
    where it is a plain single-line header; else unsure (the email parser decides)."""
    text = _read_text(os.path.join(directory, "METADATA")) or _read_text(
        os.path.join(directory, "PKG-INFO")
    )
    if not text:
        raise _UnsureError(f"no metadata in {directory}")
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if not line.strip():
            break  # the end of the headers
        if line[:1] in (" ", "\t"):
            continue  # a folded header's continuation
        if _HEADER.match(line) is None:
            raise _UnsureError(f"a metadata line this reader does not parse in {directory}")
        key, _, value = line.partition(":")
        if key.lower() == "name":
            following = lines[index + 1] if index + 1 < len(lines) else ""
            name = value.lstrip(" \t")
            if following[:1] in (" ", "\t") or not name.strip() or name != name.rstrip():
                raise _UnsureError(f"a Name header this reader does not parse in {directory}")
            return name
    raise _UnsureError(f"no Name header in {directory}")
