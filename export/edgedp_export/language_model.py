"""Estimating a public bigram language model and writing it as an ``lm`` pack.

The model (:mod:`edgedp.words.language_model` reads it): interpolated absolute discounting with
Kneser-Ney continuation unigrams, over the ids of a words pack's vocabulary plus the unknown word
and the sentence end, trained on sentences cut by :func:`edgedp.words.language_model.slot_sentences`
(the decoder's own rule). With ``c(v, w)`` the bigram counts, ``D = n1 / (n1 + 2 n2)`` (Ney's
discount from the numbers of bigrams seen once and twice), ``N(w)`` the number of distinct contexts
``w`` follows and ``D1`` the same discount of those:

    P_unigram(w) = max(N(w) - D1, 0) / sum N + D1 * |{w : N(w) > 0}| / sum N / (V + 2)
    P(w | v)     = max(c(v, w) - D, 0) / c(v) + D * |{w : c(v, w) > 0}| / c(v) * P_unigram(w)

Only bigrams seen at least ``min_count`` times are stored (their full interpolated probability);
the runtime gives the others the mass left, in proportion to the unigram (backoff form). Pruning
singletons keeps the pack small: they are most of the distinct bigrams, and the interpolated
estimate already gives each of them a share through the unigram.

Training uses each corpus's ``train`` split; the ``validation`` split gives the held-out
perplexity recorded in the manifest; the ``test`` split is never read.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import edgedp
from edgedp.errors import InputError
from edgedp.words.language_model import LanguageModelPack, sentence_ids
from edgedp.words.pack import WordPack
from edgedp_export.corpus import PublicCorpus
from edgedp_export.pack_writer import npy_writer, write_pack

#: Bigrams seen fewer times than this are not stored (see the module docstring).
DEFAULT_MIN_COUNT = 2
_FILES = {
    "unigram": "unigram.npy",
    "rows": "rows.npy",
    "following": "following.npy",
    "logprob": "logprob.npy",
}


@dataclass(frozen=True)
class LanguageModelArrays:
    """The estimated model in the pack's layout, and the discounts used."""

    log_unigram: np.ndarray  # (V + 2,) float32
    rows: np.ndarray  # (V + 3,) int64
    following: np.ndarray  # (bigrams,) int32
    logprob: np.ndarray  # (bigrams,) float16
    discount: float
    unigram_discount: float
    tokens: int
    unknown: int


def _discount(counts: np.ndarray) -> float:
    """Ney's absolute discount n1 / (n1 + 2 n2), kept in (0, 1)."""
    once, twice = int((counts == 1).sum()), int((counts == 2).sum())
    if once == 0:
        return 0.5
    return min(max(once / (once + 2 * twice), 0.05), 0.95)


def bigram_counts(sentences: Iterable[list[int]], size: int) -> tuple[np.ndarray, np.ndarray]:
    """(keys, counts) of the bigrams of id sentences (-1: unknown), including START and ``</s>``.

    A key is ``context * (size + 2) + outcome`` with contexts ``0..size-1``, ``size`` (unknown),
    ``size + 1`` (START) and outcomes ``0..size-1``, ``size`` (unknown), ``size + 1`` (``</s>``).
    """
    chunks: list[np.ndarray] = []
    for sentence in sentences:
        ids = np.asarray(sentence, dtype=np.int64)
        ids = np.where(ids < 0, size, ids)
        contexts = np.concatenate([[size + 1], ids])
        outcomes = np.concatenate([ids, [size + 1]])
        chunks.append(contexts * (size + 2) + outcomes)
    if not chunks:
        raise InputError("the language model needs at least one training sentence")
    keys, counts = np.unique(np.concatenate(chunks), return_counts=True)
    return keys, counts


def estimate(
    sentences: Iterable[list[int]], size: int, min_count: int = DEFAULT_MIN_COUNT
) -> LanguageModelArrays:
    """The pruned interpolated model of id sentences over a vocabulary of ``size`` words."""
    if min_count < 1:
        raise InputError("--min-count must be >= 1")
    outcomes_n = size + 2
    keys, counts = bigram_counts(sentences, size)
    contexts, outcomes = keys // outcomes_n, keys % outcomes_n
    discount = _discount(counts)
    continuation = np.bincount(outcomes, minlength=outcomes_n).astype(np.float64)
    unigram_discount = _discount(continuation[continuation > 0])
    total, seen = continuation.sum(), int((continuation > 0).sum())
    unigram = np.maximum(continuation - unigram_discount, 0) / total
    unigram += unigram_discount * seen / total / outcomes_n
    context_total = np.bincount(contexts, weights=counts, minlength=outcomes_n)
    context_types = np.bincount(contexts, minlength=outcomes_n)
    gamma = discount * context_types / np.maximum(context_total, 1)
    probability = (counts - discount) / context_total[contexts] + gamma[contexts] * unigram[
        outcomes
    ]
    kept = counts >= min_count
    rows = np.zeros(outcomes_n + 1, dtype=np.int64)
    rows[1:] = np.cumsum(np.bincount(contexts[kept], minlength=outcomes_n))
    return LanguageModelArrays(
        log_unigram=np.log(unigram).astype(np.float32),
        rows=rows,
        following=outcomes[kept].astype(np.int32),
        logprob=np.log(probability[kept]).astype(np.float16),
        discount=discount,
        unigram_discount=unigram_discount,
        tokens=int(counts.sum()),
        unknown=int(counts[outcomes == size].sum()),
    )


def corpus_sentences(
    corpora: Mapping[str, PublicCorpus], words: WordPack, split: str
) -> list[list[int]]:
    """The id sentences of one split of every corpus, in corpus order."""
    return [
        sentence
        for corpus in corpora.values()
        for document in corpus.split(split)
        for sentence in sentence_ids(document.text, words.vocabulary)
    ]


@dataclass(frozen=True)
class LanguageModelConfig:
    """What to build: the pack name, its build command, the pruning threshold, a description."""

    name: str
    command: str
    min_count: int = DEFAULT_MIN_COUNT
    description: str = ""


def build_language_model_pack(
    corpora: Mapping[str, PublicCorpus],
    words: WordPack,
    config: LanguageModelConfig,
    out: Path,
    *,
    force: bool = False,
) -> Path:
    """Train on the ``train`` split of ``corpora``, write the ``lm`` pack ``out``, and record the
    perplexity of the ``validation`` split (held out) in its manifest."""
    if not corpora:
        raise InputError("the language model needs at least one corpus")
    size = len(words.vocabulary)
    model = estimate(corpus_sentences(corpora, words, "train"), size, config.min_count)
    vocabulary_file = words.manifest.field("vocabulary", "file", str)
    sources = [{"corpus": name, **corpus.provenance} for name, corpus in corpora.items()]
    manifest: dict[str, Any] = {
        "kind": "lm",
        "name": config.name,
        "description": config.description
        or f"bigram language model over the vocabulary of {words.name}, from the public "
        f"corpora {', '.join(corpora)}",
        "source": {
            "name": "; ".join(str(source["name"]) for source in sources),
            "license": "; ".join(f"{s['corpus']}: {s['license']}" for s in sources)
            + ". The pack ships bigram statistics, no text.",
            "attribution": "; ".join(f"{s['corpus']}: {s['attribution']}" for s in sources),
        },
        "sources": sources,
        **(
            {"language": str(words.manifest.data["language"])}
            if "language" in words.manifest.data
            else {}
        ),
        "build_command": config.command,
        "built_with": {
            "edgedp-export": importlib.metadata.version("edgedp-export"),
            "numpy": np.__version__,
        },
        "lm": {
            "vocabulary": {
                "name": words.name,
                "sha256": words.manifest.data["files"][vocabulary_file]["sha256"],
                "size": size,
            },
            "bigrams": int(model.following.size),
            **_FILES,
            "order": 2,
            "smoothing": "interpolated absolute discounting, Kneser-Ney continuation unigrams; "
            "bigrams seen fewer than min_count times are left to the backoff",
            "min_count": config.min_count,
            "discount": model.discount,
            "unigram_discount": model.unigram_discount,
            "training": {"split": "train", "tokens": model.tokens, "unknown": model.unknown},
        },
    }
    files = {
        _FILES["unigram"]: npy_writer(model.log_unigram),
        _FILES["rows"]: npy_writer(model.rows),
        _FILES["following"]: npy_writer(model.following),
        _FILES["logprob"]: npy_writer(model.logprob),
    }
    heldout = corpus_sentences(corpora, words, "validation")
    if heldout:
        staged = write_pack(out, manifest, files, force=force)
        pack = edgedp.load_pack(staged, kind="lm")
        manifest["lm"]["heldout"] = {"split": "validation", **_heldout(pack, heldout)}
        return write_pack(out, manifest, files, force=True)
    return write_pack(out, manifest, files, force=force)


def _heldout(pack: LanguageModelPack, sentences: list[list[int]]) -> dict[str, Any]:
    tokens = sum(len(sentence) + 1 for sentence in sentences)
    return {"perplexity": round(pack.perplexity(sentences), 3), "tokens": tokens}
