"""The registry of mechanisms by CLI name, imported lazily.

Names map to ``module:Class``; a class is imported when it is looked up, so ``edgedp privatize
--mechanism brr`` never imports the ADePT rewriter (or anything of the sentence path).
``tests/test_runtime_imports.py`` checks that every entry's class has the registered name.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from edgedp.adept.adept import ADePT
    from edgedp.documents.mechanism import DocumentMechanism
    from edgedp.words.mechanism import WordMechanism

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
#: (issue 24's leave-one-domain-out study: above DeepCandidate on held-out domains).
DEFAULT_DOCUMENT_MECHANISM = "subspace-mean"
DEFAULT_DOCUMENT_PACKS = {
    "subspace-mean": "subspace-general",
    "deepcandidate": "sentences-bbc",
    "truncation": "sentences-bbc",
}
