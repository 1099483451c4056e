"""``edgedp embed``: one document embedding per input document (SubspaceMean, DeepCandidate,
Truncation, the non-private mean).

Input (``--input``): ``text`` (default) - each FILE, or stdin, is one document; ``lines`` - every
line is one document (an empty line is an empty document); ``jsonl`` - one JSON object per line with
``"text"`` (a string, split into sentences) or ``"sentences"`` (a list of strings, used as given);
its other fields are passed through to its output record, NOT privatized. A bad record: see
``--on-error`` (:mod:`edgedp.text.records`).

Output (``--output``, default stdout): JSON Lines, one object per document in input order:
``{"document": i, "mechanism": ..., "private": true, "epsilon": ..., "sentences": k,
"too_short": false, "candidate": index, "embedding": [...]}`` (``candidate`` for DeepCandidate
only: the index of the released public candidate; ``dims``, ``delta`` and ``space`` for
subspace-mean: the directions used, the delta of the Gaussian variant, and ``"subspace"`` for
coordinates in the pack's basis or ``"encoder"`` with ``--lift``); every record names the pack
that produced it, ``"pack"`` and ``"pack_sha256"`` (the SHA-256 of its manifest, which pins its
every byte); or, for a path ending in ``.npy``, a float32 array (documents, dims).

subspace-mean without ``--pack`` chooses the pack per document by its language
(:mod:`edgedp.documents.language_choice`): English keeps subspace-general, the other languages
use subspace-multilingual; the record says ``"language"`` and ``"language_by"`` (``identifier``
or ``--language``). The language found is a function of the whole document, released with it;
``--language LANG`` (or ``--pack``) fixes the choice for every document.

A document of fewer than 2 sentences is protected whole, so its release keeps little or nothing
of it (DeepCandidate: a uniformly random candidate; SubspaceMean: one sentence under noise that
hides it): its record has ``"too_short": true`` and a warning on stderr counts them. Private, but
of little use: give documents of many sentences.
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from edgedp.cli.charging import Charges, LedgerOptions, add_ledger_arguments
from edgedp.cli.mechanisms import (
    MechanismOptions,
    add_mechanism_arguments,
    build_mechanism,
    not_applicable,
)
from edgedp.cli.options import add_seed_argument, parse_epsilon, warn_if_seeded
from edgedp.cli.reading import Reader, input_bytes, too_long
from edgedp.cli.writing import check_output, output_file, text_output
from edgedp.documents.deepcandidate import DeepCandidate
from edgedp.documents.language_choice import SubspaceMeanByLanguage
from edgedp.documents.mechanism import (
    INFORMATIVE_SENTENCES,
    Document,
    DocumentMechanism,
    document_sentences,
)
from edgedp.documents.subspace import SubspaceMean
from edgedp.errors import InputError, ShortDocumentWarning
from edgedp.packs.loading import LoadablePack
from edgedp.progress import Progress, message
from edgedp.registry import (
    DEFAULT_DOCUMENT_MECHANISM,
    DOCUMENT_BASELINES,
    DOCUMENT_MECHANISMS,
    load_pack,
)
from edgedp.runtime.native import set_num_threads
from edgedp.text.records import ON_ERROR, BadRecords, parse_record
from edgedp.text.segmentation import MAX_TEXT_CHARS, batches

NAME = "embed"
HELP = "embed documents with sentence-level DP (SubspaceMean, DeepCandidate) or a baseline"
#: The registries ``--mechanism`` chooses from.
REGISTRIES = (DOCUMENT_MECHANISMS, DOCUMENT_BASELINES)
INPUTS = ("text", "lines", "jsonl")
#: Documents embedded per encoder pass.
BATCH_DOCUMENTS = 32
#: Document numbers named in the too-short warning.
NAMED_DOCUMENTS = 5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Embed whole documents. subspace-mean, deepcandidate and truncation are epsilon-SentDP: "
        "replacing any one sentence changes the output distribution by at most e^epsilon "
        "(subspace-mean with --delta: (epsilon, delta)). mean is NOT private (comparison only)."
    )
    parser.epilog = __doc__.split("\n", 2)[2].replace("``", "")
    add_mechanism_arguments(parser, REGISTRIES, default=DEFAULT_DOCUMENT_MECHANISM)
    parser.add_argument(
        "--epsilon", help="privacy parameter (> 0; required, except for --mechanism mean)"
    )
    parser.add_argument(
        "--language",
        help="subspace-mean: every document's language (ISO 639-1): en gets subspace-general; "
        "es, de, fr, pt, it, ru, pl subspace-multilingual (default: the language the identifier "
        "finds in each document, released with it)",
    )
    parser.add_argument(
        "--lift",
        action="store_true",
        help="subspace-mean: output mu + P^T z in the encoder's 384-d space instead of coordinates",
    )
    parser.add_argument(
        "--input", choices=INPUTS, default="text", help="input format (default: %(default)s)"
    )
    parser.add_argument("--output", type=Path, help="output .jsonl or .npy (default: stdout)")
    add_seed_argument(parser)
    parser.add_argument(
        "--threads", type=int, help="threads of the ONNX encoder (default: one per core)"
    )
    add_ledger_arguments(parser)
    parser.add_argument(
        "--on-error",
        choices=ON_ERROR,
        default="stop",
        help="--input jsonl, a bad record: stop (the documents before it are released and "
        "written) or skip (one stderr line each, a count at the end) (default: %(default)s)",
    )
    parser.add_argument("--encoding", default="utf-8", help="input encoding (default: %(default)s)")
    parser.add_argument("files", nargs="*", help="input files (default: stdin)")


def read_document(path: str | None, encoding: str, progress: Progress | None = None) -> str:
    """The whole input as one document, refused as soon as it passes :data:`MAX_TEXT_CHARS`
    (read in bounded pieces: an oversized input never sits in memory whole)."""
    pieces: list[str] = []
    total = 0
    for piece, _ in Reader(path, encoding, progress).blocks():
        total += len(piece)
        if total > MAX_TEXT_CHARS:
            raise too_long(path or "stdin")
        pieces.append(piece)
    return "".join(pieces)


#: The fields ``embed`` writes; a JSON Lines record may not carry them (they would be overwritten).
OUTPUT_FIELDS = frozenset(
    {"document", "mechanism", "private", "epsilon", "delta", "projections", "space",
     "sentences", "too_short", "dims", "candidate", "embedding", "pack", "pack_sha256",
     "language", "language_by"}
)  # fmt: skip


def _jsonl_document(line: str, where: str) -> tuple[Document, dict[str, Any]]:
    """The document of a JSON Lines record and its other fields (passed through, not private)."""
    record = parse_record(line, where, sentences=True)
    document: Document = (
        record["text"] if isinstance(record.get("text"), str) else record["sentences"]
    )
    fields = {key: value for key, value in record.items() if key not in ("text", "sentences")}
    taken = sorted(OUTPUT_FIELDS & fields.keys())
    if taken:
        raise InputError(f"{where}: field(s) {', '.join(taken)} are written by embed; rename them")
    return document, fields


Item = tuple[Document | InputError, dict[str, Any], bool]


def documents_and_ends(
    files: list[str],
    input_format: str,
    encoding: str,
    bad: BadRecords,
    progress: Progress | None = None,
) -> Iterator[Item]:
    """The documents of the inputs, in order, read in bounded pieces: (document, the record's
    other fields, whether the input held nothing more when it was read: a pipe between two
    writes, so what is batched is released now, see :class:`~edgedp.cli.reading.Line`). A bad
    JSON Lines record is skipped (``bad`` skips) or yielded as its error, last."""
    paths: list[str | None] = [*files] or [None]
    for path in paths:
        if input_format == "text":
            yield read_document(path, encoding, progress), {}, False  # read whole: no wait
            continue
        for number, line in enumerate(Reader(path, encoding, progress).lines(), start=1):
            if input_format == "lines":
                yield str(line), {}, line.drained
            elif line.strip():
                try:
                    document, fields = _jsonl_document(line, f"{path or 'stdin'}:{number}")
                except InputError as error:
                    if bad.stops:
                        yield error, {}, True
                        return
                    bad.skip(error)
                    continue
                yield document, fields, line.drained


@dataclass(frozen=True)
class EmbedOptions:
    """One ``embed`` run, read from the command line once (:meth:`from_args`)."""

    files: list[str]
    input: str
    encoding: str
    on_error: str
    output: Path | None
    mechanism: MechanismOptions
    epsilon: float | None
    lift: bool
    ledger: LedgerOptions | None
    threads: int | None
    language: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> EmbedOptions:
        """The options, checked before any pack is loaded: another mechanism's options, an
        epsilon or seed given to the non-private mean, an epsilon missing."""
        mechanism = MechanismOptions.from_args(args, REGISTRIES)
        for flag, value in (("--lift", args.lift or None), ("--language", args.language)):
            if value is not None and args.mechanism != SubspaceMean.name:
                raise InputError(not_applicable(flag, args.mechanism, [SubspaceMean.name]))
        if args.language is not None and args.pack is not None:
            raise InputError("--language chooses the pack: give --language or --pack, not both")
        if args.mechanism in DOCUMENT_BASELINES:
            if args.epsilon is not None or args.seed is not None:
                raise InputError(
                    f"--mechanism {args.mechanism} is not private: it takes no --epsilon or --seed"
                )
        elif args.epsilon is None:
            raise InputError(f"--mechanism {args.mechanism} needs --epsilon")
        return cls(
            files=args.files,
            input=args.input,
            encoding=args.encoding,
            on_error=args.on_error,
            output=args.output,
            mechanism=mechanism,
            epsilon=None if args.epsilon is None else parse_epsilon(args.epsilon),
            lift=args.lift,
            ledger=LedgerOptions.from_args(args),
            threads=args.threads,
            language=args.language,
        )


def _mechanism(options: EmbedOptions) -> DocumentMechanism[Any] | SubspaceMeanByLanguage:
    """The mechanism on its pack (a pack of the other document kind names the mechanisms it
    serves); SubspaceMean without a pack chooses it per document (module docstring)."""
    chosen = options.mechanism
    if chosen.name == SubspaceMean.name and chosen.pack is None and options.epsilon is not None:
        return SubspaceMeanByLanguage(
            epsilon=options.epsilon,
            delta=chosen.options.get("delta"),
            dims=chosen.options.get("dims"),
            language=options.language,
            rng=chosen.seed,
        )
    registry = next(registry for registry in REGISTRIES if chosen.name in registry)
    wanted = registry[chosen.name].pack_type
    pack = load_pack(chosen.pack or chosen.entry.pack)
    if not isinstance(pack, wanted):
        raise InputError(_wrong_kind(pack, chosen.name, wanted))
    privacy = {} if options.epsilon is None else {"epsilon": options.epsilon, "rng": chosen.seed}
    mechanism: DocumentMechanism[Any] = build_mechanism(chosen, registry, pack, **privacy)
    return mechanism


def _wrong_kind(pack: Any, name: str, wanted: type[LoadablePack]) -> str:
    """Why ``pack`` does not serve mechanism ``name``, and what would."""
    kinds: dict[str, list[str]] = {}
    for entry in DOCUMENT_MECHANISMS.entries():
        pack_type: type[LoadablePack] = DOCUMENT_MECHANISMS[entry.name].pack_type
        kinds.setdefault(pack_type.PACK_KIND, []).append(entry.name)
    serving = kinds.get(pack.kind)
    if serving is None:
        needs = " or ".join(
            f"a {kind} pack ({', '.join(names)}"
            + (", the default)" if DEFAULT_DOCUMENT_MECHANISM in names else ")")
            for kind, names in kinds.items()
        )
        return f"pack {pack.name} is a {pack.kind} pack; embed needs {needs}"
    change = (
        f"drop --mechanism {name}"
        if DEFAULT_DOCUMENT_MECHANISM in serving
        else f"add --mechanism {serving[0]}"
    )
    return (
        f"pack {pack.name} is a {pack.kind} pack, for --mechanism {' or '.join(serving)} (not "
        f"{name}): {change}, or give a {wanted.PACK_KIND} pack"
    )


def _records(
    mechanism: DocumentMechanism[Any] | SubspaceMeanByLanguage,
    batch: list[Document],
    charges: Charges | None = None,
    *,
    lift: bool = False,
) -> list[dict[str, Any]]:
    if charges is not None:
        charges.charge(batch)
    if isinstance(mechanism, SubspaceMeanByLanguage):
        return _records_by_language(mechanism, batch, lift)
    base: dict[str, Any] = {"mechanism": mechanism.name, "private": mechanism.is_private}
    if mechanism.differentially_private:
        base["epsilon"] = getattr(mechanism, "epsilon", None)
    base |= {"pack": mechanism.pack.name, "pack_sha256": mechanism.pack.manifest.digest}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ShortDocumentWarning)  # flagged per record instead
        if isinstance(mechanism, DeepCandidate):
            base["projections"] = mechanism.projections
            return [
                base
                | _length(mechanism, release.sentences)
                | {"candidate": release.index, "embedding": release.embedding}
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
                base
                | _length(mechanism, release.sentences)
                | {"dims": release.dims, "embedding": row}
                for release, row in zip(releases, [] if rows is None else rows, strict=True)
            ]
        split = [document_sentences(document) for document in batch]
        embeddings = mechanism.embed_batch(split)
    return [
        base | _length(mechanism, len(sentences)) | {"embedding": row}
        for sentences, row in zip(split, embeddings, strict=True)
    ]


def _records_by_language(
    chooser: SubspaceMeanByLanguage, batch: list[Document], lift: bool
) -> list[dict[str, Any]]:
    """The records of SubspaceMean with the pack chosen per document (one per document)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ShortDocumentWarning)  # flagged per record instead
        released = chooser.release_batch(batch)
    records = []
    for item in released:
        mechanism = chooser.mechanism(item.choice.pack)
        row = item.release.coordinates
        if lift:
            row = mechanism.lift(row[None, :])[0]
        records.append(
            {
                "mechanism": mechanism.name,
                "private": chooser.is_private,
                "epsilon": mechanism.epsilon,
                "pack": item.choice.pack,
                "pack_sha256": item.pack_sha256,
                "language": item.choice.language,
                "language_by": "identifier" if item.choice.by == "identifier" else "--language",
                "delta": mechanism.delta,
                "space": "encoder" if lift else "subspace",
            }
            | _length(mechanism, item.release.sentences)
            | {"dims": item.release.dims, "embedding": row}
        )
    return records


def _length(mechanism: DocumentMechanism[Any], sentences: int) -> dict[str, Any]:
    return {"sentences": sentences, "too_short": mechanism.too_short(sentences)}


def _json_line(number: int, record: dict[str, Any]) -> str:
    values = ",".join(format(float(value), ".9g") for value in record.pop("embedding"))
    head = json.dumps({"document": number, **record})
    return f'{head[:-1]}, "embedding": [{values}]}}\n'


def _warn_short(short: list[int], total: int) -> None:
    if not short:
        return
    named = ", ".join(str(number) for number in short[:NAMED_DOCUMENTS])
    more = ", ..." if len(short) > NAMED_DOCUMENTS else ""
    message(
        f"edgedp: warning: {len(short)} of {total} documents (number {named}{more}) have fewer "
        f"than {INFORMATIVE_SENTENCES} sentences: each is protected whole, so its embedding "
        'keeps little or nothing of it (private; "too_short": true in their records)'
    )


def run(args: argparse.Namespace) -> None:
    check_output(args.output, (".jsonl", ".npy"))
    options = EmbedOptions.from_args(args)
    if options.threads is not None:
        set_num_threads(options.threads)
    mechanism = _mechanism(options)
    width = None
    if not isinstance(mechanism, SubspaceMeanByLanguage) and (
        options.lift or not isinstance(mechanism, SubspaceMean)
    ):
        width = mechanism.pack.dims
    warn_if_seeded(options.mechanism.seed)
    if not mechanism.differentially_private:
        message(
            f"edgedp: warning: --mechanism {mechanism.name} releases the exact mean: NOT PRIVATE"
        )
    charges = None if options.ledger is None else Charges(options.ledger, mechanism)
    short: list[int] = []  # the numbers of the documents too short to be embedded usefully
    rows: list[np.ndarray] = []
    packs: list[str] = []  # the one pack of a .npy output
    count = 0
    bad = BadRecords(options.on_error, message)
    failure: list[InputError] = []
    with Progress(NAME, total=input_bytes(options.files or [None]), unit="B") as progress:
        stream = documents_and_ends(options.files, options.input, options.encoding, bad, progress)
        records = (
            record
            for batch in batches(stream, limit=BATCH_DOCUMENTS, closes=lambda item: item[2])
            for record in _released(mechanism, batch, charges, options.lift, failure)
        )
        to_npy = options.output is not None and options.output.suffix == ".npy"
        with text_output(None if to_npy else options.output) as out:
            for count, record in enumerate(records, start=1):
                if record["too_short"]:
                    short.append(count - 1)
                if to_npy:
                    if packs and record["pack"] not in packs:
                        raise InputError(
                            f"document {count - 1} got the pack {record['pack']}, the ones "
                            f"before {packs[0]}: a .npy file holds one pack's coordinates; give "
                            "--language or --pack, or write .jsonl (each record names its pack)"
                        )
                    packs = packs or [record["pack"]]
                    rows.append(record["embedding"])
                else:
                    out.write(_json_line(count - 1, record))
                    if options.output is None:
                        out.flush()  # a pipe's reader gets each record as it is released
        if to_npy and options.output is not None:
            if width is None and isinstance(mechanism, SubspaceMean):
                width = mechanism.output_dims
            array = np.array(rows, dtype=np.float32).reshape(
                len(rows), width or (len(rows[0]) if rows else 0)
            )
            with output_file(options.output) as temporary, open(temporary, "wb") as file:
                np.save(file, array, allow_pickle=False)
    _warn_short(short, count)
    if bad.summary() is not None:
        message(str(bad.summary()))
    if failure:
        raise failure[0]


def _released(
    mechanism: DocumentMechanism[Any] | SubspaceMeanByLanguage,
    batch: list[Item],
    charges: Charges | None,
    lift: bool,
    failure: list[InputError],
) -> list[dict[str, Any]]:
    """The records of a batch's documents (their fields passed through), released; a bad record
    that ends the batch (``--on-error stop``) goes to ``failure``, raised once these are written."""
    documents = [(d, fields) for d, fields, _ in batch if not isinstance(d, InputError)]
    failure += [d for d, _, _ in batch if isinstance(d, InputError)]
    if not documents:
        return []
    released = _records(mechanism, [d for d, _ in documents], charges, lift=lift)
    return [fields | record for (_, fields), record in zip(documents, released, strict=True)]
