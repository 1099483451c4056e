"""``torch.onnx.export`` as every edgedp ONNX file is made: dynamo exporter, opset 18, one file.

The exporter's notices about optional packages are silenced; real errors still raise.
"""

from __future__ import annotations

import contextlib
import io
import logging
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from edgedp.errors import DependencyError

OPSET = 18


def require_torch(extra: str = "sbert") -> Any:
    """The torch module, or a DependencyError naming the export extra that installs it."""
    try:
        import torch
    except ImportError:
        raise DependencyError(
            f"this export step needs torch: pip install './export[{extra}]' (it pins "
            "torch==2.13.0, the CPU build)"
        ) from None
    return torch


def export_onnx(
    module: Any,
    example: tuple[Any, ...],
    out: Path,
    *,
    input_names: Sequence[str],
    output_names: Sequence[str],
    dynamic_shapes: Any,
) -> None:
    """Export ``module`` traced on ``example`` to ``out`` with the given names and dynamic axes."""
    torch = require_torch()
    torch_logger = logging.getLogger("torch")
    level = torch_logger.level
    torch_logger.setLevel(logging.ERROR)
    try:
        with torch.no_grad(), warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            torch.onnx.export(
                module,
                example,
                str(out),
                dynamo=True,
                opset_version=OPSET,
                input_names=list(input_names),
                output_names=list(output_names),
                dynamic_shapes=dynamic_shapes,
                external_data=False,
            )
    finally:
        torch_logger.setLevel(level)
