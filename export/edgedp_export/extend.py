"""Adding float vectors to an existing words pack: a Euclidean pack without torch (seconds for the
vectors; about 4 CPU-minutes more for the neighbour tables and CusText's sets, see below).

``edgedp-export words --from-pack words-small --vectors float16 --out medium`` reads the vocabulary
and binary codes of an existing words pack, looks every vocabulary word up in the pack's own source
of vectors (GloVe 6B 50d for the bundled pack) and writes a new pack with

* ``vocab.txt`` and ``codes.npy`` copied byte for byte (the codes are not recomputed, so nothing is
  retrained and torch is never imported; BRR on the new pack is BRR on the old one),
* ``vectors.npy`` (float16 or float32) and ``covariance.npy`` (float64) for Madlib, Mahalanobis and
  Vickrey, exactly as ``--preset medium`` writes them,
* calibration: the Hamming statistics of the base pack (same codes, so the same numbers) and the
  Euclidean statistics of the *stored* vectors (the rounding of float16 changes distances),
* the neighbour table of TEM's and SanText's near-far draw (:mod:`edgedp_export.neighbours`; about
  a minute for 100,000 words, ``--neighbours 0`` leaves it out) and CusText's output sets for the
  vectors (:mod:`edgedp_export.custext_sets`; those of the codes are copied from the base pack
  when it has them for the same k; ``--custext 0`` leaves them out).

Refuses a source whose files differ from the ones the base pack records (``source.files_sha256``):
codes made from one set of vectors must not be paired with another.

Euclidean calibration: exact over all pairs (the same function as a full build) for vocabularies up
to ``EXACT_PAIRWISE_LIMIT`` words when ``--calibration exact`` is asked for; by default the average
is estimated from ``SAMPLED_PAIRS`` random pairs (with its 95 % interval recorded in the manifest)
and the maximum is exact (exhaustive farthest-point search). The calibration only feeds
``equivalent_epsilon`` (comparing mechanisms at equal privacy-loss bounds), never a mechanism's
noise, so the sampled average cannot weaken a guarantee; the exact route costs O(n^2 d) (about 45 s of
CPU for 100,000 words, and row blocks of 256 x n float64 distances: several hundred MB) and
reproduces a full build's numbers.
"""

from __future__ import annotations

import importlib.metadata
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import faiss
import numpy as np

import edgedp_export
from edgedp.errors import InputError
from edgedp.evaluation.calibration import exact_pairwise_statistics, sampled_pairwise_statistics
from edgedp.packs.manifest import thaw
from edgedp.privacy.randomness import public_statistics_source
from edgedp.text.segmentation import normalize_word
from edgedp.words.pack import WordPack
from edgedp_export.custext_sets import DEFAULT_CUSTEXT_K, add_custext_sets
from edgedp_export.neighbours import DEFAULT_NEIGHBOURS, add_neighbour_table
from edgedp_export.pack_writer import FileWriter, npy_writer, write_pack
from edgedp_export.sources import WordVectors

SAMPLED_PAIRS = 1_000_000  # 95 % interval about +-0.03 % of the average on 100,000 GloVe words
#: Seed of the public pair sample of the sampled calibration (a property of the pack, not private).
CALIBRATION_SEED = 0
#: Sections of the base manifest carried over unchanged (they describe the copied files).
CARRIED_SECTIONS = (
    "source",
    "language",
    "language_model",
    "vocabulary",
    "embedding",
    "codes",
    "index",
)


def source_rows(source: WordVectors, words: tuple[str, ...]) -> np.ndarray:
    """Row of each vocabulary word in ``source`` (first spelling whose normalized form matches).

    The same rule as :func:`edgedp_export.words.select_vocabulary`, so a pack built from ``source``
    maps back to the rows its codes were computed from.
    """
    wanted = set(words)
    found: dict[str, int] = {}
    for row, token in enumerate(source.words):
        key = normalize_word(token)
        if key in wanted and key not in found:
            found[key] = row
            if len(found) == len(wanted):
                break
    missing = [word for word in words if word not in found]
    if missing:
        raise InputError(
            f"{len(missing)} words of the pack are not in the source (first: {missing[0]!r}); "
            "pass the source the pack was built from (--source or --source-file)"
        )
    return np.fromiter((found[word] for word in words), dtype=np.int64, count=len(words))


def check_same_source(base: Mapping[str, Any], source: WordVectors) -> None:
    """Refuse a source whose file digests differ from those the base pack was built from."""
    recorded = base.get("files_sha256")
    given = source.provenance.get("files_sha256")
    if recorded and given and dict(recorded) != dict(given):
        raise InputError(
            "the source's files differ from those the base pack was built from "
            f"(pack: {dict(recorded)}, source: {dict(given)}); its codes would not match the vectors"
        )


def euclidean_calibration(vectors: np.ndarray, *, exact: bool) -> dict[str, Any]:
    """Average and maximum pairwise distance of the stored vectors (see the module docstring)."""
    if exact:
        statistics = exact_pairwise_statistics(vectors)
    else:
        statistics = sampled_pairwise_statistics(
            vectors,
            pairs=SAMPLED_PAIRS,
            rng=public_statistics_source(CALIBRATION_SEED),
        )
    statistics["vectors"] = "the pack's stored vectors"
    return statistics


def extend_words_pack(
    base: WordPack,
    source: WordVectors,
    out: Path,
    *,
    vectors: str,
    name: str,
    command: str,
    exact_calibration: bool = False,
    neighbours: int = DEFAULT_NEIGHBOURS,
    custext: int = DEFAULT_CUSTEXT_K,
    force: bool = False,
) -> Path:
    """Write ``out``: the words pack ``base`` (loaded and verified) plus vectors from ``source``."""
    if vectors not in ("float16", "float32"):
        raise InputError(
            f"--from-pack adds float vectors: --vectors float16|float32, not {vectors}"
        )
    if base.vectors is not None:
        raise InputError(f"pack {base.name} already has {base.vectors.dtype} vectors")
    data = base.manifest.data
    check_same_source(data.get("source", {}), source)
    rows = source_rows(source, base.vocabulary.words)
    stored = np.asarray(source.vectors[rows], dtype=np.float32).astype(vectors)
    del source, rows  # the 400,000 source words are not needed any more (peak RSS)
    if stored.shape[1] != int(data["embedding"]["dims"]):
        raise InputError(
            f"the source has {stored.shape[1]} dimensions, the pack {data['embedding']['dims']}"
        )
    files: dict[str, FileWriter] = {name: _copy(base, name) for name in _copied_files(base)}
    files["vectors.npy"] = npy_writer(stored)
    covariance = np.atleast_2d(np.cov(stored.astype(np.float64), rowvar=False))
    files["covariance.npy"] = npy_writer(covariance)
    manifest: dict[str, Any] = {key: thaw(data[key]) for key in CARRIED_SECTIONS if key in data}
    manifest.update(
        {
            "kind": "words",
            "name": name,
            "description": f"{data['description']}; {vectors} vectors and covariance added",
            "build_command": command,
            "derived_from": {
                "pack": base.name,
                "manifest_sha256": base.manifest.digest,
                "build_command": data.get("build_command", ""),
                "built_with": thaw(data.get("built_with", {})),
                "copied_files": sorted(_copied_files(base)),
            },
            "built_with": {
                "edgedp-export": edgedp_export.__version__,
                "numpy": np.__version__,
                "faiss-cpu": faiss.__version__,
                "tokenizers": importlib.metadata.version("tokenizers"),
            },
            "calibration": {
                "hamming": thaw(data["calibration"]["hamming"]),
                "euclidean": euclidean_calibration(stored, exact=exact_calibration),
            },
            "euclidean": {
                "vectors_file": "vectors.npy",
                "covariance_file": "covariance.npy",
                "dtype": vectors,
                "dims": int(stored.shape[1]),
                "covariance": "sample covariance of the stored vectors (numpy.cov, float64)",
            },
        }
    )
    add_neighbour_table(stored, neighbours, files, manifest["euclidean"])
    same_sets = "custext" in data and data["custext"]["k"] == custext
    copied = base.custext_sets.get("hamming") if same_sets else None  # same codes, same sets
    add_custext_sets(custext, np.asarray(base.codes), stored, files, manifest, hamming=copied)
    return write_pack(out, manifest, files, force=force)


def _copied_files(base: WordPack) -> list[str]:
    listed = base.manifest.data["files"]
    return [name for name in ("vocab.txt", "codes.npy", "index.faissb") if name in listed]


def _copy(base: WordPack, name: str) -> FileWriter:
    source = base.manifest.file(name)
    return lambda path: shutil.copyfile(source, path)
