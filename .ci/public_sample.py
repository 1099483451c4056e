"""Write PATH: public documents for CI's domain-pack build, one {"id", "text"} JSON object a line.

The documents are the docstrings of this Python's standard library (modules and their classes and
functions; PSF licence, public): offline, the same on every CI machine with the same Python, and
of several sentences each. The pack built from them ships embeddings and ids only.
"""

import importlib
import inspect
import json
import re
import sys
import warnings
from pathlib import Path

#: Modules with side effects on import, or not worth a document.
SKIP = {"antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "test", "pydoc_data"}
MIN_SENTENCES = 4
MOST = 250


def documents():
    for name in sorted(sys.stdlib_module_names):
        if name.startswith("_") or name in SKIP:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                module = importlib.import_module(name)
        except Exception:  # noqa: S112 - a platform's missing module is no document
            continue
        members = [(name, module)] + [
            (f"{name}.{attribute}", value)
            for attribute, value in sorted(vars(module).items())
            if not attribute.startswith("_")
            and (inspect.isclass(value) or inspect.isfunction(value))
            and getattr(value, "__module__", None) == name
        ]
        for identifier, value in members:
            text = re.sub(r"\s+", " ", inspect.getdoc(value) or "").strip()
            if len(re.findall(r"[.!?](?:\s|$)", text)) >= MIN_SENTENCES:
                yield {"id": identifier, "text": text}


def main(path: str) -> None:
    count = 0
    with Path(path).open("w", encoding="utf-8") as out:
        for record in documents():
            out.write(json.dumps(record) + "\n")
            count += 1
            if count == MOST:
                break
    print(f"wrote {count} public documents to {path}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
