"""Every command's help states each option's default (or that it is required), says literally
what it means (no stray '%%'), and the stated defaults are the ones that run: argparse's own, the
constructors' for what a command leaves to the mechanism, each command's decoder."""

from __future__ import annotations

import argparse
import inspect
import re

import pytest

import edgedp
from edgedp.cli import COMMAND_MODULES, build_parser
from edgedp.cli.decoding import DEFAULT_MEANING, DecodeOptions
from edgedp.registry import WORD_MECHANISMS
from edgedp.words.mechanism import WordMechanism


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


def stated(command: str) -> dict[str, tuple[argparse.Action, str]]:
    """Each option of ``command`` whose help states a default value: (action, the value)."""
    found = {}
    for action in PARSERS[command]._actions:
        match = re.search(r"\(default: ([^()]*)\)", action.help or "")
        if action.option_strings and match:
            found[action.dest] = (action, match.group(1))
    return found


@pytest.mark.parametrize("command", sorted(PARSERS))
def test_a_stated_default_is_argparses_where_argparse_has_one(command):
    for dest, (action, value) in stated(command).items():
        if action.default is not None:
            default = action.default
            same = value == str(default) or (isinstance(default, float) and float(value) == default)
            assert same, (command, dest, value, default)


@pytest.mark.parametrize("command", ["privatize", "explain", "tune"])
def test_what_a_command_leaves_to_the_mechanism_is_stated_as_the_constructor_has_it(command):
    constructor = inspect.signature(WordMechanism.__init__).parameters
    options = stated(command)
    assert options["casing"][1] == constructor["casing"].default
    assert options["candidates"][1] == str(constructor["candidates"].default)
    assert options["protect"][1] == ",".join(constructor["protect"].default)
    oov = next(action for action in PARSERS[command]._actions if action.dest == "oov")
    assert f"({constructor['oov'].default}, the default)" in (oov.help or "")


def test_each_command_states_the_decoder_it_uses():
    # privatize, explain and tune leave it to the mechanism: context for the mechanisms whose
    # measurements chose it (where their language model is installed), else nearest
    for command in ("privatize", "explain", "tune"):
        assert stated(command)["decode"][1] == DEFAULT_MEANING["auto"]
    context = sorted(name for name, cls in WORD_MECHANISMS.items() if cls.auto_decode != "nearest")
    assert DEFAULT_MEANING["auto"].startswith(f"context for {', '.join(context)} where")
    brr = WORD_MECHANISMS["brr"](edgedp.load_pack(), epsilon=1.0)
    assert brr.decode == "context"  # the default pack's language model is bundled
    # calibrate measures the mechanisms' own rule, and says so
    assert stated("calibrate")["decode"][1] == "nearest"
    namespace = PARSERS["calibrate"].parse_args(["--from", "brr", "--to", "brr", "--epsilon", "1"])
    assert DecodeOptions.from_args(namespace, "nearest").keywords() == {"decode": "nearest"}


def test_keyword_only_arguments_say_so():
    pack = edgedp.load_pack()
    with pytest.raises(TypeError, match=r"keyword-only: BRR\(pack, \*, epsilon=\.\.\., rng="):
        edgedp.BRR(pack, 0.6)
    with pytest.raises(TypeError, match=r"keyword-only: Vickrey\(pack, \*, epsilon=\.\.\., t="):
        edgedp.Vickrey(pack, 0.6, 0.5)
    edgedp.BRR(pack, epsilon=0.6)  # keywords: fine
