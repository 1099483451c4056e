"""``edgedp-export wheel PACKDIR... --out DIR``: packs as installable wheels (:mod:`edgedp_export.wheel`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from edgedp_export.wheel import build_wheel

NAME = "wheel"
HELP = "package asset packs as installable wheels (entry point group edgedp.packs)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("packs", nargs="+", type=Path, metavar="PACKDIR", help="pack directories")
    parser.add_argument("--out", type=Path, required=True, help="directory for the wheels")
    parser.add_argument("--version", help="distribution version (default: edgedp's)")


def run(args: argparse.Namespace) -> None:
    for pack_dir in args.packs:
        wheel = build_wheel(pack_dir, args.out, version=args.version)
        print(f"wrote {wheel} ({wheel.stat().st_size / 2**20:.1f} MiB)", file=sys.stderr)
