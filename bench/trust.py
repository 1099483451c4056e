"""The trust report: audited privacy-loss lower bounds at large N, broken variants caught, fuzzing,
hostile packs and ledger kill tests, gathered by running the corresponding test modules with more
samples and more trials than the test suite uses.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.harness import Report

ROOT = Path(__file__).resolve().parent.parent


def _pytest(args: list[str], env: dict[str, str] | None = None) -> tuple[int, int]:
    """(passed, failed) of a pytest run over ``args``."""
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
    )
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    passed = int(match.group(1)) if (match := re.search(r"(\d+) passed", summary)) else 0
    failed = int(match.group(1)) if (match := re.search(r"(\d+) failed", summary)) else 0
    return passed, failed


def run(report: Report, *, quick: bool) -> None:
    samples = 100_000 if quick else 2_000_000
    with tempfile.TemporaryDirectory() as scratch:
        results = Path(scratch) / "audits.jsonl"
        _pytest(
            ["tests/test_audit.py"],
            {"EDGEDP_AUDIT_SAMPLES": str(samples), "EDGEDP_TRUST_REPORT": str(results)},
        )
        for line in results.read_text().splitlines():
            audit = json.loads(line)
            broken = "caught" in audit["case"]
            verdict = (
                ("caught" if not audit["passed"] else "MISSED")
                if broken
                else ("passes" if audit["passed"] else "FAILS")
            )
            report.add(
                check="audit",
                case=audit["case"],
                claimed_epsilon=audit["claimed_epsilon"],
                lower_bound=round(audit["epsilon_lower_bound"], 4),
                samples=audit["samples"],
                event=audit["event"],
                verdict=verdict,
            )
    trials = 2 if quick else 10
    survived = sum(_pytest(["tests/test_ledger.py", "-k", "sigkill"])[0] for _ in range(trials))
    report.add(
        check="ledger SIGKILL trials (6 rounds x 4 writers each)", passed=survived, of=trials
    )
    runs = 5_000 if quick else 100_000
    fuzz = subprocess.run(
        [sys.executable, "tests/fuzz/fuzz_privatize.py", f"-runs={runs}", "-max_len=4096"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    report.add(
        check="atheris fuzz runs (CLI decoding + streaming + invariant)",
        passed=runs if fuzz.returncode == 0 else 0,
        of=runs,
    )
    passed, failed = _pytest(["tests/test_fuzz.py"])
    report.add(
        check="fuzz tests (hypothesis, 50 MB line, 1M lines, bytes)",
        passed=passed,
        of=passed + failed,
    )
    passed, failed = _pytest(["tests/test_hostile_packs.py", "tests/test_packs.py"])
    report.add(check="hostile and corrupted packs rejected", passed=passed, of=passed + failed)
