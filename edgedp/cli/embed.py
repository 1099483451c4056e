"""``edgedp embed``: one document embedding per input document (SubspaceMean, DeepCandidate,
Truncation, the non-private mean).

Input (``--input``): ``text`` (default) - each FILE, or stdin, is one document; ``lines`` - every
line is one document (an empty line is an empty document); ``jsonl`` - one JSON object per line with
``"text"`` (a string, split into sentences) or ``"sentences"`` (a list of strings, used as given).

Output (``--output``, default stdout): JSON Lines, one object per document in input order:
``{"document": i, "mechanism": ..., "private": true, "epsilon": ..., "sentences": k,
"candidate": index, "embedding": [...]}`` (``candidate`` for DeepCandidate only: the index of the
released public candidate; ``dims``, ``delta`` and ``space`` for subspace-mean: the directions used,
the delta of the Gaussian variant, and ``"subspace"`` for coordinates in the pack's basis or
``"encoder"`` with ``--lift``); or, for a path ending in ``.npy``, a float32 array (documents, dims).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from edgedp.cli.privatize import (
    add_ledger_arguments,
    ledger_charger,
    open_input,
    parse_epsilon,
    read_pieces,
    warn_if_seeded,
)
from edgedp.documents.baselines import NonPrivateMean
from edgedp.documents.deepcandidate import DeepCandidate
from edgedp.documents.mechanism import Document, DocumentMechanism, document_sentences
from edgedp.documents.pack import SentencePack
from edgedp.documents.subspace import SubspaceMean
from edgedp.documents.subspace_pack import SubspacePack
from edgedp.documents.truncation import Truncation
from edgedp.errors import InputError, NotPrivateWarning
from edgedp.packs.loading import load_pack
from edgedp.packs.native import set_num_threads
from edgedp.privacy.validation import check_delta
from edgedp.registry import DEFAULT_DOCUMENT_PACKS, DOCUMENT_MECHANISMS
from edgedp.text.segmentation import MAX_TEXT_CHARS, batches

NAME = "embed"
HELP = "embed documents with sentence-level DP (SubspaceMean, DeepCandidate) or a baseline"
DEFAULT_SENTENCE_PACK = "sentences-bbc"
MECHANISMS = (*DOCUMENT_MECHANISMS, "mean")
INPUTS = ("text", "lines", "jsonl")
#: Documents embedded per encoder pass.
BATCH_DOCUMENTS = 32


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Embed whole documents. subspace-mean, deepcandidate and truncation are epsilon-SentDP: "
        "replacing any one sentence changes the output distribution by at most e^epsilon "
        "(subspace-mean with --delta: (epsilon, delta)). mean is NOT private (comparison only)."
    )
    parser.epilog = __doc__.split("\n", 2)[2].replace("``", "")
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--mechanism", choices=MECHANISMS, default="deepcandidate")
    parser.add_argument("--epsilon", help="privacy parameter (> 0); not for --mechanism mean")
    parser.add_argument(
        "--pack",
        help="pack directory or name (default: subspace-general for subspace-mean, "
        f"{DEFAULT_SENTENCE_PACK} for the others)",
    )
    parser.add_argument(
        "--projections", type=int, help="deepcandidate: projections (default: the pack's choice)"
    )
    parser.add_argument(
        "--delta",
        help="subspace-mean: (epsilon, delta) with discrete Gaussian noise (default: pure)",
    )
    parser.add_argument(
        "--dims", type=int, help="subspace-mean: directions d' (default: the pack's per length)"
    )
    parser.add_argument(
        "--lift",
        action="store_true",
        help="subspace-mean: output mu + P^T z in the encoder's 384-d space instead of coordinates",
    )
    parser.add_argument("--input", choices=INPUTS, default="text", help="input format (text)")
    parser.add_argument("--output", type=Path, help="output .jsonl or .npy (default: stdout)")
    parser.add_argument(
        "--seed", type=int, help="fixed seed: reproducible and NOT private (tests, benchmarks)"
    )
    parser.add_argument("--threads", type=int, help="threads of the ONNX encoder")
    add_ledger_arguments(parser)
    parser.add_argument("--encoding", default="utf-8", help="input encoding (default utf-8)")
    parser.add_argument("files", nargs="*", help="input files (default: stdin)")


def _too_long(where: str) -> InputError:
    return InputError(
        f"{where}: a document is longer than the limit of {MAX_TEXT_CHARS:,} characters; split "
        "it (e.g. --input lines or jsonl)"
    )


def read_document(path: str | None, encoding: str) -> str:
    """The whole input as one document, refused as soon as it passes :data:`MAX_TEXT_CHARS`
    (read in bounded pieces: an oversized input never sits in memory whole)."""
    pieces: list[str] = []
    total = 0
    with open_input(path) as source:
        for piece in read_pieces(source, encoding):
            total += len(piece)
            if total > MAX_TEXT_CHARS:
                raise _too_long(path or "stdin")
            pieces.append(piece)
    return "".join(pieces)


def read_lines(path: str | None, encoding: str) -> Iterator[str]:
    """The input's lines (as ``str.splitlines`` cuts them), streamed; a line over
    :data:`MAX_TEXT_CHARS` is refused as soon as it passes the limit."""
    pending = ""  # the last line seen, maybe incomplete (or a "\r" whose "\n" comes next)
    with open_input(path) as source:
        for piece in read_pieces(source, encoding):
            lines = (pending + piece).splitlines(keepends=True)
            pending = lines.pop() if lines else ""
            if len(pending) > MAX_TEXT_CHARS:
                raise _too_long(path or "stdin")
            for line in lines:
                yield line.splitlines()[0]
    if pending:
        yield pending.splitlines()[0]


def _jsonl_document(line: str, where: str) -> Document:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise InputError(f"{where}: not JSON ({error.msg})") from None
    if isinstance(record, dict) and isinstance(record.get("text"), str):
        text: str = record["text"]
        return text
    sentences = record.get("sentences") if isinstance(record, dict) else None
    if isinstance(sentences, list) and all(isinstance(item, str) for item in sentences):
        return sentences
    raise InputError(f'{where}: expected {{"text": "..."}} or {{"sentences": ["...", ...]}}')


def documents(files: list[str], input_format: str, encoding: str) -> Iterator[Document]:
    """The documents of the inputs, in order, read in bounded pieces."""
    paths: list[str | None] = [*files] or [None]
    for path in paths:
        if input_format == "text":
            yield read_document(path, encoding)
            continue
        for number, line in enumerate(read_lines(path, encoding), start=1):
            if input_format == "lines":
                yield line
            elif line.strip():
                yield _jsonl_document(line, f"{path or 'stdin'}:{number}")


def _mechanism(
    args: argparse.Namespace, pack: SentencePack | SubspacePack
) -> DocumentMechanism[Any]:
    if args.mechanism == "mean":
        if args.epsilon is not None or args.seed is not None:
            raise InputError("--mechanism mean is not private: it takes no --epsilon or --seed")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotPrivateWarning)  # announced on stderr instead
            return NonPrivateMean(_sentences_pack(pack))
    if args.epsilon is None:
        raise InputError(f"--mechanism {args.mechanism} needs --epsilon")
    epsilon = parse_epsilon(args.epsilon)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotPrivateWarning)  # announced once, below
        if args.mechanism == SubspaceMean.name:
            if not isinstance(pack, SubspacePack):
                raise InputError(
                    f"--mechanism subspace-mean needs a subspace pack, not {pack.name}"
                )
            delta = None if args.delta is None else check_delta(_number(args.delta, "--delta"))
            return SubspaceMean(pack, epsilon=epsilon, delta=delta, dims=args.dims, rng=args.seed)
        if args.mechanism == "deepcandidate":
            return DeepCandidate(
                _sentences_pack(pack), epsilon=epsilon, projections=args.projections, rng=args.seed
            )
        return Truncation(_sentences_pack(pack), epsilon=epsilon, rng=args.seed)


def _check_options(args: argparse.Namespace) -> None:
    """Options of one mechanism given to another: refused before any pack is loaded."""
    subspace_only = {"--delta": args.delta, "--dims": args.dims, "--lift": args.lift or None}
    if args.mechanism != SubspaceMean.name:
        given = [name for name, value in subspace_only.items() if value is not None]
        if given:
            raise InputError(f"{', '.join(given)} applies to --mechanism subspace-mean only")
    if args.projections is not None and args.mechanism != "deepcandidate":
        raise InputError("--projections applies to --mechanism deepcandidate only")


def _sentences_pack(pack: SentencePack | SubspacePack) -> SentencePack:
    if not isinstance(pack, SentencePack):
        raise InputError(
            f"this mechanism needs a sentences pack, not the {pack.kind} pack {pack.name}"
        )
    return pack


def _number(text: str, option: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise InputError(f"{option} must be a number, got {text!r}") from None


def _records(
    mechanism: DocumentMechanism[Any],
    batch: list[Document],
    charge: Callable[[list[Any]], None] | None = None,
    *,
    lift: bool = False,
) -> list[dict[str, Any]]:
    if charge is not None:
        charge(batch)
    base: dict[str, Any] = {"mechanism": mechanism.name, "private": mechanism.is_private}
    if mechanism.differentially_private:
        base["epsilon"] = getattr(mechanism, "epsilon", None)
    if isinstance(mechanism, DeepCandidate):
        base["projections"] = mechanism.projections
        return [
            base
            | {"sentences": release.sentences, "candidate": release.index}
            | {"embedding": release.embedding}
            for release in mechanism.release_batch(batch)
        ]
    if isinstance(mechanism, SubspaceMean):
        base["delta"] = mechanism.delta
        base["space"] = "encoder" if lift else "subspace"
        releases = mechanism.release_batch(batch)
        rows = np.stack([release.coordinates for release in releases]) if releases else None
        if rows is not None and lift:
            rows = mechanism.lift(rows)
        return [
            base | {"sentences": release.sentences, "dims": release.dims, "embedding": row}
            for release, row in zip(releases, [] if rows is None else rows, strict=True)
        ]
    split = [document_sentences(document) for document in batch]
    embeddings = mechanism.embed_batch(split)
    return [
        base | {"sentences": len(sentences), "embedding": row}
        for sentences, row in zip(split, embeddings, strict=True)
    ]


def _json_line(number: int, record: dict[str, Any]) -> str:
    values = ",".join(format(float(value), ".9g") for value in record.pop("embedding"))
    head = json.dumps({"document": number, **record})
    return f'{head[:-1]}, "embedding": [{values}]}}\n'


def run(args: argparse.Namespace) -> None:
    if args.threads is not None:
        set_num_threads(args.threads)
    if args.output is not None and args.output.suffix not in (".npy", ".jsonl"):
        raise InputError("--output must end in .jsonl or .npy")
    _check_options(args)
    name = args.pack or DEFAULT_DOCUMENT_PACKS.get(args.mechanism, DEFAULT_SENTENCE_PACK)
    pack: SentencePack | SubspacePack = (
        load_pack(name, kind="subspace")
        if args.mechanism == SubspaceMean.name
        else load_pack(name, kind="sentences")
    )
    mechanism = _mechanism(args, pack)
    width = pack.dims if args.lift or not isinstance(mechanism, SubspaceMean) else None
    warn_if_seeded(args.seed)
    if not mechanism.differentially_private:
        print(
            "edgedp: warning: --mechanism mean releases the exact mean: NOT PRIVATE",
            file=sys.stderr,
        )
    charge = ledger_charger(args, mechanism)
    stream = documents(args.files, args.input, args.encoding)
    if args.output is not None and args.output.suffix == ".npy":
        rows = [
            record["embedding"]
            for batch in batches(stream, limit=BATCH_DOCUMENTS)
            for record in _records(mechanism, batch, charge, lift=args.lift)
        ]
        array = np.array(rows, dtype=np.float32).reshape(len(rows), width or mechanism.output_dims)
        np.save(args.output, array, allow_pickle=False)
        return
    out = (
        open(args.output, "w", encoding="utf-8")  # noqa: SIM115 - closed below
        if args.output is not None
        else io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="")
    )
    number = 0
    try:
        for batch in batches(stream, limit=BATCH_DOCUMENTS):
            for record in _records(mechanism, batch, charge, lift=args.lift):
                out.write(_json_line(number, record))
                number += 1
        out.flush()
    finally:
        if args.output is not None:
            out.close()
        else:
            out.detach()
