"""``edgedp-export adept``: train a sentence autoencoder on public text -> an ``autoencoder`` pack.

edgedp-export adept --default --threads 2 --out assets/adept-bbc --force   (the bundled pack)
edgedp-export adept --corpus-dir DIR --license LICENCE --out my-pack [--labels] [--epochs N] ...

The build itself is :mod:`edgedp_export.autoencoder_build` (torch, imported only when this command
runs, so the other commands work without the ``adept`` extra).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from edgedp.adept.pack import CELLS
from edgedp.errors import DependencyError, InputError
from edgedp_export.autoencoder_config import DEFAULT_ADEPT_PACK, SETTING_KEYS, AdeptConfig
from edgedp_export.corpus import add_corpus_arguments, corpus_from_arguments

NAME = "adept"
HELP = "train a sentence autoencoder (ONNX encoder + decoder step) for ADePT"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)
    parser.add_argument(
        "--labels", action="store_true", help="label prefix tokens (the paper's label-aware model)"
    )
    parser.add_argument("--cell", choices=CELLS, help="recurrent cell (gru)")
    parser.add_argument("--latent-dims", type=int, help="latent dimension d (32)")
    parser.add_argument("--clip-norm", type=float, help="clipping radius C (1.0)")
    parser.add_argument("--embedding-dims", type=int, help="token embedding size (128)")
    parser.add_argument("--encoder-hidden", type=int, help="encoder state size per direction (256)")
    parser.add_argument("--decoder-hidden", type=int, help="decoder state size (384)")
    parser.add_argument("--max-tokens", type=int, help="longest sentence in tokens (48)")
    parser.add_argument("--min-count", type=int, help="keep subwords seen this often (5)")
    parser.add_argument("--max-vocabulary", type=int, help="most subword tokens kept (12000)")
    parser.add_argument("--epochs", type=int, help="training epochs (24)")
    parser.add_argument("--batch-size", type=int, help="sentences per batch (32)")
    parser.add_argument("--learning-rate", type=float, help="Adam learning rate (0.002)")
    parser.add_argument("--word-dropout", type=float, help="decoder input dropout (0.1)")
    parser.add_argument(
        "--bag-of-words", type=float, help="weight of the bag-of-words loss on the latent (1.0)"
    )
    parser.add_argument("--seed", type=int, help="seed of initialization and batches (0)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1)")
    parser.add_argument("--max-sentences", type=int, help="use only the first N training sentences")
    parser.add_argument("--name", help="pack name (default: adept-bbc with --default, else --out)")
    parser.add_argument("--out", type=Path, required=True, help="pack directory to write")
    parser.add_argument("--force", action="store_true", help="replace an existing pack")


def run(args: argparse.Namespace) -> None:
    settings = dict(DEFAULT_ADEPT_PACK)
    for key in SETTING_KEYS:
        if getattr(args, key) is not None:
            settings[key] = getattr(args, key)
    if (
        settings["cell"] not in CELLS
        or min(
            settings[key]
            for key in (
                "latent_dims",
                "embedding_dims",
                "encoder_hidden",
                "decoder_hidden",
                "epochs",
            )
        )
        < 1
    ):
        raise InputError("dimensions and epochs must be >= 1")
    if not (
        settings["clip_norm"] > 0
        and 0 <= settings["word_dropout"] < 1
        and settings["bag_of_words"] >= 0
    ):
        raise InputError("--clip-norm must be > 0, --word-dropout in [0, 1), --bag-of-words >= 0")
    name = args.name or ("adept-bbc" if args.default else args.out.name)
    corpus, corpus_argument = corpus_from_arguments(args)
    options = " ".join(f"--{key.replace('_', '-')} {settings[key]}" for key in SETTING_KEYS)
    extra = (" --labels" if args.labels else "") + (
        f" --max-sentences {args.max_sentences}" if args.max_sentences is not None else ""
    )
    command = (
        f"edgedp-export adept {corpus_argument}{extra} {options} --threads {args.threads} "
        f"--name {name} --out {name}"
    )
    config = AdeptConfig(
        name=name,
        labels=args.labels,
        threads=args.threads,
        max_sentences=args.max_sentences,
        command=command,
        **settings,
    )
    try:
        from edgedp_export.autoencoder_build import build_autoencoder_pack
    except ImportError as error:
        raise DependencyError(
            f'training needs torch, onnx and onnxscript ({error}): pip install "./export[adept]"'
        ) from None
    out = build_autoencoder_pack(corpus, config, args.out, force=args.force)
    print(f"wrote {out}", file=sys.stderr)
