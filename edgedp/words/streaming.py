"""Privatizing text that arrives in pieces (files, stdin) in bounded memory, output in input order.

Text is cut only right after whitespace (any Unicode whitespace the splitter splits at) or
pass-through punctuation, where the tokenizer would split anyway, and sentence casing is carried
across the cuts, so streaming gives exactly the tokens and layout that privatizing the whole text at
once would. A token
longer than :data:`MAX_TOKEN_CHARS` cannot be a vocabulary word: as soon as that is known it is
privatized as one out-of-vocabulary slot (:data:`OVERLONG_TOKEN`, which no vocabulary holds) and the
rest of it is skipped, so a 50 MB line without spaces needs no 50 MB buffer.

With the identifier guard on (``mechanism.protect`` holds ``"identifiers"`` or ``"names"``), an
e-mail address or URL holds punctuation (``jane.doe@example.com``, ``O'Neill``) and a phone number,
IBAN or date may hold single spaces (``+44 20 7946 0958``, ``gb29 nwbk 6016``, ``12th of March``):
cutting there would release ``jane`` through the word mechanism. So the stream is then cut only
right after whitespace, and never after a space that follows a token for which
:func:`edgedp.text.identifiers.span_may_continue` holds, the only places a protected span can hold
whitespace, and after a name or a cue word of the names guard (``dr.``, ``hey``, ``call``), whose
decision on the next word depends on them: no span straddles a cut, and the spans of each piece
are those of the whole text. The proper-noun guard (``"proper-nouns"``) cuts the same way, so
that whether a piece starts a sentence is known from the pieces before it
(:class:`~edgedp.text.segmentation.SentenceState`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from edgedp.runtime.native import worker_threads
from edgedp.text.identifiers import span_may_continue
from edgedp.text.segmentation import (
    PASS_THROUGH_PUNCTUATION,
    SPLITTING_WHITESPACE,
    batches,
)
from edgedp.words.mechanism import WordMechanism

#: No vocabulary word is this long, even before NFKC normalization (packs hold words <= 100 chars).
MAX_TOKEN_CHARS = 4096
#: Characters gathered before a vectorized batch is privatized. A batch's work (randomized response
#: alone allocates ~0.8 kB per word at once) sets the BRR command line's peak RSS on BBC text:
#: larger batches cost more memory with no speed gain (the exact search's cost is per word), smaller
#: ones were slower (bench/README.md, "Measurements behind the code"). Per worker thread: after
#: ``set_num_threads(n)`` a batch gathers n times as much, to give every thread its share.
BATCH_CHARS = 1 << 11
#: Stands in for a token longer than MAX_TOKEN_CHARS: one out-of-vocabulary word slot.
OVERLONG_TOKEN = "\x00"  # noqa: S105  (not a password)


def _is_cut_point(text: str, position: int, guarded: bool) -> bool:
    """May ``text`` be cut right after ``text[position]``? (``guarded``: identifier spans on.)"""
    char = text[position]
    # Only characters the tokenizer always splits at: whitespace and pass-through punctuation.
    if not guarded:
        return char in SPLITTING_WHITESPACE or char in PASS_THROUGH_PUNCTUATION
    if char not in SPLITTING_WHITESPACE:
        return False
    if char != " ":
        return True
    token_start = position
    while token_start > 0 and text[token_start - 1] not in SPLITTING_WHITESPACE:
        token_start -= 1
    return not span_may_continue(text[token_start:position])


def _last_cut(text: str, guarded: bool = False) -> int:
    """Index just after the last safe cut point of ``text`` (0 if there is none)."""
    for position in range(len(text) - 1, -1, -1):
        if _is_cut_point(text, position, guarded):
            return position + 1
    return 0


def _first_cut(text: str, guarded: bool = False) -> int | None:
    for position in range(len(text)):
        if _is_cut_point(text, position, guarded):
            return position
    return None


def _cut_pieces(pieces: Iterable[str], guarded: bool) -> Iterator[str]:
    """The text of ``pieces`` re-cut at safe points; an overlong token becomes OVERLONG_TOKEN."""
    carry = ""
    skipping = False
    for piece in pieces:
        if skipping:
            cut = _first_cut(piece, guarded)
            if cut is None:
                continue
            piece, skipping = piece[cut:], False
        text = carry + piece
        cut = _last_cut(text, guarded)
        if cut:
            yield text[:cut]
        carry = text[cut:]
        if len(carry) > MAX_TOKEN_CHARS:
            yield OVERLONG_TOKEN
            carry, skipping = "", True
    if carry:
        yield carry


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
    mechanism: WordMechanism,
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
    guarded = bool(mechanism.protect)  # proper nouns: a piece starts after whitespace (see above)
    bounded = _bounded(pieces, batch_chars)
    pieces_cut = _cut_pieces(bounded, guarded)
    cut = batches(pieces_cut, limit=batch_chars, size=len, closes=_ends_a_line)
    yield from mechanism.privatize_pieces(cut, before_release=before_release)
