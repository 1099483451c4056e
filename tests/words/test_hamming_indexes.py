"""Approximate Hamming indexes: the manifest's index is the one loaded; checked against a popcount
oracle on clean queries of a planted set (always a nearest code) and on RR-noised queries (recall)."""

from __future__ import annotations

import json

import faiss
import numpy as np
import pytest
from edgedp_export.cli import main as export_main
from helpers import hamming_distances, write_vector_file

import edgedp
from edgedp.errors import AssetError
from edgedp.words.hamming import randomized_response

#: FAISS's own behaviour: the native tier, whatever EDGEDP_BACKEND says.
pytestmark = pytest.mark.native


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
        "8" if request.param == "hnsw" else "5",  # HNSW M or IVF nlist
        "--search-parameter",
        "16" if request.param == "hnsw" else "1",  # efSearch or nprobe: IVF probes 1 list of 5
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


def faiss_index(path):
    """The pack's FAISS index read straight from disk (no edgedp fallback), manifest parameter set."""
    recorded = json.loads((path / "manifest.json").read_text())["index"]
    index = faiss.read_index_binary(str(path / recorded["file"]))
    if isinstance(index, faiss.IndexBinaryIVF):
        index.nprobe = recorded["search_parameter"]
        assert index.nprobe < index.nlist  # a real approximation, not a full scan
    else:
        index.hnsw.efSearch = recorded["search_parameter"]
        assert index.hnsw.efSearch < index.ntotal
    return index


def test_clean_queries_find_a_nearest_code(indexed_pack):
    _, path = indexed_pack
    pack = edgedp.load_pack(path)
    codes = np.asarray(pack.codes)
    assert len(np.unique(codes, axis=0)) < len(codes)  # duplicate codes: ties are exercised
    oracle = hamming_distances(codes, codes)
    best = oracle.min(axis=1)  # 0: each query is an indexed code
    for distances, ids in (faiss_index(path).search(codes, 1), pack.index.search(codes, 1)):
        assert (ids >= 0).all()
        assert np.array_equal(oracle[np.arange(len(codes)), ids[:, 0]], best)  # ties allowed
        assert np.array_equal(distances[:, 0], best)


@pytest.mark.parametrize(("epsilon", "min_recall"), [(1.0, 0.6), (3.0, 0.9)])
def test_noised_queries_against_the_oracle(indexed_pack, seeded, epsilon, min_recall):
    _, path = indexed_pack
    pack = edgedp.load_pack(path)
    codes = np.asarray(pack.codes)
    queries = randomized_response(np.repeat(codes, 5, axis=0), epsilon, seeded(0))
    oracle = hamming_distances(queries, codes)
    ranked = np.sort(oracle, axis=1)[:, :3]
    rows = np.arange(len(queries))[:, None]
    distances, ids = faiss_index(path).search(queries, 3)
    found = ids >= 0
    # Guaranteed: true distances, and the r-th answer is never nearer than the r-th nearest code.
    assert np.array_equal(distances[found], oracle[rows, ids][found])
    assert (distances[found] >= ranked[found]).all()
    # Recall@1 (ties allowed) of the raw index; measured ~0.8 (IVF) and ~0.98 (HNSW) at epsilon 1.
    recall = np.mean(found[:, 0] & (distances[:, 0] == ranked[:, 0]))
    assert recall >= min_recall
    # edgedp returns the index's answer where complete, answers every row, and exact=True is exact.
    ours, our_ids = pack.index.search(queries, 3)
    complete = found.all(axis=1)
    assert np.array_equal(our_ids[complete], ids[complete])
    assert (our_ids >= 0).all() and np.array_equal(ours, oracle[rows, our_ids])
    assert np.array_equal(pack.index.search(queries, 3, exact=True)[0], ranked)


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
