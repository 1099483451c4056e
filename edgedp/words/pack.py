"""Word packs: the public vocabulary and its binary codes, as loaded from a pack directory.

Layout of a ``words`` pack (see ``manifest.json`` of the bundled pack for a full example):

* ``vocab.txt``: UTF-8, one normalized word per line, most frequent first (the GloVe order); line i is
  word id i.
* ``codes.npy``: uint8 array (vocabulary size, bits / 8), the packed binary code of each word with the
  bit order recorded in the manifest.
* optional ``index.faissb``: an approximate FAISS binary index (HNSW or IVF) over the codes (read on
  the native search tier only; numpy answers every search exactly, :mod:`edgedp.words.hamming`).
* optional ``vectors.npy`` (float16 or float32, (vocabulary size, dims)) and ``covariance.npy``
  (float64, (dims, dims)): the Euclidean data of the Madlib, Mahalanobis and Vickrey mechanisms.

The manifest's ``calibration`` section holds exact average and maximum pairwise distances per
metric (BRR paper, Sec. 5), used by :mod:`edgedp.evaluation.calibration` to compare mechanisms.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

import numpy as np

from edgedp.errors import REBUILD_HINT, AssetError
from edgedp.packs.loading import DEFAULT_WORD_PACK, LoadablePack
from edgedp.packs.manifest import Manifest, parse_npy
from edgedp.runtime.native import Lazy
from edgedp.text.vocabulary import Vocabulary
from edgedp.words.euclidean import EuclideanIndex
from edgedp.words.hamming import INDEX_TYPES, HammingIndex

BIT_ORDERS = ("big",)
#: How to get a pack with float vectors, fastest first (no torch; seconds without the neighbour
#: tables and CusText's sets, which TEM, SanText and CusText need: about 4 CPU-minutes with them).
FLOAT_PACK_RECIPE = (
    'build one in seconds without torch, in an edgedp checkout: pip install "./export[glove]" '
    "&& edgedp-export words --from-pack {pack} --vectors float16 --neighbours 0 --custext 0 "
    "--out DIR, then pass --pack DIR (drop --neighbours 0 --custext 0 for TEM, SanText and "
    "CusText: about 4 CPU-minutes)"
)
T = TypeVar("T")


@dataclass(frozen=True, slots=True, eq=False)
class SuffixNeighbours:
    """For each word below ``start``: its nearest words among the ids [start, |V|) (``ids``, one
    row per word) and a lower bound on the distance of every other word of that range
    (``bounds``): SanText+'s near sets for frequent inputs, written by the exporter for its
    default sensitive fraction."""

    start: int
    ids: np.ndarray
    bounds: np.ndarray


@dataclass(frozen=True, slots=True, eq=False)
class WordPack(LoadablePack):
    """A loaded ``words`` pack: the public vocabulary, its binary codes and optional float vectors.

    Load one with ``WordPack.load(name)`` (``WordPack.load()`` is the bundled ``words-small``:
    100,000 words, 256-bit codes, no float vectors) or :func:`~edgedp.load_pack`, never by hand:
    loading verifies every file against the manifest. Arrays are read-only views of the verified
    bytes (private memory, see :mod:`edgedp.packs.manifest`). Every word mechanism reads one.

    Parameters
    ----------
    name : str
        The pack's name (``"words-small"``).
    path : Path
        Its directory.
    manifest : Manifest
        The verified manifest (file digests, dims, bit order, calibration statistics).
    vocabulary : Vocabulary
        The public vocabulary, in frequency order (ids are ranks).
    codes : ndarray
        The packed binary codes (uint8, shape (words, bits / 8)).
    index : HammingIndex
        The Hamming search index over ``codes``.
    vectors : ndarray or None, default None
        Float word vectors (Madlib, Mahalanobis, SanText, Euclidean TEM and CusText need them).
    covariance : ndarray or None, default None
        The vectors' covariance (Mahalanobis).
    neighbours : ndarray or None, default None
        Each word's k nearest words (:class:`edgedp.words.vocabulary_draw.NeighbourTable`).
    neighbour_bounds : ndarray or None, default None
        A certified lower bound on the distance of every other word.
    suffix_neighbours : SuffixNeighbours or None, default None
        For each frequent word, its nearest sensitive words and a bound on the others (SanText+'s
        near sets for frequent inputs).
    custext_sets : Mapping of str to ndarray, optional
        CusText's output sets for ``custext_k``, by space (each word's set index); default none.
    custext_k : int or None, default None
        The ``k`` of ``custext_sets``.

    Raises
    ------
    ~edgedp.AssetError
        From :func:`~edgedp.load_pack`, for a missing, modified or inconsistent pack; from
        :meth:`require_vectors`, for a pack without float vectors.

    Notes
    -----
    A pack holds public data only: its vocabulary and embeddings are never built from the text to
    privatize (that would break every word mechanism's guarantee), so loading and sharing one
    costs no privacy.

    Examples
    --------
    >>> import edgedp
    >>> pack = edgedp.load_pack()
    >>> isinstance(pack, edgedp.WordPack), pack.kind, pack.bits
    (True, 'words', 256)
    >>> pack.vectors is None
    True
    """

    name: str
    path: Path
    manifest: Manifest
    vocabulary: Vocabulary
    codes: np.ndarray
    index: HammingIndex
    vectors: np.ndarray | None = None
    covariance: np.ndarray | None = None
    #: Optional: each word's k nearest words and a certified lower bound on the distance of every
    #: other word (:class:`edgedp.words.vocabulary_draw.NeighbourTable`; written by the exporter).
    neighbours: np.ndarray | None = None
    neighbour_bounds: np.ndarray | None = None
    suffix_neighbours: SuffixNeighbours | None = None
    #: Optional: CusText's output sets for ``custext_k`` by space (each word's set index).
    custext_sets: Mapping[str, np.ndarray] = field(default_factory=lambda: MappingProxyType({}))
    custext_k: int | None = None
    _euclidean: Lazy[EuclideanIndex] = field(init=False, repr=False)
    _derived: dict[str, Lazy[Any]] = field(init=False, repr=False)
    _derived_lock: threading.Lock = field(init=False, repr=False)

    def __post_init__(self) -> None:
        vectors = self.vectors
        object.__setattr__(self, "_euclidean", Lazy(lambda: EuclideanIndex(np.asarray(vectors))))
        object.__setattr__(self, "_derived", {})
        object.__setattr__(self, "_derived_lock", threading.Lock())

    def derived(self, key: str, build: Callable[[], T]) -> T:
        """Public data computed from this pack's verified contents (a float64 copy of the vectors,
        a search structure, CusText's output sets, ...): built by ``build`` on the first call
        for ``key``, then shared by every mechanism on the pack (``key`` names what it is)."""
        with self._derived_lock:
            lazy = self._derived.setdefault(key, Lazy(build))
        value: T = lazy.get()
        return value

    @property
    def bits(self) -> int:
        """Length of each word's binary code."""
        return int(self.codes.shape[1]) * 8

    PACK_KIND = "words"
    DEFAULT_PACK = DEFAULT_WORD_PACK

    @classmethod
    def from_manifest(cls, manifest: Manifest) -> WordPack:
        """Build the pack from its verified manifest (:meth:`load` is the way in)."""
        return load_word_pack(manifest)

    @property
    def calibration(self) -> Mapping[str, Any]:
        """Exact pairwise-distance statistics per metric (``hamming``, ``euclidean``, ...)."""
        statistics: Mapping[str, Any] = self.manifest.data.get("calibration", MappingProxyType({}))
        return statistics

    def require_vectors(self, mechanism: str) -> np.ndarray:
        """The float vectors, or an AssetError saying how to build a pack that has them."""
        if self.vectors is None:
            raise AssetError(
                f"{mechanism} needs float word vectors and pack {self.name!r} has none (it is "
                f"binary-only to stay small); {FLOAT_PACK_RECIPE.format(pack=self.name)}"
            )
        return self.vectors

    def euclidean_index(self, mechanism: str) -> EuclideanIndex:
        """Exact Euclidean search over the vectors, built on first use and shared."""
        self.require_vectors(mechanism)
        return self._euclidean.get()

    def describe(self) -> dict[str, Any]:
        """A short summary for ``edgedp packs info``."""
        return {
            **self.manifest.summary(),
            "vocabulary": len(self.vocabulary),
            "bits": self.bits,
            "index": self.index.index_type,
            "vectors": None
            if self.vectors is None
            else f"{self.vectors.dtype} {self.vectors.shape}",
        }


def _read_vocabulary(manifest: Manifest, size: int) -> Vocabulary:
    path = manifest.file(manifest.field("vocabulary", "file", str))
    try:
        vocabulary = Vocabulary.from_lines(manifest.contents(path.name))
    except UnicodeDecodeError:
        raise AssetError(
            f"pack {manifest.directory}: {path.name} is not UTF-8; {REBUILD_HINT}"
        ) from None
    except AssetError as error:
        raise AssetError(
            f"pack {manifest.directory}: {path.name}: {error}; {REBUILD_HINT}"
        ) from None
    if len(vocabulary) != size:
        raise AssetError(
            f"pack {manifest.directory}: {path.name} has {len(vocabulary)} words, the manifest "
            f"says {size}; {REBUILD_HINT}"
        )
    return vocabulary


def load_word_pack(manifest: Manifest) -> WordPack:
    """Build a :class:`WordPack` from a validated manifest (files already verified)."""
    size = manifest.field("vocabulary", "size", int)
    bits = manifest.field("codes", "bits", int)
    if size < 2 or bits <= 0 or bits % 8:
        raise AssetError(
            f"pack {manifest.directory}: needs >= 2 words and a positive multiple of 8 bits "
            f"(got {size} words, {bits} bits)"
        )
    bit_order = manifest.field("codes", "bit_order", str)
    if bit_order not in BIT_ORDERS:
        raise AssetError(f"pack {manifest.directory}: unsupported bit order {bit_order!r}")
    vocabulary = _read_vocabulary(manifest, size)
    codes = manifest.array(manifest.field("codes", "file", str), np.uint8, (size, bits // 8))
    vectors, covariance = _read_euclidean(manifest, size)
    neighbours, bounds = _read_neighbours(manifest, size)
    suffix = _read_suffix_neighbours(manifest, size)
    custext_k, custext_sets = _read_custext_sets(manifest, size)
    return WordPack(
        name=manifest.name,
        path=manifest.directory,
        manifest=manifest,
        vocabulary=vocabulary,
        codes=codes,
        index=_open_hamming_index(manifest, codes),
        vectors=vectors,
        covariance=covariance,
        neighbours=neighbours,
        neighbour_bounds=bounds,
        suffix_neighbours=suffix,
        custext_sets=custext_sets,
        custext_k=custext_k,
    )


def _open_hamming_index(manifest: Manifest, codes: np.ndarray) -> HammingIndex:
    index_type = manifest.field("index", "type", str)
    if index_type not in INDEX_TYPES:
        raise AssetError(
            f"pack {manifest.directory}: index type {index_type!r} is not supported by this edgedp "
            f"({', '.join(INDEX_TYPES)}); upgrade edgedp"
        )
    if index_type == "flat":
        return HammingIndex(codes)
    try:
        return HammingIndex(
            codes,
            index_type=index_type,
            index_file=manifest.file(manifest.field("index", "file", str)),
            index_data=manifest.contents(manifest.field("index", "file", str)),
            search_parameter=manifest.field("index", "search_parameter", int),
        )
    except AssetError as error:
        raise AssetError(f"pack {manifest.directory}: {error}; {REBUILD_HINT}") from None


def _read_euclidean(manifest: Manifest, size: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    if "euclidean" not in manifest.data:
        return None, None
    dims = manifest.field("euclidean", "dims", int)
    dtype = manifest.field("euclidean", "dtype", str)
    if dtype not in ("float16", "float32") or dims < 1:
        raise AssetError(f"pack {manifest.directory}: unsupported vectors {dtype} x {dims}")
    vectors = manifest.array(manifest.field("euclidean", "vectors_file", str), dtype, (size, dims))
    covariance = manifest.array(
        manifest.field("euclidean", "covariance_file", str), np.float64, (dims, dims)
    )
    _check_covariance(manifest, np.asarray(covariance))
    return vectors, covariance


def _read_neighbours(manifest: Manifest, size: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The neighbour table of a Euclidean pack, checked (:func:`_neighbour_rows`)."""
    section = manifest.data.get("euclidean", {})
    if "neighbours_file" not in section:
        return None, None
    width = manifest.field("euclidean", "neighbours", int)
    return _neighbour_rows(manifest, "neighbours", (size, width), 0, size)


def _read_suffix_neighbours(manifest: Manifest, size: int) -> SuffixNeighbours | None:
    """The neighbour table of the frequent words among the rarer ones, checked likewise."""
    section = manifest.data.get("euclidean", {})
    if "suffix_neighbours_file" not in section:
        return None
    start = manifest.field("euclidean", "suffix_start", int)
    width = manifest.field("euclidean", "suffix_neighbours", int)
    if not (0 < start < size and 0 < width <= size - start):
        raise AssetError(f"pack {manifest.directory}: bad suffix neighbour table; {REBUILD_HINT}")
    ids, bounds = _neighbour_rows(manifest, "suffix_neighbours", (start, width), start, size)
    return SuffixNeighbours(start, ids, bounds)


def _neighbour_rows(
    manifest: Manifest, name: str, shape: tuple[int, int], lo: int, hi: int
) -> tuple[np.ndarray, np.ndarray]:
    """A neighbour table's ids (int32, ``shape``) and bounds (float64), checked: ids of [lo, hi),
    distinct in each row (a repeated word would count twice in a near set), bounds finite and
    >= 0. That each bound holds for every word outside its row is the exporter's computation,
    covered by the manifest's checksums, not re-checked here: ``edgedp packs verify --deep``
    recomputes it (O(|V|^2))."""
    ids = manifest.array(manifest.field("euclidean", f"{name}_file", str), np.int32, shape)
    bounds_name = name.replace("neighbours", "neighbour") + "_bounds_file"
    bounds = manifest.array(manifest.field("euclidean", bounds_name, str), np.float64, shape[:1])
    problem = None
    ordered = np.sort(np.asarray(ids), axis=1)
    if ordered.min(initial=lo) < lo or ordered.max(initial=lo) >= hi:
        problem = "holds ids outside its range"
    elif shape[1] > 1 and (np.diff(ordered, axis=1) == 0).any():
        problem = "repeats a word in a row"
    elif not (np.isfinite(bounds).all() and (np.asarray(bounds) >= 0).all()):
        problem = "has a bound that is not finite and >= 0"
    if problem is not None:
        raise AssetError(
            f"pack {manifest.directory}: the neighbour table {problem}; {REBUILD_HINT}"
        )
    return ids, bounds


def _read_custext_sets(
    manifest: Manifest, size: int
) -> tuple[int | None, Mapping[str, np.ndarray]]:
    """CusText's output sets of the pack (k, {space: set index per word}), checked now and read
    again on first use (:class:`_StoredSets`: only CusText reads them, so other mechanisms do not
    hold them in memory)."""
    section = manifest.data.get("custext")
    if section is None:
        return None, MappingProxyType({})
    k = manifest.field("custext", "k", int)
    files = {
        space: section[f"{space}_file"]
        for space in ("hamming", "euclidean")
        if section.get(f"{space}_file") is not None
    }
    sets = _StoredSets(manifest, files, size, k)
    for name in files.values():
        sets.check(name, manifest.array(name, np.int32, (size,)))
        manifest.release(name)
    return k, sets


class _StoredSets(Mapping[str, np.ndarray]):
    """CusText's stored sets by space, each read (and its file checked against the manifest) on
    first use, then kept."""

    def __init__(self, manifest: Manifest, files: Mapping[str, str], size: int, k: int) -> None:
        self._manifest, self._files, self._size, self._k = manifest, dict(files), size, k
        self._loaded: dict[str, np.ndarray] = {}

    def check(self, name: str, set_of: np.ndarray) -> np.ndarray:
        """``set_of`` if the sets are numbered 0, 1, ... and hold k to 2k - 1 words each (all
        words if there are fewer than k), as the mapping makes them; any partition keeps
        CusText's guarantee, and these sizes are what the guarantee's statement promises."""
        size, k = self._size, self._k
        sizes = np.bincount(np.maximum(np.asarray(set_of), 0), minlength=1)
        low, high = (size, size) if size <= k else (k, 2 * k - 1)
        if np.asarray(set_of).min() < 0 or sizes.min() < low or sizes.max() > high:
            raise AssetError(
                f"pack {self._manifest.directory}: {name} is not a partition into sets of {low} "
                f"to {high} words; {REBUILD_HINT}"
            )
        return set_of

    def __getitem__(self, space: str) -> np.ndarray:
        if space not in self._loaded:
            name = self._files[space]  # KeyError: no sets for that space
            data = self._manifest.reread(name)
            where = f"pack {self._manifest.directory}: {name}"
            array = parse_npy(data, np.dtype(np.int32), (self._size,), where=where)
            self._loaded[space] = self.check(name, array)
        return self._loaded[space]

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)


def _check_covariance(manifest: Manifest, covariance: np.ndarray) -> None:
    """Mahalanobis noise needs a finite, symmetric, positive-definite covariance: a singular one
    would confine the noise to a subspace (no guarantee off it), a NaN one would poison every draw."""
    problem = None
    if not np.isfinite(covariance).all():
        problem = "has NaN or infinite entries"
    elif not np.allclose(covariance, covariance.T, rtol=1e-10, atol=0.0):
        problem = "is not symmetric"
    elif np.linalg.eigvalsh(covariance).min() <= 0.0:
        problem = "is not positive definite"
    if problem is not None:
        raise AssetError(
            f"pack {manifest.directory}: the covariance matrix {problem}; {REBUILD_HINT}"
        )
