"""Sentence splitting tiers: the numpy tier's rules against sentencex on BBC News, same run.

Agreement: a boundary is where a sentence ends, counted in letters and digits from the start of
the article (so a quotation mark put on one side or the other of a boundary does not count);
precision is the share of the rules' boundaries that sentencex also draws, recall the share of
sentencex's that the rules draw, over all boundaries and over those within a line (line breaks
always end a sentence on both tiers). Speed: ms per article, median of passes, one process.

``PYTHONPATH=. python -m bench.performance.sentence_tiers [--quick]`` (``bench/results``).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import sentencex

from bench.datasets import bbc_documents
from bench.harness import Report
from edgedp.text.sentence_rules import split_line

Splitter = Callable[[str], list[str]]


def native(text: str) -> list[str]:
    """The native tier's sentences (as :func:`edgedp.text.sentences.split_sentences`)."""
    lines = [line for line in text.splitlines() if line.strip()]
    return [s for line in lines for part in sentencex.segment("en", line) if (s := part.strip())]


def rules(text: str) -> list[str]:
    """The numpy tier's sentences."""
    return [s for line in text.splitlines() if line.strip() for s in split_line(line)]


def ends(sentences: list[str]) -> set[int]:
    """Where each sentence ends, in letters and digits from the start."""
    out, count = set(), 0
    for sentence in sentences:
        count += sum(char.isalnum() for char in sentence)
        out.add(count)
    return out


def ms_per_article(split: Splitter, texts: list[str], passes: int) -> float:
    for text in texts[:100]:
        split(text)  # warm-up
    runs = []
    for _ in range(passes):
        start = time.perf_counter()
        for text in texts:
            split(text)
        runs.append((time.perf_counter() - start) / len(texts) * 1000)
    return statistics.median(runs)


def run(report: Report, *, quick: bool) -> None:
    texts = [text for _, text in bbc_documents()][: 50 if quick else None]
    same = 0
    counts = {scope: [0, 0, 0] for scope in ("all boundaries", "within lines")}  # both, sx, rules
    for text in texts:
        theirs, ours = ends(native(text)), ends(rules(text))
        line_ends = ends([line for line in text.splitlines() if line.strip()])
        same += theirs == ours
        for scope, drop in (("all boundaries", set()), ("within lines", line_ends)):
            counted = counts[scope]
            counted[0] += len((theirs & ours) - drop)
            counted[1] += len(theirs - ours - drop)
            counted[2] += len(ours - theirs - drop)
    for scope, (agree, only_native, only_rules) in counts.items():
        report.add(
            table="agreement",
            scope=scope,
            articles=len(texts),
            same_splits=round(same / len(texts), 4),
            precision=round(agree / (agree + only_rules), 4),
            recall=round(agree / (agree + only_native), 4),
        )
    passes = 1 if quick else 3
    for tier, split in (("native (sentencex)", native), ("numpy (rules)", rules)):
        report.add(table="speed", tier=tier, ms_per_article=ms_per_article(split, texts, passes))
    report.notes.append("the machine may be shared: compare the two tiers within one run")


if __name__ == "__main__":
    result = Report("sentence-tiers", "--quick" in sys.argv)
    run(result, quick=result.quick)
    print(result.write(Path("bench/results")))
