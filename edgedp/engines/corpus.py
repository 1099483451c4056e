"""Privatizing a corpus on a data engine: the engine-neutral building block.

:func:`privatize_batches` privatizes an iterator of record batches (pandas DataFrames or pyarrow
RecordBatches) in a worker process; the Spark (:mod:`edgedp.engines.spark`) and Dask
(:mod:`edgedp.engines.dask`) adapters are thin wrappers around it. A :class:`CorpusJob`, planned on
the driver with :func:`plan_privatize` or :func:`plan_embed`, is what travels to the workers: a few
names and numbers, never a pack or a random state.

**Packs.** A worker loads the pack itself, once per process (read into private memory and verified: every
file's SHA-256), by the name or path the driver was given, pinned by the manifest digest the driver
took (``expected_digest``, or the digest of the pack the driver loaded). A worker that finds a pack
with another digest raises :class:`~edgedp.errors.AssetError` and the job fails: nothing is ever
privatized with a pack the driver did not see. Ship packs to workers as an installed edgedp (the
bundled packs, by name) or on a path every worker can read; the driver's memory is never copied.

**Randomness.** Every worker draws OS entropy (``os.urandom``) for every partition; nothing random
is sent from the driver. Only when the user asks for a reproducible run (``seed=``, which warns with
:class:`~edgedp.errors.NotPrivateWarning`: the output is then NOT private) does the job carry a seed,
and each partition derives its own child seed from it (``SeedSequence`` spawn key = partition
number), so partitions never share a stream and the result does not depend on which worker ran
which partition.

**Guarantees and budget.** Each record is privatized exactly as
:meth:`edgedp.WordMechanism.privatize_batch` or :meth:`edgedp.SentenceMechanism.embed_batch` would
on one device: the per-record guarantee is the mechanism's (word mechanisms: epsilon * d per word,
epsilon * sum_i d(w_i, w'_i) per record; DeepCandidate and Truncation: epsilon-SentDP per document),
unchanged by the engine, the number of workers or the partitioning. A corpus job does not compose
*across* records: records of different people are protected independently. Records of the *same*
person add up (basic composition), which is what a ledger tracks: with ``ledger=`` (a
:class:`~edgedp.privacy.ledger.PrivacyLedger` file) and ``scope_column=`` (the column naming the person or
device of each record; or one ``scope=`` for the whole job) every worker records one charge per
record - the mechanism's ``privacy_cost`` of that record (epsilon per word slot, or epsilon per
document: a :class:`~edgedp.privacy.guarantee.DpEvent` with the mechanism's guarantee) in one transaction
per batch (:meth:`~edgedp.privacy.ledger.PrivacyLedger.charge_batch`), *before* releasing the batch. A
batch that would exceed a scope's limit (or mix accounting units in one scope) raises
:class:`~edgedp.errors.BudgetError` and the job fails; charges committed by earlier batches stay (a
failed or retried task over-counts, never under-counts). The ledger is SQLite: its path must be a
local file every worker can open with working locks (one machine: local mode, a LocalCluster, a
single-host cluster). On a multi-node cluster, ask for ``cost_column=``
instead: each output record then carries its own epsilon, to be recorded by whatever budget service
the team runs. Null records are released as null and cost nothing.

**Languages.** A privatize job releases each record as :class:`edgedp.Multilingual` releases a
message: in the language found for it (each sentence's), or the one ``language=`` fixes, or the
one its ``language_column`` names, with that language's word pack (each pinned by its digest);
a record in a language without a pack served is protected whole and costs nothing. The language
used is released as the layout is (see :mod:`edgedp.words.multilingual`).

**The raw text does not travel on.** The input column is replaced in place (``privatize`` without
``out_column``) or dropped from the output (``embed``, and ``privatize`` into another
``out_column``), so writing the result out never ships the plaintext beside its private release.
``keep_plaintext=True`` keeps it (for a comparison on the trusted side only) and warns with
:class:`~edgedp.errors.NotPrivateWarning`.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import warnings
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from edgedp.errors import InputError, NotPrivateWarning
from edgedp.languages.packs import DEFAULT_LANGUAGE, installed_languages, word_pack
from edgedp.packs.loading import resolve_pack_path
from edgedp.packs.manifest import read_manifest
from edgedp.privacy.guarantee import DpEvent
from edgedp.privacy.ledger import PrivacyLedger
from edgedp.privacy.randomness import RandomSource, spawned_source
from edgedp.privacy.validation import check_epsilon
from edgedp.registry import (
    DEFAULT_DOCUMENT_MECHANISM,
    DOCUMENT_MECHANISMS,
    WORD_MECHANISMS,
    MechanismRegistry,
    load_pack,
)
from edgedp.runtime.native import get_num_threads, set_num_threads, task_threads
from edgedp.words.multilingual import AUTO, OTHER_LANGUAGE, Multilingual

Task = Literal["privatize", "embed"]
#: The mechanisms of each task, by name.
TASK_MECHANISMS: Mapping[str, MechanismRegistry[Any]] = {
    "privatize": WORD_MECHANISMS,
    "embed": DOCUMENT_MECHANISMS,
}


@dataclass(frozen=True)
class CorpusJob:
    """What a worker needs to privatize its batches: names and numbers only (small, picklable)."""

    task: Task
    mechanism: str
    options: Mapping[str, Any]
    pack: str
    digest: str
    column: str
    out_column: str
    seed: np.random.SeedSequence | None = None
    ledger: str | None = None
    scope: str | None = None
    scope_column: str | None = None
    cost_column: str | None = None
    #: Drop ``column`` from the output (it is not replaced in place and was not asked to be kept).
    drop_input: bool = True
    #: ``privatize``: the languages served, each ``(language, pack, digest)``.
    languages: tuple[tuple[str, str, str], ...] = ()
    #: ``privatize``: ``"auto"`` (found per record) or the one language of every record.
    language: str = "auto"
    #: ``privatize``: the column naming each record's language (instead of finding it).
    language_column: str | None = None

    @property
    def is_private(self) -> bool:
        """False for a loud, reproducible (seeded) run."""
        return self.seed is None


def plan_privatize(
    column: str = "text",
    mechanism: str = "brr",
    *,
    language: str = "auto",
    language_column: str | None = None,
    **settings: Any,
) -> CorpusJob:
    """Plan (on the driver) a job that rewrites ``column`` with a word mechanism.

    ``mechanism`` is a name of :data:`edgedp.registry.WORD_MECHANISMS` (``brr``, ``madlib``,
    ``tem``, ...); ``settings`` are those of :func:`plan` and the mechanism's keyword arguments
    (``oov``, ``casing``, ``t``, ``lam``, ``geometry``, ...). ``out_column`` defaults to
    ``column`` (the raw text is replaced, so it cannot travel on with the output by accident; into
    another ``out_column``, ``column`` is dropped unless ``keep_plaintext=True``).

    Each record is released as :class:`edgedp.Multilingual` releases a message: ``language="auto"``
    finds its language (each sentence's), ``language="es"`` fixes it, ``language_column=`` names
    the column holding each record's language code (a record whose language has no pack served,
    or is null, is protected whole). The languages served are those with an installed word pack,
    or ``pack``'s alone when ``pack=`` is given; each is pinned by its digest as the pack is.
    """
    if language_column is not None and (
        not isinstance(language_column, str) or not language_column
    ):
        raise InputError(f"language_column must be a column name, got {language_column!r}")
    if language_column is not None and language != AUTO:
        raise InputError("give language= or language_column=, not both")
    job = plan("privatize", column, mechanism, **settings)
    given = settings.get("pack") is not None
    languages = _served_languages(job, given, language)
    return dataclasses.replace(
        job, languages=languages, language=language, language_column=language_column
    )


def _served_languages(
    job: CorpusJob, given: bool, language: str
) -> tuple[tuple[str, str, str], ...]:
    """The ``(language, pack, digest)`` of each language a privatize job serves."""
    served: tuple[tuple[str, str, str], ...]
    if given:
        own = str(read_manifest(resolve_pack_path(job.pack)).data.get("language", DEFAULT_LANGUAGE))
        served = ((own, job.pack, job.digest),)
    else:
        served = tuple(
            (code, word_pack(code), pack_digest(word_pack(code))) for code in installed_languages()
        )
    codes = [code for code, _, _ in served]
    if language != AUTO and language not in codes:
        raise InputError(
            f"language={language!r}: not a language served here ({', '.join(codes)}) nor 'auto'"
        )
    return served


def plan_embed(
    column: str = "text", mechanism: str = DEFAULT_DOCUMENT_MECHANISM, **settings: Any
) -> CorpusJob:
    """Plan (on the driver) a job that embeds each document of ``column`` (float32 list column).

    ``mechanism`` is a name of :data:`edgedp.registry.DOCUMENT_MECHANISMS`: ``subspace-mean``
    (default, as for ``edgedp embed``), ``deepcandidate`` or ``truncation``; the pack defaults to
    the mechanism's (``subspace-general``, else ``sentences-bbc``) and ``out_column`` to
    ``"embedding"``. Each output is one embedding per document with the mechanism's SentDP
    guarantee (see :class:`edgedp.DeepCandidate`, :class:`edgedp.SubspaceMean`); ``column`` is
    dropped from the output unless ``keep_plaintext=True`` (NOT private, warns).
    """
    settings.setdefault("out_column", "embedding")
    if settings["out_column"] == column:
        raise InputError("embed writes a new column: out_column must differ from column")
    return plan("embed", column, mechanism, **settings)


def plan(
    task: Task,
    column: str,
    mechanism: str,
    *,
    epsilon: float,
    out_column: str | None = None,
    pack: str | Path | None = None,
    expected_digest: str | None = None,
    seed: int | None = None,
    ledger: str | Path | None = None,
    scope: str | None = None,
    scope_column: str | None = None,
    cost_column: str | None = None,
    keep_plaintext: bool = False,
    **options: Any,
) -> CorpusJob:
    """The job of ``task`` (``"privatize"`` or ``"embed"``), checked on the driver.

    ``pack`` is a pack name or a directory every worker can read; the mechanism is built once here
    on the driver's copy (unless ``expected_digest`` is given), so that bad parameters fail before
    any worker starts. See the module docstring for ``expected_digest``, ``seed``, ``ledger``,
    ``scope``, ``scope_column``, ``cost_column`` and ``keep_plaintext``; ``options`` are the
    mechanism's keyword arguments.
    """
    registry = TASK_MECHANISMS[task]
    if mechanism not in registry:
        kind = "word" if task == "privatize" else "document"
        raise InputError(f"unknown {kind} mechanism {mechanism!r}; choose from {sorted(registry)}")
    for name, value in (("column", column), ("out_column", out_column)):
        if value is not None and (not isinstance(value, str) or not value):
            raise InputError(f"{name} must be a non-empty column name, got {value!r}")
    if "rng" in options:
        raise InputError("corpus jobs draw OS entropy in every worker; pass seed= for a test run")
    options = {"epsilon": check_epsilon(epsilon), **options}
    if ledger is not None and (scope is None) == (scope_column is None):
        raise InputError("a ledger needs exactly one of scope= (the whole job) or scope_column=")
    if ledger is None and (scope is not None or scope_column is not None):
        raise InputError("scope and scope_column need ledger=")
    out_column = out_column or column
    if not isinstance(keep_plaintext, bool):
        raise InputError(f"keep_plaintext must be True or False, got {keep_plaintext!r}")
    if keep_plaintext:
        if out_column == column:
            raise InputError(
                "keep_plaintext=True needs out_column= (the raw text is otherwise replaced)"
            )
        warnings.warn(
            f"keep_plaintext=True: the output keeps column {column!r} as it was, in plain text: "
            "NOT private; drop it before the result leaves the trusted side",
            NotPrivateWarning,
            stacklevel=4,
        )
    root = None
    if seed is not None:
        RandomSource.seeded(seed)  # validates and warns: the run is NOT private
        root = np.random.SeedSequence(int(seed))
    pack = pack or registry.entry(mechanism).pack
    # Workers resolve names in their own installation; paths are made absolute for them.
    is_name = isinstance(pack, str) and os.sep not in pack and (os.altsep or os.sep) not in pack
    shipped = str(pack) if is_name else str(Path(pack).resolve())
    if expected_digest is None:
        driver_pack = load_pack(shipped)  # verifies every file; its digest pins the workers
        expected_digest = driver_pack.manifest.digest
        _build(task, mechanism, driver_pack, options, None)  # fail fast on bad parameters
    return CorpusJob(
        task=task,
        mechanism=mechanism,
        options=options,
        pack=shipped,
        digest=expected_digest,
        column=column,
        out_column=out_column,
        seed=root,
        ledger=None if ledger is None else str(Path(ledger).resolve()),
        scope=scope,
        scope_column=scope_column,
        cost_column=cost_column,
        drop_input=out_column != column and not keep_plaintext,
    )


def pack_digest(pack: str | Path | None = None) -> str:
    """The manifest SHA-256 of a pack (what ``expected_digest`` pins), without loading it."""
    return read_manifest(resolve_pack_path(pack)).digest


# -- worker side ----------------------------------------------------------------------------------

_PACKS: dict[tuple[str, str], Any] = {}  # per worker process: (pack, digest) -> loaded pack


def worker_pack(job: CorpusJob) -> Any:
    """The job's pack in this process: loaded, verified and pinned once, then reused.

    The first call also fixes the process's thread count, unless it was set: a worker process uses
    the cores its engine gives a task (:func:`edgedp.runtime.native.task_threads`: one by default),
    so that many workers on one machine never multiply their threads with FAISS's (which would
    otherwise start one per core in every worker).
    """
    if get_num_threads() is None:
        set_num_threads(task_threads())
    return _worker_pack(job.pack, job.digest)


def _worker_pack(pack: str, digest: str) -> Any:
    if get_num_threads() is None:
        set_num_threads(task_threads())
    key = (pack, digest)
    if key not in _PACKS:
        _PACKS[key] = load_pack(pack, expected_digest=digest)
    return _PACKS[key]


def _build(
    task: Task,
    mechanism: str,
    pack: Any,
    options: Mapping[str, Any],
    seed: np.random.SeedSequence | None,
) -> Any:
    rng = spawned_source(seed)
    return TASK_MECHANISMS[task][mechanism](pack, **options, rng=rng)


def partition_seed(job: CorpusJob, partition: int | None) -> np.random.SeedSequence | None:
    """The child seed of ``partition`` in a seeded run (None: OS entropy, the private default).

    The same child ``SeedSequence(seed).spawn(n)[partition]`` would give, for any n.
    """
    if job.seed is None:
        return None
    if isinstance(partition, bool) or not isinstance(partition, int) or partition < 0:
        raise InputError(f"a seeded run needs the partition number, got {partition!r}")
    return np.random.SeedSequence(job.seed.entropy, spawn_key=(*job.seed.spawn_key, partition))


def privatize_batches(
    batches: Iterable[Any], job: CorpusJob, *, partition: int | None = None
) -> Iterator[Any]:
    """Privatize (or embed) ``job.column`` of every batch; yields batches of the same type.

    ``batches`` are pandas DataFrames or pyarrow RecordBatches (one partition of a dataset, in
    order); each output batch is its input with ``job.out_column`` set (plus ``job.cost_column``
    if asked). ``partition`` is the partition number, needed for a seeded run only. Raises
    :class:`AssetError` if this worker's pack is not the one the driver pinned.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotPrivateWarning)  # announced on the driver
        if job.languages:
            mechanism: Any = _multilingual(job, partition_seed(job, partition))
        else:
            mechanism = _build(
                job.task,
                job.mechanism,
                worker_pack(job),
                job.options,
                partition_seed(job, partition),
            )
    ledger = None if job.ledger is None else PrivacyLedger(job.ledger)
    for batch in batches:
        yield _privatize_batch(batch, job, mechanism, ledger)


def _multilingual(job: CorpusJob, seed: np.random.SeedSequence | None) -> Multilingual:
    """The job's word mechanism in every language it serves, each pack pinned by its digest."""
    packs = {code: _worker_pack(pack, digest) for code, pack, digest in job.languages}
    options = dict(job.options)
    epsilon = options.pop("epsilon")
    return Multilingual(
        WORD_MECHANISMS[job.mechanism],
        epsilon=epsilon,
        languages=packs,
        language=job.language,
        rng=spawned_source(seed),
        **options,
    )


class _ByColumn:
    """A :class:`Multilingual` releasing each record in the language its column names."""

    def __init__(self, routed: Multilingual, languages: list[Any]) -> None:
        self.routed = routed
        self.languages = languages

    def _of(self, language: Any) -> Any:
        return self.routed.mechanism(language) if language in self.routed.languages else None

    def privacy_cost(self, index: int, text: str) -> DpEvent:
        own = self._of(self.languages[index])
        if own is None:  # protected whole: nothing goes through a mechanism
            return DpEvent(self.routed.primary.name, self.routed.guarantee(), 0)
        return DpEvent(own.name, self.routed.guarantee(), own.units([text]))

    def privatize_batch(self, texts: list[str], indices: list[int]) -> list[str]:
        groups: dict[Any, list[int]] = {}
        for position, index in enumerate(indices):
            groups.setdefault(self.languages[index], []).append(position)
        released: list[str] = [""] * len(texts)
        for language, positions in groups.items():
            own = self._of(language)
            inputs = [texts[position] for position in positions]
            outputs = (
                self.routed.primary.protect_all(inputs, OTHER_LANGUAGE)
                if own is None
                else own.privatize_batch(inputs)
            )
            for position, output in zip(positions, outputs, strict=True):
                released[position] = output
        return released


def _privatize_batch(batch: Any, job: CorpusJob, mechanism: Any, ledger: Any) -> Any:
    arrow = _is_arrow(batch)
    texts = _column(batch, job.column, arrow)
    present = [index for index, text in enumerate(texts) if text is not None]
    for index in present:
        if not isinstance(texts[index], str):
            raise InputError(
                f"column {job.column!r} must hold text, found {type(texts[index]).__name__}"
            )
    inputs = [texts[index] for index in present]
    # the release reuses what the charges read (a word mechanism's cut of each text)
    with mechanism.reading_once():
        by_column = None
        if job.language_column is not None:
            by_column = _ByColumn(mechanism, _column(batch, job.language_column, arrow))
            events = [by_column.privacy_cost(index, texts[index]) for index in present]
        else:
            events = [mechanism.privacy_cost([text]) for text in inputs]  # one DpEvent per record
        if ledger is not None:
            scopes = (
                [job.scope] * len(present)
                if job.scope_column is None
                else [
                    _scope(value)
                    for value in _pick(_column(batch, job.scope_column, arrow), present)
                ]
            )
            ledger.charge_batch(list(zip(scopes, events, strict=True)))
        values: list[Any] = [None] * len(texts)
        if inputs:
            if by_column is not None:
                released = by_column.privatize_batch(inputs, present)
            elif job.task == "privatize":
                released = mechanism.privatize_batch(inputs)
            else:
                released = list(mechanism.embed_batch(inputs))
            for index, value in zip(present, released, strict=True):
                values[index] = value
    out = _with_column(batch, job.out_column, values, job.task, arrow)
    if job.cost_column is not None:
        spent: list[float | None] = [None] * len(texts)
        for index, event in zip(present, events, strict=True):
            spent[index] = event.epsilon
        out = _with_column(out, job.cost_column, spent, "cost", arrow)
    return _without_column(out, job.column, arrow) if job.drop_input else out


def _without_column(batch: Any, name: str, arrow: bool) -> Any:
    if not arrow:
        return batch.drop(columns=[name])
    import pyarrow as pa

    kept = [index for index, field in enumerate(batch.schema) if field.name != name]
    return pa.RecordBatch.from_arrays(
        [batch.column(index) for index in kept], schema=pa.schema([batch.schema[i] for i in kept])
    )


def _pick(values: list[Any], indices: list[int]) -> list[Any]:
    return [values[index] for index in indices]


def _scope(value: Any) -> str:
    if value is None:
        raise InputError("a record has no scope (null in scope_column): it cannot be charged")
    return str(value)


def _is_arrow(batch: Any) -> bool:
    pyarrow = sys.modules.get("pyarrow")
    if pyarrow is not None and isinstance(batch, pyarrow.RecordBatch):
        return True
    pandas = sys.modules.get("pandas")
    if pandas is not None and isinstance(batch, pandas.DataFrame):
        return False
    raise InputError(
        f"a batch is a pandas DataFrame or a pyarrow RecordBatch, got {type(batch).__name__}"
    )


def _column(batch: Any, name: str, arrow: bool) -> list[Any]:
    names = batch.schema.names if arrow else list(batch.columns)
    if name not in names:
        raise InputError(f"the batch has no column {name!r} (columns: {names})")
    if arrow:
        return list(batch.column(name).to_pylist())
    series = batch[name]
    missing = series.isna().tolist()
    return [None if gone else value for value, gone in zip(series.tolist(), missing, strict=True)]


def _with_column(batch: Any, name: str, values: list[Any], kind: str, arrow: bool) -> Any:
    if arrow:
        import pyarrow as pa

        types = {"privatize": pa.string(), "embed": pa.list_(pa.float32()), "cost": pa.float64()}
        array = pa.array(
            [None if v is None else np.asarray(v).tolist() for v in values]
            if kind == "embed"
            else values,
            type=types[kind],
        )
        if name in batch.schema.names:
            return batch.set_column(batch.schema.get_field_index(name), name, array)
        return batch.append_column(name, array)
    import pandas as pd

    out = batch.copy(deep=False)
    dtype = {"privatize": object, "embed": object, "cost": "float64"}[kind]
    out[name] = pd.Series(values, index=batch.index, dtype=dtype)
    return out


__all__ = [
    "DOCUMENT_MECHANISMS",
    "CorpusJob",
    "pack_digest",
    "partition_seed",
    "plan_embed",
    "plan_privatize",
    "privatize_batches",
    "worker_pack",
]
