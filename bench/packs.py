"""Word packs the benchmarks need beyond the bundled ones, built on demand with edgedp-export.

They land in ``bench/packs/<name>`` (git-ignored) and are reused by later runs. Every pack uses the
bundled pack's recipe (GloVe 6B 50d, 256-bit autoencoder codes, exact search) unless said otherwise,
so that packs of different sizes differ in their vocabulary only:

* ``10k``, ``medium`` (100k words: the bundled pack plus float16 vectors, ``--from-pack``), ``full``
  (all 336,199 single-token GloVe 6B words): the
  vocabulary-growth series, with float16 vectors;
* ``mldp300``: the 33,825 usable words of MLDP's own GloVe 840B 300d file, float32 vectors (the
  ground for comparing with the MLDP peer);
* ``opinion-lexicon``: the Hu & Liu lexicon words that are GloVe 6B words, float32 vectors (the
  vocabulary of the Product Reviews experiment);
* ``quick`` and ``opinion-lexicon-quick``: small random-hyperplane packs for ``--quick`` runs, built
  in seconds (no autoencoder training).

Benchmarks may run at once (the test suite runs each ``--quick`` suite in its own process, in
parallel): a pack is built under a lock, by the first process that needs it, and the others wait
for it and load it.
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path

import edgedp
from bench.datasets import opinion_lexicon

PACKS_DIR = Path(__file__).resolve().parent / "packs"
_GLOVE = ["--source", "glove-6b-50d", "--bits", "256"]
_LEXICON_FILE = "opinion-lexicon.txt"
#: ``edgedp-export words`` arguments of each bench pack (``--out`` is added).
BUILDS: dict[str, list[str]] = {
    "10k": [*_GLOVE, "--words", "10000", "--method", "autoencoder", "--vectors", "float16"],
    "medium": ["--from-pack", "words-small", "--vectors", "float16"],  # minutes, no torch
    "full": ["--preset", "full"],
    "mldp300": ["--preset", "mldp300"],
    "opinion-lexicon": [
        *_GLOVE,
        "--words",
        "all",
        "--method",
        "autoencoder",
        "--vectors",
        "float32",
        "--only-words",
        str(PACKS_DIR / _LEXICON_FILE),
    ],
    "quick": [*_GLOVE, "--words", "5000", "--method", "random-hyperplane", "--vectors", "float16"],
    "opinion-lexicon-quick": [
        *_GLOVE,
        "--words",
        "800",
        "--method",
        "random-hyperplane",
        "--vectors",
        "float32",
        "--only-words",
        str(PACKS_DIR / _LEXICON_FILE),
    ],
}
#: The vocabulary-growth series: label -> pack name (the bundled pack's recipe at three sizes).
GROWTH = {"10k": "10k", "100k": "medium", "336k": "full"}


def pack_dir(name: str) -> Path:
    return PACKS_DIR / name


def is_built(name: str) -> bool:
    return (pack_dir(name) / "manifest.json").is_file()


@contextlib.contextmanager
def _build_lock() -> Iterator[None]:
    """One build at a time across processes (``bench/packs/.build.lock``, released on exit)."""
    PACKS_DIR.mkdir(parents=True, exist_ok=True)
    with open(PACKS_DIR / ".build.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def ensure_pack(name: str) -> edgedp.WordPack:
    """The bench pack ``name`` (see :data:`BUILDS`), built once with ``edgedp-export words``."""
    directory = pack_dir(name)
    if not is_built(name):
        with _build_lock():
            _build(name, directory)
    return edgedp.load_pack(directory)


def _build(name: str, directory: Path) -> None:
    """Build ``name`` into ``directory`` unless another process did while this one waited."""
    if not is_built(name):
        from edgedp_export.cli import main as export_main

        if "--only-words" in BUILDS[name]:
            lexicon = PACKS_DIR / _LEXICON_FILE
            lexicon.parent.mkdir(parents=True, exist_ok=True)
            lexicon.write_text("".join(f"{word}\n" for word in opinion_lexicon()), encoding="utf-8")
        print(f"   building the {name} pack (once) in {directory}", flush=True)
        arguments = ["words", *BUILDS[name], "--name", name, "--out", str(directory), "--force"]
        if export_main(arguments) != 0:
            raise SystemExit(f"could not build the {name} pack")


def pack_bytes(pack) -> int:
    """Total size of a pack's files as listed in its manifest."""
    return sum(entry["bytes"] for entry in pack.manifest.data["files"].values())
