"""The language identifier: accuracy floors on a committed sample of chat messages written for these
tests (chat_*.txt|tsv beside this file; no other data), undetermined and unknown-script text,
language runs cut where segmentation starts sentences, streaming locality, determinism, the model
file's integrity, and errors on bad input. bench/reports/2026-11-29-language-identification.md
measures the identifier on public held-out text.
"""

from __future__ import annotations

import doctest
import itertools
import os
import string
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from helpers import REPO_ROOT

import edgedp.languages.identification as identification
from edgedp.errors import AssetError, InputError
from edgedp.languages.identification import (
    EVIDENCE_CHARS,
    MODEL_FILE,
    MODEL_SHA256,
    OTHER,
    SENTENCE_TITLES,
    UNCODED,
    UNDETERMINED,
    IdentifierModel,
    identify,
    known_languages,
    language_runs,
    sentence_starts,
    words,
)
from edgedp.packs.manifest import sha256_file
from edgedp.text.identifiers import PROTECT_KINDS
from edgedp.text.segmentation import segment

HERE = Path(__file__).resolve().parent
#: The languages with word packs besides English.
PACK_LANGUAGES = ("es", "de", "fr", "pt", "it", "ru", "pl")


def lines(name: str) -> list[str]:
    text = (HERE / name).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def labelled(name: str) -> list[tuple[str, str]]:
    return [
        (language, message) for language, message in (line.split("\t", 1) for line in lines(name))
    ]


ENGLISH = lines("chat_en.txt")
PACKS = labelled("chat_packs.tsv")
OTHERS = labelled("chat_others.tsv")
UNDETERMINED_MESSAGES = lines("chat_undetermined.txt")


def test_the_sample_has_every_pack_language_and_many_others():
    assert len(ENGLISH) >= 250
    counts = Counter(language for language, _ in PACKS)
    assert set(counts) == set(PACK_LANGUAGES) and min(counts.values()) >= 50
    assert len({language for language, _ in OTHERS}) >= 30


def test_english_chat_stays_english():
    """English (or undetermined, which a router sends to its default language) at >= 99.5 %."""
    wrong = [text for text in ENGLISH if identify(text).language not in ("en", UNDETERMINED)]
    assert len(wrong) <= len(ENGLISH) * 0.005, wrong


def test_pack_languages_are_found():
    found = Counter()
    wrong = []
    for language, text in PACKS:
        if identify(text).language == language:
            found[language] += 1
        else:
            wrong.append((language, text))
    totals = Counter(language for language, _ in PACKS)
    assert sum(found.values()) >= 0.97 * len(PACKS), wrong
    assert all(found[language] >= 0.94 * totals[language] for language in totals), wrong


def test_other_languages_are_not_sent_to_a_pack():
    """Text in a language the model knows but no pack serves is routed "other" (protected)."""
    known = set(known_languages())
    sample = [(language, text) for language, text in OTHERS if language in known]
    packs = ["en", *PACK_LANGUAGES]
    routes = [identify(text, languages=packs).route for _, text in sample]
    assert sum(route == OTHER for route in routes) >= 0.9 * len(sample)
    # and the language found is the right one for most
    exact = sum(identify(text).language == language for language, text in sample)
    assert exact >= 0.8 * len(sample)


def test_messages_without_evidence_are_undetermined():
    results = [identify(text).language for text in UNDETERMINED_MESSAGES]
    assert sum(result in (UNDETERMINED, "en") for result in results) >= 0.95 * len(results)
    for text in ("", "ok", "14:30", "😂😂😂", "ok 👍", "!!!", "https://example.com/page", "+1"):
        found = identify(text)
        assert found.language == UNDETERMINED, text
        assert found.route == UNDETERMINED and found.confidence == 0.0 and not found.supported


def test_unknown_script_is_uncoded_and_routed_other():
    found = identify("ဟယ်လို မင်္ဂလာပါ", languages=["en", "es"])  # Burmese: no such script in the model
    assert (found.language, found.route, found.supported) == (UNCODED, OTHER, False)


def test_route_and_supported():
    assert identify("wir sehen uns morgen im büro", languages=["en", "de"]).route == "de"
    assert identify("wir sehen uns morgen im büro", languages=["en", "es"]).route == OTHER
    found = identify("wir sehen uns morgen im büro")
    assert (found.language, found.route, found.supported) == ("de", "de", True)
    assert found.candidates[0][0] == "de" and found.confidence > 0.9 and found.words == 6


def test_prefer_moves_the_largest_prior():
    assert identify("pedro").language == UNDETERMINED
    assert identify("pedro", prefer="es").language == "es"
    assert identify("nos vemos mañana en la playa", prefer="de").language == "es"


def test_words_are_read_as_the_exporter_reads_them():
    assert words("Hola María! l'été 14:30 😂 www.x.org a@b.c Straße") == [
        "hola",
        "maría",
        "l",
        "été",
        "strasse",
    ]


def test_only_the_first_evidence_chars_are_read():
    head = "nos vemos mañana en la playa. " * (EVIDENCE_CHARS // 30 + 1)
    assert identify(head[:EVIDENCE_CHARS] + " see you at the beach " * 100).language == "es"


def test_identification_is_the_same_in_another_process():
    """A fixed function of the text: the same answers under another hash seed."""
    sample = [text for _, text in PACKS[::7]] + ENGLISH[::9] + [text for _, text in OTHERS[::9]]
    here = [identify(text).language for text in sample]
    code = (
        "import sys, json\n"
        "from edgedp.languages.identification import identify\n"
        "print(json.dumps([identify(t).language for t in json.load(sys.stdin)]))\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    result = subprocess.run(
        [sys.executable, "-c", code],
        input=__import__("json").dumps(sample),
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=REPO_ROOT,
    )
    assert __import__("json").loads(result.stdout) == here
    assert [identify(text).language for text in sample] == here


@pytest.mark.parametrize("bad", [None, 3, ["hola"], b"hola", bytearray(b"x")])
def test_non_text_is_an_input_error(bad):
    with pytest.raises(InputError, match="text must be str"):
        identify(bad)
    with pytest.raises(InputError, match="text must be str"):
        language_runs(bad)


def test_bad_languages_prefer_and_default_are_input_errors():
    with pytest.raises(InputError, match="not a single string"):
        identify("hola", languages="es")
    with pytest.raises(InputError, match="not languages the identifier knows"):
        identify("hola", languages=["es", "xx"])
    with pytest.raises(InputError, match="prefer"):
        identify("hola", prefer="xx")
    with pytest.raises(InputError, match="default"):
        language_runs("hola", default=3)


# --- runs ---------------------------------------------------------------------------------------


def runs_text(text: str, **options: object) -> list[tuple[str, str]]:
    return [(text[start:end], label) for start, end, label in language_runs(text, **options)]


def test_a_mixed_message_is_cut_at_its_sentence_end():
    assert runs_text("hola maría! see you at 5.") == [
        ("hola maría! ", "es"),
        ("see you at 5.", "en"),
    ]
    assert runs_text("Bonjour tout le monde! How are you doing today?\nwir sehen uns morgen") == [
        ("Bonjour tout le monde! ", "fr"),
        ("How are you doing today?\n", "en"),
        ("wir sehen uns morgen", "de"),
    ]


def test_short_sentences_borrow_the_message_language():
    assert runs_text("hola. ok.") == [("hola. ok.", "es")]
    assert runs_text("ok. hola amigo, cómo estás?") == [("ok. hola amigo, cómo estás?", "es")]
    assert runs_text("merci! 👍") == [("merci! 👍", "fr")]


def test_undetermined_runs_take_the_default():
    assert runs_text("ok 👍") == [("ok 👍", UNDETERMINED)]
    assert runs_text("ok 👍", languages=["en", "es"], default="en") == [("ok 👍", "en")]
    assert language_runs("") == []


def test_runs_are_labelled_with_routes():
    text = "hola maría! tot straks, ik bel je nog."
    assert runs_text(text, languages=["en", "es"]) == [
        ("hola maría! ", "es"),
        ("tot straks, ik bel je nog.", OTHER),
    ]
    assert runs_text(text)[1][1] == "nl"


def mixed_messages() -> list[str]:
    """Messages of two or three sample messages each, in different languages, with the sentence
    ends and line breaks chat has."""
    pool = [text for _, text in PACKS[::5]] + ENGLISH[::11] + [text for _, text in OTHERS[::13]]
    joins = (". ", "! ", "? ", "\n", "... ", ".) ", ' "ok." ', " - ", ", ")
    return [
        first + join + second
        for (first, second), join in zip(
            itertools.combinations(pool[:24], 2), itertools.cycle(joins), strict=False
        )
    ]


def test_runs_cover_the_text_with_distinct_neighbours():
    for text in mixed_messages():
        runs = language_runs(text)
        assert runs[0][0] == 0 and runs[-1][1] == len(text)
        assert all(a[1] == b[0] and a[2] != b[2] for a, b in itertools.pairwise(runs))


@pytest.mark.parametrize("protect", [frozenset(), frozenset(PROTECT_KINDS)])
def test_every_cut_is_where_segmentation_starts_a_sentence(protect):
    texts = [*mixed_messages(), "Dr. Okafor and Mr. Brown left. Bye!", "wait... what?! ok\r\nfine"]
    for text in texts:
        for start in sentence_starts(text)[1:]:
            assert segment(text[:start], protect).ends_at_sentence_start, (text, start)


def test_sentence_titles_agree_with_segmentation():
    """A full stop after a word ends a sentence exactly when segmentation says so, for every word
    of one to three ASCII letters and every title."""
    letters = string.ascii_lowercase
    candidates = {
        "".join(chars) for size in (1, 2, 3) for chars in itertools.product(letters, repeat=size)
    }
    candidates |= SENTENCE_TITLES | {title.capitalize() for title in SENTENCE_TITLES}
    candidates |= {"capt", "prof", "dott", "sig", "sra", "srta", "etc", "usw", "bzw", "Mrs"}
    for word in sorted(candidates):
        text = f"{word}. next"
        mine = sentence_starts(text) == [0, len(word) + 2]
        assert mine == segment(f"{word}. ").ends_at_sentence_start, word


def labels(text: str) -> list[str]:
    per_character = [""] * len(text)
    for start, end, label in language_runs(text):
        per_character[start:end] = [label] * (end - start)
    return per_character


def test_a_stream_needs_evidence_chars_beyond_what_it_releases():
    """The label at position p depends only on text[:p + EVIDENCE_CHARS + 1]."""
    pool = [text for _, text in PACKS] + ENGLISH
    pieces = [pool[(index * 37) % len(pool)] for index in range(160)]
    text = "".join(piece + ("\n" if index % 5 == 4 else ". ") for index, piece in enumerate(pieces))
    assert len(text) > 2 * EVIDENCE_CHARS + 500
    whole = labels(text)
    assert len(set(whole)) >= 4
    for position in (1, 300, EVIDENCE_CHARS, EVIDENCE_CHARS + 777, len(text) - EVIDENCE_CHARS - 1):
        cut = labels(text[: position + EVIDENCE_CHARS + 1])
        assert cut[:position] == whole[:position], position


# --- the model file ------------------------------------------------------------------------------


def test_the_model_file_is_the_recorded_one_and_small():
    assert sha256_file(MODEL_FILE) == MODEL_SHA256
    assert MODEL_FILE.stat().st_size < 5 * 2**20
    assert MODEL_FILE.read_bytes().startswith(identification.MODEL_MAGIC)  # no pickle, no npz


def test_the_model_states_its_sources_and_licences():
    metadata = identification.model().metadata
    assert metadata["license"] == "CC-BY-SA-4.0 AND MPL-2.0"
    assert any("wordfreq" in line for line in metadata["attribution"])
    assert any("LibreOffice" in line for line in metadata["attribution"])
    assert metadata["command"].startswith("edgedp-export langid")
    assert set(metadata["languages"]) == set(known_languages())
    assert {"en", *PACK_LANGUAGES} <= set(known_languages())


def test_the_model_arrays_are_consistent():
    identification.model().check(contents=True)


def test_saving_the_model_gives_the_shipped_bytes(tmp_path):
    identification.model().save(tmp_path / "again.bin")
    assert (tmp_path / "again.bin").read_bytes() == MODEL_FILE.read_bytes()


def test_an_altered_or_broken_model_is_refused(tmp_path):
    data = bytearray(MODEL_FILE.read_bytes())
    data[-1] ^= 1
    (tmp_path / "altered.bin").write_bytes(bytes(data))
    with pytest.raises(AssetError, match="not the file this edgedp shipped"):
        IdentifierModel.load(tmp_path / "altered.bin")
    (tmp_path / "short.bin").write_bytes(bytes(data[:1000]))
    with pytest.raises(AssetError, match="malformed"):
        IdentifierModel.load(tmp_path / "short.bin", sha256=None)
    (tmp_path / "other.bin").write_bytes(b"PK\x03\x04" + bytes(100))
    with pytest.raises(AssetError, match="malformed"):
        IdentifierModel.load(tmp_path / "other.bin", sha256=None)
    with pytest.raises(AssetError, match="cannot read"):
        IdentifierModel.load(tmp_path / "missing.bin")


def test_stored_values_round_trip_within_half_a_step():
    step, top = identification.LOG_STEP, identification.LOG_MAX
    values = np.linspace(top - 254 * step, top, 1001)
    stored = identification.quantize(values)
    assert stored.min() == 1  # 0 means "absent"
    back = top - (stored.astype(float) - 1) * step
    assert np.all(np.abs(back - values) <= step / 2 + 1e-12)
    assert identification.quantize(np.array([top - 300 * step]))[0] == 255  # the floor


def test_the_examples_run():
    tests = doctest.DocTestFinder().find(identification, "identification")
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).attempted >= 8
    assert runner.summarize(verbose=False).failed == 0
