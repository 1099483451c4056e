"""The ``edgedp-export`` command line.

    edgedp-export words --source glove-6b-50d --words 100000 --bits 256 --out DIR [--force]
    edgedp-export words --source-file vectors.txt --words 5000 --out DIR

The default bundled pack is rebuilt with ``edgedp-export words --default --out assets/words-small``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from edgedp.errors import EdgedpError
from edgedp_export.binarize import METHODS
from edgedp_export.sources import SOURCES, load_source
from edgedp_export.words import WordsConfig, build_words_pack

DEFAULT_WORDS_PACK = {
    "source": "glove-6b-50d",
    "words": 100_000,
    "bits": 256,
    "method": "random-hyperplane",
    "seed": 0,
    "name": "words-small",
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="edgedp-export", description="Build edgedp asset packs offline.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    words = commands.add_parser("words", help="build a words pack (vocabulary + binary codes)")
    words.add_argument(
        "--default", action="store_true", help="the bundled default pack's settings (overridable)"
    )
    words.add_argument("--source", choices=sorted(SOURCES), help="a registry source of vectors")
    words.add_argument("--source-file", type=Path, help="GloVe/word2vec text file of vectors")
    words.add_argument("--words", type=int, help="vocabulary size (most frequent words)")
    words.add_argument("--bits", type=int, help="code length in bits (multiple of 8)")
    words.add_argument("--method", choices=METHODS, help="binarization method")
    words.add_argument("--seed", type=int, help="seed of the binarization (public)")
    words.add_argument("--name", help="pack name (default: the output directory's name)")
    words.add_argument("--out", type=Path, required=True, help="pack directory to write")
    words.add_argument("--force", action="store_true", help="replace an existing pack")
    return parser


def _words(args: argparse.Namespace) -> None:
    settings = (
        dict(DEFAULT_WORDS_PACK)
        if args.default
        else {"words": 100_000, "bits": 256, "method": "random-hyperplane", "seed": 0}
    )
    for key in ("source", "words", "bits", "method", "seed", "name"):
        if getattr(args, key) is not None:
            settings[key] = getattr(args, key)
    if args.source_file is not None:
        settings.pop("source", None)
    settings.setdefault("name", args.out.name)
    source_arg = (
        f"--source {settings['source']}"
        if "source" in settings
        else f"--source-file {args.source_file.name}"
    )
    command = (
        f"edgedp-export words {source_arg} --words {settings['words']} "
        f"--bits {settings['bits']} --method {settings['method']} --seed {settings['seed']} "
        f"--name {settings['name']} --out {settings['name']}"
    )
    source = load_source(settings.get("source"), args.source_file)
    config = WordsConfig(
        settings["name"],
        settings["words"],
        settings["bits"],
        settings["method"],
        settings["seed"],
        command,
    )
    out = build_words_pack(source, config, args.out, force=args.force)
    print(f"wrote {out}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``edgedp-export``."""
    args = _parser().parse_args(argv)
    try:
        _words(args)
    except EdgedpError as error:
        print(f"edgedp-export: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("edgedp-export: interrupted; nothing was published", file=sys.stderr)
        return 130
    except OSError as error:
        if os.environ.get("EDGEDP_DEBUG"):
            raise
        print(f"edgedp-export: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
