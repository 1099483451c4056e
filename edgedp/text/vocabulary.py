"""A public word list held compactly: id <-> word without 100,000 Python strings.

It holds a words pack's vocabulary (the guard's long lists, which only answer ``in``, are
:class:`edgedp.text.word_files.WordFile`). A ``dict`` or ``frozenset`` of 100,000 words plus their
``str`` objects costs more memory than the codes themselves in every process that privatizes a word
(bench/reports/2026-11-23-footprint.md: ~13 MB for 100,000 words). Here a list is

* the UTF-8 bytes of ``vocab.txt`` (one word per line; 0.8 MB for words-small),
* an open-addressing hash table (linear probing, at most :data:`_LOAD` full: 5.7 bytes a word) of
  the words' byte offsets in those bytes, each with 7 more bits of its word's hash above it (a
  probe compares bytes only when they agree; int32 entries, int64 past 16 MiB of words), keyed by
  a 64-bit hash of the word's UTF-8 bytes (read as a little-endian integer, modulo 2**31 - 1),
  computed for all words at once with numpy (Horner's rule over byte columns) and for a
  looked-up word by one ``int.from_bytes``,
* the start offset of every line (int32 or int64), built when a word's id or the word of an id is
  first asked for: a list that only answers ``in`` never holds it
  (bench/reports/2026-11-29-footprint.md).

Lookups compare the candidate's bytes with the word's, so a hash collision never returns a wrong
answer; a word's id is the rank of its offset among the line starts. The table holds only the
public vocabulary; a looked-up word never enters it, so input cannot lengthen the probe chains.
``words`` materializes the tuple of all words only when asked.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

import numpy as np

from edgedp.errors import AssetError

_MASK = (1 << 64) - 1
_PRIME = 2**31 - 1  # Horner steps h * 256 + byte stay below 2**40: exact in uint64
_MIX = 0x9E3779B97F4A7C15  # Fibonacci hashing: the table slot is taken from the high bits
_CHUNK = 1 << 13  # words hashed and inserted per numpy step (bounds the temporaries)
_SCAN_BYTES = 1 << 16  # bytes searched for line ends per numpy step
_WORD_CHUNK_BYTES = 1 << 12  # text decoded per chunk of words (a few hundred small str)
_EMPTY = -1
#: The most a hash table is filled: its slots are ``count / _LOAD`` rounded up (linear probing
#: then takes ~2 probes to find a word and ~6 to miss one).
_LOAD = 0.7
#: Bits of a word's hash kept above its offset in its table entry (the tag: bits 25-31 of the
#: mixed hash, below the 32 the home slot is taken from).
_TAG_BITS = 7
#: Word lists of fewer bytes have int32 table entries (24 bits of offset, the tag above them);
#: longer ones int64 entries (40 bits of offset).
_SMALL_BLOB = 1 << 24
#: A line that starts or ends with whitespace (other than its newline), as str.strip() would see it.
PADDED_LINE = re.compile(r"^[^\S\n]|[^\S\n]$", re.MULTILINE)


def _hash(data: bytes) -> int:
    """The word's UTF-8 bytes as a little-endian integer modulo a prime: one C call per word."""
    return int.from_bytes(data, "little") % _PRIME


class Vocabulary:
    """The public word list of a pack: id <-> word, with lookups that map unknown words to -1."""

    __slots__ = (
        "_blob",
        "_count",
        "_offset_bits",
        "_starts",
        "_starts_view",
        "_table",
        "_table_view",
        "_words",
    )

    def __init__(self, words: Iterable[str]) -> None:
        self._init_blob("".join(f"{word}\n" for word in words).encode("utf-8"))

    @classmethod
    def from_lines(cls, blob: bytes) -> Vocabulary:
        """From the bytes of a ``vocab.txt`` (UTF-8, one word per line, a final newline)."""
        vocabulary = cls.__new__(cls)
        vocabulary._init_blob(blob)
        return vocabulary

    def _init_blob(self, blob: bytes) -> None:
        if blob and not blob.endswith(b"\n"):
            blob += b"\n"
        self._blob = blob
        self._count = count = blob.count(b"\n")
        self._words: tuple[str, ...] | None = None
        self._starts: np.ndarray | None = None
        self._starts_view: memoryview | None = None
        starts = self._line_starts()
        size = max(16, int(count / _LOAD) + 1)  # at most _LOAD full, never full
        small = len(blob) < _SMALL_BLOB  # offsets and their tag fit an int32 entry
        self._offset_bits = 24 if small else 40
        # ids while the words are inserted (duplicates are checked by id), then tagged offsets
        self._table = np.full(size, _EMPTY, dtype=np.int32 if small else np.int64)
        values = self._insert_all(np.frombuffer(blob, dtype=np.uint8), starts)
        for first in range(0, size, _CHUNK):  # ids -> tagged offsets, small temporaries
            part = self._table[first : first + _CHUNK]
            filled = np.flatnonzero(part != _EMPTY)
            ids = part[filled].astype(np.int64)
            with np.errstate(over="ignore"):
                mixed = values[ids].astype(np.uint64) * np.uint64(_MIX)
            tags = (mixed >> np.uint64(32 - _TAG_BITS)) & np.uint64((1 << _TAG_BITS) - 1)
            part[filled] = (tags.astype(np.int64) << self._offset_bits) | starts[ids]
        self._table_view = memoryview(self._table.data)  # Python ints, no numpy scalars
        self._starts, self._starts_view = None, None  # built again when an id is asked for

    def _line_starts(self) -> np.ndarray:
        """The start offset of every line and the end of the last (word i is ``blob[starts[i] :
        starts[i + 1] - 1]``), kept (and dropped again after the table is built)."""
        blob = self._blob
        buffer = np.frombuffer(blob, dtype=np.uint8)
        starts = np.empty(self._count + 1, dtype=np.int32 if len(blob) < 2**31 else np.int64)
        starts[0] = filled = 0
        for offset in range(0, len(blob), _SCAN_BYTES):  # line ends, a bounded slice at a time
            ends = np.flatnonzero(buffer[offset : offset + _SCAN_BYTES] == 10)
            starts[filled + 1 : filled + 1 + len(ends)] = ends + (offset + 1)
            filled += len(ends)
        self._starts = starts
        return starts

    def _starts_memory(self) -> memoryview:
        """The line starts as Python ints (built on first use, then kept)."""
        view = self._starts_view
        if view is None:
            starts = self._starts if self._starts is not None else self._line_starts()
            view = self._starts_view = memoryview(starts.data)
        return view

    def _insert_all(self, buffer: np.ndarray, line_starts: np.ndarray) -> np.ndarray:
        """Validate, hash every word with numpy (Horner's rule over byte columns), insert; the
        hashes, by id.

        Everything runs :data:`_CHUNK` words at a time, so that the temporaries stay small next to
        the table (bench/reports/2026-11-23-footprint.md: the vocabulary build's temporaries).
        """
        count = len(line_starts) - 1
        values = np.empty(count, dtype=np.uint32)  # hashes are below _PRIME < 2**31
        for first in range(0, count, _CHUNK):
            last = min(first + _CHUNK, count)
            starts = line_starts[first:last].astype(np.int64)
            chunk = line_starts[first + 1 : last + 1].astype(np.int64) - starts - 1  # in bytes
            text = self._blob[starts[0] : int(line_starts[last])].decode("utf-8")
            # UnicodeDecodeError: the caller names the file (no UTF-8 sequence holds a newline)
            if (chunk == 0).any() or PADDED_LINE.search(text):
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
        size = len(self._table)
        for first in range(0, count, _CHUNK):
            pending = np.arange(first, min(first + _CHUNK, count), dtype=np.int64)
            with np.errstate(over="ignore"):
                home = values[first : first + _CHUNK].astype(np.uint64) * np.uint64(_MIX)
            slots = _home_slots(home, size)
            while pending.size:
                free = self._table[slots] == _EMPTY
                claimed, first_claim = np.unique(slots[free], return_index=True)
                self._table[claimed] = pending[free][first_claim]
                moving = np.ones(pending.size, dtype=bool)
                moving[np.flatnonzero(free)[first_claim]] = False
                pending, slots = pending[moving], slots[moving]
                self._check_duplicates(pending, self._table[slots], values)
                slots += 1
                slots[slots == size] = 0
        return values

    def _check_duplicates(self, words: np.ndarray, holders: np.ndarray, values: np.ndarray) -> None:
        """Refuse a word equal to the word holding the slot it passes (equal hashes compare bytes)."""
        same = values[words] == values[holders]
        for word, holder in zip(words[same].tolist(), holders[same].tolist(), strict=True):
            if self._bytes(word) == self._bytes(holder):
                raise AssetError("vocabulary has duplicate words")

    def _bytes(self, word_id: int) -> bytes:
        starts = self._starts_memory()
        return self._blob[starts[word_id] : starts[word_id + 1] - 1]

    def _offset(self, word: str) -> int:
        """The byte offset of ``word``'s line in the blob, -1 if it is not a word of the list."""
        data = word.encode("utf-8", "surrogatepass")
        if b"\n" in data:  # no word of a list holds a line break
            return -1
        line, length = data + b"\n", len(data) + 1
        table, blob, bits = self._table_view, self._blob, self._offset_bits
        size, low = len(table), (1 << bits) - 1
        mixed = (_hash(data) * _MIX) & _MASK
        slot = ((mixed >> 32) * size) >> 32  # as _home_slots
        tag = (mixed >> (32 - _TAG_BITS)) & ((1 << _TAG_BITS) - 1)
        while (entry := table[slot]) != _EMPTY:
            if entry >> bits == tag and blob[(offset := entry & low) : offset + length] == line:
                return offset
            slot += 1
            if slot == size:
                slot = 0
        return -1

    def _id(self, word: str) -> int:
        offset = self._offset(word)
        return -1 if offset < 0 else bisect_left(self._starts_memory(), offset)

    def __len__(self) -> int:
        return self._count

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self._offset(word) >= 0

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
        """Every word in id order (never holds the whole list: :meth:`word_chunks`)."""
        for chunk in self.word_chunks():
            yield from chunk

    def word_chunks(self) -> Iterator[Sequence[str]]:
        """Every word in id order, a chunk of about 4 KB of text decoded at a time (a few hundred
        words: the whole list as ``str`` would cost megabytes, and larger chunks leave the
        allocator holding their pages)."""
        if self._words is not None:
            yield self._words
            return
        blob, start = self._blob, 0
        while start < len(blob):
            end = blob.find(b"\n", start + _WORD_CHUNK_BYTES)
            end = len(blob) if end < 0 else end + 1
            yield blob[start:end].decode("utf-8").split("\n")[:-1]
            start = end

    @property
    def words(self) -> tuple[str, ...]:
        """Every word in id order (built on first use: one ``str`` per word costs megabytes)."""
        if self._words is None:
            self._words = tuple(self._blob.decode("utf-8").split("\n")[:-1])
        return self._words

    def ids(self, words: Iterable[str]) -> np.ndarray:
        """Word ids as int64, -1 for words not in the vocabulary."""
        return np.fromiter((self._id(word) for word in words), dtype=np.int64)


def _home_slots(home: np.ndarray, size: int) -> np.ndarray:
    """The home slots of mixed hashes in a table of ``size`` slots: the top 32 bits scaled to
    ``[0, size)`` (``(h >> 32) * size >> 32``, exact in uint64 for size < 2**32; lookups compute
    the same with Python ints)."""
    slots: np.ndarray = (((home >> np.uint64(32)) * np.uint64(size)) >> np.uint64(32)).astype(
        np.int64
    )
    return slots
