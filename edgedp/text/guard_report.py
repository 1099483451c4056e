"""What the identifier guard sees in a text, without releasing anything: each slot it protects,
where, and why (``edgedp privatize --dry-run``, in the spirit of Presidio's analyzer).

The findings are the slots :func:`~edgedp.text.segmentation.segment` protects, so a dry run shows
exactly what a release would keep out of the mechanism: identifier spans by kind (``email``,
``phone``, ``date``, ...), names on the public list (``name``) and capitalized words
(``proper-noun``). Nothing here is private: it reads the text and prints parts of it, for its owner
to check the guard before releasing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from edgedp.text.identifiers import check_protect
from edgedp.text.segmentation import segment


@dataclass(frozen=True, slots=True)
class Finding:
    """A protected slot: ``text[start:end]`` and why it is protected."""

    start: int
    end: int
    kind: str
    text: str


def guard_findings(
    text: str,
    protect: Iterable[str] | str | None,
    *,
    sentence_start: bool = True,
    deny: frozenset[str] = frozenset(),
    language: str = "en",
) -> tuple[list[Finding], bool]:
    """The protected slots of ``text`` under ``protect`` (the kinds of
    :mod:`edgedp.text.identifiers`) and the deny-list ``deny``, read with the lexicon of
    ``language``, and whether a text that follows it would start a sentence."""
    segmented = segment(
        text, check_protect(protect), sentence_start=sentence_start, deny=deny, language=language
    )
    findings = []
    for index, kind in sorted(segmented.kinds.items()):
        start, end = segmented.spans[index]
        findings.append(Finding(start, end, kind, text[start:end]))
    return findings, segmented.ends_at_sentence_start


def findings_by_line(
    lines: Iterable[str],
    protect: Iterable[str] | str | None,
    deny: frozenset[str] = frozenset(),
    language: str = "en",
) -> Iterator[list[Finding]]:
    """:func:`guard_findings` of each line, the sentence state carried from line to line as a
    release of the whole text carries it (offsets are within each line)."""
    sentence_start = True
    for line in lines:  # with its line break, which a release reads too (a full stop ends there)
        findings, sentence_start = guard_findings(
            f"{line}\n", protect, sentence_start=sentence_start, deny=deny, language=language
        )
        yield findings
