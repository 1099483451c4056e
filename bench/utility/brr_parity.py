"""BRR against Madlib under the same guarantee (issue 28): where the utility gap comes from.

The issue measured, on held-out corpora, that BRR at the per-bit epsilon ``edgedp calibrate`` gives
for Madlib 10 (equal *average* privacy-loss bound, BRR paper Sec. 5) changes 1.7 times as many words
as Madlib and loses 0.03-0.18 macro-F1. This suite separates the causes on the public tasks we have:

* **Code variants**: the bundled codes (Tissier et al. autoencoder, 256 bits of GloVe 6B 50d, 100k
  words; Madlib 5, 10 and 20) against random-hyperplane codes of the same vectors at 128 (5, 10,
  20) and 1,024 bits, and random-hyperplane codes of GloVe 840B 300d (MLDP's 33,825 words) at 256
  bits (Madlib 10 only: each row costs minutes); and two tries at the heavy-noise regime (Madlib 5,
  where BRR loses): hyperplanes in the 10 leading principal directions (:func:`subspace_codes`) and
  codes trained for BRR (``flip-trained``, :mod:`edgedp_export.flip_trained`) at 128 and 256 bits.
  Each with Madlib on the same vectors beside it (float16 for 50d as the ``medium`` pack, float32 for 300d).
  Per variant: 10-NN overlap of Hamming with float cosine neighbours (the pack report's measure), the
  privacy ratio over all pairs (``avg``) and over each word's 10 nearest neighbours in its own metric,
  Zipf-weighted (``near``; 2,000 words drawn with probability 1 / rank).
* **BBC News topics** (the split of every benchmark): TF-IDF (sublinear) over vocabulary words and
  logistic regression trained on the *clean* training documents, tested on privatized test
  documents, macro-F1 (the issue's protocol; out-of-vocabulary tokens are left out for every
  mechanism alike). Per Madlib epsilon in (5, 10, 20): Madlib's share of test words changed and F1;
  BRR at the average-bound epsilon; BRR at the epsilon that changes the same share of words as
  Madlib (bisection on 15,000 test tokens, then the whole test set), which is where the two hide the
  same share of the text.
* **Empirical privacy** at every point (``edgedp.evaluation.explain.measure``: 200 public words x
  20 releases): the share of a text's words kept (Zipf-weighted N_w), mean N_w and S_w, and the
  Bayesian adversary's inference error E_M (Zipf and uniform prior), for Madlib, BRR at both
  matched points and BRR at the epsilon that ``edgedp calibrate --match kept`` finds.
* **Opinion lexicon** (Hu & Liu, the ``opinion-lexicon`` pack: its vocabulary is the lexicon, 50d
  vectors, the bundled recipe's 256-bit autoencoder codes; and random-hyperplane codes at 128 bits):
  macro-F1 of the output word's sentiment as a prediction of the input's, 20 releases per word, at
  the same three kinds of points (the matched one equalizes the share of lexicon words changed).

Mechanisms run with seeded random sources: reproducible, NOT private (a benchmark). Finished rows
are cached in :data:`CACHE` (a rerun measures only what is missing). The Euclidean
statistics of the 50d variants are the bundled pack's (exact, same vocabulary and vectors); those of
the 300d variants are sampled (2,000,000 pairs).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property, partial
from pathlib import Path

import numpy as np

import edgedp
from bench.datasets import bbc_splits, opinion_lexicon
from bench.harness import Report, cached, figure, progress
from bench.packs import PACKS_DIR, ensure_pack
from bench.utility.product_reviews import seeded
from edgedp.evaluation.calibration import privacy_ratio
from edgedp.evaluation.explain import measure
from edgedp.evaluation.keep_rate import public_word_set
from edgedp.evaluation.matching import matched_epsilon
from edgedp.privacy.randomness import public_statistics_source
from edgedp.text.segmentation import segment

#: Finished rows of the slow tables, one JSON file per row (delete the folder to measure afresh).
CACHE = Path.home() / ".cache" / "edgedp-bench" / "brr-parity"
MADLIB_EPSILONS, QUICK_EPSILONS = (5.0, 10.0, 20.0), (10.0,)
BISECTION_TOKENS, BISECTION_STEPS = 15_000, 7
NEAR_WORDS, NEAR_K = 2_000, 10
OVERLAP_WORDS = 500
LEXICON_SAMPLES = 20
PRIVACY_WORDS, PRIVACY_SAMPLES = 200, 20
#: (column, statistic of ``measure``): Zipf-weighted share kept, mean N_w, mean S_w, E_M.
PRIVACY_COLUMNS = (
    ("kept", "kept"),
    ("mean_n_w", "kept_uniform"),
    ("s_w", "distinct"),
    ("e_m_zipf", "error_zipf"),
    ("e_m_uniform", "error_uniform"),
)
VARIANTS = "code variants: calibrated epsilon, words changed and BBC macro-F1"
PRIVACY = "empirical privacy at the matched points (200 public words x 20 releases)"
LEXICON = "opinion lexicon: sentiment macro-F1 of the released word"


@dataclass(frozen=True)
class Variant:
    label: str
    source: str  # "glove50" or "glove300"
    method: str  # "bundled", "principal-subspace" or a method of edgedp_export.binarize
    bits: int
    epsilons: tuple[float, ...] = (10.0,)  # Madlib epsilons (each row costs minutes)
    subspace: int = 0  # "principal-subspace": how many leading principal directions


FULL = (
    Variant("50d 100k autoencoder 256 (bundled)", "glove50", "bundled", 256, MADLIB_EPSILONS),
    Variant("50d 100k random-hyperplane 128", "glove50", "random-hyperplane", 128, MADLIB_EPSILONS),
    Variant(
        "50d 100k principal-subspace-10 128",
        "glove50",
        "principal-subspace",
        128,
        (5.0,),  # shadows 4 % of a text's words (equal codes, ties to the lower id): not for 20
        subspace=10,
    ),
    Variant("50d 100k flip-trained 128", "glove50", "flip-trained", 128, MADLIB_EPSILONS),
    Variant("50d 100k flip-trained 256", "glove50", "flip-trained", 256, MADLIB_EPSILONS),
    Variant("50d 100k random-hyperplane 1024", "glove50", "random-hyperplane", 1024),
    Variant("300d 33.8k random-hyperplane 256", "glove300", "random-hyperplane", 256),
)
QUICK = (Variant("50d 5k random-hyperplane 128 (quick)", "quick", "random-hyperplane", 128),)


def source_vectors(source: str) -> tuple[list[str], np.ndarray, dict]:
    """Vocabulary, float32 vectors and Euclidean calibration statistics of a source."""
    from edgedp_export.sources import glove_6b_50d, glove_840b_300d_mldp
    from edgedp_export.words import select_vocabulary

    from edgedp.evaluation.calibration import sampled_pairwise_statistics

    size = {"glove50": 100_000, "quick": 5_000, "glove300": None}[source]
    vectors_of = glove_840b_300d_mldp() if source == "glove300" else glove_6b_50d()
    words, rows = select_vocabulary(vectors_of, size)
    vectors = np.asarray(vectors_of.vectors[rows], dtype=np.float32)
    if source == "glove50":
        euclidean = dict(edgedp.load_pack().calibration["euclidean"])  # same words and vectors
    else:
        public = public_statistics_source(0)
        euclidean = sampled_pairwise_statistics(vectors, pairs=2_000_000, rng=public)
    return words, vectors, euclidean


def subspace_codes(vectors: np.ndarray, bits: int, dims: int, seed: int) -> np.ndarray:
    """Random-hyperplane codes (packed, big-endian) whose hyperplane normals lie in the span of
    the ``dims`` leading principal directions of ``vectors`` (each scaled by its singular value over
    the first): a try for the heavy-noise regime, where a randomized-response code far from its
    input should still land among words that share the coarse, topical directions. Principal
    directions from the 20,000 most frequent words."""
    centred = vectors.astype(np.float64) - vectors.astype(np.float64).mean(axis=0)
    _, singular, directions = np.linalg.svd(centred[:20_000], full_matrices=False)
    basis = directions[:dims].T * (singular[:dims] / singular[0])
    planes = basis @ np.random.default_rng(seed).standard_normal((dims, bits))
    return np.packbits(centred @ planes > 0.0, axis=1, bitorder="big")


def variant_pack(variant: Variant, words: list[str], vectors: np.ndarray, euclidean: dict):
    """The variant's codes and vectors as a words pack in bench/packs (written once)."""
    from edgedp_export.binarize import binarize
    from edgedp_export.calibration import hamming_statistics
    from edgedp_export.pack_writer import lines_writer, npy_writer, write_pack

    name = "parity-" + variant.label.split(" (")[0].replace(" ", "-").replace(".", "")
    directory = PACKS_DIR / name
    if (directory / "manifest.json").is_file():
        return edgedp.load_pack(directory)
    if variant.method == "bundled":
        codes = np.asarray(edgedp.load_pack().codes)
    elif variant.method == "principal-subspace":
        codes = subspace_codes(vectors, variant.bits, variant.subspace, 0)
    else:
        codes = binarize(vectors, method=variant.method, bits=variant.bits, seed=0)
    stored = vectors.astype(np.float32 if variant.source == "glove300" else np.float16)
    covariance = np.atleast_2d(np.cov(stored.astype(np.float64), rowvar=False))
    manifest = {
        "kind": "words",
        "name": name,
        "description": f"bench code variant: {variant.label}",
        "source": {"name": variant.source, "license": "PDDL-1.0", "attribution": "GloVe"},
        "vocabulary": {"file": "vocab.txt", "size": len(words)},
        "embedding": {"dims": int(vectors.shape[1])},
        "codes": {"file": "codes.npy", "bits": variant.bits, "bit_order": "big"},
        "index": {"type": "flat"},
        "calibration": {"hamming": hamming_statistics(codes), "euclidean": euclidean},
        "euclidean": {
            "vectors_file": "vectors.npy",
            "covariance_file": "covariance.npy",
            "dtype": str(stored.dtype),
            "dims": int(vectors.shape[1]),
        },
    }
    files = {
        "vocab.txt": lines_writer(words),
        "codes.npy": npy_writer(codes),
        "vectors.npy": npy_writer(stored),
        "covariance.npy": npy_writer(covariance),
    }
    return edgedp.load_pack(write_pack(directory, manifest, files, force=True))


def code_quality(pack: edgedp.WordPack, vectors: np.ndarray) -> dict[str, float]:
    """10-NN overlap (pack report measure) and the own-neighbour distances of both metrics."""
    import faiss
    from edgedp_export.quality import cosine_neighbours, expected_neighbour_overlap

    codes = np.ascontiguousarray(pack.codes)
    count = len(codes)
    rng = np.random.default_rng(0)
    sample = np.sort(rng.choice(count, size=min(OVERLAP_WORDS, count), replace=False))
    overlap = expected_neighbour_overlap(codes, sample, cosine_neighbours(vectors, sample))
    zipf = 1.0 / np.arange(1, count + 1)
    drawn = rng.choice(count, size=NEAR_WORDS, p=zipf / zipf.sum())  # Zipf-weighted words
    exact = faiss.IndexFlatL2(vectors.shape[1])
    exact.add(np.ascontiguousarray(pack.vectors, dtype=np.float32))
    squared, _ = exact.search(
        np.ascontiguousarray(pack.vectors[drawn], dtype=np.float32), NEAR_K + 1
    )
    hamming, _ = faiss.knn_hamming(np.ascontiguousarray(codes[drawn]), codes, NEAR_K + 1)
    near_euclidean = float(np.sqrt(np.maximum(squared[:, 1:], 0.0)).mean())
    near_hamming = float(hamming[:, 1:].mean())
    return {
        "overlap10": float(overlap),
        "near_euclidean": near_euclidean,
        "near_hamming": near_hamming,
        "ratio_near": near_euclidean / near_hamming,
    }


class Topics:
    """BBC News as vocabulary ids of one pack, and the clean-trained TF-IDF classifier."""

    def __init__(self, pack: edgedp.WordPack, quick: bool) -> None:
        from scipy.sparse import csr_matrix
        from sklearn.feature_extraction.text import TfidfTransformer
        from sklearn.linear_model import LogisticRegression

        splits = bbc_splits()
        step = 8 if quick else 1
        train, test = splits["train"][::step], splits["test"][::step]
        self.size = len(pack.vocabulary)
        self.train = [self._ids(pack, d.text) for d in train]
        self.test = [self._ids(pack, d.text) for d in test]
        tokens = sum(len(segment(d.text).words) for d in test)
        self.oov = 1 - sum(map(len, self.test)) / tokens
        self.labels = np.array([d.label for d in test])
        self._matrix = lambda docs: csr_matrix(
            (
                np.ones(sum(map(len, docs))),
                (np.repeat(np.arange(len(docs)), [len(d) for d in docs]), np.concatenate(docs)),
            ),
            shape=(len(docs), self.size),
        )
        self.tfidf = TfidfTransformer(sublinear_tf=True).fit(self._matrix(self.train))
        features = self.tfidf.transform(self._matrix(self.train))
        labels = [d.label for d in train]
        self.model = LogisticRegression(max_iter=2000, C=10.0).fit(features, labels)
        self.flat = np.concatenate(self.test)
        picks = np.random.default_rng(0).permutation(len(self.flat))[:BISECTION_TOKENS]
        self.sample = self.flat[picks]

    @staticmethod
    def _ids(pack: edgedp.WordPack, text: str) -> np.ndarray:
        ids = pack.vocabulary.ids(segment(text).words)
        return ids[ids >= 0]

    def f1(self, documents: list[np.ndarray]) -> float:
        from sklearn.metrics import f1_score

        predicted = self.model.predict(self.tfidf.transform(self._matrix(documents)))
        return float(f1_score(self.labels, predicted, average="macro"))

    def release(self, mechanism: edgedp.WordMechanism) -> tuple[float, float]:
        """(share of test words changed, macro-F1 on the privatized test documents)."""
        released = mechanism.privatize_ids(self.flat)
        documents = np.split(released, np.cumsum([len(d) for d in self.test])[:-1])
        return float((released != self.flat).mean()), self.f1(documents)


def matched_changes(
    pack: edgedp.WordPack, ids: np.ndarray, target: float, start: float, seed: int
) -> float:
    """The per-bit epsilon at which BRR changes ``target`` of ``ids`` (log bisection)."""
    low, high = start / 8, start * 8
    for _ in range(BISECTION_STEPS):
        middle = (low * high) ** 0.5
        brr = edgedp.BRR(pack, epsilon=middle, rng=seeded(seed))
        changed = float((brr.privatize_ids(ids) != ids).mean())
        low, high = (middle, high) if changed > target else (low, middle)
    return (low * high) ** 0.5


def columns(
    epsilon: float,
    madlib: tuple[float, float],
    bound: tuple[float, float, float],
    matched: tuple[float, float, float],
) -> dict[str, float]:
    """The row of one comparison: Madlib's (changed, F1) and BRR's (epsilon, changed, F1) at the
    average bound and at Madlib's share of words changed."""
    row = {"madlib_epsilon": epsilon, "madlib_changed": madlib[0], "madlib_f1": madlib[1]}
    for name, (brr_epsilon, changed, f1) in (("bound", bound), ("matched", matched)):
        row.update(
            {
                f"brr_{name}_epsilon": brr_epsilon,
                f"brr_{name}_changed": changed,
                f"brr_{name}_f1": f1,
            }
        )
    return row


class VariantRows:
    """The rows of one code variant; the topics and code quality are built only when a row is not
    in the cache."""

    def __init__(self, variant: Variant, pack: edgedp.WordPack, vectors: np.ndarray, quick: bool):
        self.variant, self.pack, self.vectors, self.quick = variant, pack, vectors, quick

    @cached_property
    def topics(self) -> Topics:
        return Topics(self.pack, self.quick)

    @cached_property
    def quality(self) -> dict[str, float]:
        return code_quality(self.pack, self.vectors)

    def madlib(self, epsilon: float) -> dict:
        """Madlib's (changed, F1): the same for every variant of one source."""
        mechanism = edgedp.Madlib(self.pack, epsilon=epsilon, rng=seeded(2))
        changed, f1 = self.topics.release(mechanism)
        return {"changed": changed, "f1": f1}

    def row(self, epsilon: float) -> dict:
        topics, pack = self.topics, self.pack
        ratio = privacy_ratio(pack, "madlib", "brr")
        key = f"madlib {self.variant.source} {epsilon:g}"
        madlib = cached(CACHE, key, self.quick, lambda: self.madlib(epsilon))
        bound = topics.release(edgedp.BRR(pack, epsilon=epsilon * ratio, rng=seeded(1)))
        matched = matched_changes(pack, topics.sample, madlib["changed"], epsilon * ratio, 4)
        same = topics.release(edgedp.BRR(pack, epsilon=matched, rng=seeded(3)))
        return {
            "variant": self.variant.label,
            "overlap10": self.quality["overlap10"],
            "ratio_avg": ratio,
            "ratio_near": self.quality["ratio_near"],
            "oov": topics.oov,
            "clean_f1": topics.f1(topics.test),
            **columns(
                epsilon,
                (madlib["changed"], madlib["f1"]),
                (epsilon * ratio, *bound),
                (matched, *same),
            ),
        }


def variants(report: Report, quick: bool) -> dict[str, dict]:
    """The variant table; returns the matched points of each variant for the privacy table."""
    points: dict[str, dict] = {}
    sources: dict[str, tuple] = {}
    for variant in progress(QUICK if quick else FULL, "code variants"):
        if variant.source not in sources:
            sources[variant.source] = source_vectors(variant.source)
        words, vectors, euclidean = sources[variant.source]
        rows = VariantRows(
            variant, variant_pack(variant, words, vectors, euclidean), vectors, quick
        )
        for epsilon in QUICK_EPSILONS if quick else variant.epsilons:
            key = f"{variant.label} | Madlib {epsilon:g}"
            row = cached(CACHE, key, quick, partial(rows.row, epsilon))
            report.add(table=VARIANTS, **row)
            points[key] = {
                "pack": rows.pack,
                "madlib": epsilon,
                "bound": row["brr_bound_epsilon"],
                "matched": row["brr_matched_epsilon"],
            }
    return points


def empirical_privacy(report: Report, points: dict[str, dict], quick: bool) -> None:
    """The Vickrey paper's empirical privacy (Xu et al. 2021, Sec. 3, as
    :func:`edgedp.evaluation.explain.measure` estimates it) of Madlib and of BRR at its matched
    points: the share of a text's words kept (Zipf-weighted N_w), the mean N_w and S_w over the
    word set, and the Bayesian adversary's inference error E_M under a Zipf and a uniform prior."""
    for key, point in progress(list(points.items()), "empirical privacy"):
        pack = point["pack"]
        words = public_word_set(pack, PRIVACY_WORDS)
        madlib = edgedp.Madlib(pack, epsilon=point["madlib"], rng=seeded(5))
        match = matched_epsilon(madlib, edgedp.BRR(pack, epsilon=point["bound"]))
        for label, mechanism in (
            ("Madlib", madlib),
            ("BRR, average bound", edgedp.BRR(pack, epsilon=point["bound"], rng=seeded(6))),
            ("BRR, BBC changes matched", edgedp.BRR(pack, epsilon=point["matched"], rng=seeded(7))),
            ("BRR, calibrate --match kept", edgedp.BRR(pack, epsilon=match.epsilon, rng=seeded(8))),
        ):
            stats = measure(mechanism, words, PRIVACY_SAMPLES, rng=seeded(9))
            row = {"point": key, "mechanism": label, "epsilon": mechanism.epsilon}
            for column, statistic in PRIVACY_COLUMNS:
                row[column] = stats[statistic].value
                row[f"{column}_ci"] = [stats[statistic].low, stats[statistic].high]
            report.add(table=PRIVACY, **row)


def lexicon(report: Report, quick: bool) -> None:
    """Sentiment macro-F1 of released lexicon words (see the module docstring)."""
    from edgedp_export.binarize import random_hyperplane_codes
    from edgedp_export.calibration import hamming_statistics
    from sklearn.metrics import f1_score

    base = ensure_pack("opinion-lexicon-quick" if quick else "opinion-lexicon")
    sentiment_of = opinion_lexicon()
    sentiment = np.array([sentiment_of[word] for word in base.vocabulary.words])
    ids = np.repeat(np.arange(len(sentiment)), LEXICON_SAMPLES)
    vectors = np.asarray(base.vectors, dtype=np.float32)
    rh128 = random_hyperplane_codes(vectors, 128, 0)
    for label, codes in (
        ("autoencoder 256", np.asarray(base.codes)),
        ("random-hyperplane 128", rh128),
    ):
        ratio = (
            float(base.calibration["euclidean"]["average"]) / hamming_statistics(codes)["average"]
        )
        pack = _with_codes(base, codes) if label != "autoencoder 256" else base

        def score(mechanism: edgedp.WordMechanism) -> tuple[float, float]:
            released = mechanism.privatize_ids(ids)
            predicted = sentiment[released]
            changed = float((released != ids).mean())
            return changed, float(f1_score(sentiment[ids], predicted, average="macro"))

        for epsilon in QUICK_EPSILONS if quick else MADLIB_EPSILONS:
            madlib = score(edgedp.Madlib(pack, epsilon=epsilon, rng=seeded(11)))
            bound = score(edgedp.BRR(pack, epsilon=epsilon * ratio, rng=seeded(12)))
            matched = matched_changes(pack, ids, madlib[0], epsilon * ratio, 13)
            same = score(edgedp.BRR(pack, epsilon=matched, rng=seeded(14)))
            report.add(
                table=LEXICON,
                codes=label,
                **columns(epsilon, madlib, (epsilon * ratio, *bound), (matched, *same)),
            )


def _with_codes(base: edgedp.WordPack, codes: np.ndarray) -> edgedp.WordPack:
    """``base`` (vocabulary, vectors, Euclidean statistics) with other codes, in bench/packs."""
    from edgedp_export.calibration import hamming_statistics
    from edgedp_export.pack_writer import npy_writer, write_pack

    directory = PACKS_DIR / f"{base.name}-rh{codes.shape[1] * 8}"
    if (directory / "manifest.json").is_file():
        return edgedp.load_pack(directory)
    data = json.loads(json.dumps(base.manifest.data, default=dict))  # read-only views -> dicts
    manifest = {key: value for key, value in data.items() if key not in ("files", "format")}
    manifest.pop("format_version", None)
    manifest.pop("quality", None)
    manifest["name"] = directory.name
    manifest["codes"] = {"file": "codes.npy", "bits": codes.shape[1] * 8, "bit_order": "big"}
    manifest["calibration"] = {**manifest["calibration"], "hamming": hamming_statistics(codes)}
    files = {
        name: (lambda path, name=name: path.write_bytes((base.path / name).read_bytes()))
        for name in base.manifest.data["files"]
        if name not in ("codes.npy", "REPORT.md")
    }
    files["codes.npy"] = npy_writer(codes)
    return edgedp.load_pack(write_pack(directory, manifest, files, force=True))


def _plot(report: Report) -> None:
    rows = report.table(VARIANTS)
    fig, axes = figure(1, 1, (8, 5.5))
    axis = axes[0][0]
    madlib = {(r["variant"].split()[0], r["madlib_epsilon"]): r for r in rows}
    for (source, _), row in madlib.items():
        axis.plot(row["madlib_changed"], row["madlib_f1"], "k*" if source == "50d" else "kx")
    for label in dict.fromkeys(r["variant"] for r in rows):
        series = [r for r in rows if r["variant"] == label]
        changed = [r["brr_bound_changed"] for r in series] + [
            r["brr_matched_changed"] for r in series
        ]
        f1 = [r["brr_bound_f1"] for r in series] + [r["brr_matched_f1"] for r in series]
        order = np.argsort(changed)
        axis.plot(np.array(changed)[order], np.array(f1)[order], "o-", label=f"BRR {label}")
    axis.set_xlabel("share of BBC test words changed")
    axis.set_ylabel("macro-F1 (TF-IDF, trained clean, tested privatized)")
    axis.set_title("BRR code variants against Madlib (stars: 50d, crosses: 300d)")
    axis.grid(alpha=0.3)
    axis.legend(fontsize=7)
    report.figures["brr_parity.png"] = fig


def run(report: Report, *, quick: bool) -> None:
    points = variants(report, quick)
    empirical_privacy(report, points, quick)
    lexicon(report, quick)
    _plot(report)
    report.notes.append(
        "BBC: TF-IDF logistic regression trained on clean training documents, tested on privatized "
        "test documents (macro-F1); 'matched' = BRR at the epsilon changing the same share of test "
        "words as Madlib; 'bound' = calibrate's average-bound epsilon. ratio_near: mean distance "
        "to the 10 nearest neighbours in each metric, Zipf-weighted."
    )
