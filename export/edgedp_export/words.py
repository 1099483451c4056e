"""Building a ``words`` pack: vocabulary selection, binary codes, manifest."""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass
from pathlib import Path

import faiss
import numpy as np
from tqdm import tqdm

import edgedp_export
from edgedp.errors import InputError
from edgedp.text import normalize_word, segment
from edgedp_export.binarize import binarize
from edgedp_export.pack_writer import lines_writer, npy_writer, write_pack
from edgedp_export.sources import WordVectors

MAX_WORD_CHARS = 100


@dataclass(frozen=True)
class WordsConfig:
    """What to build; ``command`` is the canonical command line recorded in the manifest."""

    name: str
    words: int
    bits: int
    method: str
    seed: int
    command: str


def is_vocabulary_word(key: str) -> bool:
    """True if the runtime tokenizer reads ``key`` as exactly one word slot with this lookup key."""
    if not key or len(key) > MAX_WORD_CHARS:
        return False
    segmented = segment(key)
    return segmented.words == (key,) and segmented.pieces == (None,)


def select_vocabulary(source: WordVectors, size: int) -> tuple[list[str], np.ndarray]:
    """The first ``size`` usable words in source order, with the row of each in the source.

    A token is usable if its normalized form is a single word for the runtime tokenizer (so
    punctuation tokens such as ``,`` or ``'s`` are dropped); for cased sources the first (most
    frequent) spelling of each normalized form wins.
    """
    chosen: dict[str, int] = {}
    for row, token in enumerate(tqdm(source.words, desc="selecting vocabulary", unit="word")):
        key = normalize_word(token)
        if key not in chosen and is_vocabulary_word(key):
            chosen[key] = row
            if len(chosen) == size:
                break
    if len(chosen) < size:
        raise InputError(f"the source has only {len(chosen)} usable words, {size} requested")
    return list(chosen), np.fromiter(chosen.values(), dtype=np.int64)


def build_words_pack(source: WordVectors, config: WordsConfig, out: Path, *, force: bool) -> Path:
    """Select, binarize and write a verified words pack at ``out``."""
    if config.words < 2:
        raise InputError("a words pack needs at least 2 words")
    words, rows = select_vocabulary(source, config.words)
    vectors = np.asarray(source.vectors[rows], dtype=np.float32)  # rows are increasing
    codes = binarize(vectors, method=config.method, bits=config.bits, seed=config.seed)
    manifest = {
        "kind": "words",
        "name": config.name,
        "description": (
            f"{len(words):,} most frequent words of {source.provenance['name']}, "
            f"{config.bits}-bit {config.method} binary codes, exact Hamming search"
        ),
        "source": source.provenance,
        "build_command": config.command,
        "built_with": {
            "edgedp-export": edgedp_export.__version__,
            "numpy": np.__version__,
            "faiss-cpu": faiss.__version__,
            "tokenizers": importlib.metadata.version("tokenizers"),
        },
        "vocabulary": {
            "file": "vocab.txt",
            "size": len(words),
            "normalization": "NFKC, lower case",
            "order": "source order (corpus frequency for GloVe), most frequent first",
        },
        "embedding": {"dims": int(vectors.shape[1])},
        "codes": {
            "file": "codes.npy",
            "bits": config.bits,
            "bit_order": "big",
            "method": config.method,
            "seed": config.seed,
        },
        "index": {"type": "flat"},
    }
    files = {"vocab.txt": lines_writer(words), "codes.npy": npy_writer(codes)}
    return write_pack(out, manifest, files, force=force)
