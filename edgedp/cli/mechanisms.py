"""The mechanism step: ``--mechanism``, its own options and its pack, from the registry.

Every mechanism-specific flag is derived from :mod:`edgedp.registry` (each entry's
:class:`~edgedp.registry.MechanismOption`): its help names the mechanisms that take it and the
constructor's default, and a flag given to a mechanism that does not take it is an error. A
command lists its mechanisms' flags with :func:`add_mechanism_arguments`, reads them once with
:meth:`MechanismOptions.from_args`, and builds with :meth:`WordMechanismOptions.build` (word
mechanisms, with the guard and decode steps' options) or :func:`build_mechanism` (the others).
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from edgedp.cli.decoding import DecodeOptions, add_decoder_arguments
from edgedp.cli.guarding import GuardOptions, add_guard_arguments
from edgedp.cli.options import RenamedFlag
from edgedp.errors import InputError, NotPrivateWarning
from edgedp.progress import Progress, message
from edgedp.registry import (
    WORD_MECHANISMS,
    MechanismEntry,
    MechanismOption,
    MechanismRegistry,
)
from edgedp.text.segmentation import CASINGS
from edgedp.words.mechanism import OOV_POLICIES, WordMechanism

if TYPE_CHECKING:
    from edgedp.cli.languages import LanguageOptions
    from edgedp.words.multilingual import Multilingual


def mechanism_options(
    registries: Sequence[MechanismRegistry[Any]],
) -> dict[str, tuple[MechanismOption, list[str]]]:
    """Each option of the mechanisms of ``registries`` (by keyword, in registration order) and
    the names of the mechanisms that take it (one keyword is one option: tests/test_registry.py)."""
    found: dict[str, tuple[MechanismOption, list[str]]] = {}
    for registry in registries:
        for entry in registry.entries():
            for option in entry.options:
                found.setdefault(option.keyword, (option, []))[1].append(entry.name)
    return found


def add_mechanism_arguments(
    parser: argparse.ArgumentParser, registries: Sequence[MechanismRegistry[Any]], *, default: str
) -> None:
    """--mechanism (the names of ``registries``; ``default`` when none is named), each
    mechanism's own options and --pack."""
    names = [name for registry in registries for name in registry]
    parser.add_argument(
        "--mechanism", choices=sorted(names), default=default, help=f"(default: {default})"
    )
    groups: dict[str, Any] = {}
    for option, takers in mechanism_options(registries).values():
        target: Any = parser
        if option.exclusive is not None or option.renamed_from is not None:
            group = option.exclusive or option.keyword
            if group not in groups:
                groups[group] = parser.add_mutually_exclusive_group()
            target = groups[group]
        target.add_argument(
            option.flag,
            *option.aliases,
            dest=option.keyword,
            type=option.parse,
            choices=option.choices,
            metavar=option.metavar,
            help=f"{', '.join(takers)}: {option.help} ({option.stated_default})",
        )
        if option.renamed_from is not None:
            target.add_argument(
                f"--{option.renamed_from}",
                dest=option.keyword,
                choices=option.choices,
                action=RenamedFlag,
                help=argparse.SUPPRESS,
            )
    packs: dict[str, list[str]] = {}
    for registry in registries:
        for entry in registry.entries():
            packs.setdefault(entry.pack, []).append(entry.name)
    first = entry_of(registries, default).pack
    others = [f"{pack} for {', '.join(takers)}" for pack, takers in packs.items() if pack != first]
    parser.add_argument(
        "--pack", help=f"pack directory or name (default: {', '.join([first, *others])})"
    )


def entry_of(registries: Sequence[MechanismRegistry[Any]], name: str) -> MechanismEntry:
    """The entry of mechanism ``name`` in the first of ``registries`` that has it."""
    return next(registry.entry(name) for registry in registries if name in registry)


def add_word_arguments(parser: argparse.ArgumentParser) -> None:
    """The word mechanisms' policies (--oov, --casing), the guard step's options (--protect,
    --deny) and the decode step's (--decode, --candidates, --lm)."""
    parser.add_argument(
        "--oov",
        choices=OOV_POLICIES,
        help="word mechanisms: out-of-vocabulary tokens, protected spans and emoji: a random "
        "common word or emoji (sample, the default), [OOV] (mask), nothing (drop), or [OOV] and, "
        "for a protected span or an emoji, its kind: [EMAIL], [NAME], [EMOJI], ... (placeholder)",
    )
    parser.add_argument("--casing", choices=CASINGS, help="word mechanisms (default: lower)")
    add_guard_arguments(parser)
    add_decoder_arguments(parser)


def add_word_mechanism_arguments(parser: argparse.ArgumentParser) -> None:
    """Everything that describes a word mechanism but its epsilon, for ``explain`` and ``tune``."""
    add_mechanism_arguments(parser, [WORD_MECHANISMS], default="brr")
    add_word_arguments(parser)


@dataclass(frozen=True)
class MechanismOptions:
    """The mechanism a command runs: its entry, pack, seed and the options of its own given."""

    entry: MechanismEntry
    pack: str | None = None
    seed: int | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.entry.name

    @classmethod
    def from_args(
        cls, args: argparse.Namespace, registries: Sequence[MechanismRegistry[Any]]
    ) -> MechanismOptions:
        """The chosen mechanism and its options; an option of another mechanism, or a required
        one missing, is an :class:`~edgedp.errors.InputError`."""
        name = args.mechanism
        entry = entry_of(registries, name)
        given: dict[str, Any] = {}
        for option, takers in mechanism_options(registries).values():
            value = getattr(args, option.keyword)
            if value is None:
                continue
            if option not in entry.options:
                raise InputError(not_applicable(option.flag, name, takers))
            given[option.keyword] = option.value(value)
        for option in entry.options:
            if option.required and option.keyword not in given:
                raise InputError(f"--mechanism {name} needs {option.flag} {option.metavar}")
        return cls(entry, args.pack, getattr(args, "seed", None), given)


def not_applicable(flag: str, name: str, takers: Sequence[str]) -> str:
    """The error of ``flag`` given to mechanism ``name``: which mechanisms take it."""
    return f"{flag} does not apply to --mechanism {name}: {', '.join(takers)} only"


@dataclass(frozen=True)
class WordPolicies:
    """A word mechanism's out-of-vocabulary policy and casing (``None``: the default)."""

    oov: str | None = None
    casing: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> WordPolicies:
        return cls(args.oov, args.casing)

    def keywords(self) -> dict[str, str]:
        """The word mechanism's keyword arguments given (the others are the constructor's)."""
        given = {"oov": self.oov, "casing": self.casing}
        return {name: value for name, value in given.items() if value is not None}


def build_mechanism(
    chosen: MechanismOptions, registry: MechanismRegistry[Any], pack: Any = None, **keywords: Any
) -> Any:
    """The mechanism ``chosen`` describes, with ``keywords`` (its epsilon, ``rng``, ...), on
    ``pack`` (``None``: the pack ``chosen`` names, else its pack type's default, loaded now); a
    seed's warning is the caller's to print."""
    cls = registry[chosen.name]
    if pack is None:
        pack = cls.pack_type.load(chosen.pack)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotPrivateWarning)  # announced by the caller
        return cls(pack, **chosen.options, **keywords)


@dataclass(frozen=True)
class WordMechanismOptions:
    """A word mechanism but its epsilon: the mechanism step's options with the guard and decode
    steps' (``explain``, ``tune`` and ``privatize`` build from it)."""

    mechanism: MechanismOptions
    policies: WordPolicies
    guard: GuardOptions
    decode: DecodeOptions

    @classmethod
    def from_args(
        cls,
        args: argparse.Namespace,
        registries: Sequence[MechanismRegistry[Any]] = (WORD_MECHANISMS,),
    ) -> WordMechanismOptions:
        return cls(
            MechanismOptions.from_args(args, registries),
            WordPolicies.from_args(args),
            GuardOptions.from_args(args),
            DecodeOptions.from_args(args),
        )

    def build(self, epsilon: float, *, rng: int | None = None) -> WordMechanism:
        """The word mechanism at ``epsilon``, its one-time set-up done (with progress on a
        terminal); ``rng`` is the seed of a release (the evaluation commands draw theirs
        elsewhere); a seed's warning is the caller's to print."""
        mechanism: WordMechanism = build_mechanism(
            self.mechanism,
            WORD_MECHANISMS,
            epsilon=epsilon,
            rng=rng,
            **self.policies.keywords(),
            **self.guard.keywords(),
            **self.decode.keywords(),
        )
        return self._prepared(mechanism)

    def build_in(
        self, languages: LanguageOptions, epsilon: float, *, rng: int | None = None
    ) -> Multilingual:
        """The word mechanism at ``epsilon`` in each language ``languages`` serves (the first
        one's set-up done now, the others' when a line of theirs comes); as :meth:`build`."""
        chosen = self.mechanism
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotPrivateWarning)  # announced by the caller
            multilingual = languages.build(
                chosen.name,
                chosen.pack,
                epsilon=epsilon,
                rng=rng,
                **chosen.options,
                **self.policies.keywords(),
                **self.guard.keywords(),
                **self.decode.keywords(),
            )
        self._prepared(multilingual.primary)
        return multilingual

    def _prepared(self, mechanism: WordMechanism) -> WordMechanism:
        chosen = self.mechanism
        if "geometry" not in chosen.options and getattr(mechanism, "geometry", None) == "hamming":
            message(
                f"edgedp: note: --mechanism {chosen.name} runs in Hamming space, epsilon per bit "
                f"(pack {mechanism.pack.name!r} has no float vectors for --geometry euclidean)"
            )
        with Progress(f"{chosen.name}: one-time set-up", unit="words") as progress:
            mechanism.prepare(progress.reporter())
        return mechanism
