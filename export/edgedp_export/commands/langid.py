"""``edgedp-export langid``: the language identifier's model from public word lists
(:mod:`edgedp_export.language_identifier`).

edgedp-export langid --out edgedp/languages/identifier.bin --force
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from edgedp.errors import InputError
from edgedp_export.language_identifier import (
    BUDGETS,
    LIBREOFFICE_ATTRIBUTION,
    TRANSLATION_LANGUAGES,
    WORDFREQ_ATTRIBUTION,
    build_identifier,
    translation_list,
    wordfreq_list,
)
from edgedp_export.public_corpora import debian_package

NAME = "langid"
HELP = "build the language identifier's model (wordfreq and LibreOffice translations), no torch"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out",
        type=Path,
        required=True,
        help="model file to write, e.g. edgedp/languages/identifier.bin",
    )
    parser.add_argument(
        "--force", action="store_true", help="replace an existing file (default: refuse)"
    )


def run(args: argparse.Namespace) -> None:
    if args.out.exists() and not args.force:
        raise InputError(f"{args.out} exists; pass --force to replace it")
    try:
        import wordfreq
    except ImportError:
        raise InputError(
            "edgedp-export langid needs wordfreq: pip install './export[langid]'"
        ) from None
    lists = [wordfreq_list(code) for code in sorted(wordfreq.available_languages("small"))]
    for code in TRANSLATION_LANGUAGES:
        root, version = debian_package(f"libreoffice-l10n-{code}")
        lists.append(translation_list(code, root, version))
    metadata = {
        "name": "edgedp language identifier",
        "format": 1,
        "command": "edgedp-export langid --out identifier.bin",
        "license": "CC-BY-SA-4.0 AND MPL-2.0",
        "attribution": [WORDFREQ_ATTRIBUTION, LIBREOFFICE_ATTRIBUTION],
        "notice": (
            "Derived from the wordfreq word lists (CC BY-SA 4.0) and LibreOffice's translations "
            "(MPL-2.0): this file is shared under CC BY-SA 4.0, with the attributions above."
        ),
    }
    model = build_identifier(lists, BUDGETS, metadata)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    model.save(args.out)
    digest = hashlib.sha256(args.out.read_bytes()).hexdigest()
    print(
        f"wrote {args.out}: {len(model.languages)} languages, {model.keys.size:,} keys, "
        f"{model.entry_value.size:,} entries, sha256 {digest} (MODEL_SHA256 of "
        "edgedp.languages.identification names the shipped file)",
        file=sys.stderr,
    )
