"""Which subspace pack embeds a document: chosen per document by its language.

English documents keep ``subspace-general`` (the all-MiniLM-L6-v2 encoder: the English path is
unchanged); documents in another language use ``subspace-multilingual`` (the multilingual
Universal Sentence Encoder, fitted on public text of en, es, de, fr, pt, it, ru and pl). The
language is found by the same identifier that chooses a word pack per message
(:func:`edgedp.languages.identification.identify`); a document it cannot place (``"und"``: no
words, or words of many languages alike) keeps the English pack, as before.

:func:`choose_document_pack` makes the choice; :class:`SubspaceMeanByLanguage` releases each
document with the :class:`~edgedp.SubspaceMean` of its pack and says which pack it was.

**What the choice reveals.** The pack, hence the language found, is a deterministic function of
the *whole* document, computed before any noise, and it is released with the embedding (the
coordinates are in that pack's basis; an embedding record names the pack). It is not covered by
epsilon: replacing one sentence can change the language found and so the pack, and the two
releases then differ in kind. The sentence-level guarantee holds between documents that get the
same pack. To release nothing through the choice, fix it: ``language=`` (or ``--language``) or
one pack (``--pack``) for every document.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from edgedp.documents.mechanism import Document
from edgedp.documents.subspace import SubspaceMean, SubspaceRelease
from edgedp.documents.subspace_pack import SubspacePack
from edgedp.errors import DependencyError, InputError, NotPrivateWarning
from edgedp.packs.loading import DEFAULT_SUBSPACE_PACK
from edgedp.privacy.guarantee import DpEvent, Guarantee
from edgedp.privacy.randomness import RandomSource, resolve_rng
from edgedp.privacy.validation import (
    check_delta,
    check_epsilon,
    check_iterable,
    check_positive_int,
)

#: The subspace pack of documents in a language other than English.
MULTILINGUAL_SUBSPACE_PACK = "subspace-multilingual"
#: The languages the identifier chooses among for documents: those of the word packs.
DOCUMENT_LANGUAGES = ("en", "es", "de", "fr", "pt", "it", "ru", "pl")
#: Languages that keep the English pack: English, and a document the identifier cannot place.
ENGLISH_PACK_LANGUAGES = ("en", "und")
#: Most characters of a document the identifier reads (its own limit applies too).
IDENTIFIED_CHARACTERS = 2000


@dataclass(frozen=True, slots=True)
class DocumentPackChoice:
    """The subspace pack chosen for one document, and why.

    Parameters
    ----------
    pack : str
        The pack's name (``"subspace-general"`` or ``"subspace-multilingual"``, or the one given).
    language : str or None
        The language found or given (ISO 639-1, ``"und"`` if undetermined); ``None`` when the
        pack was given.
    by : str
        ``"identifier"`` (found in the document: released, see the module docstring),
        ``"language"`` (given for every document) or ``"pack"`` (given).

    Examples
    --------
    >>> from edgedp.documents.language_choice import choose_document_pack
    >>> choose_document_pack("Hola.", language="es")
    DocumentPackChoice(pack='subspace-multilingual', language='es', by='language')
    """

    pack: str
    language: str | None
    by: str


def pack_for_language(language: str) -> str:
    """The subspace pack of documents in ``language`` (module docstring).

    Parameters
    ----------
    language : str
        An ISO 639-1 code, or ``"und"``.

    Returns
    -------
    str
        ``"subspace-general"`` for English and ``"und"``, else ``"subspace-multilingual"``.

    Examples
    --------
    >>> pack_for_language("en"), pack_for_language("de")
    ('subspace-general', 'subspace-multilingual')
    """
    if not isinstance(language, str) or not language:
        raise InputError(f"a language is an ISO 639-1 code such as 'de', got {language!r}")
    return (
        DEFAULT_SUBSPACE_PACK if language in ENGLISH_PACK_LANGUAGES else MULTILINGUAL_SUBSPACE_PACK
    )


def identify_language(text: str) -> str:
    """The language of ``text`` as the identifier finds it among :data:`DOCUMENT_LANGUAGES`
    (the first :data:`IDENTIFIED_CHARACTERS` characters are read)."""
    try:
        identification = importlib.import_module("edgedp.languages.identification")
    except ModuleNotFoundError as error:
        if error.name != "edgedp.languages.identification":
            raise
        raise DependencyError(
            "choosing a pack per document needs the language identifier "
            "(edgedp.languages.identification), which this edgedp lacks: give the language "
            "(--language, language=) or the pack (--pack)"
        ) from None
    found = identification.identify(text[:IDENTIFIED_CHARACTERS], languages=DOCUMENT_LANGUAGES)
    return str(found.language)


def choose_document_pack(
    document: Document, *, language: str | None = None, pack: str | None = None
) -> DocumentPackChoice:
    """The subspace pack for ``document``: given, or by its language (given, or found).

    Parameters
    ----------
    document : str or sequence of str
        The document (its sentences are joined with spaces for the identifier).
    language : str or None, default None
        The document's language, which the identifier then does not read; ``None`` finds it.
    pack : str or None, default None
        A pack name that overrides both (every document gets it).

    Returns
    -------
    DocumentPackChoice
        The pack, the language and how it was chosen.

    Raises
    ------
    ~edgedp.InputError
        If both ``language`` and ``pack`` are given, or the document is not a str or a sequence
        of str.

    Notes
    -----
    With neither override, the language found is a function of the whole document and is
    released through the pack (module docstring).

    Examples
    --------
    >>> choose_document_pack("Hello.", pack="subspace-general")
    DocumentPackChoice(pack='subspace-general', language=None, by='pack')
    """
    if language is not None and pack is not None:
        raise InputError("give a language or a pack, not both (the pack decides)")
    if pack is not None:
        return DocumentPackChoice(pack, None, "pack")
    if language is not None:
        return DocumentPackChoice(pack_for_language(language), language, "language")
    text = document if isinstance(document, str) else " ".join(_sentences(document))
    found = identify_language(text)
    return DocumentPackChoice(pack_for_language(found), found, "identifier")


def _sentences(document: object) -> list[str]:
    if isinstance(document, bytes | bytearray) or not isinstance(document, Sequence):
        raise InputError(
            f"a document is a str or a sequence of sentence strings, got {type(document).__name__}"
        )
    if not all(isinstance(sentence, str) for sentence in document):
        raise InputError("a document's sentences must be strings")
    return list(document)


@dataclass(frozen=True, slots=True)
class LanguageRelease:
    """One document's release by :class:`SubspaceMeanByLanguage`: the pack chosen and its
    :class:`~edgedp.SubspaceRelease` (coordinates in that pack's basis).

    Parameters
    ----------
    choice : DocumentPackChoice
        The pack, the language and how it was chosen (released).
    pack_sha256 : str
        The SHA-256 of the pack's manifest, which pins its every byte (the pack's version).
    release : SubspaceRelease
        The release itself.
    """

    choice: DocumentPackChoice
    pack_sha256: str
    release: SubspaceRelease


class SubspaceMeanByLanguage:
    """:class:`~edgedp.SubspaceMean` with the subspace pack chosen per document by its language.

    Each document gets the pack :func:`choose_document_pack` chooses (English: the MiniLM pack
    ``subspace-general``; another language: ``subspace-multilingual``), and the SubspaceMean of
    that pack at the same privacy parameters releases it. Packs are loaded on first use.

    Parameters
    ----------
    epsilon : float
        The privacy parameter per document: a finite number > 0. Keyword only.
    delta : float or None, default None
        ``None``: pure epsilon-SentDP; a number in (0, 1): (epsilon, delta)-SentDP.
    dims : int or None, default None
        The directions d' of every pack (``None``: each pack's choice per document length).
    language : str or None, default None
        Every document's language (the identifier then reads nothing); ``None`` finds each one.
    load : callable or None, default None
        The pack of a name (``SubspacePack.load``; tests pass their own).
    rng : ~edgedp.RandomSource, int or None, default None
        ``None`` for OS entropy (private) or an int seed (tests only; NOT private, warns once).

    Raises
    ------
    ~edgedp.PrivacyParameterError
        If ``epsilon`` or ``delta`` is out of range.
    ~edgedp.InputError
        If ``language`` is not a language code or ``dims`` not a positive integer.

    Notes
    -----
    **Guarantee.** Per document, SubspaceMean's (epsilon, delta)-SentDP between documents that
    get the same pack. Without ``language=``, the pack, hence the language found, is a
    deterministic function of the whole document and is released (it is not protected by
    epsilon); see :mod:`edgedp.documents.language_choice`.

    Examples
    --------
    >>> from edgedp.documents.language_choice import SubspaceMeanByLanguage
    >>> mechanism = SubspaceMeanByLanguage(epsilon=10.0, language="de")
    >>> mechanism.choose("Der Zug fährt um acht.").pack
    'subspace-multilingual'
    """

    name = SubspaceMean.name
    #: The release of each document is SubspaceMean's.
    differentially_private = True

    def __init__(
        self,
        *,
        epsilon: float,
        delta: float | None = None,
        dims: int | None = None,
        language: str | None = None,
        load: Callable[[str], SubspacePack] | None = None,
        rng: RandomSource | int | None = None,
    ) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = None if delta is None else check_delta(delta)
        self.dims = None if dims is None else check_positive_int(dims, "dims")
        if language is not None:
            pack_for_language(language)  # refuses what is not a language code
        self.language = language
        self._load = load if load is not None else SubspacePack.load
        self._rng = resolve_rng(rng)
        self._mechanisms: dict[str, SubspaceMean] = {}

    @property
    def is_private(self) -> bool:
        """False when the output is not DP: a seeded source (as :attr:`edgedp.Mechanism.is_private`)."""
        return self._rng.is_private

    def choose(self, document: Document) -> DocumentPackChoice:
        """The pack of one document (:func:`choose_document_pack` with this ``language``)."""
        return choose_document_pack(document, language=self.language)

    def mechanism(self, pack: str) -> SubspaceMean:
        """The SubspaceMean of the pack named ``pack`` (loaded once)."""
        if pack not in self._mechanisms:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", NotPrivateWarning)  # resolve_rng warned once
                self._mechanisms[pack] = SubspaceMean(
                    self._load(pack),
                    epsilon=self.epsilon,
                    delta=self.delta,
                    dims=self.dims,
                    rng=self._rng,
                )
        return self._mechanisms[pack]

    def guarantee(self) -> Guarantee:
        """SubspaceMean's guarantee, for documents that get the same pack."""
        base = self.mechanism(pack_for_language(self.language or "en")).guarantee()
        return Guarantee(
            protects=base.protects + "; the pack chosen (the language found) is released",
            relation=base.relation + ", and get the same pack",
            unit=base.unit,
            epsilon=base.epsilon,
            delta=base.delta,
        )

    def privacy_cost(self, inputs: Sequence[Document]) -> DpEvent:
        """The event a ledger charges before ``inputs`` are released (one unit per document)."""
        return DpEvent(self.name, self.guarantee(), len(inputs))

    def release_batch(self, documents: Iterable[Document]) -> list[LanguageRelease]:
        """Every document released with the SubspaceMean of its pack, in input order.

        The documents of one pack are released together, in input order (one pass of its
        encoder), so a batch of English documents draws exactly what ``SubspaceMean`` does.
        """
        items = check_iterable(documents, "release_batch", "document")
        choices = [self.choose(document) for document in items]
        released: list[LanguageRelease | None] = [None] * len(items)
        for pack in dict.fromkeys(choice.pack for choice in choices):
            rows = [row for row, choice in enumerate(choices) if choice.pack == pack]
            mechanism = self.mechanism(pack)
            digest = mechanism.pack.manifest.digest
            for row, release in zip(
                rows, mechanism.release_batch([items[row] for row in rows]), strict=True
            ):
                released[row] = LanguageRelease(choices[row], digest, release)
        return [release for release in released if release is not None]
