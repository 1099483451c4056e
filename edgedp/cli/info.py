"""``edgedp info``: versions, platform, settings and packs, for bug reports (as ``spacy info``)."""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import edgedp
from edgedp.cli.packs import COLUMNS, entry_fields, pack_rows, render_table
from edgedp.errors import DependencyError, InputError
from edgedp.packs.loading import list_packs
from edgedp.runtime.backend import NATIVE_MODULES, backend

NAME = "info"
HELP = "versions, platform, settings and installed packs (paste it into a bug report)"
#: Distributions reported: the runtime's dependencies, then the extras' (by extra).
DEPENDENCIES = ("numpy", "faiss-cpu", "onnxruntime", "tokenizers")
EXTRAS = {
    "sentences": ("sentencex",),
    "spark": ("pyspark", "pyarrow", "pandas"),
    "dask": ("dask", "distributed"),
    "export": ("edgedp-export", "torch"),
}
#: The environment variables edgedp reads.
SETTINGS = ("EDGEDP_BACKEND", "EDGEDP_PACKS", "EDGEDP_PROGRESS", "EDGEDP_DEBUG", "OMP_NUM_THREADS")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = HELP
    parser.add_argument("--json", action="store_true", help="print JSON")


def _version(distribution: str) -> str | None:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None


def _backends() -> dict[str, str]:
    """The tier of each component (:mod:`edgedp.runtime.backend`), or why none can run."""
    tiers = {}
    for component in NATIVE_MODULES:
        try:
            tiers[component] = backend(component)
        except (DependencyError, InputError) as error:
            tiers[component] = f"unavailable ({error})"
    return tiers


def collect() -> dict[str, Any]:
    """Everything ``edgedp info`` reports (distribution metadata and manifests only: fast)."""
    return {
        "edgedp": edgedp.__version__,
        "location": str(Path(edgedp.__file__).resolve().parent),
        "python": f"{platform.python_version()} ({platform.python_implementation()})",
        "executable": sys.executable,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "dependencies": {name: _version(name) for name in DEPENDENCIES},
        "backends": _backends(),
        "extras": {
            extra: {name: _version(name) for name in names} for extra, names in EXTRAS.items()
        },
        "environment": {name: os.environ.get(name) for name in SETTINGS},
        "packs": [entry_fields(entry) for entry in list_packs()],
    }


def render(report: dict[str, Any]) -> str:
    def versions(table: dict[str, str | None]) -> str:
        return ", ".join(f"{name} {found or 'not installed'}" for name, found in table.items())

    lines = [
        f"edgedp {report['edgedp']} ({report['location']})",
        f"python {report['python']}: {report['executable']}",
        f"platform {report['platform']} ({report['machine']}, {report['cpus']} CPUs)",
        f"dependencies: {versions(report['dependencies'])}",
        "backends: " + ", ".join(f"{name} {tier}" for name, tier in report["backends"].items()),
        *(f"extra [{extra}]: {versions(found)}" for extra, found in report["extras"].items()),
        "environment: "
        + (", ".join(f"{k}={v}" for k, v in report["environment"].items() if v is not None) or "-"),
        "",
        render_table(pack_rows(report["packs"]), COLUMNS),
    ]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> None:
    report = collect()
    print(json.dumps(report, indent=2) if args.json else render(report))
