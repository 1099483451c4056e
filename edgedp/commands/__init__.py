"""Subcommands of the ``edgedp`` CLI, one module each.

A command module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args)``; ``run``
raises :class:`~edgedp.errors.EdgedpError` for anything the user can fix. Register a new module in
:data:`COMMAND_MODULES`.
"""

COMMAND_MODULES = (
    "edgedp.commands.privatize",
    "edgedp.commands.packs",
    "edgedp.commands.embed",
    "edgedp.commands.calibrate",
    "edgedp.commands.ledger",
)
