"""English sentence boundaries within one line, by public rules in pure Python (the numpy tier).

A run of ``.``, ``!``, ``?`` or ``…`` followed by whitespace ends a sentence; closing quotes and
brackets right after it stay with the sentence. It does not end one:

* inside a quotation or brackets, unless it ends them (``"Stop!" Then``) or the quotation's mark is
  the next one's opening (``he said: "No. "Never."``, news text's quotation across paragraphs);
* before a lower-case word (``Wait... what?``, ``"Stop!" and ...``, ``Kerrang! magazine``);
* after a title (``Dr.``); after an abbreviation (``etc.``, ``Jan.``), an initial
  (``J. K. Rowling``) or a dotted acronym (``U.S.``) only if a sentence opener follows (``The``);
* within a token: decimals, versions, e-mail addresses and URLs (``3.50``, ``v1.2``, ``bbc.co.uk``).

Straight double quotes pair up in order, and only in a line with an even number of them, as
sentencex pairs them. Every step is linear in the length of the line.
"""

from __future__ import annotations

import heapq
import itertools
import re

_TERMINATOR = re.compile(r"[.!?\u2026]+")
_NEXT_WORD = re.compile(r"\s+(\S*)")
_CLOSERS = frozenset("\"')]}\u201d\u2019\u00bb")
_OPENERS = "\"'([{\u201c\u2018\u00ab"
_BRACKETS = re.compile(r"\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}")
_QUOTE_MARK = re.compile("[\"'\u201c\u201d\u2018\u2019\u00ab\u00bb]")
_ACRONYM = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]|[A-Z]")
#: Followed by a name, never by the end of a sentence.
_TITLES = frozenset({
    "mr", "mrs", "ms", "mx", "messrs", "dr", "prof", "rev", "revd", "hon", "gen", "lt", "col",
    "maj", "capt", "cmdr", "sgt", "cpl", "gov", "sen", "rep", "pres", "supt", "insp", "det", "adm",
    "brig", "fr", "mt", "ft", "mme", "mlle",
})  # fmt: skip
#: Abbreviations that end a sentence only before a sentence opener.
_ABBREVIATIONS = frozenset({
    "st", "jr", "sr", "esq", "inc", "ltd", "corp", "co", "bros", "dept", "univ", "assn", "est",
    "approx", "vs", "etc", "al", "cf", "viz", "ca", "fig", "figs", "vol", "vols", "pp", "ed", "eds",
    "ch", "op", "cit", "ibid", "ave", "rd", "blvd", "hrs", "yr", "yrs", "jan", "feb", "mar", "apr",
    "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "mon", "tue", "tues", "wed", "thu",
    "thur", "thurs", "fri", "sat", "sun",
})  # fmt: skip
#: Capitalized words that open sentences far more often than they follow an abbreviation.
_OPENING_WORDS = frozenset({
    "A", "About", "According", "After", "Again", "All", "Also", "Although", "An", "And", "Another",
    "Any", "As", "At", "Because", "Before", "Besides", "Both", "But", "By", "Can", "Despite", "Did",
    "Do", "Does", "During", "Each", "Earlier", "Even", "Every", "Finally", "First", "For", "From",
    "He", "Her", "Here", "His", "How", "However", "I", "If", "In", "Indeed", "Instead", "Is", "It",
    "Its", "Last", "Later", "Many", "Meanwhile", "More", "Most", "My", "No", "Not", "Now", "Of",
    "On", "Once", "One", "Only", "Or", "Other", "Our", "Perhaps", "Several", "She", "Since", "So",
    "Some", "Still", "Such", "That", "The", "Their", "Then", "There", "These", "They", "This",
    "Those", "Thus", "To", "Today", "Two", "Under", "Until", "We", "What", "When", "Where",
    "Whether", "Which", "While", "Who", "Why", "With", "Yesterday", "Yet", "You",
})  # fmt: skip


def split_line(line: str) -> list[str]:
    """The sentences of one line of text, stripped, in order."""
    spans = sorted(_quotations(line) + [match.span() for match in _BRACKETS.finditer(line)])
    open_spans: list[tuple[int, int]] = []  # (end, start) of spans begun before the terminator
    taken = 0
    cuts = [0]
    for match in _TERMINATOR.finditer(line):
        start, stop = match.span()
        while stop < len(line) and line[stop] in _CLOSERS:
            stop += 1
        following = _NEXT_WORD.match(line, stop)
        if following is None or not following.group(1) or following.group(1)[0].islower():
            continue
        while taken < len(spans) and spans[taken][0] < start:
            heapq.heappush(open_spans, (spans[taken][1], spans[taken][0]))
            taken += 1
        while open_spans and open_spans[0][0] <= start:
            heapq.heappop(open_spans)
        if any(end - 1 > following.start(1) for end, _ in open_spans):
            continue  # inside a quotation or brackets that go on after the next word's start
        if match.group() == "." and _abbreviated(line, start, following.group(1)):
            continue
        cuts.append(stop)
    cuts.append(len(line))
    return [part for a, b in itertools.pairwise(cuts) if (part := line[a:b].strip())]


def _quotations(line: str) -> list[tuple[int, int]]:
    """Spans of the quotations in ``line``, quotation marks included."""
    spans: list[tuple[int, int]] = []
    straight = [match.start() for match in re.finditer('"', line)]
    if len(straight) % 2 == 0:
        spans += [(a, b + 1) for a, b in zip(straight[::2], straight[1::2], strict=True)]
    double = single = -1  # where the open curly double and single quotations begin
    for match in _QUOTE_MARK.finditer(line):
        mark, at = match.group(), match.start()
        before = line[at - 1] if at else " "
        after = line[at + 1] if at + 1 < len(line) else " "
        if mark in "\u201c\u00ab":
            double = at
        elif mark in "\u201d\u00bb" and double >= 0:
            spans.append((double, at + 1))
            double = -1
        elif mark in "'\u2018" and not (before.isalnum() or before == "_") and after.isalnum():
            single = at
        elif mark in "'\u2019" and single >= 0 and not (after.isalnum() or after == "_"):
            spans.append((single, at + 1))
            single = -1
    return spans


def _abbreviated(line: str, stop: int, following: str) -> bool:
    """Whether the full stop at ``stop`` marks an abbreviation rather than a sentence's end."""
    begin = stop
    while begin and not line[begin - 1].isspace():
        begin -= 1
    token = line[begin:stop].lstrip(_OPENERS)
    word = "" if len(token) > 1 and token.isupper() else token.lower()  # MS, CO: not Ms., Co.
    if word in _TITLES:
        return True
    if word == "no":  # No. 10
        return following[0].isdigit()
    if word in _ABBREVIATIONS or _ACRONYM.fullmatch(token):
        return following.strip(_OPENERS) not in _OPENING_WORDS
    return False
