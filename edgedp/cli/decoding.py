"""The decode step's options: which vocabulary word is printed for each noisy release.

``--decode``, ``--candidates`` and ``--lm`` (:mod:`edgedp.words.decoding`): decoding is
post-processing of the release, so it never changes the guarantee. The default each command
states in its help is the one it passes on (``privatize``, ``explain``, ``tune``: the mechanism's
own choice, ``auto``; ``calibrate``: ``nearest``).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from edgedp.errors import InputError
from edgedp.words.decoding import AUTO, DECODERS, DEFAULT_CANDIDATES, DEFAULT_LANGUAGE_MODEL

#: What ``--decode`` defaults to, as each command's help states it.
DEFAULT_MEANING = {
    AUTO: "context for brr where its language model is installed, as it is with the default pack; "
    "else nearest",
    "nearest": "nearest",
}


@dataclass(frozen=True)
class DecodeOptions:
    """The decoder of a word mechanism: its mode, candidates per slot and language model."""

    decode: str = AUTO
    candidates: int | None = None
    language_model: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace, default: str = AUTO) -> DecodeOptions:
        """The options given (``--candidates`` and ``--lm`` need ``--decode map`` or
        ``context``); ``default`` is the command's (see :func:`add_decoder_arguments`)."""
        decode = args.decode or default
        if decode in ("nearest", AUTO) and (args.candidates is not None or args.lm is not None):
            raise InputError("--candidates and --lm apply to --decode map or context: name one")
        return cls(decode, args.candidates, args.lm)

    @property
    def named(self) -> bool:
        """Whether a decoder other than the mechanism's own rule was asked for."""
        return self.decode not in ("nearest", AUTO)

    def keywords(self) -> dict[str, Any]:
        """The word mechanism's keyword arguments for this decoder."""
        if self.decode == "nearest":
            return {"decode": "nearest"}
        keywords: dict[str, Any] = {"decode": self.decode, "language_model": self.language_model}
        if self.candidates is not None:
            keywords["candidates"] = self.candidates
        return keywords


def add_decoder_arguments(parser: argparse.ArgumentParser, default: str = AUTO) -> None:
    """--decode, --candidates, --lm; ``default``: what the command decodes with when --decode is
    not given (``auto`` or ``nearest``), as its help says."""
    parser.add_argument(
        "--decode",
        choices=DECODERS,
        help="brr, madlib, mahalanobis, vickrey mechanisms: which vocabulary word is printed for "
        "each noisy release (post-processing: the guarantee is unchanged): the mechanism's own "
        "rule (nearest), the most probable word under a public unigram prior (map), or the most "
        "probable sentence under a public bigram language model (context) "
        f"(default: {DEFAULT_MEANING[default]})",
    )
    parser.add_argument(
        "--candidates",
        type=int,
        help=f"--decode map or context: nearest words weighed per slot "
        f"(default: {DEFAULT_CANDIDATES})",
    )
    parser.add_argument(
        "--lm",
        metavar="PACK",
        help=f"--decode map or context: the public language model pack, a name or directory "
        f"(default: {DEFAULT_LANGUAGE_MODEL})",
    )
