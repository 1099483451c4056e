"""Process environment for the native libraries, set when ``edgedp`` is imported.

Both settings are read by the libraries when they are *loaded*, so they must be in the environment
before FAISS or onnxruntime is imported; ``edgedp/__init__.py`` calls :func:`configure` first thing,
and :mod:`edgedp.runtime.native` calls it again before it imports onnxruntime.

* ``ORT_DISABLE_TELEMETRY=1`` (forced). ``import onnxruntime`` 1.32 otherwise writes, with no session
  made, ``$TMPDIR/.ses`` (a timestamp and a session UUID) and, under
  ``$HOME/.cache/Microsoft/DeveloperTools/.onnxruntime/``, a ``deviceid`` (a UUID stable across runs)
  and an SQLite queue of telemetry events (OS, CPU, Python path, container type): an identifier left
  behind by a privacy library. Verified on this machine: with the variable set, the import and a
  session write nothing. :func:`edgedp.runtime.native.import_onnxruntime` also calls
  ``onnxruntime.disable_telemetry_events()`` for a process that imported onnxruntime before edgedp.
* ``OMP_WAIT_POLICY=PASSIVE`` (only if unset). FAISS's OpenMP threads otherwise spin at barriers;
  on a loaded machine a spinning thread that is descheduled turns a search of microseconds into
  one of milliseconds (``python -m bench load-latency``; bench/README.md, "Measurements behind the
  code"). Passive waiting costs a few microseconds per parallel region when the machine is idle.
  A program may set it otherwise.
"""

from __future__ import annotations

import os

TELEMETRY_VARIABLE = "ORT_DISABLE_TELEMETRY"
WAIT_POLICY_VARIABLE = "OMP_WAIT_POLICY"


def configure() -> None:
    """Turn onnxruntime telemetry off and make OpenMP threads wait passively (if not set)."""
    os.environ[TELEMETRY_VARIABLE] = "1"
    os.environ.setdefault(WAIT_POLICY_VARIABLE, "PASSIVE")


configure()
