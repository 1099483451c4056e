"""edgedp.engines.dask on a distributed LocalCluster (two worker processes) on real BBC News.

dask[distributed] is installed by the README's test command; if it is missing these tests fail.
"""

from __future__ import annotations

import os
import warnings

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from corpus_helpers import (
    bbc_articles,
    bbc_heads,
    change_manifest,
    copy_default_pack,
    kept_words,
    two_proportion_z,
)
from distributed import Client, LocalCluster
from helpers import REPO_ROOT

import edgedp
import edgedp.engines.dask

ROOT = REPO_ROOT
DOCUMENTS = 600


@pytest.fixture(scope="module")
def client():
    # worker processes must import this checkout's edgedp
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])
    )
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as connection,
    ):
        yield connection


def frame(texts: list[str], partitions: int) -> dd.DataFrame:
    return dd.from_pandas(
        pd.DataFrame({"id": range(len(texts)), "text": texts}), npartitions=partitions
    )


def test_bbc_keep_rate_is_the_single_process_mechanisms(client):
    heads = bbc_heads()[:DOCUMENTS]
    out = edgedp.engines.dask.privatize(
        frame(heads, 4), epsilon=0.6, out_column="private"
    ).compute()
    assert out["id"].tolist() == list(range(DOCUMENTS)) and "text" not in out.columns
    local = edgedp.BRR(edgedp.load_pack(), epsilon=0.6).privatize_batch(heads)
    kept_engine = kept_words(heads, out["private"].tolist())
    kept_local = kept_words(heads, local)
    assert abs(two_proportion_z(kept_engine, kept_local)) < 4.0, (kept_engine, kept_local)
    workers = client.run(lambda: sorted(key[0] for key in edgedp.engines.corpus._PACKS))
    assert len(workers) == 2 and all(packs for packs in workers.values())  # both did work


def test_another_pack_on_a_worker_raises_asset_error(client, tmp_path):
    pack = copy_default_pack(tmp_path)
    job = edgedp.engines.dask.privatize(frame(["hello world"] * 4, 2), epsilon=0.6, pack=pack)
    change_manifest(pack)
    with pytest.raises(edgedp.AssetError, match="is not the expected"):
        job.compute()


def test_seeded_runs_repeat_and_partitions_differ(client):
    texts = ["a b c d e f g h i j k l m n o p"] * 6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        first = edgedp.engines.dask.privatize(frame(texts, 3), epsilon=0.3, seed=3).compute()
        second = edgedp.engines.dask.privatize(frame(texts, 3), epsilon=0.3, seed=3).compute()
    assert first["text"].tolist() == second["text"].tolist()
    by_partition = first["text"].tolist()[::2]  # the first row of each partition
    assert len(set(by_partition)) == 3


def test_embed_releases_public_candidates(client, sentence_pack):
    articles = bbc_articles()[1::500]  # 5 whole articles
    out = edgedp.engines.dask.embed(
        frame(articles, 2), mechanism="deepcandidate", epsilon=10.0
    ).compute()
    assert list(out.columns) == ["id", "embedding"]  # the raw text is dropped
    candidates = np.asarray(sentence_pack.candidates, dtype=np.float32)
    for embedding in out["embedding"]:
        assert embedding.dtype == np.float32 and embedding.shape == (sentence_pack.dims,)
        assert (np.abs(candidates - embedding).max(axis=1) == 0).any()
