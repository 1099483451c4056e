"""Word packs the benchmarks need beyond the bundled one, built on demand with edgedp-export.

They land in ``bench/packs/<preset>`` (git-ignored) and are reused by later runs.
"""

from __future__ import annotations

from pathlib import Path

import edgedp

PACKS_DIR = Path(__file__).resolve().parent / "packs"


def ensure_pack(preset: str) -> edgedp.WordPack:
    """The pack of an ``edgedp-export words`` preset (``medium``, ``full``, ``mldp300``)."""
    directory = PACKS_DIR / preset
    if not (directory / "manifest.json").is_file():
        from edgedp_export.cli import main as export_main

        print(f"   building the {preset} pack (once) in {directory}", flush=True)
        if export_main(["words", "--preset", preset, "--out", str(directory), "--force"]) != 0:
            raise SystemExit(f"could not build the {preset} pack")
    return edgedp.load_pack(directory)
