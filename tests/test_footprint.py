"""One chat message, and 300 in one process, privatized with every default on each tier stay
within a memory budget (issue 50: the targets are 48 and 52 MB peak RSS on the numpy tier, 10 MB
more on the native tier; bench/reports/2026-11-29-footprint.md says where they are).

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

from edgedp.languages.packs import installed_languages

#: Peak RSS, MB, of the command below for one message and for 300, per tier: numpy 46.9 and 47.1
#: MB measured on 2026-11-29 (bench/reports/2026-11-29-footprint.md, second pass), native 55.8
#: and 56.4 MB on 2026-11-30 (fifth pass), plus 7-10 % headroom. Issue 50's targets are 48 and 52
#: MB, 10 MB more on the native tier: lower these as the footprint comes down, never raise them
#: without a reason in the report.
BUDGET_MB = {"numpy": 52.0, "native": 60.0}
MESSAGES = {
    "en": b"hey maria, can you call dr. okafor at 555-0142 tmrw? we need the report by friday\n",
    "es": "hola maría, ¿puedes llamar al dr. okafor al 555-0142 mañana? necesitamos el informe el "
    "viernes\n".encode(),
}
LAUNCHER = (
    "import resource, subprocess, sys\n"
    "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"  # KB on Linux
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in KB: Linux only")
@pytest.mark.parametrize("tier", ["numpy", "native"])
@pytest.mark.parametrize(("language", "messages"), [("en", 1), ("en", 300), ("es", 1)])
def test_messages_stay_within_the_memory_budget(tier, language, messages):
    """300 messages are batched (and searched) together: the batch's temporaries count too. The
    Spanish message is found Spanish (``--language auto``): the Spanish pack is loaded beside the
    English one, the default language's."""
    if tier == "native":
        pytest.importorskip("faiss")
    if language not in installed_languages():
        pytest.skip(f"the {language} word pack is not installed")
    command = [sys.executable, "-m", "edgedp", "privatize", "--epsilon", "0.5"]
    path = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "EDGEDP_BACKEND": tier, "PYTHONPATH": path}
    result = subprocess.run(
        [sys.executable, "-c", LAUNCHER, *command],
        input=MESSAGES[language] * messages,
        capture_output=True,
        cwd=REPO_ROOT,
        env=env,
        check=True,
        timeout=300,
    )
    peak_mb = int(result.stdout.decode().split()[-1]) / 1024
    assert peak_mb <= BUDGET_MB[tier], (
        f"{messages} {language} message(s) privatized on the {tier} tier peaked at {peak_mb:.1f} MB "
        f"resident, over the {BUDGET_MB[tier]} MB budget (issue 50's targets: 48 MB, 52 MB for "
        "300, 10 MB more on the native tier); see bench/reports/2026-11-29-footprint.md"
    )
