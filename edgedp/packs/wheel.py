"""A pack as an installable Python distribution: ``python -m edgedp.packs.wheel PACKDIR... --out DIR``.

The convention of spaCy models and model2vec: one wheel per pack, pure Python (``py3-none-any``),
installing the pack directory as package data of a module ``edgedp_pack_<name>`` and registering it
in the entry-point group ``edgedp.packs`` (``<name> = edgedp_pack_<name>:pack_dir``). The module
carries ``MANIFEST_SHA256``, the digest of the manifest it was built from (which lists the SHA-256
of every file), so the runtime pins the installed pack to it (see :mod:`edgedp.packs.loading`).

The wheel is written directly with :mod:`zipfile` (no build backend, no network, nothing beyond
the runtime: an app's build machine needs ``pip install .`` and no exporter): METADATA, WHEEL,
entry_points.txt and a RECORD with the SHA-256 of every file. It is reproducible: entries in sorted
order, fixed timestamps (1980-01-01) and permissions, so the same pack gives the same bytes,
whichever command builds it (``edgedp-export wheel`` runs this code). The pack's manifest is
validated and every file's size and SHA-256 checked first; the files packed are the verified bytes.

A pack that references another (a sentences or subspace pack and the encoder pack it embeds with,
:mod:`edgedp.encoder.pack`) does not carry it: its wheel declares ``Requires-Dist:
edgedp-pack-<encoder>==<version>``, the version of the wheel itself, so the packs of one release are
built together with one version (``python -m edgedp.packs.wheel assets/encoder-minilm
assets/sentences-bbc --out dist``) and installed together (pip finds the dependency among the wheels
it is given). The runtime still pins the encoder pack by the digest the referencing manifest holds.
A words pack of another language requires its language model's wheel the same way
(``edgedp-pack-words-es`` needs ``edgedp-pack-lm-es``).

The packs of :data:`~edgedp.packs.loading.BUNDLED_PACKS` ship inside the runtime wheel
(``pip wheel . --no-deps``) and are refused here: a distribution of a bundled name is never loaded.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import re
import sys
import zipfile
from collections.abc import Mapping, Sequence
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as distribution_version
from pathlib import Path
from typing import Protocol

from edgedp.errors import EdgedpError, InputError
from edgedp.packs.loading import (
    BUNDLED_PACKS,
    DISTRIBUTION_PREFIX,
    ENTRY_POINT_GROUP,
    MODULE_PREFIX,
)
from edgedp.packs.manifest import MANIFEST_NAME, Manifest, read_manifest

_EPOCH = (1980, 1, 1, 0, 0, 0)
_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
#: The ``Generator`` of every pack wheel's WHEEL file (kept from the first builder, so that wheels
#: built before this module existed are byte for byte the ones it builds).
GENERATOR = "edgedp-export"
#: The runtime's distribution, named as its top-level package (spelled so even as ``__main__``).
RUNTIME_DISTRIBUTION = EdgedpError.__module__.partition(".")[0]


class WheelBuilder(Protocol):
    """What :func:`build_all` calls per pack: :func:`build_wheel`'s signature."""

    def __call__(self, pack_dir: Path, out: Path, *, version: str | None = None) -> Path: ...


MODULE_TEMPLATE = '''"""The edgedp asset pack {name!r} ({kind}), installed as a Python distribution.

Built by ``{command}``. edgedp finds it through the entry point
``{group}``: ``edgedp.load_pack({name!r})``. {description}
"""

from pathlib import Path

PACK_NAME = {name!r}
#: SHA-256 of the pack's manifest.json (which lists the SHA-256 of every file): edgedp pins to it.
MANIFEST_SHA256 = {digest!r}


def pack_dir() -> Path:
    """The installed pack directory."""
    return Path(__file__).resolve().parent / PACK_NAME
'''


def module_name(pack_name: str) -> str:
    """The import name of a pack distribution's module.

    Parameters
    ----------
    pack_name : str
        The pack's name, e.g. ``"sentences-bbc"``.

    Returns
    -------
    str
        ``"edgedp_pack_sentences_bbc"``.
    """
    return MODULE_PREFIX + pack_name.replace("-", "_")


def referenced_packs(manifest: Manifest) -> tuple[str, ...]:
    """The packs a pack needs installed beside it (its wheel's pack dependencies).

    Parameters
    ----------
    manifest : Manifest
        A validated pack manifest.

    Returns
    -------
    tuple of str
        The name of the encoder pack that a sentences or subspace pack references, or of the
        language model a words pack decodes with (``language_model``, unless it is bundled);
        empty for every other pack (and for packs that carry their own encoder).
    """
    if manifest.kind == "words":
        model = manifest.data.get("language_model")
        return (model,) if isinstance(model, str) and model not in BUNDLED_PACKS else ()
    encoder = manifest.data.get("encoder")
    if manifest.kind == "encoder" or not isinstance(encoder, Mapping) or "pack" not in encoder:
        return ()
    return (str(encoder["pack"]),)


def runtime_version() -> str:
    """The version of the installed edgedp distribution (the default version of a pack wheel).

    Returns
    -------
    str
        The ``Version`` of edgedp's installed metadata.

    Raises
    ------
    InputError
        If no edgedp distribution is installed (the package imported from a bare checkout).
    """
    try:
        return distribution_version(RUNTIME_DISTRIBUTION)
    except PackageNotFoundError:
        raise InputError(
            "edgedp's version is unknown (the package is not installed): pip install . first, or "
            "pass --version"
        ) from None


def build_wheel(pack_dir: Path, out: Path, *, version: str | None = None) -> Path:
    """Verify the pack at ``pack_dir`` and write its wheel into ``out``.

    Parameters
    ----------
    pack_dir : Path
        A pack directory (its manifest and every file it lists).
    out : Path
        The directory for the wheel (created if missing).
    version : str or None, optional
        The distribution's version; ``None`` (the default) takes edgedp's (:func:`runtime_version`).
        The wheel requires ``edgedp>=`` the installed edgedp's version either way, and the
        distribution of each pack it references (:func:`referenced_packs`) at this version.

    Returns
    -------
    Path
        ``out / "edgedp_pack_<name>-<version>-py3-none-any.whl"``, written whole (through a staging
        file renamed into place).

    Raises
    ------
    AssetError
        If the pack is invalid: its manifest, or a file's size or SHA-256.
    InputError
        If the pack's name, or that of a pack it references, is not a valid distribution name
        part, or it is bundled with edgedp.

    Notes
    -----
    The same pack and version give the same bytes on every machine and Python version.
    """
    manifest = read_manifest(pack_dir)
    manifest.verify(checksums=True)
    name = manifest.name
    if not _NAME.match(name):
        raise InputError(f"pack name {name!r} is not a valid distribution name part (a-z, 0-9, -)")
    if name in BUNDLED_PACKS:
        raise InputError(
            f"pack {name} ships inside the edgedp runtime wheel (pip wheel . --no-deps); it needs "
            "no wheel of its own"
        )
    for needed in referenced_packs(manifest):
        if not _NAME.match(needed):
            raise InputError(
                f"pack {name} references pack {needed!r}, which is not a valid distribution name "
                "part (a-z, 0-9, -)"
            )
    raw_manifest = (pack_dir / MANIFEST_NAME).read_bytes()
    if hashlib.sha256(raw_manifest).hexdigest() != manifest.digest:
        raise InputError(f"pack {pack_dir}: {MANIFEST_NAME} changed while it was packed; retry")
    runtime = runtime_version()
    version = version or runtime
    module = module_name(name)
    dist_info = f"{module}-{version}.dist-info"
    description = str(manifest.data.get("description", ""))
    files: dict[str, bytes] = {
        f"{module}/__init__.py": MODULE_TEMPLATE.format(
            name=name,
            kind=manifest.kind,
            command=f"edgedp-export wheel {name} --version {version}",
            group=ENTRY_POINT_GROUP,
            description=description.replace('"""', "'''"),
            digest=manifest.digest,
        ).encode(),
        f"{module}/py.typed": b"",
    }
    for relative in sorted([MANIFEST_NAME, *manifest.data["files"]]):
        data = raw_manifest if relative == MANIFEST_NAME else manifest.contents(relative)
        files[f"{module}/{name}/{relative}"] = data
    files[f"{dist_info}/METADATA"] = _metadata(manifest, version, runtime).encode()
    files[f"{dist_info}/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: {GENERATOR}\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    ).encode()
    files[f"{dist_info}/entry_points.txt"] = (
        f"[{ENTRY_POINT_GROUP}]\n{name} = {module}:pack_dir\n"
    ).encode()
    record = f"{dist_info}/RECORD"
    lines = [f"{path},sha256={_digest(data)},{len(data)}" for path, data in files.items()]
    files[record] = ("\n".join([*lines, f"{record},,"]) + "\n").encode()
    out.mkdir(parents=True, exist_ok=True)
    wheel = out / f"{module}-{version}-py3-none-any.whl"
    staging = wheel.with_suffix(".tmp")
    with zipfile.ZipFile(staging, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():  # RECORD last, as the spec recommends
            info = zipfile.ZipInfo(path, date_time=_EPOCH)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    staging.replace(wheel)
    return wheel


def _metadata(manifest: Manifest, version: str, runtime: str) -> str:
    data = manifest.data
    distribution = DISTRIBUTION_PREFIX + manifest.name
    licence = data.get("source", {}).get("license")
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {distribution}",
        f"Version: {version}",
        f"Summary: edgedp asset pack {manifest.name} ({manifest.kind})",
        f"Requires-Dist: edgedp>={runtime}",
        *(
            f"Requires-Dist: {DISTRIBUTION_PREFIX}{needed}=={version}"
            for needed in referenced_packs(manifest)
        ),
        "Requires-Python: >=3.11",
        f"License: code Apache-2.0; pack data: {licence or 'see the manifest'}",
        "Description-Content-Type: text/markdown",
        "",
        f"# {distribution}",
        "",
        str(data.get("description", "")),
        "",
        f"Manifest SHA-256: `{manifest.digest}`. Load it with "
        f"`edgedp.load_pack({manifest.name!r})`; `edgedp packs verify {manifest.name}` checks every "
        "file.",
        "",
    ]
    return "\n".join(lines)


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of the command (also ``edgedp-export wheel``'s).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser to add ``PACKDIR...``, ``--out`` and ``--version`` to.
    """
    parser.add_argument("packs", nargs="+", type=Path, metavar="PACKDIR", help="pack directories")
    parser.add_argument("--out", type=Path, required=True, help="directory for the wheels")
    parser.add_argument("--version", help="distribution version (default: edgedp's)")


def build_all(args: argparse.Namespace, builder: WheelBuilder | None = None) -> None:
    """Build the wheel of every pack of parsed arguments, one line on stderr per wheel written.

    Parameters
    ----------
    args : argparse.Namespace
        ``packs``, ``out`` and ``version``, as :func:`add_arguments` defines them.
    builder : callable or None, optional
        Called as ``builder(pack_dir, out, version=version)`` and returning the wheel's path;
        ``None`` (the default) is :func:`build_wheel` (``edgedp-export wheel`` passes its own, which
        loads each pack fully first and then calls :func:`build_wheel`).

    Raises
    ------
    EdgedpError
        The first pack's error; the wheels before it are written.
    """
    build = builder or build_wheel
    for pack_dir in args.packs:
        wheel = build(pack_dir, args.out, version=args.version)
        print(f"wrote {wheel} ({wheel.stat().st_size / 2**20:.1f} MiB)", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m edgedp.packs.wheel PACKDIR... --out DIR [--version V]``.

    Parameters
    ----------
    argv : sequence of str or None, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 when every wheel is written; 1 after a one-line error on stderr.
    """
    parser = argparse.ArgumentParser(
        prog="python -m edgedp.packs.wheel",
        description="Package edgedp asset packs as installable wheels (entry point group "
        "edgedp.packs), with the runtime alone. The runtime wheel itself, with its bundled packs: "
        "pip wheel . --no-deps -w DIR in a checkout.",
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        build_all(args)
    except (EdgedpError, OSError) as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
