"""``edgedp-export wheel PACKDIR... --out DIR``: packs as installable wheels (:mod:`edgedp_export.wheel`;
the same wheels as the runtime's ``python -m edgedp.packs.wheel``, from the same code)."""

from __future__ import annotations

import argparse

from edgedp.packs import wheel
from edgedp_export.wheel import build_wheel

NAME = "wheel"
HELP = "package asset packs as installable wheels (entry point group edgedp.packs)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    wheel.add_arguments(parser)


def run(args: argparse.Namespace) -> None:
    wheel.build_all(args, build_wheel)
