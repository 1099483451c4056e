"""``edgedp-export words``: vocabulary selection, binary codes, manifest -> a ``words`` pack.

edgedp-export words --source glove-6b-50d --words 100000 --bits 256 --out DIR [--force]
edgedp-export words --source-file vectors.txt --words 5000 --out DIR
edgedp-export words --default --out assets/words-small     (the bundled default pack)
"""

from __future__ import annotations

import argparse
import importlib.metadata
import sys
from dataclasses import dataclass
from pathlib import Path

import faiss
import numpy as np
from tqdm import tqdm

import edgedp_export
from edgedp.errors import InputError
from edgedp.text import normalize_word, segment
from edgedp_export.binarize import METHODS, binarize
from edgedp_export.pack_writer import lines_writer, npy_writer, write_pack
from edgedp_export.sources import SOURCES, WordVectors, load_source

NAME = "words"
HELP = "build a words pack (vocabulary + binary codes)"
DEFAULT_WORDS_PACK = {
    "source": "glove-6b-50d",
    "words": 100_000,
    "bits": 256,
    "method": "random-hyperplane",
    "seed": 0,
    "name": "words-small",
}

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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--default", action="store_true", help="the bundled default pack's settings (overridable)"
    )
    parser.add_argument("--source", choices=sorted(SOURCES), help="a registry source of vectors")
    parser.add_argument("--source-file", type=Path, help="GloVe/word2vec text file of vectors")
    parser.add_argument("--words", type=int, help="vocabulary size (most frequent words)")
    parser.add_argument("--bits", type=int, help="code length in bits (multiple of 8)")
    parser.add_argument("--method", choices=METHODS, help="binarization method")
    parser.add_argument("--seed", type=int, help="seed of the binarization (public)")
    parser.add_argument("--name", help="pack name (default: the output directory's name)")
    parser.add_argument("--out", type=Path, required=True, help="pack directory to write")
    parser.add_argument("--force", action="store_true", help="replace an existing pack")


def run(args: argparse.Namespace) -> None:
    settings = (
        dict(DEFAULT_WORDS_PACK)
        if args.default
        else {key: DEFAULT_WORDS_PACK[key] for key in ("words", "bits", "method", "seed")}
    )
    for key in ("source", "words", "bits", "method", "seed", "name"):
        if getattr(args, key) is not None:
            settings[key] = getattr(args, key)
    if args.source_file is not None:
        settings.pop("source", None)
    settings.setdefault("name", args.out.name)
    source_arg = (
        f"--source {settings['source']}"
        if "source" in settings
        else f"--source-file {args.source_file.name}"
    )
    command = (
        f"edgedp-export words {source_arg} --words {settings['words']} "
        f"--bits {settings['bits']} --method {settings['method']} --seed {settings['seed']} "
        f"--name {settings['name']} --out {settings['name']}"
    )
    source = load_source(settings.get("source"), args.source_file)
    config = WordsConfig(
        settings["name"],
        settings["words"],
        settings["bits"],
        settings["method"],
        settings["seed"],
        command,
    )
    out = build_words_pack(source, config, args.out, force=args.force)
    print(f"wrote {out}", file=sys.stderr)
