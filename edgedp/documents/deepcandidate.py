"""DeepCandidate: sentence-level DP document embeddings (Meehan, Mrini and Chaudhuri, ACL 2022)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from edgedp.documents.mechanism import Document, SentenceMechanism, sentence_embeddings
from edgedp.documents.pack import SentencePack
from edgedp.privacy.noise import exponential_mechanism_coefficient, gumbel_max_coefficient
from edgedp.privacy.randomness import RandomSource
from edgedp.privacy.validation import check_epsilon, check_positive_int

#: Sensitivity of the approximate Tukey depth under the replacement of one sentence.
DEPTH_SENSITIVITY = 1


def selection_probabilities(depths: np.ndarray, epsilon: float) -> np.ndarray:
    """Exact Pr[candidate i] = exp(c u_i) / sum_j exp(c u_j), c = epsilon / 2 rounded down.

    ``depths`` are the utilities u (sensitivity 1); computed in log space (the maximum is
    subtracted), so large epsilon and depth never overflow.
    """
    coefficient = exponential_mechanism_coefficient(epsilon, sensitivity=DEPTH_SENSITIVITY)
    scores = coefficient * np.asarray(depths, dtype=np.float64)
    weights = np.exp(scores - scores.max())
    probabilities: np.ndarray = weights / weights.sum()
    return probabilities


@dataclass(frozen=True, slots=True)
class CandidateRelease:
    """What DeepCandidate releases for one document: a public candidate, by index and embedding."""

    index: int
    embedding: np.ndarray
    sentences: int


class DeepCandidate(SentenceMechanism):
    """epsilon-SentDP document embeddings by choosing a deep public candidate.

    The document's sentences are embedded with the pack's encoder and recoder (G' = H o G); every
    candidate f_i of the pack (the mean recoded embedding of a *public* document) gets as utility its
    approximate Tukey depth among those k sentence embeddings, over the first ``projections`` public
    random directions (:mod:`edgedp.documents.tukey`); one candidate is sampled with probability proportional
    to exp(epsilon * depth / 2) (the exponential mechanism in log space, with the coefficient of
    :func:`edgedp.privacy.noise.exponential_mechanism_coefficient`, rounded toward more privacy).

    **Guarantee (epsilon-SentDP).** For two documents with the same number of sentences k that
    differ in any *one* sentence (replaced by any other sentence, however different), the
    probability of every output changes by at most a factor e^epsilon: the depth of each candidate
    changes by at most 1 (sensitivity 1, McSherry and Talwar). Documents differing in a sentences
    get a * epsilon (group privacy); every further release of the same document spends epsilon again.
    On the machine (issue 14): the choice is Gumbel-max with full-tail Gumbel draws, so no candidate
    has probability 0 (the old float cumulative sum realised delta 6.1e-7 at epsilon 30); the float
    slack of Gumbel-max (~1e-12) is taken out of epsilon before sampling, and the remaining delta is
    below 2^-1000 per candidate (:func:`edgedp.privacy.realised.gumbel_max_slack`).

    Each sentence is encoded and recoded by its own onnxruntime call, so that its embedding is a
    function of that sentence alone (batching would let float rounding couple the sentences, and
    the sensitivity-1 argument needs one sentence to move one point only).

    **What is not protected.** The number of sentences k: documents of different lengths are not
    neighbours, and k influences the output distribution (more sentences allow deeper candidates).
    Sentences are the units of :func:`edgedp.text.sentences.split_sentences`, or the list you pass.

    **What is released.** One candidate of the public set: its index into ``pack.candidates`` and
    its embedding (public data, never derived from the document except through the choice). The
    projections are public too (stored in the pack) and do not depend on the document.

    **Utility.** A document needs several sentences for any candidate to be deep: with k < 2 every
    depth is 0 (barring exact ties) and the output is a uniformly random candidate, which carries no
    information about the document (and an empty document gets exactly that). With m candidates and
    b of depth >= j, the deep ones are chosen with probability >= b e^(eps j/2) / (b e^(eps j/2) + m),
    so small epsilon needs long documents and many deep candidates (SentDP Sec. 4.2, Table 1).

    Parameters: ``pack`` a sentences pack; ``epsilon`` > 0; ``projections`` how many of the pack's
    projections to use (default: the pack's recommendation for this epsilon, chosen on public
    validation documents); ``rng`` ``None`` for OS entropy (private) or an int seed (tests only).
    """

    name = "deepcandidate"
    space = "recoded"

    def __init__(
        self,
        pack: SentencePack,
        *,
        epsilon: float,
        projections: int | None = None,
        rng: RandomSource | int | None = None,
    ) -> None:
        super().__init__(pack, rng=rng)
        self.epsilon = check_epsilon(epsilon)
        self.projections = (
            pack.projections_for(self.epsilon)
            if projections is None
            else check_positive_int(projections, "projections")
        )
        self._depth = pack.candidate_depth.first(self.projections)
        self.coefficient = exponential_mechanism_coefficient(
            self.epsilon, sensitivity=DEPTH_SENSITIVITY
        )

    def parameters(self) -> dict[str, object]:
        return {"epsilon": self.epsilon, "projections": self.projections}

    def depths(self, embeddings: np.ndarray) -> np.ndarray:
        """The utility of every candidate: its approximate Tukey depth among recoded sentences."""
        return self._depth.depths(self._checked([embeddings])[0])

    def probabilities(self, embeddings: np.ndarray) -> np.ndarray:
        """The exact output distribution (float64, one entry per candidate) for recoded sentences."""
        return selection_probabilities(self.depths(embeddings), self.epsilon)

    def choose(self, embeddings: Iterable[np.ndarray]) -> np.ndarray:
        """The DP choice: one candidate index per document given as recoded sentence embeddings."""
        arrays = self._checked(embeddings)
        if not arrays:
            return np.empty(0, dtype=np.int64)
        scores = np.stack([self._depth.depths(array) for array in arrays]).astype(np.float64)
        # Gumbel-max over floats realises each probability within e^(+-2 eta) of the exact law of
        # its log weights: the slack xi (edgedp.privacy.noise.gumbel_max_coefficient) is folded into the
        # coefficient, so the realised loss stays <= epsilon (xi ~1e-12; delta below 2^-1000).
        # Its bound B on the log weights is public: a depth is at most the number of sentences k
        # (not protected), so B = c * max k (not the batch's observed depths, which are private).
        largest = max(len(array) for array in arrays)
        calibration = gumbel_max_coefficient(
            self.epsilon,
            DEPTH_SENSITIVITY,
            log_weight_bound=self.coefficient * max(largest, 1),
        )
        return self.rng.choice_from_log_weights(calibration.coefficient * scores).astype(np.int64)

    def _release(self, embeddings: list[np.ndarray]) -> np.ndarray:
        return np.asarray(self.pack.candidates[self.choose(embeddings)], dtype=np.float32)

    def release(self, document: Document) -> CandidateRelease:
        """The released candidate of one document: its index, its embedding, and k."""
        return self.release_batch([document])[0]

    def release_batch(self, documents: Iterable[Document]) -> list[CandidateRelease]:
        """:meth:`release` for many documents, encoded in one pass (same guarantee for each)."""
        split = self._split(documents)
        indices = self.choose(sentence_embeddings(self.pack, split, self.space))
        return [
            CandidateRelease(int(index), np.array(self.pack.candidates[index]), len(sentences))
            for index, sentences in zip(indices, split, strict=True)
        ]
