"""Splitting and reassembly: the layout passes through, words become slots, nothing else leaks."""

from __future__ import annotations

import pytest
from helpers import reference_splitter
from hypothesis import given, settings
from hypothesis import strategies as st

from edgedp.errors import InputError
from edgedp.text.identifiers import protected_spans
from edgedp.text.segmentation import (
    PASS_THROUGH_PUNCTUATION,
    PASS_THROUGH_WHITESPACE,
    SPLITTING_WHITESPACE,
    Segmented,
    assemble,
    check_text,
    normalize_word,
    segment,
    slots,
)


def test_segment_keeps_layout_and_isolates_words():
    text = "Hello,  world!\n\tIt's 12 o'clock…"
    seg = segment(text)
    assert seg.words == ("hello", "world", "it", "s", "12", "o", "clock")
    assert assemble(seg, list(seg.words)) == "hello,  world!\n\tit's 12 o'clock…"


def test_unusual_whitespace_is_released_as_plain_space():
    seg = segment("a\u00a0b\u3000c\u2003d")
    assert assemble(seg, ["w", "x", "y", "z"]) == "w x y z"


def test_symbols_and_other_scripts_are_word_slots():
    seg = segment("£5 😀 北京 ‽ x²")
    assert seg.words == ("£5", "😀", "北京", "‽", "x2")
    assert all(piece is None or piece.isspace() for piece in seg.pieces)


def test_adjacent_word_tokens_form_one_slot():
    # "§" is punctuation to the pre-tokenizer but not public: it must not split a slot in two.
    seg = segment("0§ a§b §")
    assert seg.words == ("0§", "a§b", "§")
    assert assemble(seg, ["x", "y", "z"]) == "x y z"


def test_normalization_is_nfkc_lower():
    assert normalize_word("ＣＡＦÉ") == "café"
    assert normalize_word("Straße") == "straße"


def test_drop_and_sentence_casing():
    seg = segment('he said "no." then left. ok')
    replaced = assemble(seg, ["a", "b", "c", "d", "e", None], casing="sentence")
    assert replaced == 'A b "c." D e. '


def test_sentence_case_needs_whitespace_after_the_stop():
    seg = segment("e.g. this")
    assert assemble(seg, ["x", "y", "z"], casing="sentence") == "X.y. Z"


@pytest.mark.parametrize("bad", [b"bytes", 5, None, ["a"]])
def test_non_text_is_rejected(bad):
    with pytest.raises(InputError):
        check_text(bad)


def test_lone_surrogates_and_huge_text_are_rejected():
    with pytest.raises(InputError, match="surrogate"):
        check_text("ok \ud800 no")
    with pytest.raises(InputError, match="more than"):
        check_text("a" * 11, max_chars=10)


def test_assemble_checks_counts_and_casing():
    seg = segment("a b")
    with pytest.raises(InputError):
        assemble(seg, ["x"])
    with pytest.raises(InputError):
        assemble(seg, ["x", "y"], casing="upper")


@given(st.text())
def test_everything_outside_word_slots_is_public(text):
    seg = segment(text)
    for piece in seg.pieces:
        if piece is not None:
            assert all(
                char in PASS_THROUGH_WHITESPACE or char in PASS_THROUGH_PUNCTUATION
                for char in piece
            )
    # the slots and separators reproduce the text exactly when words are put back (modulo case and
    # normalization, and unusual whitespace)
    assert len(seg.words) == sum(piece is None for piece in seg.pieces)


# -- the splitter against tokenizers, which edgedp.text.segmentation split with until issue 17 ----

ALL_CHARACTERS = "".join(chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF)


def test_splitting_whitespace_is_what_tokenizers_splits_at_over_every_code_point():
    # every character between two letters: tokenizers drops exactly SPLITTING_WHITESPACE and
    # isolates every pass-through character (Unicode punctuation as tokenizers sees it)
    text = "a" + "a".join(ALL_CHARACTERS) + "a"
    covered = bytearray(len(text))
    isolated = set()
    for token, (start, end) in reference_splitter().pre_tokenize_str(text):
        covered[start:end] = b"\x01" * (end - start)
        if end - start == 1 and start % 2:
            isolated.add(token)
    dropped = {text[i] for i in range(1, len(text), 2) if not covered[i]}
    assert dropped == SPLITTING_WHITESPACE
    assert isolated >= PASS_THROUGH_PUNCTUATION


def _reference_segment(text: str, protect: frozenset[str]) -> Segmented:
    """``segmentation.segment`` as it was before issue 17: tokenizers' tokens, adjacent ones merged."""
    spans = protected_spans(text, protect)
    tokens, position = [], 0
    for span_start, span_end, kind in (*spans, (len(text), len(text), "")):
        gap = text[position:span_start]
        for token, (start, end) in reference_splitter().pre_tokenize_str(gap):
            tokens.append((token, position + start, position + end, ""))
        if span_end > span_start:
            tokens.append((text[span_start:span_end], span_start, span_end, kind))
        position = span_end
    return slots(text, tokens, protect)


# characters where splitting happens or could go wrong: every splitting whitespace, the pass-through
# punctuation, punctuation that is not passed through (tokenizers isolates it, edgedp keeps it in
# the word), Python-only whitespace, astral characters, identifier material
TRICKY = (
    sorted(SPLITTING_WHITESPACE)
    + sorted(PASS_THROUGH_PUNCTUATION)
    + list("\u00b6\u00a7\u2e2e\u061f\u3001\u300c\u00bf\u00a1\x1c\x1d\x1e\x1f\x00\u200b\ufeff")
    + ["\U0001f600", "\U0001d400", "\u0301", "@", "+44 ", "12", "jane", "doe", ".com", "http://"]
)
FRAGMENTS = st.lists(
    st.one_of(st.sampled_from(TRICKY), st.text(max_size=4), st.sampled_from(["The", "cat", "é"])),
    max_size=40,
).map("".join)


@settings(max_examples=600, deadline=None)
@given(FRAGMENTS, st.sampled_from([(), ("identifiers",), ("identifiers", "names")]))
def test_segment_is_the_tokenizers_segmentation(text, protect):
    assert segment(text, frozenset(protect)) == _reference_segment(text, frozenset(protect))


def test_segment_is_the_tokenizers_segmentation_on_every_code_point():
    for chunk in range(0, len(ALL_CHARACTERS), 4096):
        text = " x".join(ALL_CHARACTERS[chunk : chunk + 4096]) + "yz"
        assert segment(text) == _reference_segment(text, frozenset())
