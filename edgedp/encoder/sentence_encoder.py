"""The on-device sentence encoder: tokenizers + onnxruntime + numpy, or numpy alone; no torch.

:class:`SentenceEncoder` runs one of two kinds of ONNX encoder (the ``architecture`` of the
encoder pack, :data:`ARCHITECTURES`):

* ``"bert"`` reproduces sentence-transformers' all-MiniLM-L6-v2: the transformer gives token
  embeddings, which are averaged over the attention mask (mean pooling; the mask sum is clamped at
  1e-9 as sentence-transformers does) and divided by their L2 norm (clamped at 1e-12, as
  ``torch.nn.functional.normalize``); WordPiece tokens.
* ``"use-dan-cnn"``, the multilingual Universal Sentence Encoder: the graph computes the whole
  unit-length sentence embedding from the ids and the mask (``edgedp_export.use_multilingual``
  describes it); SentencePiece unigram tokens from :mod:`~edgedp.encoder.unigram` on both tiers
  (it gives SentencePiece's ids, where tokenizers' Unigram differs on some grapheme clusters, and
  holds the 128,000 pieces in 44 MB where tokenizers takes 140 MB).

:class:`Recoder` runs the pack's recoder H (SentDP Sec. 4.3) on the embeddings.

**Tiers** (:func:`edgedp.runtime.backend.backend`, ``"encoder"``): the native tier tokenizes with
Hugging Face tokenizers (WordPiece; the unigram tokenizer is edgedp's on both tiers) and runs the
ONNX files with onnxruntime; the numpy tier runs the same files with numpy alone
(:mod:`~edgedp.encoder.wordpiece` or :mod:`~edgedp.encoder.unigram`,
:mod:`~edgedp.encoder.numpy_transformer` or :mod:`~edgedp.encoder.numpy_graph`: the same ids,
embeddings within 1e-6 of cosine). Both tiers
have the same tokenizer and session interface, so everything below is shared. onnxruntime and
tokenizers are imported only on the native tier, and the sessions are created on first use:
``import edgedp`` and the word-level mechanisms never load them. Sentences are tokenized in
batches, sorted by length so that a batch pads little, and returned in input order.

**Threads.** By default every onnxruntime call runs on one thread, and after
``edgedp.set_num_threads(n)`` the calls of one ``encode`` or ``recode`` are spread over n worker
threads (:func:`edgedp.runtime.native.map_in_threads`) that share the one session: onnxruntime's
``run`` is thread-safe and releases the GIL. One session with n intra-op threads scales poorly on
one short sentence per call, n single-threaded callers like n processes
(bench/reports/2026-11-24-throughput.md), and only calls of one sentence keep the DP path's
embeddings independent of each other. A ``threads`` argument instead gives the session that many
intra-op threads and makes its calls one at a time (the exporter's large batches).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from edgedp.encoder.numpy_graph import NumpyGraph
from edgedp.encoder.numpy_transformer import NumpyTransformer
from edgedp.encoder.unigram import Unigram
from edgedp.encoder.wordpiece import WordPiece
from edgedp.errors import REBUILD_HINT, SENTENCES_EXTRA, AssetError, DependencyError, InputError
from edgedp.privacy.validation import check_positive_int
from edgedp.runtime.backend import backend
from edgedp.runtime.native import GraphIO, Lazy, lazy_session, map_in_threads, worker_threads
from edgedp.text.segmentation import check_text

ENCODER_IO: GraphIO = (("input_ids", "attention_mask", "token_type_ids"), ("token_embeddings",))
#: The graph of an encoder that pools and normalizes by itself (``"use-dan-cnn"``).
SENTENCE_IO: GraphIO = (("input_ids", "attention_mask"), ("sentence_embedding",))
#: Encoder architecture -> the graph's inputs and outputs.
ARCHITECTURES: dict[str, GraphIO] = {"bert": ENCODER_IO, "use-dan-cnn": SENTENCE_IO}
RECODER_IO: GraphIO = (("embeddings",), ("recoded",))
T = TypeVar("T")
#: Most sentences, and most tokens (sentences x the longest), per batched onnxruntime call. Small
#: batches of similar lengths run at the memory of one sentence per call, where batches of 32 cost
#: far more memory on long sentences, and faster than either (bench/reports/2026-11-23-domains.md,
#: domain pack build cost).
DEFAULT_BATCH_SIZE = 8
DEFAULT_BATCH_TOKENS = 512
_LENGTH_CHUNK = 1024
_MASK_EPSILON = 1e-9
_NORM_EPSILON = 1e-12


def mean_pool_normalize(token_embeddings: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
    """sentence-transformers' mean pooling followed by its Normalize module, in float32."""
    mask = attention_mask.astype(np.float32)[:, :, None]
    summed = (token_embeddings * mask).sum(axis=1)
    means = summed / np.maximum(mask.sum(axis=1), _MASK_EPSILON)
    norms = np.linalg.norm(means, axis=1, keepdims=True)
    normalized: np.ndarray = (means / np.maximum(norms, _NORM_EPSILON)).astype(np.float32)
    return normalized


class SentenceEncoder:
    """Unit-length sentence embeddings from an ONNX encoder (see the module docstring).

    ``model`` is the ONNX model (``architecture`` ``"bert"``: inputs ``input_ids``,
    ``attention_mask``, ``token_type_ids``, output token embeddings; ``"use-dan-cnn"``: inputs
    ``input_ids`` and ``attention_mask``, output the sentence embeddings), ``tokenizer`` the
    ``tokenizer.json`` with truncation and pad-to-longest padding configured (an encoder pack
    ships it so; anything else is rejected). Each is a path or the file's bytes; a loaded pack
    passes the bytes it verified, so that nothing is read again.
    """

    def __init__(
        self,
        model: Path | bytes,
        tokenizer: Path | bytes,
        *,
        dims: int,
        max_seq_length: int,
        threads: int | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        batch_tokens: int = DEFAULT_BATCH_TOKENS,
        architecture: str = "bert",
    ) -> None:
        if architecture not in ARCHITECTURES:
            raise AssetError(
                f"encoder architecture {architecture!r} is not one this edgedp computes "
                f"({', '.join(ARCHITECTURES)}); upgrade edgedp"
            )
        #: "native" (tokenizers + onnxruntime) or "numpy" (numpy alone): module docstring, Tiers.
        self.backend = backend("encoder")
        #: "bert" (token embeddings, mean-pooled here) or "use-dan-cnn" (pooled in the graph).
        self.architecture = architecture
        shown = "tokenizer.json" if isinstance(tokenizer, bytes) else str(tokenizer)
        self._tokenizer: Unigram | WordPiece | Any
        if architecture != "bert":  # both tiers: a third of tokenizers' memory, SentencePiece's ids
            self._tokenizer = Unigram(_contents(tokenizer, shown), name=shown)
        elif self.backend == "native":
            self._tokenizer = _native_tokenizer(tokenizer, shown)
        else:
            self._tokenizer = WordPiece(_contents(tokenizer, shown), name=shown)
        truncation, padding = self._tokenizer.truncation, self._tokenizer.padding
        if (
            not truncation
            or truncation["max_length"] != max_seq_length
            or not padding
            or padding["length"] is not None
        ):
            raise AssetError(
                f"{shown} must truncate at {max_seq_length} tokens and pad to the longest "
                f"sentence (found truncation={truncation}, padding={padding}); rebuild the pack"
            )
        self.model_path = None if isinstance(model, bytes) else model
        self.tokenizer_path = None if isinstance(tokenizer, bytes) else tokenizer
        self.dims = dims
        self.max_seq_length = max_seq_length
        self.batch_size = check_positive_int(batch_size, "batch_size")
        self.batch_tokens = check_positive_int(batch_tokens, "batch_tokens")
        self._session = _lazy_model(
            model,
            ARCHITECTURES[architecture],
            threads,
            self.backend,
            name="encoder.onnx",
            dims=dims,
        )
        self._spread = threads is None

    def encode(self, sentences: Sequence[str], *, independent: bool = False) -> np.ndarray:
        """Unit-length float32 embeddings, shape (len(sentences), dims), in input order.

        ``independent=True`` runs every sentence on its own (no batch, no padding), so that its
        embedding is a function of that sentence alone, bit for bit. Batching changes the shapes of
        the matrix products and so the float rounding: a sentence's embedding would then depend
        (in its last bits) on the other sentences of the batch, which the sentence-level privacy
        proofs do not allow. The DP mechanisms use it; it costs about a third of the throughput.
        """
        if isinstance(sentences, str | bytes):
            raise InputError("encode takes a sequence of sentences, not a single string")
        texts = [check_text(sentence) for sentence in sentences]
        out = np.empty((len(texts), self.dims), dtype=np.float32)
        if not texts:
            return out
        session = self._session.get()

        def encode_rows(rows: list[int]) -> None:
            encodings = self._tokenizer.encode_batch([texts[row] for row in rows])
            ids = np.array([encoding.ids for encoding in encodings], dtype=np.int64)
            mask = np.array([encoding.attention_mask for encoding in encodings], dtype=np.int64)
            if self.architecture != "bert":
                (out[rows],) = session.run(None, {"input_ids": ids, "attention_mask": mask})
                return
            types = np.array([encoding.type_ids for encoding in encodings], dtype=np.int64)
            (tokens,) = session.run(
                None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            )
            out[rows] = mean_pool_normalize(tokens, mask)

        run_calls(encode_rows, list(self._batches(texts, independent)), spread=self._spread)
        return out

    def _batches(self, texts: list[str], independent: bool) -> Iterator[list[int]]:
        """Rows per call: one each, or sorted by token count within the sentence and token caps."""
        if independent:
            yield from ([row] for row in range(len(texts)))
            return
        lengths = np.concatenate(
            [
                [sum(encoding.attention_mask) for encoding in self._tokenizer.encode_batch(chunk)]
                for chunk in (
                    texts[start : start + _LENGTH_CHUNK]
                    for start in range(0, len(texts), _LENGTH_CHUNK)
                )
            ]
        )
        batch: list[int] = []
        for row in np.argsort(lengths, kind="stable").tolist():
            if batch and (
                len(batch) >= self.batch_size or (len(batch) + 1) * lengths[row] > self.batch_tokens
            ):
                yield batch
                batch = []
            batch.append(row)
        yield batch


class Recoder:
    """The pack's recoder H (an MLP R^d -> R^d, SentDP Sec. 4.3) run with onnxruntime or numpy."""

    def __init__(self, model: Path | bytes, *, dims: int, threads: int | None = None) -> None:
        self.dims = dims
        self.backend = backend("encoder")  # as the encoder's
        self._session = _lazy_model(
            model, RECODER_IO, threads, self.backend, name="recoder.onnx", dims=dims
        )
        self._spread = threads is None  # as the encoder's (module docstring, Threads)

    def recode(self, embeddings: np.ndarray, *, independent: bool = False) -> np.ndarray:
        """H applied to each row of a (n, dims) array; float32 (n, dims).

        ``independent=True`` recodes row by row (see :meth:`SentenceEncoder.encode`).
        """
        array = np.asarray(embeddings, dtype=np.float32)
        if array.ndim != 2 or array.shape[1] != self.dims:
            raise InputError(f"embeddings must have shape (n, {self.dims}), got {array.shape}")
        if array.shape[0] == 0:
            return array.copy()
        session = self._session.get()
        out = np.empty_like(array)

        def recode_rows(rows: slice) -> None:
            (out[rows],) = session.run(None, {"embeddings": np.ascontiguousarray(array[rows])})

        blocks = [slice(i, i + 1) for i in range(len(array))] if independent else [slice(None)]
        run_calls(recode_rows, blocks, spread=self._spread)
        return out


def _native_tokenizer(tokenizer: Path | bytes, shown: str) -> Any:
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise DependencyError(SENTENCES_EXTRA.format(what="the encoder needs tokenizers")) from None
    try:
        if isinstance(tokenizer, bytes):
            return Tokenizer.from_str(tokenizer.decode("utf-8"))
        return Tokenizer.from_file(str(tokenizer))
    except Exception as error:  # tokenizers raises a plain Exception
        raise AssetError(f"{shown} is not a readable tokenizer.json ({error})") from None


def _contents(file: Path | bytes, shown: str) -> bytes:
    if isinstance(file, bytes):
        return file
    try:
        return file.read_bytes()
    except OSError as error:
        raise AssetError(f"cannot read {shown}: {error.strerror}") from None


def _lazy_model(
    model: Path | bytes, io: GraphIO, threads: int | None, tier: str, *, name: str, dims: int
) -> Lazy[Any]:
    """The session that runs ``model`` on ``tier``, made on first use.

    Native: an encoder without constant folding, so that its int8 weights stay int8 in memory
    (see :func:`edgedp.runtime.native.open_session`). numpy: the transformer, or the graph of
    the recoder or of an encoder that pools by itself, read from the same file.
    """
    count = 1 if threads is None else threads
    if tier == "native":
        return lazy_session(model, io, count, name=name, fold_constants=io == RECODER_IO)
    check_positive_int(count, "threads")
    shown = name if isinstance(model, bytes) else str(model)

    def build() -> NumpyTransformer | NumpyGraph:
        data = _contents(model, shown)
        if io == ENCODER_IO:
            runner: NumpyTransformer | NumpyGraph = NumpyTransformer(data, dims=dims, name=shown)
        else:
            runner = NumpyGraph(data, name=shown)
        if (runner.inputs, runner.outputs) != io:
            found = (runner.inputs, runner.outputs)
            raise AssetError(f"{shown} has inputs/outputs {found}, expected {io}; {REBUILD_HINT}")
        return runner

    return Lazy(build)


def run_calls(call: Callable[[T], None], items: list[T], *, spread: bool) -> None:
    """``call`` on every item, on the worker threads if ``spread`` (each thread a share of the
    items taken in turn, so that long and short calls mix), else one after another here."""

    def run_share(share: list[T]) -> None:
        for item in share:
            call(item)

    threads = worker_threads() if spread else 1
    tasks = 1 if threads == 1 else min(len(items), 2 * threads)
    map_in_threads(run_share, [items[i::tasks] for i in range(tasks)])
