"""edgedp benchmarks: run ``python -m bench <suite> [--quick] [--out DIR]`` from the repository root.

Benchmarks are not tests: they print figures, ratios against a baseline measured in the same run,
and write machine-readable results (JSON), a Markdown report and PNG plots. They never assert
wall-clock numbers (``tests/test_bench_smoke.py`` only checks that every suite runs). See
bench/README.md.
"""
