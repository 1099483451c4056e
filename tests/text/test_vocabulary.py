"""The compact vocabulary (edgedp.text.vocabulary) answers exactly as a dict of its words would."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgedp.errors import AssetError
from edgedp.text import vocabulary as module
from edgedp.text.vocabulary import Vocabulary

WORD = st.text(
    st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")), min_size=1, max_size=40
).filter(lambda w: w == w.strip())


@settings(max_examples=200, deadline=None)
@given(st.lists(WORD, min_size=1, max_size=300, unique=True), st.lists(WORD, max_size=50))
def test_lookups_agree_with_a_dict(words, probes):
    vocabulary = Vocabulary(words)
    expected = {word: index for index, word in enumerate(words)}
    queries = words + probes + [w + "x" for w in words[:20]] + ["", "\ud800"]
    assert vocabulary.ids(queries).tolist() == [expected.get(q, -1) for q in queries]
    assert len(vocabulary) == len(words)
    assert list(vocabulary.iter_words()) == words
    assert vocabulary._words is None  # iter_words decodes one word at a time
    assert vocabulary.words == tuple(words)
    assert [vocabulary[i] for i in range(len(words))] == words
    assert vocabulary[-1] == words[-1] and vocabulary[:2] == tuple(words[:2])
    assert all(word in vocabulary for word in words) and 42 not in vocabulary


def test_every_word_is_found_when_all_hashes_collide(monkeypatch):
    """Force one home slot for every word: the probing rounds and the lookups still agree."""
    monkeypatch.setattr(module, "_PRIME", 1)  # every hash is 0
    monkeypatch.setattr(module, "_hash", lambda data: 0)
    words = [f"w{i}" for i in range(500)] + ["é", "日本", "a" * 100]
    vocabulary = Vocabulary(words)
    assert vocabulary.ids(words).tolist() == list(range(len(words)))
    assert vocabulary.ids(["nope", "w5000"]).tolist() == [-1, -1]


@pytest.mark.parametrize(
    ("blob", "message"),
    [
        (b"alpha\nbeta\nalpha\n", "duplicate"),
        (b"alpha\n\nbeta\n", "empty or padded"),
        (b"alpha \nbeta\n", "empty or padded"),
        (b"alpha\n\xc2\xa0beta\n", "empty or padded"),  # a no-break space, as str.strip sees it
        (b"alpha\r\nbeta\n", "empty or padded"),
    ],
)
def test_bad_word_lists_are_refused(blob, message):
    with pytest.raises(AssetError, match=message):
        Vocabulary.from_lines(blob)


@pytest.mark.parametrize(
    ("first", "second"), [(0, 1), (3, 8000), (5, 9000), (8191, 8192), (100, 16999), (16998, 16999)]
)
def test_duplicates_are_refused_within_and_across_insertion_chunks(first, second):
    words = [f"w{i}" for i in range(17000)]
    Vocabulary(words)
    words[second] = words[first]
    with pytest.raises(AssetError, match="duplicate"):
        Vocabulary(words)


@pytest.mark.parametrize(("first", "second"), [(0, 499), (10, 11), (250, 251)])
def test_duplicates_are_refused_when_all_hashes_collide(monkeypatch, first, second):
    monkeypatch.setattr(module, "_PRIME", 1)
    monkeypatch.setattr(module, "_CHUNK", 64)  # many chunks, one home slot
    words = [f"w{i}" for i in range(500)]
    words[second] = words[first]
    with pytest.raises(AssetError, match="duplicate"):
        Vocabulary(words)


@settings(max_examples=100, deadline=None)
@given(st.lists(WORD, min_size=2, max_size=200, unique=True), st.data())
def test_any_duplicate_is_refused(words, data):
    first = data.draw(st.integers(0, len(words) - 1))
    second = data.draw(st.integers(0, len(words) - 1).filter(lambda i: i != first))
    words[second] = words[first]
    with pytest.raises(AssetError, match="duplicate"):
        Vocabulary(words)


def test_non_utf8_is_refused_as_unicode_error():
    with pytest.raises(UnicodeDecodeError):
        Vocabulary.from_lines(b"alpha\n\xff\n")


def test_ids_are_int64_and_the_table_is_at_most_load_full():
    vocabulary = Vocabulary([f"w{i}" for i in range(1000)])
    assert vocabulary.ids(["w3"]).dtype == np.int64
    assert (vocabulary._table >= 0).sum() <= module._LOAD * len(vocabulary._table)


def test_a_membership_list_holds_no_line_starts_until_an_id_is_asked_for():
    """``in`` answers from the hash table of byte offsets alone; ids build the line starts once."""
    vocabulary = Vocabulary(["alpha", "beta", "gamma"])
    assert "beta" in vocabulary and "bet" not in vocabulary and "beta\ngamma" not in vocabulary
    assert list(vocabulary.iter_words()) == ["alpha", "beta", "gamma"]
    assert vocabulary._starts is None
    assert vocabulary.ids(["gamma", "alpha", "beta\n", "delta"]).tolist() == [2, 0, -1, -1]
    assert vocabulary._starts is not None and vocabulary[1] == "beta"


@pytest.mark.parametrize("small_blob", [1 << 24, 1])  # int32 entries, then int64 entries
def test_long_word_lists_use_wide_entries_with_the_same_answers(monkeypatch, small_blob):
    monkeypatch.setattr(module, "_SMALL_BLOB", small_blob)
    words = [f"w{i}" for i in range(3000)] + ["é", "日本"]
    vocabulary = Vocabulary(words)
    assert vocabulary._table.dtype == (np.int32 if small_blob > 1 else np.int64)
    assert vocabulary.ids([*words, "w3000", "日"]).tolist() == [*range(len(words)), -1, -1]
    assert all(word in vocabulary for word in words) and "w-1" not in vocabulary
