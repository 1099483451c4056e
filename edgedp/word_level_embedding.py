"""Word-level metric-DP document embeddings: privatize every word, then embed (SentDP baseline)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from edgedp.errors import InputError
from edgedp.mean_embedding import mean_rows
from edgedp.sentence_mechanism import (
    Document,
    SentenceMechanism,
    document_sentences,
    sentence_embeddings,
)
from edgedp.sentence_pack import SentencePack
from edgedp.sentences import split_sentences
from edgedp.word_mechanism import WordMechanism


class WordLevelEmbedding(SentenceMechanism):
    """The mean sentence embedding of a document rewritten word by word by a word mechanism.

    The text is privatized by ``word_mechanism`` (e.g. :class:`edgedp.BRR`), *then* split into
    sentences and embedded with the pack's encoder G; the output is the mean of those sentence
    embeddings (SentDP's "Word Metric-DP" baseline, after Feyisetan et al. 2019).

    **Guarantee.** Exactly the word mechanism's: word-level metric DP (e.g. epsilon * d_Hamming per
    word for BRR), composed over the words; splitting and embedding are post-processing of the
    privatized text. This is *much weaker* than SentDP at the same epsilon: a sentence is protected
    only in proportion to how close its words are to the words replacing them, and the layout
    (sentence and word counts, punctuation) is released. Compare mechanisms by their guarantees, not
    by the number epsilon.

    A document given as a list of sentences is privatized sentence by sentence.
    """

    name = "word-level"
    space = "sentence"

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

    def privacy_cost(self, documents: Sequence[Document]) -> tuple[float, float]:
        """The word mechanism's cost of every word of the documents (see edgedp.ledger)."""
        texts = [
            document if isinstance(document, str) else " ".join(document_sentences(document))
            for document in documents
        ]
        return self.word_mechanism.privacy_cost(texts)

    def privatize(self, document: Document) -> list[str]:
        """The privatized sentences of one document (the word mechanism's release)."""
        return self.privatize_batch([document])[0]

    def privatize_batch(self, documents: Iterable[Document]) -> list[list[str]]:
        """Privatized sentences of many documents (one vectorized word-mechanism pass)."""
        if isinstance(documents, str | bytes):
            raise InputError("a batch is an iterable of documents, not a single document")
        texts = [
            [document] if isinstance(document, str) else document_sentences(document)
            for document in documents
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

    def embed_batch(self, documents: Iterable[Document]) -> np.ndarray:
        """Mean sentence embeddings of the privatized documents (float32, (n, d))."""
        privatized = self.privatize_batch(documents)
        # Post-processing of the word mechanism's output: batching is fine here.
        embeddings = sentence_embeddings(self.pack, privatized, self.space, independent=False)
        return self.release_embeddings(embeddings)
