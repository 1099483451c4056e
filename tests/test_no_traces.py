"""A privacy library leaves nothing behind: privatize, embed and ADePT write nowhere but the paths
the user named (issue 14 section 4).

``import onnxruntime`` 1.32 writes ``$TMPDIR/.ses`` (a timestamp and a session UUID) and, under
``$HOME/.cache/Microsoft/DeveloperTools/.onnxruntime/``, a device id stable across runs and an SQLite
queue of telemetry events, unless ``ORT_DISABLE_TELEMETRY=1`` is in the environment when it loads
(edgedp.runtime.environment). Each run below starts a fresh interpreter with TMPDIR, HOME and the
working directory pointed at empty directories, and checks that they are still empty afterwards.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from helpers import REPO_ROOT

ROOT = REPO_ROOT

ADEPT = """
import edgedp
pack = edgedp.load_pack("adept-bbc")
print(edgedp.ADePT(pack, epsilon=50.0).privatize("The talks ended without an agreement."))
"""


def leftovers(*directories: Path) -> list[str]:
    return sorted(str(path) for directory in directories for path in directory.rglob("*"))


def run_clean(tmp_path: Path, args: list[str], stdin: bytes = b"") -> list[str]:
    """Run ``python args`` with empty TMPDIR, HOME and working directory; what was left in them."""
    home, tmp, work = tmp_path / "home", tmp_path / "tmp", tmp_path / "work"
    for directory in (home, tmp, work):
        directory.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("ORT_DISABLE_TELEMETRY", "XDG_CACHE_HOME", "XDG_DATA_HOME", "HF_HOME")
    }
    env |= {
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "export")]),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    result = subprocess.run(
        [sys.executable, *args],
        input=stdin,
        capture_output=True,
        cwd=work,
        env=env,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.strip()
    return leftovers(home, tmp, work)


def test_privatize_leaves_nothing(tmp_path):
    args = ["-m", "edgedp.cli", "privatize", "--epsilon", "1"]
    assert run_clean(tmp_path, args, b"The patient was admitted.\n") == []


def test_embed_leaves_nothing(tmp_path):
    args = ["-m", "edgedp.cli", "embed", "--epsilon", "5"]
    assert run_clean(tmp_path, args, b"Markets fell. Shares dropped sharply.\n") == []


def test_adept_leaves_nothing(tmp_path):
    assert run_clean(tmp_path, ["-c", ADEPT]) == []


def test_a_program_importing_onnxruntime_after_edgedp_leaves_nothing(tmp_path):
    code = "import edgedp\nimport onnxruntime\nprint(onnxruntime.__version__)\n"
    assert run_clean(tmp_path, ["-c", code]) == []
