"""Emoji recognition: every emoji (sequences as one) is a slot of its own, of kind ``emoji``."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgedp.text.emoji import (
    EMOJI,
    emoji_pattern,
    filler_emoji,
    has_emoji,
    is_emoji,
    split_emoji,
)
from edgedp.text.identifiers import DEFAULT_PROTECT
from edgedp.text.segmentation import segment

ZWJ = "\u200d"
VS16 = "\ufe0f"
SEQUENCES = {
    "family (ZWJ)": f"\U0001f469{ZWJ}\U0001f469{ZWJ}\U0001f467",
    "rainbow flag (ZWJ, VS16)": f"\U0001f3f3{VS16}{ZWJ}\U0001f308",
    "thumbs up, medium skin tone": "\U0001f44d\U0001f3fd",
    "health worker, dark skin tone": f"\U0001f9d1\U0001f3ff{ZWJ}\u2695{VS16}",
    "country flag (regional indicators)": "\U0001f1f3\U0001f1ec",
    "Scotland (tag sequence)": "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
    "heart (text default + VS16)": f"\u2764{VS16}",
    "heart on fire": f"\u2764{VS16}{ZWJ}\U0001f525",
    "red hair": f"\U0001f9d1{ZWJ}\U0001f9b0",
    "lone skin tone": "\U0001f3fd",
    "emoji newer than the table (reserved pictographic)": "\U0001fae8",
}


@pytest.mark.parametrize("name", SEQUENCES)
def test_a_sequence_is_one_emoji(name):
    sequence = SEQUENCES[name]
    assert is_emoji(sequence)
    segmented = segment(f"so {sequence} ok")
    assert segmented.words[1] == unicodedata.normalize("NFKC", sequence)
    assert dict(segmented.kinds) == {1: EMOJI}


def test_emoji_are_cut_out_of_words_and_never_merge():
    segmented = segment("yay\U0001f389!! \U0001f602\U0001f602\U0001f602 l\u2764\ufe0fu")
    assert segmented.words == (
        *("yay", "\U0001f389"),
        *("\U0001f602", "\U0001f602", "\U0001f602"),
        *("l", "\u2764\ufe0f", "u"),
    )
    assert {index for index, kind in segmented.kinds.items() if kind == EMOJI} == {1, 2, 3, 4, 6}
    # adjacent slots, no separator between them: the layout is unchanged
    assert segmented.pieces == (None, None, "!", "!", " ", None, None, None, " ", None, None, None)


def test_emoji_slots_whatever_the_guard_and_beside_identifiers():
    for protect in ((), DEFAULT_PROTECT):
        segmented = segment(
            "call \U0001f4de555-0142 \U0001f44b\U0001f3fd maria", frozenset(protect)
        )
        emoji = [segmented.words[index] for index, kind in segmented.kinds.items() if kind == EMOJI]
        assert emoji == ["\U0001f4de", "\U0001f44b\U0001f3fd"]
    guarded = segment(
        "call \U0001f4de555-0142 \U0001f44b\U0001f3fd maria", frozenset(DEFAULT_PROTECT)
    )
    assert guarded.kinds[2] == "phone" and guarded.kinds[4] == "name"


def test_keycaps_leave_no_emoji_part_in_a_word():
    # "#" is public punctuation and the guard takes a digit as a number; the keycap's marks are an
    # emoji slot, never part of a word
    assert is_emoji("#\ufe0f\u20e3")
    segmented = segment("press 1\ufe0f\u20e3 or #\ufe0f\u20e3", frozenset(DEFAULT_PROTECT))
    assert dict(segmented.kinds) == {1: "number", 2: EMOJI, 4: EMOJI}
    assert segmented.pieces[-2:] == ("#", None)


def test_plain_text_takes_the_fast_path_and_is_unchanged():
    tokens = [("plain", 0, 5, ""), ("text", 6, 10, "")]
    assert split_emoji("plain text", tokens) is tokens
    assert not has_emoji("Hello, world! :) <3 \u00a3 \u2713 \u00b6 \u4e2d\u6587 \u0645")
    assert has_emoji("\u00a9") and has_emoji("x\ufe0f\u20e3")


def test_every_start_character_alone_is_an_emoji_slot():
    starts = {chr(point) for point in range(0x80, 0x110000) if has_emoji(chr(point))}
    assert len(starts) > 3000
    for char in sorted(starts)[::7]:  # a seventh of them, fast; all of them start an emoji
        segmented = segment(f"a {char} b")
        assert dict(segmented.kinds) == {1: EMOJI}, hex(ord(char))


def test_filler_emoji_are_public_single_emoji_that_make_nothing_up():
    filler = filler_emoji()
    assert 300 <= len(filler) <= 400
    assert len(set(filler)) == len(filler)
    for emoji in filler:
        assert len(emoji) == 1 and is_emoji(emoji)
        assert not 0x1F1E6 <= ord(emoji) <= 0x1F1FF  # no country flag
        name = unicodedata.name(emoji).lower()
        for word in (
            "face",
            "digit",
            "letter",
            "person",
            "man",
            "woman",
            "heart",
            "pray",
            "pistol",
        ):
            assert word not in name.split(), name
    assert "\U0001f419" in filler and "\U0001f602" not in filler  # octopus in, tears of joy out


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from([*SEQUENCES.values(), " ", "x", "yay", "!", "#", ZWJ, VS16, "1"]),
            st.text(max_size=3),
        ),
        max_size=12,
    ).map("".join),
    st.sampled_from([(), DEFAULT_PROTECT]),
)
def test_no_emoji_reaches_a_word_slot(text, protect):
    segmented = segment(text, frozenset(protect))
    for index, (start, end) in enumerate(segmented.spans):
        if segmented.kinds.get(index) == EMOJI:
            assert emoji_pattern().fullmatch(text[start:end])
        elif not segmented.kinds.get(index):  # a word the mechanism may release
            assert not has_emoji(text[start:end]), text[start:end]
