"""Multilingual: each message (each run of one language) privatized by its language's mechanism;
text in a language without a pack protected; the English path unchanged."""

from __future__ import annotations

import re
import warnings

import pytest

import edgedp
from edgedp.errors import InputError
from edgedp.words.multilingual import LINE_CHARACTERS, OTHER_LANGUAGE, Multilingual, Run
from edgedp.words.streaming import privatize_stream

ENGLISH = [
    "the patient was admitted with chest pain and a fever.",
    "hey can you call me tomorrow? i will be at home after work",
    "ok",
]
DUTCH = "tot straks, ik bel je nog voor het eten"


def seeded(seed: int, **options) -> tuple[Multilingual, edgedp.BRR]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        routed = Multilingual(edgedp.BRR, epsilon=0.5, languages=["en"], rng=seed, **options)
        alone = edgedp.BRR(edgedp.WordPack.load(), epsilon=0.5, rng=seed, **options)
    return routed, alone


@pytest.mark.parametrize("decode", ["nearest", "context"])
def test_english_messages_are_released_exactly_as_by_the_english_mechanism(decode):
    routed, alone = seeded(11, decode=decode)
    assert routed.privatize_batch(ENGLISH) == alone.privatize_batch(ENGLISH)
    assert routed.units(ENGLISH) == alone.units(ENGLISH)


def test_text_in_a_language_without_a_pack_is_protected_never_privatized():
    routed = Multilingual(edgedp.BRR, epsilon=50.0, languages=["en"], oov="placeholder")
    assert routed.runs(DUTCH) == [Run(0, len(DUTCH), None)]
    released = routed.privatize(DUTCH)
    assert set(re.findall(r"\[[A-Z-]+\]", released)) == {"[OTHER-LANGUAGE]"}
    assert routed.units([DUTCH]) == 0  # nothing went through a mechanism: nothing is charged
    sampled = Multilingual(edgedp.BRR, epsilon=50.0, languages=["en"])
    for _ in range(5):  # at epsilon 50 BRR would copy almost every word; here none comes out
        words = set(re.findall(r"\w+", sampled.privatize(DUTCH)))
        assert not words & {"tot", "straks", "ik", "bel", "je", "nog", "voor", "het", "eten"}


def test_a_mixed_message_is_cut_at_its_sentence_ends_and_keeps_its_layout():
    routed = Multilingual(edgedp.BRR, epsilon=0.5, languages=["en"], oov="placeholder")
    text = "see you at the station at five! hola maría, ¿me llamas mañana por la tarde?"
    runs = routed.runs(text)
    assert [run.language for run in runs] == ["en", None]
    assert runs[0].end == text.index("hola")
    released = routed.privatize(text)
    tail = released[released.index("!") + 1 :]
    assert re.sub(r"\[[A-Z-]+\]", "W", tail) == " W W, ¿W W W W W W?"
    assert f"[{OTHER_LANGUAGE.upper()}]" in tail


def test_undetermined_text_goes_to_the_default_language_or_is_protected():
    served = Multilingual(edgedp.BRR, epsilon=0.5, languages=["en"])
    assert [run.language for run in served.runs("ok 👍 14:30")] == ["en"]
    unserved = Multilingual(edgedp.BRR, epsilon=0.5, languages=["en"], default_language="es")
    assert [run.language for run in unserved.runs("ok 👍 14:30")] == [None]


def test_a_fixed_language_is_not_identified():
    routed = Multilingual(edgedp.BRR, epsilon=0.5, languages=["en"], language="en")
    assert routed.runs(DUTCH) == [Run(0, len(DUTCH), "en")]


def test_only_the_languages_released_in_are_loaded():
    """Issue 50: a pack is 5-10 MB resident; a fixed language or a default language that is the
    user's loads no other language's pack until a line of it comes."""
    packs = {"en": "words-small", "es": "words-small"}  # one pack, two codes: what gets built
    fixed = Multilingual(edgedp.BRR, epsilon=0.5, languages=packs, language="es")
    fixed.privatize(ENGLISH[0])
    assert fixed.used() == ("es",)
    assert fixed.guarantee().epsilon == fixed.mechanism("es").guarantee().epsilon
    users = Multilingual(edgedp.BRR, epsilon=0.5, languages=packs, default_language="es")
    users.privatize("ok")  # undetermined: the default language
    assert users.used() == ("es",)
    users.privatize(ENGLISH[0])
    assert users.used() == ("es", "en")


def test_a_language_that_releases_nothing_reads_no_language_model(monkeypatch):
    """The default language's mechanism is built at once (it speaks for all), its language model
    only when it decodes: a Spanish message loads one model (issue 50: 4 MB for English's)."""
    from edgedp.words import decoding

    loaded = []
    load = decoding.LanguageModelPack.load.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(
        decoding.LanguageModelPack,
        "load",
        classmethod(lambda cls, *args, **kw: loaded.append(args) or load(cls, *args, **kw)),
    )
    packs = {"en": "words-small", "es": "words-small"}
    routed = Multilingual(edgedp.BRR, epsilon=0.5, languages=packs, decode="context")
    assert loaded == []
    routed.privatize("hola maría, ¿me llamas mañana por la tarde? necesito el informe")
    assert routed.used() == ("en", "es") and len(loaded) == 1
    routed.privatize(ENGLISH[0])
    assert len(loaded) == 2


def test_figures_about_a_batch_are_measured_in_its_first_language():
    """``edgedp privatize``'s keep-rate warning is measured on the mechanism that releases first,
    so that a Spanish chat loads no English model for it."""
    packs = {"en": "words-small", "es": "words-small"}
    routed = Multilingual(edgedp.BRR, epsilon=0.5, languages=packs)
    spanish = "hola maría, ¿me llamas mañana por la tarde? necesito el informe"
    assert routed.first_mechanism([DUTCH, spanish]) is routed.mechanism("es")
    assert routed.first_mechanism([DUTCH]) is routed.primary is routed.mechanism("en")


def test_a_stream_releases_each_line_as_the_line_alone():
    lines = [*(f"{text}\n" for text in ENGLISH), f"{DUTCH}\n", "last line without an end"]
    pieces = [piece for line in lines for piece in re.split(r"(?<= )", line)]
    streamed, _ = seeded(5)
    one_by_one, _ = seeded(5)
    assert "".join(privatize_stream(streamed, pieces, batch_chars=16)) == "".join(
        one_by_one.privatize(line) for line in lines
    )


def test_an_overlong_line_is_one_run_in_the_language_of_its_beginning():
    routed = Multilingual(edgedp.BRR, epsilon=50.0, languages=["en"], oov="placeholder")
    line = (DUTCH + ". ") * (LINE_CHARACTERS // len(DUTCH) + 2) + "the end of it\n"
    assert [run.language for run in routed.runs(line)] == [None]
    streamed = "".join(
        privatize_stream(routed, [line[i : i + 500] for i in range(0, len(line), 500)])
    )
    assert streamed == routed.privatize(line)  # every slot protected: deterministic
    assert "end" not in streamed


def test_charges_are_those_of_the_runs_that_went_through_a_mechanism():
    routed, alone = seeded(3)
    text = f"the patient was admitted. {DUTCH}."
    english = text[: text.index("tot")]
    assert routed.units([text]) == alone.units([english]) > 0
    event = routed.privacy_cost([text])
    assert event.count == routed.units([text])
    assert "language found" in event.guarantee.protects


def test_bad_arguments_are_clear_errors():
    with pytest.raises(InputError, match="not one of the languages served"):
        Multilingual(edgedp.BRR, epsilon=0.5, languages=["en"], language="es")
    with pytest.raises(InputError, match="not a string"):
        Multilingual(edgedp.BRR, epsilon=0.5, languages="en")
    with pytest.raises(InputError, match="language_model"):
        Multilingual(
            edgedp.BRR,
            epsilon=0.5,
            languages={"en": "words-small", "fr": "words-small"},
            language_model="lm-general",
        )
    with pytest.raises(InputError, match="no word pack for language"):
        Multilingual(edgedp.BRR, epsilon=0.5, languages=["xx"])
    with pytest.raises(InputError, match="word mechanism class"):
        Multilingual("brr", epsilon=0.5)
    with pytest.raises(edgedp.PrivacyParameterError):
        Multilingual(edgedp.BRR, epsilon=-1.0, languages=["en"])


def test_runs_break_only_where_the_tokenizer_breaks():
    # str.splitlines also breaks at U+001C-U+001E, inside a token for the tokenizer: a run cut
    # there would release one token as two words glued together
    routed = Multilingual(edgedp.BRR, epsilon=0.5, languages=["en"], language="en")
    assert [(run.start, run.end) for run in routed.runs("ab\x1ccd\nef")] == [(0, 6), (6, 8)]
    assert len(routed.privatize("ab\x1ccd").split()) == 1
