"""``edgedp packs list | info [PATH] | verify [PATH] | fit PACK SAMPLE.jsonl``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from edgedp.errors import AssetError
from edgedp.packs.loading import list_packs, load_pack

NAME = "packs"
HELP = "list, describe and verify asset packs"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(dest="packs_command", required=True, parser_class=type(parser))
    commands.add_parser(
        "list", help="list the bundled packs, installed pack distributions and $EDGEDP_PACKS"
    )
    for name, text in (
        ("info", "describe a pack"),
        ("verify", "check a pack's files and checksums"),
    ):
        sub = commands.add_parser(name, help=text)
        sub.add_argument("path", nargs="?", help="pack directory or bundled name (default pack)")
        if name == "verify":
            sub.add_argument(
                "--deep",
                action="store_true",
                help="also recompute the neighbour table's far bounds (O(words^2), minutes)",
            )
    fit = commands.add_parser(
        "fit", help="estimate how DeepCandidate will do with a sentences pack on a PUBLIC sample"
    )
    fit.add_argument("path", help="sentences pack directory or bundled name")
    fit.add_argument("sample", type=Path, help='PUBLIC documents, JSONL {"text": ...} ("label")')
    fit.add_argument("--json", action="store_true", help="print the estimate as JSON")


def run(args: argparse.Namespace) -> None:
    if args.packs_command == "list":
        for entry in list_packs():
            print(f"{entry.name}\t{entry.kind}\t{entry.path}\t{entry.origin}")
        return
    pack = load_pack(args.path, verify=True)
    if args.packs_command == "fit":
        from edgedp.documents.fit import run_fit

        run_fit(pack, args.sample, as_json=args.json)
        return
    if args.packs_command == "info":
        summary = pack.describe()
        summary["manifest"] = json.loads(json.dumps(pack.manifest.data, default=dict))
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        files = len(pack.manifest.data["files"])
        pinned = next(
            (e for e in list_packs() if e.pin and e.path.resolve() == pack.path.resolve()), None
        )
        pin = f"; manifest pinned ({pinned.origin}) to {pinned.pin}" if pinned else ""
        if args.deep:
            pin += _deep_check(pack)
        print(f"ok: {pack.name} ({pack.path}): {files} files, sizes and SHA-256 verified{pin}")


def _deep_check(pack: object) -> str:
    """Recompute what the runtime takes from a pack on trust (the neighbour table's bounds)."""
    from edgedp.words.near_far import invalid_neighbour_rows
    from edgedp.words.pack import WordPack

    if not isinstance(pack, WordPack) or pack.neighbours is None:
        return "; nothing to recompute"
    invalid = invalid_neighbour_rows(pack)
    if invalid.size:
        raise AssetError(
            f"pack {pack.name}: the neighbour table's bound is broken for {invalid.size} words "
            f"(first: {pack.vocabulary[int(invalid[0])]!r}); rebuild it with edgedp-export"
        )
    return f"; neighbour table recomputed ({len(pack.vocabulary):,} rows sound)"
