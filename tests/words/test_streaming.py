"""Streaming: same tokens as whole-text privatization, bounded memory on a giant line."""

from __future__ import annotations

import tracemalloc

import pytest

import edgedp
from edgedp.words.streaming import MAX_TOKEN_CHARS, privatize_stream


@pytest.fixture(scope="module")
def identity(default_pack):
    return edgedp.BRR(default_pack, epsilon=50.0, oov="mask")


def chunks(text: str, size: int):
    return (text[i : i + size] for i in range(0, len(text), size))


@pytest.mark.parametrize("size", [1, 3, 17, 1000])
@pytest.mark.parametrize("casing", ["lower", "sentence"])
def test_stream_equals_whole_text(default_pack, size, casing):
    mechanism = edgedp.BRR(default_pack, epsilon=50.0, oov="mask", casing=casing)
    text = "The cat, the hat!\n\nNo Zyxq here... \t done.\u00a0so it \u201cends\u201d. Now\n" * 20
    streamed = "".join(privatize_stream(mechanism, chunks(text, size), batch_chars=50))
    assert streamed == mechanism.privatize(text)


def test_unicode_whitespace_is_a_cut_point(identity):
    # 2,000 words separated only by no-break and ideographic spaces: far longer than one token may
    # be, yet every word is its own slot, as in whole-text privatization.
    text = "\u00a0".join(["the", "cat\u3000sat"] * 1000)
    streamed = "".join(privatize_stream(identity, chunks(text, 100), batch_chars=500))
    assert streamed == identity.privatize(text)
    assert streamed.split(" ") == ["the", "cat", "sat"] * 1000


def test_giant_token_is_one_oov_replacement_in_bounded_memory(identity):
    head, tail = "start ", " end\n"
    giant = "x" * 5_000_000
    pieces = [head, *chunks(giant, 65536), tail]
    tracemalloc.start()
    out = "".join(privatize_stream(identity, iter(pieces)))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert out == "start [OOV] end\n"
    assert peak < 4 * 65536 + 64 * MAX_TOKEN_CHARS


@pytest.mark.parametrize(
    ("protect", "expected"),
    # With the identifier guard the stream resumes only after whitespace (punctuation may be inside
    # an identifier span), so the comma goes with the skipped slot.
    [((), "a [OOV], the"), (("identifiers",), "a [OOV] the")],
)
def test_giant_token_followed_by_punctuation(default_pack, protect, expected):
    mechanism = edgedp.BRR(default_pack, epsilon=50.0, oov="mask", protect=protect)
    pieces = iter(["a ", "y" * (MAX_TOKEN_CHARS + 5), ", the"])
    assert "".join(privatize_stream(mechanism, pieces)) == expected
