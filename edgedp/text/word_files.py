"""A sorted public word list answered from its file: membership without holding the list.

The guard's lists (names, places, each language's common words, ...) only answer "is this word on
the list?", once per word of a message. Held in memory, even compactly
(:class:`edgedp.text.vocabulary.Vocabulary`: UTF-8 bytes and a hash table), the names and places
alone cost 4.3 MB of every process (bench/reports/2026-11-29-footprint.md). A :class:`WordFile`
keeps the file open and, per block of about :data:`BLOCK_BYTES` bytes, the block's first word and
its offset; a lookup finds the block by bisection and reads that block (``os.pread``, one call)
into a temporary: a few kilobytes resident per list whatever its length.

The file is checked when opened (read once, a chunk at a time): UTF-8, one word a line, no empty
or padded line, the words strictly increasing as bytes (sorted and unique), so that a word can
only be in the block bisection finds. The open descriptor keeps the file that was checked: a
package upgrade that replaces it does not change the answers of a running process.
"""

from __future__ import annotations

import os
import threading
import weakref
from bisect import bisect_right
from collections.abc import Iterator
from pathlib import Path

from edgedp.errors import AssetError
from edgedp.text.vocabulary import PADDED_LINE

#: Bytes per block of a list (a lookup reads one block and searches it). A quarter page: the
#: guard's lookups of a chat message 0.92 -> 0.58 ms (bench/reports/2026-11-29-guard.md), for
#: four times the blocks' first words in memory (about 50 KB for the English lists).
BLOCK_BYTES = 1024
#: Bytes read per step when a list is checked or iterated.
_CHUNK_BYTES = 1 << 16


class WordFile:
    """A public word list in a file, sorted by UTF-8 bytes: ``word in words`` reads one block.

    Parameters
    ----------
    path : pathlib.Path
        The list: ``#`` comment lines at its top (its source and licence), then one word a line
        (UTF-8), sorted by their bytes, each once (so no word starts with ``#``).

    Raises
    ------
    ~edgedp.AssetError
        If the file cannot be read, is not UTF-8, has an empty or padded line, or its words are
        not strictly increasing.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "names.txt"
    ...     _ = path.write_text("# source: made up\\nmaria\\nokafor\\n", encoding="utf-8")
    ...     names = WordFile(path)
    ...     found = ("okafor" in names, "okafo" in names, "# source: made up" in names)
    >>> found, len(names), list(names)
    ((True, False, False), 2, ['maria', 'okafor'])
    """

    __slots__ = (
        "__weakref__",
        "_count",
        "_descriptor",
        "_firsts",
        "_last",
        "_lock",
        "_name",
        "_starts",
    )

    def __init__(self, path: Path) -> None:
        self._name = path.name
        self._lock = threading.Lock()  # only where the platform has no positional read
        #: The block read last, as bytes or (once reused) the set of its words: sorted lookups
        #: read each block once.
        self._last: tuple[int, bytes | frozenset[bytes]] = (-1, b"")
        try:
            self._descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        except OSError as error:
            raise AssetError(f"cannot read the word list {path}: {error}") from None
        try:
            self._index()
        except OSError as error:
            os.close(self._descriptor)
            raise AssetError(f"cannot read the word list {path}: {error}") from None
        except (AssetError, UnicodeDecodeError) as error:
            os.close(self._descriptor)
            raise AssetError(f"{path.name}: {error}") from None
        weakref.finalize(self, os.close, self._descriptor)

    @classmethod
    def empty(cls) -> WordFile:
        """A list of no words (a language without that list).

        Examples
        --------
        >>> "maria" in WordFile.empty(), len(WordFile.empty())
        (False, 0)
        """
        words = cls.__new__(cls)
        words._name, words._descriptor, words._lock = "(empty)", -1, threading.Lock()
        words._last = (-1, b"")
        words._count, words._firsts, words._starts = 0, [], [0]
        return words

    def _index(self) -> None:
        """Check the words and keep each block's first word and offset (module docstring)."""
        header = b""
        while (line := self._read_line(len(header))).startswith(b"#"):
            header += line
        firsts: list[bytes] = []
        starts: list[int] = []
        count, previous, block, end = 0, b"", len(header), len(header)
        for chunk_start, chunk in self._chunks(len(header)):
            text = chunk.decode("utf-8")  # UnicodeDecodeError: the caller names the file
            if chunk.startswith(b"\n") or b"\n\n" in chunk or PADDED_LINE.search(text):
                raise AssetError("a word line is empty or padded")
            lines = chunk.split(b"\n")[:-1]
            if (
                (count and lines[0] <= previous)
                or lines != sorted(lines)
                or (len(set(lines)) < len(lines))
            ):
                raise AssetError("the words are not sorted by their bytes, each once")
            end = chunk_start + len(chunk)
            while block < end:  # the first line starting at or after each block's offset
                at = 0 if block <= chunk_start else chunk.find(b"\n", block - chunk_start - 1) + 1
                if at == len(chunk):
                    break  # the block starts with the next chunk's first line
                firsts.append(chunk[at : chunk.index(b"\n", at)])
                starts.append(chunk_start + at)
                block = chunk_start + at + BLOCK_BYTES
            count, previous = count + len(lines), lines[-1]
        self._count, self._firsts, self._starts = count, firsts, [*starts, end]

    def _read_line(self, offset: int) -> bytes:
        """The line at ``offset`` (with its newline; ``b""`` at the end of the file)."""
        line = b""
        while not line.endswith(b"\n"):
            part = self._read(offset + len(line), 256)
            if not part:
                return line
            newline = part.find(b"\n")
            line += part if newline < 0 else part[: newline + 1]
        return line

    def _chunks(self, offset: int) -> Iterator[tuple[int, bytes]]:
        """``(offset, bytes)`` of whole lines from ``offset`` on, about :data:`_CHUNK_BYTES` at a
        time (a last line without a newline gets one)."""
        rest = b""
        while True:
            part = self._read(offset + len(rest), _CHUNK_BYTES)
            if not part:
                if rest:
                    yield offset, rest + b"\n"
                return
            data = rest + part
            end = data.rfind(b"\n") + 1
            if end:
                yield offset, data[:end]
            offset, rest = offset + end, data[end:]

    def _read(self, offset: int, size: int) -> bytes:
        if self._descriptor < 0:
            return b""
        if hasattr(os, "pread"):
            return os.pread(self._descriptor, size, offset)
        with self._lock:  # Windows: no positional read
            os.lseek(self._descriptor, offset, os.SEEK_SET)
            return os.read(self._descriptor, size)

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str) or not word:
            return False
        data = word.encode("utf-8", "surrogatepass")
        block = bisect_right(self._firsts, data) - 1
        if block < 0 or b"\n" in data:
            return False
        last_block, words = self._last  # one tuple: a thread sees a block and its words together
        if last_block == block:  # sorted lookups: the block read last, as a set after one reuse
            if not isinstance(words, frozenset):
                words = frozenset(words.split(b"\n"))
                self._last = (block, words)
            return data in words
        start, end = self._starts[block], self._starts[block + 1]
        lines = b"\n" + self._read(start, end - start) + b"\n"  # the last line may have none
        self._last = (block, lines)
        return lines.find(b"\n" + data + b"\n") >= 0

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[str]:
        return self.iter_words()

    def iter_words(self) -> Iterator[str]:
        """Every word in order, read a chunk at a time (never the whole list at once)."""
        if not self._count:
            return
        for _, chunk in self._chunks(self._starts[0]):
            yield from chunk.decode("utf-8").split("\n")[:-1]

    def __repr__(self) -> str:
        return f"WordFile({self._name!r}, {self._count} words)"
