"""A pack as an installable Python distribution (the command is ``edgedp-export wheel``).

The wheel is the runtime's (:mod:`edgedp.packs.wheel`, also ``python -m edgedp.packs.wheel``, which
needs nothing but edgedp): the same code writes the same bytes. The exporter adds one check that
needs its libraries: before it is packed, the pack is loaded by the runtime loader of its kind
(every checksum, then the arrays and models parsed), which a build machine with the runtime alone
may not be able to do (an autoencoder pack needs the sentences extra).
"""

from __future__ import annotations

from pathlib import Path

import edgedp
from edgedp.packs import wheel


def build_wheel(pack_dir: Path, out: Path, *, version: str | None = None) -> Path:
    """Load the pack at ``pack_dir`` with the runtime loader of its kind, then write its wheel.

    Parameters
    ----------
    pack_dir : Path
        A pack directory.
    out : Path
        The directory for the wheel (created if missing).
    version : str or None, optional
        The distribution's version; ``None`` (the default) takes edgedp's.

    Returns
    -------
    Path
        The wheel :func:`edgedp.packs.wheel.build_wheel` wrote: the same bytes.

    Raises
    ------
    AssetError
        If the pack does not load.
    InputError
        As :func:`edgedp.packs.wheel.build_wheel` (a bundled pack, a bad name).
    """
    edgedp.load_pack(pack_dir, verify=True)
    return wheel.build_wheel(pack_dir, out, version=version)
