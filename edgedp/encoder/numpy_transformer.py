"""The sentence encoder's transformer in numpy: the numpy tier's stand-in for onnxruntime.

:class:`NumpyTransformer` reads the weights of a BERT encoder (all-MiniLM-L6-v2: 6 layers, 384-d,
12 heads) from the pack's own ``encoder.onnx`` bytes (:mod:`edgedp.encoder.onnx_reader`; one
file serves both tiers) and computes its token embeddings in float32: embeddings, LayerNorm,
self-attention with the padding mask, GELU, residuals, as the graph does.

Layers are found through the graph, not guessed from names: a MatMul weight is the input of the
MatMul whose output the bias ``<layer>.bias`` is added to (exported weights are named ``val_N``),
LayerNorms by their scale ``<layer>.weight``, the head size from the Reshape after the query
projection. int8 weights are dequantized exactly as the graph does (int8 cast to float32 times
the float32 scale of each block of 32 inputs of a column, or of each embedding row): the word
embedding table stays int8 (its rows are dequantized when gathered), the matrices are dequantized
once, when the transformer is built (42 MB for MiniLM; dequantizing on every call would cost more
than the products of a short sentence). A graph of another layout raises :class:`AssetError`.
:meth:`NumpyTransformer.run` has onnxruntime's ``InferenceSession.run`` signature, so that the
encoder drives either tier the same way.

GELU needs erf, which numpy lacks: :func:`erf` is Abramowitz and Stegun 7.1.26 (absolute error
1.5e-7 in exact arithmetic, 5.2e-7 computed in float32): the embeddings stay within 2e-7 of
cosine of onnxruntime's exact erf on public text (tests/encoder/test_numpy_transformer.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from edgedp.encoder.onnx_reader import Graph, Node, read_graph
from edgedp.errors import REBUILD_HINT, AssetError, InputError

_LINEARS = (
    "attention.self.query",
    "attention.self.key",
    "attention.self.value",
    "attention.output.dense",
    "intermediate.dense",
    "output.dense",
)
_NORMS = ("attention.output.LayerNorm", "output.LayerNorm")
_LAYER = re.compile(r"^(.*)encoder\.layer\.(\d+)\.(.+)\.bias$")
# Abramowitz and Stegun 7.1.26
_P = np.float32(0.3275911)
_A = tuple(
    np.float32(a) for a in (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
)


def erf(x: np.ndarray) -> np.ndarray:
    """erf in float32 (Abramowitz and Stegun 7.1.26; absolute error < 6e-7 in float32)."""
    sign = np.sign(x)
    a = np.abs(x)
    t = np.float32(1) / (np.float32(1) + _P * a)
    poly = t * (_A[0] + t * (_A[1] + t * (_A[2] + t * (_A[3] + t * _A[4]))))
    result: np.ndarray = sign * (np.float32(1) - poly * np.exp(-a * a))
    return result


def gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x * (1 + erf(x / sqrt 2)) / 2, in float32."""
    result: np.ndarray = x * (np.float32(0.5) * (np.float32(1) + erf(x / np.float32(np.sqrt(2)))))
    return result


@dataclass(frozen=True)
class _Norm:
    scale: np.ndarray
    bias: np.ndarray
    epsilon: float

    def __call__(self, x: np.ndarray) -> np.ndarray:
        mean = x.mean(axis=-1, keepdims=True)
        centred = x - mean
        variance = (centred * centred).mean(axis=-1, keepdims=True)
        out: np.ndarray = centred / np.sqrt(variance + np.float32(self.epsilon))
        scaled: np.ndarray = out * self.scale + self.bias
        return scaled


@dataclass(frozen=True)
class _Layer:
    qkv: tuple[np.ndarray, np.ndarray]  # query, key and value side by side: one product
    attention_out: tuple[np.ndarray, np.ndarray]
    attention_norm: _Norm
    intermediate: tuple[np.ndarray, np.ndarray]
    output: tuple[np.ndarray, np.ndarray]
    output_norm: _Norm


class _Weights:
    """Resolves the tensors of the graph to float32 weights, dequantizing as the graph does."""

    def __init__(self, graph: Graph, name: str) -> None:
        self.graph = graph
        self.name = name
        self.producer = {output: node for node in graph.nodes for output in node.outputs}
        self.consumers: dict[str, list[Node]] = {}
        for node in graph.nodes:
            for tensor in node.inputs:
                self.consumers.setdefault(tensor, []).append(node)

    def fail(self, what: str) -> AssetError:
        return AssetError(
            f"{self.name}: {what}; the numpy tier runs BERT encoders exported by edgedp-export "
            f"only ({REBUILD_HINT}, or use the native tier)"
        )

    def initializer(self, tensor: str) -> np.ndarray:
        array = self.graph.initializers.get(tensor)
        if array is None:
            raise self.fail(f"tensor {tensor!r} is not stored in the file")
        return array

    def constant(self, tensor: str) -> np.ndarray:
        """A float32 initializer, copied (aligned, writable)."""
        return np.array(self.initializer(tensor), dtype=np.float32)

    def matrix(self, tensor: str) -> np.ndarray:
        """A MatMul weight: stored float32, or int8 blocks rebuilt by Cast -> Mul -> Reshape."""
        if tensor in self.graph.initializers:
            return self.constant(tensor)
        reshape = self.producer.get(tensor)
        multiply = reshape and self.producer.get(reshape.inputs[0])
        cast = multiply and self.producer.get(multiply.inputs[0])
        if not (
            reshape
            and multiply
            and cast
            and (reshape.op_type, multiply.op_type, cast.op_type) == ("Reshape", "Mul", "Cast")
        ):
            raise self.fail(f"weight {tensor!r} is neither stored nor dequantized from int8")
        codes = self.initializer(cast.inputs[0])
        scale = self.initializer(multiply.inputs[1])
        shape = tuple(int(size) for size in self.initializer(reshape.inputs[1]))
        blocks = codes.astype(np.float32) * scale.astype(np.float32)
        if blocks.size != int(np.prod(shape)) or len(shape) != 2:
            raise self.fail(f"weight {tensor!r} does not rebuild to a matrix")
        return blocks.reshape(shape)

    def linear(self, bias: str) -> tuple[np.ndarray, np.ndarray]:
        """(weight, bias) of the MatMul whose output ``bias`` is added to."""
        for add in self.consumers.get(bias, []):
            matmul = self.producer.get(add.inputs[0] if add.inputs[1] == bias else add.inputs[1])
            if add.op_type == "Add" and matmul is not None and matmul.op_type == "MatMul":
                return self.matrix(matmul.inputs[1]), self.constant(bias)
        raise self.fail(f"no MatMul adds the bias {bias!r}")

    def norm(self, prefix: str) -> _Norm:
        for node in self.consumers.get(f"{prefix}.weight", []):
            if node.op_type == "LayerNormalization":
                epsilon = node.attributes.get("epsilon", 1e-5)
                if not isinstance(epsilon, float) or node.attributes.get("axis", -1) != -1:
                    break
                return _Norm(self.constant(node.inputs[1]), self.constant(node.inputs[2]), epsilon)
        raise self.fail(f"no LayerNormalization over the last axis scales by {prefix}.weight")

    def head_size(self, query_bias: str) -> int:
        """The last dimension of the Reshape applied to the query projection."""
        (add,) = [node for node in self.consumers.get(query_bias, []) if node.op_type == "Add"]
        for reshape in self.consumers.get(add.outputs[0], []):
            concat = self.producer.get(reshape.inputs[1]) if reshape.op_type == "Reshape" else None
            if concat is not None and concat.op_type == "Concat":
                last = self.graph.initializers.get(concat.inputs[-1])
                if last is not None and last.size == 1 and int(last.ravel()[0]) > 0:
                    return int(last.ravel()[0])
        raise self.fail("the attention head size is not a constant of the graph")

    def table(self, prefix: str) -> tuple[np.ndarray, np.ndarray | None]:
        """An embedding table: float32, or (int8 rows, one scale per row)."""
        if f"{prefix}.weight" in self.graph.initializers:
            return self.constant(f"{prefix}.weight"), None
        codes = self.initializer(f"{prefix}.weight_int8")
        scales = self.initializer(f"{prefix}.weight_scale")
        if codes.ndim != 2 or scales.shape != (codes.shape[0], 1):
            raise self.fail(f"the embedding table {prefix} has inconsistent int8 scales")
        return codes, scales


class NumpyTransformer:
    """A BERT encoder's token embeddings computed in numpy from the bytes of its ONNX export.

    ``model`` is the ``encoder.onnx`` bytes (the pack's verified bytes), ``name`` the file name
    shown in errors. The embedding tables stay views of ``model`` (int8); the matrices are
    dequantized to float32 here.
    """

    def __init__(self, model: bytes, *, dims: int, name: str = "encoder.onnx") -> None:
        weights = _Weights(read_graph(model, name=name), name)
        biases = [
            match.groups()
            for match in map(_LAYER.match, weights.graph.initializers)
            if match is not None
        ]
        prefixes = {prefix for prefix, _, _ in biases}
        if len(prefixes) != 1:
            raise weights.fail("no encoder.layer.N biases")
        (prefix,) = prefixes
        count = 1 + max(int(index) for _, index, _ in biases)
        self.dims = dims
        self.inputs, self.outputs = weights.graph.inputs, weights.graph.outputs
        self._weights = weights
        self._prefix = prefix
        self._count = count
        self._words = weights.table(f"{prefix}embeddings.word_embeddings")
        self._positions = weights.table(f"{prefix}embeddings.position_embeddings")
        self._types, _ = weights.table(f"{prefix}embeddings.token_type_embeddings")
        self._embedding_norm = weights.norm(f"{prefix}embeddings.LayerNorm")
        self._head_size = weights.head_size(f"{prefix}encoder.layer.0.attention.self.query.bias")
        if self._words[0].shape[1] != dims or dims % self._head_size:
            raise weights.fail(f"embeddings of width {self._words[0].shape[1]}, expected {dims}")
        self._layers = self._build_layers()

    @property
    def max_positions(self) -> int:
        return int(self._positions[0].shape[0])

    @property
    def vocabulary_size(self) -> int:
        return int(self._words[0].shape[0])

    def _build_layers(self) -> tuple[_Layer, ...]:
        weights = self._weights
        layers = []
        for index in range(self._count):
            at = f"{self._prefix}encoder.layer.{index}."
            linear = {part: weights.linear(f"{at}{part}.bias") for part in _LINEARS}
            query, key, value = (linear[part] for part in _LINEARS[:3])
            for weight, bias in linear.values():
                if weight.shape[1] != bias.shape[0]:
                    raise weights.fail(f"layer {index}: a weight and its bias disagree")
            layers.append(
                _Layer(
                    qkv=(
                        np.concatenate([query[0], key[0], value[0]], axis=1),
                        np.concatenate([query[1], key[1], value[1]]),
                    ),
                    attention_out=linear["attention.output.dense"],
                    attention_norm=weights.norm(f"{at}{_NORMS[0]}"),
                    intermediate=linear["intermediate.dense"],
                    output=linear["output.dense"],
                    output_norm=weights.norm(f"{at}{_NORMS[1]}"),
                )
            )
        return tuple(layers)

    def run(self, outputs: object, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        """``[token embeddings]`` for the feeds ``input_ids``, ``attention_mask`` and
        ``token_type_ids``, as onnxruntime's session of the same file returns them."""
        ids, mask, types = (
            np.asarray(feeds[key]) for key in ("input_ids", "attention_mask", "token_type_ids")
        )
        return [self.token_embeddings(ids, mask, types)]

    def token_embeddings(self, ids: np.ndarray, mask: np.ndarray, types: np.ndarray) -> np.ndarray:
        """float32 (batch, sequence, dims) for int ``ids``, 0/1 ``mask`` and token ``types``, all
        of shape (batch, sequence)."""
        batch, length = ids.shape
        heads = self.dims // self._head_size
        if ids.size and (ids.min() < 0 or ids.max() >= self.vocabulary_size):
            raise InputError(f"token ids must lie in [0, {self.vocabulary_size})")
        x = self._embed(ids, types, length)
        # keys that are padding get the graph's additive -3.4e38: softmax gives them weight 0
        blocked = np.where(mask[:, None, None, :] > 0, 0.0, np.finfo(np.float32).min).astype(
            np.float32
        )
        scale = np.float32(1.0 / np.sqrt(self._head_size))
        for layer in self._layers:
            qkv = x @ layer.qkv[0] + layer.qkv[1]
            q, k, v = (
                qkv[:, :, part * self.dims : (part + 1) * self.dims]
                .reshape(batch, length, heads, self._head_size)
                .transpose(0, 2, 1, 3)
                for part in range(3)
            )
            scores = (q * scale) @ k.transpose(0, 1, 3, 2) + blocked
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, self.dims)
            attended = context @ layer.attention_out[0] + layer.attention_out[1]
            x = layer.attention_norm(attended + x)
            hidden = gelu(x @ layer.intermediate[0] + layer.intermediate[1])
            x = layer.output_norm(hidden @ layer.output[0] + layer.output[1] + x)
        return x

    def _embed(self, ids: np.ndarray, types: np.ndarray, length: int) -> np.ndarray:
        if length > self.max_positions:
            raise InputError(f"{length} tokens is more than the {self.max_positions} positions")
        words = _rows(self._words, ids)
        positions = _rows(self._positions, np.arange(length))
        return self._embedding_norm(words + self._types[types] + positions)


def _rows(table: tuple[np.ndarray, np.ndarray | None], index: np.ndarray) -> np.ndarray:
    """Rows of an embedding table, dequantized after the lookup as the graph does."""
    values, scales = table
    if scales is None:
        picked: np.ndarray = values[index]
        return picked
    rows: np.ndarray = values[index].astype(np.float32) * scales[index].astype(np.float32)
    return rows
