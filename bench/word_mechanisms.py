"""Per-word cost of every word mechanism on the same 100k vocabulary, as ratios to BRR.

All mechanisms run on the ``medium`` pack (the bundled pack's 100k words and 256-bit codes plus
float16 vectors), at epsilons matched by the privacy ratio (average aggregation) to Madlib at
epsilon 10, one thread and two, batches of 1,000 words. Also: the size of each mechanism's part of the
pack, and the memory of the Euclidean search index they build.
"""

from __future__ import annotations

import numpy as np

import edgedp
from bench.harness import Report, median_seconds
from bench.packs import ensure_pack
from edgedp.privacy import equivalent_epsilon

MADLIB_EPSILON = 10.0


def _mechanisms(pack: edgedp.WordPack) -> dict[str, edgedp.WordMechanism]:
    brr_epsilon = equivalent_epsilon(pack, MADLIB_EPSILON, source="madlib", target="brr")
    return {
        "brr": edgedp.BRR(pack, epsilon=brr_epsilon),
        "madlib": edgedp.Madlib(pack, epsilon=MADLIB_EPSILON),
        "mahalanobis (lam 0.2)": edgedp.Mahalanobis(pack, epsilon=MADLIB_EPSILON, lam=0.2),
        "vickrey (t 0.5)": edgedp.Vickrey(pack, epsilon=MADLIB_EPSILON, t=0.5),
        "generalized vickrey (k 3)": edgedp.GeneralizedVickrey(
            pack, epsilon=MADLIB_EPSILON, weights=[1.0, 1.0, 1.0]
        ),
        "vickrey hamming (t 0.5)": edgedp.Vickrey(
            pack, epsilon=brr_epsilon, t=0.5, space="hamming"
        ),
    }


def run(report: Report, *, quick: bool) -> None:
    pack = ensure_pack("medium")
    batch = 100 if quick else 1000
    ids = edgedp.RandomSource.os_entropy().integers(len(pack.vocabulary), batch)
    for mechanism in _mechanisms(pack).values():
        mechanism.privatize_ids(ids[:10])  # build shared indexes outside the timing
    for threads in (1, 2):
        edgedp.set_num_threads(threads)
        timings = {
            name: median_seconds(lambda m=m: m.privatize_ids(ids), repeats=3 if quick else 7)
            / batch
            for name, m in _mechanisms(pack).items()
        }
        for name, seconds in timings.items():
            report.add(
                mechanism=name,
                threads=threads,
                batch=batch,
                us_per_word=seconds * 1e6,
                words_per_s=1 / seconds,
                ratio_to_brr=timings["brr"] / seconds,
            )
    files = pack.manifest.data["files"]
    sizes = {
        "vocabulary (all)": files["vocab.txt"]["bytes"],
        "binary codes (BRR, Vickrey-Hamming)": files["codes.npy"]["bytes"],
        "float16 vectors (Madlib, Vickrey, Mahalanobis)": files["vectors.npy"]["bytes"],
        "covariance (Mahalanobis)": files["covariance.npy"]["bytes"],
        "float32 search index built at first use (Euclidean)": int(
            np.asarray(pack.vectors).size * 4
        ),
    }
    for part, size in sizes.items():
        report.add(mechanism=f"pack part: {part}", size_mib=size / 2**20)
    report.notes.append(
        f"epsilons: Madlib/Mahalanobis/Vickrey {MADLIB_EPSILON}; BRR and Vickrey-Hamming "
        f"{equivalent_epsilon(pack, MADLIB_EPSILON, source='madlib', target='brr'):.4f} per bit "
        "(privacy ratio, average aggregation)"
    )
