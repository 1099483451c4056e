"""``edgedp-export words``: vocabulary selection, binary codes, manifest -> a ``words`` pack.

edgedp-export words --source glove-6b-50d --words 100000 --bits 256 --out DIR [--force]
edgedp-export words --source-file vectors.txt --words 5000 --out DIR
edgedp-export words --preset small --out assets/words-small --force   (the bundled default pack)
edgedp-export words --from-pack words-small --vectors float16 --out medium
    (no torch; about 4 CPU-minutes for the neighbour tables and CusText's sets, 29 MB;
    seconds and 14 MB with --neighbours 0 --custext 0)
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from edgedp.errors import InputError
from edgedp.registry import load_pack
from edgedp.text.segmentation import normalize_word
from edgedp_export.binarize import METHODS
from edgedp_export.custext_sets import DEFAULT_CUSTEXT_K
from edgedp_export.neighbours import DEFAULT_NEIGHBOURS
from edgedp_export.sources import SOURCES, WordVectors, load_source
from edgedp_export.words import BASE_SETTINGS, PRESETS, WordsConfig, build_words_pack

NAME = "words"
HELP = "build a words pack (vocabulary, binary codes, index, optional float vectors)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        help="a named configuration (small = the bundled default); flags override",
    )
    parser.add_argument("--source", choices=sorted(SOURCES), help="a registry source of vectors")
    parser.add_argument("--source-file", type=Path, help="GloVe/word2vec text file of vectors")
    parser.add_argument(
        "--words", type=_word_count, help="vocabulary size (most frequent words), or 'all'"
    )
    parser.add_argument("--bits", type=int, help="code length in bits (multiple of 8)")
    parser.add_argument("--method", choices=METHODS, help="binarization method")
    parser.add_argument("--seed", type=int, help="seed of the binarization (public)")
    parser.add_argument(
        "--vectors",
        choices=("none", "float16", "float32"),
        help="store float vectors (for Madlib, Mahalanobis, Vickrey)",
    )
    parser.add_argument("--index", choices=("flat", "hnsw", "ivf"), help="Hamming index to ship")
    parser.add_argument("--index-parameter", type=int, help="HNSW M or IVF nlist")
    parser.add_argument("--search-parameter", type=int, help="HNSW efSearch or IVF nprobe")
    parser.add_argument(
        "--report",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="write the binarization comparison (REPORT.md) into the pack",
    )
    parser.add_argument(
        "--only-words",
        type=Path,
        help="keep only the words listed in this UTF-8 file (one per line)",
    )
    parser.add_argument(
        "--from-pack",
        help="reuse this words pack's vocabulary and codes byte for byte and add --vectors from "
        "its source (no retraining, no torch; see edgedp_export.extend)",
    )
    parser.add_argument(
        "--calibration",
        choices=("sampled", "exact"),
        default="sampled",
        help="with --from-pack: Euclidean average over sampled pairs (default, seconds) or all "
        "pairs (minutes); the maximum is always exact",
    )
    parser.add_argument(
        "--neighbours",
        type=int,
        help="with vectors: words per row of the neighbour table of TEM and SanText (default "
        f"{DEFAULT_NEIGHBOURS}; 0: no table, they then search the vocabulary per word)",
    )
    parser.add_argument(
        "--custext",
        type=int,
        help=f"CusText output-set size of the sets stored in the pack (default {DEFAULT_CUSTEXT_K}; "
        "0: none, CusText then builds them on first use)",
    )
    parser.add_argument(
        "--language-model",
        metavar="PACK",
        help="the lm pack (built afterwards over this vocabulary with edgedp-export lm) that "
        "context decoding of this pack loads by default; recorded as the manifest's "
        "language_model (default: none, the runtime's lm-general)",
    )
    parser.add_argument("--name", help="pack name (default: the output directory's name)")
    parser.add_argument("--out", type=Path, required=True, help="pack directory to write")
    parser.add_argument("--force", action="store_true", help="replace an existing pack")


#: The settings of the codes and index, in the order the canonical command line writes them.
BUILD_FLAGS = ("bits", "method", "seed", "vectors", "index", "index_parameter", "search_parameter")
SETTING_FLAGS = ("source", "words", *BUILD_FLAGS, "report", "language_model", "name")


def run(args: argparse.Namespace) -> None:
    if args.from_pack is not None:
        _run_from_pack(args)
        return
    source, config = source_and_config(args)
    out = build_words_pack(source, config, args.out, force=args.force)
    print(f"wrote {out}", file=sys.stderr)


def source_and_config(args: argparse.Namespace) -> tuple[WordVectors, WordsConfig]:
    """The vectors and the build configuration that the arguments of ``edgedp-export words`` ask
    for (preset, then flags); tests/export/test_export.py reads a pack's recorded command with it."""
    settings = {**BASE_SETTINGS, **(PRESETS[args.preset] if args.preset else {})}
    for key in SETTING_FLAGS:
        if getattr(args, key) is not None:
            settings[key] = getattr(args, key)
    if args.source_file is not None:
        settings.pop("source", None)
    settings.setdefault("name", args.out.name)
    if settings["words"] == "all":
        settings["words"] = None
    source = load_source(settings.get("source"), args.source_file, words=settings["words"])
    config = WordsConfig(
        name=settings["name"],
        words=settings["words"],
        bits=settings["bits"],
        method=settings["method"],
        seed=settings["seed"],
        command=_command(settings, args),
        vectors=settings["vectors"],
        index=settings["index"],
        index_parameter=settings["index_parameter"],
        search_parameter=settings["search_parameter"],
        report=settings["report"],
        restrict_to=_word_list(args.only_words),
        neighbours=DEFAULT_NEIGHBOURS if args.neighbours is None else args.neighbours,
        custext=DEFAULT_CUSTEXT_K if args.custext is None else args.custext,
        language_model=settings.get("language_model"),
    )
    return source, config


def _run_from_pack(args: argparse.Namespace) -> None:
    """``--from-pack``: add float vectors to an existing pack (see :mod:`edgedp_export.extend`)."""
    from edgedp_export.extend import extend_words_pack  # no binarization, so no torch

    ignored = [
        flag
        for flag in ("preset", "words", "bits", "method", "seed", "index")
        if getattr(args, flag) is not None
    ]
    if args.only_words is not None:
        ignored.append("only_words")
    if args.report:
        ignored.append("report")
    if ignored:
        raise InputError(
            "--from-pack keeps the pack's vocabulary, codes and index; it takes only --vectors, "
            "--source/--source-file, --calibration, --neighbours, --custext, --name, --out, --force "
            f"(not --{ignored[0].replace('_', '-')})"
        )
    base = load_pack(args.from_pack, kind="words", verify=True)  # pinned if it is bundled
    source_name = args.source
    if source_name is None and args.source_file is None:
        match = re.search(r"--source (\S+)", str(base.manifest.data.get("build_command", "")))
        if match is None:
            raise InputError(
                f"pack {base.name} does not say its source: pass --source or --source-file"
            )
        source_name = match.group(1)
    name = args.name or args.out.name
    vectors = args.vectors or "float16"
    origin = f"--source {source_name}" if source_name else f"--source-file {args.source_file.name}"
    command = (
        f"edgedp-export words --from-pack {base.name} {origin} --vectors {vectors} "
        f"--calibration {args.calibration} --name {name} --out {name}"
    )
    for flag in ("neighbours", "custext"):
        if getattr(args, flag) is not None:
            command += f" --{flag} {getattr(args, flag)}"
    out = extend_words_pack(
        base,
        load_source(
            source_name,
            args.source_file if source_name is None else None,
            words=len(base.vocabulary),  # a sized source (use-multilingual-LANG) gives the same
        ),
        args.out,
        vectors=vectors,
        name=name,
        command=command,
        exact_calibration=args.calibration == "exact",
        neighbours=DEFAULT_NEIGHBOURS if args.neighbours is None else args.neighbours,
        custext=DEFAULT_CUSTEXT_K if args.custext is None else args.custext,
        force=args.force,
    )
    print(f"wrote {out}", file=sys.stderr)


def _word_list(path: Path | None) -> frozenset[str] | None:
    if path is None:
        return None
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read the word list {path}: {error}") from None
    return frozenset(normalize_word(line.strip()) for line in lines if line.strip())


def _word_count(text: str) -> int | str:
    if text == "all":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'all', got {text!r}") from None


def _command(settings: dict[str, object], args: argparse.Namespace) -> str:
    """The canonical command line (no machine paths: files by name only)."""
    parts = ["edgedp-export words"]
    parts.append(
        f"--source {settings['source']}"
        if "source" in settings
        else f"--source-file {args.source_file.name}"
    )
    parts.append(f"--words {'all' if settings['words'] is None else settings['words']}")
    for key in BUILD_FLAGS:
        if settings[key] is not None:
            parts.append(f"--{key.replace('_', '-')} {settings[key]}")
    parts.append("--report" if settings["report"] else "--no-report")
    if args.only_words is not None:
        parts.append(f"--only-words {args.only_words.name}")
    for flag in ("neighbours", "custext"):
        if getattr(args, flag) is not None:
            parts.append(f"--{flag} {getattr(args, flag)}")
    if settings.get("language_model") is not None:
        parts.append(f"--language-model {settings['language_model']}")
    parts.append(f"--name {settings['name']} --out {settings['name']}")
    return " ".join(parts)
