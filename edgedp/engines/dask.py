"""Privatize a corpus with Dask (``pip install ".[dask]"`` in a checkout).

:func:`privatize` and :func:`embed` are ``dask.dataframe.map_partitions`` over
:func:`edgedp.engines.corpus.privatize_batches`: the same packs, randomness, guarantees and budget
semantics as :mod:`edgedp.engines.corpus` and :mod:`edgedp.engines.spark` (per record, the
mechanism's guarantee; the pack loaded and verified once per worker process, pinned by the driver's
manifest digest; OS entropy per worker; ``seed=`` only for loud test runs, a child seed per
partition; ``ledger=`` with ``scope_column=``/``scope=`` charges one event per record;
``cost_column=`` writes each record's epsilon; the text column is replaced or dropped unless
``keep_plaintext=True``). Works on the local scheduler and on
``dask.distributed`` clusters; a worker that finds another pack raises
:class:`edgedp.AssetError`, which the client re-raises.
"""

from __future__ import annotations

from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd

from edgedp.engines import corpus
from edgedp.errors import InputError
from edgedp.registry import DEFAULT_DOCUMENT_MECHANISM


def privatize(
    ddf: dd.DataFrame, column: str = "text", mechanism: str = "brr", **settings: Any
) -> dd.DataFrame:
    """``ddf`` with ``column`` privatized into ``out_column`` (default: in place); see
    :func:`edgedp.engines.spark.privatize` and :func:`edgedp.engines.corpus.plan_privatize`."""
    job = corpus.plan_privatize(column, mechanism, **settings)
    return _run(ddf, job, pd.Series([], dtype=object))


def embed(
    ddf: dd.DataFrame,
    column: str = "text",
    mechanism: str = DEFAULT_DOCUMENT_MECHANISM,
    **settings: Any,
) -> dd.DataFrame:
    """``ddf`` with one DP embedding (a float32 array) per document of ``column``; see
    :func:`edgedp.engines.spark.embed` and :func:`edgedp.engines.corpus.plan_embed`."""
    job = corpus.plan_embed(column, mechanism, **settings)
    return _run(ddf, job, pd.Series([], dtype=object))


def _privatize_partition(
    frame: pd.DataFrame, job: corpus.CorpusJob, partition_info: dict[str, Any] | None = None
) -> pd.DataFrame:
    partition = 0 if partition_info is None else int(partition_info["number"])
    (out,) = corpus.privatize_batches([frame], job, partition=partition)
    return out


def _run(ddf: dd.DataFrame, job: corpus.CorpusJob, out_meta: pd.Series) -> dd.DataFrame:
    if job.column not in ddf.columns:
        raise InputError(f"column {job.column!r} is not a column of the DataFrame")
    if job.scope_column is not None and job.scope_column not in ddf.columns:
        raise InputError(f"scope_column {job.scope_column!r} is not a column of the DataFrame")
    meta = ddf._meta.copy()
    meta[job.out_column] = out_meta
    if job.drop_input:
        meta = meta.drop(columns=[job.column])
    if job.cost_column is not None:
        meta[job.cost_column] = pd.Series([], dtype=np.float64)
    result: dd.DataFrame = ddf.map_partitions(  # type: ignore[no-untyped-call]
        _privatize_partition, job, meta=meta, align_dataframes=False
    )
    return result


__all__ = ["embed", "privatize"]
