"""edgedp benchmarks: run ``python -m bench <suite> [--quick] [--out DIR]`` from the repository root.

Benchmarks are not tests: they print figures, ratios against a baseline measured in the same run,
and write machine-readable results (JSON) plus a Markdown report. They never assert wall-clock
numbers. See bench/README.md.
"""
