"""Privatizing a large batch of texts on several processes.

Each chunk of texts is privatized in a worker process by a mechanism rebuilt from the same pack and
parameters, with its own random source: OS entropy in every worker (no state to share), or, for a
seeded mechanism, a distinct child seed per chunk (``SeedSequence.spawn``), so results are
reproducible and independent of which worker ran which chunk. Outputs come back in input order.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from edgedp.privacy.randomness import spawned_source
from edgedp.privacy.validation import check_positive_int
from edgedp.runtime.native import set_num_threads
from edgedp.words.mechanism import WordMechanism
from edgedp.words.pack import WordPack

_PACKS: dict[str, WordPack] = {}  # per worker process: each pack is loaded (and verified) once

Task = tuple[type[WordMechanism], str, dict[str, Any], np.random.SeedSequence | None, list[str]]


def _privatize_chunk(task: Task) -> list[str]:
    mechanism_class, pack_path, parameters, seed, texts = task
    if pack_path not in _PACKS:
        set_num_threads(1)  # the processes are the parallelism: FAISS would start one per core
        _PACKS[pack_path] = WordPack.load(Path(pack_path))
    rng = spawned_source(seed)
    return mechanism_class(_PACKS[pack_path], **parameters, rng=rng).privatize_batch(texts)


def privatize_parallel(
    mechanism: WordMechanism, texts: Sequence[str], *, processes: int = 2, chunk_size: int = 1000
) -> list[str]:
    """``mechanism.privatize_batch(texts)`` spread over ``processes`` worker processes.

    The guarantee per text is the mechanism's; workers never share a random stream.
    """
    processes = check_positive_int(processes, "processes")
    chunk_size = check_positive_int(chunk_size, "chunk_size")
    chunks = [list(texts[start : start + chunk_size]) for start in range(0, len(texts), chunk_size)]
    seeds = mechanism.rng.spawn_seeds(len(chunks))
    tasks = [
        (type(mechanism), str(mechanism.pack.path), mechanism.parameters(), seed, chunk)
        for seed, chunk in zip(seeds, chunks, strict=True)
    ]
    context = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(max_workers=processes, mp_context=context) as pool:
        results = list(pool.map(_privatize_chunk, tasks))
    return [text for chunk in results for text in chunk]
