"""Which word pack serves each language, and which of them this installation has.

English's pack, ``words-small``, ships inside edgedp; every other language's word pack (with the
language model built over its vocabulary) is a wheel of its own (``edgedp-pack-words-es``, ...). A
language is *installed* when its word pack can be loaded by name: bundled, from an installed pack
distribution, or from a directory of ``EDGEDP_PACKS``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from edgedp.errors import InputError
from edgedp.packs.loading import BUNDLED_PACKS, installed_packs, search_dirs

#: The word pack of each language edgedp has one for, by ISO 639-1 code.
WORD_PACKS: Mapping[str, str] = MappingProxyType(
    {
        "en": "words-small",
        "es": "words-es",
        "de": "words-de",
        "fr": "words-fr",
        "pt": "words-pt",
        "it": "words-it",
        "ru": "words-ru",
        "pl": "words-pl",
    }
)
#: The language of text the identifier leaves undetermined (``ok``, ``lol``, a bare number).
DEFAULT_LANGUAGE = "en"


def word_pack(language: str) -> str:
    """The name of the word pack of ``language``.

    Parameters
    ----------
    language : str
        An ISO 639-1 code of :data:`WORD_PACKS`.

    Returns
    -------
    str
        The pack's name (``"words-es"``).

    Raises
    ------
    ~edgedp.InputError
        If edgedp has no word pack for ``language``.

    Examples
    --------
    >>> word_pack("es")
    'words-es'
    """
    try:
        return WORD_PACKS[language]
    except (KeyError, TypeError):
        raise InputError(
            f"edgedp has no word pack for language {language!r} (it has: {', '.join(WORD_PACKS)})"
        ) from None


def installed_languages() -> tuple[str, ...]:
    """The languages whose word pack this installation can load by name, in :data:`WORD_PACKS`
    order (English first: its pack is bundled).

    Returns
    -------
    tuple of str
        ISO 639-1 codes.

    Examples
    --------
    >>> installed_languages()[0]
    'en'
    """
    installed = installed_packs()
    extra = search_dirs()[1:]
    return tuple(
        language
        for language, name in WORD_PACKS.items()
        if name in BUNDLED_PACKS or name in installed or _in_any(extra, name)
    )


def _in_any(directories: list[Path], name: str) -> bool:
    return any(os.path.isdir(directory / name) for directory in directories)
