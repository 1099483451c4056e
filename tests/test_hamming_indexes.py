"""Approximate Hamming indexes: the manifest's index is the one loaded, and it agrees with exact
search on clean queries of a planted set."""

from __future__ import annotations

import json

import faiss
import numpy as np
import pytest
from edgedp_export.cli import main as export_main
from helpers import write_vector_file

import edgedp
from edgedp.errors import AssetError


@pytest.fixture(scope="module", params=["hnsw", "ivf"])
def indexed_pack(request, tmp_path_factory, planted):
    words, vectors, _ = planted
    directory = tmp_path_factory.mktemp(request.param)
    source = write_vector_file(directory / "v.txt", words, vectors)
    args = [
        "words",
        "--source-file",
        str(source),
        "--words",
        "200",
        "--bits",
        "64",
        "--index",
        request.param,
        "--index-parameter",
        "8" if request.param == "hnsw" else "4",
        "--search-parameter",
        "16" if request.param == "hnsw" else "4",
        "--out",
        str(directory / "pack"),
    ]
    assert export_main(args) == 0
    return request.param, directory / "pack"


def test_the_recorded_index_is_loaded(indexed_pack):
    kind, path = indexed_pack
    pack = edgedp.load_pack(path)
    assert pack.index.index_type == kind and not pack.index.exact
    expected = faiss.IndexBinaryHNSW if kind == "hnsw" else faiss.IndexBinaryIVF
    assert isinstance(pack.index._approximate, expected)
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["index"]["type"] == kind and "index.faissb" in manifest["files"]


def test_approximate_and_exact_agree_on_clean_queries(indexed_pack):
    _, path = indexed_pack
    pack = edgedp.load_pack(path)
    queries = np.asarray(pack.codes)
    approximate, _ = pack.index.search(queries, 1)
    exact, _ = pack.index.search(queries, 1, exact=True)
    assert np.array_equal(approximate, exact)  # every code finds a code at distance 0
    assert not approximate.any()


def test_brr_runs_on_an_approximate_index(indexed_pack):
    _, path = indexed_pack
    pack = edgedp.load_pack(path)
    out = edgedp.BRR(pack, epsilon=0.3).privatize_ids(np.arange(50))
    assert out.min() >= 0 and out.max() < len(pack.vocabulary)


def test_a_swapped_index_type_is_rejected(indexed_pack, tmp_path):
    kind, path = indexed_pack
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(path, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["index"]["type"] = "ivf" if kind == "hnsw" else "hnsw"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(AssetError, match="manifest says"):
        edgedp.load_pack(copy)
