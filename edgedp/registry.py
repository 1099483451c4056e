"""The registries of mechanisms by CLI name and of pack types by kind, imported lazily.

Names map to ``module:Class``; a class is imported when it is looked up, so ``edgedp privatize
--mechanism brr`` never imports the ADePT rewriter (or anything of the sentence path), and
:func:`load_pack` of a words pack never loads onnxruntime. ``tests/test_runtime_imports.py``
checks that every entry's class has the registered name.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar

from edgedp.packs.loading import LoadablePack, PackRef, read_pack_manifest

if TYPE_CHECKING:
    from edgedp.adept.adept import ADePT
    from edgedp.adept.pack import AutoencoderPack
    from edgedp.documents.mechanism import DocumentMechanism
    from edgedp.documents.pack import SentencePack
    from edgedp.documents.subspace_pack import SubspacePack
    from edgedp.encoder.pack import EncoderPack
    from edgedp.words.language_model import LanguageModelPack
    from edgedp.words.mechanism import WordMechanism
    from edgedp.words.pack import WordPack

#: Any loaded pack.
AnyPack: TypeAlias = (
    "WordPack | SentencePack | SubspacePack | AutoencoderPack | LanguageModelPack | EncoderPack"
)

T = TypeVar("T")


class LazyRegistry(Mapping[str, "type[T]"], Generic[T]):
    """A read-only name -> class mapping whose classes are imported on first lookup."""

    def __init__(self, entries: Mapping[str, str]) -> None:
        self._entries = dict(entries)

    def __getitem__(self, name: str) -> type[T]:
        module, _, attribute = self._entries[name].partition(":")
        cls: Any = getattr(importlib.import_module(module), attribute)
        return cls  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


WORD_MECHANISMS: LazyRegistry[WordMechanism] = LazyRegistry(
    {
        "brr": "edgedp.words.brr:BRR",
        "madlib": "edgedp.words.madlib:Madlib",
        "mahalanobis": "edgedp.words.mahalanobis:Mahalanobis",
        "vickrey": "edgedp.words.vickrey:Vickrey",
        "generalized-vickrey": "edgedp.words.vickrey:GeneralizedVickrey",
        "tem": "edgedp.words.tem:TEM",
        "santext": "edgedp.words.santext:SanText",
        "santext-plus": "edgedp.words.santext:SanTextPlus",
        "custext": "edgedp.words.custext:CusText",
    }
)
#: Mechanisms that rewrite whole sentences (``edgedp privatize`` runs them line by line).
SENTENCE_REWRITERS: LazyRegistry[ADePT] = LazyRegistry({"adept": "edgedp.adept.adept:ADePT"})
#: The DP document-embedding mechanisms (``edgedp embed``, corpus jobs' ``embed``), and the pack
#: each uses by default.
DOCUMENT_MECHANISMS: LazyRegistry[DocumentMechanism[Any]] = LazyRegistry(
    {
        "subspace-mean": "edgedp.documents.subspace:SubspaceMean",
        "deepcandidate": "edgedp.documents.deepcandidate:DeepCandidate",
        "truncation": "edgedp.documents.truncation:Truncation",
    }
)
#: The document mechanism of ``edgedp embed`` and corpus jobs' ``embed`` when none is named
#: (the leave-one-domain-out study, bench/reports/2026-11-24-domains-subspace-mean.md: above
#: DeepCandidate on held-out domains).
DEFAULT_DOCUMENT_MECHANISM = "subspace-mean"
DEFAULT_DOCUMENT_PACKS = {
    "subspace-mean": "subspace-general",
    "deepcandidate": "sentences-bbc",
    "truncation": "sentences-bbc",
}

#: Pack kind -> its pack type, which builds the pack from a verified manifest (``from_manifest``,
#: the same path as the type's own ``load``).
PACK_TYPES: LazyRegistry[LoadablePack] = LazyRegistry(
    {
        "words": "edgedp.words.pack:WordPack",
        "sentences": "edgedp.documents.pack:SentencePack",
        "subspace": "edgedp.documents.subspace_pack:SubspacePack",
        "autoencoder": "edgedp.adept.pack:AutoencoderPack",
        "lm": "edgedp.words.language_model:LanguageModelPack",
        "encoder": "edgedp.encoder.pack:EncoderPack",
    }
)


def load_pack(
    path: PackRef | None = None,
    *,
    kind: str | None = None,
    verify: bool = True,
    expected_digest: str | None = None,
) -> AnyPack:
    """Load an asset pack of any kind, verifying it first.

    A pack is a directory of public assets (a vocabulary and its codes or vectors, a sentence
    encoder, a language model, ...) with a versioned manifest that records the SHA-256 of every
    file. Loading checks the manifest, the files and, for bundled and pinned packs, the manifest's
    own digest; big arrays are memory-mapped. No pickle is ever read. For a typed result, each
    pack type loads itself: ``WordPack.load()``, ``SentencePack.load("sentences-bbc")``, ...

    Parameters
    ----------
    path : str, PathLike or None, default None
        A pack directory, the name of a bundled or installed pack (``"words-small"``,
        ``"lm-general"``, ``"sentences-bbc"``, ...), or ``None`` for the default words pack,
        ``words-small``. A bare name is looked up in the bundled packs, the installed pack
        distributions and ``EDGEDP_PACKS`` before the current directory.
    kind : {"words", "sentences", "subspace", "autoencoder", "lm", "encoder"} or None, default None
        Requires a pack of this kind; ``None`` accepts any kind. Keyword only.
    verify : bool, optional
        Check every file's SHA-256 (default ``True``); ``False`` checks sizes only and is meant for packs on
        storage you control.
    expected_digest : str or None, default None
        Pins the SHA-256 of the pack's manifest (and so of every file); bundled packs are always
        pinned, whatever this says.

    Returns
    -------
    WordPack, SentencePack, SubspacePack, AutoencoderPack, LanguageModelPack or EncoderPack
        The loaded pack, frozen, of the manifest's kind.

    Raises
    ------
    ~edgedp.AssetError
        On any problem: no such pack, a missing or modified file, a manifest digest that is not
        the pinned or expected one, a pack of another kind than ``kind``, a newer format.

    See Also
    --------
    list_packs : the packs this installation can load, and where they come from.

    Notes
    -----
    A pack holds public data only (vocabularies built from public corpora, never from the text to
    privatize), so loading one costs no privacy; verification is what makes the mechanisms'
    guarantees hold for the assets actually used (a tampered vocabulary or code table is refused).

    Examples
    --------
    >>> import edgedp
    >>> pack = edgedp.load_pack()
    >>> pack.name, pack.bits, len(pack.vocabulary)
    ('words-small', 256, 100000)
    >>> edgedp.load_pack("lm-general", kind="lm").name
    'lm-general'
    >>> edgedp.load_pack("lm-general", kind="words")
    Traceback (most recent call last):
    ...
    edgedp.errors.AssetError: pack lm-general (...) is a lm pack; this needs a words pack
    """
    manifest = read_pack_manifest(path, kind=kind, verify=verify, expected_digest=expected_digest)
    return PACK_TYPES[manifest.kind].from_manifest(manifest)  # type: ignore[return-value]
