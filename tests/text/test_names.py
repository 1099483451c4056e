"""The names guard: names of many origins in any case, and common words that are names only in
context (a chat message released ``okafor`` in 103 of 200 runs at the README's epsilon)."""

from __future__ import annotations

import pytest

import edgedp
from edgedp.text.identifiers import (
    DEFAULT_PROTECT,
    ambiguous_names,
    name_slots,
    public_names,
    span_may_continue,
)
from edgedp.text.segmentation import segment
from edgedp.words.streaming import privatize_stream

NAMES = frozenset({"names"})
MESSAGE = "hey maria, can you call dr. okafor at 555-0142 about my mri results tomorrow? thx - sam"


def protected(text: str, kinds: frozenset[str] = NAMES) -> list[str]:
    segmented = segment(text, kinds)
    return [segmented.words[index] for index in sorted(segmented.protected)]


def test_the_user_study_message_protects_every_name_and_the_phone():
    segmented = segment(MESSAGE, frozenset(DEFAULT_PROTECT))
    kinds = {segmented.words[index]: kind for index, kind in segmented.kinds.items()}
    assert kinds == {"maria": "name", "okafor": "name", "sam": "name", "555-0142": "phone"}


def test_the_user_study_message_never_releases_a_name(default_pack):
    brr = edgedp.BRR(default_pack, epsilon=0.6, oov="placeholder", rng=7)
    for _ in range(20):
        released = brr.privatize(MESSAGE)
        assert not {"maria", "okafor", "sam"} & set(released.replace(",", " ").split())
        assert "[NAME]" in released and "[PHONE]" in released


def test_the_user_study_message_releases_no_name_in_200_runs_on_the_default_settings(default_pack):
    # The README's command: BRR at epsilon 0.6 per bit, every guard, oov="sample", the default
    # decoder. Each name's slot holds a random word, never the name (in 200 runs, OS entropy).
    brr = edgedp.BRR(default_pack, epsilon=0.6)
    slots = segment(MESSAGE, frozenset(DEFAULT_PROTECT)).words  # 555-0142 is one slot
    where = {name: slots.index(name) for name in ("maria", "okafor", "sam")}
    for released in brr.privatize_batch([MESSAGE] * 200):
        words = segment(released).words
        if len(words) == len(slots):
            assert all(words[index] != name for name, index in where.items()), released
        else:  # a replacement word held punctuation (a vocabulary word such as "e-mail")
            assert not set(where) & set(words), released


#: Lower-case names of the origins the Census list missed, each on the public list.
ORIGINS = {
    "Igbo": ["okafor", "chinedu", "ngozi", "obinna", "adaeze", "nwosu", "chiamaka", "emeka"],
    "Akan": ["kwame", "kofi", "abena", "akosua", "yaw", "mensah", "boateng", "asante"],
    "Yoruba": ["adebayo", "oluwaseun", "adekunle", "abiodun", "adegoke"],
    "Indian": ["priya", "rajesh", "ananya", "venkatesh", "srinivasan", "deepika", "agarwal"],
    "Japanese": ["hiroshi", "yuki", "takahashi", "haruka", "kenji", "watanabe"],
    "Arabic": ["abdullah", "fatima", "mohammed", "khalid", "yasmin", "abdelkader"],
    "Persian": ["reza", "mehdi", "parisa", "dariush", "shirin"],
    "Russian": ["dmitry", "dmitriy", "oksana", "sergei", "ivanov", "smirnova", "natalya"],
    "Polish": ["katarzyna", "wojciech", "kowalski", "agnieszka", "józef", "jozef"],
    "Italian": ["giuseppe", "francesca", "esposito", "giovanni", "ferrari"],
    "Scandinavian": ["sigrid", "bjorn", "ingrid", "lindqvist", "solveig", "henriksen"],
    "Irish": ["siobhan", "niamh", "padraig", "aoife", "murphy", "oneill"],
}


@pytest.mark.parametrize("origin", ORIGINS)
def test_names_of_every_origin_are_protected_in_lower_case(origin):
    for name in ORIGINS[origin]:
        assert name in public_names()
        assert name not in ambiguous_names()
        assert protected(f"i saw {name} at the station") == [name], name
        assert protected(f"{name.upper()} CALLED") == [name], name


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("since early january we met", []),
        ("ok see you then", []),
        ("the bill passed and the sun rose", []),
        ("we will see, may be", []),
        ("hey early, you there?", ["early"]),
        ("we met Early and left", ["early"]),
        ("hi mark", ["mark"]),
        ("dear grace,", ["grace"]),
        ("ask dr. will about it", ["will"]),
        ("can you call bill tomorrow", ["bill"]),
        ("text ok later", ["ok"]),
        ("lunch with rose", ["rose"]),
        ("maria and will came", ["maria", "will"]),
        ("will and maria came", ["will", "maria"]),
        ("kofi & may", ["kofi", "may"]),
        ("see you soon\nlove, grace", ["grace"]),
        ("see you - sun", ["sun"]),
        ("thx - sam", ["sam"]),
    ],
)
def test_common_words_that_are_names_are_protected_only_in_context(text, expected):
    assert all(word in ambiguous_names() for word in ("ok", "early", "will", "may", "mark"))
    assert protected(text) == expected


def test_a_word_on_no_list_is_a_name_after_a_title_or_a_cue_and_rare_words_a_kind_of_their_own():
    assert protected("ask dr. zyxwq today") == ["zyxwq"]
    assert protected("ask dr. who today") == ["who"]  # after a title, any word
    assert protected("hey okafo, you up?") == ["okafo"]
    assert protected("thx - okafo") == ["okafo"]
    # common words after a cue are not names
    assert protected("call in sick, tell my mom, hey guys") == []
    # without a cue, a word that is no frequent word of English is the rare-words guard's (held-out
    # names on no list are mostly such words); chat spellings, months and weekdays never are
    assert protected("i think okafo is there") == []
    rare = frozenset({"rare-words"})
    assert protected("i think okafo is there", rare) == ["okafo"]
    assert segment("i think okafo is there", rare).kinds == {2: "rare-word"}
    assert protected("idk tmrw or friday, march lol", rare) == []
    assert protected("hey okafo", frozenset(DEFAULT_PROTECT)) == ["okafo"]
    assert segment("hey okafo", frozenset(DEFAULT_PROTECT)).kinds == {1: "name"}


def test_the_rules_are_a_function_of_the_words_around_a_slot():
    words = ["hey", "early"]
    assert name_slots(words, words, ["", " ", ""], [True, False]) == [1]
    assert name_slots(words, words, ["", " - ", ""], [True, False]) == [1]  # signs off
    words = ["the", "early", "bird"]
    assert name_slots(words, words, ["", " ", " ", ""], [True, False, False]) == []
    assert name_slots(words, ["the", "Early", "bird"], ["", " ", " ", ""], [True] * 3) == []
    assert name_slots(
        words, ["the", "Early", "bird"], ["", " ", " ", ""], [True, False, False]
    ) == [1]


def test_names_continue_a_stream_so_context_is_never_cut(default_pack):
    for token in ("hey", "dr.", "call", "and", "-", "maria", "early,", "thx", "station"):
        assert span_may_continue(token), token  # "station": a street's name (12 station road)
    assert not span_may_continue("the", previous="when")
    brr = edgedp.BRR(default_pack, epsilon=50.0, oov="placeholder", rng=3)
    text = "so hey early, lunch with grace and will? since early june. thx - sam\n" * 3
    whole = brr.privatize(text)
    pieces = [text[index : index + 7] for index in range(0, len(text), 7)]
    assert "".join(privatize_stream(brr, pieces, batch_chars=16)) == whole
    assert whole.count("[NAME]") == 3 * 4  # early, grace, will, sam; not "since early"
