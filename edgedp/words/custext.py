"""CusText (Chen, Mo, Wang, Chen, Nie, Wang, Cui, Findings of ACL 2023): customized output sets.

**Output sets (the paper's mapping function).** The vocabulary is partitioned into output sets of
about K similar words: walking the words in frequency order (pack order), each word not yet
assigned opens a set with its K - 1 nearest words that are not yet assigned; every member of a set
maps to that set, f_map(x) = S. A remainder smaller than K joins the last set (no singleton sets;
sets hold K to 2K - 1 words). The mapping is built from public data only (the pack's vocabulary and
vectors or codes), once per mechanism, so it costs no privacy.

**Sampling.** For input x with set S = f_map(x), each y in S gets the normalised score
u(x, y) = -(d(x, y) - min_S d(x, .)) / (max_S d(x, .) - min_S d(x, .)) in [-1, 0] (u = 0 for every
y when all distances are equal), and Pr[y | x] = exp(epsilon u(x, y) / 2) / sum_{y' in S} exp(...).
d is the Euclidean distance of the vectors (``geometry="euclidean"``, the paper's GloVe setting) or
the Hamming distance of the binary codes (``geometry="hamming"``: the paper allows any similarity).

**Guarantee: epsilon-DP (plain, not metric) between any two words with the same output set**, as
the paper proves it from the partition and the bounded, normalised score (no metric needed). Words
in *different* sets are not protected from each other: the output reveals the input's set (of >= K
similar words). Not comparable by a privacy ratio; ``edgedp calibrate`` does not list it. The
proof: docs/theory.md, section "CusText".

**Cost.** The mapping is a walk over the vocabulary: the nearest words of the words that open a
set come from exact k-nearest searches (:mod:`edgedp.runtime.knn`: FAISS or numpy) in
batches of the next unassigned words (about |V| / K searches, each a scan of the vocabulary:
O(|V|^2 / K), the paper's cost too); when a word's neighbours are all taken (typical late in
the walk) its search is widened eightfold at a time, and only a nearly exhausted vocabulary is
scanned word by word. Packs carry the sets of
the default ``k`` (``edgedp-export words --custext K``, computed by the same functions), so the
mechanism loads them; another ``k`` is built on first use (:meth:`CusText.prepare`) and shared by
every mechanism on the pack. A release is vectorised: O(K) distances per word, one Gumbel-max
draw per word (:meth:`edgedp.privacy.randomness.RandomSource.choice_from_log_weights`; its float
slack is folded into epsilon, see :class:`CusText`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Unpack

import numpy as np

from edgedp.privacy.guarantee import Guarantee
from edgedp.privacy.noise import exponential_mechanism_coefficient, gumbel_max_coefficient
from edgedp.privacy.validation import check_positive_int, renamed_keyword
from edgedp.progress import ProgressCallback
from edgedp.runtime.knn import knn_hamming, knn_l2
from edgedp.words.exponential_selection import (
    VectorDistances,
    hamming_pair_distances,
    rows_per_block,
    vector_distances,
)
from edgedp.words.mechanism import WordMechanism, WordOptions
from edgedp.words.pack import WordPack
from edgedp.words.spaces import choose_geometry

#: The paper's released code's default output-set size (top_k).
DEFAULT_K = 20
_SEARCH_BLOCK = 1024
_RELEASE_BLOCK = 2048
#: A search widened beyond this share of the vocabulary gives way to a scan of the unassigned.
_WIDEST = 1 / 8


def build_output_sets(
    size: int,
    k: int,
    neighbours: Callable[[np.ndarray, int], np.ndarray],
    distances: Callable[[np.ndarray, np.ndarray], np.ndarray],
    progress: ProgressCallback | None = None,
) -> np.ndarray:
    """CusText's mapping: each word's set index (sets numbered in the order they open).

    ``neighbours(ids, m)`` gives each id's m nearest ids (itself included, nearest first; equal
    distances in the order the search returns them: by id for codes, on both tiers; for float
    vectors the float32 rounding of the tier's search decides near-ties, and of words tied at the
    m-th place FAISS's scalar path keeps an unspecified subset, numpy the lowest ids. 12 of the
    5,000 sets shipped in words-small differ from an id-order tie-break, which changes no
    guarantee: the sets are public, computed from public vectors, and shipped, not recomputed);
    ``distances(first, second)`` paired distances. Words are taken in id order (frequency
    order). ``progress(done, total)`` is told the words assigned so far.
    """
    if size <= k:
        return np.zeros(size, dtype=np.int64)
    width = min(size, max(4 * k, 64))
    table = np.empty((size, width), dtype=np.int64)
    searched = np.zeros(size, dtype=bool)
    set_of = np.full(size, -1, dtype=np.int64)
    last: np.ndarray | None = None  # the members of the last set
    sets = 0
    for word in range(size):
        if set_of[word] >= 0:
            continue
        if not searched[word]:  # search the next words that are still unassigned, in one batch
            block = np.arange(word, min(word + _SEARCH_BLOCK, size))
            block = block[set_of[block] < 0]
            table[block] = neighbours(block, width)
            searched[block] = True
        free = _free(table[word], word, set_of, k)
        wider = width
        while len(free) < k - 1 and wider * 8 <= _WIDEST * size:  # its neighbours are taken
            wider *= 8
            free = _free(neighbours(np.array([word]), wider)[0], word, set_of, k)
        if len(free) < k - 1:  # nearly everything is taken: scan the unassigned words
            unassigned = np.flatnonzero(set_of < 0)
            unassigned = unassigned[unassigned != word]
            if len(unassigned) > k - 1:
                gaps = distances(np.full(len(unassigned), word), unassigned)
                nearest = np.argpartition(gaps, k - 2)[: k - 1]
                free = unassigned[nearest[np.lexsort((unassigned[nearest], gaps[nearest]))]]
            else:
                free = unassigned
        members = np.concatenate([[word], free]).astype(np.int64)
        if len(members) < k and last is not None:  # a remainder joins the last set
            set_of[members] = sets - 1
        else:
            set_of[members] = sets
            sets += 1
        last = members
        if progress is not None:
            progress(float(word + 1), float(size))
    return set_of


def _free(row: np.ndarray, word: int, set_of: np.ndarray, k: int) -> np.ndarray:
    """The first k - 1 words of ``row`` that are unassigned and not ``word``."""
    free: np.ndarray = row[(set_of[row] < 0) & (row != word)][: k - 1]
    return free


def set_members(set_of: np.ndarray) -> np.ndarray:
    """The sets' ids, one row per set, ascending, padded with -1."""
    set_of = np.asarray(set_of, dtype=np.int64)
    order = np.argsort(set_of, kind="stable")
    sizes = np.bincount(set_of)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    members = np.full((len(sizes), int(sizes.max())), -1, dtype=np.int64)
    columns = np.arange(len(order)) - np.repeat(starts, sizes)
    members[set_of[order], columns] = order
    return members


def hamming_output_sets(
    codes: np.ndarray, k: int, progress: ProgressCallback | None = None
) -> np.ndarray:
    """:func:`build_output_sets` over packed binary codes (exact Hamming search, equal
    distances by id on both tiers)."""
    codes = np.ascontiguousarray(codes)

    def neighbours(ids: np.ndarray, count: int) -> np.ndarray:
        _, found = knn_hamming(np.ascontiguousarray(codes[ids]), codes, count)
        return np.asarray(found, dtype=np.int64)

    def distances(first: np.ndarray, second: np.ndarray) -> np.ndarray:
        return hamming_pair_distances(codes, first, second).astype(np.float64)

    return build_output_sets(len(codes), k, neighbours, distances, progress)


def euclidean_output_sets(
    table: VectorDistances, k: int, progress: ProgressCallback | None = None
) -> np.ndarray:
    """:func:`build_output_sets` over float vectors (float32 search on the search tier; the float64 distances
    of ``table`` where a scan is needed)."""
    vectors = np.ascontiguousarray(table.vectors, dtype=np.float32)

    def neighbours(ids: np.ndarray, count: int) -> np.ndarray:
        _, found = knn_l2(vectors[ids], vectors, count)
        return np.asarray(found, dtype=np.int64)

    return build_output_sets(len(vectors), k, neighbours, table.pairs, progress)


class CusText(WordMechanism):
    """CusText: sample within the input's customized output set by normalised similarity.

    The vocabulary is partitioned, from public data only, into output sets of ``k`` to 2 ``k`` - 1
    similar words (walking the words in frequency order, each unassigned word opens a set with its
    ``k`` - 1 nearest unassigned words). For input x with set S, each y in S gets the normalised
    score u(x, y) in [-1, 0] (distance rescaled by the set's range) and is drawn with probability
    proportional to exp(epsilon u(x, y) / 2).

    Parameters
    ----------
    pack : ~edgedp.WordPack
        A words pack, e.g. the bundled default ``edgedp.load_pack()`` (it carries the sets of the
        default ``k``; another ``k`` is built on first use, minutes on 100,000 words).
    epsilon : float
        The privacy parameter (plain DP within a set): a finite number > 0, above the float draw's
        slack (~1e-12). Keyword only.
    k : int, default 20
        The output-set size, >= 2 (the paper's code uses 20).
    geometry : {"euclidean", "hamming"} or None, default None
        The distance that builds the sets and scores: Euclidean on float vectors or Hamming on
        binary codes; ``None`` is the pack's (:func:`edgedp.words.spaces.choose_geometry`).
    space : {"euclidean", "hamming"} or None, default None
        The deprecated name of ``geometry``: it warns :class:`DeprecationWarning` and will be
        removed in the next release.
    rng : ~edgedp.RandomSource, int or None, default None
        Where the noise comes from. ``None`` draws from OS entropy (private); an int seed makes
        the output reproducible and NOT private (tests and benchmarks only; it warns with
        :class:`~edgedp.NotPrivateWarning`).
    oov : {"sample", "mask", "drop", "placeholder"}, default "sample"
        What replaces an out-of-vocabulary token, a span the guard protects or an emoji,
        independently of its content: a uniform filler word (a common word, no name, no digit; for
        an emoji, a filler emoji), the marker :data:`~edgedp.OOV_MASK`, nothing, or a placeholder
        naming the guard's kind (``[EMAIL]``, ``[NAME]``, ``[EMOJI]``; ``[OOV]`` otherwise). No
        policy copies a character of the token.
    casing : {"lower", "sentence"}, default "lower"
        How released words are cased: all lower case, or capitalized at sentence starts.
    protect : Iterable of str or None, default DEFAULT_PROTECT
        The kinds (default: all of them) the identifier guard (:mod:`edgedp.text.identifiers`)
        recognises before word splitting and releases through ``oov``, never through the
        mechanism; ``None`` or ``()`` turns the guard off.
    deny : Iterable of str or None, default None
        Words always protected, whatever ``protect`` says (an app's contact names).
    decode : {"auto", "nearest", "map", "context"}, default "auto"
        Which word is printed for each noisy release (:mod:`edgedp.words.decoding`;
        post-processing, the guarantee is unchanged). ``"nearest"``: the mechanism's own rule;
        ``"map"``: the most probable word given the noisy point and a public unigram prior;
        ``"context"``: the most probable sentence under a public bigram language model.
        ``"auto"``: ``"context"`` for BRR where the public language model ``lm-general`` fits the
        pack, else ``"nearest"``. Only mechanisms that release a noisy point (BRR, Madlib,
        Mahalanobis, the Vickrey mechanisms) decode otherwise than ``"nearest"``.
    candidates : int, default 16
        The words (>= 1) weighed per slot by ``"map"`` and ``"context"``.
    language_model : LanguageModelPack, str, Path or None, default None
        The public language model of ``"map"`` and ``"context"``: a pack, its name or its
        directory; ``None`` is ``lm-general``.

    Raises
    ------
    ~edgedp.PrivacyParameterError
        If ``epsilon`` is not a finite number > 0 (or not above the draw's slack), or ``protect``
        names an unknown kind.
    ~edgedp.InputError
        If ``k`` is not an integer >= 2, ``geometry`` is unknown or given with ``space``, ``pack``
        is not a words pack, or ``oov``, ``casing``, ``deny``, ``decode`` or ``candidates`` is not
        one of the values above (a sampled word decodes ``"nearest"`` only).
    ~edgedp.AssetError
        If ``geometry="euclidean"`` and the pack has no float vectors.

    Notes
    -----
    **Guarantee.** epsilon-DP (plain, not metric) per word between any two vocabulary words that
    share an output set; the output reveals the input's set (of >= ``k`` similar words), so words
    of different sets are not protected from each other. No metric or bounded distance is needed:
    the normalised score is bounded by construction. On the machine, the Gumbel-max draw's slack
    xi (~1e-12) is folded into the coefficient c = (epsilon - xi) / 2, so the realised loss is
    <= epsilon. Not comparable by a privacy ratio: ``edgedp calibrate`` does not list it. Proof:
    :doc:`/theory`.

    References
    ----------
    * S. Chen, F. Mo, Y. Wang, C. Chen, J.-Y. Nie, C. Wang, J. Cui. "A Customized Text
      Sanitization Mechanism with Differential Privacy", Findings of ACL 2023.

    Examples
    --------
    >>> import edgedp
    >>> custext = edgedp.CusText(edgedp.load_pack(), epsilon=1.0)
    >>> isinstance(custext.privatize("the cat sat"), str)
    True
    >>> custext.k, custext.geometry, custext.guarantee().metric is None
    (20, 'hamming', True)
    """

    name = "custext"

    def __init__(
        self,
        pack: WordPack,
        *,
        epsilon: float,
        k: int = DEFAULT_K,
        geometry: str | None = None,
        space: str | None = None,
        **options: Unpack[WordOptions],
    ) -> None:
        super().__init__(pack, epsilon=epsilon, **options)
        #: (epsilon - xi) / 2: the exponential mechanism's coefficient (score sensitivity 1) with
        #: the slack xi of the float draw folded in (scores and log weights lie in [-1, 0] and
        #: [-epsilon / 2, 0], so B = epsilon / 2; see the class docstring)
        self.calibration = gumbel_max_coefficient(
            self.epsilon,
            1.0,
            log_weight_bound=exponential_mechanism_coefficient(self.epsilon, sensitivity=1.0),
        )
        self.coefficient = self.calibration.coefficient
        self.k = check_positive_int(k, "k", minimum=2)
        self.geometry = choose_geometry(
            pack, renamed_keyword(geometry, space, "geometry", "space"), type(self).__name__
        )

    def parameters(self) -> dict[str, object]:
        return {**super().parameters(), "k": self.k, "geometry": self.geometry}

    def guarantee(self) -> Guarantee:
        """epsilon-DP per word between words of the same output set."""
        return Guarantee(
            protects=(
                "which word of its output set (k or more similar public words) was written at "
                "each slot; the set itself is released"
            ),
            relation="any two vocabulary words with the same CusText output set",
            unit="word",
            epsilon=self.epsilon,
        )

    # -- the mapping -----------------------------------------------------------------------------

    def _distances(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        if self.geometry == "hamming":
            return hamming_pair_distances(self.pack.codes, first, second).astype(np.float64)
        return vector_distances(self.pack, type(self).__name__).pairs(first, second)

    def prepare(self, progress: ProgressCallback | None = None) -> None:
        """Load the output sets from the pack, or build them (a walk over the vocabulary: minutes
        on 100,000 words) and share them with every mechanism on the pack."""
        self.output_sets(progress)

    def output_sets(
        self, progress: ProgressCallback | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(set_of, members)``: each word's set index and the sets' ids padded with -1."""
        key = f"custext-sets:{self.geometry}:{self.k}"
        return self.pack.derived(key, lambda: self._sets(progress))

    def _sets(self, progress: ProgressCallback | None) -> tuple[np.ndarray, np.ndarray]:
        stored = self.pack.custext_sets.get(self.geometry)
        if stored is not None and self.pack.custext_k == self.k:
            set_of = np.asarray(stored, dtype=np.int64)
        elif self.geometry == "hamming":
            set_of = hamming_output_sets(self.pack.codes, self.k, progress)
        else:
            table = vector_distances(self.pack, type(self).__name__)
            set_of = euclidean_output_sets(table, self.k, progress)
        return set_of, set_members(set_of)

    # -- release ---------------------------------------------------------------------------------

    def log_weights(self, word_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(candidates, log_weights)``: each input's output set and c u(x, y), c the
        :attr:`coefficient` ((epsilon - xi) / 2)."""
        set_of, members = self.output_sets()
        candidates = members[set_of[word_ids]]
        valid = candidates >= 0
        rows = np.repeat(np.arange(len(word_ids)), valid.sum(axis=1))
        gaps = np.full(candidates.shape, np.nan)
        gaps[valid] = self._distances(word_ids[rows], candidates[valid])
        low = np.nanmin(gaps, axis=1, keepdims=True)
        spread = np.nanmax(gaps, axis=1, keepdims=True) - low
        flat = spread == 0.0
        scores = -(gaps - low) / np.where(flat, 1.0, spread)
        scores = np.where(flat, 0.0, scores)
        weights = np.where(valid, self.coefficient * scores, -np.inf)
        return candidates, weights

    def _release(self, word_ids: np.ndarray) -> np.ndarray:
        released = np.empty_like(word_ids)
        # at most _RELEASE_BLOCK words at a time: their paired distances gather two vectors each
        step = min(rows_per_block(self.output_sets()[1].shape[1]), _RELEASE_BLOCK)
        for start in range(0, len(word_ids), step):
            block = word_ids[start : start + step]
            candidates, weights = self.log_weights(block)
            chosen = self.rng.choice_from_log_weights(weights)
            released[start : start + len(block)] = candidates[np.arange(len(block)), chosen]
        return released
