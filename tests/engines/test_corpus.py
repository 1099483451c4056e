"""The engine-neutral corpus block: batches in, batches out, pinned packs, per-partition streams."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from corpus_helpers import change_manifest, copy_default_pack

import edgedp
from edgedp.engines import corpus
from edgedp.privacy.ledger import PrivacyLedger

TEXTS = ["the cat sat on the mat", None, "Zorbulak was admitted on 12 March.", ""]


def plan(**kwargs) -> corpus.CorpusJob:
    return corpus.plan_privatize("text", "brr", **{"epsilon": 0.6, **kwargs})


def seeded_plan(seed: int, **kwargs) -> corpus.CorpusJob:
    with pytest.warns(edgedp.NotPrivateWarning):
        return plan(seed=seed, **kwargs)


def test_pandas_and_arrow_batches_keep_rows_nulls_and_other_columns():
    job = plan(out_column="private")
    frame = pd.DataFrame({"id": range(4), "text": TEXTS})
    (out,) = corpus.privatize_batches([frame], job)
    assert list(out.columns) == ["id", "private"]  # the raw text does not travel on
    assert out["id"].tolist() == [0, 1, 2, 3]
    private = out["private"].tolist()
    assert private[1] is None and private[3] == ""
    assert len(private[0].split()) == 6 and "zorbulak" not in private[2].lower()

    batch = pa.RecordBatch.from_pydict({"id": list(range(4)), "text": TEXTS})
    (arrow,) = corpus.privatize_batches([batch], plan())  # in place by default
    assert arrow.schema.names == ["id", "text"]
    assert arrow.column("text").null_count == 1
    assert len(arrow.column("text").to_pylist()[0].split()) == 6


def test_identity_epsilon_gives_the_mechanism_output():
    job = plan(epsilon=50.0)  # flip probability 2**-64: the output is the input's words
    (out,) = corpus.privatize_batches([pd.DataFrame({"text": TEXTS[:1]})], job)
    assert out["text"].tolist() == ["the cat sat on the mat"]


def test_options_reach_the_mechanism_and_bad_ones_fail_on_the_driver():
    job = plan(oov="mask")
    (out,) = corpus.privatize_batches([pd.DataFrame({"text": ["Zorbulak"]})], job)
    assert out["text"].tolist() == ["[OOV]"]
    with pytest.raises(edgedp.PrivacyParameterError):
        plan(epsilon=-1.0)
    with pytest.raises(edgedp.InputError):
        plan(oov="keep")
    with pytest.raises(edgedp.InputError):
        corpus.plan_privatize("text", "deepcandidate", epsilon=1.0)


def test_non_text_values_are_refused():
    with pytest.raises(edgedp.InputError):
        list(corpus.privatize_batches([pd.DataFrame({"text": [1, 2]})], plan()))


def test_workers_draw_os_entropy_not_a_shipped_stream():
    job = plan(epsilon=0.3)
    assert job.seed is None and job.is_private
    same = pd.DataFrame({"text": ["a b c d e f g h i j k l m n o p"] * 2})
    first = next(corpus.privatize_batches([same], job, partition=0))["text"].tolist()
    second = next(corpus.privatize_batches([same], job, partition=0))["text"].tolist()
    assert len(set(first + second)) == 4  # the same partition twice: fresh noise each time


def test_seeded_runs_warn_and_give_each_partition_its_own_child_seed():
    job = seeded_plan(5, epsilon=0.3)
    assert not job.is_private
    same = pd.DataFrame({"text": ["a b c d e f g h i j k l m n o p"]})
    outs = [next(corpus.privatize_batches([same], job, partition=p))["text"][0] for p in (0, 1, 0)]
    assert outs[0] == outs[2] and outs[0] != outs[1]
    with pytest.raises(edgedp.InputError):  # every partition would draw the same noise
        list(corpus.privatize_batches([same], job))
    children = np.random.SeedSequence(5).spawn(3)
    assert (
        corpus.partition_seed(job, 2).generate_state(4).tolist()
        == children[2].generate_state(4).tolist()
    )


def test_a_worker_with_another_pack_fails_with_asset_error(tmp_path):
    pack = copy_default_pack(tmp_path)
    job = plan(pack=pack)
    assert job.digest == corpus.pack_digest(pack)
    change_manifest(pack)  # the driver pinned the old digest
    with pytest.raises(edgedp.AssetError, match="expected"):
        list(corpus.privatize_batches([pd.DataFrame({"text": ["hello"]})], job))


def test_a_tampered_file_fails_with_asset_error(tmp_path):
    pack = copy_default_pack(tmp_path / "a")
    job = plan(pack=pack)
    codes = pack / "codes.npy"
    data = bytearray(codes.read_bytes())
    data[-1] ^= 1
    codes.write_bytes(bytes(data))
    with pytest.raises(edgedp.AssetError):
        list(corpus.privatize_batches([pd.DataFrame({"text": ["hello"]})], job))


def test_expected_digest_pins_without_loading_on_the_driver(tmp_path):
    job = plan(pack=copy_default_pack(tmp_path), expected_digest="0" * 64)
    with pytest.raises(edgedp.AssetError):
        list(corpus.privatize_batches([pd.DataFrame({"text": ["hello"]})], job))


def test_ledger_records_one_charge_per_record_before_release(tmp_path):
    path = tmp_path / "ledger.db"
    job = plan(ledger=path, scope_column="user", cost_column="epsilon_spent")
    frame = pd.DataFrame({"user": ["ann", "bob", "ann", "cy"], "text": TEXTS})
    (out,) = corpus.privatize_batches([frame], job)
    ledger = PrivacyLedger(path)
    assert len(ledger.history("ann")) == 2 and len(ledger.history("bob")) == 0  # null: no charge
    events = ledger.history("ann")  # one event per record: its mechanism's word slots, BRR's unit
    # charged: "was admitted on"; "Zorbulak" (a proper noun) and "12 March" (one date) are
    # protected slots, replaced without the mechanism; "." is no slot
    assert [event["count"] for event in events] == [6, 3]
    assert {event["mechanism"] for event in events} == {"brr"}
    assert ledger.spent("ann")[0] == pytest.approx(0.6 * (6 + 3))  # the counts above, summed
    assert ledger.spent("cy") == (0.0, 0.0)
    assert out["epsilon_spent"].tolist()[:1] == [pytest.approx(3.6)]
    assert np.isnan(out["epsilon_spent"][1])

    ledger.set_limit("ann", 10.0)
    with pytest.raises(edgedp.BudgetError):
        list(corpus.privatize_batches([frame], job))
    assert len(ledger.history("ann")) == 2 and len(ledger.history("cy")) == 1  # all or nothing


def test_ledger_needs_one_scope_kind():
    with pytest.raises(edgedp.InputError):
        plan(ledger="x.db")
    with pytest.raises(edgedp.InputError):
        plan(scope="user")


def test_embed_defaults_to_subspace_mean_with_the_general_pack_as_the_cli_does():
    job = corpus.plan_embed("text", epsilon=10.0)
    general = edgedp.load_pack("subspace-general", kind="subspace")
    assert (job.mechanism, job.digest) == ("subspace-mean", general.manifest.digest)
    docs = ["The market rose. Shares gained. Investors cheered."]
    (out,) = corpus.privatize_batches([pd.DataFrame({"text": docs})], job)
    width = edgedp.SubspaceMean(general, epsilon=10.0).output_dims
    assert out["embedding"][0].dtype == np.float32 and out["embedding"][0].shape == (width,)


def test_embed_batches_give_float32_lists_per_document(sentence_pack):
    job = corpus.plan_embed("text", mechanism="deepcandidate", epsilon=10.0)
    docs = ["The market rose. Shares gained. Investors cheered.", None]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (out,) = corpus.privatize_batches([pd.DataFrame({"text": docs})], job)
    first = out["embedding"][0]
    assert first.dtype == np.float32 and first.shape == (sentence_pack.dims,)
    # DeepCandidate releases a public candidate
    assert (np.abs(np.asarray(sentence_pack.candidates) - first).sum(axis=1) == 0).any()
    assert out["embedding"][1] is None
    assert list(out.columns) == ["embedding"]  # the documents are dropped
    batch = pa.RecordBatch.from_pydict({"user": ["a", "b"], "text": docs})
    (arrow,) = corpus.privatize_batches([batch], job)
    assert arrow.schema.names == ["user", "embedding"]
    assert arrow.schema.field("embedding").type == pa.list_(pa.float32())


@pytest.mark.parametrize("task", ["privatize", "embed"])
def test_the_plaintext_is_kept_only_when_asked_loudly(task, sentence_pack):
    planner = corpus.plan_privatize if task == "privatize" else corpus.plan_embed
    settings = {"epsilon": 10.0, "out_column": "released"}
    with pytest.warns(edgedp.NotPrivateWarning, match="keep_plaintext=True.*NOT private"):
        job = planner("text", **settings, keep_plaintext=True)
    docs = ["The market rose. Shares gained. Investors cheered."]
    for batch in (pd.DataFrame({"text": docs}), pa.RecordBatch.from_pydict({"text": docs})):
        (out,) = corpus.privatize_batches([batch], job)
        names = list(out.columns) if isinstance(out, pd.DataFrame) else out.schema.names
        assert names == ["text", "released"]
    with pytest.raises(edgedp.InputError, match="needs out_column"):
        corpus.plan_privatize("text", epsilon=1.0, keep_plaintext=True)


def test_the_runtime_and_the_block_import_no_engine():
    script = (
        "import sys, edgedp, edgedp.engines.corpus; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'pyspark', 'dask', 'distributed', 'pandas', 'pyarrow'}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("omp", "before", "expected"),
    [(None, None, 1), ("3", None, 3), ("2,1", None, 2), ("x", None, 1), ("3", 2, 2)],
)
def test_a_worker_process_uses_the_cores_of_one_task(omp, before, expected):
    # Spark sets OMP_NUM_THREADS to spark.task.cpus in its workers, Dask's nanny to 1; without it a
    # worker must not let FAISS start a thread per core beside every other worker's. A count the
    # program set itself stays.
    script = (
        "import faiss, pandas, edgedp; from edgedp.engines import corpus\n"
        + (f"edgedp.set_num_threads({before})\n" if before else "")
        + "job = corpus.plan_privatize('text', 'brr', epsilon=1.0)\n"
        "next(corpus.privatize_batches([pandas.DataFrame({'text': ['a b']})], job))\n"
        "print(edgedp.runtime.native.get_num_threads(), faiss.omp_get_max_threads())"
    )
    env = {key: value for key, value in os.environ.items() if key != "OMP_NUM_THREADS"}
    if omp is not None:
        env["OMP_NUM_THREADS"] = omp
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(expected), str(expected)]


def test_each_record_is_released_in_its_language_and_other_languages_are_protected():
    # No Dutch pack is served (English's, and any other installed): a Dutch record is protected
    # whole, never privatized as another language's noise, and it costs nothing; an English one
    # is the English release.
    job = plan(epsilon=50.0, oov="placeholder")
    assert "en" in [code for code, _, _ in job.languages] and job.language == "auto"
    frame = pd.DataFrame({"text": ["the cat sat on the mat", "tot straks, ik bel je nog"]})
    (out,) = corpus.privatize_batches([frame], plan(epsilon=50.0, oov="placeholder"))
    assert out["text"].tolist()[0] == "the cat sat on the mat"
    assert set(out["text"].tolist()[1].replace(",", "").split()) == {"[OTHER-LANGUAGE]"}
    costed = plan(epsilon=1.0, oov="placeholder", cost_column="epsilon")
    (out,) = corpus.privatize_batches([frame], costed)
    assert out["epsilon"].tolist() == [6.0, 0.0]


def test_a_language_column_or_one_language_instead_of_finding_it():
    frame = pd.DataFrame(
        {"text": ["the cat sat", "the cat sat", "the cat sat"], "lang": ["en", "nl", None]}
    )
    job = corpus.plan_privatize(
        "text", epsilon=50.0, oov="placeholder", language_column="lang", cost_column="cost"
    )
    (out,) = corpus.privatize_batches([frame], job)
    assert out["text"].tolist() == [
        "the cat sat",
        *["[OTHER-LANGUAGE] " * 2 + "[OTHER-LANGUAGE]"] * 2,
    ]
    assert out["cost"].tolist() == [150.0, 0.0, 0.0]
    fixed = corpus.plan_privatize("text", epsilon=50.0, language="en")
    (out,) = corpus.privatize_batches([pd.DataFrame({"text": ["tot straks"]})], fixed)
    assert "OTHER" not in out["text"].tolist()[0]  # English by decree: privatized, not protected
    with pytest.raises(edgedp.InputError, match="not a language served"):
        corpus.plan_privatize("text", epsilon=1.0, language="nl")
    with pytest.raises(edgedp.InputError, match="not both"):
        corpus.plan_privatize("text", epsilon=1.0, language="en", language_column="lang")
