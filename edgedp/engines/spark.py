"""Privatize a corpus on Apache Spark (``pip install ".[spark]"`` in a checkout).

:func:`privatize` rewrites a text column with a word mechanism and :func:`embed` turns a document
column into DP document embeddings, both as one ``mapInArrow`` stage over
:func:`edgedp.engines.corpus.privatize_batches` (Arrow record batches straight from Spark's Python
workers: no pandas conversion, and pandas is not needed). The result is a lazy DataFrame:
nothing runs until an action (``write``, ``count``, ``collect``), and **every action runs the
mechanism again**: fresh noise (two actions are two releases of the same records) and fresh ledger
charges. Write the result once, or ``cache()`` it, and share that.

Guarantees, packs, randomness and budget are those of :mod:`edgedp.engines.corpus`, in short:

* **per record, the mechanism's guarantee** (e.g. BRR: epsilon per bit, epsilon * d_Hamming per
  word), unchanged by Spark, the number of executors or the partitioning;
* every executor's Python worker loads the pack once (every file read and verified) by the
  name or path given here, pinned by the manifest digest taken on the driver; a worker that finds
  another pack fails the job with :class:`edgedp.AssetError` (Spark reports it inside its
  ``PythonException``);
* OS entropy in every worker; ``seed=`` is for tests only (warns, NOT private; a child seed per
  partition);
* ``ledger=`` with ``scope_column=`` (or ``scope=``) charges one event per record before release,
  on a ledger file every worker can open (one machine); ``cost_column=`` writes each record's
  epsilon instead, for a multi-node cluster.

The text column is replaced (``privatize``) or dropped (``embed``; ``privatize`` into another
``out_column``): the plaintext never travels on beside its release unless ``keep_plaintext=True``
(NOT private, warns). Other columns pass through untouched: drop what must not be shared.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pyspark import TaskContext
from pyspark.sql.types import (
    ArrayType,
    DataType,
    DoubleType,
    FloatType,
    StringType,
    StructField,
    StructType,
)

from edgedp.engines import corpus
from edgedp.errors import InputError
from edgedp.registry import DEFAULT_DOCUMENT_MECHANISM

# pyspark warns that it "does not yet fully support pandas >= 3.0.0" when it first imports its own
# pyspark.testing.utils (lazily, from its type conversions: every createDataFrame of local data)
# and from every mapInArrow. edgedp's stage exchanges Arrow record batches only (no pandas
# conversion) and tests/engines/test_spark.py runs it under pandas 3, so the warning is handled
# here once, at import, instead of reaching every user of edgedp.spark.
with warnings.catch_warnings(), contextlib.suppress(ImportError):
    warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas", FutureWarning)
    import pyspark.testing.utils  # noqa: F401

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame


def privatize(
    df: DataFrame, column: str = "text", mechanism: str = "brr", **settings: Any
) -> DataFrame:
    """``df`` with ``column`` privatized by a word mechanism into ``out_column`` (default: in place).

    ``mechanism`` is a CLI name (``brr``, ``madlib``, ``mahalanobis``, ``vickrey``,
    ``generalized-vickrey``, ``tem``, ...); ``settings`` are ``epsilon`` (required), ``out_column``,
    ``pack``, ``expected_digest``, ``seed``, ``ledger``, ``scope``, ``scope_column``,
    ``cost_column`` (:func:`edgedp.engines.corpus.plan`), ``language`` (``"auto"``: found per
    row) or ``language_column`` (:func:`edgedp.engines.corpus.plan_privatize`) and the
    mechanism's keyword arguments (``oov``, ``casing``, ``t``, ``lam``, ``geometry``, ...).
    """
    job = corpus.plan_privatize(column, mechanism, **settings)
    return _run(df, job, StringType())


def embed(
    df: DataFrame,
    column: str = "text",
    mechanism: str = DEFAULT_DOCUMENT_MECHANISM,
    **settings: Any,
) -> DataFrame:
    """``df`` with one DP embedding per document of ``column`` in ``out_column`` (array<float>).

    ``mechanism`` is ``subspace-mean`` (default: epsilon-SentDP, a noisy clipped mean of the
    sentences in the ``subspace-general`` pack's public subspace, as for ``edgedp embed``),
    ``deepcandidate`` (a public candidate embedding) or ``truncation``; see
    :func:`edgedp.engines.corpus.plan_embed`.
    """
    job = corpus.plan_embed(column, mechanism, **settings)
    return _run(df, job, ArrayType(FloatType(), containsNull=False))


def _run(df: DataFrame, job: corpus.CorpusJob, out_type: DataType) -> DataFrame:
    fields = {field.name: field for field in df.schema.fields}
    if job.column not in fields or not isinstance(fields[job.column].dataType, StringType):
        raise InputError(f"column {job.column!r} must be a string column of the DataFrame")
    if job.scope_column is not None and job.scope_column not in fields:
        raise InputError(f"scope_column {job.scope_column!r} is not a column of the DataFrame")
    schema = StructType(
        [field for field in df.schema.fields if not (job.drop_input and field.name == job.column)]
    )
    schema = _set_field(schema, job.out_column, out_type)
    if job.cost_column is not None:
        schema = _set_field(schema, job.cost_column, DoubleType())

    def privatize_partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        context = TaskContext.get()
        partition = context.partitionId() if context is not None else 0
        yield from corpus.privatize_batches(batches, job, partition=partition)

    with warnings.catch_warnings():
        # the same pandas-3 warning (see the imports)
        warnings.filterwarnings(
            "ignore", "PySpark does not yet fully support pandas", FutureWarning
        )
        return df.mapInArrow(privatize_partition, schema)


def _set_field(schema: StructType, name: str, data_type: DataType) -> StructType:
    fields = [field for field in schema.fields if field.name != name]
    position = [field.name for field in schema.fields].index(name) if name in schema.names else None
    new = StructField(name, data_type, nullable=True)
    if position is None:
        fields.append(new)
    else:
        fields.insert(position, new)
    return StructType(fields)


__all__ = ["embed", "privatize"]
