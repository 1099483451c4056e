"""Asset-pack manifests: reading, validating and verifying a pack directory.

A pack is a directory holding ``manifest.json`` and the files it lists. The manifest records the
format version, the pack kind, what the files contain, where the data came from, the versions that
built it, and the size and SHA-256 of every file. Nothing in a pack is pickled.

**Bound to the bytes that are used.** Each file is opened once (relative to the pack directory's
descriptor, never through a symbolic link), its size checked with ``fstat`` on that descriptor before
anything is read, read once into private anonymous memory, hashed from that buffer, and parsed from
that same buffer: arrays are read-only numpy views of it (the ``.npy`` header parsed with
``allow_pickle`` off), text and models are decoded from it. Nothing is opened by path a second
time and nothing is memory-mapped from the file, so a file rewritten or swapped after the hash cannot
change what the mechanism computes. (A ``MAP_PRIVATE`` mapping would not do: on Linux, pages of a
private file mapping that were not yet copied on write show later writes to the file by other
processes; only a private copy is immune.) The price is resident memory equal to the pack's size.

**Hostile manifests.** The manifest's size is checked with ``fstat`` on the open descriptor and at
most the limit + 1 bytes are read; the JSON is parsed with bounded nesting, bounded integer literals,
no NaN/Infinity and no duplicate keys, then validated against the declarative schema of its pack
kind (:mod:`edgedp.packs.schema`) before any field is used.

Every problem raises :class:`~edgedp.errors.AssetError` naming the pack, the file and the fix, before
any pack content is used.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol

import numpy as np

from edgedp.errors import REBUILD_HINT, AssetError
from edgedp.packs.schema import check_manifest_schema
from edgedp.progress import Progress

FORMAT = "edgedp-pack"
FORMAT_VERSION = 1
MANIFEST_NAME = "manifest.json"
#: The pack kinds this edgedp reads (:mod:`edgedp.packs.loading` has the loader of each).
PACK_KINDS = ("words", "sentences", "subspace", "autoencoder", "lm", "encoder")
_MAX_MANIFEST_BYTES = 1 << 20
_SAFE_FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")
_HASH_CHUNK = 1 << 20
#: Packs of at most this many bytes are hashed with CPython's built-in SHA-256 (see sha256_hasher).
BUILTIN_SHA256_MAX_BYTES = 16 << 20
#: Deepest JSON nesting a manifest may use (the bundled ones use 5).
MAX_MANIFEST_DEPTH = 16
#: Longest integer literal a manifest may hold (int() refuses > 4300 digits with ValueError).
MAX_INTEGER_DIGITS = 30
_NPY_HEADER_BYTES = 1 << 16
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
#: Where files cannot be opened relative to a directory descriptor (Windows), by path after an
#: lstat check; the bytes are still read once and hashed from memory.
_DIR_FD = os.open in os.supports_dir_fd


class _Digest(Protocol):
    def update(self, data: bytes, /) -> None: ...
    def hexdigest(self) -> str: ...


def sha256_hasher(expected_bytes: int) -> _Digest:
    """A SHA-256 hash object for about ``expected_bytes`` of data (same digest either way).

    ``hashlib`` loads OpenSSL's libcrypto, as much resident memory as the bundled words pack's
    vocabulary (bench/reports/2026-11-23-footprint.md), for hashing a few megabytes. Up to
    :data:`BUILTIN_SHA256_MAX_BYTES` the digest is computed by CPython's own SHA-256 module instead
    (``_sha256`` in 3.11, ``_sha2`` from 3.12; several times slower than OpenSSL, milliseconds for
    the bundled pack: bench/README.md, "Measurements behind the code"). These modules are
    private, so this is the pattern CPython's own ``random`` uses for ``_sha512``: try them, and
    fall back to ``hashlib`` (an interpreter without them, or a big pack, where OpenSSL's speed
    is worth its memory). tests/packs/test_packs.py checks both paths against hashlib.
    """
    if expected_bytes <= BUILTIN_SHA256_MAX_BYTES:
        for module in ("_sha2", "_sha256"):
            try:
                builtin: _Digest = importlib.import_module(module).sha256()
            except (ImportError, AttributeError):
                continue
            return builtin
    import hashlib

    return hashlib.sha256()


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file, read in chunks."""
    digest = sha256_hasher(path.stat().st_size)
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


def thaw(value: Any) -> Any:
    """A writable copy of a read-only manifest value: plain dicts and lists (JSON-able)."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(item) for item in value]
    return value


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({key: _freeze(item) for key, item in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(item) for item in value)
    return value


class Manifest:
    """A validated, read-only manifest bound to its pack directory.

    After :meth:`verify`, :meth:`contents`, :meth:`array` and :meth:`text` serve the verified bytes
    of each listed file from private memory; nothing re-reads the file system but
    :meth:`reread`, for a file a loader released (:meth:`release`), which it checks again.
    """

    __slots__ = ("_checksums", "_contents", "data", "digest", "directory")

    def __init__(self, directory: Path, data: Mapping[str, Any], digest: str) -> None:
        self.directory = directory
        self.data: Mapping[str, Any] = _freeze(dict(data))
        self.digest = digest
        self._contents: dict[str, bytes] = {}
        self._checksums = True

    @property
    def kind(self) -> str:
        return str(self.data["kind"])

    @property
    def name(self) -> str:
        return str(self.data["name"])

    def section(self, key: str) -> Mapping[str, Any]:
        """A required sub-object of the manifest (e.g. ``"codes"``)."""
        section: Mapping[str, Any] = _require(
            self.data, key, Mapping, f"pack {self.directory} manifest"
        )
        return section

    def field(self, section: str, key: str, kind: type | tuple[type, ...]) -> Any:
        """A required, typed field of a section."""
        where = f"pack {self.directory} manifest section {section!r}"
        return _require(self.section(section), key, kind, where)

    def file(self, name: str) -> Path:
        """The path of a file the manifest lists (for messages: read it with :meth:`contents`)."""
        if name not in self.data["files"]:
            raise AssetError(
                f"pack {self.directory}: manifest refers to {name!r} but does not list it in 'files'"
            )
        return _regular_file(self.directory, name)

    def contents(self, name: str) -> bytes:
        """The verified bytes of a listed file (immutable, private memory)."""
        self.file(name)
        try:
            return self._contents[name]
        except KeyError:
            raise AssetError(
                f"pack {self.directory}: {name} was not read and verified (load packs with "
                "edgedp.load_pack)"
            ) from None

    def release(self, name: str) -> None:
        """Drop the verified bytes of ``name``: for a loader that keeps a converted copy of them
        instead, or reads the file again only if it is used (:meth:`reread`; :meth:`contents`
        refuses it)."""
        self._contents.pop(name, None)

    def reread(self, name: str) -> bytes:
        """The bytes of a listed file read again and checked as :meth:`verify` checked them
        (size, and SHA-256 unless the pack was loaded without checksums); not kept.

        Raises
        ------
        ~edgedp.AssetError
            If the file is missing or no longer the one the manifest lists.
        """
        with _DirectoryHandle(self.directory) as directory:
            return self._read_checked(directory, name, "changed since the pack was loaded")

    def _read_checked(self, directory: _DirectoryHandle, name: str, change: str) -> bytes:
        """A listed file's bytes, their size and (unless the pack is loaded without checksums)
        SHA-256 checked against the manifest; ``change``: what a mismatch means, for the error."""
        entry = self.data["files"][name]
        _regular_file(self.directory, name)
        buffer = directory.read(name, entry["bytes"])
        total = sum(item["bytes"] for item in self.data["files"].values())
        if self._checksums and _hex_sha256(buffer, total) != entry["sha256"]:
            raise AssetError(
                f"pack {self.directory}: {name} does not match its SHA-256 in the manifest "
                f"({change}); {REBUILD_HINT}"
            )
        return buffer

    def text(self, name: str) -> str:
        """A listed file decoded as UTF-8."""
        try:
            return str(self.contents(name), encoding="utf-8")
        except UnicodeDecodeError:
            raise AssetError(
                f"pack {self.directory}: {name} is not UTF-8; {REBUILD_HINT}"
            ) from None

    def lines(self, name: str, count: int, *, unit: str = "lines") -> tuple[str, ...]:
        """A listed UTF-8 file of exactly ``count`` lines (one trailing newline allowed).

        The one reader of the line files of every pack kind (vocabularies, sources, references).
        """
        lines = self.text(name).split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if len(lines) != count:
            raise AssetError(
                f"pack {self.directory}: {name} has {len(lines)} {unit}, the manifest says "
                f"{count}; {REBUILD_HINT}"
            )
        return tuple(lines)

    def array(self, name: str, dtype: np.dtype | type | str, shape: tuple[int, ...]) -> np.ndarray:
        """A listed ``.npy`` file as a read-only view of its verified bytes, checked against
        ``dtype`` (byte order included) and ``shape``; C order only, never pickled objects."""
        return parse_npy(
            self.contents(name), np.dtype(dtype), shape, where=f"pack {self.directory}: {name}"
        )

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
        """Read every listed file once into private memory, checking its size (before reading)
        and, by default, the SHA-256 of the bytes read; those bytes are what the pack then uses."""
        contents: dict[str, bytes] = {}
        total = sum(entry["bytes"] for entry in self.data["files"].values())
        self._checksums = checksums
        with (
            _DirectoryHandle(self.directory) as directory,
            Progress(f"reading pack {self.name}", total=total, unit="B") as progress,
        ):
            for name in self.data["files"]:
                buffer = self._read_checked(directory, name, "corrupted or tampered with")
                contents[name] = buffer
                progress.update(len(buffer))
        self._contents = contents


def _hex_sha256(buffer: bytes, pack_bytes: int) -> str:
    """Hex SHA-256 of one file of a pack of ``pack_bytes`` bytes in all."""
    digest = sha256_hasher(pack_bytes)
    digest.update(buffer)
    return digest.hexdigest()


def parse_npy(buffer: bytes, dtype: np.dtype, shape: tuple[int, ...], *, where: str) -> np.ndarray:
    """A read-only array viewing the data of the ``.npy`` file held in ``buffer``.

    The header is parsed by numpy's own reader (a literal dict, never pickle); Fortran order, object
    dtypes, another dtype or byte order, another shape and a data size that is not exactly the
    header's are all refused with :class:`AssetError`.
    """
    header = io.BytesIO(buffer[:_NPY_HEADER_BYTES])
    try:
        version = np.lib.format.read_magic(header)
        if version == (1, 0):
            found_shape, fortran, found_dtype = np.lib.format.read_array_header_1_0(header)
        elif version in ((2, 0), (3, 0)):
            found_shape, fortran, found_dtype = np.lib.format.read_array_header_2_0(header)
        else:
            raise ValueError(f"unsupported .npy version {version}")
    except Exception as error:  # numpy's header parser raises assorted types
        raise AssetError(
            f"{where} is not a readable .npy array ({error}); {REBUILD_HINT}"
        ) from None
    if fortran or found_dtype.hasobject:
        raise AssetError(
            f"{where}: {'Fortran-ordered' if fortran else 'object'} arrays are not accepted "
            f"(C-ordered plain numbers only); {REBUILD_HINT}"
        )
    if found_dtype != dtype or tuple(found_shape) != tuple(shape):
        raise AssetError(
            f"{where} holds {found_dtype} {tuple(found_shape)}, the manifest requires {dtype} "
            f"{tuple(shape)}; {REBUILD_HINT}"
        )
    offset = header.tell()
    count = int(np.prod(shape, dtype=np.int64))
    if len(buffer) - offset != count * dtype.itemsize:
        raise AssetError(
            f"{where} holds {len(buffer) - offset} data bytes, {dtype} {tuple(shape)} needs "
            f"{count * dtype.itemsize}; {REBUILD_HINT}"
        )
    array = np.frombuffer(buffer, dtype=dtype, count=count, offset=offset).reshape(shape)
    array.flags.writeable = False
    return array


class _DirectoryHandle:
    """A pack directory opened once; files are opened relative to its descriptor, never through a
    symbolic link, and read whole into private memory after ``fstat`` checks their size."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.fd = -1

    def __enter__(self) -> _DirectoryHandle:
        if not _DIR_FD:
            return self
        flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            self.fd = os.open(self.directory, flags)
        except OSError as error:
            raise AssetError(f"pack {self.directory} cannot be opened ({error.strerror})") from None
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd >= 0:
            os.close(self.fd)

    def open(self, name: str) -> tuple[int, os.stat_result]:
        """A descriptor of a regular file of the pack, with its ``fstat``."""
        try:
            if _DIR_FD:
                fd = os.open(name, _OPEN_FLAGS, dir_fd=self.fd)
            else:
                _regular_file(self.directory, name)
                fd = os.open(self.directory / name, _OPEN_FLAGS)
        except FileNotFoundError:
            raise AssetError(
                f"pack {self.directory}: file {name} is missing; {REBUILD_HINT}"
            ) from None
        except OSError as error:
            raise AssetError(
                f"pack {self.directory}: {name} cannot be opened ({error.strerror}; packs hold "
                "regular files, not symbolic links)"
            ) from None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            raise AssetError(f"pack {self.directory}: {name} is not a regular file")
        return fd, info

    def read(self, name: str, size: int) -> bytes:
        """Exactly ``size`` bytes, refused before reading if ``fstat`` says otherwise."""
        fd, info = self.open(name)
        try:
            if info.st_size != size:
                raise AssetError(
                    f"pack {self.directory}: {name} has {info.st_size} bytes, the manifest says "
                    f"{size} (truncated or replaced); {REBUILD_HINT}"
                )
            buffer = _read_at_most(fd, size + 1)  # one more: a file that grew is caught
            if len(buffer) != size:
                raise AssetError(
                    f"pack {self.directory}: {name} changed size while it was read; {REBUILD_HINT}"
                )
        finally:
            os.close(fd)
        return buffer


def _read_at_most(fd: int, limit: int) -> bytes:
    """Up to ``limit`` bytes of ``fd`` as one private, immutable buffer (one allocation and no
    copy for files under 2 GiB, which one ``read`` returns whole)."""
    chunks = []
    remaining = limit
    while remaining > 0:
        chunk = os.read(fd, min(remaining, 1 << 30))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _bounded_int(literal: str) -> int:
    if len(literal.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise ValueError(f"integer literal of {len(literal)} characters")
    return int(literal)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object; a key given twice is refused (two parsers could disagree on which one wins)."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"duplicate key {key!r}")
        seen.add(key)
    return dict(pairs)


def _nesting_depth_ok(raw: bytes, limit: int) -> bool:
    """True if brackets outside strings nest at most ``limit`` deep (checked before parsing, so
    that a deeply nested manifest never reaches the recursive parser)."""
    depth = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limit:
                return False
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return True


def parse_manifest_json(raw: bytes, where: str) -> Any:
    """The JSON value of a manifest, refusing what would crash or mislead a parser."""
    if not _nesting_depth_ok(raw, MAX_MANIFEST_DEPTH):
        raise AssetError(f"{where} nests deeper than {MAX_MANIFEST_DEPTH} levels")
    try:
        return json.loads(
            raw.decode("utf-8"),
            parse_int=_bounded_int,
            parse_constant=_no_constant,
            object_pairs_hook=_unique_keys,
        )
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise AssetError(f"{where} is not valid JSON ({error})") from None


def read_manifest(directory: Path) -> Manifest:
    """Read and validate the manifest of the pack in ``directory`` (files are not read here)."""
    if not directory.is_dir():
        raise AssetError(f"pack {directory} does not exist or is not a directory")
    with _DirectoryHandle(directory) as handle:
        try:
            fd, info = handle.open(MANIFEST_NAME)
        except AssetError:
            raise AssetError(
                f"pack {directory}: {MANIFEST_NAME} is missing (or not a regular file); "
                f"{REBUILD_HINT}"
            ) from None
        try:
            if info.st_size > _MAX_MANIFEST_BYTES:
                raise AssetError(
                    f"pack {directory}: {MANIFEST_NAME} is implausibly large ({info.st_size} B)"
                )
            raw = _read_at_most(fd, _MAX_MANIFEST_BYTES + 1)
        finally:
            os.close(fd)
    if len(raw) > _MAX_MANIFEST_BYTES:
        raise AssetError(
            f"pack {directory}: {MANIFEST_NAME} is implausibly large (grew while read)"
        )
    data = parse_manifest_json(raw, f"pack {directory}: {MANIFEST_NAME}")
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
    check_manifest_schema(data, kind, where)
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
    return Manifest(directory, data, _hex_sha256(raw, len(raw)))
