"""Splitting text into words and pass-through separators, and putting privatized text back together.

The layout of the input (whitespace, line breaks, punctuation) is public: it passes through. Every
other token is a *word slot*: whatever a mechanism puts there must be sampled from the public
vocabulary, so no character of a private word can reach the output.

* Splitting: split on Unicode whitespace (:data:`SPLITTING_WHITESPACE`) and around every character of
  :data:`PASS_THROUGH_PUNCTUATION`, each of which passes through on its own; every other run of
  characters is one word slot. This is exactly what splitting with the ``tokenizers``
  pre-tokenizers (WhitespaceSplit, then isolated Punctuation) and merging adjacent word tokens into
  one slot gave, which edgedp did before (``tokenizers`` costs the word path megabytes of resident
  memory: bench/reports/2026-11-23-footprint.md): tests/text/test_text.py checks every code point,
  and the segmentation of random texts, against ``tokenizers``.
* Emoji (:mod:`edgedp.text.emoji`) are cut out of the words they are glued to: each emoji (a
  sequence counts as one) is a slot of its own, of kind ``emoji``, never merged with a neighbour.
* Whitespace between tokens passes through if it is ASCII whitespace; any other whitespace character
  (no-break space, ideographic space, ...) is written as a plain space, because unusual whitespace
  can identify a keyboard or a device.
* Words are looked up after NFKC normalization and lower-casing (GloVe 6B is lower-case).
* Capitalization is not released: output words are vocabulary words (lower-case). ``casing="sentence"``
  capitalizes the first word of the text and after ``.``, ``!`` or ``?``; it looks only at output that
  is already released, so it is post-processing and costs no privacy.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TypeVar

from edgedp.errors import InputError
from edgedp.languages.lexicon import check_language, lexicon
from edgedp.privacy.validation import check_choice
from edgedp.text.emoji import EMOJI, split_emoji
from edgedp.text.identifiers import (
    CLOSING_PUNCTUATION,
    calendar_words,
    common_words,
    is_common,
    name_slots,
    place_slots,
    protected_spans,
    rare_slots,
)

#: Single characters released unchanged: ASCII punctuation and common typographic punctuation.
PASS_THROUGH_PUNCTUATION: frozenset[str] = frozenset(string.punctuation) | frozenset(
    "\u201c\u201d\u2018\u2019\u2013\u2014\u2026\u00ab\u00bb\u00a1\u00bf\u00b7"
)
#: Whitespace released unchanged; other whitespace is released as a single space.
PASS_THROUGH_WHITESPACE: frozenset[str] = frozenset(" \t\n\r\f\v")
#: Largest text accepted in one call (characters); stream longer input (see the CLI).
MAX_TEXT_CHARS = 10_000_000

T = TypeVar("T")

CASINGS = ("lower", "sentence")
_SENTENCE_END = frozenset(".!?")
#: The kinds a letter glued right before one of them joins, and the glue (an apostrophe or a full
#: stop, no space): an initial or particle of a name or place (``o'fallon``, ``k.maraş``).
_GLUED_KINDS = frozenset({"name", "place", "rare-word"})
_GLUES = frozenset({"'", "\u2019", "."})
#: Words whose following full stop does not end a sentence (``Mr. Okonkwo``).
SENTENCE_TITLES = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "mx",
        "dr",
        "prof",
        "st",
        "sr",
        "jr",
        "rev",
        "fr",
        "gen",
        "col",
        "capt",
        "lt",
        "sgt",
        "hon",
        "mt",
    ]
)


#: Characters where the text splits, dropped from the words: Unicode's White_Space property, exactly
#: the characters the ``tokenizers`` WhitespaceSplit pre-tokenizer splits at (tests/text/test_text.py
#: checks every code point). Python's ``str.isspace`` differs (it also holds U+001C..U+001F).
SPLITTING_WHITESPACE: frozenset[str] = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "\u2028\u2029\u202f\u205f\u3000"
)


def _character_class(chars: Iterable[str]) -> str:
    return "".join(re.escape(char) for char in sorted(chars))


#: A token: one pass-through punctuation character, or a run of characters that are neither that
#: nor splitting whitespace (what lies between tokens is whitespace).
_TOKEN = re.compile(
    f"[{_character_class(PASS_THROUGH_PUNCTUATION)}]"
    f"|[^{_character_class(SPLITTING_WHITESPACE | PASS_THROUGH_PUNCTUATION)}]+"
)


def normalize_word(token: str) -> str:
    """The vocabulary lookup key of a token: NFKC normalization, then lower case."""
    return unicodedata.normalize("NFKC", token).lower()


def check_text(text: object, *, max_chars: int = MAX_TEXT_CHARS) -> str:
    """Return ``text`` if it is a valid Unicode string of acceptable size, else raise InputError."""
    if isinstance(text, bytes | bytearray):
        raise InputError(
            "text must be str, not bytes: decode it first (e.g. bytes.decode('utf-8'))"
        )
    if not isinstance(text, str):
        raise InputError(f"text must be str, got {type(text).__name__}")
    if len(text) > max_chars:
        raise InputError(
            f"text has {len(text):,} characters, more than the {max_chars:,} accepted in one call; "
            "split it (privatize_batch or the CLI, which streams)"
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InputError(
            f"text is not valid Unicode: lone surrogate at index {error.start}"
        ) from None
    return text


@dataclass(frozen=True, slots=True)
class Segmented:
    """A text cut into released separators and word slots.

    ``pieces`` holds the separators in order, with ``None`` at each word slot; ``words`` holds the
    normalized lookup key of each slot, in order; ``kinds`` maps the index (into ``words``) of each
    slot the guard protects (:mod:`edgedp.text.identifiers`, a deny-list) to why: an identifier
    kind such as ``email`` or ``phone``, ``name``, ``proper-noun`` or ``deny``, and of each emoji
    (kind ``emoji``, whatever the guard); those slots must be released like out-of-vocabulary
    tokens, never through a word mechanism.
    ``ends_at_sentence_start``: whether a word right after this text would start a sentence (for
    the next piece of a stream). ``spans``: each slot's (start, end) in the text.
    """

    pieces: tuple[str | None, ...]
    words: tuple[str, ...]
    kinds: Mapping[int, str] = field(default_factory=dict)
    ends_at_sentence_start: bool = True
    spans: tuple[tuple[int, int], ...] = ()

    @property
    def protected(self) -> frozenset[int]:
        """The indices of the protected slots (the keys of :attr:`kinds`)."""
        return frozenset(self.kinds)

    @classmethod
    def join(cls, parts: Iterable[Segmented]) -> Segmented:
        """Consecutive pieces of one text as one (their separators and slots in order; no spans).

        Examples
        --------
        >>> joined = Segmented.join([segment("a cat "), segment("sat.")])
        >>> joined.words, joined.pieces
        (('a', 'cat', 'sat'), (None, ' ', None, ' ', None, '.'))
        """
        pieces: list[str | None] = []
        words: list[str] = []
        kinds: dict[int, str] = {}
        ends_at_sentence_start = True
        for part in parts:
            kinds.update((len(words) + index, kind) for index, kind in part.kinds.items())
            pieces.extend(part.pieces)
            words.extend(part.words)
            ends_at_sentence_start = part.ends_at_sentence_start
        return cls(tuple(pieces), tuple(words), MappingProxyType(kinds), ends_at_sentence_start)

    def split(self, slot: int) -> tuple[Segmented, Segmented]:
        """The text before word slot ``slot`` (with the separators after the slot before it) and
        the text from it on; :meth:`join` of the two is this text (spans aside).

        Examples
        --------
        >>> before, after = segment("a cat. sat").split(2)
        >>> before.pieces, after.pieces
        ((None, ' ', None, '.', ' '), (None,))
        """
        if not 0 <= slot <= len(self.words):
            raise InputError(f"slot {slot} is not in [0, {len(self.words)}]")
        slots = [index for index, piece in enumerate(self.pieces) if piece is None]
        cut = slots[slot] if slot < len(slots) else len(self.pieces)
        before = {index: kind for index, kind in self.kinds.items() if index < slot}
        after = {index - slot: kind for index, kind in self.kinds.items() if index >= slot}
        return (
            Segmented(self.pieces[:cut], self.words[:slot], MappingProxyType(before)),
            Segmented(
                self.pieces[cut:],
                self.words[slot:],
                MappingProxyType(after),
                self.ends_at_sentence_start,
            ),
        )


def is_pass_through(token: str) -> bool:
    """True if ``token`` is released unchanged (one character of the public punctuation set)."""
    return len(token) == 1 and token in PASS_THROUGH_PUNCTUATION


def _released_whitespace(gap: str) -> str:
    return "".join(char if char in PASS_THROUGH_WHITESPACE else " " for char in gap)


def _tokens(
    text: str, protect: frozenset[str], language: str = "en"
) -> Iterator[tuple[str, int, int, str]]:
    """(token, start, end, kind): :data:`_TOKEN` tokens (kind ``""``), with identifier spans kept
    whole (kind: the span's, e.g. ``email``).

    The splitting is local (whitespace, isolated punctuation), so tokenizing the gaps between
    spans gives the same tokens as tokenizing the whole text.
    """
    position = 0
    spans = protected_spans(text, protect, language)
    for span_start, span_end, kind in (*spans, (len(text), len(text), "")):
        for match in _TOKEN.finditer(text, position, span_start):
            yield match.group(), match.start(), match.end(), ""
        if span_end > span_start:
            yield text[span_start:span_end], span_start, span_end, kind
        position = span_end


def segment(
    text: str,
    protect: frozenset[str] = frozenset(),
    *,
    sentence_start: bool = True,
    deny: frozenset[str] = frozenset(),
    language: str = "en",
) -> Segmented:
    """Split ``text`` (already checked) into separators and word slots.

    Adjacent non-separator tokens (e.g. a word and an identifier span) form one word slot, so two
    replacement words are never written side by side without a separator.
    ``protect`` (kinds of :mod:`edgedp.text.identifiers`) marks slots as protected: an identifier
    span is one slot, and a slot merged with a protected span is protected. ``sentence_start``:
    whether the text starts a sentence (``False`` for a piece of a stream that continues one).
    ``deny``: normalized words always protected (a user's deny-list, :func:`check_deny`; kind
    ``deny``). ``language``: the language whose lexicon and lists the guard reads
    (:mod:`edgedp.languages.lexicon`; English by default).
    """
    tokens = _tokens(text, protect, check_language(language))
    return slots(text, tokens, protect, sentence_start=sentence_start, deny=deny, language=language)


def check_deny(terms: Iterable[str] | None) -> frozenset[str]:
    """A deny-list as the normalized words a slot is compared with; each term must be one word (a
    slot: no whitespace, no pass-through punctuation), e.g. the contact names of an app."""
    if terms is None:
        return frozenset()
    if isinstance(terms, str):
        raise InputError("deny takes an iterable of words, not a single string")
    words = set()
    for term in terms:
        if not isinstance(term, str) or not term.strip():
            raise InputError(f"a deny-list term must be a non-empty word, got {term!r}")
        tokens = [token for token in _TOKEN.findall(term.strip()) if not is_pass_through(token)]
        if len(tokens) != 1 or tokens[0] != term.strip():
            raise InputError(
                f"a deny-list term is one word (a word slot), got {term!r}: list each word of it"
            )
        words.add(normalize_word(tokens[0]))
    return frozenset(words)


def slots(
    text: str,
    tokens: Iterable[tuple[str, int, int, str]],
    protect: frozenset[str],
    *,
    sentence_start: bool = True,
    deny: frozenset[str] = frozenset(),
    language: str = "en",
) -> Segmented:
    """Separators and word slots from ``tokens`` (text, start, end, the identifier kind of a span,
    else ``""``) in order: adjacent non-separator tokens merge into one slot (see :func:`segment`)."""
    pieces: list[str | None] = []
    raw_words: list[str] = []
    spans: list[tuple[int, int]] = []
    kinds: dict[int, str] = {}
    starts = _SentenceStarts(sentence_start)
    position = 0
    for token, start, end, kind in split_emoji(text, tokens):  # an emoji is a slot of its own
        if start > position:
            pieces.append(_released_whitespace(text[position:start]))
            starts.gap(text[position:start])
        if not kind and is_pass_through(token):
            pieces.append(token)
            starts.punctuation(token, raw_words[-1] if pieces[-2:-1] == [None] else "")
        elif (
            pieces
            and pieces[-1] is None
            and start == position
            and not _emoji(kind, kinds, raw_words)
        ):
            raw_words[-1] += text[start:end]
            spans[-1] = (spans[-1][0], end)
        else:
            pieces.append(None)
            raw_words.append(text[start:end])
            spans.append((start, end))
            starts.word()
        if kind:
            kinds.setdefault(len(raw_words) - 1, kind)
        position = end
    if position < len(text):
        pieces.append(_released_whitespace(text[position:]))
        starts.gap(text[position:])
    words = tuple(normalize_word(word) for word in raw_words)
    gaps = _gaps(text, spans) if {"names", "places", "rare-words"} & protect else []
    if "places" in protect:
        for index in place_slots(words, raw_words, gaps, starts.first, language):
            kinds.setdefault(index, "place")
    if "names" in protect:
        for index in name_slots(words, raw_words, gaps, starts.first, language):
            kinds.setdefault(index, "name")
    if "rare-words" in protect:
        for index in rare_slots(words, gaps, language):
            kinds.setdefault(index, "rare-word")
    elisions = lexicon(language).elisions if gaps else frozenset()
    for index in range(len(words) - 1 if gaps else 0):
        # a letter glued to a protected name or place: its initial or particle (``o'fallon``,
        # ``villeneuve-d'ascq``, ``k.maraş``, ``j.smith``; not an elision: French ``d'anna``)
        after, word = kinds.get(index + 1), words[index]
        glued = len(word) == 1 and gaps[index + 1] in _GLUES and word not in elisions
        if after in _GLUED_KINDS and glued:
            kinds.setdefault(index, after)
    if "proper-nouns" in protect:
        common = common_words() if language == "en" else _CommonWords(language)
        calendar, nouns = calendar_words(language), language in CAPITALIZED_NOUNS
        for index, (raw, word) in enumerate(zip(raw_words, words, strict=True)):
            # weekdays and months are capitalized in English (``on Monday``): no one's proper noun
            if word not in calendar and is_proper_noun(
                raw, word, starts.first[index], common, nouns_capitalized=nouns
            ):
                kinds.setdefault(index, "proper-noun")
    if deny:  # last: a denied slot the public rules also protect keeps their kind (see placeholder)
        for index, word in enumerate(words):
            if word in deny:
                kinds.setdefault(index, "deny")
    return Segmented(tuple(pieces), words, MappingProxyType(kinds), starts.now, tuple(spans))


def _emoji(kind: str, kinds: dict[int, str], raw_words: list[str]) -> bool:
    """Whether a token of ``kind`` or the slot before it is an emoji (which never merge)."""
    return EMOJI in (kind, kinds.get(len(raw_words) - 1))


def _gaps(text: str, spans: list[tuple[int, int]]) -> list[str]:
    """The text before each word slot (from the previous one) and after the last: what the names
    guard reads around a slot (``dr. `` before ``okafor``)."""
    ends = [0, *(end for _, end in spans)]
    starts = [*(start for start, _ in spans), len(text)]
    return [text[end:start] for end, start in zip(ends, starts, strict=True)]


#: Languages that capitalize every noun (German: ``das Haus``): there a capitalized word inside a
#: sentence is a proper noun only if it is no common word of the language.
CAPITALIZED_NOUNS = frozenset({"de"})


class _CommonWords:
    """The common words of a language other than English, as a container (the names guard's
    :func:`~edgedp.text.identifiers.is_common`)."""

    def __init__(self, language: str) -> None:
        self.language = language

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and is_common(word, self.language)


def is_proper_noun(
    raw: str,
    word: str,
    starts_sentence: bool,
    common: Container[str],
    *,
    nouns_capitalized: bool = False,
) -> bool:
    """The proper-noun guard's rule for one word slot (``raw`` as written, ``word`` its key).

    A word in capitals (two letters or more) is a proper noun unless it is a common word
    (``NASA``, not ``THE``); a capitalized word is one unless it starts a sentence and is a common
    word (``Okonkwo said``, not ``The``), and except ``I``; where the language capitalizes every
    noun (``nouns_capitalized``: German), a capitalized word is one only if it is no common word
    (``das Haus`` is not). ``common``: the common words of the text's language. Public rules only,
    no model.
    """
    letters = [char for char in raw if char.isalpha()]
    if not letters or not letters[0].isupper():
        return False
    if len(letters) > 1 and all(char.isupper() for char in letters):
        return word not in common
    if starts_sentence or nouns_capitalized:
        return word not in common
    return word != "i"


class _SentenceStarts:
    """Which word slots start a sentence: the first of a text (unless it continues one), and the
    first after ``.``, ``!`` or ``?`` (closing quotes and brackets aside; not after ``Mr.``) and
    whitespace, or after a line break."""

    def __init__(self, start: bool) -> None:
        self.now, self.first, self._ended = start, list[bool](), False

    def gap(self, whitespace: str) -> None:
        if self._ended or "\n" in whitespace or "\r" in whitespace:
            self.now = True

    def punctuation(self, char: str, word_before: str) -> None:
        if char in _SENTENCE_END:
            self._ended = not (char == "." and normalize_word(word_before) in SENTENCE_TITLES)
        elif char not in CLOSING_PUNCTUATION:
            self._ended = False

    def word(self) -> None:
        self.first.append(self.now)
        self.now = self._ended = False


@dataclass(slots=True)
class SentenceState:
    """Where ``casing="sentence"`` stands at the end of the text released so far.

    One state carried across the pieces of a text that is released piece by piece (streaming)
    capitalizes, and finds the sentence starts of the proper-noun guard, exactly as if the text had
    been released at once.
    """

    capitalize_next: bool = True
    sentence_ended: bool = False
    #: Whether the next word of the *input* starts a sentence (the proper-noun guard's state).
    word_starts_sentence: bool = True


def assemble(
    segmented: Segmented,
    replacements: list[str | None],
    casing: str = "lower",
    state: SentenceState | None = None,
) -> str:
    """Fill the word slots with ``replacements`` (``None`` drops the slot) and join the pieces.

    ``state`` continues the sentence casing of text released before (it is updated); ``None``
    starts a new text.
    """
    check_choice(casing, "casing", CASINGS)
    if len(replacements) != len(segmented.words):
        raise InputError(f"{len(replacements)} replacements for {len(segmented.words)} word slots")
    state = SentenceState() if state is None else state
    out: list[str] = []
    fill = iter(replacements)
    capitalize_next, sentence_ended = state.capitalize_next, state.sentence_ended
    for piece in segmented.pieces:
        if piece is None:
            word = next(fill)
            if word is None:
                continue
            if casing == "sentence" and capitalize_next:
                word = word[:1].upper() + word[1:]
            capitalize_next = sentence_ended = False
            out.append(word)
            continue
        out.append(piece)
        if piece in _SENTENCE_END:
            sentence_ended, capitalize_next = True, False
        elif piece.isspace():
            capitalize_next = capitalize_next or sentence_ended
        elif piece not in CLOSING_PUNCTUATION:
            capitalize_next = sentence_ended = False
    state.capitalize_next, state.sentence_ended = capitalize_next, sentence_ended
    return "".join(out)


def batches(
    items: Iterable[T],
    *,
    limit: int,
    size: Callable[[T], int] = lambda _: 1,
    closes: Callable[[T], bool] = lambda _: False,
) -> Iterator[list[T]]:
    """Consecutive runs of ``items``, each closed as soon as its total ``size`` reaches ``limit``
    or an item for which ``closes`` holds is added (a line end: streams answer line by line).

    The one batcher of the streaming paths (words, ADePT lines, documents): memory stays bounded by
    ``limit`` plus one item, and the order of the items is kept. The last batch may be smaller.
    """
    batch: list[T] = []
    total = 0
    for item in items:
        batch.append(item)
        total += size(item)
        if total >= limit or closes(item):
            yield batch
            batch, total = [], 0
    if batch:
        yield batch
