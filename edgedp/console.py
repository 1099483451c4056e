"""The ``edgedp`` console script: Ctrl-C handling in place before anything heavy is imported.

``edgedp.cli.main`` imports every command module (numpy, FAISS, tokenizers: a noticeable pause) before it
can catch anything, so a Ctrl-C in that window used to print a ``KeyboardInterrupt`` traceback. This
module imports nothing but the standard library's ``sys`` before its ``try``: an interrupt at any
point after the interpreter started ends the program quietly with status 130 (128 + SIGINT, as a
shell reports it).

It also asks glibc's allocator to give every block of :data:`MMAP_THRESHOLD` bytes or more its own
mapping (``mallopt(M_MMAP_THRESHOLD)``, as ``MALLOC_MMAP_THRESHOLD_`` does), so that the large
temporaries of a pack load go back to the system when freed instead of staying in the heap: 1.3 MB
less peak memory for a one-message ``privatize`` (bench/reports/2026-11-29-footprint.md). A
process setting, so the command does it, never the library.
"""

from __future__ import annotations

import sys

EXIT_INTERRUPTED = 130
#: Blocks at least this large get their own mapping (glibc's default before it adapts upwards).
MMAP_THRESHOLD = 128 * 1024
#: ``M_MMAP_THRESHOLD`` of glibc's ``malloc.h``.
_M_MMAP_THRESHOLD = -3


def release_large_blocks() -> None:
    """Fix glibc's mmap threshold at :data:`MMAP_THRESHOLD` (see the module docstring); nothing
    elsewhere (another C library, another system). ctypes is loaded by numpy in any case."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, AttributeError):
        return  # not glibc (musl has no mallopt)
    mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)


def main() -> int:
    """Run ``edgedp`` (see ``edgedp --help``); 130 on Ctrl-C, whenever it comes."""
    try:
        release_large_blocks()
        from edgedp.cli import main as cli_main

        return cli_main()
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
