"""Small ONNX graphs run in numpy: the numpy tier's recoder H (an MLP of Gemm and Relu).

:class:`NumpyGraph` evaluates a graph whose nodes use only :data:`OPS` (Gemm, MatMul, Add, Relu,
Identity), node by node in graph order, in float32, reading the model with
:mod:`edgedp.encoder.onnx_reader`. Its :meth:`~NumpyGraph.run` has onnxruntime's
``InferenceSession.run`` signature. Any other op raises :class:`~edgedp.errors.AssetError` when
the graph is read, never at run time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from edgedp.encoder.onnx_reader import Node, read_graph
from edgedp.errors import REBUILD_HINT, AssetError, InputError


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


#: What each supported op computes from its node and its input arrays.
OPS: dict[str, Callable[..., np.ndarray]] = {
    "Gemm": _gemm,
    "MatMul": lambda node, a, b: a @ b,
    "Add": lambda node, a, b: a + b,
    "Relu": lambda node, a: np.maximum(a, np.float32(0)),
    "Identity": lambda node, a: a,
}


class NumpyGraph:
    """A float32 ONNX graph of :data:`OPS` run in numpy (``name`` is shown in errors)."""

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
            key: np.array(value, dtype=np.float32) for key, value in graph.initializers.items()
        }
        self._nodes = graph.nodes
        self.inputs, self.outputs = graph.inputs, graph.outputs

    def run(self, outputs: object, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        """The graph's outputs for ``feeds`` (one array per graph input), in graph order."""
        values = dict(self._constants)
        for key in self.inputs:
            if key not in feeds:
                raise InputError(f"missing input {key!r}")
            values[key] = np.asarray(feeds[key], dtype=np.float32)
        for node in self._nodes:
            arguments = [values[key] for key in node.inputs if key]
            values[node.outputs[0]] = OPS[node.op_type](node, *arguments)
        return [values[key] for key in self.outputs]
