"""``edgedp-export lm``: a public bigram language model over a words pack's vocabulary (pack kind
``lm``, :mod:`edgedp_export.language_model`), for the context decoder.

edgedp-export lm --words-from words-small --corpora fiction,drama,speeches --min-count 2 --out lm-x
edgedp-export lm --words-from assets/words-es --corpora help-es,manpages-es,fortunes-es --out lm-es

Corpora: the English ones of :data:`edgedp_export.public_corpora.CORPORA` and, for the other
languages of the word packs, those of :func:`edgedp_export.multilingual_corpora.sources`
(``help-LANG``, ``manpages-LANG``, ``fortunes-LANG`` for es, de, ru, pt; Debian packages). The lm
pack states the words pack's ``language``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from edgedp.errors import InputError
from edgedp.registry import load_pack
from edgedp_export.language_model import (
    DEFAULT_MIN_COUNT,
    LanguageModelConfig,
    build_language_model_pack,
)
from edgedp_export.multilingual_corpora import FORTUNE_LANGUAGES, LANGUAGES, corpus_of_language
from edgedp_export.public_corpora import CORPORA

#: The corpora of the other languages, by name (help-es, manpages-ru, fortunes-de, ...).
LANGUAGE_CORPORA = tuple(
    f"{kind}-{language}"
    for language in LANGUAGES
    if language != "en"
    for kind in ("help", "manpages", "fortunes")
    if kind != "fortunes" or language in FORTUNE_LANGUAGES
)

NAME = "lm"
HELP = "build a bigram language model pack (lm) over a words pack's vocabulary, no torch"
#: The corpora of the bundled lm-general: every public corpus but fortunes (held apart for the
#: benchmark's judge language model).
GENERAL_LM_CORPORA = (
    "fiction",
    "drama",
    "speeches",
    "manpages",
    "packages",
    "foldoc",
    "jargon",
    "devil",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--words-from",
        metavar="PACK",
        required=True,
        help="the words pack (name or folder) whose vocabulary the model is over (required)",
    )
    parser.add_argument(
        "--corpora",
        default=",".join(GENERAL_LM_CORPORA),
        help=f"comma-separated public corpora of {', '.join(CORPORA)}, "
        f"{', '.join(LANGUAGE_CORPORA)} (default: {','.join(GENERAL_LM_CORPORA)})",
    )
    parser.add_argument(
        "--min-count",
        type=int,
        default=DEFAULT_MIN_COUNT,
        help=f"store only bigrams seen at least this often (default: {DEFAULT_MIN_COUNT})",
    )
    parser.add_argument("--name", help="pack name (default: the output directory's name)")
    parser.add_argument(
        "--out", type=Path, required=True, help="pack directory to write (required)"
    )
    parser.add_argument(
        "--force", action="store_true", help="replace an existing pack (default: refuse)"
    )


def run(args: argparse.Namespace) -> None:
    names = [name.strip() for name in args.corpora.split(",") if name.strip()]
    unknown = [name for name in names if name not in CORPORA and name not in LANGUAGE_CORPORA]
    if not names or unknown:
        raise InputError(
            f"--corpora takes names of {', '.join((*CORPORA, *LANGUAGE_CORPORA))}; "
            f"got {', '.join(unknown) or 'none'}"
        )
    words = load_pack(args.words_from, kind="words")
    name = args.name or args.out.name
    command = (
        f"edgedp-export lm --words-from {words.name} --corpora {','.join(names)} "
        f"--min-count {args.min_count} --name {name} --out {name}"
    )
    corpora = {
        corpus: CORPORA[corpus]() if corpus in CORPORA else corpus_of_language(corpus)
        for corpus in names
    }
    config = LanguageModelConfig(name, command, args.min_count)
    out = build_language_model_pack(corpora, words, config, args.out, force=args.force)
    print(f"wrote {out}", file=sys.stderr)
