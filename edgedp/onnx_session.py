"""Opening onnxruntime sessions for pack models: lazily, with a thread count, and checked.

onnxruntime is imported here only, on first use, so ``import edgedp`` and the word mechanisms never
load it. A model whose input and output names are not the ones the runtime feeds (a file swapped
for another) is refused with :class:`~edgedp.errors.AssetError` before it runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from edgedp.errors import AssetError, DependencyError
from edgedp.manifest import REBUILD_HINT

#: (input names, output names) of a model, in graph order.
GraphIO = tuple[tuple[str, ...], tuple[str, ...]]


def open_session(path: Path, *, io: GraphIO, threads: int | None) -> Any:
    """An onnxruntime CPU session for ``path`` whose graph has exactly the names ``io``."""
    try:
        import onnxruntime
    except ImportError:
        raise DependencyError("this model needs onnxruntime: pip install onnxruntime") from None
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    if threads is not None:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
    try:
        session = onnxruntime.InferenceSession(
            str(path), sess_options=options, providers=["CPUExecutionProvider"]
        )
    except Exception as error:  # onnxruntime raises its own exception types
        raise AssetError(
            f"{path.name} is not a loadable ONNX model ({error}); {REBUILD_HINT}"
        ) from None
    names = (
        tuple(item.name for item in session.get_inputs()),
        tuple(item.name for item in session.get_outputs()),
    )
    if names != io:
        raise AssetError(f"{path.name} has inputs/outputs {names}, expected {io}; {REBUILD_HINT}")
    return session
