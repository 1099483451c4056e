"""Splitting and reassembly: the layout passes through, words become slots, nothing else leaks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from edgedp.errors import InputError
from edgedp.text import (
    PASS_THROUGH_PUNCTUATION,
    PASS_THROUGH_WHITESPACE,
    assemble,
    check_text,
    normalize_word,
    segment,
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
