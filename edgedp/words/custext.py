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
d is the Euclidean distance of the vectors (``space="euclidean"``, the paper's GloVe setting) or
the Hamming distance of the binary codes (``space="hamming"``: the paper allows any similarity).

**Guarantee, exactly as the paper proves it: epsilon-DP (plain, not metric) between any two words
with the same output set.** For x, x' with f_map(x) = f_map(x') = S, both draw from S; the
normalised scores lie in [-1, 0], so the score's sensitivity is 1 and the exponential mechanism
with epsilon / 2 gives Pr[y | x] <= e^epsilon Pr[y | x'] for every y (for the exact law; the
float draw's slack is folded into the coefficient, see :class:`CusText`). The proof needs the mapping
(a partition, so that x and x' share the whole output set) and the bounded, normalised score; it
needs no metric (no triangle inequality). Words in *different* sets are not protected from each
other: their outputs are disjoint, so the output reveals the input's set (of >= K similar words).
This is weaker than the metric-DP mechanisms' promise across the vocabulary, and stronger within
a set (epsilon whatever the distance). It is not comparable by a privacy ratio; ``edgedp
calibrate`` does not list it.

**Cost.** The mapping is a walk over the vocabulary: the nearest words of the words that open a
set come from FAISS k-nearest searches in batches of the next unassigned words (about |V| / K
searches, each a scan of the vocabulary with a flat index: O(|V|^2 / K), the paper's cost too), and
an exact scan of the unassigned words when a word's neighbours are all taken (typical at the end of
the walk). It is built once per mechanism, on first use; measured in bench/README.md. A release is vectorised:
O(K) distances per word, one Gumbel-max draw per word
(:meth:`edgedp.privacy.randomness.RandomSource.choice_from_log_weights`; its float slack is folded into
epsilon, see :class:`CusText`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Unpack

import numpy as np

from edgedp.packs.native import Lazy
from edgedp.privacy.guarantee import Guarantee
from edgedp.privacy.noise import exponential_mechanism_coefficient, gumbel_max_coefficient
from edgedp.privacy.validation import check_positive_int
from edgedp.words.mechanism import WordMechanism, WordOptions
from edgedp.words.pack import WordPack
from edgedp.words.sampling import VectorDistances, hamming_pair_distances, rows_per_block
from edgedp.words.spaces import choose_space

#: The paper's released code's default output-set size (top_k).
DEFAULT_K = 20
_SEARCH_BLOCK = 256


def build_output_sets(
    size: int,
    k: int,
    neighbours: Callable[[np.ndarray, int], np.ndarray],
    distances: Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """CusText's mapping: ``(set_of, members)`` with ``members`` padded with -1.

    ``neighbours(ids, m)`` gives each id's m nearest ids (itself included, nearest first);
    ``distances(first, second)`` paired distances. Words are taken in id order (frequency order).
    """
    if size <= k:
        return np.zeros(size, dtype=np.int64), np.arange(size, dtype=np.int64)[None, :]
    width = min(size, max(4 * k, 64))
    table = np.empty((size, width), dtype=np.int64)
    searched = np.zeros(size, dtype=bool)
    set_of = np.full(size, -1, dtype=np.int64)
    groups: list[np.ndarray] = []
    for word in range(size):
        if set_of[word] >= 0:
            continue
        if not searched[word]:  # search the next words that are still unassigned, in one batch
            block = np.arange(word, min(word + _SEARCH_BLOCK, size))
            block = block[set_of[block] < 0]
            table[block] = neighbours(block, width)
            searched[block] = True
        row = table[word]
        free = row[(set_of[row] < 0) & (row != word)][: k - 1]
        if len(free) < k - 1:  # the precomputed neighbours are taken: scan the unassigned words
            unassigned = np.flatnonzero(set_of < 0)
            unassigned = unassigned[unassigned != word]
            if len(unassigned) > k - 1:
                gaps = distances(np.full(len(unassigned), word), unassigned)
                nearest = np.argpartition(gaps, k - 2)[: k - 1]
                free = unassigned[nearest[np.lexsort((unassigned[nearest], gaps[nearest]))]]
            else:
                free = unassigned
        members = np.concatenate([[word], free]).astype(np.int64)
        if len(members) < k and groups:  # a remainder joins the last set
            members = np.concatenate([groups.pop(), members])
        set_of[members] = len(groups)
        groups.append(members)
    largest = max(len(group) for group in groups)
    padded = np.full((len(groups), largest), -1, dtype=np.int64)
    for index, group in enumerate(groups):
        padded[index, : len(group)] = group
    return set_of, padded


class CusText(WordMechanism):
    """CusText: sample within the input's customized output set by normalised similarity.

    **Guarantee.** epsilon-DP (plain) between any two vocabulary words that share an output set
    (sets of ``k`` to 2 ``k`` - 1 similar words, built from public data); the output reveals the
    input's set. No metric or bounded distance is needed: the normalised score is bounded by
    construction. See the module docstring.

    **On the machine** (:attr:`calibration`). The float scores lie in [-1, 0] exactly (rounding is
    monotone), so the exact law of the computed log weights c u has log-ratio <= 2 c whatever the
    distances' rounding; the Gumbel-max draw adds at most xi (~1e-12,
    :func:`edgedp.privacy.noise.gumbel_max_coefficient`). Plain DP has one neighbour distance, 1, so xi is
    folded: c = (epsilon - xi) / 2 rounded down, and the realised loss is <= 2 c + xi <= epsilon,
    plus a tail event below 2^-1000 per candidate. An epsilon not above xi is refused.

    Parameters: ``epsilon`` > 0; ``k`` the output-set size (>= 2, default 20, the paper's code);
    ``space`` ``"euclidean"`` (float vectors) or ``"hamming"`` (binary codes); default: the pack's
    (:func:`edgedp.words.spaces.choose_space`).
    """

    name = "custext"

    def __init__(
        self,
        pack: WordPack,
        *,
        epsilon: float,
        k: int = DEFAULT_K,
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
        self.space_name = choose_space(pack, space, type(self).__name__)
        if self.space_name == "euclidean":
            vectors = pack.require_vectors(type(self).__name__)
            self._vectors: Lazy[VectorDistances] | None = Lazy(lambda: VectorDistances(vectors))
        else:
            self._vectors = None
        self._sets: Lazy[tuple[np.ndarray, np.ndarray]] = Lazy(self._build_sets)

    def parameters(self) -> dict[str, object]:
        return {**super().parameters(), "k": self.k, "space": self.space_name}

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
        if self._vectors is None:
            return hamming_pair_distances(self.pack.codes, first, second).astype(np.float64)
        return self._vectors.get().pairs(first, second)

    def _neighbours(self, ids: np.ndarray, count: int) -> np.ndarray:
        if self._vectors is None:
            _, found = self.pack.index.search(np.asarray(self.pack.codes[ids]), count, exact=True)
        else:
            index = self.pack.euclidean_index(type(self).__name__)
            _, found = index.search(np.asarray(self._vectors.get().vectors[ids]), count)
        return np.asarray(found, dtype=np.int64)

    def _build_sets(self) -> tuple[np.ndarray, np.ndarray]:
        return build_output_sets(
            len(self.pack.vocabulary), self.k, self._neighbours, self._distances
        )

    def output_sets(self) -> tuple[np.ndarray, np.ndarray]:
        """``(set_of, members)``: each word's set index and the sets' ids padded with -1."""
        return self._sets.get()

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
        step = rows_per_block(self.output_sets()[1].shape[1])
        for start in range(0, len(word_ids), step):
            block = word_ids[start : start + step]
            candidates, weights = self.log_weights(block)
            chosen = self.rng.choice_from_log_weights(weights)
            released[start : start + len(block)] = candidates[np.arange(len(block)), chosen]
        return released
