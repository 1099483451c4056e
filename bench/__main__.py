"""``python -m bench <suite> [--quick] [--out DIR]``: run benchmark suites and write their reports.

``all`` runs the six suites users compare mechanisms by; ``adept``, ``trust``, ``samplers`` and
``scale`` (Spark and Dask) are run by name.
"""

from __future__ import annotations

import argparse
import importlib
import time
from pathlib import Path

from bench.harness import Report

#: The suites of ``all`` (each a module with ``run(report, *, quick)``).
SUITES = {
    "latency": "bench.latency",
    "memory": "bench.memory",
    "index": "bench.index_study",
    "word-utility": "bench.word_utility",
    "doc-utility": "bench.doc_utility",
    "peers": "bench.peer_comparison",
}
#: Studies of one mechanism or of the trust features, run by name only.
EXTRA_SUITES = {
    "adept": "bench.adept",
    "trust": "bench.trust",
    "load-latency": "bench.load_latency",
    "pack-loading": "bench.pack_loading",
    "samplers": "bench.samplers",
    "guidance": "bench.guidance",
    "sampling-costs": "bench.sampling_costs",
    "domains": "bench.domains",
    "scale": "bench.scale",
    "footprint": "bench.footprint",
}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("suite", choices=[*SUITES, *EXTRA_SUITES, "all"])
    parser.add_argument("--quick", action="store_true", help="tiny inputs, seconds per suite")
    parser.add_argument("--out", type=Path, default=Path("bench/results"), help="results directory")
    args = parser.parse_args()
    modules = {**SUITES, **EXTRA_SUITES}
    for name in SUITES if args.suite == "all" else [args.suite]:
        print(f"== {name}{' (quick)' if args.quick else ''}", flush=True)
        start = time.perf_counter()
        report = Report(name, args.quick)
        importlib.import_module(modules[name]).run(report, quick=args.quick)
        print(f"   report: {report.write(args.out)} ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
