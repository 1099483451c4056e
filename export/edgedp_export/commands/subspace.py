"""``edgedp-export subspace``: a ``subspace`` pack for SubspaceMean (:mod:`edgedp_export.subspace`).

edgedp-export subspace --general --encoder-from sentences-bbc --out subspace-general
edgedp-export subspace --multilingual --encoder-from encoder-use-multilingual --out subspace-multilingual
edgedp-export subspace --corpus-jsonl docs.jsonl --license L --encoder-from subspace-general --out my-pack

The pack references the encoder pack of the --encoder-from pack by manifest SHA-256; a source pack
that carries its own encoder (built before encoder packs) gets one written at --encoder-out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from edgedp.documents.pack import SentencePack
from edgedp.documents.subspace_pack import SubspacePack
from edgedp.encoder.pack import EncoderPack
from edgedp.errors import InputError
from edgedp.registry import load_pack
from edgedp_export.corpus import add_corpus_arguments, corpus_from_arguments
from edgedp_export.multilingual_corpora import MULTILINGUAL_PER_SOURCE, multilingual_corpus
from edgedp_export.public_corpora import GENERAL_DOMAINS, general_corpus
from edgedp_export.sentences import built_note
from edgedp_export.subspace import DIRECTIONS, SubspaceConfig, build_subspace_pack

NAME = "subspace"
HELP = "build a subspace pack (public mean, directions, clip radii) for SubspaceMean, no torch"
#: Documents per public domain of --general (more than the sentences pack's 300: a subspace pack
#: costs only their encoding).
GENERAL_SUBSPACE_PER_DOMAIN = 1000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser, general="subspace-general")
    parser.add_argument(
        "--per-domain",
        type=int,
        help=f"--general: most documents per domain ({GENERAL_SUBSPACE_PER_DOMAIN}); "
        f"--multilingual: per source ({MULTILINGUAL_PER_SOURCE})",
    )
    parser.add_argument(
        "--multilingual",
        action="store_true",
        help="build from public text of eight languages (LibreOffice help, translated man pages, "
        f"fortune cookies; at most {MULTILINGUAL_PER_SOURCE} documents per source, or "
        "--per-domain)",
    )
    parser.add_argument(
        "--encoder-from",
        metavar="PACK",
        required=True,
        help="embed with the encoder of this sentences or subspace pack (name or folder), or of "
        "this encoder pack if it carries reference sentences: the new pack references the same "
        "encoder pack",
    )
    parser.add_argument(
        "--encoder-out",
        type=Path,
        metavar="DIR",
        help="where an encoder pack is written if the --encoder-from pack carries its own encoder "
        "(reused if it holds the same encoder); default: beside --out, named NAME-encoder",
    )
    parser.add_argument(
        "--directions", type=int, default=DIRECTIONS, help=f"most directions stored ({DIRECTIONS})"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the cross-fitting halves (0)")
    parser.add_argument("--threads", type=int, default=2, help="onnxruntime threads (2)")
    parser.add_argument("--name", help="pack name (default: the output directory's name)")
    parser.add_argument("--out", type=Path, required=True, help="pack directory to write")
    parser.add_argument("--force", action="store_true", help="replace an existing pack")


def run(args: argparse.Namespace) -> None:
    if args.directions < 1 or (args.per_domain is not None and args.per_domain < 1):
        raise InputError("--directions and --per-domain must be >= 1")
    own = [
        flag
        for flag, given in (("--general", args.general), ("--multilingual", args.multilingual))
        if given
    ]
    if own and (
        len(own) > 1 or args.default or args.corpus_dir is not None or args.corpus_jsonl is not None
    ):
        raise InputError(f"{own[0]} builds from its own corpora: give it alone")
    if args.general:
        per_domain = args.per_domain or GENERAL_SUBSPACE_PER_DOMAIN
        corpus = general_corpus(GENERAL_DOMAINS, per_domain)
        corpus_arg = f"--general --per-domain {per_domain}"
    elif args.multilingual:
        per_source = args.per_domain or MULTILINGUAL_PER_SOURCE
        corpus = multilingual_corpus(per_source=per_source)
        corpus_arg = f"--multilingual --per-domain {per_source}"
    else:
        corpus, corpus_arg = corpus_from_arguments(args)
    source = load_pack(args.encoder_from)
    if not isinstance(source, SentencePack | SubspacePack | EncoderPack):
        raise InputError(
            f"--encoder-from needs a sentences, subspace or encoder pack, not {source.kind}"
        )
    name = args.name or args.out.name
    command = (
        f"edgedp-export subspace {corpus_arg} --encoder-from {source.name} "
        f"--directions {args.directions} --seed {args.seed} --name {name} --out {name}"
    )
    config = SubspaceConfig(name, command, args.directions, args.seed, args.threads)
    encoder_out = args.encoder_out or args.out.parent / f"{name}-encoder"
    out, encoder = build_subspace_pack(
        corpus, source, config, args.out, force=args.force, encoder_out=encoder_out
    )
    print(built_note(out, encoder), file=sys.stderr)
