"""``edgedp packs list | info [PATH] | verify [PATH] | fit PACK SAMPLE.jsonl``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

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
    fit = commands.add_parser(
        "fit",
        help="estimate how DeepCandidate (sentences pack) or SubspaceMean (subspace pack) will do "
        "on a PUBLIC sample",
    )
    fit.add_argument("path", help="sentences or subspace pack directory or name")
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
        print(f"ok: {pack.name} ({pack.path}): {files} files, sizes and SHA-256 verified{pin}")
