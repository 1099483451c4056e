"""A public word list held compactly: id <-> word without 100,000 Python strings.

It holds a words pack's vocabulary and the identifier guard's lists (names, common words,
top-level domains, each language's lexicon). A ``dict`` or ``frozenset`` of 100,000 words plus their
``str`` objects costs more memory than the codes themselves in every process that privatizes a word
(bench/reports/2026-11-23-footprint.md: ~13 MB for 100,000 words). Here a list is

* the UTF-8 bytes of ``vocab.txt`` (one word per line; 0.8 MB for words-small),
* the start offset of every line (int32 or int64),
* an open-addressing hash table of word ids (int32, at most half full), keyed by a 64-bit
  hash of the word's UTF-8 bytes (read as a little-endian integer, modulo 2**31 - 1), computed for
  all words at once with numpy (Horner's rule over byte columns) and for a looked-up word by one
  ``int.from_bytes``.

Lookups compare the candidate's bytes with the word's, so a hash collision never returns a wrong
id. The table holds only the public vocabulary; a looked-up word never enters it, so input cannot
lengthen the probe chains. ``words`` materializes the tuple of all words only when asked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import overload

import numpy as np

from edgedp.errors import AssetError

_MASK = (1 << 64) - 1
_PRIME = 2**31 - 1  # Horner steps h * 256 + byte stay below 2**40: exact in uint64
_MIX = 0x9E3779B97F4A7C15  # Fibonacci hashing: the table slot is taken from the high bits
_CHUNK = 1 << 13  # words hashed and inserted per numpy step (bounds the temporaries)
_SCAN_BYTES = 1 << 16  # bytes searched for line ends per numpy step
_EMPTY = -1
#: A line that starts or ends with whitespace (other than its newline), as str.strip() would see it.
_PADDED = re.compile(r"^[^\S\n]|[^\S\n]$", re.MULTILINE)


def _hash(data: bytes) -> int:
    """The word's UTF-8 bytes as a little-endian integer modulo a prime: one C call per word."""
    return int.from_bytes(data, "little") % _PRIME


class Vocabulary:
    """The public word list of a pack: id <-> word, with lookups that map unknown words to -1."""

    __slots__ = ("_blob", "_shift", "_starts", "_starts_view", "_table", "_table_view", "_words")

    def __init__(self, words: Iterable[str]) -> None:
        self._init_blob("".join(f"{word}\n" for word in words).encode("utf-8"))

    @classmethod
    def from_lines(cls, blob: bytes) -> Vocabulary:
        """From the bytes of a ``vocab.txt`` (UTF-8, one word per line, a final newline)."""
        vocabulary = cls.__new__(cls)
        vocabulary._init_blob(blob)
        return vocabulary

    @classmethod
    def from_list_file(cls, path: Path) -> Vocabulary:
        """From a data file: ``#`` comment lines at its top (its source and licence), then one word
        a line (UTF-8), read without building a Python string per word.

        Raises
        ------
        AssetError
            If a word line is empty or padded, a word repeats, or the file is not UTF-8.

        Examples
        --------
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = Path(folder) / "words.txt"
        ...     _ = path.write_text("# source: made up\\nokafor\\nmaria\\n", encoding="utf-8")
        ...     names = Vocabulary.from_list_file(path)
        >>> "maria" in names, "#" in names, len(names)
        (True, False, 2)
        """
        blob = path.read_bytes()
        start = 0
        while blob.startswith(b"#", start):  # the header: its comment lines
            start = blob.find(b"\n", start) + 1 or len(blob)
        try:
            return cls.from_lines(blob[start:])
        except (AssetError, UnicodeDecodeError) as error:
            raise AssetError(f"{path.name}: {error}") from None

    def _init_blob(self, blob: bytes) -> None:
        if blob and not blob.endswith(b"\n"):
            blob += b"\n"
        self._blob = blob
        buffer = np.frombuffer(blob, dtype=np.uint8)
        count = blob.count(b"\n")
        dtype = np.int32 if len(blob) < 2**31 else np.int64
        starts = np.empty(count + 1, dtype=dtype)
        starts[0] = filled = 0
        for offset in range(0, len(blob), _SCAN_BYTES):  # line ends, a bounded slice at a time
            ends = np.flatnonzero(buffer[offset : offset + _SCAN_BYTES] == 10)
            starts[filled + 1 : filled + 1 + len(ends)] = ends + (offset + 1)
            filled += len(ends)
        self._starts = starts  # word i is blob[starts[i] : starts[i + 1] - 1]
        self._words: tuple[str, ...] | None = None
        bits = max(4, int(2 * count).bit_length())  # at most half full
        self._shift = 64 - bits
        self._table = np.full(1 << bits, _EMPTY, dtype=np.int32 if count < 2**31 else np.int64)
        self._starts_view = memoryview(starts.data)  # Python ints without numpy scalars (lookups)
        self._insert_all(buffer, count)
        self._table_view = memoryview(self._table.data)

    def _insert_all(self, buffer: np.ndarray, count: int) -> None:
        """Validate, hash every word with numpy (Horner's rule over byte columns), insert.

        Everything runs :data:`_CHUNK` words at a time, so that the temporaries stay small next to
        the table (bench/reports/2026-11-23-footprint.md: the vocabulary build's temporaries).
        """
        values = np.empty(count, dtype=np.uint32)  # hashes are below _PRIME < 2**31
        for first in range(0, count, _CHUNK):
            last = min(first + _CHUNK, count)
            starts = self._starts[first:last].astype(np.int64)
            chunk = self._starts[first + 1 : last + 1].astype(np.int64) - starts - 1  # in bytes
            text = self._blob[starts[0] : int(self._starts[last])].decode("utf-8")
            # UnicodeDecodeError: the caller names the file (no UTF-8 sequence holds a newline)
            if (chunk == 0).any() or _PADDED.search(text):
                raise AssetError("vocabulary has empty or padded lines")
            del text
            hashed = np.zeros(len(chunk), dtype=np.uint64)
            for column in range(int(chunk.max(initial=0))):  # most significant (last) byte first
                active = chunk > column
                byte = buffer[starts[active] + chunk[active] - 1 - column].astype(np.uint64)
                hashed[active] = (hashed[active] * np.uint64(256) + byte) % np.uint64(_PRIME)
            values[first:last] = hashed
        # Linear probing in rounds, a chunk of ids at a time in id order: every pending word claims
        # its current slot; of the claims on a free slot the lowest id wins, the others move one
        # slot on. A word passes a slot only when it is taken, and slots are never freed, so each
        # word's probe sequence from its home slot meets no empty slot before the word: the lookup
        # in _id finds it.
        # Duplicates: two equal words a < b have one home slot, and b passes the slot a takes
        # (in a's round, when they are in the same chunk: both start at home and move together;
        # later, when a's chunk came first: a's slot lies on b's probe sequence). So b is checked
        # against every word whose slot it passes; only equal hashes compare bytes.
        mask = len(self._table) - 1
        for first in range(0, count, _CHUNK):
            pending = np.arange(first, min(first + _CHUNK, count), dtype=np.int64)
            with np.errstate(over="ignore"):
                home = values[first : first + _CHUNK].astype(np.uint64) * np.uint64(_MIX)
            slots = (home >> np.uint64(self._shift)).astype(np.int64)
            while pending.size:
                free = self._table[slots] == _EMPTY
                claimed, first_claim = np.unique(slots[free], return_index=True)
                self._table[claimed] = pending[free][first_claim]
                moving = np.ones(pending.size, dtype=bool)
                moving[np.flatnonzero(free)[first_claim]] = False
                pending, slots = pending[moving], slots[moving]
                self._check_duplicates(pending, self._table[slots], values)
                slots = (slots + 1) & mask

    def _check_duplicates(self, words: np.ndarray, holders: np.ndarray, values: np.ndarray) -> None:
        """Refuse a word equal to the word holding the slot it passes (equal hashes compare bytes)."""
        same = values[words] == values[holders]
        for word, holder in zip(words[same].tolist(), holders[same].tolist(), strict=True):
            if self._bytes(word) == self._bytes(holder):
                raise AssetError("vocabulary has duplicate words")

    def _bytes(self, word_id: int) -> bytes:
        starts = self._starts_view
        return self._blob[starts[word_id] : starts[word_id + 1] - 1]

    def _id(self, word: str) -> int:
        data = word.encode("utf-8", "surrogatepass")
        slot = ((_hash(data) * _MIX) & _MASK) >> self._shift
        table, starts, blob = self._table_view, self._starts_view, self._blob
        mask = len(table) - 1
        while (candidate := table[slot]) != _EMPTY:
            if blob[starts[candidate] : starts[candidate + 1] - 1] == data:
                return candidate
            slot = (slot + 1) & mask
        return -1

    def __len__(self) -> int:
        return len(self._starts) - 1

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self._id(word) >= 0

    @overload
    def __getitem__(self, word_id: int) -> str: ...
    @overload
    def __getitem__(self, word_id: slice) -> tuple[str, ...]: ...
    def __getitem__(self, word_id: int | slice) -> str | tuple[str, ...]:
        if isinstance(word_id, slice):
            return self.words[word_id]
        index = range(len(self))[word_id]  # IndexError and negative ids as for a tuple
        return self._bytes(index).decode("utf-8")

    def __iter__(self) -> Iterator[str]:
        return iter(self.words)

    def iter_words(self) -> Iterator[str]:
        """Every word in id order, decoded one at a time (never holds the whole list)."""
        if self._words is not None:
            yield from self._words
            return
        blob, starts = self._blob, self._starts_view
        for word_id in range(len(self)):
            yield blob[starts[word_id] : starts[word_id + 1] - 1].decode("utf-8")

    @property
    def words(self) -> tuple[str, ...]:
        """Every word in id order (built on first use: one ``str`` per word costs megabytes)."""
        if self._words is None:
            self._words = tuple(self._blob.decode("utf-8").split("\n")[:-1])
        return self._words

    def ids(self, words: Iterable[str]) -> np.ndarray:
        """Word ids as int64, -1 for words not in the vocabulary."""
        return np.fromiter((self._id(word) for word in words), dtype=np.int64)
