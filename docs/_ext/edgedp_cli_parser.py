"""The ``edgedp`` argument parser for sphinx-argparse: exactly the one ``edgedp.cli.main`` builds.

``main`` builds its parser inside :func:`edgedp.cli.command_line`; this module runs ``main`` with
``command_line`` replaced by a function that builds the parser with every command and returns it,
so the reference is generated from the same call (prog, description, commands, ``--version``).

sphinx-argparse reads help texts as reStructuredText, and parses epilogs outside the build (where a
Sphinx role cannot run): a role in a help text (``:mod:`edgedp.text.records```, which ``--help``
prints as it is) is shown here as the literal text it names.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from typing import Any
from unittest import mock

import edgedp.cli

_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`~?([^`]+)`")


def _literal_roles(parser: argparse.ArgumentParser) -> None:
    for name in ("description", "epilog"):
        text = getattr(parser, name)
        if text:
            setattr(parser, name, _ROLE.sub(r"``\1``", text))
    for action in parser._actions:
        if action.help:
            action.help = _ROLE.sub(r"``\1``", action.help)
        if isinstance(action, argparse._SubParsersAction):
            for subparser in action.choices.values():
                _literal_roles(subparser)


def parser() -> argparse.ArgumentParser:
    """The parser of ``edgedp``, every command included."""
    built: list[argparse.ArgumentParser] = []

    def capture(
        prog: str,
        description: str,
        module_names: Sequence[str],
        argv: Sequence[str] | None = None,
        **options: Any,
    ) -> int:
        built.append(
            edgedp.cli.build_parser(
                prog, description, module_names, [], version=options.get("version")
            )[0]
        )
        return 0

    with mock.patch.object(edgedp.cli, "command_line", capture):
        edgedp.cli.main([])
    _literal_roles(built[0])
    return built[0]
