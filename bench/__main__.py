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
    "latency": "bench.performance.latency",
    "memory": "bench.performance.memory",
    "index": "bench.performance.index_study",
    "word-utility": "bench.utility.word_utility",
    "doc-utility": "bench.utility.doc_utility",
    "peers": "bench.peers.comparison",
}
#: Studies of one mechanism or of the trust features, run by name only.
EXTRA_SUITES = {
    "adept": "bench.utility.adept",
    "trust": "bench.trust.report",
    "load-latency": "bench.performance.load_latency",
    "pack-loading": "bench.performance.pack_loading",
    "samplers": "bench.trust.samplers",
    "guidance": "bench.utility.guidance",
    "proper-nouns": "bench.utility.proper_nouns",
    "names": "bench.utility.names",
    "chat-output": "bench.utility.chat_output",
    "guard": "bench.utility.guard",
    "sampling-costs": "bench.performance.sampling_costs",
    "domains": "bench.utility.domains",
    "subspace-costs": "bench.performance.subspace_costs",
    "scale": "bench.performance.scale",
    "footprint": "bench.performance.footprint",
    "throughput": "bench.performance.throughput",
    "ledger-throughput": "bench.performance.ledger_throughput",
    "brr-parity": "bench.utility.brr_parity",
    "encoder-backends": "bench.performance.encoder_backends",
    "decoding": "bench.utility.decoding",
    "epsilon": "bench.utility.epsilon",
    "backends": "bench.performance.backends",
    "sentence-tiers": "bench.performance.sentence_tiers",
    "ledger": "bench.performance.ledger_charges",
    "langid": "bench.utility.language_identification",
    "multilingual": "bench.utility.multilingual",
    "languages": "bench.utility.languages",
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
