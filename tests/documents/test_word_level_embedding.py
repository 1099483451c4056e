"""Word-level baseline and the NOT PRIVATE mean: what they release and how they are labelled."""

from __future__ import annotations

import numpy as np
import pytest

import edgedp
from edgedp.errors import InputError

TEXT = "Jane Zorbulak was admitted on Monday. The doctor said she is doing well."


def test_word_level_privatizes_then_embeds(sentence_pack, default_pack, seeded):
    brr = edgedp.BRR(default_pack, epsilon=0.5, rng=seeded(0))
    mechanism = edgedp.WordLevelEmbedding(sentence_pack, brr)
    privatized = mechanism.privatized_sentences(TEXT)
    assert privatized and "zorbulak" not in " ".join(privatized).lower()
    encoded = sentence_pack.encoder.encode(privatized).mean(axis=0)
    np.testing.assert_allclose(
        edgedp.WordLevelEmbedding(
            sentence_pack, edgedp.BRR(default_pack, epsilon=0.5, rng=seeded(0))
        ).embed(TEXT),
        encoded,
        rtol=1e-5,
        atol=1e-6,
    )
    assert mechanism.epsilon == 0.5 and not mechanism.is_private
    with pytest.raises(InputError, match="word-level mechanism"):
        edgedp.WordLevelEmbedding(sentence_pack, "brr")


def test_non_private_mean_is_labelled(sentence_pack):
    with pytest.warns(edgedp.NotPrivateWarning, match="NOT differentially private"):
        mean = edgedp.NonPrivateMean(sentence_pack)
    assert not mean.is_private and "NOT PRIVATE" in repr(mean)
    sentences = edgedp.text.sentences.split_sentences(TEXT)
    np.testing.assert_allclose(
        mean.embed(TEXT), sentence_pack.encoder.encode(sentences).mean(axis=0), rtol=1e-5, atol=1e-6
    )
    assert np.array_equal(mean.embed(""), np.zeros(sentence_pack.dims, dtype=np.float32))
    with pytest.warns(edgedp.NotPrivateWarning):
        recoded = edgedp.NonPrivateMean(sentence_pack, embedding_space="recoded")
    expected = sentence_pack.recoder.recode(sentence_pack.encoder.encode(sentences)).mean(axis=0)
    np.testing.assert_allclose(recoded.embed(TEXT), expected, rtol=1e-5, atol=1e-6)


def test_non_private_mean_takes_the_old_space_keyword_for_one_release(sentence_pack):
    renamed = pytest.warns(DeprecationWarning, match="space= is renamed embedding_space=")
    with renamed, pytest.warns(edgedp.NotPrivateWarning):
        old = edgedp.NonPrivateMean(sentence_pack, space="recoded")
    assert old.embedding_space == "recoded" and old.parameters() == {"embedding_space": "recoded"}
    with pytest.warns(edgedp.NotPrivateWarning):
        new = edgedp.NonPrivateMean(sentence_pack, embedding_space="recoded")
    assert np.array_equal(old.embed(TEXT), new.embed(TEXT))
    with pytest.raises(InputError, match="space= is the deprecated name of embedding_space="):
        edgedp.NonPrivateMean(sentence_pack, embedding_space="recoded", space="sentence")


def test_embed_batch_takes_a_batch_size_and_shows_progress(sentence_pack, capsys, monkeypatch):
    """sentence-transformers' batch_size and show_progress_bar (issue 34): batches change what is
    held in memory, not the result (the mean is deterministic), and progress is reported."""
    with pytest.warns(edgedp.NotPrivateWarning):
        mean = edgedp.NonPrivateMean(sentence_pack)
    documents = [TEXT, "One more. And another.", "Short text here. Yes.", TEXT, "Last. One."]
    whole = mean.embed_batch(documents)
    monkeypatch.setenv("EDGEDP_PROGRESS", "1")
    batched = mean.embed_batch(documents, batch_size=2, show_progress=True)
    assert batched.shape == whole.shape == (5, sentence_pack.dims) and batched.dtype == np.float32
    np.testing.assert_allclose(batched, whole, rtol=1e-5, atol=1e-6)
    assert "documents embedded: 5 documents of 5 documents (100%)" in capsys.readouterr().err
    assert mean.embed_batch([], batch_size=3).shape == (0, sentence_pack.dims)
    with pytest.raises(InputError, match="batch_size"):
        mean.embed_batch(documents, batch_size=0)
