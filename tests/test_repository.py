"""The repository keeps its promises: README commands, CI, lint, the wheel carries the assets."""

from __future__ import annotations

import os
import re
import runpy
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import numpy as np
import pytest
from helpers import REPO_ROOT

from edgedp.packs.loading import BUNDLED_MANIFEST_SHA256, BUNDLED_PACKS

ROOT = REPO_ROOT
#: The packs that are their own wheels: built from assets/ with the runtime alone.
PACK_WHEELS = (
    "assets/encoder-minilm assets/sentences-bbc assets/adept-bbc assets/subspace-general "
    "assets/encoder-use-multilingual assets/subspace-multilingual assets/words-?? assets/lm-??"
)
#: Every wheel an app ships, in the words-only venv (the README's install block, CI's first stage).
BUILD_EVERY_WHEEL = (
    f"pip wheel . --no-deps -w dist && python -m edgedp.packs.wheel {PACK_WHEELS} --out dist"
)
#: The README's example CI runs in the words-only venv of the quick start.
CONTEXT_MARKER = 'decode="context"'
#: The documentation site, as the README's "Documentation" section builds it: the docs extra alone.
DOCS_BUILD = (
    'python3 -m venv .venv-docs && .venv-docs/bin/pip install ".[docs]" && '
    ".venv-docs/bin/python -m sphinx -W --keep-going -n -b html docs docs/_build/html"
)


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
    # the packs that are not in the runtime wheel are built from assets/ with the runtime's own
    # builder (no exporter needed) and installed as wheels; lm-general is in the runtime wheel
    assert f".venv/bin/python -m edgedp.packs.wheel {PACK_WHEELS} --out dist" in install_and_test
    assert "edgedp-export wheel" not in install_and_test and "lm-general" not in install_and_test
    assert "pip install dist/edgedp_pack_*.whl" in install_and_test
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert install_and_run in ci  # the words-only footprint, in its own fresh venv
    assert install_and_test in ci


def test_the_words_only_venv_decodes_in_context_and_builds_every_wheel():
    """The quick start's venv (pip install . and nothing else) runs the README's decode="context"
    example (lm-general rides in the runtime wheel) and then the README's command that builds every
    wheel an app ships, before that venv is removed: the pack wheels need no exporter."""
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    quick_start = ci.index(readme_commands()[0])
    removed = ci.index("rm -rf .venv", quick_start)
    words_only = [line for line in ci[quick_start + 1 : removed] if not line.startswith("step ")]
    assert f".venv/bin/python .ci/readme_example.py '{CONTEXT_MARKER}'" in words_only
    assert (
        f".venv/bin/{BUILD_EVERY_WHEEL.replace('&& python', '&& .venv/bin/python')}" in words_only
    )
    # the README's install block prints the same command, without the venv's prefix
    (install,) = [block for block in readme_blocks() if "# words only" in block]
    assert any(line.split("#")[0].strip() == BUILD_EVERY_WHEEL for line in install.splitlines())
    # the example is one, and needs nothing a words-only install lacks
    examples = re.findall(r"^```python\n(.*?)^```", (ROOT / "README.md").read_text(), re.M | re.S)
    (example,) = [example for example in examples if CONTEXT_MARKER in example]
    assert re.findall(r"\.load\((.*?)\)", example) == [""]  # the bundled default only


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
        (".venv-numpy", "--no-deps . dist/edgedp_pack_encoder_minilm-*.whl dist/edgedp_pack_sub"),
        (".venv-numpy", "edgedp embed"),
    ):
        assert any(f"python3 -m venv {venv} " in line and needed in line for line in lines)
    assert '.venv-corpus/bin/python .ci/readme_example.py "import edgedp.spark"' in ci
    # the examples CI runs by marker exist, once each, in the README or the documentation site
    helper = runpy.run_path(str(ROOT / ".ci" / "readme_example.py"))
    examples = helper["examples"]()
    for marker in ("import edgedp.dask", "import edgedp.spark", CONTEXT_MARKER):
        assert sum(marker in example for example in examples) == 1, marker


def test_ci_builds_the_site_as_the_readme_prints_it():
    """The site failed to build as documented (the docs extra alone lacked what autodoc imported):
    CI builds it with the README's line as printed, in its own fresh venv, before the suite, which
    checks those pages (tests/test_docs_site.py) instead of building the site a second time."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n## Documentation\n", 1)[1].split("\n## ", 1)[0]
    assert re.findall(r"```bash\n(.+?)\n```", section, re.DOTALL) == [DOCS_BUILD]
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert DOCS_BUILD in ci
    built_before_the_suite = ci.index(
        "export EDGEDP_DOCS_HTML=docs/_build/html  # the suite checks the pages built as documented"
    )
    assert ci.index("wait_for docs") < built_before_the_suite
    assert built_before_the_suite < ci.index(readme_commands()[1])
    # the docs extra carries no runtime extra: a docs install needs no onnxruntime
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    docs = [
        re.split(r"[<>=\[;]", requirement)[0]
        for requirement in project["optional-dependencies"]["docs"]
    ]
    assert "edgedp" not in docs and not {"onnxruntime", "tokenizers", "sentencex"} & set(docs)


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


@pytest.fixture(scope="module")
def runtime_wheel(tmp_path_factory) -> Path:
    """The runtime wheel, as ``pip wheel . --no-deps`` builds it from this checkout."""
    out = tmp_path_factory.mktemp("runtime-wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (wheel,) = out.glob("edgedp-*.whl")
    return wheel


def test_the_runtime_wheel_ships_the_bundled_packs(runtime_wheel):
    names = set(zipfile.ZipFile(runtime_wheel).namelist())
    for name in ("manifest.json", "vocab.txt", "codes.npy"):
        assert f"edgedp/assets/words-small/{name}" in names
    assert "edgedp/assets/lm-general/manifest.json" in names
    # the bundled packs and no other: the others are their own distributions
    shipped = {name.split("/")[2] for name in names if name.startswith("edgedp/assets/")}
    assert shipped == set(BUNDLED_PACKS) == {"words-small", "lm-general"}
    for pack in BUNDLED_PACKS:  # every file the manifest lists, nothing else
        files = {
            name.split("/", 3)[3] for name in names if name.startswith(f"edgedp/assets/{pack}/")
        }
        on_disk = {path.name for path in (ROOT / "assets" / pack).iterdir() if path.is_file()}
        assert files == on_disk
    assert "edgedp/py.typed" in names
    assert not any(name.startswith(("tests/", "export/", "bench/")) for name in names)


def test_the_wheel_the_sdist_and_the_runtime_agree_on_the_bundled_packs():
    """pyproject.toml's force-include (the wheel) and sdist include, and BUNDLED_PACKS (what the
    runtime resolves as bundled, in a wheel install and a checkout alike) list the same packs."""
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]
    wheel = build["targets"]["wheel"]["force-include"]
    assert wheel == {f"assets/{name}": f"edgedp/assets/{name}" for name in BUNDLED_PACKS}
    sdist = [path for path in build["targets"]["sdist"]["include"] if path.startswith("assets")]
    assert sorted(sdist) == sorted(f"assets/{name}" for name in BUNDLED_PACKS)
    assert set(BUNDLED_PACKS) <= set(BUNDLED_MANIFEST_SHA256)


def test_a_words_only_install_decodes_in_context_and_finds_what_a_checkout_finds(
    runtime_wheel, tmp_path
):
    """The user study's quick start: ``pip install .`` and nothing else, then decode="context".
    lm-general was its own wheel, so this raised AssetError. Run here from the runtime wheel itself,
    unpacked as pip installs it, beside numpy and nothing else (``python -S``: no site-packages, so
    none of this environment's pack distributions); the packs a name finds are the bundled ones,
    as in a checkout (tests/packs/test_packs.py)."""
    site = tmp_path / "site"
    zipfile.ZipFile(runtime_wheel).extractall(site)
    numpy_dir = Path(np.__file__).parent
    for name in ("numpy", "numpy.libs"):
        if (numpy_dir.parent / name).exists():
            (site / name).symlink_to(numpy_dir.parent / name)
    code = """
import edgedp
from edgedp.errors import AssetError
pack = edgedp.load_pack()
print(edgedp.BRR(pack, epsilon=0.6, decode="context").privatize("hey maria, can you call me tomorrow?"))
print(edgedp.BRR(pack, epsilon=0.6, decode="map").privatize("call me tomorrow"))
print(sorted((entry.name, entry.origin) for entry in edgedp.list_packs()))
try:
    edgedp.load_pack("sentences-bbc")
except AssetError as error:
    print(error)
"""
    result = subprocess.run(
        [sys.executable, "-S", "-c", code],
        cwd=tmp_path,
        env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    context, map_decoded, listed, missing = result.stdout.strip().splitlines()
    assert len(context.split()) == 7 and len(map_decoded.split()) == 3
    assert listed == str(sorted((name, "bundled") for name in BUNDLED_PACKS))
    assert (
        "python -m edgedp.packs.wheel assets/sentences-bbc assets/encoder-minilm --out dist"
        in missing
    )


#: What a command in .ci/run writes, by the option or shell syntax that names it (Sphinx: the
#: output directory after the source one).
_WRITES = re.compile(
    r"(?:(?<!\S)(?:python3 -m venv|--output|--out|-w|mkdir -p|\.ci/public_sample\.py|-b \w+ \S+)\s+"
    r"|(?<![\d&>])\d?>\s*(?!&))([^\s;&|()]+)"
)


def ci_written_paths() -> list[str]:
    """Every path a command of .ci/run writes, as written there (relative to the checkout)."""
    paths = []
    for line in (ROOT / ".ci" / "run").read_text().splitlines():
        if line.lstrip().startswith("#"):
            continue
        for path in _WRITES.findall(line):
            if path != "/dev/null":
                paths.append(path.removeprefix("./").replace('"', ""))  # out/"$name".log
    return paths


def test_ci_writes_only_where_git_ignores():
    """The example commands wrote document.txt, embedding.jsonl, candidate.jsonl, public.jsonl and
    my-pack into the checkout's root, where git saw them: every path .ci/run writes (venvs, wheels,
    the examples' files, the background jobs' logs, where the README's examples run) must be
    ignored."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a git checkout")
    written = ci_written_paths()
    for expected in (
        ".venv-documents",
        "out/document.txt",
        "out/my-pack",
        "dist",
        "out/$name.log",  # the background jobs' logs
        "docs/_build/html",  # the documentation site
    ):
        assert expected in written  # the parser sees each kind of write
    helper = runpy.run_path(str(ROOT / ".ci" / "readme_example.py"), run_name="readme_example")
    written.append(str(helper["WORKDIR"].relative_to(ROOT)))  # where the README's examples run
    assert all(not Path(path).is_absolute() and ".." not in Path(path).parts for path in written)
    # a directory pattern (".venv-*/") matches what is under it: ask about a file inside each path
    probes = [f"{path}/x" for path in written]
    result = subprocess.run(
        ["git", "check-ignore", "--no-index", "--verbose", "--non-matching", "--stdin"],
        cwd=ROOT,
        input="\n".join(probes) + "\n",
        capture_output=True,
        text=True,
        check=False,
    )
    not_ignored = [
        line.split("\t")[-1][:-2] for line in result.stdout.splitlines() if line.startswith("::")
    ]
    assert not_ignored == [], f".ci/run writes where git does not ignore: {not_ignored}"


def test_the_ci_write_parser_finds_a_stray_file():
    """The check above can fail: the documents line as it was, writing into the checkout's root."""
    line = "printf 'x\\n' > document.txt && edgedp embed --output embedding.jsonl document.txt"
    assert _WRITES.findall(line) == ["document.txt", "embedding.jsonl"]
    assert _WRITES.findall("a 2>&1 >&2 2>/dev/null --no-warn -w d") == ["/dev/null", "d"]
    assert _WRITES.findall("python -m sphinx -W -n -b html docs site") == ["site"]


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
    from edgedp.runtime.native import import_onnxruntime

    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime -> ImportError
    with pytest.raises(DependencyError, match=r'pip install "\.\[sentences\]"'):
        import_onnxruntime()
