"""A public sample of a domain, as the fit checks of both document mechanisms read it.

``edgedp packs fit PACK SAMPLE`` estimates, from public documents of the user's domain, how much a
document pack keeps for them: :mod:`edgedp.documents.deepcandidate_fit` for a sentences pack
(DeepCandidate), :mod:`edgedp.documents.subspace_mean_fit` for a subspace pack (SubspaceMean). Both
read the sample with :func:`read_sample`, report the same epsilons and give no verdict below the
same sample size. The sample must be PUBLIC: the checks are exact functions of it, without noise.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from edgedp.errors import InputError

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
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(f"{path.name}:{number}: not JSON ({error})") from None
        if not isinstance(record, dict) or not isinstance(record.get("text"), str):
            raise InputError(f'{path.name}:{number}: expected an object with a "text" string')
        records.append((number, record))
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


def too_few_documents(documents: int, minimum: int, needed: str) -> list[str]:
    """The advice of a fit check (either pack kind) whose sample of ``documents`` is below
    ``minimum`` (``needed`` says why), or none."""
    if documents >= minimum:
        return []
    return [
        f"the sample has {documents} documents with sentences: too few for a verdict ({needed}); "
        "give more public documents of the domain"
    ]
