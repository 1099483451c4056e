"""What every peer driver shares (stdlib only: drivers run in the peers' own environments).

A driver is run as ``python -m bench.peers.<name>_driver CONFIG`` with the repository root as the
working directory. CONFIG is a JSON object:

* ``mechanism``: the driver's name for the mechanism (see each driver's MECHANISMS);
* ``epsilon`` (and ``t``, ``lam`` where the mechanism has them);
* ``pack``: a words pack directory whose ``vocab.txt`` and ``vectors.npy`` are the vocabulary and
  vectors to use (``assets: "shipped"`` asks a peer to load its own bundled vectors instead);
* ``words``: the in-vocabulary words to privatize, one call each; ``repeats``: timed passes;
* ``oov``: out-of-vocabulary inputs whose outputs are recorded verbatim;
* ``launched``: the parent's ``time.time()`` just before starting the process.

The driver prints one JSON line: phase times (``import_s``, ``load_s``, ``construct_s``), the time
from launch to the first privatized word (``cold_start_s``), the median per-word time over the
passes (``per_word_s``), the share of outputs equal to their input, the OOV outputs, sample outputs
and the process's own peak RSS (``VmHWM``).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path


def config() -> dict:
    return json.loads(sys.argv[1])


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def read_vocabulary(pack: str, limit: int | None = None) -> list[str]:
    words = Path(pack, "vocab.txt").read_text(encoding="utf-8").splitlines()
    return words[:limit]


class Stopwatch:
    """Phase times since construction."""

    def __init__(self) -> None:
        self.times: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, phase: str) -> None:
        now = time.perf_counter()
        self.times[phase] = now - self._last
        self._last = now


def measure(
    settings: dict, stopwatch: Stopwatch, privatize: Callable[[str], str], **extra: object
) -> dict:
    """Time ``privatize`` on the configured words and probe the OOV inputs."""
    words = settings["words"]
    first = privatize(words[0])
    cold_start = time.time() - settings["launched"]
    for word in words[: max(1, len(words) // 10)]:  # warm-up
        privatize(word)
    passes, outputs = [], []
    for _ in range(settings["repeats"]):
        start = time.perf_counter()
        outputs = [privatize(word) for word in words]
        passes.append((time.perf_counter() - start) / len(words))
    result = {
        **stopwatch.times,
        "cold_start_s": cold_start,
        "per_word_s": statistics.median(passes),
        "words": len(words),
        "repeats": settings["repeats"],
        "unchanged_share": sum(o == w for o, w in zip(outputs, words, strict=True)) / len(words),
        "sample": dict(list(zip(words, outputs, strict=True))[:5]),
        "first_output": first,
        "oov": {word: privatize(word) for word in settings.get("oov", [])},
        **extra,
    }
    return result


def emit(result: dict) -> None:
    """Print the result with this process's peak RSS, as the driver's last line."""
    print(json.dumps({**result, "peak_rss_mb": peak_rss_mb()}), flush=True)
