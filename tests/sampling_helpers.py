"""Shared by the sampling mechanisms' tests (TEM, SanText, CusText): packs, chi-square, no-copy."""

from __future__ import annotations

import string
from pathlib import Path

import numpy as np
from edgedp_export.cli import main as export_main
from helpers import write_vector_file
from hypothesis import strategies as st
from scipy import stats

import edgedp

#: Random names, digit strings and junk: never in any vocabulary, never in any output.
SECRETS = st.text(alphabet=string.ascii_letters + string.digits, min_size=6, max_size=12).map(
    lambda s: "Qx" + s
)


def word_names(count: int) -> list[str]:
    return [f"w{chr(97 + i // 26 % 26)}{chr(97 + i % 26)}{'z' * (i // 676)}" for i in range(count)]


def vector_pack(
    directory: Path,
    vectors: np.ndarray,
    *,
    bits: int = 8,
    neighbours: int | None = None,
    custext: int | None = None,
) -> edgedp.WordPack:
    """A pack of exactly these float32 vectors, in this order (ids = rows), built by the exporter
    (with its neighbour table unless ``neighbours=0``, its CusText sets unless ``custext=0``)."""
    vectors = np.asarray(vectors, dtype=np.float32).reshape(len(vectors), -1)
    words = word_names(len(vectors))
    source = write_vector_file(directory / "vectors.txt", words, vectors)
    command = ["words", "--source-file", str(source), "--words", str(len(words))]
    command += ["--bits", str(bits), "--vectors", "float32", "--out", str(directory / "pack")]
    for flag, value in (("--neighbours", neighbours), ("--custext", custext)):
        if value is not None:
            command += [flag, str(value)]
    assert export_main(command) == 0
    pack = edgedp.load_pack(directory / "pack")
    assert list(pack.vocabulary.words) == words
    return pack


def chi_square_pvalue(outputs: np.ndarray, probabilities: np.ndarray) -> float:
    """Goodness of fit of sampled ids to exact probabilities (bins with expectation < 5 pooled).

    Outputs with exact probability 0 must never occur: any such sample fails the test outright.
    """
    probabilities = np.asarray(probabilities, dtype=np.float64)
    counts = np.bincount(outputs, minlength=len(probabilities)).astype(np.float64)
    if counts[probabilities == 0].sum() > 0:
        return 0.0
    expected = probabilities * len(outputs)
    small = expected < 5
    observed = np.append(counts[~small], counts[small].sum())
    wanted = np.append(expected[~small], expected[small].sum())
    keep = wanted > 0
    if keep.sum() < 2:  # one possible output, and no sample outside it
        return 1.0
    return float(stats.chisquare(observed[keep], wanted[keep] * observed.sum() / wanted.sum())[1])


def metric_violations(channel: np.ndarray, bound: np.ndarray) -> int:
    """Number of (x, x', y) with channel[x, y] > e^bound[x, x'] channel[x', y] (float slack 1e-9).

    An infinite bound (no promise between x and x', e.g. CusText across output sets) allows
    anything; it is not computed as inf * 0 (NaN, a RuntimeWarning, and a comparison that is
    False only by accident). A NaN bound is a bug of the caller.
    """
    bound = np.asarray(bound, dtype=np.float64)
    assert not np.isnan(bound).any(), "a privacy bound is NaN"
    unbounded = np.isposinf(bound)
    ratio_limit = np.exp(np.where(unbounded, 0.0, bound))[:, :, None] * channel[None, :, :]
    ratio_limit = np.where(unbounded[:, :, None], np.inf, ratio_limit * (1 + 1e-9))
    return int((channel[:, None, :] > ratio_limit).sum())
