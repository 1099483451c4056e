"""The words-kept figure: the share of a text's words a word mechanism releases unchanged.

**One figure, measured one way** (:func:`words_kept`). Every words-kept share edgedp prints for a
mechanism and its settings (``edgedp explain``, ``edgedp privatize --summary``, the
:class:`~edgedp.UtilityWarning`, the docs' tables) is this estimate: the Zipf-weighted share of
vocabulary words that come back unchanged when each word is released alone through the mechanism
with its decoder, on :data:`DEFAULT_WORDS` fixed public words x :data:`DEFAULT_SAMPLES` releases,
drawn by a copy of the mechanism on a fixed public stream (seed :data:`KEPT_SEED`): the same
mechanism with the same settings always gets the same figure. On running text the share depends
on the text; with ``decode="context"`` the words of a sentence help decode each other, and running
text keeps more than words alone (measured per domain in the benchmarks, labelled "on running
text" there).

The light half of the evaluation tools (:mod:`edgedp.evaluation`), kept here so that ``edgedp
privatize`` can warn about a useless epsilon without loading them: :func:`keep_warning` warns
when a mechanism keeps fewer than :data:`LOW_KEEP` or more than :data:`HIGH_KEEP` of a text's words,
from the same estimate on fewer words (:func:`quick_keep`). It needs numpy and the mechanism only.

**The word set and the weights.** The estimate runs on word-like vocabulary words (letters, or
letters and digits that are not a number: :func:`public_word_set`) at geometrically spaced
frequency ranks, each released a few times. Each word of the set stands for the ranks between its
neighbours and carries their Zipf mass (:func:`zipf_prior`: the packs' vocabularies are in
corpus-frequency order), so the weighted share of kept words estimates the share of a running
text's words that come out unchanged. Only public words are drawn and released, with a fixed
public stream (:func:`edgedp.privacy.randomness.light_public_source`); nothing private is computed
or cached.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import asdict, dataclass
from typing import Any, Protocol

import numpy as np

from edgedp.errors import InputError, NotPrivateWarning
from edgedp.privacy.randomness import light_public_source
from edgedp.privacy.validation import check_positive_int
from edgedp.text.identifiers import identifier_spans
from edgedp.words.pack import WordPack


class KeepMeasured(Protocol):
    """What the keep estimate reads of a word mechanism (:class:`~edgedp.words.mechanism.WordMechanism`,
    which calls it at its first release: this module may not import it back)."""

    epsilon: float
    pack: WordPack

    def parameters(self) -> dict[str, object]: ...

    def privatize_ids(self, word_ids: np.ndarray) -> np.ndarray: ...


#: Words of the public word set of the words-kept figure (``edgedp explain``'s default).
DEFAULT_WORDS = 200
#: Releases of each word of the words-kept figure (``edgedp explain``'s default).
DEFAULT_SAMPLES = 20
#: The privatize warning: share kept outside [LOW_KEEP, HIGH_KEEP].
LOW_KEEP, HIGH_KEEP = 0.05, 0.95
#: (public words, releases each) of the warning's estimate: a cheap stage, then a decisive one.
WARNING_STAGES = ((20, 2), (40, 5))
#: Seed of the public stream of every words-kept estimate.
KEPT_SEED = 2
Z_975 = 1.96


@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo estimate with its 95 % interval and how it was obtained."""

    value: float
    low: float
    high: float
    words: int
    samples: int  # releases per word
    method: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        return f"{self.value:.3f} [{self.low:.3f}, {self.high:.3f}]"


def word_like_mask(pack: WordPack) -> np.ndarray:
    """Per vocabulary id: can a text's word slot hold the word, and a mechanism release it?

    Letters and digits only (punctuation splits a slot), with a letter, and not a number or other
    identifier (those go to the identifier guard): ``house``, ``mp3``; not ``1990s`` or ``e.g.``.
    The words are decoded a chunk at a time (the whole word list as strings would cost megabytes:
    bench/reports/2026-11-23-footprint.md) into a boolean mask (0.1 MB for 100,000 words), computed
    once per pack (by manifest digest: public data) and read-only; only words that are not all
    letters are read further. At least two words must qualify.
    """
    digest = pack.manifest.digest
    if digest not in _MASKS:
        parts = []
        for words in pack.vocabulary.word_chunks():
            part = np.fromiter(map(str.isalpha, words), dtype=bool, count=len(words))
            for index in np.flatnonzero(~part).tolist():
                part[index] = _word_like(words[index])
            parts.append(part)
        mask = np.concatenate([np.zeros(0, dtype=bool), *parts])
        mask.flags.writeable = False
        _MASKS[digest] = mask
    mask = _MASKS[digest]
    if np.count_nonzero(mask) < 2:
        raise InputError(f"pack {pack.name!r} has fewer than 2 words to measure on")
    return mask


_MASKS: dict[str, np.ndarray] = {}


def _word_like(word: str) -> bool:
    return word.isalnum() and (
        word.isalpha() or (any(c.isalpha() for c in word) and not _identifier(word))
    )


def _identifier(word: str) -> bool:
    return next(identifier_spans(word), None) is not None


def alphabetic_ids(pack: WordPack) -> np.ndarray:
    """Ids of the word-like words (:func:`word_like_mask`), in rank order."""
    return np.flatnonzero(word_like_mask(pack))


def public_word_set(pack: WordPack, count: int = DEFAULT_WORDS) -> np.ndarray:
    """Ids of ``count`` word-like vocabulary words at geometrically spaced ranks (public, fixed)."""
    mask = word_like_mask(pack)
    ranks = _spaced_ranks(int(np.count_nonzero(mask)), count)
    return _scan(mask, ranks)[0]


def _spaced_ranks(total: int, count: int) -> np.ndarray:
    """Ranks (0 = the most frequent) of ``count`` of ``total`` word-like words, geometrically
    spaced; all of them if ``count >= total``."""
    count = min(check_positive_int(count, "words"), total)
    if count == total:
        return np.arange(total, dtype=np.int64)
    spaced = np.geomspace(1, total, 4 * count).astype(np.int64) - 1
    # np.unique's first call costs resident memory (its hash-table code): a set here
    positions = np.array(sorted(set(spaced.tolist())), dtype=np.int64)
    if len(positions) > count:
        positions = positions[np.linspace(0, len(positions) - 1, count).astype(np.int64)]
    return positions


def _scan(
    mask: np.ndarray, ranks: np.ndarray, block: int = 1 << 13
) -> tuple[np.ndarray, np.ndarray]:
    """For sorted ranks among the word-like words: their ids, and the Zipf mass up to and including
    each, sum(1 / (id + 1)) over the word-like ids of rank <= r.

    One pass over the mask a block at a time, so no temporary is as long as the vocabulary; the
    masses are accumulated in rank order, each block's running sum starting from the total so far
    (the same sums, bit for bit, as one cumulative sum over all word-like ids).
    """
    ids = np.empty(len(ranks), dtype=np.int64)
    mass = np.empty(len(ranks), dtype=np.float64)
    seen, total = 0, 0.0
    for start in range(0, len(mask), block):
        found = np.flatnonzero(mask[start : start + block]) + start
        if not len(found):
            continue
        running = np.cumsum(np.concatenate([[total], 1.0 / (found + 1.0)]))[1:]
        inside = (ranks >= seen) & (ranks < seen + len(found))
        ids[inside] = found[ranks[inside] - seen]
        mass[inside] = running[ranks[inside] - seen]
        seen, total = seen + len(found), float(running[-1])
    return ids, mass


def zipf_prior(pack: WordPack, word_ids: np.ndarray) -> np.ndarray:
    """Text-frequency weights of the word set: Zipf's law over the pack's word-like words.

    A running-text token is the word-like vocabulary word of rank r with probability proportional
    to 1 / r (rank = vocabulary id + 1: packs are in corpus-frequency order). The word set is a
    stratified sample of the ranks: each of its words stands for the words between the midpoints to
    its neighbours and gets their total Zipf mass, so a weighted mean over the set estimates the
    share of a text's tokens (stratified Monte Carlo).
    """
    mask = word_like_mask(pack)
    ids = np.asarray(word_ids)
    if (
        ids.ndim != 1
        or not len(ids)
        or not np.issubdtype(ids.dtype, np.integer)
        or ids.min() < 0
        or ids.max() >= len(mask)
        or not np.all(np.diff(ids) > 0)
        or not mask[ids].all()
    ):
        raise InputError("the word set must be sorted, distinct word-like vocabulary ids")
    ranks = np.cumsum(mask, dtype=np.int64)[ids] - 1
    return _zipf_weights(mask, ranks)


def _zipf_weights(mask: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """:func:`zipf_prior` of the word-like words of sorted, distinct ``ranks``."""
    total = int(np.count_nonzero(mask))
    edges = np.concatenate([[0], (ranks[1:] + ranks[:-1]) // 2 + 1, [total]])
    mass = np.concatenate([[0.0], _scan(mask, edges[1:] - 1)[1]])
    weights: np.ndarray = mass[1:] - mass[:-1]
    return weights / float(weights.sum())


def weighted_keep(unchanged: np.ndarray, prior: np.ndarray, samples: int, words: int) -> Estimate:
    """The Zipf-weighted share kept, from each word's share of unchanged releases."""
    value = float(prior @ unchanged)
    counts = np.rint(unchanged * samples)
    smoothed = (counts + 1) / (samples + 2)
    half = Z_975 * float(np.sqrt((prior**2 * smoothed * (1 - smoothed) / samples).sum()))
    return Estimate(
        value,
        max(0.0, value - half),
        min(1.0, value + half),
        words,
        samples,
        "Zipf-weighted (text-like) mean of N_w; normal stratified Monte Carlo interval",
    )


def public_releases(mechanism: KeepMeasured, word_ids: np.ndarray, samples: int) -> np.ndarray:
    """Each public word of ``word_ids`` released ``samples`` times (rows), alone, by a copy of
    ``mechanism`` (its settings and decoder) on the fixed public stream of :data:`KEPT_SEED`.

    The same mechanism, words and count always give the same releases: the words-kept figure is
    reproducible, and nothing but public words is released.
    """
    samples = check_positive_int(samples, "samples", minimum=2)
    parameters = mechanism.parameters()
    decoder = getattr(mechanism, "decoder", None)
    if decoder is not None and "language_model" in parameters:
        # the language model the mechanism has loaded, not a second copy of it (8 MB resident
        # for the bundled one: bench/reports/2026-11-29-footprint.md); the same model, the same
        # releases
        parameters["language_model"] = decoder.language_model
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotPrivateWarning)  # public words only
        evaluator: KeepMeasured = type(mechanism)(  # type: ignore[call-arg]
            mechanism.pack,
            rng=light_public_source(KEPT_SEED),
            **parameters,
        )
    ids = np.asarray(word_ids, dtype=np.int64)
    released: np.ndarray = evaluator.privatize_ids(np.repeat(ids, samples))
    return released.reshape(len(ids), samples)


_keep_cache: dict[tuple[str, str, str, int, int], Estimate] = {}


def words_kept(
    mechanism: KeepMeasured, *, words: int = DEFAULT_WORDS, samples: int = DEFAULT_SAMPLES
) -> Estimate:
    """The words-kept figure of ``mechanism``: the share of a text's words released unchanged.

    Zipf-weighted over the vocabulary (:func:`zipf_prior`), each of ``words`` public words
    (:func:`public_word_set`) released alone ``samples`` times with the mechanism's decoder
    (:func:`public_releases`). Cached in memory per (pack digest, mechanism class, parameters,
    words, samples): public words only.

    Parameters
    ----------
    mechanism : WordMechanism
        Any word mechanism, with its settings and decoder.
    words : int, default DEFAULT_WORDS
        Public words of the estimate (>= 1; all word-like words of a smaller pack).
    samples : int, default DEFAULT_SAMPLES
        Releases of each word (>= 2).

    Returns
    -------
    Estimate
        The share with its 95 % interval (the Monte Carlo error on this word set).

    Notes
    -----
    Words released alone: with ``decode="context"`` the words of a running text help decode each
    other, so a text keeps more than this figure; without a language model (``nearest``, ``map``)
    a text keeps about this figure when its words follow Zipf's law.

    Examples
    --------
    >>> import edgedp
    >>> from edgedp.evaluation.keep_rate import words_kept
    >>> brr = edgedp.BRR(edgedp.load_pack(), epsilon=0.6, decode="nearest")
    >>> kept = words_kept(brr, words=20, samples=4)
    >>> kept == words_kept(brr, words=20, samples=4), 0.0 <= kept.value <= 1.0
    (True, True)
    """
    parameters = {
        key: value
        for key, value in mechanism.parameters().items()
        if key not in ("oov", "casing", "protect", "deny")
    }
    key = (
        mechanism.pack.manifest.digest,
        type(mechanism).__qualname__,
        json.dumps(parameters, sort_keys=True, default=str),
        check_positive_int(words, "words"),
        check_positive_int(samples, "samples", minimum=2),
    )
    if key not in _keep_cache:
        mask = word_like_mask(mechanism.pack)
        ranks = _spaced_ranks(int(np.count_nonzero(mask)), words)
        ids = _scan(mask, ranks)[0]  # public_word_set(pack, words)
        released = public_releases(mechanism, ids, samples)
        unchanged = (released == ids[:, None]).mean(axis=1)
        prior = _zipf_weights(mask, ranks)  # zipf_prior(pack, ids)
        _keep_cache[key] = weighted_keep(unchanged, prior, samples, len(ids))
    return _keep_cache[key]


def quick_keep(mechanism: KeepMeasured) -> Estimate:
    """:func:`words_kept` on few words, for the warning: cheap where no warning is due.

    Two stages, so that the common case costs little: 20 public words x 2 releases; only if that
    estimate is outside [0.2, 0.8] (near where a warning is due) 40 words x 5 releases decide.
    The same figure as :func:`words_kept`, measured the same way on fewer words (a wider interval).
    """
    for count, samples in WARNING_STAGES:
        kept = words_kept(mechanism, words=count, samples=samples)
        if 0.2 <= kept.value <= 0.8:
            break
    return kept


def clear_keep_cache() -> None:
    """Forget the cached estimates of :func:`words_kept` (benchmarks time the first one)."""
    _keep_cache.clear()


def keep_warning(mechanism: KeepMeasured) -> str | None:
    """A warning when ``mechanism`` keeps more than 95 % or fewer than 5 % of a text's words."""
    kept = quick_keep(mechanism)
    if kept.value > HIGH_KEEP:
        what = "almost a copy of the input: little privacy"
    elif kept.value < LOW_KEEP:
        what = "mostly unrelated words: little utility"
    else:
        return None
    return (
        f"epsilon {mechanism.epsilon:g} keeps about {kept.value:.0%} of words unchanged ({what}; "
        f"estimated on {kept.words} public words released alone); see `edgedp explain` and "
        "`edgedp tune --keep 0.5`"
    )
