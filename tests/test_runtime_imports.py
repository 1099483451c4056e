"""The runtime never loads torch; the word path does not even load onnxruntime."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers import REPO_ROOT

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
    assert not {name for name in modules if name.startswith(("edgedp.documents", "edgedp.adept"))}
    assert len(report["out"]) == 2


CLI_SCRIPT = """
import json, sys
from edgedp.cli import main
status = main(["privatize", "--mechanism", "brr", "--epsilon", "0.6", "--threads", "1"])
print(json.dumps({"status": status, "modules": sorted(sys.modules)}))
"""
#: What the BRR command line must never load: the ONNX runtime, torch, the sentence and ADePT
#: paths, the ledger's sqlite3 (without --ledger), scipy; and (issue 17, a lean runtime) the
#: evaluation tools but edgedp.evaluation.keep_rate (the keep-rate warning), numpy.random (~6.7 MB
#: resident; the warning's public stream is Python's), OpenSSL through hashlib (~3.5 MB; small
#: packs are hashed by CPython's built-in SHA-256), tokenizers (~3.4 MB; edgedp.text.segmentation splits with
#: a regular expression), importlib.resources (~1 MB; only the public name list needs it), shutil
#: (~0.5 MB with zlib, bz2 and lzma; argparse's help formatter imports it for the terminal width).
HEAVY = (
    "onnxruntime",
    "torch",
    "edgedp.adept",
    "edgedp.documents",
    "sqlite3",
    "scipy",
    # edgedp.evaluation's measuring tools; its keep_rate (the warning's estimate) is light
    "edgedp.evaluation.audit",
    "edgedp.evaluation.calibration",
    "edgedp.evaluation.deepcandidate_fit",
    "edgedp.evaluation.empirical_privacy",
    "edgedp.evaluation.explain",
    "edgedp.evaluation.matching",
    "edgedp.evaluation.public_sample",
    "edgedp.evaluation.subspace_mean_fit",
    "edgedp.evaluation.task_probe",
    "edgedp.evaluation.tune",
    "numpy.random",
    "_hashlib",
    "tokenizers",
    "importlib.resources",
    "shutil",
)


def test_every_evaluation_module_is_named_heavy_or_light():
    """A new module of edgedp.evaluation is classified here before the command path may load it."""
    light = {"edgedp.evaluation", "edgedp.evaluation.keep_rate"}
    modules = {
        "edgedp.evaluation" + ("" if path.stem == "__init__" else "." + path.stem)
        for path in (REPO_ROOT / "edgedp" / "evaluation").glob("*.py")
    }
    assert modules - light == {name for name in HEAVY if name.startswith("edgedp.evaluation")}


def test_the_brr_command_line_loads_only_the_word_path():
    result = subprocess.run(
        [sys.executable, "-c", CLI_SCRIPT],
        input="Patient Jane Zorbulak was admitted on 12 March.\n",
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    report = json.loads(result.stdout.splitlines()[-1])
    assert report["status"] == 0
    assert "edgedp.evaluation.keep_rate" in report["modules"]  # the keep-rate warning did run
    loaded = {m for m in report["modules"] if m.split(".")[0] in {h.split(".")[0] for h in HEAVY}}
    assert not {m for m in loaded for h in HEAVY if m == h or m.startswith(h + ".")}


def test_loading_a_words_pack_imports_no_other_pack_kind():
    script = (
        "import sys, edgedp; edgedp.load_pack(); "
        "print(sorted(m for m in sys.modules if m.startswith(('edgedp.documents', 'edgedp.adept'))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.strip() == "[]"
