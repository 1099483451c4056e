"""Sentence splitting on both tiers: abbreviations, decimals, quotes, ellipses and newlines.

The shared cases hold for sentencex (native tier) and for the rules of
:mod:`edgedp.text.sentence_rules` (numpy tier); the rule cases pin the numpy tier's own choices;
with sentencex out of reach, the automatic choice falls back to the rules.
"""

from __future__ import annotations

import sys

import pytest

from edgedp.errors import DependencyError, InputError
from edgedp.runtime.backend import VARIABLE, backend
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
    (
        "Shares in Acme fell 4% on Monday. The firm, which employs 2,000 people, said profits "
        'were "disappointing". Its chief executive will step down in March.',
        [
            "Shares in Acme fell 4% on Monday.",
            'The firm, which employs 2,000 people, said profits were "disappointing".',
            "Its chief executive will step down in March.",
        ],
    ),
]

RULE_CASES = [
    ("J. K. Rowling wrote it. Then Dr. Who came.", ["J. K. Rowling wrote it.", "Then Dr. Who came."]),
    ("He moved to the U.S. He liked it.", ["He moved to the U.S.", "He liked it."]),
    ("We met at 5 p.m. on Friday, e.g. after work.", ["We met at 5 p.m. on Friday, e.g. after work."]),
    ("Apples, pears etc. were sold. Prices fell.", ["Apples, pears etc. were sold.", "Prices fell."]),
    (
        "Write to jane.doe@mail.example.org. Or see https://example.org/a.b?x=1. Thanks.",
        ["Write to jane.doe@mail.example.org.", "Or see https://example.org/a.b?x=1.", "Thanks."],
    ),
    ("Try v1.2 today. It is 3.50 cheaper.", ["Try v1.2 today.", "It is 3.50 cheaper."]),
    ("Really?! Yes. Wow!!! Done", ["Really?!", "Yes.", "Wow!!!", "Done"]),
    ("(He left early.) Then she came.", ["(He left early.)", "Then she came."]),
    ("He left (see Fig. 3. It was late.) at noon.", ["He left (see Fig. 3. It was late.) at noon."]),
    ('"Go now. Please," she said. He went.', ['"Go now. Please," she said.', "He went."]),
    ("Kerrang! readers voted. Wham! topped it.", ["Kerrang! readers voted.", "Wham! topped it."]),
    ("He is at No. 10 now. I said no. Then left.", ["He is at No. 10 now.", "I said no.", "Then left."]),
    ("Patients with MS. Doctors agree.", ["Patients with MS.", "Doctors agree."]),
    ("Acme Co. Ltd. said so. Profits rose.", ["Acme Co. Ltd. said so.", "Profits rose."]),
    (
        'He said: "We lost. "We will be back."',  # a quotation across paragraphs, as news text has it
        ['He said: "We lost.', '"We will be back."'],
    ),
    ("It was 'a bad day. Truly' for us. Next.", ["It was 'a bad day. Truly' for us.", "Next."]),
    ("Odd \"quote. Here it is. Fine", ['Odd "quote.', "Here it is.", "Fine"]),
]  # fmt: skip


@pytest.fixture(params=["native", "numpy"])
def tier(request, monkeypatch):
    """Each tier in turn (the native one where sentencex is installed)."""
    if request.param == "native":
        pytest.importorskip("sentencex")
    monkeypatch.setenv(VARIABLE, request.param)
    assert backend("sentences") == request.param
    return request.param


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_split(tier, text, expected):
    assert split_sentences(text) == expected


@pytest.mark.parametrize(("text", "expected"), RULE_CASES)
def test_rules(monkeypatch, text, expected):
    monkeypatch.setenv(VARIABLE, "numpy")
    assert split_sentences(text) == expected


@pytest.mark.parametrize("text", ["", "   \n\t\n", "\r\n"])
def test_blank_documents_have_no_sentences(tier, text):
    assert split_sentences(text) == []


def test_bad_input_is_rejected(tier):
    with pytest.raises(InputError):
        split_sentences(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(InputError):
        split_sentences("bad \udc80 surrogate")


def test_without_sentencex_the_automatic_choice_is_the_rules(monkeypatch):
    monkeypatch.delenv(VARIABLE, raising=False)
    monkeypatch.setitem(sys.modules, "sentencex", None)  # as on a phone: no wheel
    assert backend("sentences") == "numpy"
    text, expected = CASES[0]
    assert split_sentences(text) == expected
    assert split_sentences("Doctors met. They agreed.\nA new line") == [
        "Doctors met.",
        "They agreed.",
        "A new line",
    ]
    monkeypatch.setenv(VARIABLE, "native")
    with pytest.raises(DependencyError, match="sentencex"):
        split_sentences(text)


def test_the_rules_split_english_only(monkeypatch):
    monkeypatch.setenv(VARIABLE, "numpy")
    with pytest.raises(DependencyError, match="'de' needs sentencex"):
        split_sentences("Guten Tag. Wie geht's?", language="de")
