"""The identifier guard: spans that never go through a word mechanism (``protect=``).

A metric-DP word mechanism protects a vocabulary word only up to epsilon * d(w, w'): at a large
epsilon the word itself comes out, so an identifier made of vocabulary words
(``jane.doe@example.com``, a phone number, ``@janedoe``) would be released like any other words.
The guard recognises such spans in the raw text, *before* word splitting, and turns each into one
**protected slot**, which is released through the out-of-vocabulary policy of the mechanism:
a word drawn uniformly from the public vocabulary independently of the span (``oov="sample"``), the
marker ``[OOV]`` (``"mask"``) or nothing (``"drop"``). No character of a protected span, and nothing
computed from it, reaches the output.

Kinds (``protect=`` takes any subset; :data:`DEFAULT_PROTECT` is ``("identifiers",)``):

* ``"identifiers"``: e-mail addresses, URLs (with a scheme, ``www.``, or a host under a common
  top-level domain), ``@handles``, phone numbers, card/IBAN-like groups of digits and capitals,
  numeric dates (``12/03/2024``, ``2024-03-12``; in ``12 March 2024`` the numbers are protected and
  the month name is an ordinary word), and numbers: every token that starts with a digit
  (``42``, ``3.5``, ``1990s``, ``4pm``) or holds two digits or more (``covid19``); a single digit
  after letters (``mp3``) is a word.
* ``"names"``: word slots whose lower-cased form is on a public list of first names and surnames
  (:data:`NAMES_FILE`: the U.S. Census Bureau's 1990 name frequency lists, a U.S. government work
  in the public domain, as distributed in the MIT-licensed ``names`` package 0.3.0: all first
  names and the most frequent surnames). Many are also ordinary words (``will``, ``grace``,
  ``brown``), which then never go through the mechanism either: a utility cost, never a leak.

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
slot however long it is, so its length is hidden beyond that.

**What it does not do.** It is pattern matching, not named-entity recognition: a name that is not
on the list, or an identifier in a format not covered here, is an ordinary word slot and gets the
mechanism's metric-DP guarantee only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache

from edgedp.errors import PrivacyParameterError

#: The kinds of span the guard knows.
PROTECT_KINDS = ("identifiers", "names")
#: The default: identifiers on, names off (see the README for the measured utility cost).
DEFAULT_PROTECT: tuple[str, ...] = ("identifiers",)
#: The public name list (one lower-case name a line; ``#`` lines are comments with its licence).
NAMES_FILE = "names.txt"

# Common top-level domains for hosts written without a scheme (``example.com``, ``bbc.co.uk``).
_TLDS = (
    "com|org|net|edu|gov|mil|int|info|biz|io|ai|app|dev|me|co|uk|us|ca|de|fr|es|it|nl|be|ch|at|"
    "se|no|dk|fi|pl|cz|ru|cn|jp|kr|in|au|nz|br|mx|ar|ie|pt|gr|tv|eu|xyz|online|site|tech"
)
_PATTERNS = {
    # local@host.tld; the local part may hold dots, plus signs, hyphens.
    "email": r"[\w.%+\-]*\w@\w[\w\-]*(?:\.[\w\-]+)+",
    # scheme:// or www. up to whitespace, not ending in punctuation that closes a sentence.
    "url": (
        r"(?:[a-zA-Z][a-zA-Z0-9+.\-]*://|www\.)[^\s<>\"']*[^\s<>\"'.,;:!?)\]}]"
        rf"|\w[\w\-]*(?:\.\w[\w\-]*)*\.(?:{_TLDS})(?![\w\-])(?:/[^\s<>\"']*[^\s<>\"'.,;:!?)\]}}])?"
    ),
    # @name (not the @ of an e-mail address: no word character before it).
    "handle": r"(?<![\w@.])@\w(?:[\w.]*\w)?",
    # IBAN: two capitals, two digits, then groups of capitals and digits (optionally spaced).
    "iban": r"[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![\w])",
    # Phone, card, date and other digit groups: digits separated by single spaces, dots, slashes
    # or hyphens (at most one separator between groups), with an optional leading + or (area).
    "digits": (
        r"(?:\+|\(\d{1,5}\) ?)?\d+(?:[ ./\-]\d+)+(?![\w])"
        r"|\+\d+(?![\w])"
    ),
    # Any other number-like token: starting with a digit (42, 3.5, 1,000, 1990s, 4pm, 10:30) or
    # holding two digits or more (covid19, ab12cd34); a single digit after letters is a word's
    # (mp3, g8).
    "number": r"(?:\d|\w*\d\w*\d)(?:[\w.,:/\-]*\w)?",
}
# Leftmost match wins; at equal starts the alternatives are tried in this order.
_ORDER = ("email", "url", "handle", "iban", "digits", "number")


@cache
def _identifier_pattern() -> re.Pattern[str]:
    # No match may start inside a word: a span starts at the text's start or after a non-word char.
    body = "|".join(f"(?P<{name}>{_PATTERNS[name]})" for name in _ORDER)
    return re.compile(rf"(?<![\w])(?:{body})")


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


def identifier_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, kind) of every identifier span of ``text``, left to right, non-overlapping.

    Spans never contain a character other than a single ASCII space as whitespace, and a space
    inside a span always follows a digit, a capital letter or ``)`` (digit groups, IBANs,
    ``(555) 123``):
    :mod:`edgedp.words.streaming` relies on it to cut a stream only where no span can straddle.
    """
    for match in _identifier_pattern().finditer(text):
        kind = match.lastgroup or "number"
        yield match.start(), match.end(), kind


@cache
def public_names() -> frozenset[str]:
    """The public first-name and surname list (lower case); see :data:`NAMES_FILE`."""
    from importlib import resources  # ~1 MB resident: only for protect="names" (issue 17)

    text = resources.files("edgedp.text").joinpath(NAMES_FILE).read_text(encoding="utf-8")
    return frozenset(
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")
    )
