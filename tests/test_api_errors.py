"""The Python API raises its documented errors (issue 14, section 5): never a TypeError or an
OverflowError from deep inside, whatever is passed."""

from __future__ import annotations

import pytest

import edgedp
from edgedp.errors import InputError, PrivacyParameterError


class TestBatches:
    """A batch is an iterable of texts or documents; anything else is an InputError."""

    @pytest.mark.parametrize("bad", [None, 5, 3.5, object(), "one text", b"bytes"])
    def test_word_mechanisms(self, default_pack, bad):
        with pytest.raises(InputError, match="privatize_batch takes an iterable of texts"):
            edgedp.BRR(default_pack, epsilon=0.6).privatize_batch(bad)

    @pytest.mark.parametrize("bad", [None, 5, "one document"])
    def test_document_mechanisms(self, sentence_pack, bad):
        with pytest.raises(InputError, match="embed_batch takes an iterable of documents"):
            edgedp.DeepCandidate(sentence_pack, epsilon=3.0).embed_batch(bad)

    @pytest.mark.parametrize("bad", [None, 5])
    def test_items_of_a_batch(self, default_pack, bad):
        with pytest.raises(InputError, match="text must be str"):
            edgedp.BRR(default_pack, epsilon=0.6).privatize_batch(["fine", bad])


class TestPrivacyParameters:
    """Every epsilon the API accepts is a finite real > 0; the rest is a PrivacyParameterError."""

    @pytest.mark.parametrize(
        "epsilon", [10**400, -(10**400), float("inf"), float("nan"), 0, -1.0, "1", None, True]
    )
    def test_epsilon(self, default_pack, epsilon):
        with pytest.raises(PrivacyParameterError):
            edgedp.BRR(default_pack, epsilon=epsilon)

    def test_a_huge_integer_is_named_not_converted(self, default_pack):
        with pytest.raises(PrivacyParameterError, match="401-digit"):
            edgedp.BRR(default_pack, epsilon=10**400)
