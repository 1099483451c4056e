"""Packs as Python distributions: ``python -m edgedp.packs.wheel`` (and ``edgedp-export wheel``,
the same code) and discovery through entry points.

A pack wheel is a correct, reproducible wheel (pip installs it; RECORD lists every file's hash);
both commands write the same bytes, and the runtime's builds with nothing but edgedp and numpy
importable; installed, ``load_pack(name)`` finds it through the ``edgedp.packs`` entry point and
pins it to the digest the wheel carries (and to this edgedp's own pin for a name it knows); a
missing pack's error names the commands that build and install it.
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from edgedp_export.cli import main as export_main
from edgedp_export.wheel import build_wheel
from helpers import REPO_ROOT, write_word_pack

import edgedp
import edgedp.packs.loading
import edgedp.packs.wheel
from edgedp.errors import AssetError, InputError


@pytest.fixture
def pack_dir(tmp_path: Path) -> Path:
    words = ["alpha", "beta", "gamma", "delta"]
    codes = np.array([[0, 1], [2, 3], [4, 5], [250, 251]], dtype=np.uint8)
    return write_word_pack(tmp_path / "src" / "tiny-words", words, codes, name="tiny-words")


@pytest.fixture
def installed(pack_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The pack's wheel installed by pip into a directory that is put on sys.path."""
    wheel = build_wheel(pack_dir, tmp_path / "dist")
    site = tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index"]
    subprocess.run(
        [*pip, "--target", str(site), str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    yield site
    sys.modules.pop("edgedp_pack_tiny_words", None)


def test_the_wheel_is_reproducible_and_its_record_lists_every_file(pack_dir, tmp_path):
    first = build_wheel(pack_dir, tmp_path / "a")
    second = build_wheel(pack_dir, tmp_path / "b")
    assert first.name == f"edgedp_pack_tiny_words-{edgedp.__version__}-py3-none-any.whl"
    assert first.read_bytes() == second.read_bytes()
    with zipfile.ZipFile(first) as archive:
        names = archive.namelist()
        dist_info = f"edgedp_pack_tiny_words-{edgedp.__version__}.dist-info"
        record = archive.read(f"{dist_info}/RECORD").decode().splitlines()
        listed = {}
        for line in record:
            path, digest, size = line.rsplit(",", 2)
            listed[path] = (digest, size)
        assert set(listed) == set(names)
        for path in names:
            if path.endswith("/RECORD"):
                continue
            data = archive.read(path)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert listed[path] == (f"sha256={expected.decode()}", str(len(data)))
        entry_points = archive.read(f"{dist_info}/entry_points.txt").decode()
        assert entry_points == "[edgedp.packs]\ntiny-words = edgedp_pack_tiny_words:pack_dir\n"
        assert "Tag: py3-none-any" in archive.read(f"{dist_info}/WHEEL").decode()
        for name in ("manifest.json", "vocab.txt", "codes.npy"):
            assert f"edgedp_pack_tiny_words/tiny-words/{name}" in names


def test_an_installed_pack_is_found_by_name_and_pinned_to_its_wheel(installed, pack_dir):
    pack = edgedp.load_pack("tiny-words")
    assert pack.path.resolve() == (installed / "edgedp_pack_tiny_words" / "tiny-words").resolve()
    assert pack.manifest.digest == edgedp.load_pack(pack_dir).manifest.digest
    (entry,) = [e for e in edgedp.list_packs() if e.name == "tiny-words"]
    assert entry.origin == "distribution edgedp-pack-tiny-words"
    assert entry.pin == pack.manifest.digest
    assert edgedp.BRR(pack, epsilon=1.0).privatize("alpha beta").split()[0] in pack.vocabulary


def test_an_installed_pack_rewritten_consistently_fails_its_pin(installed):
    directory = installed / "edgedp_pack_tiny_words" / "tiny-words"
    manifest = json.loads((directory / "manifest.json").read_text())
    manifest["description"] = "rewritten"  # files unchanged, manifest self-consistent
    (directory / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(AssetError, match="not the expected"):
        edgedp.load_pack("tiny-words")


def test_a_distribution_cannot_claim_a_name_this_edgedp_pins(installed, monkeypatch):
    pins = {**edgedp.packs.loading.BUNDLED_MANIFEST_SHA256, "tiny-words": "0" * 64}
    monkeypatch.setattr(edgedp.packs.loading, "BUNDLED_MANIFEST_SHA256", pins)
    with pytest.raises(AssetError, match="this edgedp pins tiny-words"):
        edgedp.load_pack("tiny-words")


def test_two_distributions_registering_one_pack_name_are_refused(installed):
    # issue 27: the first on sys.path won, silently. Another distribution claims tiny-words.
    impostor = installed / "edgedp_pack_impostor-1.0.dist-info"
    impostor.mkdir()
    (impostor / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: edgedp-pack-impostor\nVersion: 1.0\n"
    )
    (impostor / "entry_points.txt").write_text(
        "[edgedp.packs]\ntiny-words = edgedp_pack_tiny_words:pack_dir\n"
    )
    importlib.invalidate_caches()
    for attempt in (lambda: edgedp.load_pack("tiny-words"), edgedp.list_packs):
        with pytest.raises(AssetError) as caught:
            attempt()
        message = str(caught.value)
        assert "\n" not in message and "registered by two installed distributions" in message
        assert "edgedp-pack-tiny-words" in message and "edgedp-pack-impostor" in message


def test_packs_verify_reports_the_pin_of_an_installed_pack(installed, capsys):
    from edgedp.cli import main

    assert main(["packs", "verify", "tiny-words"]) == 0
    assert "pinned (distribution edgedp-pack-tiny-words)" in capsys.readouterr().out
    assert main(["packs", "list"]) == 0
    assert re.search(
        r"^tiny-words +words +distribution edgedp-pack-tiny-words \(pinned\)",
        capsys.readouterr().out,
        re.MULTILINE,
    )


def test_a_missing_pack_names_the_commands_that_install_it(tmp_path, monkeypatch):
    empty = tmp_path / "assets"
    empty.mkdir()
    monkeypatch.setattr(edgedp.packs.loading, "bundled_packs_dir", lambda: empty)
    monkeypatch.setattr(
        edgedp.packs.loading, "installed_packs", dict
    )  # as if no pack wheel were installed
    expected = (
        "python -m edgedp.packs.wheel assets/sentences-bbc assets/encoder-minilm --out dist && "
        "pip install dist/edgedp_pack_sentences_bbc-*.whl dist/edgedp_pack_encoder_minilm-*.whl"
    )  # the encoder pack it references comes with it
    with pytest.raises(AssetError) as caught:
        edgedp.load_pack("sentences-bbc")
    assert expected in str(caught.value)
    with pytest.raises(
        AssetError, match="assets/adept-bbc --out dist && pip install dist/edgedp_pack_adept_bbc-"
    ):
        edgedp.load_pack("adept-bbc")


def test_the_pack_dependencies_are_the_encoder_packs_the_manifests_reference():
    referencing = {}
    for manifest_path in sorted((REPO_ROOT / "assets").glob("*/manifest.json")):
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        reference = manifest.get("encoder", {}).get("pack")
        if reference is not None:
            referencing[manifest["name"]] = (reference,)
    assert referencing == edgedp.packs.loading.PACK_DEPENDENCIES


def test_the_wheel_command_builds_several_packs(pack_dir, tmp_path):
    other = write_word_pack(
        tmp_path / "other", ["one", "two"], np.array([[1], [2]], np.uint8), name="other"
    )
    assert export_main(["wheel", str(pack_dir), str(other), "--out", str(tmp_path / "d")]) == 0
    built = sorted(path.name.split("-")[0] for path in (tmp_path / "d").glob("*.whl"))
    assert built == ["edgedp_pack_other", "edgedp_pack_tiny_words"]
    bad = write_word_pack(tmp_path / "bad", ["a", "b"], np.array([[1], [2]], np.uint8), name="Bad_")
    assert export_main(["wheel", str(bad), "--out", str(tmp_path / "d")]) == 1


def runtime_only_path(directory: Path) -> Path:
    """A directory that, as the whole ``sys.path`` beside the standard library (``python -S``),
    holds only what ``pip install .`` gives a words-only venv that an app needs: edgedp (with its
    installed metadata) and numpy. No exporter, no torch, not even faiss."""
    directory.mkdir()
    (directory / "edgedp").symlink_to(Path(edgedp.__file__).parent)
    metadata = directory / f"edgedp-{edgedp.__version__}.dist-info"
    metadata.mkdir()
    (metadata / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: edgedp\nVersion: {edgedp.__version__}\n"
    )
    numpy_dir = Path(np.__file__).parent
    for name in ("numpy", "numpy.libs"):  # numpy.libs: its OpenBLAS, where the wheel has one
        if (numpy_dir.parent / name).exists():
            (directory / name).symlink_to(numpy_dir.parent / name)
    return directory


#: Run ``python -m edgedp.packs.wheel`` in this interpreter, then print the top-level modules it
#: imported that are neither the standard library's nor edgedp's or numpy's.
RUN_AND_LIST_IMPORTS = """
import json, runpy, sys
sys.argv = ["edgedp.packs.wheel", *sys.argv[1:]]
try:
    runpy.run_module("edgedp.packs.wheel", run_name="__main__", alter_sys=True)
except SystemExit as done:
    status = done.code
tops = {name.partition(".")[0] for name in sys.modules}
print(json.dumps(sorted(tops - set(sys.stdlib_module_names) - {"edgedp", "numpy", "__main__"})))
sys.exit(status)
"""


def test_the_runtime_builds_the_exporters_wheel_without_the_exporter(pack_dir, tmp_path):
    """Issue: building a pack wheel needed the whole exporter (torch among it: 171 -> 472 MiB).
    ``python -m edgedp.packs.wheel``, run where only edgedp and numpy can be imported, writes the
    very bytes ``edgedp-export wheel`` writes, and imports nothing else."""
    site = runtime_only_path(tmp_path / "site")
    result = subprocess.run(
        [sys.executable, "-S", "-c", RUN_AND_LIST_IMPORTS, str(pack_dir), "--out", "runtime"],
        cwd=tmp_path,
        env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []  # neither the exporter, nor torch, nor faiss
    (runtime,) = (tmp_path / "runtime").glob("*.whl")
    assert result.stderr.strip() == f"wrote runtime/{runtime.name} (0.0 MiB)"
    assert export_main(["wheel", str(pack_dir), "--out", str(tmp_path / "export")]) == 0
    exported = tmp_path / "export" / runtime.name
    assert runtime.read_bytes() == exported.read_bytes()
    # and the function the exporter wraps is the runtime's: one builder, not two
    assert edgedp.packs.wheel.build_wheel(pack_dir, tmp_path / "api").read_bytes() == (
        exported.read_bytes()
    )


def test_a_pack_wheel_is_the_same_bytes_as_before_the_runtime_built_it(pack_dir, tmp_path):
    """The wheel's every file, as the first builder (edgedp-export's own, before the runtime's
    existed) wrote it: same paths in the same order, same module, metadata and entry point."""
    wheel = edgedp.packs.wheel.build_wheel(pack_dir, tmp_path, version="1.2.3")
    digest = edgedp.load_pack(pack_dir).manifest.digest
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        assert names == [
            "edgedp_pack_tiny_words/__init__.py",
            "edgedp_pack_tiny_words/py.typed",
            "edgedp_pack_tiny_words/tiny-words/codes.npy",
            "edgedp_pack_tiny_words/tiny-words/manifest.json",
            "edgedp_pack_tiny_words/tiny-words/vocab.txt",
            "edgedp_pack_tiny_words-1.2.3.dist-info/METADATA",
            "edgedp_pack_tiny_words-1.2.3.dist-info/WHEEL",
            "edgedp_pack_tiny_words-1.2.3.dist-info/entry_points.txt",
            "edgedp_pack_tiny_words-1.2.3.dist-info/RECORD",
        ]
        assert {info.date_time for info in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        module = archive.read(names[0]).decode()
        assert "Built by ``edgedp-export wheel tiny-words --version 1.2.3``." in module
        assert f"MANIFEST_SHA256 = {digest!r}" in module
        assert archive.read(names[6]) == (
            b"Wheel-Version: 1.0\nGenerator: edgedp-export\nRoot-Is-Purelib: true\n"
            b"Tag: py3-none-any\n"
        )
        metadata = archive.read(names[5]).decode()
    assert metadata.startswith(
        "Metadata-Version: 2.1\nName: edgedp-pack-tiny-words\nVersion: 1.2.3\n"
        "Summary: edgedp asset pack tiny-words (words)\n"
        f"Requires-Dist: edgedp>={edgedp.__version__}\nRequires-Python: >=3.11\n"
        "License: code Apache-2.0; pack data: CC0-1.0\n"
    )
    assert metadata.endswith(
        f"Manifest SHA-256: `{digest}`. Load it with `edgedp.load_pack('tiny-words')`; "
        "`edgedp packs verify tiny-words` checks every file.\n"
    )


def test_a_bundled_pack_gets_no_wheel_of_its_own(tmp_path, capsys):
    """lm-general and words-small ride in the runtime wheel; a wheel of either would register a
    name the bundled copy always answers (an edgedp-pack-lm-general beside it is never loaded)."""
    from edgedp.packs.loading import BUNDLED_PACKS, bundled_pack_dir

    for name in BUNDLED_PACKS:
        with pytest.raises(InputError, match=f"pack {name} ships inside the edgedp runtime wheel"):
            edgedp.packs.wheel.build_wheel(bundled_pack_dir(name), tmp_path)
    assert edgedp.packs.wheel.main([str(bundled_pack_dir("lm-general")), "--out", "d"]) == 1
    (error,) = capsys.readouterr().err.strip().splitlines()
    assert error.startswith("python -m edgedp.packs.wheel: error: pack lm-general ships inside")
    assert not list(tmp_path.iterdir())


def test_the_runtime_builder_refuses_a_corrupt_pack_in_one_line(pack_dir, tmp_path, capsys):
    (pack_dir / "vocab.txt").write_text("alpha\nbeta\ngamma\nomega\n")  # same size, new bytes
    assert edgedp.packs.wheel.main([str(pack_dir), "--out", str(tmp_path / "d")]) == 1
    (error,) = capsys.readouterr().err.strip().splitlines()
    assert "vocab.txt does not match its SHA-256" in error
    assert not (tmp_path / "d").exists()


def test_the_wheel_version_is_the_installed_edgedps():
    """The default version and the Requires-Dist floor come from edgedp's installed metadata:
    it must be the version the package itself reports."""
    assert edgedp.packs.wheel.runtime_version() == edgedp.__version__


def test_the_document_pack_wheels_require_the_encoder_pack_and_carry_no_encoder(tmp_path):
    """sentences-bbc and subspace-general reference encoder-minilm by digest: their wheels hold
    none of its files and require its distribution at their own version (built together, pip
    takes it from the wheels it is given); the encoder pack's wheel holds them."""
    from edgedp.packs.loading import resolve_pack_path

    for name in ("encoder-minilm", "sentences-bbc", "subspace-general"):
        wheel = edgedp.packs.wheel.build_wheel(resolve_pack_path(name), tmp_path, version="1.2.3")
        module = edgedp.packs.wheel.module_name(name)
        with zipfile.ZipFile(wheel) as archive:
            files = {
                path.rpartition("/")[2]
                for path in archive.namelist()
                if path.startswith(f"{module}/{name}/")
            }
            metadata = archive.read(f"{module}-1.2.3.dist-info/METADATA").decode()
        requires = re.findall(r"^Requires-Dist: (.*)$", metadata, re.MULTILINE)
        if name == "encoder-minilm":
            assert files == {"manifest.json", "encoder.onnx", "tokenizer.json"}
            assert requires == [f"edgedp>={edgedp.__version__}"]
        else:
            assert not {"encoder.onnx", "tokenizer.json"} & files
            assert requires == [
                f"edgedp>={edgedp.__version__}",
                "edgedp-pack-encoder-minilm==1.2.3",
            ]


def test_a_reference_to_a_pack_no_wheel_can_name_is_refused(tmp_path):
    from sentence_helpers import orthonormal_rows, write_subspace_pack

    basis = orthonormal_rows(np.random.default_rng(0), 2, 384)
    pack_dir = write_subspace_pack(tmp_path / "sub", basis, real_encoder=True)
    manifest = json.loads((pack_dir / "manifest.json").read_text())
    manifest["encoder"]["pack"] = "Encoder_MiniLM"
    (pack_dir / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(InputError, match="references pack 'Encoder_MiniLM'"):
        edgedp.packs.wheel.build_wheel(pack_dir, tmp_path / "dist")
