"""The identifier guard: spans that never go through a word mechanism (``protect=``).

A metric-DP word mechanism protects a vocabulary word only up to epsilon * d(w, w'): at a large
epsilon the word itself comes out, so an identifier made of vocabulary words
(``jane.doe@example.com``, a phone number, ``@janedoe``) would be released like any other words.
The guard recognises such spans in the raw text, *before* word splitting, and turns each into one
**protected slot**, which is released through the out-of-vocabulary policy of the mechanism:
a word drawn uniformly from the public vocabulary independently of the span (``oov="sample"``), the
marker ``[OOV]`` (``"mask"``) or nothing (``"drop"``). No character of a protected span, and nothing
computed from it, reaches the output.

Kinds (``protect=`` takes any subset; :data:`DEFAULT_PROTECT` is all of them: a privacy library
hides names unless told otherwise; ``("identifiers",)`` is the opt-out for text where capitalized
words and common names matter more than the people they may name):

* ``"identifiers"``: the pattern entity types of Microsoft Presidio's predefined recognizers
  (https://microsoft.github.io/presidio/supported_entities/: the global types and the country
  ones of the US, UK, Spain, Italy, Poland, Singapore, Australia, India, Finland, Korea, Nigeria,
  the Philippines, Canada, Sweden, South Africa, Thailand, Turkey and Germany) as the checklist,
  with patterns written here:

  - e-mail addresses with RFC 5322 local parts (``o'neill``, ``!#$%&'*+/=?^`{|}~``, quoted
    ``"john doe"@``), internationalized hosts and ``[ip]`` literals; fediverse handles
    (``@jane@mastodon.social``) and ``@handles``, ``u/name``;
  - URLs with any scheme or ``www.``, and hosts without one under any IANA top-level domain
    (:data:`TLDS_FILE`: ``mastodon.social``, ``x.photography``), IPv4 (and ``localhost``) hosts,
    with their ``:port``, path, query and fragment; IPv6, MAC addresses (``:``, ``-``, ``.``
    notations), UUIDs;
  - phone numbers (digit groups, ``+``, ``(area)``, extensions) and vanity numbers
    (``1-800-FLOWERS``); IBANs in any case (the ISO 13616 mod-97 checksum decides where a
    lower-case one ends: ``gb29 nwbk 6016 1331 9268 19``); dates with month names (``March 12th``,
    ``12 March 2024``, ``12th of March``, ``12-Mar-2024``); postcodes (UK, Canada, Netherlands; US
    ZIP+4 and the others are numbers); national and vehicle identifiers whose letters stand apart
    from the digits (UK National Insurance ``AB 12 34 56 C``, UK/Indian/Turkish/German number
    plates, German pension and commercial-register numbers);
  - numbers: every token that starts with a digit (``42``, ``3.5``, ``1990s``, ``4pm``) or holds
    two digits or more (``covid19``, passport- and licence-like ``X1234567``, ``RSSMRA85T10A562S``,
    crypto addresses, card numbers, SSNs, tax and health numbers of every locale above); a single
    digit after letters (``mp3``) is a word.

  Card numbers need no Luhn check here: every digit group is protected whether it is a card
  number or not, so a checksum would not change any span.
* ``"names"``: word slots whose lower-cased form is on a public list of first names and surnames
  (:data:`NAMES_FILE`: the U.S. Census Bureau's 1990 name frequency lists, a U.S. government work
  in the public domain, as distributed in the MIT-licensed ``names`` package 0.3.0: all first
  names and the most frequent surnames), also glued to an apostrophe (``O'Neill`` is ``oneill``).
  Many are also ordinary words (``will``, ``grace``, ``brown``), which then never go through the
  mechanism either: a utility cost, never a leak.
* ``"proper-nouns"``: capitalized words that need no list of names (see
  :mod:`edgedp.text.segmentation`, which applies it: it depends on where sentences start).

**What this adds to the word-level guarantee.** Inside a protected span, the output does not
depend on the span's content at all: two texts that differ only in the content of protected spans
(with the same spans recognised at the same places) give identical output distributions, i.e. the
content is protected with epsilon = 0, at every epsilon of the mechanism, even for spans made of
vocabulary words. Everything outside the spans keeps the mechanism's epsilon * d metric DP.

**What it reveals beyond it.** Which slots were protected, exactly as for out-of-vocabulary tokens:
with ``"mask"`` and ``"drop"`` the position (and so the fact that *something* there looked like an
identifier) is released outright; with ``"sample"`` a slot holds a uniformly random word instead of
a word near the input, which weakly suggests that it was protected or OOV. Recognition itself
looks at the raw text, so whether a span is protected depends on the text (e.g. ``jane`` is a word
slot in ``jane said`` but part of a protected span in ``jane.doe@example.com``): the pattern of
slots, like the layout (token count, whitespace, punctuation), is released. A protected span is one
slot however long it is, so its length is hidden beyond that. The rules are public and fixed (no
model, no download, no network): recognition is a pure function of the text.

**What it does not do.** It is pattern matching, not named-entity recognition: a name that is not
on the list (and not capitalized, with ``"proper-nouns"``), or an identifier in a format not
covered here, is an ordinary word slot and gets the mechanism's metric-DP guarantee only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path

from edgedp.errors import PrivacyParameterError

#: The kinds of span the guard knows.
PROTECT_KINDS = ("identifiers", "names", "proper-nouns")
#: The default: every kind (names come out of the mechanism only when the user opts out; the README
#: gives the measured cost of each guard).
DEFAULT_PROTECT: tuple[str, ...] = PROTECT_KINDS
#: The public name list (one lower-case name a line; ``#`` lines are comments with its licence).
NAMES_FILE = "names.txt"
#: IANA's top-level domains (one a line, lower case; ``#`` lines are comments with the source).
TLDS_FILE = "tlds.txt"
#: Common English words for ``"proper-nouns"`` (one a line, lower case; ``#`` lines: the source).
COMMON_WORDS_FILE = "common_words.txt"

_MONTH_NAMES = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
]
#: Words after which a protected span may go on past a space (``12th of March``, ``ext. 23``).
_SPAN_WORDS = frozenset([*_MONTH_NAMES, "of", "ext"])


_IPV4 = r"(?:\d{1,3}\.){3}\d{1,3}"


def data_lines(name: str) -> list[str]:
    """The non-comment lines of a data file beside this module (no importlib.resources: it costs
    the word path ~1 MB resident, issue 17)."""
    text = (Path(__file__).resolve().parent / name).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and line[0] != "#"]


def _patterns() -> dict[str, str]:
    """The span kinds and their patterns, in the order tried at one position (leftmost span wins)."""
    hex_ = "[0-9A-Fa-f]"
    label = r"[^\W_][\w\-]*"
    tld = r"(?:[^\W\d_]{2,63}|(?i:xn--)[a-zA-Z0-9\-]+)(?![\w\-])"  # checked: _host_end
    end = r"[^\s<>\"'.,;:!?)\]}]"  # the last character of a URL: not what closes a sentence
    path = rf"(?:/(?:[^\s<>\"]*{end})?|[?#][^\s<>\"]*{end})?"
    month = rf"(?i:{'|'.join(sorted(_MONTH_NAMES, key=len, reverse=True))})(?:\.(?=[ \-/.]?\d))?"
    day = r"(?:[12]\d|3[01]|0?[1-9])(?i:st|nd|rd|th)?"
    year = r"(?:\d{4}|'\d{2})"
    atext = r"[\w!#$%&'*+/=?^`{|}~\-]"
    toll_free = r"8(?:00|33|44|55|66|77|88)"
    return {
        # local@host: dot-atom (RFC 5322 atext: o'neill, a!b, x+tag) or quoted local part;
        # the host: labels, or an address literal [192.0.2.1] / [IPv6:...].
        "email": (
            r"(?=[^\s@]*@|\")"  # quick refusal of the words without an @ (speed only)
            rf"(?:[^\W_]{atext}*(?:\.{atext}+)*|\"[^\"\\\n\r\t]{{1,64}}\")"
            rf"@(?:{label}(?:\.{label})*|\[[0-9A-Za-z:.]+\])"
        ),
        # scheme:// (or a scheme that needs no //), www., up to whitespace.
        "url": (
            r"(?=[a-zA-Z][a-zA-Z0-9+.\-]*:|www\.)"
            r"(?:[a-zA-Z][a-zA-Z0-9+.\-]*://|www\.|(?i:mailto|tel|sms|sip|xmpp|urn|geo|magnet):)"
            rf"[^\s<>\"]*{end}"
        ),
        "mac": (
            rf"(?={hex_}{{2}}[:\-]|{hex_}{{4}}\.)"
            rf"(?:{hex_}{{2}}(?::{hex_}{{2}}){{5,7}}|{hex_}{{2}}(?:-{hex_}{{2}}){{5,7}}"
            rf"|{hex_}{{4}}\.{hex_}{{4}}\.{hex_}{{4}})(?![\w:\-])"
        ),
        "uuid": rf"(?={hex_}{{8}}-){hex_}{{8}}-{hex_}{{4}}-{hex_}{{4}}-{hex_}{{4}}-{hex_}{{12}}(?![\w\-])",
        # IPv6: eight groups, or a compressed form with :: (at least one hex digit somewhere),
        # with an optional zone (%eth0); in brackets with a port.
        "ipv6": (
            rf"(?={hex_}{{0,4}}:|\[)"
            rf"(?:\[(?=[^\]]*{hex_})[0-9A-Fa-f:.]+(?:%[\w.]+)?\](?::\d{{1,5}})?{path}"
            rf"|(?:{hex_}{{1,4}}:){{7}}{hex_}{{1,4}}(?:%[\w.]+)?(?![\w:])"
            rf"|(?=[0-9A-Fa-f:]*{hex_})(?:{hex_}{{1,4}}(?::{hex_}{{1,4}}){{0,6}})?::"
            rf"(?:{hex_}{{1,4}}(?::{hex_}{{1,4}}){{0,6}})?(?:\.\d{{1,3}}){{0,3}}(?:%[\w.]+)?"
            r"(?![\w:]))"
        ),
        # hosts without a scheme, with port, path, query and fragment (example.com:8080/p?q=x).
        "host": (
            r"(?=[\w\-]*[.:])"
            rf"(?:(?:{label}\.)+{tld}|{_IPV4}|(?i:localhost)(?=:\d))(?::\d{{1,5}})?{path}"
            r"(?![\w])"
        ),
        # @name and @name@server (no word character or @ before it); u/name.
        "handle": (
            r"(?<![@.])@[^\W_](?:[\w.\-]*\w)?(?:@[^\W_][\w\-]*(?:\.[^\W_][\w\-]*)+)?"
            r"|u/\w[\w\-]{2,}"
        ),
        # IBAN: country, check digits, groups of four (the checksum decides in lower case).
        "iban": r"(?i:[a-z]{2}\d{2}(?: ?[a-z0-9]{4}){2,7}(?: ?[a-z0-9]{1,3})?)(?![\w])",
        # vanity numbers: a toll-free prefix then letters in any case, or an area code then capitals.
        "vanity": (
            rf"(?:\+?1[\-. ]?)?(?:\({toll_free}\) ?|{toll_free}[\-.])[A-Za-z][A-Za-z0-9]{{2,}}"
            r"(?:-[A-Za-z0-9]+)*(?![\w])"
            r"|(?:\+?1[\-. ]?)?(?:\(\d{3}\) ?|\d{3}[\-.])(?:\d{3}[\-.])?[A-Z]{3,}[A-Z0-9]*"
            r"(?:-[A-Z0-9]+)*(?![\w])"
        ),
        # dates with a month name (a day or a year must stand beside it).
        "date": (
            r"(?=\d|(?i:[adfjmnos]))"
            rf"(?:{day} (?:of )?{month}(?:,? {year})?"
            rf"|{month} {day}(?:,? {year})?"
            rf"|{month},? {year}"
            rf"|{day}[\-/.]{month}(?:[\-/.](?:\d{{4}}|\d{{2}}))?"
            rf"|{month}[\-/.](?:\d{{4}}|\d{{2}}))(?![\w])"
        ),
        # letters that stand apart from the digits (all in capitals): UK National Insurance,
        # UK (current, prefix, suffix), Indian, Turkish and German number plates, German pension
        # and commercial-register numbers, Dutch postcodes.
        "national": (
            r"(?:[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]"
            r"|[A-Z]{2}\d{2} ?[A-Z]{3}|[A-Z]\d{1,3} ?[A-Z]{3}|[A-Z]{3} ?\d{1,3}[A-Z]"
            r"|[A-Z]{2}[ \-]?\d{1,2}[ \-]?[A-Z]{1,3}[ \-]?\d{4}"
            r"|\d{2} ?[A-Z]{1,3} ?\d{2,4}"
            r"|[A-ZÄÖÜ]{1,3}[ \-][A-Z]{1,2} ?\d{1,4}[EH]?"
            r"|\d{2} ?\d{6} ?[A-Z] ?\d{3}"
            r"|HR[AB] ?\d{1,6}"
            r"|(?!19|20)[1-9]\d{3} ?[A-Z]{2})(?![\w])"  # not "2004 UK": years are not postcodes
        ),
        # postcodes whose first part is letters around one digit (UK SW1A 1AA, Canada K1A 0B1).
        "postcode": (r"(?i:[a-z]{1,2}\d[a-z\d]? ?\d[a-z]{2}|[a-z]\d[a-z] ?\d[a-z]\d)(?![\w])"),
        # phone, card, date and other digit groups: digits separated by single spaces, dots,
        # slashes or hyphens, with an optional leading + or (area), and an extension.
        "digits": (
            r"(?:\+|\(\d{1,5}\) ?)?(?:\(\d{1,4}\))?\d+(?:(?:[ ./\-]|[ \-]?\(\d{1,4}\) ?)\d+)+"
            r"(?: ?(?i:ext\.? ?|x)\d{1,6})?(?![\w])"
            r"|\+\d+(?![\w])"
        ),
        # any other number-like token: starting with a digit (42, 3.5, 1,000, 1990s, 4pm, 10:30)
        # or holding two digits or more (covid19, ab12cd34); a single digit after letters is a
        # word's (mp3, g8).
        "number": r"(?=\w*\d)(?:\d|\w*\d\w*\d)(?:[\w.,:/\-]*\w)?",
    }


@cache
def _identifier_pattern(excluded: frozenset[str] = frozenset()) -> re.Pattern[str]:
    # No match may start inside a word: a span starts at the text's start or after a non-word char.
    body = "|".join(
        f"(?P<{name}>{pattern})" for name, pattern in _patterns().items() if name not in excluded
    )
    return re.compile(rf"(?<![\w])(?:{body})")


@cache
def top_level_domains() -> frozenset[str]:
    """IANA's top-level domains, lower case (:data:`TLDS_FILE`)."""
    return frozenset(data_lines(TLDS_FILE))


def check_protect(protect: Iterable[str] | str | None) -> frozenset[str]:
    """The validated set of protected kinds (``None`` or ``()`` for none)."""
    if protect is None:
        return frozenset()
    if isinstance(protect, str):
        protect = (protect,) if protect else ()
    try:
        kinds = frozenset(protect)
    except TypeError:
        raise PrivacyParameterError(
            f"protect must be a collection of {', '.join(PROTECT_KINDS)}, got {protect!r}"
        ) from None
    unknown = sorted(kind for kind in kinds if kind not in PROTECT_KINDS)
    if unknown or not all(isinstance(kind, str) for kind in kinds):
        raise PrivacyParameterError(
            f"unknown protect kind(s) {unknown or sorted(map(repr, kinds))} "
            f"(known: {', '.join(PROTECT_KINDS)})"
        )
    return kinds


def iban_checksum_ok(text: str) -> bool:
    """ISO 13616: the IBAN (spaces ignored, any case) with its first four characters moved to the
    end, letters as 10..35, is 1 modulo 97."""
    compact = text.replace(" ", "").upper()
    if not compact.isalnum() or not compact.isascii():
        return False
    digits = "".join(str(int(char, 36)) for char in compact[4:] + compact[:4])
    return int(digits) % 97 == 1


def _iban_end(candidate: str) -> int | None:
    """Where an IBAN candidate ends: its longest prefix of whole groups that passes the checksum;
    without one, the whole candidate if it has no lower-case letter (capitals and digits in groups
    are identifier-like anyway), else None (not an IBAN)."""
    cuts = [index for index, char in enumerate(candidate) if char == " "] + [len(candidate)]
    for cut in reversed(cuts):
        if len(candidate[:cut].replace(" ", "")) >= 12 and iban_checksum_ok(candidate[:cut]):
            return cut
    return len(candidate) if not any(char.islower() for char in candidate) else None


def _host_end(candidate: str) -> int | None:
    """Where a host candidate (``name.label``, with port and path) ends: after its last label that
    is an IANA top-level domain (``example.com.Then`` ends after ``com``), or None if no label is
    one (``home.Then`` is two words). IPv4 and ``localhost`` hosts need none."""
    host = re.split(r"[:/?#]", candidate, maxsplit=1)[0]
    if re.fullmatch(_IPV4, host) or host.lower() == "localhost":
        return len(candidate)
    labels = host.split(".")
    for count in range(len(labels), 1, -1):
        if labels[count - 1].lower() in top_level_domains():
            return len(candidate) if count == len(labels) else len(".".join(labels[:count]))
    return None


#: Kinds whose candidates a rule beyond the pattern must accept, and where it ends them.
_CHECKED = {"iban": _iban_end, "host": _host_end}


def identifier_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, kind) of every identifier span of ``text``, left to right, non-overlapping.

    At each position the kinds are tried in the order of :func:`_patterns`; a candidate that its
    check refuses (an IBAN that fails its checksum in lower case, a host without a top-level
    domain) gives way to the next kind that matches there.
    Whitespace inside a span is always a single ASCII space that follows a token for which
    :func:`span_may_continue` is true: :mod:`edgedp.words.streaming` relies on it to cut a stream
    only where no span can straddle.
    """
    position = 0
    while (match := _identifier_pattern().search(text, position)) is not None:
        start, excluded = match.start(), frozenset[str]()
        while match is not None:
            kind = match.lastgroup or "number"
            check = _CHECKED.get(kind)
            length = match.end() - start if check is None else check(match.group())
            if length is not None:
                yield start, start + length, kind
                position = start + length
                break
            excluded |= {kind}
            match = _identifier_pattern(excluded).match(text, start)
        else:
            position = start + 1


def span_may_continue(token: str) -> bool:
    """May a protected span hold the space that follows ``token`` (the run of non-whitespace text
    before it)? True after a digit, a capital letter, a double quote or ``)`` anywhere in the
    token, after four letters or digits (an IBAN group), and after a month name, ``of`` or
    ``ext`` (punctuation around them aside); a stream may be cut after any other space
    (:mod:`edgedp.words.streaming`)."""
    if any(char.isdigit() or char.isupper() or char in '")' for char in token):
        return True
    word = re.sub(r"^\W+|\W+$", "", token.lower())  # "(march" and "ext." are march and ext
    return (len(token) == 4 and token.isalnum()) or word in _SPAN_WORDS


@cache
def public_names() -> frozenset[str]:
    """The public first-name and surname list (lower case); see :data:`NAMES_FILE`."""
    return frozenset(data_lines(NAMES_FILE))


_APOSTROPHE_NAME = re.compile(r"(?<![\w'\u2019])[^\W\d_]+['\u2019][^\W\d_]+(?![\w'\u2019])")


def name_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, "name") of the names glued to an apostrophe (``O'Neill``, ``D\u2019Angelo``)
    whose letters, joined, are on the public list: the apostrophe would otherwise split them into
    ordinary words (``o``, ``neill``). Names without an apostrophe are matched per word slot."""
    names = public_names()
    for match in _APOSTROPHE_NAME.finditer(text):
        joined = re.sub("['\u2019]", "", match.group()).lower()
        if joined in names:
            yield match.start(), match.end(), "name"


def protected_spans(text: str, kinds: frozenset[str]) -> list[tuple[int, int, str]]:
    """The spans of ``text`` the guard keeps whole, in order: identifiers, and names glued to an
    apostrophe outside them (with ``"names"``)."""
    spans = list(identifier_spans(text)) if "identifiers" in kinds else []
    if "names" in kinds:
        taken = iter(spans)
        names = []
        current = next(taken, None)
        for start, end, kind in name_spans(text):
            while current is not None and current[1] <= start:
                current = next(taken, None)
            if current is None or end <= current[0]:
                names.append((start, end, kind))
        spans = sorted(spans + names)
    return spans


@cache
def common_words() -> frozenset[str]:
    """Common English words, lower case (:data:`COMMON_WORDS_FILE`): a capitalized word that
    starts a sentence, or an all-capitals one, is a proper noun unless it is one of these."""
    return frozenset(data_lines(COMMON_WORDS_FILE))
