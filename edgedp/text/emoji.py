"""Emoji: which runs of a text are emoji, and the public emoji that replace them.

An emoji is never a word: :func:`~edgedp.text.segmentation.segment` makes each emoji its own slot
of kind :data:`EMOJI` (cut out of the word it is glued to: ``yay🎉`` is the word ``yay`` and an
emoji), and a word mechanism releases it like a protected slot, through the ``oov`` policy, never
through the mechanism (:mod:`edgedp.words.replacements`): with ``oov="sample"`` a uniformly drawn
:func:`filler_emoji`, independent of the emoji typed.

**What is one emoji** (Unicode Technical Standard #51, "possible emoji"): a character that starts
an emoji (Extended_Pictographic, which includes Unicode's reserved pictographic ranges so that
emoji newer than the table are recognised too, Emoji_Presentation or Emoji_Modifier), with its
modifiers (a skin tone, the emoji or text variation selector, a tag sequence: the flags of
England, Scotland, Wales); two regional indicators (a country flag); a keycap; and any of these
joined by zero-width joiners (``👩‍👩‍👧``, ``🏳️‍🌈``). Text is split at whitespace and public
punctuation first, so a keycap's ``#`` or ``*`` passes through as punctuation and its digit is a
number to the identifier guard; the variation selector and keycap mark left over are an emoji slot
of their own, so that no part of an emoji is ever looked up as a word. Adjacent emoji are adjacent
slots (``😂😂😂`` is three).

The table (``emoji.txt`` beside this module) is generated from Unicode's ``emoji-data.txt`` and
``emoji-test.txt`` (Emoji 15.0; the Unicode licence, in its header) by
``python -m bench.utility.emoji_table --write``. Pure data and regular expressions: no
randomness, nothing read from the input beyond the text itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache

from edgedp.text.identifiers import data_lines

#: The slot kind of an emoji in :attr:`edgedp.text.segmentation.Segmented.kinds`.
EMOJI = "emoji"
EMOJI_FILE = "emoji.txt"
_RANGE = re.compile(r"^(start|filler) ([0-9A-F]{4,6})(?:\.\.([0-9A-F]{4,6}))?$")
_REGIONAL = "\U0001f1e6-\U0001f1ff"
#: What may follow an emoji's first character: a skin tone, a variation selector, a tag sequence.
_MODIFIER = "(?:[\U0001f3fb-\U0001f3ff\ufe0e\ufe0f]|[\U000e0020-\U000e007e]+\U000e007f)"
#: Keycap marks and emoji variation selectors: the remnant of a keycap the guard split.
_REMNANT = "\ufe0f\u20e3"


@cache
def _table() -> dict[str, tuple[tuple[int, int], ...]]:
    """The ``start`` and ``filler`` code point ranges of :data:`EMOJI_FILE`."""
    table: dict[str, list[tuple[int, int]]] = {"start": [], "filler": []}
    for line in data_lines(EMOJI_FILE):
        match = _RANGE.match(line)
        if match is None:
            raise ValueError(f"{EMOJI_FILE}: bad line {line!r}")
        first = int(match.group(2), 16)
        table[match.group(1)].append((first, int(match.group(3) or match.group(2), 16)))
    return {key: tuple(ranges) for key, ranges in table.items()}


def _character_class(ranges: Iterable[tuple[int, int]]) -> str:
    return "".join(
        re.escape(chr(first)) + ("" if first == last else "-" + re.escape(chr(last)))
        for first, last in ranges
    )


@cache
def emoji_pattern() -> re.Pattern[str]:
    """One emoji: a sequence of :mod:`the module <edgedp.text.emoji>`'s definition, or a remnant.

    Examples
    --------
    >>> [match.group() for match in emoji_pattern().finditer("ok👍🏽🇳🇬 x")]
    ['👍🏽', '🇳🇬']
    """
    start = _character_class(_table()["start"])
    element = f"(?:[{_REGIONAL}]{{2}}|[0-9#*]\ufe0f?\u20e3|[{start}]{_MODIFIER}*)"
    return re.compile(f"{element}(?:\u200d{element})*|[{_REMNANT}]+")


@cache
def _any_emoji() -> re.Pattern[str]:
    """A character that starts an emoji or a remnant (a quick test before splitting)."""
    return re.compile(f"[{_character_class(_table()['start'])}{_REMNANT}]")


#: Every character that may start an emoji lies in these two ranges (the table's lowest start is
#: U+00A9, then U+00AE and U+203C): one range test per character rules most text out before the
#: exact class, whose many ranges cost ~100 ns per character (bench/reports/2026-11-29-chat-output.md).
_MAYBE_EMOJI = re.compile("[\u00a9\u00ae\u203c-\U0010ffff]")


def has_emoji(text: str) -> bool:
    """Whether ``text`` holds a character that starts an emoji (or a keycap remnant).

    Examples
    --------
    >>> has_emoji("see you 🎉"), has_emoji("see you :)")
    (True, False)
    """
    if text.isascii() or _MAYBE_EMOJI.search(text) is None:
        return False
    return _any_emoji().search(text) is not None


def split_emoji(
    text: str, tokens: Iterable[tuple[str, int, int, str]]
) -> Iterable[tuple[str, int, int, str]]:
    """``tokens`` of ``text`` (token, start, end, kind) with every emoji cut out of the tokens of
    kind ``""`` as a token of its own, of kind :data:`EMOJI`; other tokens unchanged.

    Examples
    --------
    >>> list(split_emoji("yay🎉!", [("yay🎉", 0, 4, ""), ("!", 4, 5, "")]))
    [('yay', 0, 3, ''), ('🎉', 3, 4, 'emoji'), ('!', 4, 5, '')]
    """
    if not has_emoji(text):
        return tokens
    return _split(tokens)


def _split(tokens: Iterable[tuple[str, int, int, str]]) -> Iterator[tuple[str, int, int, str]]:
    pattern = emoji_pattern()
    for token, start, end, kind in tokens:
        if kind or not has_emoji(token):
            yield token, start, end, kind
            continue
        position = 0
        for match in pattern.finditer(token):
            if match.start() > position:
                yield token[position : match.start()], start + position, start + match.start(), ""
            yield match.group(), start + match.start(), start + match.end(), EMOJI
            position = match.end()
        if position < len(token):
            yield token[position:], start + position, end, ""


def is_emoji(token: str) -> bool:
    """Whether ``token`` is exactly one emoji (a sequence counts as one).

    Examples
    --------
    >>> is_emoji("👩‍👩‍👧"), is_emoji("🏴󠁧󠁢󠁳󠁣󠁴󠁿"), is_emoji("🎉🎉"), is_emoji("x")
    (True, True, False, False)
    """
    return emoji_pattern().fullmatch(token) is not None


@cache
def filler_emoji() -> tuple[str, ...]:
    """The public emoji an emoji slot is replaced with under ``oov="sample"``, in code point order.

    About 320 single-code-point emoji of Emoji 11.0 or earlier (drawn by every phone): animals,
    plants, food and drink, weather, sport, crafts, clothing, music, books and household things.
    No face or emotion (a random one would make up a feeling), person, flag, place, symbol, letter
    or digit, nothing of a religion, a festival, money, medicine or a weapon.

    Examples
    --------
    >>> "🐙" in filler_emoji(), "😂" in filler_emoji(), "🇳🇬" in filler_emoji()
    (True, False, False)
    """
    return tuple(
        chr(point) for first, last in _table()["filler"] for point in range(first, last + 1)
    )
