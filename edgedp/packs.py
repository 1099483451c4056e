"""Finding and loading asset packs.

``load_pack()`` with no argument loads the bundled default word pack; ``load_pack("name")`` loads a
bundled pack by name; ``load_pack("some/dir")`` loads a pack directory. Loading validates the manifest,
reads every file once into private memory, checks its size and SHA-256 there and returns an immutable
pack object whose arrays and models are parsed from those verified bytes (see :mod:`edgedp.manifest`).

Bundled packs ship inside the wheel as ``edgedp/assets/<name>``; in a source checkout they are read
from the repository's top-level ``assets/``. ``EDGEDP_PACKS`` (a ``os.pathsep``-separated list of
directories) adds places where ``edgedp packs list`` and name lookups search.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, TypeAlias, overload

from edgedp.adept.pack import AutoencoderPack, load_autoencoder_pack
from edgedp.documents.pack import SentencePack, load_sentence_pack
from edgedp.errors import AssetError
from edgedp.manifest import MANIFEST_NAME, Manifest, read_manifest
from edgedp.words.pack import WordPack, load_word_pack

DEFAULT_WORD_PACK = "words-small"
DEFAULT_SENTENCE_PACK = "sentences-bbc"
DEFAULT_AUTOENCODER_PACK = "adept-bbc"
#: SHA-256 of the manifest of every bundled pack. The manifest lists the SHA-256 of every file, so
#: this pins the whole pack: a bundled pack rewritten consistently (files and manifest) still fails.
#: Rebuilding a bundled pack means updating its pin (tests/test_packs.py checks they agree).
BUNDLED_MANIFEST_SHA256 = {
    "words-small": "0a2d6ac608d494798995134c7c35213e6196b0e2f89b487e711031e4700c329f",
    "sentences-bbc": "549f1812fa8d52c1313c5dde8df98fe4d2d114575be5e9516c2d487ebb4dbcba",
    "adept-bbc": "121e99f35570fda5e8d4feeec6d05ad69e29191041ce61065031e4af87549819",
}


PackKind: TypeAlias = Literal["words", "sentences", "autoencoder"]
PackRef: TypeAlias = str | os.PathLike[str]
AnyPack: TypeAlias = WordPack | SentencePack | AutoencoderPack
_LOADERS: dict[str, Callable[[Manifest], AnyPack]] = {
    "words": load_word_pack,
    "sentences": load_sentence_pack,
    "autoencoder": load_autoencoder_pack,
}


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
    """The directory of a pack given by path, by name, or the default (``None``).

    A bare name (a string without a path separator) is looked up in :func:`search_dirs` first, the
    bundled packs before ``EDGEDP_PACKS``, and only then as a directory under the current one: a
    folder that happens to be called ``words-small`` where the program runs must never stand in
    for the pinned bundled pack. ``None`` is always the bundled default.
    """
    if path is None:
        return bundled_packs_dir() / DEFAULT_WORD_PACK
    if (
        isinstance(path, str)
        and os.sep not in path
        and (os.altsep is None or os.altsep not in path)
    ):
        for directory in search_dirs():
            if (directory / path).is_dir():
                return directory / path
    candidate = Path(path)
    if candidate.is_dir():
        return candidate
    try:
        known = ", ".join(entry.name for entry in list_packs()) or "none"
    except AssetError as error:
        known = f"unknown, a pack directory is unreadable: {error}"
    raise AssetError(
        f"no pack at {str(path)!r}: not a directory and not a known pack name (known: {known}); "
        "build one with edgedp-export"
    )


def _bundled_pin(directory: Path) -> str | None:
    bundled = bundled_packs_dir().resolve()
    if directory.resolve().parent != bundled:
        return None
    if directory.name not in BUNDLED_MANIFEST_SHA256:
        raise AssetError(
            f"bundled pack {directory.name} has no pin in this edgedp; reinstall edgedp"
        )
    return BUNDLED_MANIFEST_SHA256[directory.name]


@overload
def load_pack(
    path: None = None,
    *,
    kind: Literal["words"] | None = None,
    verify: bool = True,
    expected_digest: str | None = None,
) -> WordPack: ...
@overload
def load_pack(
    path: PackRef,
    *,
    kind: Literal["words"],
    verify: bool = True,
    expected_digest: str | None = None,
) -> WordPack: ...
@overload
def load_pack(
    path: PackRef,
    *,
    kind: Literal["sentences"],
    verify: bool = True,
    expected_digest: str | None = None,
) -> SentencePack: ...
@overload
def load_pack(
    path: PackRef,
    *,
    kind: Literal["autoencoder"],
    verify: bool = True,
    expected_digest: str | None = None,
) -> AutoencoderPack: ...
@overload
def load_pack(
    path: PackRef, *, kind: None = None, verify: bool = True, expected_digest: str | None = None
) -> AnyPack: ...
def load_pack(
    path: PackRef | None = None,
    *,
    kind: PackKind | None = None,
    verify: bool = True,
    expected_digest: str | None = None,
) -> AnyPack:
    """Load an asset pack, verifying it first.

    ``path`` is a pack directory, the name of a bundled pack, or ``None`` for the default word pack.
    ``kind`` (``"words"``, ``"sentences"``, ``"autoencoder"``) requires a pack of that kind (an
    :class:`AssetError` otherwise) and tells type checkers what is returned. With ``verify=True``
    (the default) every file's SHA-256 is checked; ``verify=False`` checks sizes only and is meant
    for packs on storage you control. ``expected_digest`` pins the SHA-256 of the pack's manifest
    (and so of every file); bundled packs are always pinned. Raises :class:`AssetError` on any
    problem.
    """
    directory = resolve_pack_path(path)
    manifest = read_manifest(directory)
    if kind is not None and manifest.kind != kind:
        raise AssetError(
            f"pack {manifest.name} ({directory}) is a {manifest.kind} pack; a {kind} pack is "
            "needed here"
        )
    pin = expected_digest or _bundled_pin(directory)
    if pin is not None and manifest.digest != pin:
        raise AssetError(
            f"pack {directory}: manifest SHA-256 {manifest.digest} is not the expected {pin} "
            "(a different or modified pack); reinstall edgedp for a bundled pack"
        )
    manifest.verify(checksums=verify)
    return _LOADERS[manifest.kind](manifest)
