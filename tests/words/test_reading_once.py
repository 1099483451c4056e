"""A text charged to a ledger and then released is read once: counting its word slots (the charge)
and releasing them share one cut into slots (and, routed by language, one identification), which
nothing keeps after the release; the release is the one without sharing, bit for bit."""

from __future__ import annotations

import io
import json
import sys
import warnings

import pandas as pd
import pytest

import edgedp
from edgedp.cli import main
from edgedp.engines import corpus
from edgedp.runtime.native import reset_num_threads
from edgedp.words import mechanism as mechanism_module
from edgedp.words.multilingual import Multilingual

TEXTS = [
    "hey can you call me tomorrow? i will be at home after work",
    "the patient was admitted with chest pain and a fever.",
    "see you at noon",
]


@pytest.fixture
def cuts(monkeypatch) -> list[str]:
    """Every text the word mechanisms cut into slots, in order."""
    seen: list[str] = []
    original = mechanism_module.segment

    def counted(text: str, *args, **kwargs):
        seen.append(text)
        return original(text, *args, **kwargs)

    monkeypatch.setattr(mechanism_module, "segment", counted)
    return seen


def _seeded(seed: int, routed: bool = False, languages: tuple[str, ...] = ("en",)):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        if routed:
            return Multilingual(edgedp.BRR, epsilon=0.5, languages=list(languages), rng=seed)
        return edgedp.BRR(edgedp.load_pack(), epsilon=0.5, rng=seed)


def _charge_and_release(mechanism) -> tuple[list[int], list[str]]:
    counts = [mechanism.privacy_cost([text]).count for text in TEXTS]
    return counts, mechanism.privatize_batch(TEXTS)


@pytest.mark.parametrize("routed", [False, True])
def test_a_charged_release_cuts_each_text_once_and_releases_the_same(cuts, routed):
    apart = _charge_and_release(_seeded(5, routed))
    assert len(cuts) == 2 * len(TEXTS)  # without the context: once to count, once to release
    cuts.clear()
    mechanism = _seeded(5, routed)
    with mechanism.reading_once():
        together = _charge_and_release(mechanism)
    assert sorted(cuts) == sorted(TEXTS)
    assert together == apart  # the same counts and, from the same seed, the same release


def test_nothing_read_is_kept_after_the_context(cuts):
    brr = _seeded(1)
    with brr.reading_once():
        with brr.reading_once():  # inside one already: the outer one keeps the cuts
            brr.privacy_cost(TEXTS)
        brr.privatize_batch(TEXTS)
    assert len(cuts) == len(TEXTS) and not brr._cuts.is_open
    brr.privatize_batch(TEXTS)
    assert len(cuts) == 2 * len(TEXTS)


def test_routed_messages_are_identified_once_by_every_language_built_inside(cuts, monkeypatch):
    routed = _seeded(2, routed=True, languages=("en", "es"))
    identified: list[str] = []
    original = Multilingual._cut_runs

    def counted(self, text):
        identified.append(text)
        return original(self, text)

    monkeypatch.setattr(Multilingual, "_cut_runs", counted)
    with routed.reading_once():  # English's mechanism is built before; Spanish's inside
        _charge_and_release(routed)
        spanish = ["hola, ¿nos vemos mañana en la oficina?"]
        routed.privacy_cost(spanish)
        routed.privatize_batch(spanish)
    assert routed.used() == ("en", "es")  # Spanish's mechanism was built inside the block
    assert sorted(identified) == sorted(TEXTS + spanish)
    assert sorted(cuts) == sorted(TEXTS + spanish)
    assert not routed._runs.is_open
    assert not any(m._cuts.is_open for m in routed._mechanisms.values())


def test_a_guarded_mechanism_cuts_each_release_once(cuts, tmp_path):
    guarded = edgedp.PrivacyLedger(tmp_path / "ledger.db").guard(_seeded(3), "me")
    guarded.privatize_batch(TEXTS)
    guarded.privatize(TEXTS[0])
    assert sorted(cuts) == sorted([*TEXTS, TEXTS[0]])


def test_the_command_line_cuts_each_charged_record_once(cuts, monkeypatch, capsys, tmp_path):
    records = "".join(json.dumps({"text": text}) + "\n" for text in TEXTS)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(records.encode())))
    ledger = ["--ledger", str(tmp_path / "ledger.db"), "--scope", "me"]
    assert main(["privatize", "--input", "jsonl", "--epsilon", "0.5", *ledger]) in (0, None)
    out = capsys.readouterr().out
    assert len(out.splitlines()) == len(TEXTS)
    released = [text for text in cuts if text in TEXTS]  # the keep-rate warning cuts its words
    assert sorted(released) == sorted(TEXTS)
    assert len(edgedp.PrivacyLedger(tmp_path / "ledger.db").history("me")) == len(TEXTS)


def test_a_corpus_batch_cuts_each_charged_record_once(cuts, tmp_path):
    job = corpus.plan_privatize(
        column="text", mechanism="brr", epsilon=0.5, ledger=str(tmp_path / "l.db"), scope="me"
    )
    batch = pd.DataFrame({"text": TEXTS})
    (out,) = corpus.privatize_batches([batch], job)
    assert len(out) == len(TEXTS) and sorted(cuts) == sorted(TEXTS)


def test_worker_threads_share_one_cut_of_each_text(cuts):
    # flip probability 2**-64: the release is the text itself, whatever thread releases it
    identity = edgedp.BRR(edgedp.load_pack(), epsilon=50.0, protect=(), decode="nearest")
    identity.privatize("hi")  # the first call's keep-rate estimate cuts public words too
    cuts.clear()
    texts = [f"the {word} sat on the mat number {i}" for i, word in enumerate(["cat", "dog"] * 300)]
    edgedp.set_num_threads(3)
    try:
        with identity.reading_once():
            count = identity.privacy_cost(texts).count
            released = identity.privatize_batch(texts)
    finally:
        reset_num_threads()
    assert released == texts and count == 8 * len(texts)
    assert sorted(cuts) == sorted(texts)
