"""The documentation site as its readers get it: built warning-free, with commands and options as
typed, every public member on its class's page, constants described, the README's front page
sections on the site's, and the packs' licences where installs are recommended.

The built pages checked are CI's, when ``EDGEDP_DOCS_HTML`` names them: ``.ci/run`` builds the site
exactly as the README's "Documentation" section prints it (a fresh venv with the ``docs`` extra
alone, ``-W -n``) and points the suite at it, so the site is built once. Without the variable the
test builds the site itself, with the same command in this environment (about 2 minutes).
"""

from __future__ import annotations

import dataclasses
import html
import importlib.util
import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO_ROOT

import edgedp

DOCS = REPO_ROOT / "docs"
README = REPO_ROOT / "README.md"
#: Where CI's build of the site is (relative to the checkout), if it made one.
SITE_VARIABLE = "EDGEDP_DOCS_HTML"
#: "--json" turned into "–json" (en dash) or "---x" into "—x" (em dash) by typographic quotes:
#: a dash glued to the word after it, not after a letter or digit ("2004–2005") or another dash.
SMART_DASH = re.compile(r"(?<![\w\-–—])[–—](?=[A-Za-z])")
#: The README's sections that docs/ includes: (the page, the marker it starts after).
INCLUDE = re.compile(r"```\{include\} \.\./README\.md\n:start-after: (.+)\n:end-before: (.+)\n```")


def plain(page: str) -> str:
    """A page's text, without tags or entities, typographic quotes read as straight ones."""
    text = html.unescape(re.sub(r"<[^>]+>", " ", page))
    return text.translate(str.maketrans("‘’“”", "''\"\""))


def smart_dashes(page: str) -> list[str]:
    """What a page shows with a typographic dash glued to a word: an option as it must not read."""
    text = plain(page)
    return [text[match.start() : match.start() + 20] for match in SMART_DASH.finditer(text)]


def missing_members(site: Path) -> list[str]:
    """Public members of the public classes that their pages do not document: every method and
    attribute a class has, those it inherits from edgedp's base classes (public or not) included;
    a dataclass's fields among its parameters."""
    missing = []
    for name in edgedp.__all__:
        cls = getattr(edgedp, name)
        if not inspect.isclass(cls):
            continue
        page = (site / "api" / f"edgedp.{name}.html").read_text(encoding="utf-8")
        documented = set(re.findall(rf'id="edgedp\.{name}\.(\w+)"', page))
        fields = (
            {field.name for field in dataclasses.fields(cls) if not field.name.startswith("_")}
            if dataclasses.is_dataclass(cls)
            else set()
        )
        members = {
            member
            for member in dir(cls)
            if not member.startswith("_")
            and any(
                member in vars(base) for base in cls.__mro__ if base.__module__.startswith("edgedp")
            )
        }
        missing += [f"{name}.{member}" for member in sorted(members - fields - documented)]
        missing += [
            f"{name}.{field}" for field in sorted(fields) if f"<strong>{field}</strong>" not in page
        ]
    return missing


def constants() -> dict[str, object]:
    """The public names that are values, not classes or functions (``OOV_MASK``, ``__version__``)."""
    return {
        name: getattr(edgedp, name)
        for name in edgedp.__all__
        if not callable(getattr(edgedp, name))
    }


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The built site: CI's (``EDGEDP_DOCS_HTML``), or built here as the README prints it."""
    built = os.environ.get(SITE_VARIABLE)
    if built:
        html_dir = (REPO_ROOT / built).resolve()
        assert (html_dir / "index.html").is_file(), f"{SITE_VARIABLE}={built}: no site there"
        return html_dir
    missing = [
        module
        for module in ("sphinx", "myst_parser", "sphinxarg", "furo")
        if importlib.util.find_spec(module) is None
    ]
    if missing:
        pytest.skip(f"the docs extra is not installed (pip install '.[docs]'): {missing}")
    out = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [
            *(sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html"),
            *("-d", str(out / "doctrees"), str(DOCS), str(out / "html")),
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, (result.stderr or result.stdout)[-5000:]
    return out / "html"


@pytest.mark.slow
def test_the_built_site(site):
    """One test, so that the site is built once whatever worker runs it."""
    pages = {
        path.relative_to(site).as_posix(): path.read_text(encoding="utf-8")
        for path in site.rglob("*.html")
    }
    problems = []
    # options and commands read as typed: "--json", never "–json" (the CLI reference's help texts)
    for name, page in pages.items():
        problems += [f"{name}: {found!r}" for found in smart_dashes(page)]
    # every public method on its class's page: BRR's privatize(), SubspaceMean's embed()
    problems += [f"not documented: {member}" for member in missing_members(site)]
    # a constant is described on the API page, not by its type's docstring ("str(object='')")
    for name, value in constants().items():
        if f'id="edgedp.{name}"' not in pages["api.html"]:
            problems.append(f"api.html: no {name}")
        own = plain((type(value).__doc__ or "").splitlines()[0])
        problems += [f"{page}: {name} shows {own!r}" for page in pages if own in plain(pages[page])]
    # the front page: the README's quick start and epsilon table, their links resolved on the site
    index = pages["index.html"]
    for section in ("quick-start-python", "quick-start-command-line", "which-epsilon"):
        if f'<section id="{section}">' not in index:
            problems.append(f"index.html: no section {section}")
    which = index.split('<section id="which-epsilon">', 1)[-1]
    if "<table" not in which:
        problems.append("index.html: no epsilon table")
    for name in ("index.html", "getting-started.html"):
        for target in re.findall(r'href="([^"#:?]+)[#?"]', pages[name]):
            if not (site / name).parent.joinpath(target).exists():
                problems.append(f"{name}: link to {target}, which the site does not have")
    if "research use only" not in pages["getting-started.html"]:
        problems.append("getting-started.html: no licences where it recommends installs")
    assert not problems, "\n".join(problems)


def test_the_dash_check_finds_a_smart_quoted_option():
    """The check above can fail: the CLI reference's help texts as typographic quotes made them."""
    assert smart_dashes("<p>with –json, JSON for programs; the —ledger budget</p>") == [
        "–json, JSON for prog",
        "—ledger budget ",
    ]
    typed = "<kbd>--json</kbd> 2004–2005, pages – words, x –– y, <code>--ledger</code>"
    assert smart_dashes(typed) == []


def test_the_front_page_and_getting_started_include_the_readme_by_its_markers():
    """docs/ includes the README's sections (one text for both): each marker is in the README
    once, and its end marker follows it."""
    readme = README.read_text(encoding="utf-8")
    includes = [
        (page.name, start, end)
        for page in (DOCS / "index.md", DOCS / "getting-started.md")
        for start, end in INCLUDE.findall(page.read_text(encoding="utf-8"))
    ]
    assert {page for page, _, _ in includes} == {"index.md", "getting-started.md"}
    for page, start, end in includes:
        assert readme.count(start) == 1, (page, start)
        assert end in readme.split(start, 1)[1], (page, end)
    front = readme.split(includes[0][1], 1)[1].split(includes[0][2], 1)[0]
    assert "## Quick start: Python" in front and "## Which epsilon" in front


def test_the_readme_states_each_packs_licence_and_which_are_research_use_only():
    """Where the README recommends installs, a table gives every pack's licence: a pack whose
    manifest says research use only is marked so there, and no other is."""
    readme = README.read_text(encoding="utf-8")
    section = readme.split("\n## Install what your app needs\n", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| `([\w-]+)` \|.*\| (.+) \|$", section, re.MULTILINE))
    manifests = {
        path.parent.name: json.loads(path.read_text(encoding="utf-8"))
        for path in (REPO_ROOT / "assets").glob("*/manifest.json")
    }
    assert set(rows) == set(manifests)
    for name, manifest in manifests.items():
        research_only = "research use only" in manifest["source"]["license"]
        assert ("research use only" in rows[name]) == research_only, name


def test_every_public_name_imports_without_the_sentences_extra():
    """The API reference imports every public name, with the docs extra alone: no onnxruntime,
    tokenizers or sentencex (ADePT's pack module imported tokenizers at import time, so the
    documented build failed). What needs them says so when it is used."""
    script = """
import sys
for blocked in ("onnxruntime", "tokenizers", "sentencex"):
    sys.modules[blocked] = None  # import -> ImportError, as where they are not installed
import edgedp
from edgedp.adept.pack import wordpiece_tokenizer
from edgedp.errors import DependencyError
for name in edgedp.__all__:
    getattr(edgedp, name)
try:
    wordpiece_tokenizer(["[PAD]", "[UNK]", "[BOS]", "[EOS]", "word"])
except DependencyError as error:
    print(error)
"""
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "ADePT needs tokenizers" in result.stdout and '".[sentences]"' in result.stdout
