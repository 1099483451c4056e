"""One chat message privatized with every default on the numpy tier stays within a memory budget
(issue 50: the target is 48 MB peak RSS; bench/reports/2026-11-29-footprint.md says where it is).

The peak is the child's ``ru_maxrss`` (``resource.getrusage(RUSAGE_CHILDREN)``), read by a small
launcher process rather than by pytest: Linux starts a child's high-water mark at its parent's
resident size (fork and vfork carry it across exec), so the launcher, a bare interpreter of about
10 MB, keeps pytest's own memory out of the figure.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from helpers import REPO_ROOT

#: Peak RSS, MB, of the one-message command below: 55.3 MB measured on 2026-11-29
#: (bench/reports/2026-11-29-footprint.md) plus ~10 % headroom. Issue 50's target is 48 MB:
#: lower this as the footprint comes down, never raise it without a reason in the report.
BUDGET_MB = 61.0
MESSAGE = b"hey maria, can you call dr. okafor at 555-0142 tmrw? we need the report by friday\n"
LAUNCHER = (
    "import resource, subprocess, sys\n"
    "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"  # KB on Linux
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in KB: Linux only")
def test_one_message_on_the_numpy_tier_stays_within_the_memory_budget():
    command = [sys.executable, "-m", "edgedp", "privatize", "--epsilon", "0.5"]
    path = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "EDGEDP_BACKEND": "numpy", "PYTHONPATH": path}
    result = subprocess.run(
        [sys.executable, "-c", LAUNCHER, *command],
        input=MESSAGE,
        capture_output=True,
        cwd=REPO_ROOT,
        env=env,
        check=True,
        timeout=300,
    )
    peak_mb = int(result.stdout.decode().split()[-1]) / 1024
    assert peak_mb <= BUDGET_MB, (
        f"one message privatized on the numpy tier peaked at {peak_mb:.1f} MB resident, over the "
        f"{BUDGET_MB} MB budget (issue 50's target: 48 MB); see bench/reports/2026-11-29-footprint.md"
    )
