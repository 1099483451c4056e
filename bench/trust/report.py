"""The trust report: the realised delta of every sampler at the listed epsilons (bench/trust/samplers.py),
audited privacy-loss lower bounds at large N, broken variants caught, fuzzing, hostile packs and
ledger kill tests, gathered by running the corresponding test modules with more
samples and more trials than the test suite uses.

Every pytest run writes a JUnit XML file, so each count comes from the test outcomes themselves
(passed, failed, errors, skipped): an audit case that errors before it audits is reported as an
error, not left out, and a selection that runs no test is reported as such.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path

from bench.harness import ROOT, Report
from bench.trust import samplers

PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
SIGKILL_TEST = (
    "tests/privacy/test_ledger.py::"
    "test_sigkill_during_concurrent_charges_loses_and_duplicates_nothing"
)
CORRUPTION_TESTS = "corruption or symlinked or flipped_bit or rewritten"
#: Worst first: a case reported twice (a failed call and a teardown error) keeps the worse outcome.
OUTCOMES = ("error", "failed", "skipped", "passed")


@dataclass
class PytestRun:
    """The outcome of every test case of one pytest run, by case name (as ``request.node.name``)."""

    exit_code: int
    outcomes: dict[str, str] = field(default_factory=dict)
    messages: dict[str, str] = field(default_factory=dict)

    def count(self, outcome: str) -> int:
        return sum(1 for value in self.outcomes.values() if value == outcome)

    def summary(self) -> dict[str, int]:
        """Counts per outcome; a run without any test case counts as one error."""
        counts = {outcome: self.count(outcome) for outcome in reversed(OUTCOMES)}
        if not self.outcomes:
            counts["error"] = 1
        return counts


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The children import edgedp from this source tree, not from a possibly stale install."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, **(extra or {})}


def _pytest(args: list[str], env: dict[str, str] | None = None) -> PytestRun:
    """Run pytest over ``args`` and read every case's outcome from its JUnit XML report."""
    with tempfile.TemporaryDirectory() as scratch:
        junit = Path(scratch) / "junit.xml"
        result = subprocess.run(
            [*PYTEST, f"--junitxml={junit}", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env=_env(env),
            check=False,
        )
        run = PytestRun(result.returncode)
        if not junit.exists():
            return run
        for case in ElementTree.parse(junit).iter("testcase"):  # noqa: S314 (our own report)
            name = case.get("name", "?")
            problem = next(
                (child for child in case if child.tag in ("error", "failure", "skipped")), None
            )
            outcome = "passed" if problem is None else problem.tag.replace("failure", "failed")
            if name not in run.outcomes or OUTCOMES.index(outcome) < OUTCOMES.index(
                run.outcomes[name]
            ):
                run.outcomes[name] = outcome
                if problem is not None:
                    message = (problem.get("message") or "").splitlines()
                    run.messages[name] = message[0][:200] if message else problem.tag
        return run


def _add_pytest_row(report: Report, table: str, check: str, run: PytestRun) -> None:
    report.add(table=table, check=check, **run.summary(), exit_code=run.exit_code)


def _audits(report: Report, samples: int) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        results = Path(scratch) / "audits.jsonl"
        run = _pytest(
            ["tests/evaluation/test_audit.py"],
            {"EDGEDP_AUDIT_SAMPLES": str(samples), "EDGEDP_TRUST_REPORT": str(results)},
        )
        recorded: dict[str, list[dict]] = {}
        if results.exists():
            for line in results.read_text().splitlines():
                audit = json.loads(line)
                recorded.setdefault(audit["case"], []).append(audit)
    helpers = []
    for case in dict.fromkeys([*run.outcomes, *recorded]):
        outcome, broken = run.outcomes.get(case, "unknown"), "caught" in case
        if case not in recorded:
            if outcome == "passed":  # a test of the auditor itself (Clopper-Pearson), no audit
                helpers.append(case)
            else:
                report.add(
                    table="audits",
                    case=case,
                    test=outcome,
                    verdict=f"ERROR before auditing: {run.messages.get(case, '')}",
                )
            continue
        for audit in recorded[case]:
            verdict = (
                ("caught" if not audit["passed"] else "MISSED")
                if broken
                else ("passes" if audit["passed"] else "FAILS")
            )
            report.add(
                table="audits",
                case=case,
                test=outcome,
                claimed_epsilon=audit["claimed_epsilon"],
                lower_bound=round(audit["epsilon_lower_bound"], 4),
                samples=audit["samples"],
                event=audit["event"],
                verdict=verdict,
            )
    if not run.outcomes:
        report.add(
            table="audits",
            case="tests/evaluation/test_audit.py",
            test="error",
            verdict="no test ran",
        )
    report.notes.append(
        f"Auditor self-tests without an audit (all passed): {', '.join(helpers) or 'none'}."
    )


def _ledger(report: Report, trials: int) -> None:
    """Repeated SIGKILL trials: each test run appends its charge statistics to a JSON-lines file."""
    with tempfile.TemporaryDirectory() as scratch:
        statistics = Path(scratch) / "ledger.jsonl"
        runs = [
            _pytest([SIGKILL_TEST], {"EDGEDP_LEDGER_REPORT": str(statistics)})
            for _ in range(trials)
        ]
        lines = statistics.read_text().splitlines() if statistics.exists() else []
    rows = [json.loads(line) for line in lines]
    passed = sum(1 for run in runs if run.outcomes and run.count("passed") == len(run.outcomes))
    report.add(
        table="ledger",
        check="SIGKILL trials (6 rounds x 4 writers, staggered kills)",
        trials=trials,
        passed=passed,
        failed=trials - passed,
        with_statistics=len(rows),
        kills=sum(row["kills"] for row in rows),
        committed=sum(row["committed"] for row in rows),
        recorded=sum(row["recorded"] for row in rows),
        in_flight=sum(row["in_flight"] for row in rows),
        lost=sum(row["lost"] for row in rows),
        duplicated=sum(row["duplicated"] for row in rows),
    )
    report.notes.append(
        "Ledger: committed = acknowledged to the worker after COMMIT; recorded = rows in the "
        "ledger; in flight = recorded but killed before the acknowledgement; lost = acknowledged "
        f"but missing. Trial seeds (EDGEDP_LEDGER_SEED): {', '.join(str(r['seed']) for r in rows)}."
    )


def _atheris(report: Report, runs: int) -> None:
    """The atheris harness; a missing atheris is reported as not run, a failure as a crash."""
    done, verdict = 0, "NOT RUN: atheris is not installed"
    if importlib.util.find_spec("atheris") is not None:
        fuzz = subprocess.run(
            [sys.executable, "tests/fuzz/fuzz_privatize.py", f"-runs={runs}", "-max_len=4096"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env=_env(),
            check=False,
        )
        match = re.search(r"Done (\d+) runs", fuzz.stderr)
        done = int(match.group(1)) if match else 0
        tail = " | ".join(fuzz.stderr.strip().splitlines()[-3:])[-300:]
        verdict = "ok" if fuzz.returncode == 0 else f"CRASH (exit {fuzz.returncode}): {tail}"
    report.add(
        table="atheris",
        check="atheris fuzz (CLI decoding + streaming + invariant)",
        runs=done,
        of=runs,
        verdict=verdict,
    )


def run(report: Report, *, quick: bool) -> None:
    samplers.run(report, quick=quick)  # realised delta of every sampler (issue 14), and speed
    _audits(report, 100_000 if quick else 2_000_000)
    _ledger(report, 2 if quick else 10)
    _atheris(report, 5_000 if quick else 100_000)
    _add_pytest_row(
        report,
        "fuzzing",
        "fuzz tests (hypothesis, 50 MB line, 1M lines, bytes): tests/test_fuzz.py",
        _pytest(["tests/test_fuzz.py"]),
    )
    _add_pytest_row(
        report,
        "packs",
        "hostile packs rejected: tests/packs/test_hostile_packs.py",
        _pytest(["tests/packs/test_hostile_packs.py"]),
    )
    _add_pytest_row(
        report,
        "packs",
        f"corrupted packs rejected: tests/packs/test_packs.py -k '{CORRUPTION_TESTS}'",
        _pytest(["tests/packs/test_packs.py", "-k", CORRUPTION_TESTS]),
    )
