"""Finding and loading asset packs.

``load_pack()`` with no argument loads the bundled default word pack; ``load_pack("name")`` loads a
bundled pack by name; ``load_pack("some/dir")`` loads a pack directory. Loading validates the manifest,
checks every file's size and SHA-256, memory-maps the arrays and returns an immutable pack object.

Bundled packs ship inside the wheel as ``edgedp/assets/<name>``; in a source checkout they are read
from the repository's top-level ``assets/``. ``EDGEDP_PACKS`` (a ``os.pathsep``-separated list of
directories) adds places where ``edgedp packs list`` and name lookups search.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from edgedp.errors import AssetError
from edgedp.manifest import MANIFEST_NAME, PACK_LOADERS, Manifest, read_manifest

DEFAULT_WORD_PACK = "words-small"


class Pack(Protocol):
    """What every loaded pack offers (``WordPack``, ``SentencePack``, ...)."""

    name: str
    path: Path
    manifest: Manifest

    @property
    def kind(self) -> str: ...

    def describe(self) -> dict[str, Any]: ...


def bundled_packs_dir() -> Path:
    """The directory of the packs shipped with edgedp (wheel first, then a source checkout)."""
    package_dir = Path(__file__).resolve().parent
    for candidate in (package_dir / "assets", package_dir.parent / "assets"):
        if candidate.is_dir():
            return candidate
    raise AssetError(
        "the bundled asset packs are missing from this installation; reinstall edgedp "
        "(pip install --force-reinstall edgedp)"
    )


def search_dirs() -> list[Path]:
    """Directories searched for packs by name: the bundled ones, then ``EDGEDP_PACKS``."""
    extra = [Path(item) for item in os.environ.get("EDGEDP_PACKS", "").split(os.pathsep) if item]
    return [bundled_packs_dir(), *extra]


@dataclass(frozen=True, slots=True)
class PackEntry:
    """A pack found on disk (not loaded)."""

    name: str
    path: Path
    kind: str


def list_packs() -> list[PackEntry]:
    """Every pack found in :func:`search_dirs` (manifests are read, files are not hashed)."""
    entries = []
    for directory in search_dirs():
        if not directory.is_dir():
            continue
        for child in sorted(directory.iterdir()):
            if (child / MANIFEST_NAME).is_file():
                manifest = read_manifest(child)
                entries.append(PackEntry(manifest.name, child, manifest.kind))
    return entries


def resolve_pack_path(path: str | os.PathLike[str] | None) -> Path:
    """The directory of a pack given by path, by bundled name, or the default (``None``)."""
    if path is None:
        path = DEFAULT_WORD_PACK
    candidate = Path(path)
    if candidate.is_dir():
        return candidate
    if (
        isinstance(path, str)
        and os.sep not in path
        and (os.altsep is None or os.altsep not in path)
    ):
        for directory in search_dirs():
            if (directory / path).is_dir():
                return directory / path
    known = ", ".join(entry.name for entry in list_packs()) or "none"
    raise AssetError(
        f"no pack at {str(path)!r}: not a directory and not a known pack name (known: {known}); "
        "build one with edgedp-export"
    )


def load_pack(path: str | os.PathLike[str] | None = None, *, verify: bool = True) -> Pack:
    """Load an asset pack, verifying it first.

    ``path`` is a pack directory, the name of a bundled pack, or ``None`` for the default word pack.
    With ``verify=True`` (the default) every file's SHA-256 is checked; ``verify=False`` checks sizes
    only and is meant for packs on storage you control. Raises :class:`AssetError` on any problem.
    """
    manifest = read_manifest(resolve_pack_path(path))
    manifest.verify(checksums=verify)
    module_name, function_name = PACK_LOADERS[manifest.kind].split(":")
    loader = getattr(importlib.import_module(module_name), function_name)
    return loader(manifest)
