"""A public sample of a domain, as the fit checks of both document mechanisms read it.

``edgedp packs fit PACK SAMPLE`` estimates, from public documents of the user's domain, how much a
document pack keeps for them: :mod:`edgedp.evaluation.deepcandidate_fit` for a sentences pack
(DeepCandidate), :mod:`edgedp.evaluation.subspace_mean_fit` for a subspace pack (SubspaceMean). Both
read the sample with :func:`read_sample`, report the same epsilons and give no verdict below the
same sample size. The sample must be PUBLIC: the checks are exact functions of it, without noise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from edgedp.documents.mechanism import Document, document_sentences, sentence_embeddings
from edgedp.documents.pack import DocumentPack
from edgedp.errors import InputError
from edgedp.packs.manifest import sha256_file
from edgedp.progress import Progress
from edgedp.text.records import parse_record

#: The epsilons ``packs fit`` reports for either pack kind (pure epsilon).
FIT_EPSILONS = (3.0, 10.0, 23.0)
#: Fewer sample documents give no verdict for either pack kind: the nearest 5 % and the
#: neighbours of a sentences pack's check, like a subspace pack's signal estimate, need a population.
MIN_SAMPLE_DOCUMENTS = 30


def text_records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line of a JSONL file; each needs a ``"text"``
    string. The one reader of public JSONL documents (``packs fit`` samples, export corpora)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read {path}: {error}") from None
    records = [
        (number, parse_record(line, f"{path.name}:{number}"))
        for number, line in enumerate(lines, start=1)
        if line.strip()
    ]
    if not records:
        raise InputError(f"{path} holds no documents")
    return records


def read_sample(path: Path) -> tuple[list[str], list[str] | None]:
    """Texts (and labels, if every line has one) of a JSONL sample: ``{"text": ..., "label": ...}``."""
    records = [record for _, record in text_records(path)]
    texts = [record["text"] for record in records]
    labels = [record.get("label") for record in records]
    if all(label is not None for label in labels):
        return texts, [str(label) for label in labels]
    return texts, None


def sample_ids(path: Path) -> list[str]:
    """The ``"id"`` of every record of a JSONL sample that gives one, as strings (the ids
    ``edgedp-export`` gives the documents of a ``--corpus-jsonl`` corpus)."""
    return [str(record["id"]) for _, record in text_records(path) if record.get("id") is not None]


def corpus_of(manifest: Mapping[str, Any]) -> str | None:
    """The public corpus a domain pack was built from (``--corpus-jsonl`` or ``--corpus-dir``,
    as its manifest's ``source`` names it), or None for a pack of general corpora (``--default``,
    ``--general``): whether ``packs fit`` may advise building a domain pack."""
    command = str(manifest.get("build_command", ""))
    if "--corpus-jsonl" not in command and "--corpus-dir" not in command:
        return None
    source = manifest.get("source")
    files = source.get("files_sha256") if isinstance(source, Mapping) else None
    if isinstance(files, Mapping) and len(files) == 1:
        return str(next(iter(files)))
    name = source.get("name") if isinstance(source, Mapping) else None
    return str(name) if name else "a public corpus"


def is_corpus_file(manifest: Mapping[str, Any], sample: Path) -> bool:
    """Whether the file ``sample`` is byte for byte the ``--corpus-jsonl`` file the pack of
    ``manifest`` was built from (its manifest records the file's SHA-256)."""
    source = manifest.get("source")
    files = source.get("files_sha256") if isinstance(source, Mapping) else None
    if not isinstance(files, Mapping) or not sample.is_file():
        return False
    return sha256_file(sample) in {str(digest) for digest in files.values()}


#: Documents encoded between two progress updates of :func:`encoded_sample`.
ENCODE_DOCUMENTS = 64


def encoded_sample(pack: DocumentPack, documents: Sequence[Document]) -> list[np.ndarray]:
    """The sentence embeddings of each sample document (batched for speed: a public sample needs
    no per-sentence independence), with progress on a terminal (a sample takes tens of seconds)."""
    split = [document_sentences(document) for document in documents]
    embedded: list[np.ndarray] = []
    total = sum(len(sentences) for sentences in split)
    with Progress("packs fit: sample sentences encoded", total=total, unit="sentences") as progress:
        for start in range(0, len(split), ENCODE_DOCUMENTS):
            chunk = split[start : start + ENCODE_DOCUMENTS]
            embedded += sentence_embeddings(pack, chunk, "sentence", independent=False)
            progress.update(sum(len(sentences) for sentences in chunk))
    return embedded


def too_few_documents(documents: int, minimum: int, needed: str) -> list[str]:
    """The advice of a fit check (either pack kind) whose sample of ``documents`` is below
    ``minimum`` (``needed`` says why), or none."""
    if documents >= minimum:
        return []
    return [
        f"the sample has {documents} documents with sentences: too few for a verdict ({needed}); "
        "add more public documents of the domain to the sample"
    ]
