"""Public bigram language models over a words pack's vocabulary (pack kind ``lm``), for decoding.

A context decoder (post-processing of a word mechanism's releases) scores candidate words by their
log-probability in context under a *public* language model; it never reads the private input, so it
costs no privacy. This module loads such a model and answers its queries with numpy alone.

Model: an interpolated bigram model with absolute discounting and Kneser-Ney continuation unigrams
(built by ``edgedp-export lm``), pruned to the bigrams seen at least ``min_count`` times and stored
in backoff form. Outcomes are the vocabulary's ids ``0..V-1``, the unknown word (id ``-1`` in the
API) and the sentence end ``</s>``; contexts are the vocabulary's ids, the unknown word and the
sentence start :data:`START`. For a context ``v`` with stored bigrams ``K_v``:

    P(w | v) = exp(stored(v, w))                 if w in K_v
             = alpha(v) * P_unigram(w)           otherwise,

where ``alpha(v) = (1 - sum_K exp(stored)) / (1 - sum_K P_unigram)`` is computed at load time in
float64 from the stored values, so every conditional distribution sums to 1 to float64 rounding
whatever the storage precision.

Layout of an ``lm`` pack (the manifest's ``lm`` section names the files):

* ``unigram.npy`` float32 (V + 2,): log P_unigram of the words, the unknown word, ``</s>``;
* ``rows.npy`` int64 (V + 3,): CSR offsets of the contexts (the words, the unknown word, START);
* ``following.npy`` int32 (bigrams,): the stored outcomes of each context, strictly increasing
  (a matrix of lookups is one vectorized binary search of each query's context row: no key is
  built per bigram, and the loaded model is the verified files, with the row offsets as int32
  below 2**30 bigrams, plus two float64 arrays of ``V + 2``; bench/reports/2026-11-29-footprint.md);
* ``logprob.npy`` float16 (bigrams,): their log-probabilities.

The manifest records the vocabulary it was built for (the SHA-256 of its words pack's
``vocab.txt``): :meth:`LanguageModelPack.check_vocabulary` refuses another one.

Sentences: :func:`slot_sentences` cuts a segmented text into sentences of word slots, the one rule
that the exporter (training) and the decoder share. It reads only what a release carries (the
separators and the number of slots), so a stream decodes a sentence once :func:`finished_slots` says
it is complete, whatever the pieces the stream was cut into.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from edgedp.errors import AssetError, InputError
from edgedp.packs.loading import DEFAULT_LANGUAGE_MODEL_PACK, LoadablePack
from edgedp.packs.manifest import Manifest
from edgedp.text.segmentation import Segmented, check_text, segment
from edgedp.text.vocabulary import Vocabulary

if TYPE_CHECKING:
    from edgedp.words.pack import WordPack

#: The sentence-start context id (the unknown word is -1).
START: int = -2
#: Characters of a separator that end a sentence: ``.``, ``!``, ``?`` and the line breaks (a
#: message per line: a chat filter answers each line as soon as it ends).
SENTENCE_END = frozenset(".!?\n\r\v\f")
#: The most word slots of one sentence: a longer run is cut after every this many slots, so that
#: a stream without sentence ends is decoded in bounded pieces (a rule on the slot count, which the
#: release carries).
MAX_SENTENCE_SLOTS = 128


def slot_sentences(segmented: Segmented) -> list[list[int]]:
    """The indices (into ``segmented.words``) of the word slots of each sentence, in order.

    A sentence ends at a slot followed, before the next slot, by a separator holding ``.``, ``!``,
    ``?`` or a line break, and after :data:`MAX_SENTENCE_SLOTS` slots.
    """
    return _sentences(segmented)[0]


def finished_slots(segmented: Segmented) -> int:
    """How many leading slots of ``segmented``, a text that may go on, are in finished sentences.

    The sentences :func:`slot_sentences` finds in those slots are the ones it finds in the whole
    text, whatever follows: a stream decodes them now and holds the rest.
    """
    sentences, ended = _sentences(segmented)
    if not sentences or ended or len(sentences[-1]) == MAX_SENTENCE_SLOTS:
        return len(segmented.words)
    return sentences[-1][0]


def _sentences(segmented: Segmented) -> tuple[list[list[int]], bool]:
    """The sentences of :func:`slot_sentences`, and whether the separators after the last slot end
    its sentence."""
    sentences: list[list[int]] = []
    current: list[int] = []
    ended = False
    slot = 0
    for piece in segmented.pieces:
        if piece is not None:
            ended = ended or not SENTENCE_END.isdisjoint(piece)
            continue
        if current and (ended or len(current) == MAX_SENTENCE_SLOTS):
            sentences.append(current)
            current = []
        ended = False
        current.append(slot)
        slot += 1
    if current:
        sentences.append(current)
    return sentences, ended


def sentence_ids(text: str, vocabulary: Vocabulary) -> list[list[int]]:
    """The vocabulary ids of the word slots of each sentence of ``text`` (-1: unknown word)."""
    segmented = segment(check_text(text), protect=frozenset())
    ids = vocabulary.ids(segmented.words).tolist()
    return [[ids[slot] for slot in sentence] for sentence in slot_sentences(segmented)]


@dataclass(frozen=True, slots=True, eq=False)
class LanguageModelPack(LoadablePack):
    """A loaded ``lm`` pack (see the module docstring); build one with ``edgedp.load_pack``.

    All log-probabilities are natural logarithms, returned as float64.
    """

    name: str
    path: Path
    manifest: Manifest
    vocabulary_name: str
    vocabulary_sha256: str
    vocabulary_size: int
    stored_unigram: np.ndarray  # (V + 2,) float32: the words, unknown, </s>; a view
    unigram_total: float  # log of the sum of their exponentials: log_unigram = stored - total
    rows: np.ndarray  # (V + 3,) the verified int64 offsets, int32 below 2**30 bigrams
    following: np.ndarray  # (bigrams,) int32, strictly increasing in each row; a view
    log_stored: np.ndarray  # (bigrams,) float16, a view of the verified bytes
    log_backoff: np.ndarray  # (V + 2,) float64: the words, unknown, START
    search_steps: int  # halvings that bring the longest row to one position: its bit length

    PACK_KIND = "lm"
    DEFAULT_PACK = DEFAULT_LANGUAGE_MODEL_PACK

    @classmethod
    def from_manifest(cls, manifest: Manifest) -> LanguageModelPack:
        """Build the pack from its verified manifest (:meth:`load` is the way in)."""
        return load_language_model_pack(manifest)

    @property
    def log_unigram(self) -> np.ndarray:
        """(V + 2,) float64: log P_unigram of the words, unknown, ``</s>`` (computed when asked:
        the model keeps the stored float32 values, half the memory)."""
        return self._log_unigram_at(slice(None))

    def _log_unigram_at(self, index: Any) -> np.ndarray:
        """The float64 log-unigram values at ``index``: the stored value widened (exactly) less
        the log total, the same float64 operation a normalized float64 copy would hold."""
        values: np.ndarray = self.stored_unigram[index].astype(np.float64)
        values -= self.unigram_total
        return values

    @property
    def bigrams(self) -> int:
        """How many bigrams the pack stores."""
        return int(self.following.shape[0])

    def check_vocabulary(self, words_pack: WordPack) -> None:
        """Raise AssetError unless this model was built for ``words_pack``'s vocabulary."""
        check_model_vocabulary(self.manifest, words_pack)

    def _outcomes(self, ids: np.ndarray, what: str) -> np.ndarray:
        """Outcome rows: ids 0..V-1, -1 (unknown) -> V."""
        array = _id_array(ids, what)
        if array.size and (array.min() < -1 or array.max() >= self.vocabulary_size):
            raise InputError(f"{what} ids must be -1 or in [0, {self.vocabulary_size})")
        return np.where(array < 0, self.vocabulary_size, array)

    def _contexts(self, ids: np.ndarray) -> np.ndarray:
        """Context rows: ids 0..V-1, -1 (unknown) -> V, START -> V + 1."""
        array = _id_array(ids, "previous")
        if array.size and (array.min() < START or array.max() >= self.vocabulary_size):
            raise InputError(
                f"previous ids must be START (-2), -1 or in [0, {self.vocabulary_size})"
            )
        return np.where(array < 0, self.vocabulary_size - 1 - array, array)

    def unigram(self, ids: np.ndarray) -> np.ndarray:
        """log P(w) under the model's unigram (Kneser-Ney continuation) distribution; id -1 is the
        unknown word."""
        return self._log_unigram_at(self._outcomes(ids, "word"))

    def transition(self, previous: np.ndarray, following: np.ndarray) -> np.ndarray:
        """(m, n) matrix of log P(following[j] | previous[i]); previous -1 is the unknown word and
        START the sentence start; following -1 is the unknown word."""
        contexts = self._contexts(previous)[:, None]
        return self._lookup(contexts, self._outcomes(following, "following")[None, :])

    def end(self, previous: np.ndarray) -> np.ndarray:
        """log P(</s> | previous[i]), shape (m,)."""
        contexts = self._contexts(previous)
        return self._lookup(contexts, np.full(contexts.shape, self.vocabulary_size + 1))

    def _lookup(self, contexts: np.ndarray, outcomes: np.ndarray) -> np.ndarray:
        """log P(outcome | context) for broadcast arrays of rows: one binary search of each
        pair's context row, all pairs at once; a pair not stored backs off to alpha * unigram."""
        result: np.ndarray = self.log_backoff[contexts] + self._log_unigram_at(outcomes)
        if self.bigrams:
            position, end = self._search(contexts, outcomes)
            inside = position < end  # before clamping: an empty row's end may be the last bigram
            position = np.minimum(position, self.bigrams - 1)
            found = inside & (self.following[position] == outcomes)
            result[found] = self.log_stored[position[found]]
        return result

    def _search(self, contexts: np.ndarray, outcomes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For broadcast rows: the first position of the context's row whose outcome is not below
        the queried one (the row's end if none), and the row's end. Each halving step moves every
        pair's interval [low, high) at once; :attr:`search_steps` of them empty the longest."""
        shape = np.broadcast_shapes(contexts.shape, outcomes.shape)
        end = np.broadcast_to(self.rows[contexts + 1], shape)
        if contexts.ndim == outcomes.ndim == 2 and contexts.shape[1] == outcomes.shape[0] == 1:
            # a transition matrix: one np.searchsorted of each context's row for all outcomes
            position = np.empty(shape, dtype=np.int64)
            wanted = outcomes[0].astype(self.following.dtype)  # outcomes fit: at most V + 1
            starts = self.rows[contexts[:, 0]].tolist()
            for i, (start, stop) in enumerate(zip(starts, end[:, 0].tolist(), strict=True)):
                position[i] = self.following[start:stop].searchsorted(wanted)
            position += self.rows[contexts]
            return position, end
        low = np.broadcast_to(self.rows[contexts], shape).copy()
        high = end.copy()
        last = self.bigrams - 1
        for _ in range(self.search_steps):
            middle = (low + high) >> 1  # an empty interval (low == high) stays where it is
            right = (low < high) & (self.following[np.minimum(middle, last)] < outcomes)
            low = np.where(right, middle + 1, low)
            high = np.where(right, high, middle)
        return low, end

    def perplexity(self, sentences: Iterable[Sequence[int]]) -> float:
        """Per-token perplexity of id sentences (-1: unknown), counting each ``</s>``."""
        total, tokens = 0.0, 0
        for sentence in sentences:
            ids = _id_array(list(sentence), "sentence")
            contexts = self._contexts(np.concatenate([[START], ids]))
            outcomes = self._outcomes(np.concatenate([ids, [-1]]), "sentence")
            outcomes[-1] = self.vocabulary_size + 1  # </s>
            total += float(self._lookup(contexts, outcomes).sum())
            tokens += outcomes.size
        if tokens == 0:
            raise InputError("perplexity needs at least one sentence")
        return math.exp(-total / tokens)

    def describe(self) -> dict[str, Any]:
        """A short summary for ``edgedp packs info``."""
        return {
            **self.manifest.summary(),
            "vocabulary": self.vocabulary_name,
            "vocabulary_size": self.vocabulary_size,
            "bigrams": self.bigrams,
        }


def _id_array(ids: object, what: str) -> np.ndarray:
    array = np.asarray(ids)
    if array.ndim != 1 or not (array.size == 0 or np.issubdtype(array.dtype, np.integer)):
        raise InputError(f"{what} ids must be a 1-D integer array")
    return array.astype(np.int64, copy=False)


def check_model_vocabulary(manifest: Manifest, words_pack: WordPack) -> None:
    """Raise AssetError unless the lm pack of ``manifest`` was built for ``words_pack``'s
    vocabulary (read from the two manifests alone: no file of either pack is needed)."""
    vocabulary: Mapping[str, Any] = manifest.section("lm")["vocabulary"]
    vocabulary_file = words_pack.manifest.field("vocabulary", "file", str)
    digest = words_pack.manifest.data["files"][vocabulary_file]["sha256"]
    if digest != str(vocabulary["sha256"]):
        raise AssetError(
            f"language model {manifest.name} was built for the vocabulary of "
            f"{vocabulary['name']}, not that of words pack {words_pack.name}"
        )


def load_language_model_pack(manifest: Manifest) -> LanguageModelPack:
    """Build a :class:`LanguageModelPack` from a validated manifest (files already verified)."""
    where = f"pack {manifest.directory}"
    section: Mapping[str, Any] = manifest.section("lm")
    vocabulary: Mapping[str, Any] = section["vocabulary"]
    size, bigrams = int(vocabulary["size"]), int(section["bigrams"])
    stored_unigram = manifest.array(section["unigram"], np.float32, (size + 2,))
    rows = manifest.array(section["rows"], np.int64, (size + 3,))
    following = manifest.array(section["following"], np.int32, (bigrams,))
    stored = manifest.array(section["logprob"], np.float16, (bigrams,))
    # float16 -> float64 is exact: the stored values are checked as the float64 lookups return
    # (as are the float32 unigram values: finite exactly where their float64 values are)
    finite = np.isfinite(stored_unigram).all() and np.isfinite(stored).all()
    if not (finite and (stored <= 0).all()):
        raise AssetError(f"{where}: log-probabilities must be finite and at most 0")
    counts = np.diff(rows)
    if rows[0] != 0 or rows[-1] != bigrams or (counts < 0).any():
        raise AssetError(f"{where}: the row offsets are not a CSR index of {bigrams} bigrams")
    longest = int(counts.max(initial=0))
    del counts  # every (V + 2)-long temporary of the load is freed as soon as it is done
    if bigrams and (following.min() < 0 or following.max() > size + 1):
        raise AssetError(f"{where}: a stored bigram's outcome is not a word, unknown or </s>")
    if not _rows_increase(rows, following):
        raise AssetError(f"{where}: the stored bigrams are not sorted outcome ids of each context")
    # normalized exactly in float64: lookups widen the stored value and subtract this total
    total = float(np.logaddexp.reduce(stored_unigram.astype(np.float64)))
    log_backoff = _log_backoff(stored_unigram, total, rows, following, stored, where)
    log_backoff.flags.writeable = False
    if bigrams < 2**30:  # the same offsets in half the memory (sums of two stay below 2**31)
        rows = rows.astype(np.int32)
        rows.flags.writeable = False
        manifest.release(section["rows"])
    return LanguageModelPack(
        name=manifest.name,
        path=manifest.directory,
        manifest=manifest,
        vocabulary_name=str(vocabulary["name"]),
        vocabulary_sha256=str(vocabulary["sha256"]),
        vocabulary_size=size,
        stored_unigram=stored_unigram,
        unigram_total=total,
        rows=rows,
        following=following,
        log_stored=stored,
        log_backoff=log_backoff,
        search_steps=longest.bit_length(),
    )


#: Bigrams checked or summed per numpy step at load (bounds the temporaries: a few megabytes less
#: peak memory than whole-array steps for the bundled model).
_LOAD_CHUNK = 1 << 16


def _row_chunks(rows: np.ndarray) -> list[tuple[int, int]]:
    """Consecutive context ranges [first, last) of about :data:`_LOAD_CHUNK` bigrams each (at
    least one context each; a row is never split)."""
    contexts = len(rows) - 1
    chunks, first = [], 0
    while first < contexts:
        last = int(np.searchsorted(rows, rows[first] + _LOAD_CHUNK, side="right")) - 1
        last = min(max(last, first + 1), contexts)
        chunks.append((first, last))
        first = last
    return chunks


def _rows_increase(rows: np.ndarray, following: np.ndarray) -> bool:
    """Whether the outcomes of every row are strictly increasing (a chunk of rows at a time)."""
    for first, last in _row_chunks(rows):
        start, stop = int(rows[first]), int(rows[last])
        if stop - start < 2:
            continue
        increases = np.diff(following[start:stop]) > 0
        starts = rows[first + 1 : last] - start  # the rows that start inside the chunk
        increases[starts[(starts > 0) & (starts < stop - start)] - 1] = True  # no rule there
        if not increases.all():
            return False
    return True


def _log_backoff(
    stored_unigram: np.ndarray,
    total: float,
    rows: np.ndarray,
    following: np.ndarray,
    stored: np.ndarray,
    where: str,
) -> np.ndarray:
    """log alpha(v) of every context (the words, unknown, START): the mass the stored bigrams of v
    leave, spread in proportion to the unigram.

    The sums run a chunk of whole rows at a time (:func:`_row_chunks`): each context's sum adds
    the same float64 terms in the same order from 0 as one ``np.bincount`` over all bigrams, so
    the values are the same bit for bit, without whole-length temporaries; the rest is computed in
    place (two float64 arrays of V + 2 in all).
    """
    contexts = stored_unigram.size  # as many contexts as outcomes: V + 2
    kept = np.zeros(contexts)
    kept_unigram = np.zeros(contexts)
    for first, last in _row_chunks(rows):
        start, stop = int(rows[first]), int(rows[last])
        local = np.repeat(np.arange(last - first), np.diff(rows[first : last + 1]))
        exact = stored[start:stop].astype(np.float64)
        kept[first:last] = np.bincount(local, weights=np.exp(exact), minlength=last - first)
        unigram = stored_unigram[following[start:stop]].astype(np.float64)
        unigram -= total  # the normalized log-unigram, as lookups compute it
        kept_unigram[first:last] = np.bincount(
            local, weights=np.exp(unigram), minlength=last - first
        )
    left, left_unigram = (
        np.subtract(1.0, kept, out=kept),
        np.subtract(1.0, kept_unigram, out=kept_unigram),
    )
    if not ((left > 0).all() and (left_unigram > 0).all()):
        raise AssetError(f"{where}: the stored bigrams of a context hold all its probability")
    result: np.ndarray = np.log(left, out=left)
    result -= np.log(left_unigram, out=left_unigram)
    return result
