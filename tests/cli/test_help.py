"""Every command's help states each option's default (or that it is required), says literally
what it means (no stray '%%'), and the stated defaults are the code's (issue 26)."""

from __future__ import annotations

import argparse
import inspect
import re

import pytest

import edgedp
from edgedp.cli import COMMAND_MODULES, build_parser
from edgedp.registry import WORD_MECHANISMS


def parsers() -> dict[str, argparse.ArgumentParser]:
    """Every (sub)command's parser, by its command line."""
    parser, _ = build_parser("edgedp", "", COMMAND_MODULES, ["--help"])
    found: dict[str, argparse.ArgumentParser] = {}

    def visit(prefix: str, current: argparse.ArgumentParser) -> None:
        for action in current._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found[f"{prefix} {name}".strip()] = sub
                    visit(f"{prefix} {name}", sub)

    visit("", parser)
    return found


PARSERS = parsers()
FLAGS = (argparse._StoreTrueAction, argparse._HelpAction, argparse._VersionAction)


@pytest.mark.parametrize("command", sorted(PARSERS))
def test_every_option_states_its_default_or_that_it_is_required(command):
    missing = [
        action.option_strings[0]
        for action in PARSERS[command]._actions
        if action.option_strings
        and not isinstance(action, FLAGS)
        and not action.required
        and action.help != argparse.SUPPRESS  # a deprecated alias (--space), not in the help
        and not re.search(r"default|required", action.help or "")
    ]
    assert missing == [], f"edgedp {command}: options without a stated default: {missing}"


@pytest.mark.parametrize("command", sorted(PARSERS))
def test_help_reads_as_printed(command):
    text = PARSERS[command].format_help()
    assert "%%" not in text and "%(" not in text


def test_the_stated_defaults_are_the_constructors():
    help_of = {
        action.dest: action.help or ""
        for action in PARSERS["privatize"]._actions
        if action.option_strings
    }
    for name in WORD_MECHANISMS:
        signature = inspect.signature(WORD_MECHANISMS[name].__init__)
        for parameter in signature.parameters.values():
            if parameter.name in help_of and isinstance(parameter.default, int | float):
                stated = re.search(r"default: ([\d.]+)", help_of[parameter.name])
                assert stated and float(stated.group(1)) == parameter.default, (
                    name,
                    parameter.name,
                )


def test_keyword_only_arguments_say_so():
    pack = edgedp.load_pack()
    with pytest.raises(TypeError, match=r"keyword-only: BRR\(pack, \*, epsilon=\.\.\., rng="):
        edgedp.BRR(pack, 0.6)
    with pytest.raises(TypeError, match=r"keyword-only: Vickrey\(pack, \*, epsilon=\.\.\., t="):
        edgedp.Vickrey(pack, 0.6, 0.5)
    edgedp.BRR(pack, epsilon=0.6)  # keywords: fine
