"""Run the README's ```python example that contains MARKER, in this interpreter.

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


def main(marker: str) -> None:
    blocks = re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), re.M | re.S)
    chosen = [block for block in blocks if marker in block]
    if len(chosen) != 1:
        sys.exit(f"{README}: {len(chosen)} python examples contain {marker!r}, expected one")
    code = compile(chosen[0], f"README.md, the example with {marker!r}", "exec")
    WORKDIR.mkdir(parents=True, exist_ok=True)
    os.chdir(WORKDIR)
    exec(code, {"__name__": "__main__"})  # noqa: S102 - the README's own example, by design


if __name__ == "__main__":
    main(sys.argv[1])
