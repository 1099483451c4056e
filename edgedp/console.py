"""The ``edgedp`` console script: Ctrl-C handling in place before anything heavy is imported.

``edgedp.cli.main`` imports every command module (numpy, FAISS, tokenizers: a noticeable pause) before it
can catch anything, so a Ctrl-C in that window used to print a ``KeyboardInterrupt`` traceback. This
module imports nothing but the standard library's ``sys`` before its ``try``: an interrupt at any
point after the interpreter started ends the program quietly with status 130 (128 + SIGINT, as a
shell reports it).
"""

from __future__ import annotations

import sys

EXIT_INTERRUPTED = 130


def main() -> int:
    """Run ``edgedp`` (see ``edgedp --help``); 130 on Ctrl-C, whenever it comes."""
    try:
        from edgedp.cli import main as cli_main

        return cli_main()
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
