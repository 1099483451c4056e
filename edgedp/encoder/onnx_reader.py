"""A minimal ONNX reader in pure Python: the numpy tier's way into a pack's ``.onnx`` files.

ONNX files are protobuf. :func:`read_graph` walks the wire format (varints, length-delimited
fields) of ModelProto -> GraphProto and keeps what a numpy forward pass needs: the initializers
(name, dims, data type, ``raw_data``) as read-only numpy arrays that are views of the model's bytes
(no copy: int8 weights stay int8), and the nodes (op type, inputs, outputs, int/float/ints
attributes). No ``onnx`` package at run time. A truncated or corrupt file, or a tensor stored
outside the file, raises :class:`~edgedp.errors.AssetError`.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from edgedp.errors import AssetError

#: ONNX TensorProto data types the numpy tier reads.
DTYPES: dict[int, np.dtype[Any]] = {
    1: np.dtype("<f4"),
    2: np.dtype("u1"),
    3: np.dtype("i1"),
    6: np.dtype("<i4"),
    7: np.dtype("<i8"),
    9: np.dtype("?"),
    11: np.dtype("<f8"),
}
_VARINT, _FIXED64, _BYTES, _FIXED32 = 0, 1, 2, 5
AttributeValue = int | float | tuple[int, ...] | bytes


class _CorruptError(Exception):
    """Raised inside the reader; turned into one AssetError line by :func:`read_graph`."""


@dataclass(frozen=True)
class Node:
    """One graph node: op type, input and output tensor names, its simple attributes."""

    op_type: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    attributes: dict[str, AttributeValue] = field(default_factory=dict)


@dataclass(frozen=True)
class Graph:
    """The initializers (by name) and the nodes (in graph order) of an ONNX model."""

    initializers: dict[str, np.ndarray]
    nodes: tuple[Node, ...]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


def read_graph(model: bytes, *, name: str) -> Graph:
    """The graph of the ONNX model ``model`` (its bytes; ``name`` is shown in errors)."""
    view = memoryview(model)
    try:
        graphs = [value for number, value in _fields(view, 0, len(view)) if number == 7]
        if len(graphs) != 1 or not isinstance(graphs[0], tuple):
            raise _CorruptError("no graph")
        return _graph(model, view, *graphs[0])
    except _CorruptError as error:
        raise AssetError(
            f"{name} is not a readable ONNX model ({error}); the pack is damaged: reinstall it"
        ) from None


def _fields(view: memoryview, start: int, end: int) -> Iterator[tuple[int, int | tuple[int, int]]]:
    """(field number, value) of a message: an int, or the (start, end) of a length-delimited one."""
    position = start
    while position < end:
        key, position = _varint(view, position, end)
        number, wire = key >> 3, key & 7
        if wire == _VARINT:
            value, position = _varint(view, position, end)
            yield number, value
        elif wire == _BYTES:
            length, position = _varint(view, position, end)
            if position + length > end:
                raise _CorruptError(f"a field runs past the end at byte {position}")
            yield number, (position, position + length)
            position += length
        elif wire in (_FIXED32, _FIXED64):
            size = 4 if wire == _FIXED32 else 8
            if position + size > end:
                raise _CorruptError(f"a field runs past the end at byte {position}")
            yield number, int.from_bytes(view[position : position + size], "little")
            position += size
        else:
            raise _CorruptError(f"unknown wire type {wire} at byte {position}")
    if position != end:
        raise _CorruptError(f"a message overruns its length at byte {end}")


def _varint(view: memoryview, position: int, end: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        if position >= end or shift > 63:
            raise _CorruptError(f"a truncated number at byte {position}")
        byte = view[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, position
        shift += 7


def _text(view: memoryview, span: int | tuple[int, int]) -> str:
    if not isinstance(span, tuple):
        raise _CorruptError("a name is not a string")
    try:
        return bytes(view[span[0] : span[1]]).decode("utf-8")
    except UnicodeDecodeError:
        raise _CorruptError(f"a name is not UTF-8 at byte {span[0]}") from None


def _ints(view: memoryview, value: int | tuple[int, int]) -> list[int]:
    """One int64 (unpacked field) or a packed run of varints, as signed values."""
    if not isinstance(value, tuple):
        raw = [value]
    else:
        raw, position = [], value[0]
        while position < value[1]:
            number, position = _varint(view, position, value[1])
            raw.append(number)
    return [number - (1 << 64) if number >= 1 << 63 else number for number in raw]


def _graph(model: bytes, view: memoryview, start: int, end: int) -> Graph:
    initializers: dict[str, np.ndarray] = {}
    nodes: list[Node] = []
    inputs: list[str] = []
    outputs: list[str] = []
    for number, value in _fields(view, start, end):
        if not isinstance(value, tuple):
            continue
        if number == 1:
            nodes.append(_node(view, *value))
        elif number == 5:
            tensor_name, array = _tensor(model, view, *value)
            initializers[tensor_name] = array
        elif number in (11, 12):
            names = [_text(view, span) for key, span in _fields(view, *value) if key == 1]
            (inputs if number == 11 else outputs).extend(names)
    return Graph(initializers, tuple(nodes), tuple(inputs), tuple(outputs))


def _node(view: memoryview, start: int, end: int) -> Node:
    inputs: list[str] = []
    outputs: list[str] = []
    op_type = ""
    attributes: dict[str, AttributeValue] = {}
    for number, value in _fields(view, start, end):
        if number == 1:
            inputs.append(_text(view, value))
        elif number == 2:
            outputs.append(_text(view, value))
        elif number == 4:
            op_type = _text(view, value)
        elif number == 5 and isinstance(value, tuple):
            key, attribute = _attribute(view, *value)
            attributes[key] = attribute
    return Node(op_type, tuple(inputs), tuple(outputs), attributes)


def _attribute(view: memoryview, start: int, end: int) -> tuple[str, AttributeValue]:
    name = ""
    ints: list[int] = []
    value_found: AttributeValue | None = None
    for number, value in _fields(view, start, end):
        if number == 1:
            name = _text(view, value)
        elif number == 2 and isinstance(value, int):
            value_found = float(struct.unpack("<f", value.to_bytes(4, "little"))[0])
        elif number == 3 and isinstance(value, int):
            value_found = _ints(view, value)[0]
        elif number == 4 and isinstance(value, tuple):
            value_found = bytes(view[value[0] : value[1]])
        elif number == 8:
            ints.extend(_ints(view, value))
    return name, tuple(ints) if value_found is None else value_found


def _tensor(model: bytes, view: memoryview, start: int, end: int) -> tuple[str, np.ndarray]:
    dims: list[int] = []
    name, data_type, raw, external = "", 0, None, False
    for number, value in _fields(view, start, end):
        if number == 1:
            dims.extend(_ints(view, value))
        elif number == 2 and isinstance(value, int):
            data_type = value
        elif number == 8:
            name = _text(view, value)
        elif number == 9 and isinstance(value, tuple):
            raw = value
        elif number == 14 and value == 1:
            external = True
    dtype = DTYPES.get(data_type)
    if external or raw is None or dtype is None or any(size < 0 for size in dims):
        raise _CorruptError(f"tensor {name!r} is not stored as raw {list(DTYPES)} data in the file")
    count = int(np.prod(dims, dtype=np.int64))
    if raw[1] - raw[0] != count * dtype.itemsize:
        raise _CorruptError(f"tensor {name!r} has {raw[1] - raw[0]} bytes for shape {dims}")
    array = np.frombuffer(model, dtype=dtype, count=count, offset=raw[0]).reshape(dims)
    return name, array
