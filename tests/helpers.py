"""Shared test helpers: tiny synthetic packs and exact distributions."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import math
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from edgedp_export.pack_writer import lines_writer, npy_writer, write_pack
from hypothesis import strategies as st

import edgedp
from edgedp.errors import AssetError

#: For test modules that seed their mechanisms on purpose (reproducible statistics): the NOT
#: private warning of each seed is expected there (``pytestmark = SEEDED_ON_PURPOSE``); tests of
#: the warning itself use ``pytest.warns``, which still sees it.
SEEDED_ON_PURPOSE = pytest.mark.filterwarnings(
    "ignore:edgedp is using a fixed seed:edgedp.errors.NotPrivateWarning"
)

#: The repository's root (tests/ lives one level below it, its folders two).
REPO_ROOT = Path(__file__).resolve().parent.parent


def write_word_pack(
    directory: Path, words: list[str], codes: np.ndarray, *, name: str = "tiny", **extra: object
) -> Path:
    """A words pack with exactly these words and packed codes (big-endian bits)."""
    manifest = {
        "kind": "words",
        "name": name,
        "description": "synthetic test pack",
        "source": {"name": "synthetic", "license": "CC0-1.0", "attribution": "tests"},
        "vocabulary": {"file": "vocab.txt", "size": len(words)},
        "embedding": {"dims": 0},
        "codes": {"file": "codes.npy", "bits": codes.shape[1] * 8, "bit_order": "big"},
        "index": {"type": "flat"},
        **extra,
    }
    files = {"vocab.txt": lines_writer(words), "codes.npy": npy_writer(codes)}
    return write_pack(directory, manifest, files)


def all_codes(bits: int) -> np.ndarray:
    """Every code of ``bits`` bits (bits <= 8), packed big-endian, in numeric order."""
    values = np.arange(2**bits, dtype=np.uint8) << (8 - bits)
    return values.reshape(-1, 1)


def rr_exact_probability(x: int, y: int, bits: int, flip: float) -> float:
    """Pr[RR(x) = y] for codes given as integers."""
    distance = bin(x ^ y).count("1")
    return flip**distance * (1 - flip) ** (bits - distance)


def brr_exact_distribution(codes_int: list[int], bits: int, flip: float) -> np.ndarray:
    """Exact Pr[BRR(w_i) = w_j] on a pack whose codes are small integers (lowest id wins ties)."""
    n = len(codes_int)
    matrix = np.zeros((n, n))
    for noisy in range(2**bits):
        distances = [bin(noisy ^ code).count("1") for code in codes_int]
        winner = int(np.argmin(distances))
        for i, code in enumerate(codes_int):
            matrix[i, winner] += rr_exact_probability(code, noisy, bits, flip)
    return matrix


def reference_splitter():
    """The ``tokenizers`` pre-tokenizer edgedp.text.segmentation split with until issue 17 (its reference)."""
    from tokenizers import pre_tokenizers

    return pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation("isolated")]
    )


def tokens_of(text: str) -> list[str]:
    """Non-whitespace tokens of a text, whitespace split and punctuation isolated (original
    spelling), emoji cut out: finer than edgedp's word slots, which merge adjacent word tokens."""
    from edgedp.text.emoji import split_emoji

    tokens = reference_splitter().pre_tokenize_str(text)
    split = split_emoji(text, [(token, start, end, "") for token, (start, end) in tokens])
    return [token for token, *_ in split]


def assert_only_public_tokens(output: str, vocabulary) -> None:
    """Every token of ``output`` is public: pass-through punctuation, a vocabulary word, a filler
    emoji or the OOV marker."""
    from edgedp.text.emoji import filler_emoji
    from edgedp.text.segmentation import PASS_THROUGH_PUNCTUATION

    public = set(filler_emoji()) | PASS_THROUGH_PUNCTUATION
    for token in tokens_of(output.replace(edgedp.OOV_MASK, " ")):
        assert token in public or token in vocabulary, f"{token!r} reached the output"


def pairs(n: int) -> itertools.product:
    return itertools.product(range(n), range(n))


def load(path: Path) -> edgedp.WordPack:
    return edgedp.load_pack(path)


def planted_vectors(clusters: int = 20, per_cluster: int = 10, dims: int = 16, seed: int = 0):
    """Words in well-separated clusters: (words, float32 vectors, cluster label of each word)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dims)) * 3.0
    labels = np.repeat(np.arange(clusters), per_cluster)
    vectors = (centres[labels] + 0.15 * rng.standard_normal((len(labels), dims))).astype(np.float32)
    words = [f"w{chr(97 + i // 26 % 26)}{chr(97 + i % 26)}{i // 676}" for i in range(len(labels))]
    return words, vectors, labels


def write_vector_file(path: Path, words: list[str], vectors: np.ndarray) -> Path:
    """A GloVe-format text file."""
    lines = [
        " ".join([word, *(f"{x:.6f}" for x in row)])
        for word, row in zip(words, vectors, strict=True)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def vickrey_exact_distribution(
    codes_int: list[int], bits: int, flip: float, t: float, *, exclude_input: bool = False
) -> np.ndarray:
    """Exact Pr[Vickrey(w_i) = w_j] after RR on integer codes (lowest id first on distance ties).

    ``exclude_input=True`` is the printed Alg. 1: the two nearest are searched among the words
    other than w_i.
    """
    n = len(codes_int)
    matrix = np.zeros((n, n))
    for noisy in range(2**bits):
        distances = [bin(noisy ^ code).count("1") for code in codes_int]
        for i, code in enumerate(codes_int):
            candidates = [j for j in range(n) if not (exclude_input and j == i)]
            first, second = sorted(candidates, key=lambda j: (distances[j], j))[:2]
            d1, d2 = distances[first], distances[second]
            denominator = t * d1 + (1 - t) * d2
            p_first = (1 - t) * d2 / denominator if d1 != d2 and denominator > 0 else 1 - t
            weight = rr_exact_probability(code, noisy, bits, flip)
            matrix[i, first] += weight * p_first
            matrix[i, second] += weight * (1 - p_first)
    return matrix


def metric_dp_violations(
    channel: np.ndarray, codes_int: list[int], epsilon: float
) -> list[tuple[int, int, int]]:
    """(x, x', y) with Pr[y|x] > e^(eps d_H(x, x')) Pr[y|x'] (relative float slack 1e-12)."""
    violations = []
    for i, ci in enumerate(codes_int):
        for j, cj in enumerate(codes_int):
            bound = math.exp(epsilon * bin(ci ^ cj).count("1"))
            for y in np.flatnonzero(channel[i] > bound * channel[j] * (1 + 1e-12)):
                violations.append((i, j, int(y)))
    return violations


def hamming_distances(queries: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Popcount oracle: (n_queries, n_codes) Hamming distances between packed uint8 codes."""
    xor = np.bitwise_xor(queries[:, None, :], codes[None, :, :])
    return np.unpackbits(xor, axis=2).sum(axis=2, dtype=np.int64)


#: Any JSON value, small: what a hostile manifest field may hold (hypothesis).
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=8,
)


def json_paths(value, prefix=()):
    """Every path to a value inside a JSON document (keys and list positions)."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from json_paths(item, (*prefix, key))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            yield from json_paths(item, (*prefix, position))


def expect_only_asset_errors(directory: Path, use: Callable[[object], object]) -> None:
    """A (hostile) pack directory either fails to load with AssetError, or loads and is usable:
    described, shown by ``edgedp packs info`` (one line on stderr if it fails) and ``use``-d."""
    from edgedp.cli import main

    try:
        pack = edgedp.load_pack(directory)
    except AssetError:
        pass
    else:
        json.dumps(pack.describe())
        use(pack)
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
        status = main(["packs", "info", str(directory)])
    assert status in (0, 1), stderr.getvalue()
    assert stderr.getvalue().count("\n") == (status == 1)


#: For a native test that reads process-wide native state (the OpenMP count of the worker threads,
#: set when the pool starts): under EDGEDP_BACKEND=numpy the pool started on the numpy tier.
native_process = pytest.mark.skipif(
    os.environ.get("EDGEDP_BACKEND", "").strip().lower() == "numpy",
    reason="reads the worker pool's OpenMP state, which a numpy-tier process never sets",
)


def run_example(script: str, cwd: Path) -> None:
    """Run the example script ``script`` of ``cwd`` in a fresh interpreter; fail with its stderr."""
    result = subprocess.run(
        [sys.executable, script], cwd=cwd, capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
