"""Fixtures: the bundled default pack and tiny synthetic packs built in temporary directories; the
order in which the parallel workers (pytest-xdist) take the tests."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from edgedp_export.cli import main as export_main
from helpers import planted_vectors, write_vector_file, write_word_pack
from sentence_helpers import (  # noqa: F401  (the bundled sentence pack and its encoder pack)
    encoder_pack,
    sentence_pack,
)

import edgedp

#: The test modules of what differs between the native and the numpy tier (searches, encoders and
#: tokenizers, packs' indexes, threads, streamed buffers): marked ``tiers``, and
#: the quick ones run a second time by CI with ``EDGEDP_BACKEND=numpy``. Every other module sees
#: the tier only through these, whose releases are proven equal on both tiers
#: (tests/runtime/test_knn.py, tests/encoder/test_numpy_transformer.py).
TIER_MODULES = (
    "runtime/",
    "encoder/",
    "packs/",
    "words/test_euclidean_search.py",
    "words/test_hamming_indexes.py",
    "words/test_parallel.py",
    "words/test_streaming.py",
    "words/test_wide_codes.py",
    "documents/test_deepcandidate.py",
)


@pytest.hookimpl(tryfirst=True)  # before -m deselects by the markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks the tests of :data:`TIER_MODULES` ``tiers``; test modules that hold a ``slow`` test
    run first, each module's tests in their own order.

    pytest-xdist deals the first tests out to the workers in turn and the rest as workers free
    up: long tests dealt first spread over the workers, while a long test dealt last keeps one
    worker busy after the others have finished (longest first is the classic remedy). Whole
    modules move, so a module's fixtures are still set up once per worker.
    """
    tests = Path(__file__).parent
    for item in items:
        if item.path.is_relative_to(tests) and (
            item.path.relative_to(tests).as_posix().startswith(TIER_MODULES)
        ):
            item.add_marker(pytest.mark.tiers)
    heavy = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in heavy)  # stable: the order is kept otherwise


@pytest.fixture(scope="session")
def default_pack() -> edgedp.WordPack:
    return edgedp.load_pack()


@pytest.fixture(scope="session")
def tiny_pack(tmp_path_factory: pytest.TempPathFactory) -> edgedp.WordPack:
    """64 words with random 32-bit codes."""
    words = [f"w{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(64)]
    codes = np.random.default_rng(7).integers(0, 256, size=(64, 4), dtype=np.uint8)
    return edgedp.load_pack(
        write_word_pack(tmp_path_factory.mktemp("packs") / "tiny", words, codes)
    )


@pytest.fixture
def seeded():
    """Make a seeded RandomSource without the (deliberate) NotPrivateWarning in the test log."""

    def make(seed: int) -> edgedp.RandomSource:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
            return edgedp.RandomSource.seeded(seed)

    return make


@pytest.fixture(scope="session")
def planted():
    """(words, vectors, cluster labels) with 20 well-separated clusters of 10 words, 16 dims."""
    return planted_vectors()


@pytest.fixture(scope="session")
def euclid_pack(tmp_path_factory, planted) -> edgedp.WordPack:
    """A pack with 64-bit random-hyperplane codes, float32 vectors and covariance (200 words)."""
    words, vectors, _ = planted
    directory = tmp_path_factory.mktemp("euclid")
    source = write_vector_file(directory / "planted.txt", words, vectors)
    code = export_main(
        [
            "words",
            "--source-file",
            str(source),
            "--words",
            str(len(words)),
            "--bits",
            "64",
            "--vectors",
            "float32",
            "--out",
            str(directory / "pack"),
        ]
    )
    assert code == 0
    return edgedp.load_pack(directory / "pack")


@pytest.fixture(autouse=True)
def native_tier_for_native_tests(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """A test marked ``native`` checks the native libraries themselves (FAISS index files,
    onnxruntime sessions, OpenMP threads): it runs on that tier even under EDGEDP_BACKEND=numpy."""
    if request.node.get_closest_marker("native") is not None:
        monkeypatch.setenv("EDGEDP_BACKEND", "native")
