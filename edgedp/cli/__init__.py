"""The ``edgedp`` command line: ``edgedp <command> ...`` (see ``edgedp --help``).

One module per subcommand in this package; a command module defines ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(args)``, and ``run`` raises :class:`~edgedp.errors.EdgedpError`
for anything the user can fix. Register a new module in :data:`COMMAND_MODULES`. ``run`` turns the
parsed arguments into typed options once and passes them to the steps the commands share, each a
module: ``reading`` (the input), ``guarding`` (the identifier guard), ``languages`` (which
word pack each line is released with), ``mechanisms`` (the mechanism and its options, from
:mod:`edgedp.registry`), ``decoding`` (the word decoder),
``charging`` (the ledger), ``releasing`` (text through the mechanism) and ``writing`` (the
output); ``options`` holds what several commands read alike. Errors exit with
status 1 (2 for usage errors) and one line on stderr; never a traceback unless ``EDGEDP_DEBUG=1``
is set.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any, NoReturn

from edgedp.errors import EdgedpError

EXIT_ERROR, EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPTED = 1, 2, 70, 130
COMMAND_MODULES = (
    "edgedp.cli.privatize",
    "edgedp.cli.packs",
    "edgedp.cli.embed",
    "edgedp.cli.calibrate",
    "edgedp.cli.ledger",
    "edgedp.cli.explain",
    "edgedp.cli.tune",
    "edgedp.cli.info",
)


def terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``, without importing shutil.

    argparse's help formatter imports shutil for this, and shutil imports zlib, bz2 and lzma:
    resident memory in every ``edgedp privatize`` run (bench/reports/2026-11-23-footprint.md),
    which formats no help. Same
    rule: a positive ``COLUMNS``, else the terminal of ``sys.__stdout__``, else 80.
    """
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, with the width found by :func:`terminal_columns`."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        width = terminal_columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        """Each paragraph (blank-line separated) filled on its own, so that a description or an
        epilog of several paragraphs keeps them (argparse's RawDescriptionHelpFormatter would
        too, but it measures the terminal with shutil)."""
        return "\n\n".join(
            super(HelpFormatter, self)._fill_text(paragraph, width, indent)
            for paragraph in text.split("\n\n")
        )


class UsageParser(argparse.ArgumentParser):
    """argparse that reports usage errors on one line (shared with edgedp-export)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def add_subcommands(
    parser: argparse.ArgumentParser, module_names: Sequence[str]
) -> dict[str, ModuleType]:
    """One subcommand per module (``NAME``, ``HELP``, ``add_arguments``, ``run``), by name.

    Shared with edgedp-export.
    """
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=UsageParser)
    commands = {}
    for module_name in module_names:
        module = importlib.import_module(module_name)
        module.add_arguments(subparsers.add_parser(module.NAME, help=module.HELP))
        commands[module.NAME] = module
    return commands


def build_parser(
    prog: str,
    description: str,
    module_names: Sequence[str],
    argv: Sequence[str] | None = None,
    *,
    version: str | None = None,
) -> tuple[argparse.ArgumentParser, dict[str, ModuleType]]:
    """The parser; when ``argv`` names a command, only that command's module is imported (a command
    module ``package.<name>`` defines ``NAME = "<name>"``), so ``edgedp privatize`` never imports
    the sentence path or the ledger. ``--help`` and errors still see every command; ``--version``
    (if ``version`` is given) imports none."""
    parser = UsageParser(prog=prog, description=description)
    arguments = sys.argv[1:] if argv is None else list(argv)
    if version is not None:
        parser.add_argument("--version", action="version", version=version)
        if arguments[:1] == ["--version"]:
            return parser, add_subcommands(parser, ())
    chosen = [m for m in module_names if arguments and m.rpartition(".")[2] == arguments[0]]
    return parser, add_subcommands(parser, chosen or module_names)


def command_line(
    prog: str,
    description: str,
    module_names: Sequence[str],
    argv: Sequence[str] | None = None,
    *,
    interrupted: str | None = None,
    version: str | None = None,
) -> int:
    """Parse ``argv``, run the chosen command, and turn every failure into an exit status with one
    line on stderr (shared by ``edgedp`` and ``edgedp-export``).

    1: an :class:`~edgedp.errors.EdgedpError` or an operating-system error (a file that cannot be
    read or written); 2: a usage error; 130: Ctrl-C (``interrupted`` is printed if given); 70: a
    bug (``EDGEDP_DEBUG=1`` shows the traceback). A closed output pipe ends quietly with 0.
    ``version`` is what ``--version`` prints.
    """
    try:
        parser, commands = build_parser(prog, description, module_names, argv, version=version)
        args = parser.parse_args(argv)
        commands[args.command].run(args)
    except EdgedpError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # silence the flush at exit
        return 0
    except KeyboardInterrupt:
        if interrupted:
            print(f"{prog}: {interrupted}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as error:
        if os.environ.get("EDGEDP_DEBUG"):
            raise
        print(f"{prog}: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as error:  # one line, not a traceback (EDGEDP_DEBUG=1 shows it)
        if os.environ.get("EDGEDP_DEBUG"):
            raise
        print(
            f"{prog}: internal error: {type(error).__name__}: {error} "
            "(set EDGEDP_DEBUG=1 for details and please report it)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``edgedp`` command line; returns the exit status.

    The console script is :func:`edgedp.console.main`, which also covers a Ctrl-C that arrives
    while this package is being imported.
    """
    from edgedp import __version__

    return command_line(
        "edgedp",
        "On-device differential privacy for text. Every command prints text for people and, "
        "with --json, JSON for programs (privatize and embed write the released data).",
        COMMAND_MODULES,
        argv,
        version=f"edgedp {__version__}",
    )
