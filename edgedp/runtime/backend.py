"""Which implementation runs edgedp's searches, sentence encoder and sentence splitting.

Two tiers give the same guarantees, and the same results (ties included) but for sentence
splitting, whose tiers split real text nearly alike (:mod:`edgedp.text.sentences`):

* ``native``: FAISS for the word searches, onnxruntime and Hugging Face tokenizers for the sentence
  encoder, sentencex for sentence splitting. Fastest; their wheels exist for desktop and server
  platforms.
* ``numpy``: numpy alone (exact blocked searches, a numpy forward pass of the encoder, a
  pure-Python WordPiece tokenizer, English splitting rules in pure Python). Runs wherever numpy
  runs: Android (Chaquopy), iOS, Pyodide.

``EDGEDP_BACKEND=numpy`` or ``native`` chooses; unset (or ``auto``), each component takes the
native tier where its library imports and numpy otherwise. ``native`` with a library missing is an
error (:class:`~edgedp.errors.DependencyError`), never a silent fallback. ``edgedp info`` shows the
choice.
"""

from __future__ import annotations

import importlib.util
import os
import sys

from edgedp.errors import DependencyError, InputError

#: The environment variable that chooses the tier.
VARIABLE = "EDGEDP_BACKEND"
BACKENDS = ("native", "numpy")
#: What each component's native tier imports.
NATIVE_MODULES = {
    "search": ("faiss",),
    "encoder": ("onnxruntime", "tokenizers"),
    "sentences": ("sentencex",),
}


def requested() -> str | None:
    """The tier ``EDGEDP_BACKEND`` asks for, or ``None`` (unset, empty or ``auto``)."""
    value = os.environ.get(VARIABLE, "").strip().lower()
    if value in ("", "auto"):
        return None
    if value not in BACKENDS:
        raise InputError(f"{VARIABLE} must be one of auto, native, numpy; got {value!r}")
    return value


def native_available(component: str) -> bool:
    """Whether the native libraries of ``component`` (a key of :data:`NATIVE_MODULES`) import."""
    return all(_importable(name) for name in NATIVE_MODULES[component])


def _importable(module: str) -> bool:
    """Whether ``module`` is imported or can be (``sys.modules[module] = None`` blocks it)."""
    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def backend(component: str) -> str:
    """The tier that runs ``component`` (a key of :data:`NATIVE_MODULES`) in this process."""
    if component not in NATIVE_MODULES:
        raise InputError(f"component must be one of {', '.join(NATIVE_MODULES)}, got {component!r}")
    chosen = requested()
    if chosen == "numpy":
        return "numpy"
    if native_available(component):
        return "native"
    if chosen == "native":
        missing = ", ".join(NATIVE_MODULES[component])
        raise DependencyError(
            f"{VARIABLE}=native, but the {component} tier needs {missing}, not installed here; "
            f"install it, or unset {VARIABLE} to run on numpy alone"
        )
    return "numpy"
