"""Chat spellings: the one vocabulary word each chat abbreviation or spelling stands for, per language.

Chat is full of spellings that a word pack built from edited text lacks (``tmrw``, ``idk``,
``wfh``, ``bday``, ``doesnt``) or holds in another sense (in GloVe 6B ``r`` sits beside
``boehner`` and ``republican``, ``smh`` beside company names). A word mechanism looks each word slot
up through :func:`slang_table` of its pack's language before the vocabulary: ``tmrw`` is then
privatized as ``tomorrow`` (released by the mechanism, with its guarantee) instead of being replaced
as an unknown token, or privatized among a senator's neighbours.

**One word, never a phrase.** Every spelling maps to one word (``idk``: ``unsure``, ``tbh``:
``honestly``), so a slot stays one slot: the layout, which is released, does not depend on which
spelling was typed (an expansion into a phrase would add slots, and their count would tell
``idk`` from ``unsure``).

**What the guarantee becomes.** The normalization is a fixed public function ``f`` applied before
the mechanism, so the mechanism's guarantee holds for ``f(w)``: two spellings with the same word
(``tmrw`` and ``tomorrow``) are indistinguishable, and otherwise the bound is epsilon * d(f(w),
f(w')). A spelling that was out of vocabulary before is now released with the word-level guarantee
of its word, where its content used to be replaced with epsilon 0: it is now privatized, not
hidden.

**Files.** ``data/slang-<language>.txt`` (an ISO 639-1 code; ``en``, ``es``, ``de``, ``fr``,
``pt``, ``it``, ``ru``, ``pl`` ship), ``SPELLING WORD`` per line, ``#`` comments with the sources
and rules; a language without a file has no normalization. Public data, no randomness.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from types import MappingProxyType

from edgedp.errors import AssetError, InputError

#: The folder of the per-language files.
DATA_DIR = Path(__file__).resolve().parent / "data"
#: The file of a language's chat spellings (``slang-en.txt``).
SLANG_FILE = "slang-{language}.txt"
_LANGUAGE = re.compile(r"[a-z]{2,3}")


def _check_language(language: str) -> str:
    if not isinstance(language, str) or not _LANGUAGE.fullmatch(language):
        raise InputError(f"a language is an ISO 639 code such as 'en', got {language!r}")
    return language


@cache
def slang_table(language: str) -> Mapping[str, str]:
    """The chat spellings of ``language`` and the word each stands for (empty without a file).

    Parameters
    ----------
    language : str
        An ISO 639-1 (or 639-3) code, lower case: ``"en"``.

    Returns
    -------
    Mapping of str to str
        Spelling -> word, both lower case, read-only.

    Raises
    ------
    ~edgedp.InputError
        If ``language`` is not such a code.
    ~edgedp.AssetError
        If the language's file has a line that is not two words, or lists a spelling twice.

    Examples
    --------
    >>> table = slang_table("en")
    >>> table["tmrw"], table["idk"], table["doesnt"]
    ('tomorrow', 'unsure', 'not')
    >>> slang_table("es")["xq"], len(slang_table("xx"))
    ('porque', 0)
    """
    path = DATA_DIR / SLANG_FILE.format(language=_check_language(language))
    if not path.is_file():
        return MappingProxyType({})
    table: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        if len(fields) != 2 or fields[0] in table:
            raise AssetError(
                f"{path.name} line {number}: expected a new 'SPELLING WORD', got {line!r}"
            )
        table[fields[0]] = fields[1]
    return MappingProxyType(table)


def slang_languages() -> tuple[str, ...]:
    """The languages that have a chat-spelling file, sorted.

    Examples
    --------
    >>> "en" in slang_languages()
    True
    """
    prefix, suffix = SLANG_FILE.split("{language}")
    return tuple(
        sorted(
            path.name[len(prefix) : -len(suffix)] for path in DATA_DIR.glob(f"{prefix}*{suffix}")
        )
    )
