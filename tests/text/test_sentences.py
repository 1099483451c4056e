"""Sentence splitting: abbreviations, decimals, quotes, ellipses and newlines."""

from __future__ import annotations

import pytest

from edgedp.errors import InputError
from edgedp.text.sentences import split_sentences

CASES = [
    (
        "Dr. Smith paid $3.50 for the U.S. edition. Then he left.",
        ["Dr. Smith paid $3.50 for the U.S. edition.", "Then he left."],
    ),
    (
        'He said "Stop!" and walked away. She laughed.',
        ['He said "Stop!" and walked away.', "She laughed."],
    ),
    ("Wait... what happened? I don't know...", ["Wait... what happened?", "I don't know..."]),
    (
        "A headline without a stop\nSecond line. Third sentence.\n\n\nLast",
        ["A headline without a stop", "Second line.", "Third sentence.", "Last"],
    ),
    (
        "The rate rose 2.5% in Q3. Mr. Brown, of Acme Inc., agreed.",
        ["The rate rose 2.5% in Q3.", "Mr. Brown, of Acme Inc., agreed."],
    ),
    (
        "“Quoted sentence.” Another one! And a third?",
        ["“Quoted sentence.”", "Another one!", "And a third?"],
    ),
    (
        "Version 1.2.3 shipped on Jan. 5. It works.",
        ["Version 1.2.3 shipped on Jan. 5.", "It works."],
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_split(text, expected):
    assert split_sentences(text) == expected


@pytest.mark.parametrize("text", ["", "   \n\t\n", "\r\n"])
def test_blank_documents_have_no_sentences(text):
    assert split_sentences(text) == []


def test_bad_input_is_rejected():
    with pytest.raises(InputError):
        split_sentences(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(InputError):
        split_sentences("bad \udc80 surrogate")
