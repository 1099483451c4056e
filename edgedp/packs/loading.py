"""Finding and loading asset packs.

Each pack type loads itself (``WordPack.load()`` is the bundled default word pack,
``SentencePack.load("name")`` a pack by name, ``WordPack.load("some/dir")`` a pack directory)
through :func:`read_pack_manifest`; :func:`edgedp.load_pack` loads a pack of any kind. Loading
validates the manifest, reads every file once into private memory, checks its size and SHA-256
there and returns an immutable pack object whose arrays and models are parsed from those verified
bytes (see :mod:`edgedp.packs.manifest`).

Where packs are found by name, in this order:

1. bundled: the packs of :data:`BUNDLED_PACKS` (the default words pack and the ``lm-general``
   language model of ``decode="map"``/``"context"``), which the runtime wheel ships as
   ``edgedp/assets/NAME``; a source checkout takes the same names, and only those, from the
   repository's top-level ``assets/``, so a checkout finds exactly the packs an installed edgedp
   finds (its other ``assets/`` packs load by path, or by name once installed as their wheels);
2. installed pack distributions: a wheel made by ``python -m edgedp.packs.wheel PACKDIR`` (or
   ``edgedp-export wheel``, the same code) installs the pack as package data of a module
   ``edgedp_pack_<name>`` and registers it in the entry-point group ``edgedp.packs`` (pack name ->
   a function returning the pack directory); the module's ``MANIFEST_SHA256`` is the digest the
   wheel was built for (spaCy models and model2vec ship the same way). A distribution that
   registers a bundled name is never loaded (the bundled copy answers; ``packs list`` shows it
   shadowed);
3. ``EDGEDP_PACKS``: an ``os.pathsep``-separated list of directories that hold pack directories.

4. the working directory (a directory of that name under it).

Pins: a pack asked for by a name this edgedp knows (:data:`BUNDLED_MANIFEST_SHA256`) must have
exactly that manifest digest wherever it is found (bundled, installed, ``EDGEDP_PACKS``, the working
directory), so a distribution or a directory that merely carries the name ``sentences-bbc`` cannot
stand in for it, however self-consistent its files and manifest are; any other pack from a
distribution is pinned to the digest its wheel carries. Two installed distributions that register
one pack name are refused (:class:`AssetError` naming both), never resolved by ``sys.path`` order.
Other packs from ``EDGEDP_PACKS`` or the working directory, and packs given by an explicit path
(``./sentences-bbc``, ``/opt/packs/x``), are pinned only by ``expected_digest``.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol, Self, TypeAlias

from edgedp.errors import AssetError
from edgedp.packs.manifest import MANIFEST_NAME, Manifest, read_manifest

DEFAULT_WORD_PACK = "words-small"
DEFAULT_SENTENCE_PACK = "sentences-bbc"
DEFAULT_SUBSPACE_PACK = "subspace-general"
DEFAULT_AUTOENCODER_PACK = "adept-bbc"
DEFAULT_LANGUAGE_MODEL_PACK = "lm-general"
#: The packs the runtime wheel ships (``pyproject.toml`` force-includes ``assets/NAME`` as
#: ``edgedp/assets/NAME``, and the sdist carries them; tests/packs checks the three lists agree).
#: They are the only bundled packs, in a wheel install and in a source checkout alike.
BUNDLED_PACKS = (DEFAULT_WORD_PACK, DEFAULT_LANGUAGE_MODEL_PACK)
#: SHA-256 of the manifest of every pack this edgedp knows by name: the bundled ones and those
#: shipped as their own distributions. The manifest lists the SHA-256 of every file, so this pins
#: the whole pack: a pack rewritten consistently (files and manifest) still fails. Rebuilding one
#: of these packs means updating its pin (tests/packs/test_packs.py checks they agree).
BUNDLED_MANIFEST_SHA256 = {
    "words-small": "c6e9cc6753a1b9ceb94a603d76b72965f34ab7991a6bd4d4ecce00a30160e57b",
    "sentences-bbc": "2c16081ac58e76965ad9b95fd7d2843775fe8ec45190cf7cb3a720c4beea832c",
    "adept-bbc": "121e99f35570fda5e8d4feeec6d05ad69e29191041ce61065031e4af87549819",
    "subspace-general": "cfffc6151d1a7c85e9719ca590cdb5332fd134e6f385f32d7732502f7bf132b1",
    "encoder-minilm": "a3f55d269bc894812cab0a52aac59ec672f41a27cc450f8640ec674d7bb0daaa",
    "lm-general": "db499d60d739ce6247e7fd6766f4a37c231144a0e70b1316fb31069d88c0ab0c",
    "encoder-use-multilingual": "6516ebfe3bd2ca0ba49a6506f9fdcc12507c70d47c314acfb71f2719fe1c837e",
    "subspace-multilingual": "3361a44e3bbbb5def7cc0723c0d0e8bcc5730cf0d2ae1bb47b825f0b23bcf91f",
}

#: The packs a known pack references by digest (its wheel requires their wheels).
PACK_DEPENDENCIES = {
    "sentences-bbc": ("encoder-minilm",),
    "subspace-general": ("encoder-minilm",),
    "subspace-multilingual": ("encoder-use-multilingual",),
}

#: Entry-point group of pack distributions (:mod:`edgedp.packs.wheel`).
ENTRY_POINT_GROUP = "edgedp.packs"
#: Distribution name of the pack ``name`` built by :mod:`edgedp.packs.wheel`.
DISTRIBUTION_PREFIX = "edgedp-pack-"
#: Import name prefix of the module that carries a pack distribution's pack.
MODULE_PREFIX = "edgedp_pack_"

#: A pack given by name or by directory.
PackRef: TypeAlias = str | os.PathLike[str]


class Pack(Protocol):
    """What every loaded pack offers (``WordPack``, ``SentencePack``, ...)."""

    name: str
    path: Path
    manifest: Manifest

    @property
    def kind(self) -> str: ...

    def describe(self) -> dict[str, Any]: ...


def bundled_packs_dir() -> Path:
    """The directory that holds the bundled packs.

    Returns
    -------
    Path
        ``edgedp/assets`` in an installed wheel; in a source checkout (``pip install -e .``, or the
        package imported from the checkout) the repository's ``assets/``, of which only the
        packs named in :data:`BUNDLED_PACKS` count as bundled.

    Raises
    ------
    AssetError
        If neither exists (a broken installation).
    """
    package_dir = Path(__file__).resolve().parent.parent  # edgedp/, beside edgedp/packs/
    if (package_dir / "assets").is_dir():
        return package_dir / "assets"
    checkout = package_dir.parent
    if (checkout / "pyproject.toml").is_file() and (checkout / "assets").is_dir():
        return checkout / "assets"
    raise AssetError(
        "the bundled asset packs are missing from this installation; reinstall edgedp from its "
        "checkout (pip install --force-reinstall .)"
    )


def bundled_pack_dir(name: str) -> Path:
    """The directory of the bundled pack ``name`` (one of :data:`BUNDLED_PACKS`).

    Parameters
    ----------
    name : str
        A name in :data:`BUNDLED_PACKS`.

    Returns
    -------
    Path
        Its directory under :func:`bundled_packs_dir`.

    Raises
    ------
    AssetError
        If ``name`` is not bundled, or its directory is missing (a broken installation).
    """
    if name not in BUNDLED_PACKS:
        raise AssetError(
            f"pack {name} is not bundled with edgedp (bundled: {', '.join(BUNDLED_PACKS)})"
        )
    directory = bundled_packs_dir() / name
    if not directory.is_dir():
        raise AssetError(
            f"the bundled pack {name} is missing from this installation ({directory}); reinstall "
            "edgedp from its checkout (pip install --force-reinstall .)"
        )
    return directory


def search_dirs() -> list[Path]:
    """Directories searched for packs by name: the bundled ones, then ``EDGEDP_PACKS``."""
    extra = [Path(item) for item in os.environ.get("EDGEDP_PACKS", "").split(os.pathsep) if item]
    return [bundled_packs_dir(), *extra]


@dataclass(frozen=True, slots=True)
class PackEntry:
    """A pack found on disk (not loaded). ``origin``: ``bundled``, ``distribution NAME``,
    ``EDGEDP_PACKS`` or ``working directory`` (with the manifest's name if it is not the directory's:
    ``name`` is what finds the pack); ``pin``: the manifest SHA-256 it must have, if any;
    ``shadowed``: another pack found earlier answers to the same name, so this one is reached by
    its path only; ``problem``: why its manifest cannot be read (then ``kind`` is ``"?"``)."""

    name: str
    path: Path
    kind: str
    origin: str = "bundled"
    pin: str | None = None
    shadowed: bool = False
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class _Installed:
    """A pack registered by an installed distribution (entry point group ``edgedp.packs``)."""

    name: str
    distribution: str
    path: Path
    digest: str


def installed_packs() -> dict[str, _Installed]:
    """Packs of installed distributions, by pack name (the entry point's name).

    Loading an entry point imports the pack's module (a directory function and a digest, nothing
    else). A broken registration raises :class:`AssetError` naming the distribution, and so does
    a pack name that two installed distributions register (naming both): which one loads must
    never depend on ``sys.path`` order.
    """
    from edgedp.packs.distributions import entry_points

    found: dict[str, _Installed] = {}
    for entry in entry_points(ENTRY_POINT_GROUP):
        distribution = entry.dist.name if entry.dist is not None else entry.value
        if entry.name in found and found[entry.name].distribution != distribution:
            raise AssetError(
                f"pack {entry.name} is registered by two installed distributions, "
                f"{found[entry.name].distribution} and {distribution}: uninstall one of them"
            )
        try:
            directory = Path(entry.load()())
            digest = importlib.import_module(entry.module).MANIFEST_SHA256
        except Exception as error:
            raise AssetError(
                f"the installed pack distribution {distribution} is broken ({error}); reinstall it"
            ) from None
        if not isinstance(digest, str) or len(digest) != 64:
            raise AssetError(f"pack distribution {distribution} carries no valid MANIFEST_SHA256")
        found[entry.name] = _Installed(entry.name, distribution, directory, digest)
    return found


def list_packs() -> list[PackEntry]:
    """Every pack a name can find, in the order names are resolved.

    Lists the bundled packs, the installed pack distributions, the directories of
    ``EDGEDP_PACKS``, then pack directories in the working directory. Manifests are read, files
    are not hashed (:func:`~edgedp.load_pack` verifies them). A later pack with the name of an
    earlier one is ``shadowed``; a distribution that registers a bundled name always is (the
    bundled copy is the one that loads). ``edgedp packs`` prints the same list.

    Returns
    -------
    list of PackEntry
        One entry per pack found: ``name``, ``path``, ``kind``, ``origin`` (``bundled``,
        ``distribution NAME``, ``EDGEDP_PACKS`` or ``working directory``), ``pin`` (the pinned
        manifest SHA-256, if any), ``shadowed`` and ``problem``.

    Raises
    ------
    ~edgedp.AssetError
        If the bundled packs are missing (a broken installation) or an installed distribution's
        manifest is unreadable.

    Notes
    -----
    Packs hold public data only; listing them reads no private input.

    Examples
    --------
    >>> import edgedp
    >>> bundled = [entry.name for entry in edgedp.list_packs() if entry.origin == "bundled"]
    >>> sorted(bundled)
    ['lm-general', 'words-small']
    """
    entries = _directory_entries(bundled_packs_dir(), "bundled", names=BUNDLED_PACKS)
    for name, installed in sorted(installed_packs().items()):
        if (installed.path / MANIFEST_NAME).is_file():
            manifest = read_manifest(installed.path)
            origin = f"distribution {installed.distribution}"
            if name in BUNDLED_PACKS:  # never loaded: its pin is the bundled copy's
                origin += (
                    f", obsolete: edgedp bundles {name} (pip uninstall {installed.distribution})"
                )
                pin = BUNDLED_MANIFEST_SHA256[name]
            else:
                pin = _pin(name, installed)
            entries.append(PackEntry(name, installed.path, manifest.kind, origin, pin))
    for directory in search_dirs()[1:]:
        entries.extend(_directory_entries(directory, "EDGEDP_PACKS"))
    entries.extend(_directory_entries(Path.cwd(), "working directory"))
    seen: set[str] = set()
    listed = []
    for entry in entries:
        listed.append(dataclasses.replace(entry, shadowed=entry.name in seen))
        seen.add(entry.name)
    return listed


def _directory_entries(
    directory: Path, origin: str, *, names: tuple[str, ...] | None = None
) -> list[PackEntry]:
    """The pack directories in ``directory`` (only those called one of ``names``, if given)."""
    if not directory.is_dir():
        return []
    entries = []
    for child in sorted(directory.iterdir()):
        if names is not None and child.name not in names:
            continue
        if not (child / MANIFEST_NAME).is_file():
            continue
        try:
            manifest = read_manifest(child)
        except AssetError as error:
            if origin == "bundled":
                raise
            entries.append(PackEntry(child.name, child, "?", origin, problem=str(error)))
            continue
        pin = BUNDLED_MANIFEST_SHA256.get(child.name)  # its name loads it only with this pin
        where = origin  # a name finds the directory, whatever its manifest says
        if manifest.name != child.name:
            where = f"{origin}, manifest name {manifest.name!r}"
        entries.append(PackEntry(child.name, child, manifest.kind, where, pin))
    return entries


def _pin(name: str, installed: _Installed) -> str:
    """The digest an installed pack must have: this edgedp's own pin for a name it knows."""
    known = BUNDLED_MANIFEST_SHA256.get(name)
    if known is not None and installed.digest != known:
        raise AssetError(
            f"the installed distribution {installed.distribution} provides pack {name} with "
            f"manifest SHA-256 {installed.digest}, but this edgedp pins {name} to {known}; "
            f"install the {name} distribution built for this edgedp"
        )
    return installed.digest


def install_hint(name: str) -> str:
    """How to get the pack ``name``: the exact commands (pack wheels are built from a checkout).

    Parameters
    ----------
    name : str
        A pack name, e.g. ``"sentences-bbc"``.

    Returns
    -------
    str
        One clause naming the commands that build and install its wheel (with the runtime alone,
        no exporter) and the ``EDGEDP_PACKS`` alternative.
    """
    names = (name, *PACK_DEPENDENCIES.get(name, ()))
    directories = " ".join(f"assets/{each}" for each in names)
    wheels = " ".join(f"dist/{MODULE_PREFIX}{each.replace('-', '_')}-*.whl" for each in names)
    return (
        f"install its distribution: from a source checkout of edgedp run `python -m "
        f"edgedp.packs.wheel {directories} --out dist && pip install {wheels}`, or "
        f"point EDGEDP_PACKS at a directory that holds it"
    )


def resolve_pack_path(path: str | os.PathLike[str] | None) -> Path:
    """The directory of a pack given by path, by name, or the default (``None``).

    A bare name (a string without a path separator) is looked up in the bundled packs, then the
    installed pack distributions, then ``EDGEDP_PACKS``, and only then as a directory under the
    current one: a folder that happens to be called ``words-small`` where the program runs must
    never stand in for the pinned bundled pack, and wherever a name this edgedp pins is found, it
    loads only with its pin. ``None`` is always the bundled default.
    """
    return _locate(path)[0]


def _locate(path: str | os.PathLike[str] | None) -> tuple[Path, str | None]:
    """(directory, pin) of a pack reference; the pin is None for unpinned locations."""
    if path is None:
        path = DEFAULT_WORD_PACK
    if (
        isinstance(path, str)
        and os.sep not in path
        and (os.altsep is None or os.altsep not in path)
    ):
        if path in BUNDLED_PACKS:  # the bundled copy, whatever else carries the name
            return bundled_pack_dir(path), BUNDLED_MANIFEST_SHA256[path]
        installed = installed_packs().get(path)
        if installed is not None:
            return installed.path, _pin(path, installed)
        for directory in [*search_dirs()[1:], Path()]:  # EDGEDP_PACKS, then the working directory
            if (directory / path).is_dir():
                return directory / path, BUNDLED_MANIFEST_SHA256.get(path)
    candidate = Path(path)
    if candidate.is_dir():
        return candidate, _bundled_pin(candidate)
    try:
        known = ", ".join(entry.name for entry in list_packs()) or "none"
    except AssetError as error:
        known = f"unknown, a pack is unreadable: {error}"
    hint = (
        install_hint(str(path))
        if str(path) in BUNDLED_MANIFEST_SHA256
        else "build one with edgedp-export"
    )
    raise AssetError(
        f"no pack at {str(path)!r}: not a directory and not a known pack name (known: {known}); "
        f"{hint}"
    )


class LoadablePack(ABC):
    """The ``load`` classmethod of every pack type: ``WordPack.load()``, ``SentencePack.load(name)``.

    A pack type sets :attr:`PACK_KIND` and :attr:`DEFAULT_PACK` and builds itself from a verified
    manifest in :meth:`from_manifest`; :meth:`load` finds, pins and verifies the pack first
    (:func:`read_pack_manifest`), so a pack object only ever holds checked bytes.
    """

    __slots__ = ()
    #: The manifest kind this type loads (``"words"``, ``"sentences"``, ...).
    PACK_KIND: ClassVar[str]
    #: The pack ``load()`` loads when given no name.
    DEFAULT_PACK: ClassVar[str]

    @property
    def kind(self) -> str:
        """The pack's kind, its manifest's: :attr:`PACK_KIND`."""
        return self.PACK_KIND

    @classmethod
    @abstractmethod
    def from_manifest(cls, manifest: Manifest) -> Self:
        """Build the pack from a manifest whose files :func:`read_pack_manifest` verified.

        Parameters
        ----------
        manifest : Manifest
            The verified manifest of a pack of :attr:`PACK_KIND`.

        Returns
        -------
        LoadablePack
            The pack.

        Raises
        ------
        ~edgedp.AssetError
            If the pack's contents are inconsistent.
        """

    @classmethod
    def load(
        cls,
        path: PackRef | None = None,
        *,
        verify: bool = True,
        expected_digest: str | None = None,
    ) -> Self:
        """Load and verify a pack of this type by name or directory.

        Parameters
        ----------
        path : str, PathLike or None, default None
            A pack name (bundled, installed as a pack wheel, or under ``EDGEDP_PACKS``), a pack
            directory, or ``None`` for the type's :attr:`DEFAULT_PACK` (``WordPack``:
            ``words-small``; ``SentencePack``: ``sentences-bbc``; ...).
        verify : bool, optional
            Check every file's SHA-256 (default ``True``); ``False`` checks sizes only.
        expected_digest : str or None, default None
            Pins the SHA-256 of the pack's manifest.

        Returns
        -------
        LoadablePack
            The loaded pack, of this type, frozen.

        Raises
        ------
        ~edgedp.AssetError
            No such pack, a modified file, a digest that is not the pinned one, or a pack of
            another kind.

        Examples
        --------
        >>> from edgedp import SentencePack, WordPack
        >>> WordPack.load().name
        'words-small'
        >>> SentencePack.load("lm-general")  # the bundled language model is another kind
        Traceback (most recent call last):
        ...
        edgedp.errors.AssetError: pack lm-general (...) is a lm pack; this needs a sentences pack
        """
        return cls.from_manifest(
            read_pack_manifest(
                cls.DEFAULT_PACK if path is None else path,
                kind=cls.PACK_KIND,
                verify=verify,
                expected_digest=expected_digest,
            )
        )


def _bundled_pin(directory: Path) -> str | None:
    """The pin of a pack given by path: the bundled pin if it is a bundled pack's directory."""
    if directory.name not in BUNDLED_PACKS:
        return None
    if directory.resolve() != (bundled_packs_dir() / directory.name).resolve():
        return None
    return BUNDLED_MANIFEST_SHA256[directory.name]


def read_pack_manifest(
    path: PackRef | None = None,
    *,
    kind: str | None = None,
    verify: bool = True,
    expected_digest: str | None = None,
) -> Manifest:
    """Find a pack, check its pins and kind, verify its files, and return its manifest.

    Each pack type loads itself through this function (``WordPack.load(...)``,
    ``SentencePack.load(...)``, ...), and :func:`edgedp.load_pack` dispatches on the manifest's
    kind; the returned manifest's files have been read once into private memory and checked.

    Parameters
    ----------
    path : str, PathLike or None, default None
        A pack directory, the name of a bundled or installed pack, or ``None`` for the default
        words pack (``words-small``).
    kind : str or None, default None
        The kind the pack must be (``"words"``, ``"sentences"``, ...); ``None`` accepts any.
    verify : bool, optional
        Check every file's SHA-256 (default ``True``); ``False`` checks sizes only.
    expected_digest : str or None, default None
        Pins the manifest's SHA-256; a location's own pin (bundled and installed packs) holds
        whatever this says.

    Returns
    -------
    Manifest
        The verified manifest.

    Raises
    ------
    ~edgedp.AssetError
        No such pack, a missing or modified file, a digest that is not the pinned or expected
        one, a pack of another kind, a newer format.

    Examples
    --------
    >>> from edgedp.packs.loading import read_pack_manifest
    >>> read_pack_manifest("lm-general", kind="lm").name
    'lm-general'
    """
    manifest = find_pack_manifest(path, kind=kind, expected_digest=expected_digest)
    manifest.verify(checksums=verify)
    return manifest


def find_pack_manifest(
    path: PackRef | None = None, *, kind: str | None = None, expected_digest: str | None = None
) -> Manifest:
    """:func:`read_pack_manifest` without reading the pack's files: its manifest, found, pinned
    and of ``kind``, for a caller that decides from it and loads the pack later (or never).

    Parameters
    ----------
    path : str, PathLike or None, default None
        As :func:`read_pack_manifest`.
    kind : str or None, default None
        The kind the pack must be; ``None`` accepts any.
    expected_digest : str or None, default None
        Pins the manifest's SHA-256, as :func:`read_pack_manifest`.

    Returns
    -------
    Manifest
        The manifest, its schema checked; its files not read (``contents`` refuses them).

    Raises
    ------
    ~edgedp.AssetError
        As :func:`read_pack_manifest`, but for the files.

    Examples
    --------
    >>> from edgedp.packs.loading import find_pack_manifest
    >>> find_pack_manifest("lm-general", kind="lm").section("lm")["vocabulary"]["name"]
    'words-small'
    """
    directory, location_pin = _locate(path)
    manifest = read_manifest(directory)
    for pin in (location_pin, expected_digest):  # expected_digest never lifts a location's pin
        if pin is not None and manifest.digest != pin:
            raise AssetError(
                f"pack {directory}: manifest SHA-256 {manifest.digest} is not the expected {pin} "
                "(a different or modified pack); reinstall edgedp or the pack's distribution"
            )
    if kind is not None and manifest.kind != kind:
        raise AssetError(
            f"pack {manifest.name} ({directory}) is a {manifest.kind} pack; this needs a {kind} "
            "pack"
        )
    return manifest
