"""What the document-embedding mechanisms share: documents in, one embedding per document out.

A *document* is either a string, split into sentences by :func:`edgedp.text.sentences.split_sentences`
(line breaks always end a sentence; sentencex finds the boundaries within a line), or a sequence of
strings that are taken as its sentences as they are. The sentence-level guarantees (SentDP) are about
this list of sentences: replacing one *element* of it. If you edit raw text, the edit counts as one
sentence only if the splitter still cuts the text into the same number of sentences; split the
text yourself and pass the list when you need to control the unit.

**Documents too short to say much.** A sentence-level guarantee protects each sentence, so a
document of fewer than :data:`INFORMATIVE_SENTENCES` sentences is protected as a whole and its
release keeps little or nothing of it: DeepCandidate's depths are all 0 and it releases a uniformly
random candidate (nothing); Truncation releases the box centre (no sentence) or one sentence under
noise scaled to the whole box; SubspaceMean the public mean (no sentence) or one sentence's
projection under noise calibrated to replace it (some signal survives at a large epsilon: an
independent evaluation measured 7-22 % of a linear probe's signal above chance at epsilon 10).
That is private and of little use, so releasing such a document emits
:class:`~edgedp.errors.ShortDocumentWarning` (once per batch, with the count) and
:meth:`DocumentMechanism.too_short` says which (``edgedp embed`` flags each record).

Subclasses implement :meth:`DocumentMechanism._release`, which maps the sentence embeddings of each
document (in :attr:`embedding_space`: ``"sentence"`` for the encoder G, ``"recoded"`` for H o G) to one
embedding per document. For the DP mechanisms every sentence is encoded on its own (see
:func:`sentence_embeddings`); the non-private comparisons batch. :class:`DocumentMechanism` works
on any pack with an encoder (sentences packs, subspace packs); :class:`SentenceMechanism` is its
form for sentences packs (DeepCandidate, Truncation, the baselines).
"""

from __future__ import annotations

import contextlib
import itertools
import warnings
from abc import abstractmethod
from collections.abc import Iterable, Sequence
from typing import ClassVar, TypeVar

import numpy as np

from edgedp.documents.pack import DocumentPack, SentencePack
from edgedp.errors import InputError, ShortDocumentWarning
from edgedp.privacy.guarantee import Guarantee
from edgedp.privacy.mechanism import Mechanism
from edgedp.privacy.validation import check_choice, check_iterable, check_positive_int
from edgedp.progress import Progress
from edgedp.text.segmentation import check_text
from edgedp.text.sentences import split_sentences

#: The embedding spaces of sentences: the encoder's (G) or after the recoder (H o G).
EMBEDDING_SPACES = ("sentence", "recoded")
Document = str | Sequence[str]
#: Fewer sentences than this and a sentence-level release keeps little or nothing of the document.
INFORMATIVE_SENTENCES = 2

PackT = TypeVar("PackT", bound=DocumentPack)


def document_sentences(document: Document) -> list[str]:
    """The sentences of a document: split a string, or check a sequence of sentences."""
    if isinstance(document, str):
        return split_sentences(document)
    if isinstance(document, bytes | bytearray) or not isinstance(document, Sequence):
        raise InputError(
            f"a document is a str or a sequence of sentence strings, got {type(document).__name__}"
        )
    return [check_text(sentence) for sentence in document]


def sentence_embeddings(
    pack: DocumentPack,
    documents: Sequence[Sequence[str]],
    embedding_space: str,
    *,
    independent: bool = True,
) -> list[np.ndarray]:
    """Per document, the embeddings (k, d) of its sentences in ``embedding_space``.

    With ``independent=True`` (what the DP mechanisms use) every sentence is encoded and recoded on
    its own, so each embedding depends on its own sentence only (see
    :meth:`edgedp.encoder.sentence_encoder.SentenceEncoder.encode`); ``False`` batches for speed.
    """
    check_choice(embedding_space, "embedding_space", EMBEDDING_SPACES)
    if embedding_space == "recoded" and not isinstance(pack, SentencePack):
        raise InputError(f"the recoded space needs a sentences pack, not pack {pack.name}")
    flat = [sentence for sentences in documents for sentence in sentences]
    embedded = pack.encoder.encode(flat, independent=independent)
    if isinstance(pack, SentencePack) and embedding_space == "recoded":
        embedded = pack.recoder.recode(embedded, independent=independent)
    bounds = np.cumsum([0, *(len(sentences) for sentences in documents)])
    return [embedded[start:end] for start, end in itertools.pairwise(bounds)]


class DocumentMechanism(Mechanism[PackT]):
    """Base class of the mechanisms that embed a whole document (see the module docstring)."""

    #: The embedding space the mechanism reads: ``"sentence"`` (G) or ``"recoded"`` (H o G).
    embedding_space: str
    #: The privacy parameter (set by every private subclass).
    epsilon: float
    #: The delta of an (epsilon, delta) mechanism; None for pure epsilon.
    delta: float | None = None
    #: Whether the release is sentence-level DP, whose output keeps little or nothing of a
    #: document of fewer than INFORMATIVE_SENTENCES sentences (False for the baselines).
    sentence_level: ClassVar[bool] = True

    @property
    def output_dims(self) -> int:
        """Width of the released rows (the encoder's dims unless the mechanism says otherwise)."""
        return self.pack.dims

    def guarantee(self) -> Guarantee:
        """(epsilon, delta)-SentDP per document (delta 0 unless the mechanism has one): any one
        sentence replaced by any other."""
        if not self.differentially_private:
            raise InputError(f"{type(self).__name__} is NOT private: it has no guarantee")
        return Guarantee(
            protects="any one sentence of a document (the number of sentences is not protected)",
            relation="two documents with the same number of sentences that differ in one "
            "sentence, replaced by any other sentence",
            unit="document",
            epsilon=self.epsilon,
            delta=self.delta or 0.0,
        )

    def units(self, inputs: Sequence[Document]) -> int:
        """One unit per document released."""
        return len(inputs)

    @abstractmethod
    def _release(self, embeddings: list[np.ndarray]) -> np.ndarray:
        """One output row (float32, shape (n, d)) per document's sentence embeddings (k_i, d)."""

    def _checked(self, embeddings: Iterable[np.ndarray]) -> list[np.ndarray]:
        """Sentence embeddings as float32 (k_i, d) arrays, validated."""
        arrays = [np.asarray(array, dtype=np.float32) for array in embeddings]
        for array in arrays:
            if array.ndim != 2 or array.shape[1] != self.pack.dims:
                raise InputError(
                    f"sentence embeddings must have shape (k, {self.pack.dims}), got {array.shape}"
                )
            if not np.isfinite(array).all():
                raise InputError("sentence embeddings must be finite")
        return arrays

    def too_short(self, sentences: int) -> bool:
        """True if a document of ``sentences`` sentences gets a release independent of it (or
        nearly): a sentence-level mechanism and fewer than :data:`INFORMATIVE_SENTENCES`."""
        return self.sentence_level and sentences < INFORMATIVE_SENTENCES

    def _split(self, documents: Iterable[Document]) -> list[list[str]]:
        """The sentences of each document; warns (ShortDocumentWarning) about the too short."""
        batch = check_iterable(documents, "embed_batch", "document")
        split = [document_sentences(document) for document in batch]
        short = sum(self.too_short(len(sentences)) for sentences in split)
        if short:
            warnings.warn(
                f"{short} of {len(split)} documents have fewer than {INFORMATIVE_SENTENCES} "
                f"sentences: a sentence-level release protects them whole, so their {self.name} "
                "release keeps little or nothing of them (private; see "
                "DocumentMechanism.too_short)",
                ShortDocumentWarning,
                stacklevel=3,
            )
        return split

    def release_embeddings(self, embeddings: Iterable[np.ndarray]) -> np.ndarray:
        """Outputs (float32, (n, d)) for documents given as sentence embeddings in
        :attr:`embedding_space`."""
        arrays = self._checked(embeddings)
        if not arrays:
            return np.empty((0, self.output_dims), dtype=np.float32)
        return self._release(arrays)

    def embed(self, document: Document) -> np.ndarray:
        """The output embedding (float32, shape (d,)) of one document."""
        row: np.ndarray = self.embed_batch([document])[0]
        return row

    def embed_batch(
        self,
        documents: Iterable[Document],
        *,
        batch_size: int | None = None,
        show_progress: bool = False,
    ) -> np.ndarray:
        """Output embeddings (float32, shape (n, d)), one row per document, same guarantee each.

        ``batch_size``: documents encoded and released at a time (memory grows with it, not with
        the whole input; each document's release is its own either way); ``show_progress``: a
        progress line on a terminal (like sentence-transformers' ``show_progress_bar``).
        """
        items = check_iterable(documents, "embed_batch", "document")
        size = len(items) if batch_size is None else check_positive_int(batch_size, "batch_size")
        rows = [np.empty((0, self.output_dims), dtype=np.float32)]
        progress = (
            Progress(f"{self.name}: documents embedded", total=len(items), unit="documents")
            if show_progress
            else None
        )
        with progress if progress is not None else contextlib.nullcontext():
            for start in range(0, len(items), max(size, 1)):
                chunk = items[start : start + size]
                rows.append(self._embed_documents(chunk))
                if progress is not None:
                    progress.update(len(chunk))
        return np.concatenate(rows).astype(np.float32, copy=False)

    def _embed_documents(self, documents: list[Document]) -> np.ndarray:
        """:meth:`embed_batch` of one batch: encode, then release."""
        split = self._split(documents)
        embeddings = sentence_embeddings(
            self.pack, split, self.embedding_space, independent=self.differentially_private
        )
        return self.release_embeddings(embeddings)


class SentenceMechanism(DocumentMechanism[SentencePack]):
    """Base class of the document mechanisms that read a sentences pack.

    A sentences pack holds the encoder G, the recoder H, the public candidates and the truncation
    box; :class:`~edgedp.DeepCandidate`, :class:`~edgedp.Truncation` and the baselines
    (:class:`~edgedp.NonPrivateMean`, :class:`~edgedp.WordLevelEmbedding`) derive from it. A
    document is a string (split into sentences by :func:`edgedp.text.sentences.split_sentences`)
    or a list of sentences; :meth:`embed` and :meth:`embed_batch` return one float32 embedding per
    document. Subclasses implement ``_release``; use a subclass, not this class.

    Parameters
    ----------
    pack : ~edgedp.SentencePack
        A sentences pack: ``edgedp.load_pack("sentences-bbc", kind="sentences")`` (a pack
        distribution, not bundled).
    rng : ~edgedp.RandomSource, int or None, default None
        ``None`` for OS entropy (private) or an int seed (tests only; NOT private, warns).
        Keyword only; subclasses add their privacy parameters, keyword only too.

    Raises
    ------
    ~edgedp.InputError
        If ``pack`` is not a sentences pack.

    Warns
    -----
    ~edgedp.ShortDocumentWarning
        When a released document has fewer than 2 sentences (once per batch).

    Notes
    -----
    **Guarantee** (the private subclasses): (epsilon, delta)-SentDP per document, delta 0 unless
    the mechanism has one. Two documents with the same number of sentences that differ in any one
    sentence, replaced by any other, are indistinguishable up to e^epsilon; the number of sentences
    is not protected. Every sentence is encoded on its own, so that its embedding depends on it
    alone. A full example needs the ``sentences-bbc`` pack, which is not bundled with edgedp (see
    :doc:`/guide/documents`).

    References
    ----------
    * C. Meehan, K. Mrini, K. Chaudhuri. "Sentence-level Privacy for Document Embeddings",
      ACL 2022 (SentDP).

    Examples
    --------
    >>> import edgedp
    >>> issubclass(edgedp.DeepCandidate, edgedp.SentenceMechanism)
    True
    >>> issubclass(edgedp.NonPrivateMean, edgedp.SentenceMechanism)
    True
    """

    pack_type = SentencePack
    pack_hint = "a sentences pack: edgedp.load_pack('sentences-bbc', kind='sentences')"
