"""Word packs: the public vocabulary and its binary codes, as loaded from a pack directory.

Layout of a ``words`` pack (see ``manifest.json`` of the bundled pack for a full example):

* ``vocab.txt``: UTF-8, one normalized word per line, most frequent first (the GloVe order); line i is
  word id i.
* ``codes.npy``: uint8 array (vocabulary size, bits / 8), the packed binary code of each word with the
  bit order recorded in the manifest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from edgedp.errors import AssetError
from edgedp.hamming import INDEX_TYPES, HammingIndex
from edgedp.manifest import REBUILD_HINT, Manifest

BIT_ORDERS = ("big",)


class Vocabulary:
    """The public word list of a pack: id <-> word, with lookups that map unknown words to -1."""

    __slots__ = ("_ids", "_words")

    def __init__(self, words: Iterable[str]) -> None:
        self._words: tuple[str, ...] = tuple(words)
        self._ids: Mapping[str, int] = MappingProxyType(
            {word: index for index, word in enumerate(self._words)}
        )
        if len(self._ids) != len(self._words):
            raise AssetError("vocabulary has duplicate words")

    def __len__(self) -> int:
        return len(self._words)

    def __contains__(self, word: object) -> bool:
        return word in self._ids

    def __getitem__(self, word_id: int) -> str:
        return self._words[word_id]

    @property
    def words(self) -> tuple[str, ...]:
        return self._words

    def ids(self, words: Iterable[str]) -> np.ndarray:
        """Word ids as int64, -1 for words not in the vocabulary."""
        lookup = self._ids.get
        return np.fromiter((lookup(word, -1) for word in words), dtype=np.int64)


@dataclass(frozen=True, slots=True, eq=False)
class WordPack:
    """A loaded ``words`` pack. Arrays are read-only memory maps; build one with ``load_pack``."""

    name: str
    path: Path
    manifest: Manifest
    vocabulary: Vocabulary
    codes: np.ndarray
    index: HammingIndex

    @property
    def bits(self) -> int:
        """Length of each word's binary code."""
        return self.codes.shape[1] * 8

    @property
    def kind(self) -> str:
        return "words"

    def describe(self) -> dict[str, Any]:
        """A short summary for ``edgedp packs info``."""
        data = self.manifest.data
        return {
            "name": self.name,
            "kind": self.kind,
            "path": str(self.path),
            "digest": self.manifest.digest,
            "vocabulary": len(self.vocabulary),
            "bits": self.bits,
            "index": self.index.index_type,
            "source": data.get("source", {}).get("name"),
            "license": data.get("source", {}).get("license"),
            "bytes": sum(entry["bytes"] for entry in data["files"].values()),
        }


def _read_vocabulary(manifest: Manifest, size: int) -> Vocabulary:
    path = manifest.file(manifest.field("vocabulary", "file", str))
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise AssetError(
            f"pack {manifest.directory}: {path.name} is not UTF-8; {REBUILD_HINT}"
        ) from None
    words = text.split("\n")
    if words and words[-1] == "":
        words.pop()
    if len(words) != size:
        raise AssetError(
            f"pack {manifest.directory}: {path.name} has {len(words)} words, the manifest says "
            f"{size}; {REBUILD_HINT}"
        )
    if any(not word or word != word.strip() for word in words):
        raise AssetError(f"pack {manifest.directory}: {path.name} has empty or padded lines")
    return Vocabulary(words)


def load_word_pack(manifest: Manifest) -> WordPack:
    """Build a :class:`WordPack` from a validated manifest (files already verified)."""
    size = manifest.field("vocabulary", "size", int)
    bits = manifest.field("codes", "bits", int)
    if size < 2 or bits <= 0 or bits % 8:
        raise AssetError(
            f"pack {manifest.directory}: needs >= 2 words and a positive multiple of 8 bits "
            f"(got {size} words, {bits} bits)"
        )
    bit_order = manifest.field("codes", "bit_order", str)
    if bit_order not in BIT_ORDERS:
        raise AssetError(f"pack {manifest.directory}: unsupported bit order {bit_order!r}")
    index_type = manifest.field("index", "type", str)
    if index_type not in INDEX_TYPES:
        raise AssetError(
            f"pack {manifest.directory}: index type {index_type!r} is not supported by this edgedp "
            f"({', '.join(INDEX_TYPES)}); upgrade edgedp"
        )
    vocabulary = _read_vocabulary(manifest, size)
    codes = manifest.array(manifest.field("codes", "file", str), np.uint8, (size, bits // 8))
    return WordPack(
        name=manifest.name,
        path=manifest.directory,
        manifest=manifest,
        vocabulary=vocabulary,
        codes=codes,
        index=HammingIndex(codes, index_type=index_type),
    )
