"""``edgedp packs list | info [PACK] | verify [PACK] | fit PACK SAMPLE.jsonl``.

Like every edgedp command, each prints text for people and, with ``--json``, one JSON document.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edgedp.errors import AssetError, InputError
from edgedp.packs.loading import PackEntry, list_packs
from edgedp.progress import Progress
from edgedp.registry import load_pack

if TYPE_CHECKING:
    from edgedp.evaluation.deepcandidate_fit import PackFit
    from edgedp.evaluation.subspace_mean_fit import SubspaceFit

NAME = "packs"
HELP = "list, describe and verify asset packs"
#: The columns of ``packs list``.
COLUMNS = ("name", "kind", "origin", "path")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Asset packs by name are found in this order: bundled with edgedp, installed pack "
        "distributions, the directories of $EDGEDP_PACKS (separated by ':'), then the working "
        "directory; a path finds a pack directory anywhere."
    )
    commands = parser.add_subparsers(dest="packs_command", required=True, parser_class=type(parser))
    listing = commands.add_parser(
        "list",
        help="the packs a name finds: bundled, installed distributions, $EDGEDP_PACKS, the "
        "working directory",
    )
    listing.add_argument("--json", action="store_true", help="print JSON")
    for name, text in (
        ("info", "describe a pack"),
        ("verify", "check a pack's files and checksums"),
    ):
        sub = commands.add_parser(name, help=text)
        sub.add_argument(
            "path", nargs="?", help="pack directory or name (default: the default pack)"
        )
        if name == "verify":
            sub.add_argument(
                "--deep",
                action="store_true",
                help="also recompute the neighbour tables' far bounds (O(words^2), minutes)",
            )
        sub.add_argument("--json", action="store_true", help="print JSON")
    fit = commands.add_parser(
        "fit",
        help="estimate how DeepCandidate (sentences pack) or SubspaceMean (subspace pack) will do "
        "on a PUBLIC sample",
    )
    fit.add_argument("path", help="sentences or subspace pack directory or name")
    fit.add_argument("sample", type=Path, help='PUBLIC documents, JSONL {"text": ...} ("label")')
    fit.add_argument("--json", action="store_true", help="print the estimate as JSON")


def entry_fields(entry: PackEntry) -> dict[str, Any]:
    """A listed pack as JSON-ready fields."""
    return {
        "name": entry.name,
        "kind": entry.kind,
        "origin": entry.origin,
        "path": str(entry.path),
        "pinned": entry.pin,
        "shadowed": entry.shadowed,
        "problem": entry.problem,
    }


def render_table(rows: list[list[str]], header: tuple[str, ...]) -> str:
    """Rows under an upper-case header, in columns two spaces apart."""
    table = [[column.upper() for column in header], *rows]
    widths = [max(len(row[index]) for row in table) for index in range(len(header) - 1)]
    return "\n".join(
        "  ".join([*(cell.ljust(width) for cell, width in zip(row, widths, strict=False)), row[-1]])
        for row in table
    )


def pack_rows(entries: list[dict[str, Any]]) -> list[list[str]]:
    """Listed packs (:func:`entry_fields`) as table rows; pins, shadowing, problems noted."""
    rows = []
    for entry in entries:
        notes = [
            note
            for note, present in (
                ("pinned", entry["pinned"] is not None),
                ("shadowed: reach it by path", entry["shadowed"]),
                (f"unreadable: {entry['problem']}", entry["problem"] is not None),
            )
            if present
        ]
        origin = entry["origin"] + (f" ({'; '.join(notes)})" if notes else "")
        rows.append([entry["name"], entry["kind"], origin, entry["path"]])
    return rows


def run(args: argparse.Namespace) -> None:
    if args.packs_command == "list":
        entries = [entry_fields(entry) for entry in list_packs()]
        print(
            json.dumps(entries, indent=2)
            if args.json
            else render_table(pack_rows(entries), COLUMNS)
        )
        return
    pack = load_pack(args.path, verify=True)
    if args.packs_command == "fit":
        run_fit(pack, args.sample, as_json=args.json)
        return
    if args.packs_command == "info":
        summary = pack.describe()
        if args.json:
            summary["manifest"] = json.loads(json.dumps(pack.manifest.data, default=dict))
            print(json.dumps(summary, indent=2, ensure_ascii=False))
        else:
            print("\n".join(f"{key}: {_plain(value)}" for key, value in summary.items()))
        return
    files = len(pack.manifest.data["files"])
    pinned = next(
        (e for e in list_packs() if e.pin and e.path.resolve() == pack.path.resolve()), None
    )
    deep = _deep_check(pack) if args.deep else None
    if args.json:
        print(
            json.dumps(
                {
                    "ok": True,
                    "name": pack.name,
                    "path": str(pack.path),
                    "files": files,
                    "digest": pack.manifest.digest,
                    "pinned_by": pinned.origin if pinned else None,
                    "deep": deep,
                },
                indent=2,
            )
        )
        return
    pin = f"; manifest pinned ({pinned.origin}) to {pinned.pin}" if pinned else ""
    pin += f"; {deep}" if deep else ""
    print(f"ok: {pack.name} ({pack.path}): {files} files, sizes and SHA-256 verified{pin}")


def _deep_check(pack: object) -> str:
    """Recompute what the runtime takes from a pack on trust (the neighbour tables' bounds); an
    :class:`AssetError` if they do not hold, else what was recomputed."""
    from edgedp.words.pack import WordPack
    from edgedp.words.vocabulary_draw import invalid_neighbour_rows

    if not isinstance(pack, WordPack) or (
        pack.neighbours is None and pack.suffix_neighbours is None
    ):
        return "nothing to recompute"
    with Progress("packs verify --deep", unit="words") as progress:
        invalid = invalid_neighbour_rows(pack, progress=progress.reporter())
    if invalid.size:
        raise AssetError(
            f"pack {pack.name}: the neighbour table's bound is broken for {invalid.size} words "
            f"(first: {pack.vocabulary[int(invalid[0])]!r}); rebuild it with edgedp-export"
        )
    return f"neighbour tables recomputed ({len(pack.vocabulary):,} words, every bound sound)"


def _plain(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{key} {item}" for key, item in value.items()) or "-"
    if isinstance(value, list | tuple):
        return ", ".join(str(item) for item in value) or "-"
    return "-" if value is None else str(value)


def run_fit(pack: object, sample: Path, *, as_json: bool = False) -> PackFit | SubspaceFit:
    """Run ``edgedp packs fit``: estimate and print how well a document pack fits a public sample.

    Parameters
    ----------
    pack : SentencePack or SubspacePack
        The loaded pack: a sentences pack is fitted for DeepCandidate, a subspace pack for
        SubspaceMean.
    sample : Path
        A JSON-lines file of PUBLIC documents of the domain (``text``, optional ``label``).
    as_json : bool, default False
        Print the fit as JSON instead of the plain report.

    Returns
    -------
    PackFit or SubspaceFit
        The fit that was printed.

    Raises
    ------
    InputError
        If ``pack`` is neither a sentences nor a subspace pack, or the sample cannot be read.
    """
    from edgedp.documents.pack import SentencePack
    from edgedp.documents.subspace_pack import SubspacePack
    from edgedp.evaluation.deepcandidate_fit import format_fit, pack_fit, pack_source
    from edgedp.evaluation.public_sample import read_sample
    from edgedp.evaluation.subspace_mean_fit import format_subspace_fit, subspace_pack_fit

    texts, labels = read_sample(sample)
    if isinstance(pack, SubspacePack):
        subspace = subspace_pack_fit(pack, texts, labels)
        print(
            json.dumps(subspace.as_dict(), indent=2) if as_json else format_subspace_fit(subspace)
        )
        return subspace
    if not isinstance(pack, SentencePack):
        raise InputError(
            f"packs fit needs a sentences or subspace pack, not a {getattr(pack, 'kind', '?')} pack"
        )
    fit = pack_fit(pack, texts, labels, source=pack_source(pack, sample))
    print(json.dumps(fit.as_dict(), indent=2) if as_json else format_fit(fit))
    return fit
