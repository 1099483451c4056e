"""Run ``-m MODULE ARGS...`` or ``-c CODE`` and report this process's own peak RSS (VmHWM).

The ``ru_maxrss`` that ``wait4`` returns for a child is inflated to at least the parent's resident
size at fork time (Linux carries the high-water mark across exec), so a benchmark process that has
loaded a pack cannot measure its children that way. ``VmHWM`` in ``/proc/self/status`` belongs to the
address space created by exec, so it is the child's own peak. It is written at exit to the file named
by ``EDGEDP_BENCH_RSS_FILE``.
"""

from __future__ import annotations

import atexit
import os
import runpy
import sys
from pathlib import Path


def _report() -> None:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            Path(os.environ["EDGEDP_BENCH_RSS_FILE"]).write_text(line.split()[1])


def main() -> None:
    atexit.register(_report)
    mode, target, *rest = sys.argv[1:]
    if mode == "-m":
        sys.argv = [target, *rest]
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        sys.argv = ["-c", *rest]
        exec(compile(target, "<bench>", "exec"), {"__name__": "__main__"})  # noqa: S102


if __name__ == "__main__":
    main()
