"""The language step: ``--language``, the word pack each line of ``privatize`` is released with.

``auto`` (the default) finds the language of each line (each sentence where a line mixes them) with
:func:`edgedp.languages.identification.language_runs` and releases it with that language's word
pack (:class:`~edgedp.words.multilingual.Multilingual`); a line in a language without an installed
pack is protected whole (``[OTHER-LANGUAGE]`` with ``--oov placeholder``), never privatized as
noise of another language. A language code releases every line with that language's pack, and
nothing is identified. ``--pack`` chooses the pack of its own language: the only language served.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from edgedp.errors import InputError
from edgedp.languages.identification import OTHER, UNDETERMINED, identify
from edgedp.languages.packs import DEFAULT_LANGUAGE, WORD_PACKS, installed_languages
from edgedp.registry import WORD_MECHANISMS
from edgedp.words.multilingual import AUTO, Multilingual
from edgedp.words.pack import WordPack
from edgedp.words.replacements import pack_language


def add_language_argument(parser: argparse.ArgumentParser) -> None:
    """--language: auto (found per line) or an ISO 639-1 code."""
    parser.add_argument(
        "--language",
        default=AUTO,
        help="the language of the text: auto (found for each line, each sentence where a line "
        "mixes them; a line in a language without an installed word pack is protected whole) or "
        f"a code of an installed pack ({', '.join(WORD_PACKS)}: every line in it); with --pack, "
        "the pack's own language is the only one served (default: %(default)s)",
    )


def add_pack_language_argument(parser: argparse.ArgumentParser) -> None:
    """--language CODE for a command about one word pack (``explain``, ``tune``, ``calibrate``):
    the shorthand of --pack with that language's pack (:func:`pack_argument`)."""
    packs = ", ".join(f"{code}: {pack}" for code, pack in WORD_PACKS.items())
    parser.add_argument(
        "--language",
        choices=list(WORD_PACKS),
        help=f"the word pack of this language instead of --pack ({packs}; default: --pack's)",
    )


def pack_argument(args: argparse.Namespace) -> str | None:
    """The pack --pack names, or the word pack of --language (:func:`add_pack_language_argument`).

    Raises
    ------
    ~edgedp.InputError
        If both are given.
    """
    language, pack = getattr(args, "language", None), args.pack
    if language is None:
        return pack  # type: ignore[no-any-return]
    if pack is not None:
        raise InputError("--language chooses the pack of a language: give it or --pack, not both")
    return WORD_PACKS[language]


@dataclass(frozen=True)
class LanguageOptions:
    """Which languages a run serves (their word packs) and how each line's is chosen."""

    language: str = AUTO

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> LanguageOptions:
        language = getattr(args, "language", AUTO)
        if language != AUTO and language not in WORD_PACKS:
            raise InputError(
                f"--language takes auto or one of {', '.join(WORD_PACKS)}, got {language!r}"
            )
        return cls(language)

    def packs(self, pack: str | None) -> dict[str, WordPack | str]:
        """The word pack of each language served: ``pack``'s (a directory or name) alone, else
        every installed language's (by name, loaded on first use)."""
        if pack is not None:
            loaded = WordPack.load(pack)
            own = pack_language(loaded)
            if self.language not in (AUTO, own):
                raise InputError(
                    f"--language {self.language}: the pack {loaded.name!r} is in {own!r}; leave "
                    "out --pack to use the language's own pack"
                )
            return {own: loaded}
        installed = installed_languages()
        if self.language != AUTO and self.language not in installed:
            raise InputError(
                f"--language {self.language}: its word pack {WORD_PACKS[self.language]!r} is not "
                f"installed (installed: {', '.join(installed)}); pip install "
                f"edgedp-pack-{WORD_PACKS[self.language]}"
            )
        return {language: WORD_PACKS[language] for language in installed}

    def build(
        self, name: str, pack: str | None, *, epsilon: float, rng: int | None, **options: Any
    ) -> Multilingual:
        """The word mechanism ``name`` of the registry in every language served."""
        packs = self.packs(pack)
        language_model = options.pop("language_model", None)
        if language_model is not None:
            if len(packs) > 1:
                raise InputError(
                    "--language-model names one language's model: give --pack (or --language) "
                    "so that one language is served"
                )
            options["language_model"] = language_model
        return Multilingual(
            WORD_MECHANISMS[name],
            epsilon=epsilon,
            languages=packs,
            language=self.language if self.language in packs else AUTO,
            rng=rng,
            **options,
        )

    def of_line(self, line: str, served: tuple[str, ...]) -> str:
        """The language a line is released in (``--dry-run``): a served language, or ``"other"``
        (protected whole)."""
        if self.language != AUTO:
            return self.language
        route = identify(line, served).route
        if route == UNDETERMINED:
            route = DEFAULT_LANGUAGE
        return route if route in served else OTHER
