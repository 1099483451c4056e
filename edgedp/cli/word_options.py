"""Options shared by the commands that build a word mechanism (``explain``, ``tune``, ``privatize``)."""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from edgedp.errors import InputError, NotPrivateWarning
from edgedp.progress import Progress, message
from edgedp.registry import WORD_MECHANISMS
from edgedp.text.identifiers import DEFAULT_PROTECT, PROTECT_KINDS
from edgedp.text.segmentation import CASINGS, check_deny
from edgedp.words.decoding import DECODERS, DEFAULT_CANDIDATES, DEFAULT_LANGUAGE_MODEL
from edgedp.words.mechanism import OOV_POLICIES, WordMechanism
from edgedp.words.pack import WordPack
from edgedp.words.spaces import GEOMETRIES

PROTECT_HELP = (
    "identifier guard: comma-separated kinds released like out-of-vocabulary tokens, never "
    f"through the mechanism ({', '.join(PROTECT_KINDS)}), 'all' or 'none' "
    f"(default: {','.join(DEFAULT_PROTECT)})"
)


def read_deny(path: str | None) -> frozenset[str]:
    """The deny-list file of ``--deny`` (one word a line, ``#`` comments) as normalized words."""
    if path is None:
        return frozenset()
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"--deny {path}: cannot read it ({error})") from None
    terms = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    try:
        return check_deny(terms)
    except InputError as error:
        raise InputError(f"--deny {path}: {error}") from None


def parse_protect(text: str | None) -> tuple[str, ...]:
    """``--protect`` as a tuple of kinds (``none`` is the empty tuple, ``all`` every kind)."""
    if text is None:
        return DEFAULT_PROTECT
    if text.strip().lower() == "none":
        return ()
    if text.strip().lower() == "all":
        return tuple(PROTECT_KINDS)
    kinds = tuple(item.strip() for item in text.split(",") if item.strip())
    unknown = [kind for kind in kinds if kind not in PROTECT_KINDS]
    if unknown or not kinds:
        raise InputError(
            f"--protect takes {', '.join(PROTECT_KINDS)} (comma-separated), all or none, got "
            f"{text!r}"
        )
    return kinds


def add_word_mechanism_arguments(
    parser: argparse.ArgumentParser, *, epsilon: bool = True, extra_mechanisms: tuple[str, ...] = ()
) -> None:
    """--mechanism (word mechanisms, and ``extra_mechanisms``), --epsilon, every word mechanism's
    own flags, the pack and the policies: defined once for privatize, explain and tune."""
    parser.add_argument(
        "--mechanism",
        choices=sorted([*WORD_MECHANISMS, *extra_mechanisms]),
        default="brr",
        help="(default: brr)",
    )
    if epsilon:
        parser.add_argument("--epsilon", required=True, help="privacy parameter (> 0; required)")
    parser.add_argument(
        "--lam", type=float, help="mahalanobis: regularization lambda in [0, 1] (default: 0.2)"
    )
    parser.add_argument(
        "--t", type=float, help="vickrey: tuning parameter t in [0, 1] (default: 0.5)"
    )
    parser.add_argument(
        "--weights",
        help="generalized-vickrey (required there, no default): t_1,...,t_k comma-separated, one "
        "per nearest word considered, e.g. 0,0.05,0.1",
    )
    geometry = parser.add_mutually_exclusive_group()  # --geometry G | --space G (deprecated)
    geometry.add_argument(
        "--geometry",
        choices=GEOMETRIES,
        help="vickrey mechanisms, tem, custext: the space perturbed in (default: euclidean if the "
        "pack has float vectors, else hamming)",
    )
    geometry.add_argument(
        "--space", choices=GEOMETRIES, dest="geometry", action=RenamedFlag, help=argparse.SUPPRESS
    )
    threshold = parser.add_mutually_exclusive_group()  # --gamma G | --beta B
    threshold.add_argument(
        "--gamma",
        type=float,
        help="tem: distance threshold (default: from --beta, the paper's recipe)",
    )
    threshold.add_argument(
        "--beta", type=float, help="tem without --gamma: Pr[output beyond gamma] (default: 0.001)"
    )
    parser.add_argument(
        "--k", "--top-k", dest="k", type=int, help="custext: output-set size (default: 20)"
    )
    parser.add_argument(
        "--p",
        type=float,
        help="santext-plus: probability a non-sensitive word is resampled (default: 0.3)",
    )
    parser.add_argument(
        "--sensitive-fraction",
        type=float,
        help="santext-plus: share of the rarest vocabulary words treated as sensitive "
        "(default: 0.9)",
    )
    parser.add_argument(
        "--pack",
        help="pack directory or name (default: words-small"
        + (", adept-bbc for adept)" if extra_mechanisms else ")"),
    )
    parser.add_argument(
        "--oov",
        choices=OOV_POLICIES,
        help="word mechanisms: out-of-vocabulary tokens, protected spans and emoji: a random "
        "common word or emoji (sample, the default), [OOV] (mask), nothing (drop), or [OOV] and, "
        "for a protected span or an emoji, its kind: [EMAIL], [NAME], [EMOJI], ... (placeholder)",
    )
    parser.add_argument("--casing", choices=CASINGS, help="word mechanisms (default: lower)")
    parser.add_argument("--protect", help="word mechanisms: " + PROTECT_HELP)
    add_decoder_arguments(parser)
    parser.add_argument(
        "--deny",
        metavar="FILE",
        help="word mechanisms: a file of words always protected, one a line (e.g. an app's "
        "contact names; '#' lines are comments), whatever --protect says (default: none)",
    )


class RenamedFlag(argparse.Action):
    """A flag's deprecated old name: stores its value and prints a one-line notice on stderr.

    It works for one release; the notice names the new flag (the ``dest``).
    """

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        new = "--" + self.dest.replace("_", "-")
        message(
            f"edgedp: warning: {option_string} is renamed {new}; {option_string} will be removed "
            "in the next release"
        )
        setattr(namespace, self.dest, values)


def add_decoder_arguments(parser: argparse.ArgumentParser) -> None:
    """--decode, --candidates, --lm: which word is printed for each noisy release."""
    parser.add_argument(
        "--decode",
        choices=DECODERS,
        help="brr, madlib, mahalanobis, vickrey mechanisms: which vocabulary word is printed for "
        "each noisy release (post-processing: the guarantee is unchanged): the mechanism's own "
        "rule (nearest), the most probable word under a public unigram prior (map), or the most "
        "probable sentence under a public bigram language model (context) (default: context for "
        "brr where its language model is installed, as it is with the default pack; else nearest)",
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


def decoder_options(args: argparse.Namespace) -> dict[str, Any]:
    """The decoder's keyword arguments given (``--candidates`` and ``--lm`` need ``--decode``)."""
    decode = args.decode or "auto"
    if decode in ("nearest", "auto") and (args.candidates is not None or args.lm is not None):
        raise InputError("--candidates and --lm apply to --decode map or context: name one")
    if decode == "nearest":
        return {"decode": "nearest"}
    options: dict[str, Any] = {"decode": decode, "language_model": args.lm}
    if args.candidates is not None:
        options["candidates"] = args.candidates
    return options


#: The mechanism-specific flags each word mechanism accepts.
MECHANISM_OPTIONS = {
    "mahalanobis": ("lam",),
    "vickrey": ("t", "geometry"),
    "generalized-vickrey": ("weights", "geometry"),
    "tem": ("gamma", "beta", "geometry"),
    "santext-plus": ("p", "sensitive_fraction"),
    "custext": ("k", "geometry"),
}
OPTION_NAMES = ("lam", "t", "weights", "geometry", "gamma", "beta", "k", "p", "sensitive_fraction")


def mechanism_options(args: argparse.Namespace) -> dict[str, Any]:
    """The mechanism-specific keyword arguments given; a flag of another mechanism is an error."""
    allowed = MECHANISM_OPTIONS.get(args.mechanism, ())
    options: dict[str, object] = {}
    for name in OPTION_NAMES:
        value = getattr(args, name)
        if value is None:
            continue
        if name not in allowed:
            flag = name.replace("_", "-")
            raise InputError(f"--{flag} does not apply to --mechanism {args.mechanism}")
        options[name] = _parse_weights(value) if name == "weights" else value
    if args.mechanism == "generalized-vickrey" and "weights" not in options:
        raise InputError("--mechanism generalized-vickrey needs --weights t1,...,tk")
    return options


def _parse_weights(text: str) -> list[float]:
    try:
        return [float(item) for item in text.split(",")]
    except ValueError:
        raise InputError(f"--weights must be comma-separated numbers, got {text!r}") from None


def print_report(report: Any, as_json: bool) -> None:
    """An explain or tune result on stdout: ``report.render()``, or ``report.as_dict()`` as JSON."""
    if as_json:
        json.dump(report.as_dict(), sys.stdout, indent=2, default=str)
        print()
    else:
        print(report.render())


def build_word_mechanism(
    args: argparse.Namespace, epsilon: float, *, rng: int | None = None
) -> WordMechanism:
    """The word mechanism the arguments describe, its one-time set-up done (with progress on a
    terminal); a seed's warning is the caller's to print."""
    pack = WordPack.load(args.pack)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotPrivateWarning)
        mechanism: WordMechanism = WORD_MECHANISMS[args.mechanism](
            pack,
            epsilon=epsilon,
            rng=rng,
            oov=args.oov or "sample",
            casing=args.casing or "lower",
            protect=parse_protect(args.protect),
            deny=read_deny(args.deny),
            **mechanism_options(args),
            **decoder_options(args),
        )
    if args.geometry is None and getattr(mechanism, "geometry", None) == "hamming":
        message(
            f"edgedp: note: --mechanism {args.mechanism} runs in Hamming space, epsilon per bit "
            f"(pack {pack.name!r} has no float vectors for --geometry euclidean)"
        )
    with Progress(f"{args.mechanism}: one-time set-up", unit="words") as progress:
        mechanism.prepare(progress.reporter())
    return mechanism
