"""``edgedp-export langid``: the identifier model from word lists (synthetic ones here, in
milliseconds), the .mo reader, and (``-m rebuild``) the shipped model rebuilt byte for byte."""

from __future__ import annotations

import importlib.util
import struct
from pathlib import Path

import numpy as np
import pytest
from edgedp_export.cli import COMMAND_MODULES
from edgedp_export.language_identifier import (
    BUDGETS,
    Budget,
    WordList,
    build_identifier,
    language_tables,
    mo_messages,
    split_counts,
)

from edgedp.errors import InputError
from edgedp.languages.identification import MODEL_SHA256, IdentifierModel, words
from edgedp.packs.manifest import sha256_file

SMALL = {name: Budget(50, 400, budget.prior) for name, budget in BUDGETS.items()}


def word_list(language: str, text: str, source: str = "wordfreq test") -> WordList:
    counts = split_counts((word, 1.0) for word in text.split())
    total = sum(counts.values()) * 1.05
    return WordList.from_counts(
        language, {word: count / total for word, count in counts.items()}, source
    )


LISTS = [
    word_list(
        "en", "the cat sat on the mat and the dog ran to the park with a ball " * 3 + "thing"
    ),
    word_list("es", "el gato se sentó en la alfombra y el perro corrió al parque con una pelota"),
    word_list("nl", "de kat zat op de mat en de hond rende naar het park met een bal"),
]


def test_the_command_is_registered():
    assert "edgedp_export.commands.langid" in COMMAND_MODULES


def test_counts_follow_the_runtime_words():
    assert split_counts([("l'homme", 2.0), ("don't", 1.0), ("2024", 5.0)]) == {
        "l": 2.0,
        "homme": 2.0,
        "don": 1.0,
        "t": 1.0,
    }


def test_a_model_of_word_lists_scores_each_language_on_its_words(tmp_path):
    model = build_identifier(LISTS, SMALL, {"name": "test"})
    model.check(contents=True)
    assert model.languages == ("en", "es", "nl")
    for language, text in (
        ("en", "the dog sat"),
        ("es", "el perro corrió"),
        ("nl", "de hond rende"),
    ):
        scores, unknown = model.score(words(text))
        assert unknown == 0
        assert model.languages[int(np.argmax(scores.sum(axis=0)))] == language
    # an unknown word is scored by the character model: Spanish-looking text is Spanish
    scores, _ = model.score(words("perrito gatito"))
    assert model.languages[int(np.argmax(scores.sum(axis=0)))] == "es"
    model.save(tmp_path / "model.bin")
    again = IdentifierModel.load(tmp_path / "model.bin", sha256=None)
    assert again.languages == model.languages and again.metadata["name"] == "test"
    assert np.array_equal(again.keys, model.keys)
    again.save(tmp_path / "again.bin")
    assert (tmp_path / "again.bin").read_bytes() == (tmp_path / "model.bin").read_bytes()


def test_kept_words_and_unknown_mass():
    tables = language_tables(LISTS[0], Budget(3, 100, 1.0))
    assert tables.word_keys.size == 3
    kept = sorted(LISTS[0].frequencies, reverse=True)[:3]
    assert np.isclose(np.exp(tables.log_unknown), 1 - sum(kept))
    assert tables.ngram_keys.size == 100


def test_duplicate_languages_are_refused():
    with pytest.raises(InputError, match="distinct"):
        build_identifier([LISTS[0], LISTS[0]], SMALL, {})


def mo_file(pairs: list[tuple[str, str]]) -> bytes:
    """A little-endian GNU .mo catalog of ``pairs``."""
    sources = [source.encode() for source, _ in pairs]
    translations = [translation.encode() for _, translation in pairs]
    count = len(pairs)
    header = 7 * 4
    tables = header + 16 * count
    blob = b""
    offsets = []
    for text in (*sources, *translations):
        offsets.append((len(text), tables + len(blob)))
        blob += text + b"\0"
    data = struct.pack("<7I", 0x950412DE, 0, count, header, header + 8 * count, 0, 0)
    return data + b"".join(struct.pack("<2I", *pair) for pair in offsets) + blob


def test_mo_catalogs_are_read_without_gettext_internals():
    data = mo_file(
        [("", "Language: gl"), ("menu\x04Open", "Abrir"), ("file\0files", "ficheiro\0ficheiros")]
    )
    assert mo_messages(data) == [
        ("", "Language: gl"),
        ("Open", "Abrir"),
        ("file files", "ficheiro ficheiros"),
    ]
    with pytest.raises(InputError, match="not a GNU gettext"):
        mo_messages(b"\0" * 40)


@pytest.mark.rebuild
@pytest.mark.skipif(importlib.util.find_spec("wordfreq") is None, reason="needs wordfreq")
def test_the_shipped_model_is_reproducible(tmp_path):
    """``edgedp-export langid`` (wordfreq and apt-get on Debian) rebuilds the shipped file."""
    from edgedp_export.cli import main

    out = Path(tmp_path) / "identifier.bin"
    assert main(["langid", "--out", str(out)]) == 0
    assert sha256_file(out) == MODEL_SHA256
