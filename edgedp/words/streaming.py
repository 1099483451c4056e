"""Privatizing text that arrives in pieces (files, stdin) in bounded memory, output in input order.

Text is cut only right after whitespace (any Unicode whitespace the splitter splits at) or
pass-through punctuation, where the tokenizer would split anyway, and sentence casing is carried
across the cuts, so streaming gives exactly the tokens and layout that privatizing the whole text at
once would. A token
longer than :data:`MAX_TOKEN_CHARS` cannot be a vocabulary word: as soon as that is known it is
replaced, in place, by one out-of-vocabulary slot (:data:`OVERLONG_TOKEN`, which no vocabulary
holds) and the rest of it is skipped, so a 50 MB line without spaces needs no 50 MB buffer; the
words around it stay, so the stream releases what the whole text releases with that token
replaced.

With the identifier guard on (``mechanism.protect`` holds ``"identifiers"`` or ``"names"``), an
e-mail address or URL holds punctuation (``jane.doe@example.com``, ``O'Neill``) and a phone number,
IBAN or date may hold single spaces (``+44 20 7946 0958``, ``gb29 nwbk 6016``, ``12th of March``):
cutting there would release ``jane`` through the word mechanism. So the stream is then cut only
right after a line break, or after other whitespace that follows a word for which
:func:`edgedp.text.identifiers.span_may_continue` does not hold: not where a protected span can hold
whitespace, not after a name or a cue word of the names guard (``dr.``, ``hey``, ``call``), whose
decision on the next word depends on them, and not after punctuation standing alone (the gap the
guard reads before the next word began before it): no span straddles a cut, and the spans of each
piece are those of the whole text. The proper-noun guard (``"proper-nouns"``) cuts the same way, so
that whether a piece starts a sentence is known from the pieces before it
(:class:`~edgedp.text.segmentation.SentenceState`). A line is answered before the next one
arrives, so a rule of the guard that reads across a line break (a name joined by ``and``, ``or``
or ``&`` to one on the other line; a dash opening a line before a name) sees only its own line in
a stream.

A run of more than twice :data:`MAX_TOKEN_CHARS` characters without such a place (a line in
capitals, a list of names) is cut where the guard itself decides every slot as it does uncut:
after whitespace with :data:`CONTEXT_CHARS` of the run after it, the guard's slots of the run cut
there compared with those of the run whole. Where no such place is found (a protected span that long, such as
thousands of digit groups), the run is one out-of-vocabulary slot and the stream resumes at the
next safe cut point: nothing of it goes through the mechanism.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Protocol

from edgedp.runtime.native import worker_threads
from edgedp.text.identifiers import span_may_continue
from edgedp.text.segmentation import (
    PASS_THROUGH_PUNCTUATION,
    SPLITTING_WHITESPACE,
    Segmented,
    batches,
)


class Segmenter(Protocol):
    """The guard's segmentation of a text (:meth:`edgedp.WordMechanism.segment`)."""

    def __call__(self, text: str, *, sentence_start: bool = True) -> Segmented: ...


class Streamable(Protocol):
    """What :func:`privatize_stream` privatizes with: a word mechanism, or one per language
    (:class:`~edgedp.words.multilingual.Multilingual`)."""

    @property
    def protect(self) -> frozenset[str]: ...

    def stream_guards(self) -> Mapping[str, Segmenter]: ...

    def privatize_pieces(
        self,
        batches: Iterable[list[str]],
        *,
        before_release: Callable[[list[str]], None] | None = None,
    ) -> Iterator[str]: ...


#: No vocabulary word is this long, even before NFKC normalization (packs hold words <= 100 chars).
MAX_TOKEN_CHARS = 4096
#: Characters gathered before a vectorized batch is privatized. A batch's work (randomized response
#: alone allocates ~0.8 kB per word at once) sets the BRR command line's peak RSS on BBC text:
#: larger batches cost more memory with no speed gain (the exact search's cost is per word), smaller
#: ones were slower (bench/README.md, "Measurements behind the code"). Per worker thread: after
#: ``set_num_threads(n)`` a batch gathers n times as much, to give every thread its share.
BATCH_CHARS = 1 << 11
#: Where a stream may always be cut: a line is answered before the next one arrives.
LINE_BREAKS = frozenset("\n\r")
#: Stands in for a token longer than MAX_TOKEN_CHARS: one out-of-vocabulary word slot.
OVERLONG_TOKEN = "\x00"  # noqa: S105  (not a password)
#: Text kept after a forced cut of a run longer than MAX_TOKEN_CHARS without a safe cut point:
#: longer than what any rule of the guard reads across a space (a phone number, an IBAN, a date,
#: the two words either side of a name).
CONTEXT_CHARS = 256
#: Places tried, latest first, for a forced cut.
CUT_ATTEMPTS = 8


def _is_cut_point(text: str, position: int, languages: tuple[str, ...]) -> bool:
    """May ``text`` be cut right after ``text[position]``? (``languages``: those whose guard rules
    the cut must respect; none: the guard is off.)"""
    char = text[position]
    # Only characters the tokenizer always splits at: whitespace and pass-through punctuation.
    if not languages:
        return char in SPLITTING_WHITESPACE or char in PASS_THROUGH_PUNCTUATION
    if char not in SPLITTING_WHITESPACE:
        return False
    if char in LINE_BREAKS:
        return True
    token_start = _token_start(text, position)
    token = text[token_start:position]
    previous_end = token_start
    while previous_end > 0 and text[previous_end - 1] in SPLITTING_WHITESPACE:
        previous_end -= 1
    previous = text[_token_start(text, previous_end) : previous_end]
    # after punctuation alone (" . - will"), the gap the guard reads before the next word started
    # earlier: cutting there would change it
    line_start = any(char in LINE_BREAKS for char in text[previous_end:token_start])
    return any(char.isalnum() for char in token) and not any(
        span_may_continue(token, language, previous, line_start) for language in languages
    )


def _token_start(text: str, end: int) -> int:
    """Where the run of non-whitespace text that ends at ``end`` starts."""
    start = end
    while start > 0 and text[start - 1] not in SPLITTING_WHITESPACE:
        start -= 1
    return start


def _last_cut(text: str, languages: tuple[str, ...] = ()) -> int:
    """Index just after the last safe cut point of ``text`` (0 if there is none)."""
    for position in range(len(text) - 1, -1, -1):
        if _is_cut_point(text, position, languages):
            return position + 1
    return 0


def _first_cut(text: str, languages: tuple[str, ...], start: int = 0) -> int | None:
    """Index of the first safe cut point of ``text`` at or after ``start`` (the text before it
    is the context of the token it ends)."""
    for position in range(start, len(text)):
        if _is_cut_point(text, position, languages):
            return position
    return None


def _token_breaks(guarded: bool) -> str:
    """What ends a token, as a regular expression's character set: whitespace, and pass-through
    punctuation unless the guard is on (a protected span may hold it: ``jane.doe@example.com``)."""
    breaks = SPLITTING_WHITESPACE if guarded else SPLITTING_WHITESPACE | PASS_THROUGH_PUNCTUATION
    return re.escape("".join(sorted(breaks)))


def _replace_overlong(text: str, overlong: re.Pattern[str]) -> tuple[str, bool]:
    """``text`` with each token longer than :data:`MAX_TOKEN_CHARS` (``overlong`` finds them)
    replaced by :data:`OVERLONG_TOKEN` in place (the text around it stays, as context for the
    guard), and whether the last one reaches the end (its rest, still to come, is dropped)."""
    ends = [match.end() for match in overlong.finditer(text)]
    return overlong.sub(OVERLONG_TOKEN, text), bool(ends) and ends[-1] == len(text)


def _neutral_cut(carry: str, segmenters: Sequence[Segmenter]) -> int | None:
    """A place to cut ``carry``, a run without a safe cut point, where the guard decides every
    slot as it does uncut (under each of ``segmenters``: the guard of each language the text may
    be released in): just after whitespace, with :data:`CONTEXT_CHARS` of text after it, the
    latest of :data:`CUT_ATTEMPTS` such places that passes; None if none does."""
    latest = len(carry) - CONTEXT_CHARS
    places = (p + 1 for p in range(latest - 1, 0, -1) if carry[p] in SPLITTING_WHITESPACE)
    for place in itertools.islice(places, CUT_ATTEMPTS):
        window = carry[: place + CONTEXT_CHARS]
        if all(_uncut(segment, window, place) for segment in segmenters):
            return place
    return None


def _uncut(segment: Segmenter, window: str, place: int) -> bool:
    """Whether ``segment`` decides every slot of ``window`` cut at ``place`` as uncut."""
    whole = segment(window)
    left = segment(window[:place])
    right = segment(window[place:], sentence_start=left.ends_at_sentence_start)
    cut = Segmented.join([left, right])
    return cut.words == whole.words and dict(cut.kinds) == dict(whole.kinds)


def _cut_pieces(pieces: Iterable[str], guards: Mapping[str, Segmenter]) -> Iterator[str]:
    """The text of ``pieces`` re-cut at safe points (see the module docstring); ``guards``: the
    guard's segmentation in each language the text may be released in (none: the guard is
    off)."""
    languages = tuple(guards)
    guarded = bool(languages)
    breaks = _token_breaks(guarded)
    token_break = re.compile(f"[{breaks}]")
    overlong = re.compile(f"[^{breaks}]{{{MAX_TOKEN_CHARS + 1},}}")
    carry = ""
    absorbing = False  # the rest of an overlong token is dropped (its stand-in is in carry)
    skipped: str | None = None  # dropped up to the next safe cut: the token that context ends
    for piece in pieces:
        if absorbing:
            end = token_break.search(piece)
            if end is None:
                continue
            piece, absorbing = piece[end.start() :], False
        if skipped is not None:
            text = skipped + piece
            resume = _first_cut(text, languages, len(skipped))
            if resume is None:
                skipped = text[_last_break(text, token_break) :][-MAX_TOKEN_CHARS:]
                continue
            piece, skipped = text[resume:], None
        text = carry + piece
        if len(text) > MAX_TOKEN_CHARS:
            text, absorbing = _replace_overlong(text, overlong)
        cut = _last_cut(text, languages)
        if cut:
            yield text[:cut]
        carry = text[cut:]
        # a run without a safe cut point: tokens of at most MAX_TOKEN_CHARS each (the longer are
        # replaced), so twice that always holds the run's last token and what leads up to it
        while guarded and len(carry) > 2 * MAX_TOKEN_CHARS:
            place = _neutral_cut(carry, list(guards.values()))
            if place is None:  # e.g. a protected span this long: one slot, resumed at a safe cut
                yield OVERLONG_TOKEN
                skipped, carry, absorbing = carry[_last_break(carry, token_break) :], "", False
                break
            yield carry[:place]
            carry = carry[place:]
    if carry:
        yield carry


def _last_break(text: str, token_break: re.Pattern[str]) -> int:
    """Index just after the last token break of ``text`` (0 if there is none)."""
    found = [match.end() for match in token_break.finditer(text)]
    return found[-1] if found else 0


def _ends_a_line(piece: str) -> bool:
    """A piece that ends a line closes its batch: a line written to a pipe is released before the
    next is read (files are read in 16 kB blocks, whose pieces seldom end at a line end)."""
    return piece.endswith("\n")


def _bounded(pieces: Iterable[str], size: int) -> Iterator[str]:
    """``pieces`` sliced to at most ``size`` characters each (re-cut at safe points afterwards).

    Without this a 64 kB piece (the CLI's read size) made one batch of ~10,000 words whatever
    ``batch_chars`` said, and randomized response on it allocates ~0.8 kB per word at once.
    """
    for piece in pieces:
        if size < 1 or len(piece) <= size:
            yield piece
        else:
            yield from (piece[start : start + size] for start in range(0, len(piece), size))


def privatize_stream(
    mechanism: Streamable,
    pieces: Iterable[str],
    *,
    batch_chars: int | None = None,
    before_release: Callable[[list[str]], None] | None = None,
) -> Iterator[str]:
    """Yield the privatized text of the concatenation of ``pieces``, piece by piece.

    ``batch_chars`` defaults to :data:`BATCH_CHARS` per worker thread. ``before_release(batch)``
    runs before each batch is privatized (a ledger charge); if it raises, that batch and everything
    after it is not released.
    """
    if batch_chars is None:
        batch_chars = BATCH_CHARS * worker_threads()
    # proper nouns too: a piece starts after whitespace (see above)
    guards = mechanism.stream_guards() if mechanism.protect else {}
    bounded = _bounded(pieces, batch_chars)
    pieces_cut = _cut_pieces(bounded, guards)
    cut = batches(pieces_cut, limit=batch_chars, size=len, closes=_ends_a_line)
    yield from mechanism.privatize_pieces(cut, before_release=before_release)
