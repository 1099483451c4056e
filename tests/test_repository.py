"""The repository keeps its promises: README commands, CI, lint, the wheel carries the assets."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

from helpers import REPO_ROOT

ROOT = REPO_ROOT


def readme_commands() -> list[str]:
    return re.findall(r"```bash\n(.+?)\n```", (ROOT / "README.md").read_text())[:2]


def test_readme_opens_with_the_two_commands_and_ci_runs_the_second():
    install_and_run, install_and_test = readme_commands()
    assert (
        "pip install ." in install_and_run and "edgedp privatize --mechanism brr" in install_and_run
    )
    assert "pytest" in install_and_test
    # the packs that are not in the runtime wheel are built from assets/ and installed as wheels
    assert (
        "edgedp-export wheel assets/sentences-bbc assets/adept-bbc assets/subspace-general "
        "--out dist" in install_and_test
    )
    assert "pip install dist/edgedp_pack_*.whl" in install_and_test
    ci = (ROOT / ".ci" / "run").read_text()
    assert install_and_test in ci.splitlines()


def test_lint_and_format():
    ruff = Path(sys.executable).with_name("ruff")  # installed by the [test] extra
    paths = ["edgedp", "export", "tests", "bench"]
    for args in (["check", *paths], ["format", "--check", *paths]):
        result = subprocess.run([str(ruff), *args], cwd=ROOT, capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr


def test_the_runtime_type_checks_strictly():
    """``mypy --strict edgedp``: the types users see (``py.typed`` ships) are checked."""
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "edgedp"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-5000:]


def test_wheel_ships_only_the_default_pack(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (wheel,) = tmp_path.glob("edgedp-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("manifest.json", "vocab.txt", "codes.npy"):
        assert f"edgedp/assets/words-small/{name}" in names
    # only the default words pack: the others are their own distributions (edgedp-export wheel)
    assert {name.split("/")[2] for name in names if name.startswith("edgedp/assets/")} == {
        "words-small"
    }
    assert "edgedp/py.typed" in names
    assert not any(name.startswith(("tests/", "export/", "bench/")) for name in names)
