"""Drive MLDP (``mldp-text``) through its public API, inside its own environment.

Mechanisms (MLDP class names): ``madlib`` = MultivariateCalibrated, ``mahalanobis`` = Mahalanobis
(lambd 0.2), ``vickrey`` = VickreyMechanism (its defaults: k = 2, t = [1, 0]), ``tem`` = TEM.
The vectors are a gensim KeyedVectors built from the pack's vocabulary and float vectors (the
``mldp300`` pack holds MLDP's own GloVe 840B 300d words), passed as ``embedding_matrix``: MLDP then
reads no file of its own. ``assets: "shipped"`` instead lets MLDP load its bundled GloVe text file
(what a user gets from ``MultivariateCalibrated(epsilon)``). One word per ``replace_word`` call.
"""

from __future__ import annotations

from bench.peers.protocol import Stopwatch, config, emit, measure, read_vocabulary


def main() -> None:
    settings = config()
    stopwatch = Stopwatch()
    import mldp_text  # tries an nltk download at import: offline, it prints an error and goes on

    stopwatch.lap("import_s")
    import faiss
    import numpy as np
    from gensim.models import KeyedVectors

    faiss.omp_set_num_threads(settings.get("threads", 1))
    epsilon = settings["epsilon"]
    if settings.get("assets") == "shipped":
        stopwatch.lap("load_s")
        mechanism = mldp_text.MultivariateCalibrated(epsilon=epsilon)
    else:
        vocabulary = read_vocabulary(settings["pack"], settings.get("vocabulary_limit"))
        vectors = np.load(f"{settings['pack']}/vectors.npy")[: len(vocabulary)]
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        keyed = KeyedVectors(vector_size=vectors.shape[1])  # count= would add zero rows
        keyed.add_vectors(vocabulary, vectors)
        stopwatch.lap("load_s")
        common = {"embedding_matrix": keyed, "dim": vectors.shape[1], "vocab": set(vocabulary)}
        build = {
            "madlib": lambda: mldp_text.MultivariateCalibrated(epsilon=epsilon, **common),
            "mahalanobis": lambda: mldp_text.Mahalanobis(
                epsilon=epsilon, lambd=settings.get("lam", 0.2), **common
            ),
            "vickrey": lambda: mldp_text.VickreyMechanism(epsilon=epsilon, **common),
            "tem": lambda: mldp_text.TEM(epsilon=epsilon, **common),
        }
        mechanism = build[settings["mechanism"]]()
    stopwatch.lap("construct_s")
    emit(measure(settings, stopwatch, mechanism.replace_word, version=mldp_text.__version__))


if __name__ == "__main__":
    main()
