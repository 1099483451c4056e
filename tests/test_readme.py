"""The README's Python examples run, and type-check, exactly as printed: the front page cannot rot.

Every ```python block of README.md is run in order in one fresh interpreter, in a directory holding
a small float pack named ``medium`` (the README builds one with ``edgedp-export words ... --out
medium``; the test builds a tiny one (the ``euclid_pack`` fixture), so the example runs in seconds). The
same code must pass ``mypy --strict`` (calls into dask, which is partly untyped, excepted):
``load_pack`` is typed per pack kind.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_example

README = Path(__file__).resolve().parent.parent / "README.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def readme_python() -> str:
    blocks = _BLOCK.findall(README.read_text(encoding="utf-8"))
    assert blocks, "the README has no Python example"
    return "\n".join(blocks)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, euclid_pack) -> Path:
    """A directory with ``medium``: a float pack the README's Euclidean examples can load."""
    directory = tmp_path_factory.mktemp("readme")
    shutil.copytree(euclid_pack.path, directory / "medium")
    (directory / "readme_example.py").write_text(readme_python(), encoding="utf-8")
    return directory


@pytest.mark.slow
def test_readme_python_examples_run(workdir):
    run_example("readme_example.py", workdir)


@pytest.mark.slow
def test_readme_python_examples_type_check(workdir):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--ignore-missing-imports",
            # dask ships partial annotations (from_pandas, compute are untyped): the example's
            # own code, and every edgedp call in it, stay checked
            "--untyped-calls-exclude=dask",
            "readme_example.py",
        ],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:]
