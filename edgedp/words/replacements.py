"""What a word slot holds when no mechanism releases it, and how a slot is looked up.

**Replacements** (``oov="sample"``, the default). An out-of-vocabulary token or a span the
identifier guard protects is replaced by a word drawn uniformly from the pack's public *filler*
(:func:`filler_ids`), an emoji slot by an emoji drawn uniformly from the public
:func:`edgedp.text.emoji.filler_emoji`. Both draws are independent of the slot's content (epsilon 0
for it): the replacement depends only on the public pack, the public lists and fresh randomness.
The filler is a fixed function of public data, so choosing from it costs no privacy; it keeps
replacements from looking like what they replace: no filler word is on the public names list, holds
a digit or is a word mostly written capitalized, and an emoji is never replaced by a word nor a
word by an emoji.

**What the output reveals** beyond the word-level guarantee (as before, only the distribution
changed): a slot filled from the filler set weakly suggests it was replaced (a filler word is a
common word, uniformly drawn, rather than one near the input), and an emoji in the output says
that slot held an emoji (which emoji, never).

**Lookup.** :func:`pack_slang` is the chat-spelling table of the pack's language
(:mod:`edgedp.languages.slang`) restricted to words the pack has: a mechanism looks ``tmrw`` up as
``tomorrow``.

Released ids (what :meth:`edgedp.words.mechanism.WordMechanism` assembles): a vocabulary id
(>= 0), the markers of the ``oov`` policy (-1 dropped, -2 masked), or :func:`emoji_codes` (at most
:data:`EMOJI_BASE`) for a filler emoji.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from edgedp.languages.slang import slang_table
from edgedp.privacy.randomness import RandomSource
from edgedp.text.emoji import filler_emoji
from edgedp.text.identifiers import common_words, public_names

if TYPE_CHECKING:
    from edgedp.words.pack import WordPack

#: In a mechanism's slot ids: an emoji slot (an unknown or protected word slot is -1).
EMOJI_SLOT = -4
#: The released code of filler emoji ``j`` is ``EMOJI_BASE - j`` (below every other marker).
EMOJI_BASE = -16
#: A pack of another language than English fills from its most frequent words, at most this many.
FILLER_RANK = 30_000
#: The language of a pack whose manifest names none (every pack built before languages: GloVe).
DEFAULT_LANGUAGE = "en"


def pack_language(pack: WordPack) -> str:
    """The pack's language: its manifest's ``language``, else :data:`DEFAULT_LANGUAGE`."""
    return str(pack.manifest.data.get("language", DEFAULT_LANGUAGE))


def filler_ids(pack: WordPack) -> np.ndarray:
    """The vocabulary ids a replaced word slot is drawn from (sorted, read-only; cached per pack).

    The pack's words written in letters only (no digit, no punctuation) that are on no public
    names list (:func:`edgedp.text.identifiers.public_names`, ambiguous names included) and, for an
    English pack, are common words written in lower case (:func:`~edgedp.text.identifiers.
    common_words`: SCOWL's lower-case words, so no place, organisation or brand), or, for another
    language, among its :data:`FILLER_RANK` most frequent words. A pack where no word qualifies
    (a synthetic test pack) fills from its whole vocabulary.

    Examples
    --------
    >>> import edgedp
    >>> pack = edgedp.load_pack()
    >>> words = [pack.vocabulary[int(i)] for i in filler_ids(pack)]
    >>> len(words) > 15_000, "smith" in words, "london" in words, "umbrella" in words
    (True, False, False, True)
    """
    return pack.derived("filler-words", lambda: _filler(pack))


def _filler(pack: WordPack) -> np.ndarray:
    # the words are decoded one at a time and never held as a list: the common words as a tuple
    # of str, cached on their table, cost a megabyte for the life of the process
    # (bench/reports/2026-11-29-footprint.md); the result is sorted, so the order they come in is
    # free. English reads its common words in their file's (sorted) order: consecutive lookups
    # in the sorted names list then mostly read the block the one before read (WordFile).
    vocabulary, names = pack.vocabulary, public_names()
    if pack_language(pack) == DEFAULT_LANGUAGE:
        kept = (word for word in common_words().iter_words() if _filler_word(word, names))
        ids = vocabulary.ids(kept)
        ids = ids[ids >= 0]
    else:
        count = min(FILLER_RANK, len(vocabulary))
        words = (vocabulary[i] for i in range(count))
        keep = np.fromiter((_filler_word(word, names) for word in words), bool, count)
        ids = np.flatnonzero(keep)
    ids = np.sort(ids) if ids.size else np.arange(len(vocabulary))
    ids = ids.astype(np.int64)
    ids.setflags(write=False)
    return ids


def _filler_word(word: str, names: Container[str]) -> bool:
    """A word a filler may be: letters only, and no name."""
    return word.isalpha() and word not in names


def pack_slang(pack: WordPack) -> Mapping[str, str]:
    """The chat spellings of the pack's language whose word the pack has (cached per pack).

    Examples
    --------
    >>> import edgedp
    >>> pack_slang(edgedp.load_pack())["tmrw"]
    'tomorrow'
    """

    def build() -> Mapping[str, str]:
        table = slang_table(pack_language(pack))
        known = pack.vocabulary.ids(list(table.values())) >= 0
        return MappingProxyType(
            {
                spelling: word
                for (spelling, word), ok in zip(table.items(), known, strict=True)
                if ok
            }
        )

    return pack.derived("slang", build)


def draw_replacements(pack: WordPack, rng: RandomSource, emoji: np.ndarray) -> np.ndarray:
    """One released id per slot that no mechanism releases (``emoji``: which are emoji slots): a
    uniform filler word id, or the :func:`emoji_codes` of a uniform filler emoji. Nothing of the
    slots' content is read."""
    out = np.empty(len(emoji), dtype=np.int64)
    words = int((~emoji).sum())
    if words:
        filler = filler_ids(pack)
        out[~emoji] = filler[rng.integers(len(filler), words)]
    if words < len(emoji):
        out[emoji] = emoji_codes(rng.integers(len(filler_emoji()), len(emoji) - words))
    return out


def emoji_codes(indices: np.ndarray) -> np.ndarray:
    """The released codes of filler emoji ``indices`` (positions in ``filler_emoji()``)."""
    return EMOJI_BASE - np.asarray(indices, dtype=np.int64)


def filler_emoji_of(code: int) -> str:
    """The filler emoji of a released code (at most :data:`EMOJI_BASE`).

    Examples
    --------
    >>> filler_emoji_of(int(emoji_codes([0])[0])) == filler_emoji()[0]
    True
    """
    return filler_emoji()[EMOJI_BASE - code]
