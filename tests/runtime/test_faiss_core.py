"""edgedp.runtime.faiss_core: the native tier's searches on FAISS's compiled core alone.

In a fresh process (pytest has imported ``faiss`` whole, so the core is what a user's process gets
only there): the core answers as ``faiss.knn_hamming`` and ``faiss.knn`` do, ties included; the
package imported afterwards reuses the same extension; a default chat message on the native tier
never imports the package (issue 50: its Python layer was 5 MB of the message's peak). And the
fallbacks: a package with variants per instruction set, or none, is imported whole.
"""

from __future__ import annotations

import importlib.machinery
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO_ROOT

from edgedp.runtime import faiss_core

pytest.importorskip("faiss")

SAME_ANSWERS = """
import sys
import numpy as np
from edgedp.runtime import faiss_core
core = faiss_core.library()
assert faiss_core.is_core(core) and "faiss" not in sys.modules, core
rng = np.random.default_rng(7)
cases, answers = [], []
for width, count, k in [(1, 50, 1), (4, 3000, 5), (32, 20000, 16), (32, 5, 5)]:
    codes = rng.integers(0, 256, (count, width), dtype=np.uint8)
    codes[count // 2 :] = codes[: count - count // 2]  # every code twice: ties at every distance
    queries = np.concatenate([codes[:3], rng.integers(0, 256, (9, width), dtype=np.uint8)])
    vectors = rng.standard_normal((count, 8)).astype(np.float32)
    vectors[count // 2 :] = vectors[: count - count // 2]
    points = np.concatenate([vectors[:3], rng.standard_normal((9, 8)).astype(np.float32)])
    cases.append((queries, codes, points, vectors, k))
    answers += [faiss_core.knn_hamming(queries, codes, k), faiss_core.knn_l2(points, vectors, k)]
import faiss
assert faiss.swigfaiss._swigfaiss is core  # the package reused the loaded extension
expected = []
for queries, codes, points, vectors, k in cases:
    expected += [faiss.knn_hamming(queries, codes, k), faiss.knn(points, vectors, k)]
for (got_d, got_i), (want_d, want_i) in zip(answers, expected):
    assert got_d.dtype == want_d.dtype and got_i.dtype == want_i.dtype
    assert np.array_equal(got_d, want_d) and np.array_equal(got_i, want_i)
print("ok")
"""

ONE_MESSAGE = """
import sys
import edgedp
pack = edgedp.load_pack()
for decode in ("context", "nearest"):
    mechanism = edgedp.BRR(pack, epsilon=0.5, decode=decode)
    mechanism.privatize("hey maria, can you call dr. okafor at 555-0142 tmrw?")
print(sorted(name for name in sys.modules if name.split(".")[0] == "faiss"))
"""


def run_child(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env={**os.environ, "EDGEDP_BACKEND": "native", "PYTHONPATH": str(REPO_ROOT)},
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "swig/python" not in result.stdout + result.stderr  # "detected a memory leak"
    return result.stdout.strip()


def test_the_core_answers_as_the_faiss_package_does_ties_included():
    assert run_child(SAME_ANSWERS) == "ok"


def test_a_chat_message_on_the_native_tier_loads_the_core_and_not_the_package():
    assert run_child(ONE_MESSAGE) == "['faiss._swigfaiss']"


def fake_package(folder: Path, *names: str) -> Path:
    package = folder / "faiss"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name in names:
        (package / name).write_text("")
    return folder


@pytest.mark.parametrize(
    "names",
    [
        [],  # no extension at all
        ["_swigfaiss.so", "swigfaiss_avx2.py"],  # variants that faiss.loader chooses between
        ["_swigfaiss.so", "_swigfaiss.abi3.so"],  # two extensions: which one would load is unknown
    ],
)
def test_a_package_without_exactly_one_extension_is_imported_whole(tmp_path, monkeypatch, names):
    if not {".so", ".abi3.so"} <= set(importlib.machinery.EXTENSION_SUFFIXES):
        pytest.skip("the extension suffixes of Linux and macOS")
    monkeypatch.syspath_prepend(str(fake_package(tmp_path, *names)))
    for name in ("faiss", faiss_core.CORE):
        monkeypatch.delitem(sys.modules, name, raising=False)
    assert faiss_core._load_core() is None  # nothing was loaded: the files above are empty
    assert faiss_core.CORE not in sys.modules


def test_a_process_that_imported_faiss_keeps_using_it(monkeypatch):
    import faiss

    monkeypatch.setattr(faiss_core, "_library", None)
    assert faiss_core.library() is faiss
    assert not faiss_core.is_core(faiss_core.library())
