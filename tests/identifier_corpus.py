"""A generated corpus of identifiers in many formats, built from vocabulary words, for the
identifier guard's leak test (tests/text/test_identifier_corpus.py).

The formats follow the pattern entity types of Microsoft Presidio's predefined recognizers
(https://microsoft.github.io/presidio/supported_entities/) per locale, plus the formats issue 27
found leaking; the letters of each identifier are vocabulary words wherever the format allows, so
that a leak is visible as a released vocabulary word. Each identifier is glued to punctuation or
quotes inside a sentence.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from edgedp.text.identifiers import TLDS_FILE, data_lines, iban_checksum_ok

Generator = Callable[["Parts"], str]


@dataclass
class Parts:
    """Random material for one identifier: vocabulary words and digits from a seeded generator."""

    rng: np.random.Generator
    words: list[str]
    short: list[str]  # vocabulary words of 2-4 letters
    hex_words: list[str]  # vocabulary words made only of a-f, 2-4 letters
    tlds: list[str]

    def __post_init__(self) -> None:
        # rng.choice turns a list into an array on every call (most of the corpus's time): turn
        # each pool into one array once; the draws, and so the corpus, are the same
        self._words = np.asarray(self.words)
        self._short = {None: np.asarray(self.short)} | {
            length: np.asarray([w for w in self.short if len(w) == length]) for length in (2, 3, 4)
        }

    def word(self) -> str:
        return str(self.rng.choice(self._words))

    def short_word(self, length: int | None = None) -> str:
        return str(self.rng.choice(self._short[length]))

    def digits(self, count: int) -> str:
        return "".join(self.rng.choice(list(string.digits), count))

    def hex_group(self, length: int) -> str:
        fitting = [w for w in self.hex_words if len(w) == length]
        if fitting and self.rng.random() < 0.6:
            return str(self.rng.choice(fitting))
        return "".join(self.rng.choice(list("0123456789abcdef"), length))

    def tld(self) -> str:
        return str(self.rng.choice(self.tlds))

    def pick(self, *options: str) -> str:
        return str(self.rng.choice(options))


def _luhn_complete(body: str) -> str:
    total = 0
    for index, char in enumerate(reversed(body)):
        digit = int(char) * (2 if index % 2 == 0 else 1)
        total += digit - 9 if digit > 9 else digit
    return body + str((10 - total % 10) % 10)


def _iban(parts: Parts, lower: bool) -> str:
    bank = parts.short_word(4).upper()
    basic = bank + parts.digits(14)
    for check in range(100):
        candidate = f"GB{check:02d}{basic}"
        if iban_checksum_ok(candidate):
            break
    grouped = " ".join(candidate[i : i + 4] for i in range(0, len(candidate), 4))
    return grouped.lower() if lower else grouped


def _month(parts: Parts) -> str:
    month = parts.pick(
        "January", "February", "March", "April", "May", "June", "July", "August",
        "September", "October", "November", "December",
    )  # fmt: skip
    return parts.pick(month, month.lower(), month[:3])


def _day(parts: Parts) -> str:
    day = int(parts.rng.integers(1, 29))
    return parts.pick(str(day), f"{day}th" if day > 3 else f"{day}{['st', 'nd', 'rd'][day - 1]}")


def _base58(parts: Parts, length: int) -> str:
    alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
    return "".join(parts.rng.choice(list(alphabet), length))


#: format name -> (Presidio entity type and locale, generator)
FORMATS: dict[str, tuple[str, Generator]] = {
    "e-mail": ("EMAIL_ADDRESS", lambda p: f"{p.word()}.{p.word()}@{p.word()}.com"),
    "e-mail, RFC 5322 local part": (
        "EMAIL_ADDRESS",
        lambda p: p.pick(
            f"{p.word()}.o'{p.word()}@{p.word()}.ie",
            f"{p.word()}!{p.word()}@{p.word()}.org",
            f"{p.word()}+{p.word()}@{p.word()}.net",
            f"{p.word()}&{p.word()}={p.word()}@{p.word()}.co.uk",
        ),
    ),
    "e-mail, quoted local part": (
        "EMAIL_ADDRESS",
        lambda p: f'"{p.word()} {p.word()}"@{p.word()}.com',
    ),
    "e-mail, uncommon TLD": ("EMAIL_ADDRESS", lambda p: f"{p.word()}@{p.word()}.{p.tld()}"),
    "URL with scheme": (
        "URL",
        lambda p: f"https://{p.word()}.org/{p.word()}?{p.word()}={p.word()}#{p.word()}",
    ),
    "URL www.": ("URL", lambda p: f"www.{p.word()}.net/{p.word()}/{p.word()}"),
    "host:port/path?query, no scheme": (
        "URL",
        lambda p: f"{p.word()}.com:{p.digits(4)}/{p.word()}?{p.word()}={p.word()}",
    ),
    "host under a new TLD": ("URL", lambda p: f"{p.word()}.{p.word()}.{p.tld()}"),
    "IPv4 with path": (
        "IP_ADDRESS",
        lambda p: f"10.{p.digits(2)}.{p.digits(1)}.{p.digits(3)}:{p.digits(4)}/{p.word()}",
    ),
    "IPv6": (
        "IP_ADDRESS",
        lambda p: p.pick(
            ":".join(p.hex_group(4) for _ in range(8)),
            f"{p.hex_group(4)}:{p.hex_group(4)}::{p.hex_group(4)}:{p.hex_group(2)}",
            f"fe80::{p.hex_group(4)}:{p.hex_group(4)}%eth0",
        ),
    ),
    "MAC address": (
        "MAC_ADDRESS",
        lambda p: p.pick(":", "-").join(p.hex_group(2) for _ in range(6)),
    ),
    "UUID": (
        "UUID (Presidio: none; issue 27)",
        lambda p: (
            f"{p.hex_group(4)}{p.hex_group(4)}-{p.hex_group(4)}-{p.hex_group(4)}-"
            f"{p.hex_group(4)}-{p.hex_group(4)}{p.hex_group(4)}{p.hex_group(4)}"
        ),
    ),
    "@handle": (
        "handle (issue 27)",
        lambda p: p.pick(f"@{p.word()}_{p.word()}", f"@{p.word()}.{p.word()}"),
    ),
    "fediverse handle": (
        "handle (issue 27)",
        lambda p: f"@{p.word()}@{p.word()}.{p.pick('social', p.tld())}",
    ),
    "u/handle": ("handle (issue 27)", lambda p: f"u/{p.word()}_{p.word()}"),
    "phone, international": (
        "PHONE_NUMBER",
        lambda p: f"+{p.digits(2)} {p.digits(2)} {p.digits(4)} {p.digits(4)}",
    ),
    "phone, US with extension": (
        "PHONE_NUMBER",
        lambda p: f"({p.digits(3)}) {p.digits(3)}-{p.digits(4)} ext. {p.digits(2)}",
    ),
    "phone, vanity": (
        "PHONE_NUMBER",
        lambda p: p.pick(f"1-800-{p.word().upper()}", f"1-800-{p.word()}", f"888-{p.word()}"),
    ),
    "credit card (Luhn)": (
        "CREDIT_CARD",
        lambda p: p.pick(" ", "-").join(
            _luhn_complete("4" + p.digits(14))[i : i + 4] for i in range(0, 16, 4)
        ),
    ),
    "IBAN": ("IBAN_CODE", lambda p: _iban(p, lower=False)),
    "IBAN, lower case": ("IBAN_CODE", lambda p: _iban(p, lower=True)),
    "date, month day year": ("DATE_TIME", lambda p: f"{_month(p)} {_day(p)}, 20{p.digits(2)}"),
    "date, day month year": ("DATE_TIME", lambda p: f"{_day(p)} {_month(p)} 20{p.digits(2)}"),
    "date, day of month": ("DATE_TIME", lambda p: f"{_day(p)} of {_month(p)}"),
    "date, dd-Mon-yyyy": ("DATE_TIME", lambda p: f"{p.rng.integers(10, 29)}-{_month(p)[:3]}-2024"),
    "date, numeric and ISO": (
        "DATE_TIME",
        lambda p: p.pick(
            f"12/0{p.digits(1)}/2024", f"2024-03-1{p.digits(1)}T10:3{p.digits(1)}:00Z"
        ),
    ),
    "postcode, UK": (
        "UK_POSTCODE",
        lambda p: p.pick("SW1A 1AA", "EC1A 1BB", "W1A 0AX", "M1 1AE", "sw1a 1aa", "b33 8th"),
    ),
    "postcode, US ZIP+4": ("US postcode", lambda p: f"{p.digits(5)}-{p.digits(4)}"),
    "postcode, Canada": ("CA postcode", lambda p: p.pick("K1A 0B1", "k1a 0b1", "H2X 1Y4")),
    "postcode, Netherlands": (
        "NL postcode",
        lambda p: f"{p.rng.integers(2100, 10000)} {p.short_word(2).upper()}",
    ),
    "UK National Insurance": (
        "UK_NINO",
        lambda p: f"{p.short_word(2).upper()} {p.digits(2)} {p.digits(2)} {p.digits(2)} C",
    ),
    "UK vehicle registration": (
        "UK_VEHICLE_REGISTRATION",
        lambda p: p.pick(
            f"{p.short_word(2).upper()}{p.digits(2)} {p.short_word(3).upper()}",
            f"A{p.digits(3)} {p.short_word(3).upper()}",
        ),
    ),
    "Indian vehicle registration": (
        "IN_VEHICLE_REGISTRATION",
        lambda p: (
            f"{p.short_word(2).upper()} {p.digits(2)} {p.short_word(2).upper()} {p.digits(4)}"
        ),
    ),
    "Turkish licence plate": (
        "TR_LICENSE_PLATE",
        lambda p: f"34 {p.short_word(3).upper()} {p.digits(3)}",
    ),
    "German KFZ plate": (
        "DE_KFZ",
        lambda p: (
            f"{p.pick('B', 'M', 'HH')}{p.pick(' ', '-')}{p.short_word(2).upper()} {p.digits(4)}"
        ),
    ),
    "German pension number": (
        "DE_SOCIAL_SECURITY",
        lambda p: f"{p.digits(2)} {p.digits(6)} {p.short_word(2)[0].upper()} {p.digits(3)}",
    ),
    "German commercial register": ("DE_HANDELSREGISTER", lambda p: f"HRB {p.digits(5)}"),
    "US SSN / ITIN": ("US_SSN", lambda p: f"{p.digits(3)}-{p.digits(2)}-{p.digits(4)}"),
    "passport / licence alphanumerics": (
        "US_PASSPORT, UK_PASSPORT, US_DRIVER_LICENSE, ...",
        lambda p: p.pick(
            f"{p.short_word(2).upper()}{p.digits(7)}",
            f"X{p.digits(7)}",
            f"{p.word().upper()[:5]}{p.digits(6)}SM9IJ",
        ),
    ),
    "national ids (IT, ES, IN, SG, FI, KR)": (
        "IT_FISCAL_CODE, ES_NIF, IN_PAN, SG_NRIC_FIN, FI_PERSONAL_IDENTITY_CODE, KR_RRN",
        lambda p: p.pick(
            f"RSSMRA{p.digits(2)}T10A562S",
            f"{p.digits(8)}Z",
            f"ABCDE{p.digits(4)}F",
            f"S{p.digits(7)}D",
            f"{p.digits(6)}-{p.digits(3)}T",
            f"{p.digits(6)}-{p.digits(7)}",
        ),
    ),
    "US MBI": ("US_MBI", lambda p: f"{p.digits(1)}EG4-TE5-MK{p.digits(2)}"),
    "crypto wallet": (
        "CRYPTO",
        lambda p: p.pick(
            "1" + _base58(p, 33),
            "3" + _base58(p, 33),
            "bc1q" + "".join(p.rng.choice(list("023456789acdefghjklmnpqrstuvwxyz"), 38)),
            "0x" + "".join(p.rng.choice(list("0123456789abcdef"), 40)),
        ),
    ),
}

#: How an identifier sits in its sentence: glued to punctuation and quotes.
TEMPLATES = (
    "write to {} please",
    "see ({}) now",
    'he said "{}" and left',
    "it was '{}', they said",
    "open <{}> then",
    "the value [{}] is",
    "ask \u00ab{}\u00bb there",
    "we will use {}.",
    "note: {}; done",
    "call \u201c{}\u201d today",
)


def generated(vocabulary: list[str], per_format: int, seed: int) -> list[tuple[str, str, str]]:
    """(format, identifier, sentence) for ``per_format`` identifiers of every format."""
    rng = np.random.default_rng(seed)
    alphabetic = [w for w in vocabulary[:5000] if w.isalpha() and w.isascii() and len(w) > 2]
    short = [w for w in vocabulary[:20000] if w.isalpha() and w.isascii() and 2 <= len(w) <= 4]
    hex_words = [w for w in short if set(w) <= set("abcdef")]
    tlds = [t for t in data_lines(TLDS_FILE) if t.isalpha() and t.isascii() and len(t) > 3]
    parts = Parts(rng, alphabetic, short, hex_words, tlds)
    out = []
    for name, (_, make) in FORMATS.items():
        for _ in range(per_format):
            identifier = make(parts)
            out.append((name, identifier, str(rng.choice(TEMPLATES)).format(identifier)))
    return out
