"""Asset-pack manifests: reading, validating and verifying a pack directory.

A pack is a directory holding ``manifest.json`` and the files it lists. The manifest records the
format version, the pack kind, what the files contain, where the data came from, the versions that
built it, and the size and SHA-256 of every file. Nothing in a pack is pickled: arrays are ``.npy``
files opened with ``allow_pickle=False`` and memory-mapped read-only.

Every problem raises :class:`~edgedp.errors.AssetError` naming the pack, the file and the fix, before
any pack content is used.
"""

from __future__ import annotations

import hashlib
import json
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from edgedp.errors import AssetError

FORMAT = "edgedp-pack"
FORMAT_VERSION = 1
MANIFEST_NAME = "manifest.json"
#: The pack kinds this edgedp reads (:mod:`edgedp.packs` has the loader of each).
PACK_KINDS = ("words", "sentences", "autoencoder")
_MAX_MANIFEST_BYTES = 1 << 20
_SAFE_FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")
_HASH_CHUNK = 1 << 20
REBUILD_HINT = "rebuild it with edgedp-export or reinstall edgedp for a bundled pack"


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _regular_file(pack_dir: Path, name: str) -> Path:
    """The path of a listed file, refusing unsafe names, symlinks and non-regular files."""
    if not _SAFE_FILE_NAME.match(name) or name == MANIFEST_NAME:
        raise AssetError(
            f"pack {pack_dir}: manifest lists an unsafe file name {name!r} (only plain names inside "
            "the pack directory are allowed)"
        )
    path = pack_dir / name
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        raise AssetError(f"pack {pack_dir}: file {name} is missing; {REBUILD_HINT}") from None
    if stat.S_ISLNK(mode):
        raise AssetError(f"pack {pack_dir}: file {name} is a symbolic link; packs hold real files")
    if not stat.S_ISREG(mode):
        raise AssetError(f"pack {pack_dir}: {name} is not a regular file")
    return path


def _require(
    mapping: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str
) -> Any:
    value = mapping.get(key)
    if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
        expected = (
            kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        )
        raise AssetError(f"{where}: field {key!r} must be {expected}, got {value!r}")
    return value


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({key: _freeze(item) for key, item in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(item) for item in value)
    return value


class Manifest:
    """A validated, read-only manifest bound to its pack directory."""

    __slots__ = ("data", "digest", "directory")

    def __init__(self, directory: Path, data: Mapping[str, Any], digest: str) -> None:
        self.directory = directory
        self.data: Mapping[str, Any] = _freeze(dict(data))
        self.digest = digest

    @property
    def kind(self) -> str:
        return str(self.data["kind"])

    @property
    def name(self) -> str:
        return str(self.data["name"])

    def section(self, key: str) -> Mapping[str, Any]:
        """A required sub-object of the manifest (e.g. ``"codes"``)."""
        return _require(self.data, key, Mapping, f"pack {self.directory} manifest")

    def field(self, section: str, key: str, kind: type | tuple[type, ...]) -> Any:
        """A required, typed field of a section."""
        where = f"pack {self.directory} manifest section {section!r}"
        return _require(self.section(section), key, kind, where)

    def file(self, name: str) -> Path:
        """The path of a file the manifest lists."""
        if name not in self.data["files"]:
            raise AssetError(
                f"pack {self.directory}: manifest refers to {name!r} but does not list it in 'files'"
            )
        return _regular_file(self.directory, name)

    def array(self, name: str, dtype: np.dtype | type, shape: tuple[int, ...]) -> np.ndarray:
        """A listed ``.npy`` file, memory-mapped read-only, checked against ``dtype`` and ``shape``."""
        path = self.file(name)
        try:
            array = np.load(path, mmap_mode="r", allow_pickle=False)
        except (ValueError, OSError, EOFError) as error:
            raise AssetError(
                f"pack {self.directory}: {name} is not a readable .npy array ({error}); {REBUILD_HINT}"
            ) from None
        if array.dtype != np.dtype(dtype) or array.shape != shape:
            raise AssetError(
                f"pack {self.directory}: {name} holds {array.dtype} {array.shape}, the manifest "
                f"requires {np.dtype(dtype)} {shape}; {REBUILD_HINT}"
            )
        return array

    def summary(self) -> dict[str, Any]:
        """The fields every pack kind shows in ``edgedp packs info``."""
        source = self.data.get("source", {})
        return {
            "name": self.name,
            "kind": self.kind,
            "path": str(self.directory),
            "digest": self.digest,
            "source": source.get("name"),
            "license": source.get("license"),
            "bytes": sum(entry["bytes"] for entry in self.data["files"].values()),
        }

    def verify(self, *, checksums: bool = True) -> None:
        """Check that every listed file exists with its size and, by default, its SHA-256."""
        for name, entry in self.data["files"].items():
            path = _regular_file(self.directory, name)
            size = path.stat().st_size
            if size != entry["bytes"]:
                raise AssetError(
                    f"pack {self.directory}: {name} has {size} bytes, the manifest says "
                    f"{entry['bytes']} (truncated or replaced); {REBUILD_HINT}"
                )
            if checksums and sha256_file(path) != entry["sha256"]:
                raise AssetError(
                    f"pack {self.directory}: {name} does not match its SHA-256 in the manifest "
                    f"(corrupted or tampered with); {REBUILD_HINT}"
                )


def read_manifest(directory: Path) -> Manifest:
    """Read and validate the manifest of the pack in ``directory`` (files are not hashed here)."""
    if not directory.is_dir():
        raise AssetError(f"pack {directory} does not exist or is not a directory")
    path = directory / MANIFEST_NAME
    if path.is_symlink() or not path.is_file():
        raise AssetError(f"pack {directory}: {MANIFEST_NAME} is missing; {REBUILD_HINT}")
    raw = path.read_bytes()
    if len(raw) > _MAX_MANIFEST_BYTES:
        raise AssetError(f"pack {directory}: {MANIFEST_NAME} is implausibly large ({len(raw)} B)")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise AssetError(f"pack {directory}: {MANIFEST_NAME} is not valid JSON ({error})") from None
    if not isinstance(data, dict):
        raise AssetError(f"pack {directory}: {MANIFEST_NAME} must hold a JSON object")
    where = f"pack {directory} manifest"
    if data.get("format") != FORMAT:
        raise AssetError(f"{where}: not an edgedp pack (format {data.get('format')!r})")
    version = _require(data, "format_version", int, where)
    if version > FORMAT_VERSION:
        raise AssetError(
            f"{where}: format version {version} is newer than this edgedp supports "
            f"({FORMAT_VERSION}); upgrade edgedp"
        )
    if version < 1:
        raise AssetError(f"{where}: invalid format version {version}")
    kind = _require(data, "kind", str, where)
    if kind not in PACK_KINDS:
        raise AssetError(f"{where}: unknown pack kind {kind!r} (known: {', '.join(PACK_KINDS)})")
    _require(data, "name", str, where)
    files = _require(data, "files", dict, where)
    for name, entry in files.items():
        _regular_file(directory, name)
        entry_where = f"{where} files[{name!r}]"
        if not isinstance(entry, dict):
            raise AssetError(f"{entry_where} must be an object with 'bytes' and 'sha256'")
        if _require(entry, "bytes", int, entry_where) < 0:
            raise AssetError(f"{entry_where}: negative size")
        if not _SHA256_HEX.match(_require(entry, "sha256", str, entry_where)):
            raise AssetError(f"{entry_where}: 'sha256' must be 64 lower-case hex digits")
    return Manifest(directory, data, hashlib.sha256(raw).hexdigest())
