"""Privatizing text that arrives in pieces (files, stdin) in bounded memory, output in input order.

Text is cut only right after whitespace (any Unicode whitespace the splitter splits at) or
pass-through punctuation, where the tokenizer would split anyway, and sentence casing is carried
across the cuts, so streaming gives exactly the tokens and layout that privatizing the whole text at
once would. A token
longer than :data:`MAX_TOKEN_CHARS` cannot be a vocabulary word: as soon as that is known it is
privatized as one out-of-vocabulary slot (:data:`OVERLONG_TOKEN`, which no vocabulary holds) and the
rest of it is skipped, so a 50 MB line without spaces needs no 50 MB buffer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from edgedp.text import PASS_THROUGH_PUNCTUATION, SPLITTING_WHITESPACE, SentenceState
from edgedp.words.mechanism import WordMechanism

#: No vocabulary word is this long, even before NFKC normalization (packs hold words <= 100 chars).
MAX_TOKEN_CHARS = 4096
#: Characters gathered before a vectorized batch is privatized.
BATCH_CHARS = 1 << 14  # 1 << 16 cost 15 MB more peak RSS on BBC text, at no measurable speed gain
#: Stands in for a token longer than MAX_TOKEN_CHARS: one out-of-vocabulary word slot.
OVERLONG_TOKEN = "\x00"  # noqa: S105  (not a password)


def _is_cut_point(char: str) -> bool:
    # Only characters the tokenizer always splits at: whitespace and pass-through punctuation.
    return char in SPLITTING_WHITESPACE or char in PASS_THROUGH_PUNCTUATION


def _last_cut(text: str) -> int:
    """Index just after the last safe cut point of ``text`` (0 if there is none)."""
    for position in range(len(text) - 1, -1, -1):
        if _is_cut_point(text[position]):
            return position + 1
    return 0


def _first_cut(text: str) -> int | None:
    for position, char in enumerate(text):
        if _is_cut_point(char):
            return position
    return None


def privatize_stream(
    mechanism: WordMechanism,
    pieces: Iterable[str],
    *,
    batch_chars: int = BATCH_CHARS,
    before_release: Callable[[list[str]], None] | None = None,
) -> Iterator[str]:
    """Yield the privatized text of the concatenation of ``pieces``, piece by piece.

    ``before_release(batch)`` runs before each batch is privatized (a ledger charge); if it raises,
    that batch and everything after it is not released.
    """
    release = _releaser(mechanism, before_release)
    ready: list[str] = []
    ready_chars = 0
    carry = ""
    skipping = False
    for piece in pieces:
        if skipping:
            cut = _first_cut(piece)
            if cut is None:
                continue
            piece, skipping = piece[cut:], False
        text = carry + piece
        cut = _last_cut(text)
        if cut:
            ready.append(text[:cut])
            ready_chars += cut
        carry = text[cut:]
        if len(carry) > MAX_TOKEN_CHARS:
            yield from release(ready)
            ready, ready_chars = [], 0
            yield from release([OVERLONG_TOKEN])
            carry, skipping = "", True
        elif ready_chars >= batch_chars:
            yield from release(ready)
            ready, ready_chars = [], 0
    if carry:
        ready.append(carry)
    if ready:
        yield from release(ready)


def _releaser(
    mechanism: WordMechanism, before_release: Callable[[list[str]], None] | None
) -> Callable[[list[str]], list[str]]:
    casing = SentenceState()

    def release(batch: list[str]) -> list[str]:
        if not batch:
            return []
        if before_release is not None:
            before_release(batch)
        return mechanism.privatize_batch(batch, continued=casing)

    return release
