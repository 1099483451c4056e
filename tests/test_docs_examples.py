"""The documentation site's examples run as printed, and the site builds without a warning.

Every ```python block of docs/**/*.md is run: the blocks of one page in order, in one fresh
interpreter that has imported ``edgedp`` (a page continues the ones before it, as the README's
sections did), in a directory holding a small float pack named ``medium`` (the pages build one
with ``edgedp-export words ... --out medium``; here the ``euclid_pack`` fixture stands in, as in
tests/test_readme.py). Nothing is skipped that tests/test_readme.py runs: the Spark example needs
Java and the document examples the pack wheels, as there.

The build is the one docs/index.md documents, ``python -m sphinx -W --keep-going -n -b html docs
OUT``: every warning and every unresolved reference fails it.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO_ROOT, run_example

import edgedp

DOCS = REPO_ROOT / "docs"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
#: Written by the build (autosummary's stubs, the report pages) or its output: not pages of ours.
_GENERATED = {"_build", "api", "reports"}


def pages() -> list[Path]:
    return sorted(
        path
        for path in DOCS.rglob("*.md")
        if not _GENERATED.intersection(path.relative_to(DOCS).parts[:1])
    )


def page_python(page: Path) -> str:
    return "\n".join(_BLOCK.findall(page.read_text(encoding="utf-8")))


PAGES_WITH_PYTHON = [page for page in pages() if page_python(page)]


def test_the_pages_have_python_examples():
    names = {page.relative_to(DOCS).as_posix() for page in PAGES_WITH_PYTHON}
    assert {"getting-started.md", "guide/decoding.md", "guide/documents.md"} <= names, names


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, euclid_pack) -> Path:
    """A directory with ``medium``: a float pack the Euclidean examples can load."""
    directory = tmp_path_factory.mktemp("docs-examples")
    shutil.copytree(euclid_pack.path, directory / "medium")
    return directory


@pytest.mark.slow
@pytest.mark.parametrize(
    "page", PAGES_WITH_PYTHON, ids=lambda page: page.relative_to(DOCS).as_posix()
)
def test_page_python_examples_run(page, workdir):
    script = workdir / f"{page.stem}_example.py"
    script.write_text("import edgedp\n\n" + page_python(page), encoding="utf-8")
    run_example(script.name, workdir)


def test_the_api_reference_lists_every_public_name():
    api = (DOCS / "api.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^   (\w+)$", api, re.MULTILINE))
    assert listed == set(edgedp.__all__), (
        f"missing: {sorted(set(edgedp.__all__) - listed)}; unknown: {sorted(listed - set(edgedp.__all__))}"
    )


@pytest.mark.slow
def test_the_site_builds_without_a_warning(tmp_path):
    missing = [
        module
        for module in ("sphinx", "myst_parser", "sphinxarg", "furo")
        if importlib.util.find_spec(module) is None
    ]
    if missing:
        pytest.skip(f"the docs extra is not installed (pip install '.[docs]'): {missing}")
    result = subprocess.run(
        [
            *(sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html"),
            *("-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html")),
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, (result.stderr or result.stdout)[-5000:]
    assert (tmp_path / "html" / "index.html").is_file()
