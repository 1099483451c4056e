"""The identifier guard: recognised spans never go through a word mechanism, in text and streams."""

from __future__ import annotations

import re

import numpy as np
import pytest

import edgedp
from edgedp.errors import PrivacyParameterError
from edgedp.text.identifiers import (
    DEFAULT_PROTECT,
    PROTECT_KINDS,
    ambiguous_names,
    check_protect,
    identifier_spans,
    public_names,
)
from edgedp.text.segmentation import segment
from edgedp.words import streaming
from edgedp.words.streaming import privatize_stream

GUARD = frozenset({"identifiers"})
EPSILONS = (0.5, 5.0, 20.0)  # per bit; 20 makes BRR a copy machine


def spans(text: str) -> list[tuple[str, str]]:
    return [(text[start:end], kind) for start, end, kind in identifier_spans(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mail jane.doe@example.com.", [("jane.doe@example.com", "email")]),
        ("see https://www.bbc.co.uk/news, ok", [("https://www.bbc.co.uk/news", "url")]),
        ("at www.example.org/a?b=c.", [("www.example.org/a?b=c", "url")]),
        ("on bbc.co.uk today", [("bbc.co.uk", "host")]),
        ("ask @jane_doe!", [("@jane_doe", "handle")]),
        ("my discord is bob#1234 lol", [("bob#1234", "handle")]),
        ("call +44 20 7946 0958 now", [("+44 20 7946 0958", "phone")]),
        ("call (555) 123-4567", [("(555) 123-4567", "phone")]),
        ("pay GB29 NWBK 6016 1331 9268 19 today", [("GB29 NWBK 6016 1331 9268 19", "iban")]),
        ("card 4111 1111 1111 1111.", [("4111 1111 1111 1111", "digits")]),
        ("on 12/03/2024 or 2024-03-12", [("12/03/2024", "digits"), ("2024-03-12", "digits")]),
        ("rose 3.5% to 1,000,000 in 1990s at 4pm", None),
        ("mp3 g8 e.g. U.S. well-known", []),
    ],
)
def test_spans_are_recognised_whole(text, expected):
    found = spans(text)
    if expected is None:
        assert [span for span, _ in found] == ["3.5", "1,000,000", "1990s", "4pm"]
    else:
        assert found == expected


#: issue 27: each leaked through BRR at epsilon 20 per bit with --oov mask before.
ISSUE_27 = [
    ("write to sean.o'neill@hse.ie", "sean.o'neill@hse.ie"),
    ('mail "john doe"@example.com now', '"john doe"@example.com'),
    ("mail a!b#c@example.org now", "a!b#c@example.org"),
    ("see example.com:8080/patient?name=jane", "example.com:8080/patient?name=jane"),
    ("see 10.0.0.7:8080/admin?user=jane now", "10.0.0.7:8080/admin?user=jane"),
    ("follow @jane@mastodon.social", "@jane@mastodon.social"),
    ("visit jane.photography or", "jane.photography"),
    ("call 1-800-FLOWERS today", "1-800-FLOWERS"),
    ("call 1-800-flowers today", "1-800-flowers"),
    ("pay gb29 nwbk 6016 1331 9268 19 then", "gb29 nwbk 6016 1331 9268 19"),
    ("id 123e4567-e89b-12d3-a456-426614174000 and", "123e4567-e89b-12d3-a456-426614174000"),
    ("id deadbeef-cafe-babe-face-feedfacecafe and", "deadbeef-cafe-babe-face-feedfacecafe"),
    ("born March 12th, 2024 in", "March 12th, 2024"),
    ("born 12 March 2024 in", "12 March 2024"),
    ("born on the 12th of march in", "12th of march"),
    ("at SW1A 1AA now", "SW1A 1AA"),
    ("at 20500-0003 now", "20500-0003"),
    ("at K1A 0B1 now", "K1A 0B1"),
    ("host dead:beef::cafe:1 up", "dead:beef::cafe:1"),
    ("mac aa:bb:cc:dd:ee:ff up", "aa:bb:cc:dd:ee:ff"),
    ("nino AB 12 34 56 C ok", "AB 12 34 56 C"),
    ("plate MH 12 AB 1234 ok", "MH 12 AB 1234"),
]


@pytest.mark.parametrize(("text", "identifier"), ISSUE_27)
def test_the_formats_issue_27_found_leaking_are_one_span(text, identifier):
    assert [span for span, _ in spans(text)] == [identifier]


@pytest.mark.parametrize(("text", "identifier"), ISSUE_27)
def test_the_formats_issue_27_found_leaking_release_nothing(default_pack, text, identifier):
    # identifiers alone: with the default's name list "mac" and "ok" are protected too
    brr = edgedp.BRR(default_pack, epsilon=20.0, oov="mask", protect=("identifiers",))
    before, after = text.split(identifier)
    assert brr.privatize(text) == f"{before}[OOV]{after}"


@pytest.mark.parametrize(
    "text",
    [
        "went home.Then we left",  # no top-level domain "then": two words
        "e.g. U.S. i.e. mp3 g8",
        "800 people came in May and march on",  # a toll-free prefix needs a hyphen, a month a day
        "pay gb29 nwbk 6016 1331 9268 18 then",  # a lower-case IBAN with a wrong checksum
    ],
)
def test_what_is_not_an_identifier_stays_words(text):
    found = [span for span, _ in spans(text)]
    assert not [part for span in found for part in re.split(r"[\W_]+", span) if part.isalpha()]


def test_the_iban_checksum_decides_where_a_lower_case_iban_ends():
    from edgedp.text.identifiers import iban_checksum_ok

    assert iban_checksum_ok("GB29 NWBK 6016 1331 9268 19")
    assert iban_checksum_ok("de89370400440532013000") and not iban_checksum_ok(
        "DE89370400440532013001"
    )
    assert [s for s, _ in spans("to gb29 nwbk 6016 1331 9268 19 then")] == [
        "gb29 nwbk 6016 1331 9268 19"
    ]
    # wrong checksum: not an IBAN, only its number-like groups are protected
    assert [s for s, _ in spans("to gb29 nwbk 6016 1331 9268 18 then")] == [
        "gb29",
        "6016 1331 9268 18",
    ]


def test_names_glued_to_an_apostrophe_are_protected(default_pack):
    names = frozenset({"names"})
    segmented = segment("Ask O'Neill and O\u2019Connor, it isn't.", names)
    assert {segmented.words[i] for i in segmented.protected} == {"o'neill", "o\u2019connor"}
    brr = edgedp.BRR(default_pack, epsilon=20.0, oov="mask", protect=("identifiers", "names"))
    assert brr.privatize("met O'Brien today") == "met [OOV] today"  # not "met o'[OOV] today"


@pytest.mark.parametrize(
    ("language", "text", "protected"),
    [
        # "shed", "hell", "shell" are surnames: a clitic after the apostrophe glues no name
        ("en", "she'd say he'll come, she'll see", set()),
        # the first part of a negation is no name ("ain") nor rare word ("mightn")
        ("en", "ok it ain't so, i mightn't, it wasn't", set()),
        ("en", "mark's bike and rosa's car", {"mark", "rosa"}),  # a possessive names someone
        ("fr", "j'aime bien, c'est l'amour", set()),  # "jaime", "lamour": elisions glue no name
        ("it", "l'amore e l'amica, c'era", set()),
        ("fr", "l'ami d'anna", {"anna"}),  # the name after an elision is a slot of its own
    ],
)
def test_clitics_and_elisions_glue_no_name(language, text, protected):
    segmented = segment(text, frozenset(DEFAULT_PROTECT), language=language)
    assert {segmented.words[i] for i in segmented.protected} == protected


def test_a_negation_is_no_rare_word_whichever_guards_are_on():
    assert not segment("i mightn't, it wasn't", frozenset({"rare-words"})).protected


def test_a_span_is_one_protected_slot_and_layout_stays():
    text = "Mail jane.doe@example.com, or call +44 20 7946 0958."
    segmented = segment(text, GUARD)
    assert segmented.words[1] == "jane.doe@example.com"
    assert segmented.words[4] == "+44 20 7946 0958"
    assert segmented.protected == {1, 4}
    unguarded = segment(text)
    assert unguarded.protected == frozenset()
    assert "jane" in unguarded.words  # without the guard the parts are ordinary word slots


def test_names_come_from_the_public_list():
    names = public_names()
    assert all(name in names for name in ("jane", "john", "smith", "garcia", "okafor", "kwame"))
    assert not any(word in names for word in ("in", "the", "see"))  # left out (data header)
    assert all(word in ambiguous_names() for word in ("will", "may"))  # the Census names many so
    assert all(word in names for word in ambiguous_names().iter_words())
    segmented = segment("Jane met the smiths and Smith.", frozenset({"names"}))
    protected = {segmented.words[i] for i in segmented.protected}
    assert protected == {"jane", "smith"}


@pytest.mark.parametrize("bad", ["emails", ["identifiers", "phones"], 3, [None]])
def test_unknown_protect_kinds_are_rejected(default_pack, bad):
    with pytest.raises(PrivacyParameterError):
        check_protect(bad)
    with pytest.raises(PrivacyParameterError):
        edgedp.BRR(default_pack, epsilon=1.0, protect=bad)


def test_protect_is_a_parameter_that_rebuilds(default_pack):
    brr = edgedp.BRR(default_pack, epsilon=1.0, protect=("names", "identifiers"))
    assert brr.parameters()["protect"] == ["identifiers", "names"]
    assert type(brr)(default_pack, **brr.parameters()).protect == brr.protect
    # every kind by default (issue 34: names came out under an identifiers-only default)
    assert edgedp.BRR(default_pack, epsilon=1.0).protect == frozenset(PROTECT_KINDS)
    assert edgedp.BRR(default_pack, epsilon=1.0, protect=None).protect == frozenset()


def generated_identifiers(vocabulary: list[str], count: int, seed: int) -> list[str]:
    """``count`` identifiers of many formats built from vocabulary words (public, fixed)."""
    rng = np.random.default_rng(seed)
    out = []
    for index in range(count):
        first, last, host, path = rng.choice(vocabulary, 4)
        digits = "".join(rng.choice(list("0123456789"), 10))
        kind = index % 8
        out.append(
            [
                f"{first}.{last}@{host}.com",
                f"{first}_{last}@{host}.co.uk",
                f"https://{host}.org/{path}/{first}",
                f"www.{host}.net/{path}",
                f"{host}.{path}.com",
                f"@{first}{last}",
                f"@{first}.{last}",
                f"+1 {digits[:3]} {digits[3:6]} {digits[6:]}",
            ][kind]
        )
    return out


@pytest.fixture(scope="module")
def identifiers(default_pack) -> tuple[list[str], list[set[str]]]:
    # alphabetic words of 3+ letters from the most frequent 5,000: the words BRR copies best
    words = [w for w in default_pack.vocabulary.words[:5000] if w.isalpha() and len(w) > 2]
    made = generated_identifiers(words, 10_000, seed=16)
    parts = [set(segment(text).words) for text in made]
    return made, parts


def leaks(outputs: list[str], parts: list[set[str]]) -> int:
    """Outputs whose identifier slot (texts are 'write to ID please') is not exactly the mask."""
    count = 0
    for output, words in zip(outputs, parts, strict=True):
        tokens = output.split(" ")
        count += len(tokens) != 4 or tokens[2] != "[OOV]" or bool(set(tokens[2:3]) & words)
    return count


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_no_generated_identifier_leaks_at_any_epsilon(default_pack, identifiers, epsilon):
    made, parts = identifiers
    brr = edgedp.BRR(default_pack, epsilon=epsilon, oov="mask")
    outputs = brr.privatize_batch([f"write to {text} please" for text in made])
    assert leaks(outputs, parts) == 0


def test_the_leak_test_fails_without_the_guard(default_pack, identifiers):
    # The broken variant: identifiers go through BRR; at 20 per bit nearly every one leaks.
    made, parts = identifiers
    brr = edgedp.BRR(default_pack, epsilon=20.0, oov="mask", protect=())
    outputs = brr.privatize_batch([f"write to {text} please" for text in made[:2000]])
    copied = sum(
        bool(set(re.findall(r"[a-z]+", output)) & words)
        for output, words in zip(outputs, parts[:2000], strict=True)
    )
    # phone digits and concatenated handles (OOV) are not letters: 6 of the 8 formats leak words
    assert leaks(outputs, parts[:2000]) == 2000 and copied > 1400


@pytest.mark.parametrize("mechanism", ["vickrey-hamming", "madlib", "generalized-vickrey"])
def test_every_word_mechanism_takes_the_guard(default_pack, euclid_pack, mechanism):
    if mechanism == "vickrey-hamming":
        built = edgedp.Vickrey(default_pack, epsilon=20.0, t=0.0, geometry="hamming", oov="mask")
    elif mechanism == "madlib":
        built = edgedp.Madlib(euclid_pack, epsilon=1e6, oov="mask")
    else:
        built = edgedp.GeneralizedVickrey(euclid_pack, epsilon=1e6, weights=[0.0], oov="mask")
    a, b = built.pack.vocabulary.words[3:5]
    text = f"{a} {a}.{b}@{b}.com {b}"
    assert built.privatize(text) == f"{a} [OOV] {b}"


def chunks(text: str, size: int):
    return (text[i : i + size] for i in range(0, len(text), size))


STREAM_TEXT = (
    "Write to jane.doe@example.com or john.smith@bbc.co.uk, call +44 20 7946 0958 or pay into "
    "GB29 NWBK 6016 1331 9268 19 (ref: https://www.example.org/news/world.html). @jane_doe.\n"
) * 8


@pytest.mark.parametrize("size", [1, 2, 5, 13, 64])
def test_streaming_never_splits_a_span(default_pack, size):
    brr = edgedp.BRR(default_pack, epsilon=50.0, oov="mask")
    streamed = "".join(privatize_stream(brr, chunks(STREAM_TEXT, size), batch_chars=40))
    assert streamed == brr.privatize(STREAM_TEXT)
    released = set(re.findall(r"[a-z]+", streamed))
    assert not released & {"jane", "doe", "example", "john", "smith", "bbc", "nwbk", "news"}
    assert streamed.count("[OOV]") == 6 * 8  # two e-mails, phone, IBAN, URL, handle


def test_streaming_with_the_old_cut_rule_would_leak(default_pack, monkeypatch):
    # The broken variant: cutting after any punctuation, as without the guard, splits
    # jane.doe@example.com into "jane." and "doe@example.com": "jane" goes through BRR.
    def old_rule(text: str, position: int, guarded: bool) -> bool:
        return text[position] in " .@\n"

    monkeypatch.setattr(streaming, "_is_cut_point", old_rule)
    # identifiers alone (the name list would hide "jane" on its own, whatever the cut)
    brr = edgedp.BRR(default_pack, epsilon=50.0, oov="mask", protect=("identifiers",))
    streamed = "".join(privatize_stream(brr, chunks(STREAM_TEXT, 5), batch_chars=40))
    assert "jane" in re.findall(r"[a-z]+", streamed)


PROPER = frozenset({"proper-nouns"})


def test_proper_nouns_need_no_list_of_names():
    text = "Okonkwo said that Adebayo met NASA, THE Will and I. Smith left.\nDear Brown, Mr. Grant came."
    segmented = segment(text, PROPER)
    protected = sorted(segmented.words[i] for i in segmented.protected)
    # okonkwo starts a sentence but is no common word; adebayo, will, brown, mr and grant are
    # capitalized inside a sentence ("Mr." ends none); nasa is in capitals and no common word;
    # smith starts a sentence and is a common word (a smith), so does "dear" (a line);
    # THE (capitals, common) and I are left alone
    assert protected == ["adebayo", "brown", "grant", "mr", "nasa", "okonkwo", "will"]


def test_sentence_starts_carry_across_the_pieces_of_a_stream(default_pack):
    text = (
        "The report. Okonkwo met The Times and Ann. Then Mr. Brown left! \u201cSo\u201d he said.\n"
    ) * 6
    brr = edgedp.BRR(
        default_pack, epsilon=50.0, oov="mask", protect=("identifiers", "proper-nouns")
    )
    whole = brr.privatize(text)
    assert whole.count("[OOV]") == 6 * 6  # okonkwo, the (times), times, ann, mr, brown
    for size in (1, 3, 7, 16):
        assert "".join(privatize_stream(brr, chunks(text, size), batch_chars=20)) == whole
