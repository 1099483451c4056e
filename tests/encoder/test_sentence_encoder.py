"""The ONNX sentence encoder and recoder reproduce the torch references stored in the pack, load
onnxruntime lazily, never load torch, and reject tokenizers that do not behave like
sentence-transformers."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from types import SimpleNamespace

import numpy as np
import pytest
from helpers import native_process
from sentence_helpers import bundled_encoder_pack

import edgedp
import edgedp.runtime.native as native
from edgedp.encoder.sentence_encoder import Recoder, SentenceEncoder, mean_pool_normalize
from edgedp.errors import AssetError, InputError


def test_onnx_encoder_matches_the_torch_reference_embeddings(sentence_pack):
    encoded = sentence_pack.encoder.encode(sentence_pack.reference_sentences)
    cosines = np.sum(encoded * sentence_pack.reference_embeddings, axis=1)
    assert cosines.min() >= 0.999  # int8 weights, fp32 compute; the export measured the same
    assert sentence_pack.check_encoder() == pytest.approx(float(cosines.min()))
    np.testing.assert_allclose(np.linalg.norm(encoded, axis=1), 1.0, rtol=1e-5)


def test_onnx_recoder_matches_torch(sentence_pack):
    recoded = sentence_pack.recoder.recode(sentence_pack.reference_embeddings)
    np.testing.assert_allclose(recoded, sentence_pack.reference_recoded, rtol=1e-4, atol=1e-5)
    assert sentence_pack.recoder.recode(np.empty((0, sentence_pack.dims))).shape == (0, 384)
    with pytest.raises(InputError, match="shape"):
        sentence_pack.recoder.recode(np.ones((2, 3)))


def test_batching_and_order_do_not_change_embeddings(sentence_pack):
    sentences = list(sentence_pack.reference_sentences)
    together = sentence_pack.encoder.encode(sentences)
    alone = np.stack([sentence_pack.encoder.encode([sentence])[0] for sentence in sentences])
    np.testing.assert_allclose(together, alone, atol=2e-5)
    reversed_order = sentence_pack.encoder.encode(sentences[::-1])[::-1]
    np.testing.assert_allclose(together, reversed_order, atol=2e-5)
    assert sentence_pack.encoder.encode([]).shape == (0, sentence_pack.dims)


def pack_encoder(sentence_pack, **settings) -> SentenceEncoder:
    """A new encoder of the pack's model and tokenizer (its encoder pack's) with other
    ``settings``."""
    manifest = bundled_encoder_pack().manifest
    return SentenceEncoder(
        manifest.contents("encoder.onnx"),
        manifest.contents("tokenizer.json"),
        dims=sentence_pack.dims,
        max_seq_length=256,
        **settings,
    )


def test_batches_group_similar_lengths_within_the_sentence_and_token_caps(sentence_pack):
    encoder = pack_encoder(sentence_pack, batch_size=3, batch_tokens=40)
    calls = []
    session = encoder._session.get()

    class Recording:
        def run(self, outputs, feeds):
            calls.append(feeds["attention_mask"])
            return session.run(outputs, feeds)

    encoder._session = SimpleNamespace(get=Recording)
    sentences = ["Hi.", "word " * 30, "A short one.", "Why?", "word " * 12, "Yes.", "Ok then."]
    encoded = encoder.encode(sentences)
    np.testing.assert_allclose(encoded, sentence_pack.encoder.encode(sentences), atol=2e-5)
    assert sorted(len(mask) for mask in calls) == [1, 1, 2, 3]  # 7 rows, caps 3 rows / 40 tokens
    for mask in calls:
        assert len(mask) <= 3 and (len(mask) == 1 or mask.size <= 40)
    longest = [int(mask.sum(axis=1).max()) for mask in calls]
    assert longest == sorted(longest)  # shortest sentences first: little padding


def test_independent_embeddings_depend_on_their_own_sentence_only(sentence_pack):
    # What the DP mechanisms use: bit-for-bit the same whatever the other sentences are.
    sentences = list(sentence_pack.reference_sentences)
    together = sentence_pack.encoder.encode(sentences, independent=True)
    alone = np.concatenate([sentence_pack.encoder.encode([s], independent=True) for s in sentences])
    assert np.array_equal(together, alone)
    recoded = sentence_pack.recoder.recode(together, independent=True)
    rows = np.concatenate(
        [sentence_pack.recoder.recode(row[None], independent=True) for row in together]
    )
    assert np.array_equal(recoded, rows)


def test_long_sentences_are_truncated_at_256_tokens(sentence_pack):
    long = "word " * 600
    longer = long + "completely different ending about finance and banking " * 20
    a, b = sentence_pack.encoder.encode([long, longer])
    assert float(a @ b) > 0.9999  # both cut at 256 tokens: the ending is never seen


def test_mean_pooling_ignores_padding_and_normalizes():
    tokens = np.array([[[3.0, 4.0], [100.0, 100.0]], [[0.0, 0.0], [0.0, 0.0]]], dtype=np.float32)
    mask = np.array([[1, 0], [0, 0]])
    pooled = mean_pool_normalize(tokens, mask)
    np.testing.assert_allclose(pooled[0], [0.6, 0.8], rtol=1e-6)
    assert np.all(np.isfinite(pooled[1]))  # clamped denominators: no division by zero


def test_tokenizer_must_behave_like_sentence_transformers(encoder_pack, tmp_path):
    config = json.loads(encoder_pack.manifest.text("tokenizer.json"))
    config["truncation"]["max_length"] = 128
    config["padding"]["strategy"] = {"Fixed": 128}
    bad = tmp_path / "tokenizer.json"
    bad.write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(AssetError, match="truncate at 256"):
        SentenceEncoder(encoder_pack.encoder_path, bad, dims=384, max_seq_length=256, threads=1)


def test_bad_sentences_are_clear_errors(sentence_pack):
    with pytest.raises(InputError, match="not a single string"):
        sentence_pack.encoder.encode("a string")
    with pytest.raises(InputError, match="bytes"):
        sentence_pack.encoder.encode([b"bytes"])


SCRIPT = """
import json, sys
import edgedp
pack = edgedp.load_pack("sentences-bbc")
lazy = "onnxruntime" not in sys.modules
out = edgedp.DeepCandidate(pack, epsilon=3.0).embed("A first sentence. And a second one.")
print(json.dumps({"modules": sorted(sys.modules), "lazy": lazy, "dims": len(out)}))
"""


@pytest.mark.native
def test_sentence_path_never_loads_torch_and_loads_onnxruntime_lazily():
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True, timeout=120
    )
    report = json.loads(result.stdout)
    modules = set(report["modules"])
    assert not {name for name in modules if name == "torch" or name.startswith("torch.")}
    assert report["lazy"] and "onnxruntime" in modules and report["dims"] == 384


@pytest.fixture
def three_threads():
    saved = native._threads
    native._threads = 3
    yield
    native._threads = saved


def recording_runs(monkeypatch, encoder):
    """Record the thread of every onnxruntime call of ``encoder``."""
    names = []
    session = encoder._session.get()

    class Recording:
        def run(self, outputs, feeds):
            names.append(threading.current_thread().name)
            return session.run(outputs, feeds)

    monkeypatch.setattr(encoder, "_session", SimpleNamespace(get=Recording))
    return names


@pytest.mark.native
@native_process
def test_worker_threads_share_the_calls_and_change_no_bit(sentence_pack, three_threads):
    # The DP path: one sentence per call, bit for bit what one thread gives, in input order.
    sentences = list(sentence_pack.reference_sentences) * 3
    native._threads = None
    alone = sentence_pack.encoder.encode(sentences, independent=True)
    recoded = sentence_pack.recoder.recode(alone, independent=True)
    native._threads = 3
    assert np.array_equal(sentence_pack.encoder.encode(sentences, independent=True), alone)
    assert np.array_equal(sentence_pack.recoder.recode(alone, independent=True), recoded)
    batched = sentence_pack.encoder.encode(sentences)
    np.testing.assert_allclose(batched, alone, atol=2e-5)
    assert sentence_pack.encoder._session.get().get_session_options().intra_op_num_threads == 1


def test_the_calls_run_on_the_worker_threads(sentence_pack, three_threads, monkeypatch):
    names = recording_runs(monkeypatch, sentence_pack.encoder)
    sentence_pack.encoder.encode(list(sentence_pack.reference_sentences), independent=True)
    assert len(names) == len(sentence_pack.reference_sentences)
    assert len({name for name in names if name.startswith("edgedp-worker")}) >= 2


@pytest.mark.native
def test_an_encoder_with_its_own_thread_count_runs_its_calls_here(
    sentence_pack, three_threads, monkeypatch
):
    encoder = pack_encoder(sentence_pack, threads=2)
    assert encoder._session.get().get_session_options().intra_op_num_threads == 2
    names = recording_runs(monkeypatch, encoder)
    encoder.encode(["One sentence.", "Another one.", "A third."], independent=True)
    assert names == [threading.current_thread().name] * 3


@pytest.mark.parametrize("threads", [0, -1, 1.5, True])
def test_a_bad_thread_count_is_refused(sentence_pack, threads):
    with pytest.raises(InputError, match="threads"):
        pack_encoder(sentence_pack, threads=threads)
    with pytest.raises(InputError, match="threads"):
        Recoder(sentence_pack.manifest.contents("recoder.onnx"), dims=384, threads=threads)


def test_deepcandidate_releases_the_same_on_worker_threads(sentence_pack, three_threads, seeded):
    documents = [" ".join(sentence_pack.reference_sentences[i : i + 4]) for i in range(0, 12, 2)]
    threaded = edgedp.DeepCandidate(sentence_pack, epsilon=5.0, rng=seeded(3)).embed_batch(
        documents
    )
    native._threads = None
    alone = edgedp.DeepCandidate(sentence_pack, epsilon=5.0, rng=seeded(3)).embed_batch(documents)
    assert np.array_equal(threaded, alone)
