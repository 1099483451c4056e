"""Word packs of other languages (issue 49): wordfreq's words of a language's script, each embedded
alone by the multilingual encoder, centred and PCA-reduced; the stem share of Hamming neighbours;
the words command writes the source's language and the pack's language model into the manifest;
the lm command reads the corpora of other languages."""

from __future__ import annotations

import json

import numpy as np
import pytest
from edgedp_export import distilled_words, sources
from edgedp_export.cli import main as export_main
from edgedp_export.commands import lm as lm_command
from edgedp_export.distilled_words import (
    centred_pca,
    embed_words,
    foreign,
    is_script_word,
    use_multilingual_words,
    wordfreq_vocabulary,
)
from edgedp_export.neighbour_quality import hamming_neighbours, shares_stem, stem_neighbour_share
from edgedp_export.sources import SOURCES, WordVectors, load_source

import edgedp
from edgedp.errors import InputError
from edgedp.words.decoding import DEFAULT_LANGUAGE_MODEL, pack_language_model

SPANISH = [
    "de", "la", "que", "el", "en", "y", "2020", "a", "los", "l'amic", "del", "se", "las",
    "casa", "casas", "hablar", "hablamos", "mañana", "corazón", "New", "niño", "niños", "über",
    "жизнь", "co-op", "perro", "perros", "gato", "gatos", "años",
]  # fmt: skip
RUSSIAN = ["и", "в", "не", "на", "дом", "дома", "жизнь", "word", "ёлка", "3д", "по-русски", "она"]


def fake_top_n_list(language: str, n: int) -> list[str]:
    return {"es": SPANISH, "ru": RUSSIAN}[language][:n]


class FakeEncoder:
    """An encoder pack's interface: ``encoder.encode`` and a ``manifest``; vectors from letters."""

    def __init__(self) -> None:
        self.calls: list[int] = []
        self.manifest = type(
            "Manifest",
            (),
            {"name": "fake-encoder", "digest": "0" * 64, "data": {"source": {"attribution": "x"}}},
        )()

    def sentence_encoder(self, *, threads=None):
        return self

    def encode(self, sentences):
        self.calls.append(len(sentences))
        rows = []
        for sentence in sentences:
            assert " " not in sentence  # one word alone
            seed = sum(ord(c) for c in sentence[:4])  # words of one stem share their vector
            rows.append(np.random.default_rng(seed).standard_normal(24) + 5.0)  # shared offset
        out = np.array(rows, dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def test_script_words_are_lower_case_letters_of_the_language_script_alone():
    assert is_script_word("mañana", "es") and is_script_word("über", "de")
    assert is_script_word("ёлка", "ru") and is_script_word("жизнь", "ru")
    assert is_script_word("cafe\u0301", "es")  # a combining accent after a letter
    for word in ("2020", "l'amic", "co-op", "New", "жизнь", "", "\u035c", "\u0301a"):
        assert not is_script_word(word, "es"), word
    for word in ("word", "3д", "по-русски", "і", "їжак"):
        assert not is_script_word(word, "ru"), word
    with pytest.raises(InputError, match="no script"):
        is_script_word("x", "xx")


def test_wordfreq_vocabulary_keeps_frequency_order_and_reads_more_when_short():
    asked = []

    def top_n_list(language, n):
        asked.append(n)
        return fake_top_n_list(language, n)

    words = wordfreq_vocabulary("es", 8, top_n_list=top_n_list)
    assert words == ["de", "la", "que", "el", "en", "y", "a", "los"]
    assert asked == [16]
    assert wordfreq_vocabulary("ru", 5, top_n_list=fake_top_n_list) == [
        "и", "в", "не", "на", "дом",
    ]  # fmt: skip
    asked.clear()
    assert len(wordfreq_vocabulary("es", 20, top_n_list=top_n_list)) == 20
    assert asked == [40]  # the whole list fits in the first read
    with pytest.raises(InputError, match="only 9 usable ru words"):
        wordfreq_vocabulary("ru", 10, top_n_list=fake_top_n_list)


def test_words_much_more_frequent_in_another_language_are_left_out():
    frequencies = {
        "es": {"casa": 1e-3, "house": 1e-5, "red": 1e-4, "de": 1e-2, "não": 1e-7},
        "en": {"casa": 1e-6, "house": 1e-3, "red": 5e-4, "de": 1e-5},
        "pt": {"casa": 2e-3, "não": 1e-2, "de": 1e-2},
    }
    assert not foreign("casa", "es", frequencies)  # more frequent in pt, not 10 ** 1.5 times
    assert foreign("house", "es", frequencies) and foreign("não", "es", frequencies)
    assert not foreign("red", "es", frequencies)  # "network": 5 times
    assert foreign("red", "es", frequencies, margin=0.5)
    assert foreign("nadie", "es", {"es": {}, "en": {"nadie": 1e-9}})  # unknown in its language
    dropped = []
    listed = ["de", "house", "casa", "não", "red", "perro"]
    words = wordfreq_vocabulary(
        "es", 4, top_n_list=lambda language, n: listed[:n], frequencies=frequencies,
        dropped=dropped,
    )  # fmt: skip
    assert words == ["de", "casa", "red", "perro"] and dropped == ["house", "não"]
    source = use_multilingual_words(
        "es", 4, encoder=FakeEncoder(), top_n_list=lambda language, n: listed[:n],
        frequencies=frequencies, pca_dims=None,
    )  # fmt: skip
    assert source.provenance["foreign_words"]["left_out"] == 2
    assert source.provenance["foreign_words"]["examples"] == ["house", "não"]


def test_words_are_embedded_alone_in_batches():
    encoder = FakeEncoder()
    vectors = embed_words(SPANISH[:10], encoder.encode, batch=4, progress=False)
    assert vectors.shape == (10, 24) and vectors.dtype == np.float32
    assert encoder.calls == [4, 4, 2]
    np.testing.assert_array_equal(vectors[5], encoder.encode([SPANISH[5]])[0])
    with pytest.raises(InputError):
        embed_words([], encoder.encode, progress=False)


def test_centred_pca_keeps_the_main_directions_with_fixed_signs():
    rng = np.random.default_rng(0)
    data = rng.standard_normal((200, 6)) * np.array([5, 3, 1, 0.1, 0.1, 0.1]) + 7.0
    reduced, record = centred_pca(data.astype(np.float32), 3)
    assert reduced.shape == (200, 3) and reduced.dtype == np.float32
    np.testing.assert_allclose(reduced.mean(axis=0), 0, atol=1e-4)
    assert record["pca_dims"] == 3 and record["variance_kept"] > 0.99
    variances = reduced.var(axis=0)
    assert variances[0] > variances[1] > variances[2]
    again, _ = centred_pca(data.astype(np.float32), 3)
    np.testing.assert_array_equal(reduced, again)
    full, record = centred_pca(data.astype(np.float32), None)
    assert full.shape == (200, 6) and record["pca_dims"] is None


def test_the_source_records_language_licences_and_its_encoder():
    source = use_multilingual_words(
        "es", 12, encoder=FakeEncoder(), top_n_list=fake_top_n_list, pca_dims=8
    )
    assert isinstance(source, WordVectors) and source.language == "es"
    assert source.words[:3] == ["de", "la", "que"] and source.vectors.shape == (12, 8)
    provenance = source.provenance
    assert provenance["license"] == "CC-BY-SA-4.0 AND Apache-2.0"
    assert provenance["language"] == "es" and provenance["script"] == "LATIN"
    assert provenance["encoder_pack"]["name"] == "fake-encoder"
    assert provenance["distillation"]["encoder_dims"] == 24


def test_sources_of_every_word_pack_language_need_a_word_count():
    for language in ("es", "de", "fr", "pt", "it", "ru", "pl"):
        assert f"use-multilingual-{language}" in SOURCES
    with pytest.raises(InputError, match="needs --words N"):
        load_source("use-multilingual-es", None, words=None)


def test_stem_shares():
    assert shares_stem("hablar", "hablamos") and shares_stem("casa", "casas")
    assert shares_stem("дом", "дома") and not shares_stem("de", "del")
    assert not shares_stem("perro", "gato")
    words = ["casa", "casas", "casado", "perro", "perros", "perrito", "gato", "gatos", "gatote"]
    codes = np.zeros((9, 1), dtype=np.uint8)
    codes[3:6], codes[6:] = 0b11110000, 0b00001111  # each stem on its own code
    neighbours = hamming_neighbours(codes, np.array([0, 4]), 2)
    assert sorted(neighbours[0]) == [1, 2] and sorted(neighbours[1]) == [3, 5]
    share = stem_neighbour_share(words, codes, k=2, sample_size=9, seed=0)
    assert share["stem_share"] == 1.0 and share["sample"] == 9
    assert 0 <= share["chance"] < 1


@pytest.fixture
def spanish_source(monkeypatch):
    """``use-multilingual-es`` over the fake word list and encoder (no wordfreq, no model)."""
    encoder = FakeEncoder()

    def load(size):
        return use_multilingual_words(
            "es", size, encoder=encoder, top_n_list=fake_top_n_list, pca_dims=16
        )

    monkeypatch.setitem(sources.SOURCES, "use-multilingual-es", load)
    return encoder


def test_the_words_command_writes_language_and_language_model(spanish_source, tmp_path):
    out = tmp_path / "words-es"
    args = ["words", "--source", "use-multilingual-es", "--words", "20", "--bits", "32"]
    args += ["--method", "random-hyperplane", "--report", "--language-model", "lm-es"]
    assert export_main([*args, "--out", str(out)]) == 0
    pack = edgedp.load_pack(out)
    manifest = pack.manifest.data
    assert manifest["language"] == "es" and manifest["language_model"] == "lm-es"
    assert manifest["build_command"] == (
        "edgedp-export words --source use-multilingual-es --words 20 --bits 32 --method "
        "random-hyperplane --seed 0 --vectors none --index flat --report --language-model lm-es "
        "--name words-es --out words-es"
    )
    assert manifest["source"]["license"] == "CC-BY-SA-4.0 AND Apache-2.0"
    stems = manifest["quality"]["stem_neighbours_10"]
    assert 0 <= stems["this_pack"]["stem_share"] <= 1
    assert "Stem neighbours" in (out / "REPORT.md").read_text(encoding="utf-8")
    assert pack_language_model(pack) == "lm-es"
    assert pack_language_model(edgedp.load_pack()) == DEFAULT_LANGUAGE_MODEL
    out = edgedp.BRR(pack, epsilon=5.0, decode="nearest").privatize("la casa de los perros")
    assert all(word in pack.vocabulary for word in out.split())


def test_the_lm_command_reads_other_languages_corpora_and_states_the_language(
    spanish_source, tmp_path, monkeypatch
):
    from edgedp_export.corpus import PublicCorpus, PublicDocument

    words = tmp_path / "words-es"
    args = ["words", "--source", "use-multilingual-es", "--words", "20", "--bits", "32"]
    assert export_main([*args, "--method", "random-hyperplane", "--out", str(words)]) == 0
    rng = np.random.default_rng(0)
    vocabulary = edgedp.load_pack(words).vocabulary.words
    documents = tuple(
        PublicDocument(f"d{i}", " ".join(rng.choice(vocabulary, 6)) + ".") for i in range(50)
    )
    corpus = PublicCorpus(documents, {"name": "n", "license": "l", "attribution": "a"}, 20, 20)
    asked = []
    monkeypatch.setattr(lm_command, "corpus_of_language", lambda name: asked.append(name) or corpus)
    assert "help-es" in lm_command.LANGUAGE_CORPORA and "fortunes-ru" in lm_command.LANGUAGE_CORPORA
    assert "fortunes-it" not in lm_command.LANGUAGE_CORPORA
    assert "fortunes-pl" not in lm_command.LANGUAGE_CORPORA
    out = tmp_path / "lm-es"
    args = ["lm", "--words-from", str(words), "--corpora", "help-es,fortunes-es", "--out", str(out)]
    assert export_main(args) == 0
    assert asked == ["help-es", "fortunes-es"]
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["language"] == "es"
    assert export_main(["lm", "--words-from", str(words), "--corpora", "fortunes-it", "--out",
                        str(tmp_path / "x")]) != 0  # fmt: skip


def test_reserved_corpora_are_never_read():
    from edgedp_export.multilingual_corpora import corpus_of_language

    for name in ("fortunes-it", "fortunes-pl", "help-xx", "poems-es"):
        with pytest.raises(InputError):
            corpus_of_language(name)


def test_a_words_pack_decodes_with_the_model_its_manifest_names(spanish_source, tmp_path):
    """decode='context' of a pack whose manifest names an lm pack loads that one (here from the
    pack's sibling directory); without the model installed, auto falls back to nearest."""
    words = tmp_path / "words-es"
    args = ["words", "--source", "use-multilingual-es", "--words", "20", "--bits", "32"]
    args += ["--method", "random-hyperplane", "--language-model", "lm-es-test"]
    assert export_main([*args, "--out", str(words)]) == 0
    pack = edgedp.load_pack(words)
    assert edgedp.BRR(pack, epsilon=5.0).decode == "nearest"  # lm-es-test not built yet
    from edgedp_export.corpus import PublicCorpus, PublicDocument

    documents = tuple(
        PublicDocument(f"d{i}", "la casa de los perros. el gato y los gatos.") for i in range(30)
    )
    corpus = PublicCorpus(documents, {"name": "n", "license": "l", "attribution": "a"}, 20, 20)
    lm_command.CORPORA["tiny-es"] = lambda: corpus
    try:
        args = ["lm", "--words-from", str(words), "--corpora", "tiny-es"]
        assert export_main([*args, "--out", str(tmp_path / "lm-es-test")]) == 0
    finally:
        del lm_command.CORPORA["tiny-es"]
    brr = edgedp.BRR(pack, epsilon=5.0)
    assert brr.decode == "context" and brr.language_model == "lm-es-test"
    assert distilled_words.ENCODER_PACK == "encoder-use-multilingual"
