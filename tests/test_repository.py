"""The repository keeps its promises: README commands, CI, lint, the wheel carries the assets."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from helpers import REPO_ROOT

ROOT = REPO_ROOT


def readme_commands() -> list[str]:
    return re.findall(r"```bash\n(.+?)\n```", (ROOT / "README.md").read_text())[:2]


def readme_blocks() -> list[str]:
    return re.findall(r"```bash\n(.+?)\n```", (ROOT / "README.md").read_text(), re.DOTALL)


def test_readme_opens_with_the_two_commands_and_ci_runs_both():
    install_and_run, install_and_test = readme_commands()
    assert (
        "pip install ." in install_and_run and "edgedp privatize --mechanism brr" in install_and_run
    )
    # the quick start says what it kept (issue 26) and hides the name with the default guard
    # alone (issue 34: every guard is the default, no flag needed)
    assert "--protect" not in install_and_run and "--summary" in install_and_run
    assert "pytest" in install_and_test
    # the packs that are not in the runtime wheel are built from assets/ and installed as wheels
    assert (
        "edgedp-export wheel assets/sentences-bbc assets/adept-bbc assets/subspace-general assets/lm-general "
        "--out dist" in install_and_test
    )
    assert "pip install dist/edgedp_pack_*.whl" in install_and_test
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert install_and_run in ci  # the words-only footprint, in its own fresh venv
    assert install_and_test in ci


def test_ci_runs_every_install_footprint_as_the_readme_prints_it():
    """Documents, a domain pack built with ./export[domain], Spark and Dask: each a fresh venv
    running the README's example for it (issue 26: the domain path was broken and only the
    everything-install was tested)."""
    (footprints,) = [
        block for block in readme_blocks() if "python3 -m venv .venv-documents" in block
    ]
    lines = footprints.splitlines()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert [line for line in lines if line not in ci] == []
    for venv, needed in (
        (".venv-documents", "edgedp embed"),
        (".venv-domain", '"./export[domain]"'),
        (".venv-domain", "--encoder-from sentences-bbc"),
        (".venv-corpus", 'readme_example.py "import edgedp.dask"'),
        (".venv-numpy", "--no-deps . dist/edgedp_pack_subspace_general"),
        (".venv-numpy", "edgedp embed"),
    ):
        assert any(f"python3 -m venv {venv} " in line and needed in line for line in lines)
    assert '.venv-corpus/bin/python .ci/readme_example.py "import edgedp.spark"' in ci
    # the examples CI runs by marker exist, once each
    examples = re.findall(r"^```python\n(.*?)^```", (ROOT / "README.md").read_text(), re.M | re.S)
    for marker in ("import edgedp.dask", "import edgedp.spark"):
        assert sum(marker in example for example in examples) == 1, marker


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


def test_the_words_runtime_installs_no_encoder_library():
    """onnxruntime, tokenizers (and the hub client tokenizers pulls in) come with the sentences
    extra only: a words-only install carried ~115 MB it never imported (issue 34)."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = [re.split(r"[<>=\[]", dependency)[0] for dependency in project["dependencies"]]
    assert names == ["numpy", "faiss-cpu"]
    extra = {re.split(r"[<>=\[]", d)[0] for d in project["optional-dependencies"]["sentences"]}
    assert {"onnxruntime", "tokenizers", "sentencex"} <= extra


def test_a_missing_encoder_library_names_the_extra(monkeypatch):
    from edgedp.errors import DependencyError
    from edgedp.packs.native import import_onnxruntime

    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime -> ImportError
    with pytest.raises(DependencyError, match=r'pip install "\.\[sentences\]"'):
        import_onnxruntime()
