"""Drive edgedp the way the peer drivers drive their libraries: one word per call, same protocol.

Mechanisms: ``brr``, ``madlib``, ``mahalanobis`` (lam), ``vickrey`` (t, Euclidean),
``vickrey-hamming`` (t), ``tem`` and ``tem-hamming`` (beta 0.001), ``santext``, ``custext`` (k).
``privatize(word)`` is the string API (tokenizing, vocabulary lookup, OOV policy, reassembly), the
counterpart of the peers' ``replace_word``; the result also carries the per-word time of one
vectorized ``privatize_ids`` call over the same words (edgedp's batch path).
"""

from __future__ import annotations

import time
import warnings

from bench.peers.protocol import Stopwatch, config, emit, measure


def main() -> None:
    settings = config()
    stopwatch = Stopwatch()
    import edgedp

    stopwatch.lap("import_s")
    edgedp.set_num_threads(settings.get("threads", 1))
    pack = edgedp.load_pack(settings["pack"])
    stopwatch.lap("load_s")
    epsilon = settings["epsilon"]
    build = {
        "brr": lambda: edgedp.BRR(pack, epsilon=epsilon),
        "madlib": lambda: edgedp.Madlib(pack, epsilon=epsilon),
        "mahalanobis": lambda: edgedp.Mahalanobis(
            pack, epsilon=epsilon, lam=settings.get("lam", 0.2)
        ),
        "vickrey": lambda: edgedp.Vickrey(pack, epsilon=epsilon, t=settings.get("t", 0.5)),
        "vickrey-hamming": lambda: edgedp.Vickrey(
            pack, epsilon=epsilon, t=settings.get("t", 0.5), geometry="hamming"
        ),
        "tem": lambda: edgedp.TEM(pack, epsilon=epsilon),
        "tem-hamming": lambda: edgedp.TEM(pack, epsilon=epsilon, geometry="hamming"),
        "santext": lambda: edgedp.SanText(pack, epsilon=epsilon),
        "custext": lambda: edgedp.CusText(pack, epsilon=epsilon, k=settings.get("k", 20)),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        mechanism = build[settings["mechanism"]]()
    stopwatch.lap("construct_s")
    result = measure(settings, stopwatch, mechanism.privatize, version=edgedp.__version__)
    ids = pack.vocabulary.ids(settings["words"])
    batch = []
    for _ in range(settings["repeats"]):
        start = time.perf_counter()
        mechanism.privatize_ids(ids)
        batch.append((time.perf_counter() - start) / len(ids))
    emit({**result, "batch_per_word_s": sorted(batch)[len(batch) // 2]})


if __name__ == "__main__":
    main()
