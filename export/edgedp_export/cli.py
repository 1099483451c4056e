"""The ``edgedp-export`` command line: ``edgedp-export <command> ...`` (see ``--help``).

A command module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args)``; register
it in :data:`COMMAND_MODULES`. Parsing and error handling are the runtime's
(:func:`edgedp.cli.command_line`), so both commands fail the same way.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import edgedp
import edgedp_export
from edgedp.cli import command_line

COMMAND_MODULES = (
    "edgedp_export.commands.words",
    "edgedp_export.commands.sentences",
    "edgedp_export.commands.subspace",
    "edgedp_export.commands.encoder",
    "edgedp_export.commands.adept",
    "edgedp_export.commands.lm",
    "edgedp_export.commands.langid",
    "edgedp_export.commands.wheel",
)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``edgedp-export``."""
    return command_line(
        "edgedp-export",
        "Build edgedp asset packs offline.",
        COMMAND_MODULES,
        argv,
        interrupted="interrupted; nothing was published",
        version=f"edgedp-export {edgedp_export.__version__} (edgedp {edgedp.__version__})",
    )


if __name__ == "__main__":
    sys.exit(main())
