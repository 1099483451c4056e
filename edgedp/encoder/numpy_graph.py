"""ONNX graphs run in numpy: the numpy tier's recoder H and multilingual sentence encoder.

:class:`NumpyGraph` evaluates a graph whose nodes use only :data:`OPS`, node by node in graph
order, reading the model with :mod:`edgedp.encoder.onnx_reader`. float32 initializers are copied
(aligned) once; any other initializer stays a read-only view of the model's bytes, so a uint8
embedding table is read in place, row by row through ``Gather``, never widened to float32. Its
:meth:`~NumpyGraph.run` has onnxruntime's ``InferenceSession.run`` signature. Any other op raises
:class:`~edgedp.errors.AssetError` when the graph is read, never at run time.

The ops follow the ONNX operator definitions (opset 18) as far as the exported graphs use them:
``Gather`` on axis 0, ``Slice`` with constant starts, ends and axes and unit steps, ``Pad`` with
constant zeros, ``Cast`` to float32 or int64, ``ReduceSum`` over constant axes,
``LayerNormalization`` over the last axis; float arithmetic stays float32.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from edgedp.encoder.onnx_reader import Node, read_graph
from edgedp.errors import REBUILD_HINT, AssetError, InputError

#: ONNX TensorProto types a Cast may produce here.
_CAST_TYPES = {1: np.float32, 7: np.int64}


def _gemm(node: Node, a: np.ndarray, b: np.ndarray, c: np.ndarray | None = None) -> np.ndarray:
    attributes = node.attributes
    alpha, beta = attributes.get("alpha", 1.0), attributes.get("beta", 1.0)
    if not isinstance(alpha, float) or not isinstance(beta, float):
        raise AssetError("a Gemm node of the recoder has non-float alpha or beta")
    if attributes.get("transA", 0):
        a = a.T
    if attributes.get("transB", 0):
        b = b.T
    out: np.ndarray = np.float32(alpha) * (a @ b)
    if c is not None:
        out = out + np.float32(beta) * c
    return out


def _int(node: Node, key: str, default: int) -> int:
    value = node.attributes.get(key, default)
    if not isinstance(value, int):
        raise AssetError(f"a {node.op_type} node has a non-integer {key}")
    return value


def _cast(node: Node, a: np.ndarray) -> np.ndarray:
    target = _CAST_TYPES.get(_int(node, "to", 0))
    if target is None:
        raise AssetError("a Cast node casts to a type the numpy tier does not compute")
    return a.astype(target)


def _gather(node: Node, data: np.ndarray, indices: np.ndarray) -> np.ndarray:
    if _int(node, "axis", 0) != 0:
        raise AssetError("the numpy tier gathers along axis 0 only")
    size = data.shape[0]
    if indices.size and (indices.min() < -size or indices.max() >= size):
        raise InputError(f"indices must lie in [{-size}, {size})")
    gathered: np.ndarray = data[indices]
    return gathered


def _slice(
    node: Node, data: np.ndarray, starts: np.ndarray, ends: np.ndarray, axes: np.ndarray
) -> np.ndarray:
    index: list[slice] = [slice(None)] * data.ndim
    for start, end, axis in zip(starts.tolist(), ends.tolist(), axes.tolist(), strict=True):
        index[axis] = slice(start, end)
    sliced: np.ndarray = data[tuple(index)]
    return sliced


def _pad(node: Node, data: np.ndarray, pads: np.ndarray) -> np.ndarray:
    if node.attributes.get("mode", b"constant") != b"constant":
        raise AssetError("the numpy tier pads with zeros only")
    widths = pads.tolist()
    half = len(widths) // 2
    return np.pad(data, list(zip(widths[:half], widths[half:], strict=True)))


def _reduce_sum(node: Node, data: np.ndarray, axes: np.ndarray) -> np.ndarray:
    keep = bool(_int(node, "keepdims", 1))
    summed: np.ndarray = data.sum(axis=tuple(axes.tolist()), keepdims=keep, dtype=data.dtype)
    return summed


def _layer_norm(node: Node, x: np.ndarray, scale: np.ndarray, bias: np.ndarray) -> np.ndarray:
    epsilon = node.attributes.get("epsilon", 1e-5)
    if _int(node, "axis", -1) not in (-1, x.ndim - 1) or not isinstance(epsilon, float):
        raise AssetError("the numpy tier normalizes layers over the last axis only")
    centred = x - x.mean(axis=-1, keepdims=True)
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    normalized: np.ndarray = centred / np.sqrt(variance + np.float32(epsilon)) * scale + bias
    return normalized


def _unsqueeze(node: Node, data: np.ndarray, axes: np.ndarray) -> np.ndarray:
    out = data
    for axis in sorted(axis % (data.ndim + len(axes)) for axis in axes.tolist()):
        out = np.expand_dims(out, axis)
    return out


def _mod(node: Node, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if _int(node, "fmod", 0) or a.dtype.kind != "i" or b.dtype.kind != "i":
        raise AssetError("the numpy tier computes integer Mod (fmod 0) only")
    remainder: np.ndarray = np.mod(a, b)
    return remainder


def _matmul(node: Node, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b``; a stack of rows times one matrix as one 2-D product (numpy multiplies stacked
    matrices without BLAS: 30x slower on a sentence)."""
    if a.ndim > 2 and b.ndim == 2:
        product: np.ndarray = (a.reshape(-1, a.shape[-1]) @ b).reshape(*a.shape[:-1], b.shape[1])
        return product
    result: np.ndarray = a @ b
    return result


#: What each supported op computes from its node and its input arrays.
OPS: dict[str, Callable[..., np.ndarray]] = {
    "Gemm": _gemm,
    "MatMul": _matmul,
    "Add": lambda node, a, b: a + b,
    "Mul": lambda node, a, b: a * b,
    "Max": lambda node, a, b: np.maximum(a, b),
    "Mod": _mod,
    "Relu": lambda node, a: np.maximum(a, np.zeros((), a.dtype)),
    "Tanh": lambda node, a: np.tanh(a),
    "Sqrt": lambda node, a: np.sqrt(a),
    "Reciprocal": lambda node, a: np.reciprocal(a),
    "Identity": lambda node, a: a,
    "Cast": _cast,
    "Gather": _gather,
    "Slice": _slice,
    "Pad": _pad,
    "Concat": lambda node, *parts: np.concatenate(parts, axis=_int(node, "axis", 0)),
    "Unsqueeze": _unsqueeze,
    "ReduceSum": _reduce_sum,
    "LayerNormalization": _layer_norm,
}


class NumpyGraph:
    """An ONNX graph of :data:`OPS` run in numpy (``name`` is shown in errors)."""

    def __init__(self, model: bytes, *, name: str) -> None:
        graph = read_graph(model, name=name)
        unsupported = sorted({node.op_type for node in graph.nodes} - set(OPS))
        if unsupported:
            raise AssetError(
                f"{name} uses {', '.join(unsupported)}, which the numpy tier does not run; "
                f"{REBUILD_HINT}, or use the native tier (onnxruntime)"
            )
        known = {*graph.initializers, *graph.inputs}
        for node in graph.nodes:
            if not set(node.inputs) - {""} <= known or len(node.outputs) != 1:
                raise AssetError(
                    f"{name}: node {node.op_type} reads a tensor made nowhere before it"
                )
            known.add(node.outputs[0])
        if not set(graph.outputs) <= known:
            raise AssetError(f"{name}: an output of the graph is made by no node")
        self._constants = {
            key: np.array(value) if value.dtype == np.float32 else value
            for key, value in graph.initializers.items()
        }
        self._nodes = graph.nodes
        self.inputs, self.outputs = graph.inputs, graph.outputs

    def run(self, outputs: object, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        """The graph's outputs for ``feeds`` (one array per graph input), in graph order."""
        values = dict(self._constants)
        for key in self.inputs:
            if key not in feeds:
                raise InputError(f"missing input {key!r}")
            array = np.asarray(feeds[key])
            values[key] = array.astype(np.float32) if array.dtype.kind == "f" else array
        for node in self._nodes:
            arguments = [values[key] for key in node.inputs if key]
            values[node.outputs[0]] = OPS[node.op_type](node, *arguments)
        return [values[key] for key in self.outputs]
