"""A pack as an installable Python distribution (the command is ``edgedp-export wheel``).

The convention of spaCy models and model2vec: one wheel per pack, pure Python (``py3-none-any``),
installing the pack directory as package data of a module ``edgedp_pack_<name>`` and registering it
in the entry-point group ``edgedp.packs`` (``<name> = edgedp_pack_<name>:pack_dir``). The module
carries ``MANIFEST_SHA256``, the digest of the manifest it was built from (which lists the SHA-256
of every file), so the runtime pins the installed pack to it (see :mod:`edgedp.packs.loading`).

The wheel is written directly with :mod:`zipfile` (no build backend, no network): METADATA,
WHEEL, entry_points.txt and a RECORD with the SHA-256 of every file. It is reproducible: entries
in sorted order, fixed timestamps (1980-01-01) and permissions, so the same pack gives the same
bytes. The pack is verified by the runtime loader (every checksum) before it is packed.
"""

from __future__ import annotations

import base64
import hashlib
import re
import zipfile
from pathlib import Path

import edgedp
from edgedp.errors import InputError
from edgedp.packs.loading import DISTRIBUTION_PREFIX, ENTRY_POINT_GROUP, Pack
from edgedp.packs.manifest import MANIFEST_NAME

_EPOCH = (1980, 1, 1, 0, 0, 0)
_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

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
    """``sentences-bbc`` -> ``edgedp_pack_sentences_bbc``."""
    return "edgedp_pack_" + pack_name.replace("-", "_")


def build_wheel(pack_dir: Path, out: Path, *, version: str | None = None) -> Path:
    """Verify the pack at ``pack_dir`` and write its wheel into ``out``; returns the wheel's path."""
    pack = edgedp.load_pack(pack_dir, verify=True)
    name = pack.name
    if not _NAME.match(name):
        raise InputError(f"pack name {name!r} is not a valid distribution name part (a-z, 0-9, -)")
    version = version or edgedp.__version__
    module = module_name(name)
    distribution = DISTRIBUTION_PREFIX + name
    dist_info = f"{module}-{version}.dist-info"
    command = f"edgedp-export wheel {name} --version {version}"
    description = str(pack.manifest.data.get("description", ""))
    files: dict[str, bytes] = {
        f"{module}/__init__.py": MODULE_TEMPLATE.format(
            name=name,
            kind=pack.kind,
            command=command,
            group=ENTRY_POINT_GROUP,
            description=description.replace('"""', "'''"),
            digest=pack.manifest.digest,
        ).encode(),
        f"{module}/py.typed": b"",
    }
    for relative in sorted([MANIFEST_NAME, *pack.manifest.data["files"]]):
        files[f"{module}/{name}/{relative}"] = (pack.path / relative).read_bytes()
    files[f"{dist_info}/METADATA"] = _metadata(distribution, version, pack).encode()
    files[f"{dist_info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: edgedp-export\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
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


def _metadata(distribution: str, version: str, pack: Pack) -> str:
    data = pack.manifest.data
    licence = data.get("source", {}).get("license")
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {distribution}",
        f"Version: {version}",
        f"Summary: edgedp asset pack {pack.name} ({pack.kind})",
        f"Requires-Dist: edgedp>={edgedp.__version__}",
        "Requires-Python: >=3.11",
        f"License: code Apache-2.0; pack data: {licence or 'see the manifest'}",
        "Description-Content-Type: text/markdown",
        "",
        f"# {distribution}",
        "",
        str(data.get("description", "")),
        "",
        f"Manifest SHA-256: `{pack.manifest.digest}`. Load it with "
        f"`edgedp.load_pack({pack.name!r})`; `edgedp packs verify {pack.name}` checks every file.",
        "",
    ]
    return "\n".join(lines)


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
