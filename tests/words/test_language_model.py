"""The public bigram language model (edgedp.words.language_model) on a tiny synthetic corpus.

Every conditional distribution sums to 1 over the vocabulary, the unknown word and ``</s>``;
unseen bigrams back off to the unigram; ids -1 and START mean what they say; the pack refuses
another vocabulary and damaged files; the exporter's estimate survives the round trip; sentences
are cut at . ! ? and blank lines; training text is more likely than the same words shuffled.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from edgedp_export.corpus import PublicCorpus, PublicDocument
from edgedp_export.language_model import (
    LanguageModelConfig,
    build_language_model_pack,
    corpus_sentences,
    estimate,
)
from helpers import write_word_pack

import edgedp
from edgedp.errors import AssetError, InputError
from edgedp.text.segmentation import segment
from edgedp.words.language_model import START, LanguageModelPack, sentence_ids, slot_sentences

#: The tiny words pack's words are waa, wab, ...; a corpus of a few repeated patterns over them.
PATTERNS = [
    "waa wab wac. wad wae waf! waa wab wag?",
    "wah wai waa wab wac. zzz waa wab.",
    "wba wbb wbc\n\nwaa wab wac wad.",
    "wca wcb waa wab. waa wac wad wae.",
]


def tiny_corpus(copies: int = 3) -> PublicCorpus:
    documents = [
        PublicDocument(f"d{number}", text) for number, text in enumerate(PATTERNS * copies)
    ]
    provenance = {"name": "synthetic", "license": "CC0-1.0", "attribution": "tests"}
    return PublicCorpus(tuple(documents), provenance, 0, 0)


@pytest.fixture(scope="module")
def words(tmp_path_factory) -> edgedp.WordPack:
    names = [f"w{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(64)]
    codes = np.random.default_rng(7).integers(0, 256, size=(64, 4), dtype=np.uint8)
    return edgedp.load_pack(write_word_pack(tmp_path_factory.mktemp("lm") / "tiny", names, codes))


@pytest.fixture(scope="module")
def built(words, tmp_path_factory) -> Path:
    config = LanguageModelConfig("tiny-lm", "edgedp-export lm (test)", min_count=2)
    out = tmp_path_factory.mktemp("lm") / "tiny-lm"
    return build_language_model_pack({"tiny": tiny_corpus()}, words, config, out)


@pytest.fixture(scope="module")
def model(built) -> LanguageModelPack:
    return edgedp.load_pack(built, kind="lm")


def everything(pack: LanguageModelPack, previous: int) -> float:
    """Total probability of every word, the unknown word and </s> after ``previous``."""
    following = np.arange(-1, pack.vocabulary_size)
    row = pack.transition(np.array([previous]), following)[0]
    return float(np.exp(row).sum() + np.exp(pack.end(np.array([previous]))[0]))


def test_every_context_is_a_distribution(model, words):
    ids = words.vocabulary.ids(["waa", "wab", "wac", "wbc", "wzz", "wcl"]).tolist()
    for previous in [START, -1, *ids]:
        assert everything(model, previous) == pytest.approx(1.0, abs=1e-9)
    unigram = model.unigram(np.arange(-1, model.vocabulary_size))
    assert np.exp(unigram).sum() + np.exp(model.log_unigram[-1]) == pytest.approx(1.0, abs=1e-9)


def test_seen_bigrams_beat_the_backoff_and_unseen_ones_back_off(model, words):
    waa, wab, wac, wcl = words.vocabulary.ids(["waa", "wab", "wac", "wcl"]).tolist()
    row = model.transition(np.array([waa]), np.array([wab, wac, wcl]))[0]
    assert row[0] > row[1] > row[2]  # waa wab (often) > waa wac (twice a copy) > never
    assert row.dtype == np.float64
    backoff = model.log_backoff[waa] + model.unigram(np.array([wcl]))[0]
    assert row[2] == pytest.approx(backoff)
    # wcl never occurs: after an unseen context the model is the unigram itself
    unseen = model.transition(np.array([wcl]), np.array([waa, wab]))[0]
    np.testing.assert_allclose(unseen, model.unigram(np.array([waa, wab])))


def test_start_unknown_and_end(model, words):
    waa, wac, wab = words.vocabulary.ids(["waa", "wac", "wab"]).tolist()
    start = model.transition(np.array([START]), np.array([waa, wac]))[0]
    assert start[0] > start[1]  # sentences mostly start with waa
    after_unknown = model.transition(np.array([-1]), np.array([waa, wac]))[0]
    assert after_unknown[0] > after_unknown[1]  # "zzz waa"
    ends = model.end(np.array([wab, waa]))
    assert ends.shape == (2,) and ends[0] > ends[1]  # "wab." ends sentences, "waa" never does
    matrix = model.transition(np.array([START, -1, waa]), np.array([-1, waa, wab, wac]))
    assert matrix.shape == (3, 4)
    for i, previous in enumerate([START, -1, waa]):
        for j, following in enumerate([-1, waa, wab, wac]):
            single = model.transition(np.array([previous]), np.array([following]))
            assert matrix[i, j] == single[0, 0]


@pytest.mark.parametrize(
    ("previous", "following"),
    [([64], [0]), ([-3], [0]), ([0], [64]), ([0], [-2]), ([[0]], [0]), ([0.5], [0])],
)
def test_ids_out_of_range_are_input_errors(model, previous, following):
    with pytest.raises(InputError):
        model.transition(np.array(previous), np.array(following))


def test_training_sentences_are_likelier_than_shuffled_ones(model, words):
    sentences = sentence_ids(" ".join(PATTERNS), words.vocabulary)
    rng = np.random.default_rng(0)
    shuffled = [list(rng.permutation(sentence)) for sentence in sentences]
    assert model.perplexity(sentences) < model.perplexity(shuffled)
    with pytest.raises(InputError):
        model.perplexity([])


def test_slot_sentences_cut_at_stops_and_line_breaks():
    text = "One two. Three!Four five? six\n\nseven eight\nnine ... ten eleven\r\ntwelve"
    segmented = segment(text)
    groups = [[segmented.words[i] for i in sentence] for sentence in slot_sentences(segmented)]
    assert groups == [
        ["one", "two"],
        ["three"],
        ["four", "five"],
        ["six"],
        ["seven", "eight"],
        ["nine"],
        ["ten", "eleven"],
        ["twelve"],
    ]
    assert slot_sentences(segment("")) == []
    assert slot_sentences(segment("...")) == []


def test_sentence_ids_map_unknown_words_to_minus_one(words):
    assert sentence_ids("waa Zzz. wab", words.vocabulary) == [[0, -1], [1]]
    with pytest.raises(InputError):
        sentence_ids(b"waa", words.vocabulary)  # type: ignore[arg-type]


def test_the_vocabulary_check(model, words, tmp_path):
    model.check_vocabulary(words)
    other = write_word_pack(
        tmp_path / "other", ["waa", "wab"], np.zeros((2, 4), dtype=np.uint8), name="other"
    )
    with pytest.raises(AssetError, match="built for the vocabulary of tiny"):
        model.check_vocabulary(edgedp.load_pack(other))


def test_the_round_trip_matches_the_estimate(model, words):
    exact = estimate(corpus_sentences({"tiny": tiny_corpus()}, words, "train"), 64, 2)
    np.testing.assert_array_equal(model.rows, exact.rows)
    np.testing.assert_array_equal(model.following, exact.following)
    np.testing.assert_array_equal(model.log_stored, exact.logprob.astype(np.float64))
    np.testing.assert_allclose(model.log_unigram, exact.log_unigram, atol=1e-6)
    data = model.manifest.data["lm"]
    assert data["vocabulary"]["name"] == "tiny" and data["min_count"] == 2
    assert model.describe()["bigrams"] == model.bigrams > 0


def test_pruning_stores_fewer_bigrams(words):
    sentences = corpus_sentences({"tiny": tiny_corpus(1)}, words, "train")
    assert estimate(sentences, 64, 2).following.size < estimate(sentences, 64, 1).following.size
    with pytest.raises(InputError):
        estimate(sentences, 64, 0)


def _rewrite(pack: Path, name: str, data: bytes) -> None:
    """Replace a file and its manifest entry consistently (only the contents are wrong)."""
    import hashlib

    (pack / name).write_bytes(data)
    manifest = json.loads((pack / "manifest.json").read_text())
    manifest["files"][name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (pack / "manifest.json").write_text(json.dumps(manifest))


def _npy(array: np.ndarray) -> bytes:
    import io

    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def test_tampered_and_truncated_files_are_asset_errors(built, model, tmp_path):
    tampered = shutil.copytree(built, tmp_path / "tampered")
    data = bytearray((tampered / "logprob.npy").read_bytes())
    data[-1] ^= 0x10
    (tampered / "logprob.npy").write_bytes(bytes(data))
    with pytest.raises(AssetError, match="SHA-256"):
        edgedp.load_pack(tampered)
    truncated = shutil.copytree(built, tmp_path / "truncated")
    (truncated / "following.npy").write_bytes((truncated / "following.npy").read_bytes()[:-4])
    with pytest.raises(AssetError):
        edgedp.load_pack(truncated)
    cases = {
        "unsorted": ("following.npy", model.following[::-1].copy()),
        "positive": ("logprob.npy", np.abs(model.log_stored).astype(np.float16)),
        "offsets": ("rows.npy", model.rows[::-1].copy()),
        "all mass": ("logprob.npy", np.full(model.bigrams, -1e-4, dtype=np.float16)),
    }
    for case, (name, array) in cases.items():
        bad = shutil.copytree(built, tmp_path / case.replace(" ", "-"))
        _rewrite(bad, name, _npy(array))
        with pytest.raises(AssetError):
            edgedp.load_pack(bad, kind="lm")


@pytest.mark.parametrize(
    ("field", "value"),
    [("bigrams", "many"), ("vocabulary", {"name": "tiny", "size": 64}), ("unigram", 3)],
)
def test_a_malformed_lm_section_is_an_asset_error(built, tmp_path, field, value):
    bad = shutil.copytree(built, tmp_path / "bad")
    manifest = json.loads((bad / "manifest.json").read_text())
    manifest["lm"][field] = value
    (bad / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(AssetError, match=f"lm.{field}"):
        edgedp.load_pack(bad)


@pytest.mark.parametrize("trailing_empty", [True, False])
def test_lookups_find_exactly_the_stored_bigrams_of_each_row(trailing_empty):
    """The per-row binary search (transition matrices and any other shape) against a dict of the
    stored bigrams, with empty rows inside and at the end (an empty last row ends where the last
    stored bigram does)."""
    size = 5  # outcomes 0..6 (unknown 5, </s> 6); contexts 0..6 (unknown 5, START 6)
    stored_rows = {0: [1, 3, 6], 1: [], 2: [0, 2, 3, 4, 5], 3: [], 4: [6], 5: [2], 6: []}
    if not trailing_empty:
        stored_rows[6] = [0, 1]
    following = np.array([o for c in range(size + 2) for o in stored_rows[c]], dtype=np.int32)
    rows = np.cumsum([0] + [len(stored_rows[c]) for c in range(size + 2)]).astype(np.int64)
    log_stored = -np.arange(1, len(following) + 1, dtype=np.float16) / 8
    model = LanguageModelPack(
        name="tiny",
        path=Path("."),
        manifest=None,  # type: ignore[arg-type]
        vocabulary_name="tiny",
        vocabulary_sha256="0" * 64,
        vocabulary_size=size,
        stored_unigram=np.log(np.full(size + 2, 1 / (size + 2), dtype=np.float32)),
        unigram_total=0.0,
        rows=rows,
        following=following,
        log_stored=log_stored,
        log_backoff=-np.arange(size + 2, dtype=np.float64) / 3,
        search_steps=int(np.diff(rows).max()).bit_length(),
    )
    value = {
        (c, o): float(log_stored[rows[c] + i])
        for c in range(size + 2)
        for i, o in enumerate(stored_rows[c])
    }
    contexts, outcomes = np.arange(size + 2), np.arange(size + 2)
    expected = np.array(
        [
            [value.get((c, o), model.log_backoff[c] + model.log_unigram[o]) for o in outcomes]
            for c in contexts
        ]
    )
    assert np.array_equal(model._lookup(contexts[:, None], outcomes[None, :]), expected)
    pairs = np.array([(c, o) for c in contexts for o in outcomes])
    assert np.array_equal(model._lookup(pairs[:, 0], pairs[:, 1]), expected.ravel())


class _ArraysManifest:
    """What load_language_model_pack reads of a manifest, over given arrays."""

    def __init__(self, model: LanguageModelPack, **arrays: np.ndarray) -> None:
        self.name, self.directory, self._section = (
            model.name,
            model.path,
            model.manifest.section("lm"),
        )
        self.arrays = {
            "unigram": model.stored_unigram,
            "rows": model.rows,
            "following": model.following,
            "logprob": model.log_stored,
            **arrays,
        }

    def section(self, name: str) -> dict:
        return dict(self._section)

    def array(self, file: str, dtype: type, shape: tuple[int, ...]) -> np.ndarray:
        key = next(k for k in self.arrays if self._section[k] == file)
        return np.asarray(self.arrays[key], dtype=dtype).reshape(shape)

    def release(self, file: str) -> None:
        """The loader's int32 copy of the row offsets replaces the file's bytes."""


def test_the_load_checks_each_row_and_rebuilds_the_same_model(model):
    from edgedp.words import language_model as module

    again = module.load_language_model_pack(_ArraysManifest(model))  # type: ignore[arg-type]
    assert np.array_equal(again.log_backoff, model.log_backoff)
    assert again.rows.dtype == np.int32 and np.array_equal(again.rows, model.rows)
    assert again.log_unigram.tobytes() == model.log_unigram.tobytes()
    row = int(np.flatnonzero(np.diff(model.rows) >= 2)[0])
    start = int(model.rows[row])
    swapped = model.following.copy()
    swapped[start], swapped[start + 1] = swapped[start + 1], swapped[start]
    with pytest.raises(AssetError, match="not sorted outcome ids of each context"):
        module.load_language_model_pack(_ArraysManifest(model, following=swapped))  # type: ignore[arg-type]
    certain = model.log_stored.copy()
    certain[start] = 0.0  # probability 1 for one bigram: nothing left for the others
    with pytest.raises(AssetError, match="hold all its probability"):
        module.load_language_model_pack(_ArraysManifest(model, logprob=certain))  # type: ignore[arg-type]
    infinite = model.stored_unigram.copy()
    infinite[3] = np.inf
    with pytest.raises(AssetError, match="finite and at most 0"):
        module.load_language_model_pack(_ArraysManifest(model, unigram=infinite))  # type: ignore[arg-type]
