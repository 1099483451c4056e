"""WordFile: a sorted list answered a block at a time must answer exactly as a set of its words."""

import pytest

from edgedp.errors import AssetError
from edgedp.text import word_files
from edgedp.text.word_files import WordFile


def test_the_guard_lists_answer_as_sets_of_their_words():
    """Every word of the bundled names and places lists is found, and its neighbours that are
    not on the list are not (prefixes, suffixes, line breaks, the words between two blocks)."""
    from edgedp.text.identifiers import places, public_names

    for table in (public_names(), places()):
        words = list(table.iter_words())
        members = set(words)
        assert len(words) == len(table) == len(members) and words == sorted(words, key=str.encode)
        assert all(word in table for word in words)
        probes = [word + suffix for word in words[::13] for suffix in ("s", "x", " ", "\n")]
        probes += [word[:-1] for word in words[::7]] + ["", "\n", "\ud800", "\x00", "\uffff" * 3]
        assert [probe in table for probe in probes] == [probe in members for probe in probes]


@pytest.mark.parametrize("block", [1, 5, 4096])
@pytest.mark.parametrize("header", [b"", b"# source: made up\n", b"# one\n#two\n"])
def test_list_files_skip_only_their_header_at_any_block_size(tmp_path, monkeypatch, header, block):
    monkeypatch.setattr(word_files, "BLOCK_BYTES", block)
    path = tmp_path / "words.txt"
    words = ["maria", "okafor", "zoë", "日本"]
    path.write_bytes(header + "\n".join(words).encode())  # the last line without its newline
    table = WordFile(path)
    assert list(table) == words and len(table) == 4
    probes = [*words, "# source: made up", "# one", "mari", "日", "zo", "zoë\n日本"]
    assert [word in table for word in probes] == [True] * 4 + [False] * 6
    path.write_bytes(header + b"# only comments")
    assert len(WordFile(path)) == 0 and list(WordFile(path)) == [] and "x" not in WordFile(path)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"b\na\n", "not sorted"),
        (b"a\na\n", "not sorted"),
        (b"a\n\nb\n", "empty or padded"),
        (b"\na\n", "empty or padded"),
        (b" a\n", "empty or padded"),
        (b"a\t\nb\n", "empty or padded"),
        (b"a\n\xff\n", "utf-8"),
    ],
)
def test_a_list_that_is_not_sorted_unique_clean_utf8_is_refused(tmp_path, content, problem):
    """An unsorted file would make lookups miss words (a name released): it is refused."""
    path = tmp_path / "names.txt"
    path.write_bytes(content)
    with pytest.raises(AssetError, match=f"names.txt: .*{problem}"):
        WordFile(path)


def test_unsorted_chunks_are_refused_across_their_boundary(tmp_path, monkeypatch):
    monkeypatch.setattr(word_files, "_CHUNK_BYTES", 8)
    path = tmp_path / "names.txt"
    path.write_bytes(b"aaaa\nbbbb\ncccc\nbbbb\n")
    with pytest.raises(AssetError, match="not sorted"):
        WordFile(path)


def test_a_missing_list_is_an_asset_error(tmp_path):
    with pytest.raises(AssetError, match="cannot read the word list"):
        WordFile(tmp_path / "missing.txt")


def test_repeated_and_alternating_lookups_answer_as_a_set(tmp_path, monkeypatch):
    """The block read last is reused (as a set once it is hit again): every order of lookups,
    sorted, repeated or jumping between blocks, answers as a set of the words."""
    monkeypatch.setattr(word_files, "BLOCK_BYTES", 16)
    words = [f"w{i:03d}" for i in range(0, 200, 2)]
    path = tmp_path / "words.txt"
    path.write_text("\n".join(words) + "\n", encoding="utf-8")
    table, members = WordFile(path), set(words)
    probes = [f"w{i:03d}" for i in range(200)]
    for order in (
        probes,
        probes[::-1],
        probes[::7] + probes[::3],
        [p for p in probes for _ in "ab"],
    ):
        assert [probe in table for probe in order] == [probe in members for probe in order]
