"""The numpy tier of the sentence encoder (issue 35): the encoder pack's encoder.onnx and the
sentences pack's recoder.onnx
run in numpy give onnxruntime's embeddings (measured worst cosine 1 - 1.2e-7 on the reference
sentences and BBC News lines), mechanisms release the same, `edgedp embed` runs with
onnxruntime and tokenizers unimportable, and a damaged model is an AssetError line."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from corpus_helpers import bbc_articles

import edgedp
from edgedp.encoder.numpy_transformer import erf, gelu
from edgedp.encoder.sentence_encoder import Recoder, SentenceEncoder
from edgedp.errors import AssetError

SHIM = "import sys\nsys.modules['onnxruntime'] = None\nsys.modules['tokenizers'] = None\n"


def encoder_on(pack, tier: str, monkeypatch) -> SentenceEncoder:
    monkeypatch.setenv("EDGEDP_BACKEND", tier)
    encoder = SentenceEncoder(
        pack.manifest.contents("encoder.onnx"),
        pack.manifest.contents("tokenizer.json"),
        dims=pack.dims,
        max_seq_length=256,
    )
    assert encoder.backend == tier
    return encoder


@pytest.fixture(scope="module")
def public_sentences(sentence_pack) -> list[str]:
    # every third of 300 BBC lines: 6,700 words, 4 to 339 a line (the longest cut at 256 tokens)
    lines = [line for text in bbc_articles()[::40] for line in text.split("\n") if line.strip()]
    return [*sentence_pack.reference_sentences, *lines[:300:3]]


@pytest.mark.slow
def test_numpy_embeddings_are_onnxruntimes(encoder_pack, public_sentences, monkeypatch):
    native = encoder_on(encoder_pack, "native", monkeypatch).encode(public_sentences)
    numpy_tier = encoder_on(encoder_pack, "numpy", monkeypatch)
    ours = numpy_tier.encode(public_sentences)
    assert len(public_sentences) > 100
    assert np.min(np.sum(native * ours, axis=1)) > 1 - 1e-5  # brief: 1e-3; measured 1.2e-7
    alone = numpy_tier.encode(public_sentences[:12], independent=True)
    np.testing.assert_allclose(alone, ours[:12], atol=2e-5)
    assert np.array_equal(alone[3], numpy_tier.encode([public_sentences[3]], independent=True)[0])


def test_numpy_recoder_is_onnxruntimes(sentence_pack, monkeypatch):
    monkeypatch.setenv("EDGEDP_BACKEND", "numpy")
    recoder = Recoder(sentence_pack.manifest.contents("recoder.onnx"), dims=sentence_pack.dims)
    assert recoder.backend == "numpy"
    recoded = recoder.recode(sentence_pack.reference_embeddings)
    np.testing.assert_allclose(recoded, sentence_pack.reference_recoded, rtol=1e-4, atol=1e-5)


def test_subspace_mean_releases_the_same_on_both_tiers(seeded, encoder_pack, monkeypatch):
    # Same seed, same integer lattice noise; the clipped sums differ by float rounding (~1e-7)
    # only, so a coordinate may at most land one grid step away when it sits on a boundary.
    general = edgedp.load_pack("subspace-general", kind="subspace")
    document = " ".join(bbc_articles()[7].split("\n")[2:])
    releases = []
    for tier in ("native", "numpy"):
        pack = dataclasses.replace(general, encoder=encoder_on(encoder_pack, tier, monkeypatch))
        mechanism = edgedp.SubspaceMean(pack, epsilon=3.0, rng=seeded(11))
        releases.append(mechanism.embed(document))
    grid = mechanism.lattice(*mechanism.setting(10)).grid
    assert np.max(np.abs(releases[0] - releases[1])) <= grid * 1.0001


def test_embed_runs_with_onnxruntime_and_tokenizers_unimportable(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(SHIM, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "EDGEDP_BACKEND": "auto"}
    document = " ".join(bbc_articles()[3].split("\n")[2:])
    for mechanism in ("subspace-mean", "deepcandidate"):
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "edgedp.cli",
                "embed",
                "--epsilon",
                "3",
                "--seed",
                "1",
                "--mechanism",
                mechanism,
            ],
            input=document.encode(),
            capture_output=True,
            timeout=300,
            env=env,
        )
        assert result.returncode == 0, result.stderr.decode()[-2000:]
        (record,) = [json.loads(line) for line in result.stdout.splitlines()]
        assert record["private"] is False and record["sentences"] > 2  # --seed: not private
        assert record["mechanism"] == mechanism and len(record["embedding"]) > 0
    check = subprocess.run(
        [sys.executable, "-c", "import onnxruntime"], capture_output=True, env=env, timeout=60
    )
    assert check.returncode != 0  # the shim did make it unimportable


@pytest.mark.parametrize("keep", [1 / 3, 0.9999])
def test_a_truncated_onnx_file_is_an_asset_error_line(encoder_pack, monkeypatch, keep):
    model = encoder_pack.manifest.contents("encoder.onnx")
    broken = model[: int(len(model) * keep)]
    monkeypatch.setenv("EDGEDP_BACKEND", "numpy")
    encoder = SentenceEncoder(
        broken, encoder_pack.manifest.contents("tokenizer.json"), dims=384, max_seq_length=256
    )
    with pytest.raises(AssetError, match=r"encoder\.onnx is not a readable ONNX model") as error:
        encoder.encode(["One sentence."])
    assert "\n" not in str(error.value)
    recoder = Recoder(b"\x08\x07\x3a\xff\xff", dims=384)
    with pytest.raises(AssetError, match=r"recoder\.onnx is not a readable ONNX model"):
        recoder.recode(np.zeros((1, 384), dtype=np.float32))


def test_a_model_of_another_layout_is_refused(sentence_pack, encoder_pack, monkeypatch):
    # the recoder file handed to the encoder: readable ONNX, but no BERT inside
    monkeypatch.setenv("EDGEDP_BACKEND", "numpy")
    encoder = SentenceEncoder(
        sentence_pack.manifest.contents("recoder.onnx"),
        encoder_pack.manifest.contents("tokenizer.json"),
        dims=384,
        max_seq_length=256,
    )
    with pytest.raises(AssetError, match="numpy tier runs BERT encoders"):
        encoder.encode(["One sentence."])


def test_erf_and_gelu_are_accurate_enough():
    x = np.linspace(-8, 8, 20001, dtype=np.float32)
    exact = np.array([math.erf(v) for v in x.astype(np.float64)])
    assert np.max(np.abs(erf(x) - exact)) < 1e-6  # A&S 7.1.26: 1.5e-7; float32 rounding: 5.2e-7
    exact_gelu = np.array([v * (1 + math.erf(v / math.sqrt(2))) / 2 for v in x.astype(float)])
    assert np.max(np.abs(gelu(x) - exact_gelu)) < 2e-6
