"""The ``edgedp-export`` command line: ``edgedp-export <command> ...`` (see ``--help``).

A command module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args)``; register
it in :data:`COMMAND_MODULES`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from edgedp.cli import UsageParser, add_subcommands
from edgedp.errors import EdgedpError

COMMAND_MODULES = (
    "edgedp_export.words",
    "edgedp_export.sentences",
    "edgedp_export.adept",
    "edgedp_export.wheel",
)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``edgedp-export``."""
    parser = UsageParser(prog="edgedp-export", description="Build edgedp asset packs offline.")
    commands = add_subcommands(parser, COMMAND_MODULES)
    args = parser.parse_args(argv)
    try:
        commands[args.command].run(args)
    except EdgedpError as error:
        print(f"edgedp-export: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("edgedp-export: interrupted; nothing was published", file=sys.stderr)
        return 130
    except OSError as error:
        if os.environ.get("EDGEDP_DEBUG"):
            raise
        print(f"edgedp-export: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
