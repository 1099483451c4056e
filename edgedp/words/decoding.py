"""Which vocabulary word to print for each noisy release: decoders, post-processing of the DP release.

BRR, Madlib, Mahalanobis and the Vickrey mechanisms release, per word slot, a noisy point (a
randomized-response code, a noisy vector) that is already differentially private. Which vocabulary
word is printed for it is post-processing: any rule that reads only the noisy points and public data
keeps the mechanism's guarantee unchanged (the same epsilon, the same metric). Three rules:

* ``nearest`` (default): the mechanism's own rule: the nearest word to the point (BRR, Madlib,
  Mahalanobis), Vickrey's random choice among the nearest.
* ``map``: the most probable word given the point alone: among the ``candidates`` nearest words w,
  the one maximising log Pr[point | w] + log P(w), the exact log-likelihood of the mechanism's noise
  (:meth:`edgedp.words.spaces.Space.log_likelihood`) plus a public unigram prior.
* ``context``: the most probable *sentence*: the same candidates and likelihoods, plus a public
  bigram language model's log-probability of each word given the one before (and of the sentence's
  start and end), maximised over the sentence by Viterbi.

**Why it is post-processing, structurally.** A decoder receives a :class:`NoisyRelease`: the noisy
points, the ids already released for the slots the mechanism did not perturb (out-of-vocabulary
tokens and protected spans, replaced independently of their content) and the sentence layout, read
from the released separators only (:func:`edgedp.words.language_model.slot_sentences`). It never
receives the input words or their ids; tests decode a release in another process and check the
words are the same. The language model is a public pack (kind ``lm``), built from openly licensed
text that never sees the user's.

**What moves.** The guarantee does not; the share of words printed unchanged and an adversary's
inference error do (``explain``, ``tune`` and ``calibrate --match`` measure them with the decoder in
place, on isolated words: without a sentence around it, ``context`` weighs a word by the language
model's start-and-end probabilities, close to ``map``).

Slots the mechanism did not perturb are fixed points of the search; a language model sees them as
unknown words. The sampling mechanisms (TEM, SanText, CusText) release a *word*, not a point: a
posterior over inputs would need each candidate input's normalizer over the whole vocabulary, which
costs more than the mechanism itself, so they print their release as is (``nearest`` only).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from edgedp.errors import AssetError, InputError
from edgedp.packs.loading import find_pack_manifest
from edgedp.privacy.validation import check_choice, check_positive_int
from edgedp.runtime.native import Lazy
from edgedp.words.language_model import START, LanguageModelPack, check_model_vocabulary

if TYPE_CHECKING:
    from edgedp.words.pack import WordPack
    from edgedp.words.spaces import Space

DECODERS = ("nearest", "map", "context")
#: ``decode=`` default: each mechanism's :attr:`~edgedp.words.mechanism.WordMechanism.auto_decode`
#: where the public language model for its pack is installed, else ``nearest``.
AUTO = "auto"
#: Candidate words weighed per slot: the 16 nearest to the noisy point (``python -m bench
#: decoding`` measured the decoders at 16; more costs search time, each space's k-NN grows with k).
DEFAULT_CANDIDATES = 16
#: The public language model a decoder loads when none is given.
DEFAULT_LANGUAGE_MODEL = "lm-general"
#: In :attr:`NoisyRelease.fixed`: the slot's word is decoded from the next row of ``points``.
PERTURBED = -3


@dataclass(frozen=True)
class NoisyRelease:
    """All a decoder may read about a batch of texts: DP releases and public layout, no input.

    ``points``: one noisy point (a packed code row, or a vector) per perturbed slot, in slot order;
    ``fixed``: per slot, :data:`PERTURBED` or the id already released for it (a vocabulary id, or a
    negative marker of the out-of-vocabulary policy); ``sentences``: the slot indices of each
    sentence, from the released separators.

    What it states beyond the printed text: which slots were out of vocabulary or protected (their
    ``fixed`` entry), whatever the ``oov`` policy; with ``oov="sample"`` the printed text only
    weakly suggests those slots. Only a Hamming-space release (exact bits) may leave the process
    (:meth:`edgedp.words.mechanism.WordMechanism.noisy_release`); a Euclidean one holds
    floating-point vectors and is decoded where it was drawn.
    """

    points: np.ndarray
    fixed: np.ndarray
    sentences: tuple[tuple[int, ...], ...]


def check_decoder(decode: str, candidates: int) -> tuple[str, int]:
    """``decode`` and ``candidates`` validated (an :class:`InputError` names the bad one)."""
    name = check_choice(decode, "decode", (AUTO, *DECODERS))
    count = check_positive_int(candidates, "candidates")
    return name, count


def load_language_model(
    language_model: LanguageModelPack | str | Path | None, words: WordPack
) -> tuple[Lazy[LanguageModelPack], str]:
    """The language model a decoder uses (a pack, a pack name or directory; ``None``: the one
    ``words``' manifest names, :func:`pack_language_model`), and the name or path that loads it
    again.

    The model is found and checked to be built for ``words``' vocabulary now, from its manifest;
    its files are read and verified when a :class:`Decoder` first decodes: a mechanism that never
    decodes (another language's, in a multilingual chat) holds none of its megabytes.
    """
    if isinstance(language_model, LanguageModelPack):
        model = language_model
        model.check_vocabulary(words)
        return Lazy(lambda: model), str(model.path)
    name = pack_language_model(words) if language_model is None else language_model
    if not isinstance(name, str | Path):
        raise InputError(f"language_model must be an lm pack, its name or path, got {name!r}")
    try:
        found = _find_named_model(name, words, named=language_model is None)
    except AssetError as error:
        raise AssetError(
            f"decode='map' and 'context' need a public language model pack: {error} "
            f"(the default, {DEFAULT_LANGUAGE_MODEL}, ships inside edgedp for the default "
            "words pack; another words pack needs a model built for its vocabulary: "
            "edgedp-export lm)"
        ) from None
    return Lazy(lambda: _load_checked_model(found, words)), str(name)


def _find_named_model(name: str | Path, words: WordPack, *, named: bool) -> str | Path:
    """Where ``name``'s lm pack is, checked against ``words``' vocabulary from its manifest: the
    name itself or, for the model a pack's manifest names (``named``) that loads by no name, the
    pack directory's sibling of that name (``assets/words-es`` and ``assets/lm-es`` side by side)."""
    try:
        found: str | Path = name
        manifest = find_pack_manifest(name, kind="lm")
    except AssetError:
        sibling = words.path.parent / str(name)
        if not named or name == DEFAULT_LANGUAGE_MODEL or not (sibling / "manifest.json").is_file():
            raise
        found, manifest = sibling, find_pack_manifest(sibling, kind="lm")
    check_model_vocabulary(manifest, words)
    return found


def _load_checked_model(found: str | Path, words: WordPack) -> LanguageModelPack:
    """The lm pack at ``found`` loaded and verified, checked again against ``words``' vocabulary
    (it may have changed since it was found)."""
    model = LanguageModelPack.load(found)
    model.check_vocabulary(words)
    return model


def pack_language_model(words: WordPack) -> str:
    """The name of the lm pack that decodes ``words`` by default: its manifest's
    ``language_model`` (a language's word pack names its own, ``lm-es`` for ``words-es``), else
    :data:`DEFAULT_LANGUAGE_MODEL`."""
    named = words.manifest.data.get("language_model")
    return named if isinstance(named, str) and named else DEFAULT_LANGUAGE_MODEL


class Decoder:
    """``map`` or ``context`` decoding of noisy releases in ``space`` with a public language model.

    ``candidates``: how many nearest words of each noisy point are weighed; ``language_model``: the
    public lm pack. Decoding is deterministic: equal scores go to the nearer candidate.
    """

    def __init__(
        self,
        space: Space,
        language_model: LanguageModelPack | Lazy[LanguageModelPack],
        *,
        mode: str,
        candidates: int,
    ) -> None:
        if mode not in ("map", "context"):
            raise InputError(f"a Decoder decodes 'map' or 'context', got {mode!r}")
        self.space, self.mode = space, mode
        if isinstance(language_model, Lazy):
            self._model = language_model
        else:
            loaded = language_model
            self._model = Lazy(lambda: loaded)
        self.candidates = min(
            check_positive_int(candidates, "candidates"), len(space.pack.vocabulary)
        )

    @property
    def language_model(self) -> LanguageModelPack:
        """The public lm pack (loaded and verified on first use, :func:`load_language_model`)."""
        return self._model.get()

    def release_alone(self, word_ids: np.ndarray) -> np.ndarray:
        """Each vocabulary id perturbed (the DP release) and decoded as a sentence of one word:
        what ``privatize_ids`` releases with this decoder (explain, tune and calibrate measure it)."""
        release = NoisyRelease(
            points=self.space.perturb(word_ids),
            fixed=np.full(len(word_ids), PERTURBED, dtype=np.int64),
            sentences=tuple((slot,) for slot in range(len(word_ids))),
        )
        return self.decode(release)

    def decode(self, release: NoisyRelease) -> np.ndarray:
        """One released id per slot of ``release``: ``fixed`` where it is not :data:`PERTURBED`,
        else the decoded word of the slot's noisy point."""
        fixed = np.asarray(release.fixed, dtype=np.int64)
        perturbed = np.flatnonzero(fixed == PERTURBED)
        if len(perturbed) != len(release.points):
            raise InputError(
                f"{len(release.points)} noisy points for {len(perturbed)} perturbed slots"
            )
        out = fixed.copy()
        if not len(perturbed):
            return out
        distances, ids = self.space.nearest(release.points, self.candidates)
        scores = self.space.log_likelihood(release.points, distances, ids)
        if self.mode == "map":
            scores = scores + self.language_model.unigram(ids.ravel()).reshape(ids.shape)
            out[perturbed] = ids[np.arange(len(ids)), np.argmax(scores, axis=1)]
            return out
        # per slot: its candidate ids and scores; fixed slots are one unknown-word state
        row = np.full(len(fixed), -1, dtype=np.int64)
        row[perturbed] = np.arange(len(perturbed))
        for sentence in release.sentences:
            self._viterbi(sentence, row, ids, scores, out)
        return out

    def _viterbi(
        self,
        sentence: tuple[int, ...],
        row: np.ndarray,
        ids: np.ndarray,
        scores: np.ndarray,
        out: np.ndarray,
    ) -> None:
        """Write into ``out`` the best word sequence of ``sentence``'s perturbed slots."""
        model = self.language_model
        unknown = np.array([-1], dtype=np.int64)
        zero = np.zeros(1)
        states: list[np.ndarray] = []  # the LM ids of each slot's states
        pointers: list[np.ndarray] = []
        previous = np.array([START], dtype=np.int64)
        best = zero
        for slot in sentence:
            if row[slot] < 0:
                current, emission = unknown, zero
            else:
                current, emission = ids[row[slot]], scores[row[slot]]
            total = best[:, None] + model.transition(previous, current)
            pointer = np.argmax(total, axis=0)
            best = total[pointer, np.arange(len(current))] + emission
            states.append(current)
            pointers.append(pointer)
            previous = current
        if not states:
            return
        state = int(np.argmax(best + model.end(previous)))
        for slot, current, pointer in zip(
            reversed(sentence), reversed(states), reversed(pointers), strict=True
        ):
            if row[slot] >= 0:
                out[slot] = current[state]
            state = int(pointer[state])
