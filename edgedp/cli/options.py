"""Options that several ``edgedp`` commands share: epsilon, --seed, --threads, and deprecated names.

Every command module reads them from here (never from a sibling command), so one option reads,
validates and warns the same way in ``privatize``, ``embed``, ``explain``, ``tune`` and
``calibrate``. A command turns its parsed arguments into typed options once, at the start of its
``run`` (the ``from_args`` of each step's options); nothing past that reads the argparse namespace.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from edgedp.privacy.validation import check_epsilon
from edgedp.progress import message


def parse_epsilon(text: str) -> float:
    """An epsilon from the command line, validated like every other epsilon."""
    return check_epsilon(_number(text))


def _number(text: str) -> object:
    """A float if ``text`` reads as one; else the text itself, for the validator to reject."""
    try:
        return float(text)
    except ValueError:
        return text


def add_seed_argument(parser: argparse.ArgumentParser, what: str = "output") -> None:
    """--seed: reproducible and NOT private; the default is OS entropy."""
    parser.add_argument(
        "--seed",
        type=int,
        help=f"fixed seed: reproducible {what}, NOT private (default: none, OS entropy: private)",
    )


def warn_if_seeded(seed: int | None) -> None:
    """Say on stderr that a --seed run is not private (the library warns too, in Python)."""
    if seed is not None:
        message(f"edgedp: warning: --seed {seed} makes the output reproducible and NOT private")


class RenamedFlag(argparse.Action):
    """A flag's deprecated old name: stores its value and prints a one-line notice on stderr.

    It works for one release; the notice names the new flag (the ``dest``).
    """

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        new = "--" + self.dest.replace("_", "-")
        message(
            f"edgedp: warning: {option_string} is renamed {new}; {option_string} will be removed "
            "in the next release"
        )
        setattr(namespace, self.dest, values)
