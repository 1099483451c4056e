"""``python -m bench <suite> [--quick] [--out DIR]``: run a benchmark suite and write its report."""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

from bench.harness import Report

SUITES = {
    "latency": "bench.latency",
    "index": "bench.index_study",
    "word-mechanisms": "bench.word_mechanisms",
    "trust": "bench.trust",
    "sentence-latency": "bench.sentence_latency",
    "doc-utility": "bench.doc_utility",
    "adept": "bench.adept",
}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("suite", choices=[*SUITES, "all"])
    parser.add_argument("--quick", action="store_true", help="tiny inputs, seconds per suite")
    parser.add_argument("--out", type=Path, default=Path("bench/results"), help="results directory")
    args = parser.parse_args()
    for name in SUITES if args.suite == "all" else [args.suite]:
        print(f"== {name}{' (quick)' if args.quick else ''}", flush=True)
        report = Report(name, args.quick)
        importlib.import_module(SUITES[name]).run(report, quick=args.quick)
        print(f"   report: {report.write(args.out)}")


if __name__ == "__main__":
    main()
