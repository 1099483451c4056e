"""Autoencoder packs: loading, validation errors, the WordPiece tokenizer, ONNX checks at first use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from edgedp_export.pack_writer import lines_writer, write_pack

import edgedp
from edgedp.adept.autoencoder import SentenceAutoencoder
from edgedp.adept.pack import SPECIAL_TOKENS, UNK_ID, label_token, wordpiece_tokenizer
from edgedp.errors import AssetError, InputError

WORDS = ["the", "cat", "sat", "on", "mat", ".", ",", "##s", "c", "##a", "##t", "z", "##o"]


def write_autoencoder_pack(directory: Path, *, labels: tuple[str, ...] = (), **model) -> Path:
    """A structurally valid autoencoder pack whose ONNX files are placeholders."""
    tokens = [*SPECIAL_TOKENS, *(label_token(label) for label in labels), *WORDS]
    settings = {
        "cell": "gru",
        "latent_dims": 4,
        "clip_norm": 1.0,
        "state_size": 8,
        "max_input_tokens": 10,
        "max_output_tokens": 10,
        "encoder": "encoder.onnx",
        "decoder_step": "decoder_step.onnx",
        **model,
    }
    manifest = {
        "kind": "autoencoder",
        "name": directory.name,
        "source": {"name": "synthetic", "license": "CC0-1.0"},
        "vocabulary": {"file": "vocab.txt", "size": len(tokens), "labels": list(labels)},
        "model": settings,
    }
    placeholder = lines_writer(["not an onnx model"])
    files = {"vocab.txt": lines_writer(tokens), "encoder.onnx": placeholder}
    files["decoder_step.onnx"] = placeholder
    return write_pack(directory, manifest, files)


def edit_manifest(pack_dir: Path, change) -> None:
    path = pack_dir / "manifest.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_synthetic_pack_loads_with_its_geometry(tmp_path):
    pack = edgedp.load_pack(write_autoencoder_pack(tmp_path / "ae", labels=("sport", "tech")))
    assert isinstance(pack, edgedp.AutoencoderPack) and pack.kind == "autoencoder"
    assert (pack.latent_dims, pack.clip_norm, pack.state_size) == (4, 1.0, 8)
    assert pack.labels == ("sport", "tech")
    assert pack.label_id("tech") == 5 and list(pack.label_ids) == [4, 5]
    assert pack.vocabulary[:4] == SPECIAL_TOKENS
    assert pack.describe()["labels"] == ["sport", "tech"]
    with pytest.raises(AssetError, match="no label"):
        pack.label_id("politics")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m["vocabulary"].update(size=3), "tokens, the manifest says"),
        (lambda m: m["vocabulary"].update(labels=["x"]), "must start with"),
        (lambda m: m["vocabulary"].update(labels=[""]), "non-empty string"),
        (lambda m: m["model"].update(cell="transformer"), "not supported"),
        (lambda m: m["model"].update(clip_norm=-1.0), "clip_norm"),
        (lambda m: m["model"].update(latent_dims=0), "latent_dims"),
        (lambda m: m["model"].pop("state_size"), "state_size"),
        (lambda m: m["model"].update(encoder="missing.onnx"), "does not list"),
    ],
)
def test_inconsistent_manifests_are_asset_errors(tmp_path, change, message):
    pack_dir = write_autoencoder_pack(tmp_path / "ae")
    edit_manifest(pack_dir, change)
    with pytest.raises(AssetError, match=message):
        edgedp.load_pack(pack_dir)


def test_duplicate_or_blank_tokens_are_refused(tmp_path):
    pack_dir = write_autoencoder_pack(tmp_path / "ae")
    vocab = pack_dir / "vocab.txt"
    for bad in ("cat\n", "two words\n"):
        vocab.write_text(vocab.read_text().replace("mat\n", bad))
        edit_manifest(
            pack_dir, lambda m: m["files"]["vocab.txt"].update(bytes=vocab.stat().st_size)
        )
        with pytest.raises(AssetError):
            edgedp.load_pack(pack_dir, verify=False)


def test_a_broken_onnx_file_fails_at_first_use_with_an_asset_error(tmp_path):
    pack = edgedp.load_pack(write_autoencoder_pack(tmp_path / "ae"))
    autoencoder = SentenceAutoencoder(pack)  # loading and construction never touch onnxruntime
    with pytest.raises(AssetError, match="not a loadable ONNX model"):
        autoencoder.encode(autoencoder.tokenize(["the cat sat."]))


def test_label_aware_packs_need_labels(tmp_path):
    pack = edgedp.load_pack(write_autoencoder_pack(tmp_path / "ae", labels=("sport",)))
    autoencoder = SentenceAutoencoder(pack)
    with pytest.raises(InputError, match="label-aware"):
        autoencoder.tokenize(["the cat sat."])
    assert autoencoder.tokenize(["the cat."], ["sport"])[0][0] == pack.label_id("sport")
    with pytest.raises(InputError):
        autoencoder.tokenize(["the cat."], ["sport", "sport"])


def test_wordpiece_tokenizer_is_bert_uncased_over_the_pack_vocabulary():
    tokens = [*SPECIAL_TOKENS, label_token("sport"), *WORDS]
    tokenizer = wordpiece_tokenizer(tokens)
    encoding = tokenizer.encode("The CATS sat, on the Mát.", add_special_tokens=False)
    assert encoding.tokens == ["the", "cat", "##s", "sat", ",", "on", "the", "mat", "."]
    assert tokenizer.encode("Zoo", add_special_tokens=False).tokens == ["z", "##o", "##o"]
    assert tokenizer.encode("xylophone", add_special_tokens=False).ids == [UNK_ID]
    # Special and label tokens cannot be produced from text: their brackets are split off.
    injected = tokenizer.encode("[PAD] [label:sport] [EOS]", add_special_tokens=False).ids
    assert not set(injected) & {0, 2, 3, 4}
    assert tokenizer.decode(encoding.ids) == "the cats sat, on the mat."


def test_tokenize_truncates_and_reads_empty_sentences_as_unknown(tmp_path):
    pack = edgedp.load_pack(write_autoencoder_pack(tmp_path / "ae", max_input_tokens=3))
    autoencoder = SentenceAutoencoder(pack)
    assert autoencoder.tokenize(["the cat sat on the mat", "\u200b"]) == [[4, 5, 6], [UNK_ID]]
