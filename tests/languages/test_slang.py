"""Chat spellings: every file is well formed, every spelling is one word slot, every word one word."""

from __future__ import annotations

import pytest

from edgedp.errors import AssetError, InputError
from edgedp.languages import slang
from edgedp.languages.slang import slang_languages, slang_table
from edgedp.text.emoji import has_emoji
from edgedp.text.segmentation import normalize_word, segment


def test_the_languages_that_ship():
    assert slang_languages() == ("de", "en", "es", "fr", "it", "pl", "pt", "ru")


@pytest.mark.parametrize("language", slang_languages())
def test_each_spelling_is_one_slot_and_each_word_one_word(language):
    table = slang_table(language)
    assert len(table) >= 30
    for spelling, word in table.items():
        for text in (spelling, word):
            assert normalize_word(text) == text and not has_emoji(text)
            assert segment(text).pieces == (None,), text  # one slot, no punctuation
        assert spelling != word and word not in table, (spelling, word)  # no chains


def test_every_english_word_is_in_the_bundled_pack(default_pack):
    words = list(slang_table("en").values())
    assert (default_pack.vocabulary.ids(words) >= 0).all()
    assert slang_table("en")["tmrw"] == "tomorrow"


def test_languages_are_checked_and_files_validated(tmp_path, monkeypatch):
    with pytest.raises(InputError, match="ISO 639"):
        slang_table("../en")
    assert dict(slang_table("zz")) == {}
    monkeypatch.setattr(slang, "DATA_DIR", tmp_path)
    (tmp_path / "slang-qq.txt").write_text("# comment\nok fine\nthree words here\n")
    with pytest.raises(AssetError, match="line 3"):
        slang_table("qq")
    (tmp_path / "slang-qr.txt").write_text("ok fine\nok again\n")
    with pytest.raises(AssetError, match="line 2"):
        slang_table("qr")
