"""Run the ```python example of the README or the docs that contains MARKER, in this interpreter.

CI runs each install footprint's README example in that footprint's own fresh virtual environment
(`.venv-corpus/bin/python .ci/readme_example.py "import edgedp.dask"`), so the README's examples are
what is tested, not copies of them. Exactly one example must contain MARKER. The example runs in
out/examples/ (git ignores out/), so what it writes by a relative path (the Spark example's ledger,
budget.db) stays out of the checkout.
"""

import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
#: Where the examples run: their relative paths land here.
WORKDIR = ROOT / "out" / "examples"


def examples() -> dict[str, str]:
    """Every ```python example of the README and the documentation site, by its text (a page
    that repeats the README's example holds the same example, not another), with where it is."""
    found: dict[str, str] = {}
    for page in [README, *sorted((ROOT / "docs").rglob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        for block in re.findall(r"^```python\n(.*?)^```", text, re.M | re.S):
            found.setdefault(block, str(page.relative_to(ROOT)))
    return found


def main(marker: str) -> None:
    chosen = [(block, page) for block, page in examples().items() if marker in block]
    if len(chosen) != 1:
        sys.exit(f"{len(chosen)} python examples of README.md and docs/ contain {marker!r}")
    ((block, page),) = chosen
    code = compile(block, f"{page}, the example with {marker!r}", "exec")
    WORKDIR.mkdir(parents=True, exist_ok=True)
    os.chdir(WORKDIR)
    exec(code, {"__name__": "__main__"})  # noqa: S102 - the README's own example, by design


if __name__ == "__main__":
    main(sys.argv[1])
