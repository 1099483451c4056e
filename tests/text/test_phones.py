"""Phone numbers are kind ``phone`` (``[PHONE]``); dates, times, money, versions and counts are not."""

from __future__ import annotations

import pytest

import edgedp
from edgedp.text.identifiers import identifier_spans


def spans(text: str) -> list[tuple[str, str]]:
    return [(text[start:end], kind) for start, end, kind in identifier_spans(text)]


@pytest.mark.parametrize(
    "phone",
    [
        "555-0142",  # US, local
        "(555) 014-2000",
        "555-014-2000",
        "555.014.2000",
        "+1 555 014 2000",
        "1-555-014-2000",
        "(555) 123-4567 ext. 23",
        "020 7946 0958",  # UK
        "07700 900123",
        "+44 20 7946 0958",
        "+44 7700 900123",
        "06 12 34 56 78",  # France
        "+33 6 12 34 56 78",
        "030 1234567",  # Germany
        "030/1234567",
        "+49 30 1234567",
        "+91 98765 43210",  # India
        "98765 43210",
        "+234 803 123 4567",  # Nigeria
        "+81 3-1234-5678",  # Japan
    ],
)
def test_phone_numbers_of_the_usual_forms_are_kind_phone(phone):
    assert spans(f"call {phone} now") == [(phone, "phone")]
    assert spans(f"call {phone}.") == [(phone, "phone")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("on 12/03/2024", [("12/03/2024", "digits")]),
        ("on 2024-03-12", [("2024-03-12", "digits")]),
        ("on 03.12.2024", [("03.12.2024", "digits")]),
        ("on 01/02/2024", [("01/02/2024", "digits")]),
        ("at 10:30", [("10:30", "number")]),
        ("from 10:30-11:45", [("10:30-11:45", "number")]),
        ("costs $1,000.50", [("1,000.50", "number")]),
        ("version 2.0.1", [("2.0.1", "digits")]),
        ("in 1990", [("1990", "number")]),
        ("from 1990-1995", [("1990-1995", "digits")]),
        ("1,000,000 people", [("1,000,000", "number")]),
        ("card 4111 1111 1111 1111", [("4111 1111 1111 1111", "digits")]),
        ("zip 20500-0003", [("20500-0003", "digits")]),
        ("pages 12-13", [("12-13", "digits")]),
        ("pages 100-2000", [("100-2000", "digits")]),
        ("won 3-2", [("3-2", "digits")]),
        ("only +44", [("+44", "digits")]),
    ],
)
def test_dates_times_money_versions_and_counts_are_not_phones(text, expected):
    assert spans(text) == expected


def test_a_phone_number_is_released_as_phone(default_pack):
    brr = edgedp.BRR(default_pack, epsilon=50.0, oov="placeholder", protect=("identifiers",))
    assert brr.privatize("call 555-0142 or 020 7946 0958") == "call [PHONE] or [PHONE]"
