"""The runtime never loads torch; the word path does not even load onnxruntime."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = """
import json, sys
import edgedp
brr = edgedp.BRR(edgedp.load_pack(), epsilon=0.7)
out = brr.privatize_batch(["The patient was admitted with chest pain.", "Zyxq 42"])
print(json.dumps({"modules": sorted(sys.modules), "out": out}))
"""


def test_import_and_full_privatization_never_load_torch():
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True, timeout=120
    )
    report = json.loads(result.stdout)
    modules = set(report["modules"])
    assert not {name for name in modules if name == "torch" or name.startswith("torch.")}
    assert "onnxruntime" not in modules  # loaded lazily, by the sentence mechanisms only
    assert len(report["out"]) == 2
