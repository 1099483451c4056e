"""Splitting a document into sentences, without downloads, on either tier (:mod:`edgedp.runtime.backend`).

Line breaks always end a sentence (headlines, lists and paragraphs are common in real documents);
within a line, the ``sentences`` tier finds the boundaries:

* ``native``: sentencex (rule-based, MIT, ~300 languages, a compiled extension with no data files
  and no phone wheels; ``pip install ".[sentences]"`` in a checkout). Measured once against pysbd on
  the test cases: both right, sentencex far faster (bench/README.md, "Measurements behind the
  code").
* ``numpy``: :mod:`edgedp.text.sentence_rules`, English rules in pure Python. On the BBC News
  articles nearly all of its boundaries are sentencex's and the other way round, at a few times
  sentencex's time (``python -m bench sentence-tiers``; bench/reports/2026-11-26-backends.md).
  Where they differ, the rules never split before
  a lower-case word (``Kerrang! magazine``), and do split after words sentencex takes for
  abbreviations (``in May.``, ``iron ore.``) and where it pairs quotation marks across sentences.

Privacy: SentDP protects any one sentence *as split*. Splitting reads only the text being
privatized, on the device, and is the same public rule for every user of a tier, so either tier
keeps the guarantee. A release made on one tier and one on the other are not interchangeable in
what a sentence is: a sentence of one may be two of the other.
"""

from __future__ import annotations

from collections.abc import Callable

from edgedp.errors import DependencyError
from edgedp.runtime.backend import backend
from edgedp.text.segmentation import check_text
from edgedp.text.sentence_rules import split_line


def split_sentences(text: str, *, language: str = "en") -> list[str]:
    """The sentences of ``text``, stripped, in order; blank lines produce nothing."""
    text = check_text(text)
    split = _line_splitter(language)
    return [sentence for line in text.splitlines() if line.strip() for sentence in split(line)]


def _line_splitter(language: str) -> Callable[[str], list[str]]:
    """How this process splits one line of ``language`` (its ``sentences`` tier)."""
    if backend("sentences") == "numpy":
        if language != "en":
            raise DependencyError(
                f"splitting {language!r} needs sentencex (the numpy tier's rules read English "
                'only): pip install ".[sentences]" in an edgedp checkout, EDGEDP_BACKEND unset'
            )
        return split_line
    import sentencex

    def segment(line: str) -> list[str]:
        return [part for piece in sentencex.segment(language, line) if (part := piece.strip())]

    return segment
