"""The comparison baselines of SentDP: the NOT private mean embedding, and word-level DP then embed.

* :class:`NonPrivateMean`: the plain mean sentence embedding of a document (no noise, no guarantee),
  to measure what privacy costs.
* :class:`WordLevelEmbedding`: the text is rewritten word by word by a word mechanism, then embedded
  (SentDP's "Word Metric-DP" baseline): only the word mechanism's word-level guarantee.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence

import numpy as np

from edgedp.documents.mechanism import (
    EMBEDDING_SPACES,
    Document,
    SentenceMechanism,
    document_sentences,
    sentence_embeddings,
)
from edgedp.documents.pack import SentencePack
from edgedp.errors import InputError, NotPrivateWarning
from edgedp.privacy.guarantee import Guarantee
from edgedp.privacy.validation import check_choice, check_iterable, renamed_keyword
from edgedp.text.sentences import split_sentences
from edgedp.words.mechanism import WordMechanism


def mean_rows(embeddings: list[np.ndarray], dims: int) -> np.ndarray:
    """The mean of each (k_i, dims) array as float32 rows; zeros for an empty array."""
    out = np.zeros((len(embeddings), dims), dtype=np.float32)
    for row, array in enumerate(embeddings):
        if array.shape[0]:
            out[row] = array.mean(axis=0, dtype=np.float64)
    return out


class NonPrivateMean(SentenceMechanism):
    """NOT PRIVATE: the mean of a document's sentence embeddings, with no noise and no guarantee.

    ``embedding_space="sentence"`` gives the general-purpose document embedding g(x) of SentDP (the
    mean of the encoder's sentence embeddings), ``embedding_space="recoded"`` the mean after the
    recoder H, which is what :class:`~edgedp.DeepCandidate` approximates privately. It exists to
    measure what privacy costs; never release its output. An empty document gives the zero vector.

    Parameters
    ----------
    pack : ~edgedp.SentencePack
        A sentences pack: ``edgedp.load_pack("sentences-bbc", kind="sentences")`` (a pack
        distribution, not bundled).
    embedding_space : {"sentence", "recoded"} or None, default None
        The embedding space averaged; ``None`` is ``"sentence"``. Keyword only.
    space : {"sentence", "recoded"} or None, default None
        The deprecated name of ``embedding_space``: it warns :class:`DeprecationWarning` and will
        be removed in the next release.

    Raises
    ------
    ~edgedp.InputError
        If ``pack`` is not a sentences pack, ``embedding_space`` is unknown or given with
        ``space``; from :meth:`guarantee`, always (it has none).

    Warns
    -----
    ~edgedp.NotPrivateWarning
        At construction: the output is the exact mean.

    Notes
    -----
    **No guarantee.** The output is a deterministic function of every sentence; it cannot be
    charged to a :class:`~edgedp.PrivacyLedger`. A full example needs the ``sentences-bbc`` pack,
    which is not bundled with edgedp (see :doc:`/guide/documents`); the example below only shows
    the refusal of a words pack.

    References
    ----------
    * C. Meehan, K. Mrini, K. Chaudhuri. "Sentence-level Privacy for Document Embeddings",
      ACL 2022 (the non-private embedding g(x)).

    Examples
    --------
    >>> import edgedp
    >>> edgedp.NonPrivateMean(edgedp.load_pack())
    Traceback (most recent call last):
    ...
    edgedp.errors.InputError: NonPrivateMean needs a SentencePack (a sentences pack: ...), got WordPack
    """

    name = "mean"
    differentially_private = False
    sentence_level = False

    def __init__(
        self, pack: SentencePack, *, embedding_space: str | None = None, space: str | None = None
    ) -> None:
        super().__init__(pack, rng=None)
        chosen = renamed_keyword(embedding_space, space, "embedding_space", "space")
        self.embedding_space = check_choice(
            "sentence" if chosen is None else chosen, "embedding_space", EMBEDDING_SPACES
        )
        warnings.warn(
            "NonPrivateMean releases the exact mean embedding: NOT differentially private",
            NotPrivateWarning,
            stacklevel=2,
        )

    def parameters(self) -> dict[str, object]:
        return {"embedding_space": self.embedding_space}

    def _release(self, embeddings: list[np.ndarray]) -> np.ndarray:
        return mean_rows(embeddings, self.pack.dims)


class WordLevelEmbedding(SentenceMechanism):
    """The mean sentence embedding of a document rewritten word by word by a word mechanism.

    The text is privatized by ``word_mechanism`` (e.g. :class:`~edgedp.BRR`), *then* split into
    sentences and embedded with the pack's encoder G; the output is the mean of those sentence
    embeddings (SentDP's "Word Metric-DP" baseline). A document given as a list of sentences is
    privatized sentence by sentence.

    Parameters
    ----------
    pack : ~edgedp.SentencePack
        A sentences pack: ``edgedp.load_pack("sentences-bbc", kind="sentences")`` (a pack
        distribution, not bundled).
    word_mechanism : ~edgedp.WordMechanism
        The word mechanism that privatizes the text, with its epsilon and options; its ``rng`` is
        shared.

    Raises
    ------
    ~edgedp.InputError
        If ``word_mechanism`` is not a word mechanism, or ``pack`` is not a sentences pack.
    ~edgedp.errors.DependencyError
        From :meth:`embed`, when the sentences extra (onnxruntime, tokenizers) is not installed.

    Notes
    -----
    **Guarantee.** Exactly the word mechanism's: word-level metric DP (e.g. epsilon * d_H per word
    for BRR), composed over the words; splitting and embedding are post-processing of the
    privatized text. This is *much weaker* than SentDP at the same epsilon: a sentence is protected
    only in proportion to how close its words are to their replacements, and the layout (sentence
    and word counts, punctuation) is released. Compare mechanisms by their guarantees, not by the
    number epsilon. A full example needs the ``sentences-bbc`` pack, which is not bundled with
    edgedp (see :doc:`/guide/documents`); the example below only shows the refusal of a words pack.

    References
    ----------
    * C. Meehan, K. Mrini, K. Chaudhuri. "Sentence-level Privacy for Document Embeddings",
      ACL 2022 (the word-level baseline).
    * O. Feyisetan, B. Balle, T. Drake, T. Diethe. "Privacy- and Utility-Preserving Textual
      Analysis via Calibrated Multivariate Perturbations", WSDM 2020.

    Examples
    --------
    >>> import edgedp
    >>> pack = edgedp.load_pack()
    >>> edgedp.WordLevelEmbedding(pack, edgedp.BRR(pack, epsilon=0.6))
    Traceback (most recent call last):
    ...
    edgedp.errors.InputError: WordLevelEmbedding needs a SentencePack (...), got WordPack
    """

    name = "word-level"
    embedding_space = "sentence"
    sentence_level = False  # word-level DP: a short document is privatized like any text

    def __init__(self, pack: SentencePack, word_mechanism: WordMechanism) -> None:
        if not isinstance(word_mechanism, WordMechanism):
            raise InputError(
                f"word_mechanism must be a word-level mechanism such as edgedp.BRR, "
                f"got {type(word_mechanism).__name__}"
            )
        super().__init__(pack, rng=word_mechanism.rng)
        self.word_mechanism = word_mechanism
        self.epsilon = word_mechanism.epsilon

    def __repr__(self) -> str:
        return f"WordLevelEmbedding(pack={self.pack.name!r}, {self.word_mechanism!r})"

    def guarantee(self) -> Guarantee:
        """The word mechanism's guarantee: word-level metric DP, per word."""
        return self.word_mechanism.guarantee()

    def units(self, inputs: Sequence[Document]) -> int:
        """The word mechanism's units of the texts it privatizes: a document given as text, or
        each sentence of a list, each on its own (as :meth:`privatized_sentences_batch` does:
        joined, a sentence could start mid-sentence and protect, so count, different slots)."""
        return self.word_mechanism.units(
            [
                text
                for document in inputs
                for text in (
                    [document] if isinstance(document, str) else document_sentences(document)
                )
            ]
        )

    def privatized_sentences(self, document: Document) -> list[str]:
        """The privatized sentences of one document (the word mechanism's release)."""
        return self.privatized_sentences_batch([document])[0]

    def privatized_sentences_batch(self, documents: Iterable[Document]) -> list[list[str]]:
        """Privatized sentences of many documents (one vectorized word-mechanism pass)."""
        texts = [
            [document] if isinstance(document, str) else document_sentences(document)
            for document in check_iterable(documents, "privatized_sentences_batch", "document")
        ]
        privatized = iter(
            self.word_mechanism.privatize_batch([t for group in texts for t in group])
        )
        return [
            [sentence for _ in group for sentence in split_sentences(next(privatized))]
            for group in texts
        ]

    def _release(self, embeddings: list[np.ndarray]) -> np.ndarray:
        return mean_rows(embeddings, self.pack.dims)

    def _embed_documents(self, documents: list[Document]) -> np.ndarray:
        """Mean sentence embeddings of the privatized documents (float32, (n, d))."""
        privatized = self.privatized_sentences_batch(documents)
        # Post-processing of the word mechanism's output: batching is fine here.
        embeddings = sentence_embeddings(
            self.pack, privatized, self.embedding_space, independent=False
        )
        return self.release_embeddings(embeddings)
