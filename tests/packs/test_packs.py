"""Asset packs: round trip, the bundled default, and every kind of corruption rejected clearly."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from helpers import write_word_pack

import edgedp
from edgedp.errors import AssetError
from edgedp.packs.manifest import (
    BUILTIN_SHA256_MAX_BYTES,
    FORMAT_VERSION,
    read_manifest,
    sha256_hasher,
)


@pytest.fixture
def pack_dir(tmp_path: Path) -> Path:
    words = ["alpha", "beta", "gamma", "delta"]
    codes = np.array([[0, 1], [2, 3], [4, 5], [250, 251]], dtype=np.uint8)
    return write_word_pack(tmp_path / "pack", words, codes, name="roundtrip")


def _edit_manifest(pack_dir: Path, edit) -> None:
    path = pack_dir / "manifest.json"
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))


def test_round_trip(pack_dir):
    pack = edgedp.load_pack(pack_dir)
    assert pack.name == "roundtrip"
    assert pack.vocabulary.words == ("alpha", "beta", "gamma", "delta")
    assert pack.codes.tolist() == [[0, 1], [2, 3], [4, 5], [250, 251]]
    assert pack.bits == 16 and pack.index.exact
    assert pack.vocabulary.ids(["gamma", "nope"]).tolist() == [2, -1]


def test_pack_is_immutable_and_held_in_private_memory(pack_dir):
    pack = edgedp.load_pack(pack_dir)
    with pytest.raises(dataclasses.FrozenInstanceError):
        pack.name = "other"  # type: ignore[misc]
    with pytest.raises(ValueError, match="read-only"):
        pack.codes[0, 0] = 1
    # a view of the verified bytes, not a map of the file (tests/packs/test_pack_binding.py says why)
    assert not isinstance(pack.codes, np.memmap)
    assert pack.codes.base is not None and not pack.codes.flags.writeable
    with pytest.raises(TypeError):
        pack.manifest.data["name"] = "x"  # type: ignore[index]


def test_default_pack_loads_with_its_provenance(default_pack):
    assert default_pack.name == "words-small"
    assert len(default_pack.vocabulary) == 100_000 and default_pack.bits == 256
    data = default_pack.manifest.data
    assert data["source"]["license"] == "PDDL-1.0" and "Pennington" in data["source"]["attribution"]
    assert data["codes"]["bit_order"] == "big"
    assert data["built_with"]["numpy"]
    assert sum(entry["bytes"] for entry in data["files"].values()) < 8 * 2**20
    assert "the" in default_pack.vocabulary and "," not in default_pack.vocabulary


def test_default_pack_by_name_and_listing(default_pack):
    assert edgedp.load_pack("words-small").manifest.digest == default_pack.manifest.digest
    assert "words-small" in {entry.name for entry in edgedp.list_packs()}


def _truncate(pack_dir: Path) -> None:
    path = pack_dir / "codes.npy"
    path.write_bytes(path.read_bytes()[:-3])


def _flip_a_byte(pack_dir: Path) -> None:
    path = pack_dir / "codes.npy"
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x01
    path.write_bytes(bytes(data))


def _tamper_vocabulary(pack_dir: Path) -> None:
    path = pack_dir / "vocab.txt"
    path.write_text(path.read_text().replace("beta", "bet4"))


CORRUPTIONS = {
    "missing file": (lambda d: (d / "codes.npy").unlink(), "missing"),
    "missing manifest": (lambda d: (d / "manifest.json").unlink(), "manifest.json is missing"),
    "truncated file": (_truncate, "bytes"),
    "flipped bit": (_flip_a_byte, "SHA-256"),
    "tampered vocabulary": (_tamper_vocabulary, "SHA-256"),
    "invalid json": (lambda d: (d / "manifest.json").write_text("{nope"), "not valid JSON"),
    "newer format": (
        lambda d: _edit_manifest(d, lambda m: m.update(format_version=FORMAT_VERSION + 1)),
        "upgrade edgedp",
    ),
    "not a pack": (lambda d: _edit_manifest(d, lambda m: m.update(format="zip")), "not an edgedp"),
    "unknown kind": (lambda d: _edit_manifest(d, lambda m: m.update(kind="fonts")), "kind"),
    "wrong vocabulary size": (
        lambda d: _edit_manifest(d, lambda m: m["vocabulary"].update(size=5)),
        "4 words, the manifest says 5",
    ),
    "wrong code width": (
        lambda d: _edit_manifest(d, lambda m: m["codes"].update(bits=24)),
        "requires uint8",
    ),
    "path traversal": (
        lambda d: _edit_manifest(d, lambda m: m["files"].update({"../../etc/passwd": {}})),
        "unsafe file name",
    ),
    "absolute path": (
        lambda d: _edit_manifest(d, lambda m: m["codes"].update(file="/etc/passwd")),
        "does not list it",
    ),
    "unsupported index": (
        lambda d: _edit_manifest(d, lambda m: m["index"].update(type="lsh")),
        "index type",
    ),
    "missing section": (
        lambda d: _edit_manifest(d, lambda m: m.pop("codes")),
        r"manifest\.codes is missing",
    ),
    "bad checksum field": (
        lambda d: _edit_manifest(d, lambda m: m["files"]["vocab.txt"].update(sha256="xyz")),
        "64 lower-case hex",
    ),
    "bool as size": (
        lambda d: _edit_manifest(d, lambda m: m["vocabulary"].update(size=True)),
        r"vocabulary\.size must be an integer",
    ),
}


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_corruption_is_rejected_with_a_clear_asset_error(pack_dir, corruption):
    corrupt, message = CORRUPTIONS[corruption]
    corrupt(pack_dir)
    with pytest.raises(AssetError, match=message) as caught:
        edgedp.load_pack(pack_dir)
    assert str(pack_dir) in str(caught.value)


def test_symlinked_file_is_rejected(pack_dir, tmp_path):
    target = tmp_path / "elsewhere.npy"
    shutil.move(pack_dir / "codes.npy", target)
    os.symlink(target, pack_dir / "codes.npy")
    with pytest.raises(AssetError, match="symbolic link"):
        edgedp.load_pack(pack_dir)


def test_size_only_verification_misses_a_flipped_bit_but_full_does_not(pack_dir):
    _flip_a_byte(pack_dir)
    edgedp.load_pack(pack_dir, verify=False)  # documented: sizes only
    with pytest.raises(AssetError):
        edgedp.load_pack(pack_dir)


@pytest.mark.parametrize("size", [0, 1, 55, 64, 1 << 20, BUILTIN_SHA256_MAX_BYTES + 1])
def test_both_sha256_implementations_are_hashlibs(size):
    # small packs are hashed by CPython's built-in SHA-256 (no OpenSSL in memory), big ones by
    # hashlib: the digest must be the standard one either way
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    digest = sha256_hasher(size)
    digest.update(data[: size // 3])
    digest.update(data[size // 3 :])
    assert digest.hexdigest() == hashlib.sha256(data).hexdigest()
    assert (type(digest).__module__ == "_hashlib") == (size > BUILTIN_SHA256_MAX_BYTES)


def test_unknown_pack_name_lists_known_ones():
    with pytest.raises(AssetError, match="words-small"):
        edgedp.load_pack("no-such-pack")


def test_a_folder_in_the_working_directory_never_shadows_a_bundled_pack(
    pack_dir, tmp_path, monkeypatch
):
    from edgedp.packs.loading import bundled_packs_dir

    planted = tmp_path / "cwd"
    planted.mkdir()
    shutil.copytree(pack_dir, planted / "words-small")  # a valid pack, but not the bundled one
    shutil.copytree(pack_dir, planted / "my-pack")
    monkeypatch.chdir(planted)
    bundled = bundled_packs_dir() / "words-small"
    assert edgedp.load_pack().path.resolve() == bundled.resolve()
    assert edgedp.load_pack("words-small").path.resolve() == bundled.resolve()
    assert edgedp.load_pack("./words-small").name == "roundtrip"  # an explicit path is a path
    assert edgedp.load_pack("my-pack").name == "roundtrip"  # no pack of that name: the folder


def test_extra_search_dirs(pack_dir, monkeypatch):
    monkeypatch.setenv("EDGEDP_PACKS", str(pack_dir.parent))
    assert edgedp.load_pack("pack").name == "roundtrip"


def test_every_pinned_pack_is_installed_and_loads_with_its_pin():
    """Bundled (words-small and lm-general, in a wheel install and a checkout alike) or installed
    as a pack distribution (the README's test command builds and installs them): every pinned name
    loads, and the bundled ones from the bundled directory."""
    from edgedp.packs.loading import BUNDLED_MANIFEST_SHA256, BUNDLED_PACKS, bundled_packs_dir

    assert set(BUNDLED_PACKS) == {"words-small", "lm-general"} <= set(BUNDLED_MANIFEST_SHA256)
    for name, digest in BUNDLED_MANIFEST_SHA256.items():
        pack = edgedp.load_pack(name)
        assert pack.manifest.digest == digest
        if name in BUNDLED_PACKS:
            assert pack.path.resolve() == (bundled_packs_dir() / name).resolve()


def test_a_checkout_finds_the_packs_an_installed_edgedp_finds(tmp_path, monkeypatch):
    """With no pack distribution installed, no EDGEDP_PACKS and an empty working directory, a name
    finds exactly the packs the runtime wheel bundles, whether edgedp runs from a checkout (every
    pack in assets/; this test run, in an editable install) or from its wheel (only the bundled
    ones in edgedp/assets): a checkout that decoded with sentences-bbc by name used to raise
    AssetError once installed. tests/test_repository.py checks the wheel side."""
    from edgedp.packs import loading

    monkeypatch.setattr(loading, "installed_packs", dict)
    monkeypatch.delenv("EDGEDP_PACKS", raising=False)
    monkeypatch.chdir(tmp_path)
    assert {e.name for e in edgedp.list_packs()} == set(loading.BUNDLED_PACKS)
    assert {e.origin for e in edgedp.list_packs()} == {"bundled"}
    assert edgedp.load_pack("lm-general", kind="lm").name == "lm-general"
    others = sorted(set(loading.BUNDLED_MANIFEST_SHA256) - set(loading.BUNDLED_PACKS))
    assert others  # sentences-bbc, adept-bbc, subspace-general: their own wheels
    for name in others:
        with pytest.raises(
            AssetError, match=rf"no pack at '{name}'.*python -m edgedp\.packs\.wheel"
        ):
            edgedp.load_pack(name)
        path = loading.bundled_packs_dir() / name
        if path.is_dir():  # a checkout: by its path it is found, as from an installed edgedp
            assert loading.resolve_pack_path(str(path)) == path


def test_a_distribution_of_a_bundled_name_is_never_loaded(tmp_path, monkeypatch):
    """An obsolete edgedp-pack-lm-general (lm-general was its own wheel) beside an edgedp that
    bundles it: the bundled copy loads, the distribution is listed as shadowed, even when its
    digest is not the pin (nothing raises, nothing loads two copies)."""
    from edgedp.packs import loading

    stale = loading._Installed("lm-general", "edgedp-pack-lm-general", tmp_path / "lm", "0" * 64)
    shutil.copytree(loading.bundled_pack_dir("lm-general"), stale.path)
    monkeypatch.setattr(loading, "installed_packs", lambda: {"lm-general": stale})
    assert edgedp.load_pack("lm-general").path.resolve() == (
        loading.bundled_pack_dir("lm-general").resolve()
    )
    listed = [e for e in edgedp.list_packs() if e.name == "lm-general"]
    assert listed[0].origin == "bundled"
    pin = loading.BUNDLED_MANIFEST_SHA256["lm-general"]
    assert [(e.shadowed, e.pin) for e in listed] == [(False, pin), (True, pin)]
    assert "pip uninstall edgedp-pack-lm-general" in listed[1].origin


def test_a_consistently_rewritten_pack_fails_its_pin(pack_dir):
    digest = edgedp.load_pack(pack_dir).manifest.digest
    assert edgedp.load_pack(pack_dir, expected_digest=digest).name == "roundtrip"
    _edit_manifest(pack_dir, lambda m: m.update(description="rewritten"))
    with pytest.raises(AssetError, match="not the expected"):
        edgedp.load_pack(pack_dir, expected_digest=digest)


@pytest.fixture(scope="module")
def impostor(tmp_path_factory) -> Path:
    """A copy of sentences-bbc rewritten consistently (files and manifest agree): a valid pack,
    but not the one this edgedp pins under that name."""
    from edgedp.packs.loading import resolve_pack_path

    root = tmp_path_factory.mktemp("impostor")
    # Bundled in a checkout, a pack distribution of its own in a wheel install (as in CI); its
    # encoder pack beside it, so that only the pin of sentences-bbc can refuse it.
    shutil.copytree(resolve_pack_path("sentences-bbc"), root / "sentences-bbc")
    shutil.copytree(resolve_pack_path("encoder-minilm"), root / "encoder-minilm")
    _edit_manifest(root / "sentences-bbc", lambda m: m.update(description="not the real one"))
    edgedp.load_pack(root / "sentences-bbc")  # self-consistent: loads by its path
    return root


@pytest.fixture
def wheel_install_without_the_pack(tmp_path, monkeypatch):
    """As a wheel install of edgedp without the sentences-bbc pack distribution: the bundled
    directory holds only the default words pack, and no pack distribution is installed."""
    from edgedp.packs import loading

    bundled = tmp_path / "bundled"
    bundled.mkdir()
    monkeypatch.setattr(loading, "bundled_packs_dir", lambda: bundled)
    monkeypatch.setattr(loading, "installed_packs", dict)
    monkeypatch.delenv("EDGEDP_PACKS", raising=False)
    return bundled


def _refused_everywhere(capsys, tmp_path) -> None:
    """load_pack, `edgedp embed` (whose default pack it is) and `packs verify` refuse the name."""
    from edgedp.cli import main

    with pytest.raises(AssetError, match="not the expected 2c16081a"):
        edgedp.load_pack("sentences-bbc")
    with pytest.raises(AssetError, match="not the expected"):
        edgedp.load_pack("sentences-bbc", kind="sentences")
    document = tmp_path / "doc.txt"
    document.write_text("One sentence. Another one.\n")
    capsys.readouterr()
    assert main(["embed", "--mechanism", "deepcandidate", "--epsilon", "5", str(document)]) == 1
    assert main(["packs", "verify", "sentences-bbc"]) == 1
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 2 and all("not the expected" in line for line in errors)


@pytest.mark.usefixtures("wheel_install_without_the_pack")
def test_a_pinned_name_in_edgedp_packs_loads_only_with_its_pin(impostor, monkeypatch, capsys):
    # issue 27: _locate returned no pin for EDGEDP_PACKS, so the impostor loaded as sentences-bbc
    monkeypatch.setenv("EDGEDP_PACKS", str(impostor))
    _refused_everywhere(capsys, impostor)


@pytest.mark.usefixtures("wheel_install_without_the_pack")
def test_a_pinned_name_in_the_working_directory_loads_only_with_its_pin(
    impostor, monkeypatch, capsys
):
    monkeypatch.chdir(impostor)
    _refused_everywhere(capsys, impostor)
    assert edgedp.load_pack("./sentences-bbc").name == "sentences-bbc"  # an explicit path is a path


def test_a_pinned_name_loads_from_every_location_with_its_pin(
    pack_dir, wheel_install_without_the_pack, tmp_path, monkeypatch
):
    """The pin is the only thing that decides: with the right digest a pinned name loads from the
    bundled directory, EDGEDP_PACKS and the working directory alike; a rewrite fails in each."""
    from edgedp.packs import loading

    digest = edgedp.load_pack(pack_dir).manifest.digest
    monkeypatch.setattr(loading, "BUNDLED_MANIFEST_SHA256", {"pinned-words": digest})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    for place in (wheel_install_without_the_pack, tmp_path / "extra", elsewhere):
        bundled = ("pinned-words",) if place == wheel_install_without_the_pack else ()
        monkeypatch.setattr(loading, "BUNDLED_PACKS", bundled)  # as if the wheel carried it
        monkeypatch.setenv("EDGEDP_PACKS", str(tmp_path / "extra"))
        shutil.copytree(pack_dir, place / "pinned-words")
        assert edgedp.load_pack("pinned-words").manifest.digest == digest
        listed = {e.path.resolve(): e.pin for e in edgedp.list_packs()}
        if place != elsewhere:  # `packs list` shows bundled and EDGEDP_PACKS packs with the pin
            assert listed[(place / "pinned-words").resolve()] == digest
        _edit_manifest(place / "pinned-words", lambda m: m.update(description="rewritten"))
        with pytest.raises(AssetError, match="not the expected"):
            edgedp.load_pack("pinned-words")
        with pytest.raises(AssetError, match="not the expected"):  # expected_digest cannot lift it
            edgedp.load_pack(
                "pinned-words",
                expected_digest=read_manifest(place / "pinned-words").digest,
            )
        shutil.rmtree(place / "pinned-words")


def test_verifying_a_pack_reports_progress_when_asked(monkeypatch, capsys):
    monkeypatch.setenv("EDGEDP_PROGRESS", "1")
    pack = edgedp.load_pack()
    size = sum(entry["bytes"] for entry in pack.manifest.data["files"].values()) / 1e6
    err = capsys.readouterr().err
    assert f"edgedp: reading pack words-small: {size:.1f} MB of {size:.1f} MB (100%)" in err
