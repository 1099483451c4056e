"""Building a ``words`` pack: vocabulary selection, binary codes, index, vectors, manifest.

The command line is :mod:`edgedp_export.commands.words`.
"""

from __future__ import annotations

import importlib.metadata
import sys
from dataclasses import dataclass
from pathlib import Path

import faiss
import numpy as np
from tqdm import tqdm

import edgedp_export
from edgedp.errors import InputError
from edgedp.evaluation.calibration import exact_pairwise_statistics, sampled_pairwise_statistics
from edgedp.privacy.randomness import public_statistics_source
from edgedp.text.segmentation import normalize_word, segment
from edgedp_export.binarize import REPORTED_METHODS, binarize
from edgedp_export.calibration import hamming_statistics
from edgedp_export.custext_sets import DEFAULT_CUSTEXT_K, add_custext_sets
from edgedp_export.hamming_index import DEFAULT_PARAMETERS, build_binary_index, index_writer
from edgedp_export.neighbours import DEFAULT_NEIGHBOURS, add_neighbour_table
from edgedp_export.pack_writer import lines_writer, npy_writer, write_pack
from edgedp_export.sources import WordVectors

#: Named configurations; ``small`` is the bundled default pack.
PRESETS: dict[str, dict[str, object]] = {
    "small": {
        "source": "glove-6b-50d",
        "words": 100_000,
        "bits": 256,
        "method": "autoencoder",
        "vectors": "none",
        "index": "flat",
        "report": True,
    },
    "medium": {
        "source": "glove-6b-50d",
        "words": 100_000,
        "bits": 256,
        "method": "autoencoder",
        "vectors": "float16",
        "index": "flat",
        "report": False,
    },
    "full": {
        "source": "glove-6b-50d",
        "words": "all",
        "bits": 256,
        "method": "autoencoder",
        "vectors": "float16",
        "index": "flat",
        "report": False,
    },
    "mldp300": {
        "source": "glove-840b-300d-mldp",
        "words": "all",
        "bits": 256,
        "method": "autoencoder",
        "vectors": "float32",
        "index": "flat",
        "report": False,
    },
}
BASE_SETTINGS: dict[str, object] = {
    "words": 100_000,
    "bits": 256,
    "method": "random-hyperplane",
    "seed": 0,
    "vectors": "none",
    "index": "flat",
    "index_parameter": None,
    "search_parameter": None,
    "report": False,
}
REPORT_BITS = (64, 128, 256, 512)
QUALITY_SAMPLE = 1000
SPEARMAN_PAIRS = 100_000
EXACT_PAIRWISE_LIMIT = 150_000  # words; above this the Euclidean average is sampled
SAMPLED_PAIRS = 10_000_000
MAX_WORD_CHARS = 100


@dataclass(frozen=True)
class WordsConfig:
    """What to build. ``command`` is the canonical command line recorded in the manifest."""

    name: str
    words: int | None  # None: every usable word of the source
    bits: int
    method: str
    seed: int
    command: str
    vectors: str = "none"
    index: str = "flat"
    index_parameter: int | None = None
    search_parameter: int | None = None
    report: bool = False
    restrict_to: frozenset[str] | None = None  # keep only these (normalized) words
    neighbours: int = DEFAULT_NEIGHBOURS  # neighbour table width with vectors (0: no table)
    custext: int = DEFAULT_CUSTEXT_K  # CusText output-set size of the stored sets (0: none)
    language_model: str | None = None  # the lm pack that context decoding of this pack loads


def is_vocabulary_word(key: str) -> bool:
    """True if the runtime tokenizer reads ``key`` as exactly one word slot with this lookup key."""
    if not key or len(key) > MAX_WORD_CHARS or not key.isprintable():
        return False
    segmented = segment(key)
    return segmented.words == (key,) and segmented.pieces == (None,)


def select_vocabulary(
    source: WordVectors, size: int | None, *, only: frozenset[str] | None = None
) -> tuple[list[str], np.ndarray]:
    """The first ``size`` usable words in source order (all of them for None), with their rows.

    A token is usable if its normalized form is a single word for the runtime tokenizer (so
    punctuation tokens such as ``,`` or ``'s`` are dropped) and, when ``only`` is given, is in it;
    for cased sources the first (most frequent) spelling of each normalized form wins.
    """
    chosen: dict[str, int] = {}
    for row, token in enumerate(tqdm(source.words, desc="selecting vocabulary", unit="word")):
        key = normalize_word(token)
        if key not in chosen and (only is None or key in only) and is_vocabulary_word(key):
            chosen[key] = row
            if len(chosen) == size:
                break
    if size is not None and len(chosen) < size:
        raise InputError(f"the source has only {len(chosen)} usable words, {size} requested")
    return list(chosen), np.fromiter(chosen.values(), dtype=np.int64)


def build_words_pack(source: WordVectors, config: WordsConfig, out: Path, *, force: bool) -> Path:
    """Select, binarize, index, calibrate and write a verified words pack at ``out``."""
    if config.words is not None and config.words < 2:
        raise InputError("a words pack needs at least 2 words")
    words, rows = select_vocabulary(source, config.words, only=config.restrict_to)
    if len(words) < 2:
        raise InputError("a words pack needs at least 2 words")
    vectors = np.asarray(source.vectors[rows], dtype=np.float32)  # rows are increasing
    codes = binarize(vectors, method=config.method, bits=config.bits, seed=config.seed)
    _warn_of_shared_codes(words, codes)
    stored = None if config.vectors == "none" else vectors.astype(config.vectors)
    files = {"vocab.txt": lines_writer(words), "codes.npy": npy_writer(codes)}
    manifest = _manifest(source, config, words, vectors)
    manifest["calibration"] = _calibration(
        codes, vectors if stored is None else stored, stored_vectors=stored is not None
    )
    if stored is not None:
        files["vectors.npy"] = npy_writer(stored)
        covariance = np.atleast_2d(np.cov(stored.astype(np.float64), rowvar=False))
        files["covariance.npy"] = npy_writer(covariance)
        manifest["euclidean"] = {
            "vectors_file": "vectors.npy",
            "covariance_file": "covariance.npy",
            "dtype": config.vectors,
            "dims": int(vectors.shape[1]),
            "covariance": "sample covariance of the stored vectors (numpy.cov, float64)",
        }
        add_neighbour_table(stored, config.neighbours, files, manifest["euclidean"])
    add_custext_sets(config.custext, codes, stored, files, manifest)
    if config.index != "flat":
        build, search = DEFAULT_PARAMETERS[config.index]
        parameter = config.index_parameter or build
        files["index.faissb"] = index_writer(build_binary_index(codes, config.index, parameter))
        manifest["index"] = {
            "type": config.index,
            "file": "index.faissb",
            "build_parameter": parameter,
            "search_parameter": config.search_parameter or search,
        }
    if config.report:
        report = _report(vectors, config, words=words, codes=codes, language=source.language)
        manifest["quality"] = report["chosen"]
        files["REPORT.md"] = lambda path: path.write_text(report["markdown"], encoding="utf-8")
    return write_pack(out, manifest, files, force=force)


def shared_codes(codes: np.ndarray) -> np.ndarray:
    """Ids of the words whose code is also a more frequent (lower-id) word's.

    The Hamming nearest-neighbour search breaks ties to the lower id, so BRR and Hamming Vickrey
    never release such a word unchanged (a utility loss, not a privacy one: the release is still
    a vocabulary word drawn by the mechanism).
    """
    _, first = np.unique(codes, axis=0, return_index=True)
    shadowed = np.ones(len(codes), dtype=bool)
    shadowed[first] = False
    return np.flatnonzero(shadowed)


def _warn_of_shared_codes(words: list[str], codes: np.ndarray) -> None:
    shadowed = shared_codes(codes)
    if len(shadowed):
        examples = ", ".join(words[i] for i in shadowed[:5])
        print(
            f"edgedp-export: warning: {len(shadowed):,} of {len(words):,} words share their code "
            f"with a more frequent word ({examples}, ...): BRR and Hamming Vickrey never release "
            "them unchanged; give more --bits or another --method",
            file=sys.stderr,
        )


def _manifest(
    source: WordVectors, config: WordsConfig, words: list[str], vectors: np.ndarray
) -> dict[str, object]:
    parts = [f"{config.bits}-bit {config.method} binary codes", f"{config.index} Hamming index"]
    if config.vectors != "none":
        parts.append(f"{config.vectors} vectors and covariance")
    stated: dict[str, object] = {}
    if source.language is not None:
        stated["language"] = source.language
    if config.language_model is not None:
        stated["language_model"] = config.language_model
    return {
        "kind": "words",
        "name": config.name,
        **stated,
        "description": (
            f"{len(words):,} most frequent words of {source.provenance['name']}: "
            + ", ".join(parts)
        ),
        "source": source.provenance,
        "build_command": config.command,
        "built_with": {
            "edgedp-export": edgedp_export.__version__,
            "numpy": np.__version__,
            "faiss-cpu": faiss.__version__,
            "tokenizers": importlib.metadata.version("tokenizers"),
            **_torch_version(config.method),
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


def _torch_version(method: str) -> dict[str, str]:
    return {"torch": importlib.metadata.version("torch")} if method == "autoencoder" else {}


def _calibration(codes: np.ndarray, vectors: np.ndarray, *, stored_vectors: bool) -> dict:
    """Exact pairwise statistics per metric (sampled average above EXACT_PAIRWISE_LIMIT words)."""
    euclidean = (
        exact_pairwise_statistics(
            vectors, progress=lambda blocks: tqdm(blocks, desc="exact pairwise distances")
        )
        if len(vectors) <= EXACT_PAIRWISE_LIMIT
        else sampled_pairwise_statistics(
            vectors,
            pairs=SAMPLED_PAIRS,
            rng=public_statistics_source(0),
        )
    )
    euclidean["vectors"] = (
        "the pack's stored vectors"
        if stored_vectors
        else "the float32 source vectors of the vocabulary (not stored in this pack)"
    )
    return {"hamming": hamming_statistics(codes), "euclidean": euclidean}


def _report(
    vectors: np.ndarray,
    config: WordsConfig,
    *,
    words: list[str] | None = None,
    codes: np.ndarray | None = None,
    language: str | None = None,
) -> dict[str, object]:
    """The binarization comparison committed with the pack, and the chosen configuration's row;
    for a pack that states its ``language``, also the stem share of its Hamming neighbours beside
    the default English pack's (:mod:`edgedp_export.neighbour_quality`)."""
    from edgedp_export.quality import binarization_report, float16_agreement  # scipy: 6 s import

    methods = {
        name: (lambda v, b, s, m=name: binarize(v, method=m, bits=b, seed=s))
        for name in REPORTED_METHODS
    }
    rows = binarization_report(
        vectors,
        methods,
        REPORT_BITS,
        seed=config.seed,
        sample_size=QUALITY_SAMPLE,
        pair_count=SPEARMAN_PAIRS,
    )
    half = float16_agreement(
        vectors,
        np.arange(min(QUALITY_SAMPLE, len(vectors))),
        (1.0, 5.0, 10.0, 20.0),
        seed=config.seed,
    )
    chosen = next(
        (row for row in rows if row["method"] == config.method and row["bits"] == config.bits), None
    )
    lines = [
        f"# Binarization report: {config.name}",
        "",
        f"{len(vectors):,} words, {vectors.shape[1]} dims. Overlap: expected share of each word's "
        f"10 nearest neighbours by float32 cosine that are among its 10 nearest by Hamming distance "
        f"(ties broken uniformly), over {min(QUALITY_SAMPLE, len(vectors))} sampled words. "
        f"Spearman: Hamming vs cosine distance on {SPEARMAN_PAIRS:,} random pairs. Seed "
        f"{config.seed}. Rebuilt by: `{config.command}`.",
        "",
        "| method | bits | 10-NN overlap | Spearman | code bytes |",
        "|---|---|---|---|---|",
        *(
            f"| {r['method']} | {r['bits']} | {r['neighbour_overlap_10']:.3f} | {r['spearman']:.3f} "
            f"| {r['code_bytes']:,} |"
            for r in rows
        ),
        "",
        "float16 storage: share of Euclidean nearest neighbours unchanged vs float32 "
        "(clean: nearest other word; madlib: Madlib-noised queries at that epsilon):",
        "",
        *(f"- {key}: {value:.4f}" for key, value in half.items()),
        "",
    ]
    stems: dict[str, object] = {}
    if language is not None and words is not None and codes is not None:
        stems, stem_lines = _stem_report(words, codes, config.seed)
        lines += stem_lines
    return {
        "markdown": "\n".join(lines),
        "chosen": {
            **(chosen or {}),
            "float16_neighbour_agreement": half,
            **({"stem_neighbours_10": stems} if stems else {}),
        },
    }


def _stem_report(words: list[str], codes: np.ndarray, seed: int) -> tuple[dict, list[str]]:
    """The stem share of this pack's 10 Hamming neighbours and, measured the same way in the same
    run, of the default words pack's (when it is installed)."""
    from edgedp.registry import load_pack
    from edgedp_export.neighbour_quality import NEIGHBOURS, PREFIX, SAMPLE, stem_neighbour_share

    here = stem_neighbour_share(words, codes, seed=seed)
    rows = [("this pack", len(words), here)]
    try:
        default = load_pack(None, kind="words")
        vocabulary = list(default.vocabulary.words)
        measured = stem_neighbour_share(vocabulary, np.asarray(default.codes), seed=seed)
        rows.append((default.name, len(vocabulary), measured))
    except Exception as error:
        print(f"edgedp-export: no default words pack to compare: {error}", file=sys.stderr)
    lines = [
        "Stem neighbours: share of each word's "
        f"{NEIGHBOURS} nearest words by Hamming distance that share its first {PREFIX} letters "
        "(or, for shorter words, begin with it or it with them: inflections and derivations), "
        f"over {SAMPLE} sampled words of at least {PREFIX} letters (seed {seed}); chance: the "
        "same share for random vocabulary words "
        "(edgedp_export.neighbour_quality, measured in this build for both packs):",
        "",
        "| pack | words | stem share of 10 Hamming neighbours | chance |",
        "|---|---|---|---|",
        *(
            f"| {name} | {size:,} | {row['stem_share']:.3f} | {row['chance']:.3f} |"
            for name, size, row in rows
        ),
        "",
    ]
    return {("this_pack" if name == "this pack" else name): row for name, _, row in rows}, lines
