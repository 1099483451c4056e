"""The pure-Python WordPiece tokenizer of the numpy tier gives the ids Hugging Face tokenizers gives
for the packs' tokenizer.json: on public text, on every Unicode code point, on random Unicode."""

from __future__ import annotations

import json

import pytest
from corpus_helpers import bbc_articles
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from edgedp.encoder.wordpiece import WordPiece
from edgedp.errors import AssetError

PACKS = ("sentences-bbc", "subspace-general")


@pytest.fixture(scope="module")
def tokenizer_bytes(encoder_pack) -> bytes:
    return encoder_pack.manifest.contents("tokenizer.json")


@pytest.fixture(scope="module")
def both(tokenizer_bytes) -> tuple[WordPiece, Tokenizer]:
    reference = Tokenizer.from_str(tokenizer_bytes.decode("utf-8"))
    reference.no_padding()
    return WordPiece(tokenizer_bytes), reference


def assert_same_ids(both, texts: list[str]) -> None:
    ours, reference = both
    expected = [encoding.ids for encoding in reference.encode_batch(texts)]
    for text, theirs in zip(texts, expected, strict=True):
        assert ours.encode(text) == theirs, text[:200]


def test_the_packs_reference_sentences_and_bbc_news(both, sentence_pack):
    articles = bbc_articles()[::5]  # 445 whole articles: most are cut at 256 tokens
    lines = [line for article in articles for line in article.split("\n") if line.strip()]
    assert_same_ids(both, [*sentence_pack.reference_sentences, *articles, *lines])
    assert max(len(row.ids) for row in both[0].encode_batch(articles)) == 256


def test_every_code_point_as_tokenizers_does(both):
    # tokenizers uses Unicode 9 category tables: wordpiece's table of differences must be exact.
    # Every assigned code point (planes 0-3 and 14); a sample of the unassigned and private use.
    ours, reference = both
    ours.max_length, reference_truncation = None, reference.truncation
    reference.no_truncation()
    try:
        points = [
            c
            for c in range(0x110000)
            if not 0xD800 <= c <= 0xDFFF and (c < 0x32000 or 0xE0000 <= c < 0xE1000 or c % 97 == 0)
        ]
        for start in range(0, len(points), 2048):
            chunk = " ".join(f"a{chr(c)}b" for c in points[start : start + 2048])
            assert ours.encode(chunk) == reference.encode(chunk).ids, hex(points[start])
    finally:
        ours.max_length = 256
        reference.enable_truncation(reference_truncation["max_length"])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=40),
            st.text(alphabet=st.characters(max_codepoint=0x2FF), max_size=40),
            st.sampled_from(["[CLS]", "[MASK]", "[SEP]", "[cls]", "ΟΔΟΣ", "İstanbul", "x" * 101]),
        ),
        max_size=8,
    )
)
def test_random_unicode(both, pieces):
    assert_same_ids(both, ["".join(pieces), " ".join(pieces)])


def test_padding_and_masks_as_tokenizers(both, tokenizer_bytes):
    ours = WordPiece(tokenizer_bytes)
    reference = Tokenizer.from_str(tokenizer_bytes.decode("utf-8"))
    texts = ["Short.", "A somewhat longer sentence, with punctuation!", ""]
    for mine, theirs in zip(ours.encode_batch(texts), reference.encode_batch(texts), strict=True):
        assert (mine.ids, mine.attention_mask, mine.type_ids) == (
            theirs.ids,
            theirs.attention_mask,
            theirs.type_ids,
        )
    assert ours.truncation == {"max_length": 256} and ours.padding["length"] is None


@pytest.mark.parametrize(
    "change",
    [
        lambda config: config.update(model={**config["model"], "type": "BPE"}),
        lambda config: config["truncation"].update(direction="Left"),
        lambda config: config.pop("normalizer"),
    ],
)
def test_other_tokenizers_are_refused(tokenizer_bytes, change):
    config = json.loads(tokenizer_bytes)
    change(config)
    with pytest.raises(AssetError, match="tokenizer"):
        WordPiece(json.dumps(config).encode())
    with pytest.raises(AssetError, match="not a BERT WordPiece"):
        WordPiece(b"\xff not json")
