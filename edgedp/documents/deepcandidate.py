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
    """What :class:`DeepCandidate` releases for one document: a public candidate.

    Returned by ``DeepCandidate.release`` for code that needs more than the embedding: which
    public candidate was chosen. Everything in it is the DP release (the choice) or public.

    Parameters
    ----------
    index : int
        The chosen candidate's index into ``pack.candidates`` (>= 0).
    embedding : ndarray
        Its embedding (public data: the mean recoded embedding of a public document).
    sentences : int
        The number of sentences k (>= 0), which the release reveals.

    Notes
    -----
    The guarantee is :class:`DeepCandidate`'s: the document enters only through the choice. A
    full example needs the ``sentences-bbc`` pack, which is not bundled with edgedp: the example
    below builds a release by hand.

    Examples
    --------
    >>> import numpy as np
    >>> import edgedp
    >>> chosen = edgedp.CandidateRelease(index=3, embedding=np.zeros(4), sentences=5)
    >>> chosen.index, chosen.sentences
    (3, 5)
    """

    index: int
    embedding: np.ndarray
    sentences: int


class DeepCandidate(SentenceMechanism):
    """epsilon-SentDP document embeddings by choosing a deep public candidate.

    The document's sentences are embedded with the pack's encoder and recoder (G' = H o G); every
    candidate f_i of the pack (the mean recoded embedding of a *public* document) gets as utility
    its approximate Tukey depth among those k sentence embeddings, over the first ``projections``
    public random directions (:mod:`edgedp.documents.tukey`); one candidate is sampled with
    probability proportional to exp(epsilon * depth / 2). :meth:`embed` releases its embedding,
    :meth:`release` its index too.

    Parameters
    ----------
    pack : ~edgedp.SentencePack
        A sentences pack: ``edgedp.load_pack("sentences-bbc", kind="sentences")`` (a pack
        distribution, not bundled).
    epsilon : float
        The privacy parameter per document: a finite number > 0. Keyword only.
    projections : int or None, default None
        How many of the pack's public projections to use (>= 1); ``None``: the pack's
        recommendation for this epsilon, chosen on public validation documents.
    rng : ~edgedp.RandomSource, int or None, default None
        ``None`` for OS entropy (private) or an int seed (tests only; NOT private, warns).

    Raises
    ------
    ~edgedp.PrivacyParameterError
        If ``epsilon`` is not a finite number > 0.
    ~edgedp.InputError
        If ``pack`` is not a sentences pack or ``projections`` is not a positive integer.
    ~edgedp.errors.DependencyError
        From :meth:`embed`, when the sentences extra (onnxruntime, tokenizers) is not installed.

    Warns
    -----
    ~edgedp.ShortDocumentWarning
        For a document of fewer than 2 sentences: every depth is 0 and the output is a uniformly
        random candidate.

    Notes
    -----
    **Guarantee (epsilon-SentDP).** For two documents with the same number of sentences k that
    differ in any *one* sentence (replaced by any other), every output's probability changes by at
    most a factor e^epsilon: each candidate's depth changes by at most 1 (sensitivity 1, the
    exponential mechanism). a sentences replaced give a * epsilon; every further release of the
    same document spends again. k is **not** protected. On the machine the choice is Gumbel-max with
    full-tail Gumbel draws; its float slack (~1e-12) is taken out of epsilon, and the remaining
    delta is below 2^-1000 per candidate. With m candidates and b of depth >= j, the deep ones are
    chosen with probability >= b e^(epsilon j / 2) / (b e^(epsilon j / 2) + m): small epsilon needs
    long documents. Proof: :doc:`/theory`.

    A full example needs the ``sentences-bbc`` pack, which is not bundled with edgedp (see
    :doc:`/guide/documents`); the example below only shows the refusal of a words pack.

    References
    ----------
    * C. Meehan, K. Mrini, K. Chaudhuri. "Sentence-level Privacy for Document Embeddings",
      ACL 2022 (SentDP and DeepCandidate, Appendix Algorithm 1).

    Examples
    --------
    >>> import edgedp
    >>> edgedp.DeepCandidate(edgedp.load_pack(), epsilon=10.0)
    Traceback (most recent call last):
    ...
    edgedp.errors.InputError: DeepCandidate needs a SentencePack (a sentences pack: ...), got WordPack
    """

    name = "deepcandidate"
    embedding_space = "recoded"

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
        indices = self.choose(sentence_embeddings(self.pack, split, self.embedding_space))
        return [
            CandidateRelease(int(index), np.array(self.pack.candidates[index]), len(sentences))
            for index, sentences in zip(indices, split, strict=True)
        ]
