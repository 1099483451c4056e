"""The documentation site's examples run as printed, and its API reference lists every public name.

Every ```python block of docs/**/*.md is run: the blocks of one page in order, in one fresh
interpreter that has imported ``edgedp`` (a page continues the ones before it, as the README's
sections did), in a directory holding a small float pack named ``medium`` (the pages build one
with ``edgedp-export words ... --out medium``; here the ``euclid_pack`` fixture stands in, as in
tests/test_readme.py). Nothing is skipped that tests/test_readme.py runs: the Spark example needs
Java and the document examples the pack wheels, as there.

The site itself (built warning-free, its pages as readers see them) is tests/test_docs_site.py's.
"""

from __future__ import annotations

import re
import shutil
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
    """In a summary table (a page each), or described by hand (``autodata``: the constants)."""
    api = (DOCS / "api.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^   (\w+)$", api, re.MULTILINE))
    listed |= set(re.findall(r"^\.\. autodata:: (\w+)$", api, re.MULTILINE))
    assert listed == set(edgedp.__all__), (
        f"missing: {sorted(set(edgedp.__all__) - listed)}; unknown: {sorted(listed - set(edgedp.__all__))}"
    )
