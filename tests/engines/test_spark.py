"""edgedp.engines.spark in Spark local mode on real BBC News: same guarantees as the CLI, pinned packs.

One SparkSession for the module (start-up takes seconds). pyspark and a JRE are installed by the
README's test command; if either is missing these tests fail, they do not skip.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from corpus_helpers import (
    bbc_articles,
    bbc_heads,
    change_manifest,
    copy_default_pack,
    kept_words,
    two_proportion_z,
)
from helpers import REPO_ROOT
from pyspark.sql import SparkSession

import edgedp
import edgedp.engines.spark
from edgedp.privacy.ledger import PrivacyLedger

ROOT = REPO_ROOT
Z_LIMIT = 4.0  # two-sided p ~ 6e-5: a correct engine fails this test about once in 16,000 runs
CLI_DOCUMENTS = 800  # ~21,000 words through the CLI


@pytest.fixture(scope="module")
def spark():
    # the Python workers must run this interpreter and import this checkout's edgedp; the
    # variables are restored afterwards so that no later test inherits them
    saved = {name: os.environ.get(name) for name in ("PYSPARK_PYTHON", "PYTHONPATH")}
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])
    )
    session = (
        SparkSession.builder.master("local[2]")
        .appName("edgedp-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="module")
def heads() -> list[str]:
    return bbc_heads()


@pytest.fixture(scope="module")
def bbc_frame(spark, heads):
    return spark.createDataFrame(list(enumerate(heads)), "id long, text string")


def privatized(frame, **kwargs) -> list[str]:
    out = edgedp.engines.spark.privatize(frame, out_column="private", **kwargs)
    return [row.private for row in out.orderBy("id").select("private").collect()]


def cli_privatize(texts: list[str], tmp_path: Path, epsilon: float) -> list[str]:
    source = tmp_path / "corpus.txt"
    source.write_text("\n".join(texts) + "\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "edgedp.cli", "privatize", "--mechanism", "brr",
         "--epsilon", str(epsilon), str(source)],
        capture_output=True, text=True, check=True, timeout=600, env=os.environ.copy(),
    )  # fmt: skip
    return result.stdout.splitlines()


@pytest.mark.slow
def test_bbc_corpus_keep_rate_is_the_clis(bbc_frame, heads, tmp_path):
    engine = privatized(bbc_frame, epsilon=0.6)
    assert len(engine) == len(heads) == 2225
    assert all(isinstance(text, str) for text in engine)
    kept_engine = kept_words(heads[:CLI_DOCUMENTS], engine[:CLI_DOCUMENTS])
    kept_cli = kept_words(
        heads[:CLI_DOCUMENTS], cli_privatize(heads[:CLI_DOCUMENTS], tmp_path, 0.6)
    )
    assert abs(two_proportion_z(kept_engine, kept_cli)) < Z_LIMIT, (kept_engine, kept_cli)
    # the same test catches an engine that ran another epsilon
    subset = bbc_frame.where(f"id < {CLI_DOCUMENTS}")
    kept_other = kept_words(heads[:CLI_DOCUMENTS], privatized(subset, epsilon=0.63))
    assert abs(two_proportion_z(kept_other, kept_cli)) > Z_LIMIT, (kept_other, kept_cli)
    # BBC News repeats articles: equal inputs must get independent noise, wherever they ran
    copies: dict[str, list[int]] = {}
    for index, text in enumerate(heads):
        copies.setdefault(text, []).append(index)
    repeated = [  # 15 words or more: two independent outputs agree with probability < 1e-9
        indices for text, indices in copies.items() if len(indices) > 1 and len(text.split()) >= 15
    ]
    assert len(repeated) > 20
    assert all(len({engine[i] for i in indices}) == len(indices) for indices in repeated)


def test_another_pack_on_a_worker_fails_the_job_with_asset_error(spark, tmp_path):
    pack = copy_default_pack(tmp_path)
    frame = spark.createDataFrame([(0, "hello world"), (1, "good morning")], "id long, text string")
    job = edgedp.engines.spark.privatize(
        frame, epsilon=0.6, pack=pack
    )  # the driver pins this digest
    change_manifest(pack)
    with pytest.raises(Exception, match="AssetError") as failure:
        job.collect()
    assert "is not the expected" in str(failure.value)


def test_options_and_seeded_runs(spark):
    frame = spark.createDataFrame(
        [(i, "Zorbulak saw a b c d e f g h") for i in range(8)], "id long, text string"
    ).repartition(4)
    masked = privatized(frame, epsilon=0.6, oov="mask")
    assert all(text.startswith("[OOV] ") for text in masked)
    with pytest.warns(edgedp.NotPrivateWarning):
        first = privatized(frame, epsilon=0.3, seed=11)
    with pytest.warns(edgedp.NotPrivateWarning):
        second = privatized(frame, epsilon=0.3, seed=11)
    assert first == second


def test_ledger_gets_one_charge_per_record(spark, heads, tmp_path):
    rows = [(i, f"user{i % 3}", text) for i, text in enumerate(heads[:30])]
    frame = spark.createDataFrame(rows, "id long, user string, text string")
    path = tmp_path / "ledger.db"
    out = edgedp.engines.spark.privatize(
        frame, epsilon=0.6, ledger=path, scope_column="user", cost_column="epsilon_spent"
    ).collect()
    brr = edgedp.BRR(edgedp.load_pack(), epsilon=0.6)
    ledger = PrivacyLedger(path)
    for user in ("user0", "user1", "user2"):
        texts = [text for _, who, text in rows if who == user]
        assert len(ledger.history(user)) == len(texts) == 10
        assert ledger.spent(user)[0] == pytest.approx(brr.privacy_cost(texts).epsilon)
    assert sorted(row.epsilon_spent for row in out) == pytest.approx(
        sorted(brr.privacy_cost([text]).epsilon for _, _, text in rows)
    )


def test_embed_releases_public_candidates(spark, sentence_pack):
    articles = bbc_articles()[::300]  # 8 whole articles, ~20 sentences each
    frame = spark.createDataFrame(list(enumerate(articles)), "id long, text string")
    out = edgedp.engines.spark.embed(frame, mechanism="deepcandidate", epsilon=10.0)
    assert "text" not in out.columns  # the raw text is dropped
    assert dict(out.dtypes)["embedding"] == "array<float>"
    rows = out.orderBy("id").collect()
    assert [row.id for row in rows] == list(range(len(articles)))
    candidates = np.asarray(sentence_pack.candidates, dtype=np.float32)
    for row in rows:
        embedding = np.asarray(row.embedding, dtype=np.float32)
        assert embedding.shape == (sentence_pack.dims,)
        assert (np.abs(candidates - embedding).max(axis=1) == 0).any()
