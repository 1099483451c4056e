"""The mechanisms by name, each described once, and the pack types by kind; classes imported lazily.

A :class:`MechanismEntry` holds everything the rest of edgedp needs to know about a mechanism
before importing it: its command-line name, where its class lives, its own parameters as the
command line offers them (:class:`MechanismOption`), the metric its guarantee is stated in (what
``calibrate`` and :func:`edgedp.equivalent_epsilon` compare), whether ``calibrate --match`` can
build it from a name and an epsilon alone, and its default pack. Every table of mechanisms
(``--mechanism`` choices, each command's mechanism options and their help, the calibration names,
the corpus jobs' mechanisms and packs) is derived from these entries; adding a mechanism is its
module and one entry here.

A class is imported when it is looked up, so ``edgedp privatize --mechanism brr`` never imports
the ADePT rewriter (or anything of the sentence path), and :func:`load_pack` of a words pack never
loads onnxruntime. ``tests/test_registry.py`` checks each entry against its class (name, pack,
options and their defaults, metric).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar

from edgedp.errors import InputError
from edgedp.packs.loading import (
    DEFAULT_AUTOENCODER_PACK,
    DEFAULT_SENTENCE_PACK,
    DEFAULT_SUBSPACE_PACK,
    DEFAULT_WORD_PACK,
    LoadablePack,
    PackRef,
    read_pack_manifest,
)
from edgedp.privacy.validation import check_delta

if TYPE_CHECKING:
    from edgedp.adept.adept import ADePT
    from edgedp.adept.pack import AutoencoderPack
    from edgedp.documents.mechanism import DocumentMechanism
    from edgedp.documents.pack import SentencePack
    from edgedp.documents.subspace_pack import SubspacePack
    from edgedp.encoder.pack import EncoderPack
    from edgedp.words.language_model import LanguageModelPack
    from edgedp.words.mechanism import WordMechanism
    from edgedp.words.pack import WordPack

#: Any loaded pack.
AnyPack: TypeAlias = (
    "WordPack | SentencePack | SubspacePack | AutoencoderPack | LanguageModelPack | EncoderPack"
)

T = TypeVar("T")


def import_target(target: str) -> Any:
    """The object ``module:attribute`` names, imported now."""
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


class LazyRegistry(Mapping[str, "type[T]"], Generic[T]):
    """A read-only name -> class mapping whose classes are imported on first lookup."""

    def __init__(self, entries: Mapping[str, str]) -> None:
        self._entries = dict(entries)

    def __getitem__(self, name: str) -> type[T]:
        cls: Any = import_target(self._entries[name])
        return cls  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


def parse_weights(text: str) -> list[float]:
    """``--weights 0,0.05,0.1`` as ``[0.0, 0.05, 0.1]``."""
    try:
        return [float(item) for item in text.split(",")]
    except ValueError:
        raise InputError(f"--weights must be comma-separated numbers, got {text!r}") from None


def parse_delta(text: str) -> float:
    """``--delta`` as a number in (0, 1)."""
    try:
        number = float(text)
    except ValueError:
        raise InputError(f"--delta must be a number, got {text!r}") from None
    return check_delta(number)


@dataclass(frozen=True)
class MechanismOption:
    """A parameter of a mechanism's constructor beyond epsilon, as the command line offers it.

    ``keyword`` is the constructor's keyword (``--sensitive-fraction`` for ``sensitive_fraction``);
    ``help`` says what it is (the mechanisms that take it and its default are added where it is
    listed); ``default`` is the constructor's (``None``: it has none, or the constructor derives
    it, as ``default_text`` then says). ``parse`` turns the argument into the value (argparse's
    ``type``; ``convert`` afterwards, raising :class:`~edgedp.errors.InputError`); ``aliases``
    are further spellings, ``renamed_from`` a deprecated one (a notice on stderr), and options
    sharing an ``exclusive`` group cannot be given together.
    """

    keyword: str
    help: str
    default: object = None
    default_text: str | None = None
    parse: Callable[[str], Any] = float
    convert: Callable[[Any], Any] | None = None
    choices: tuple[str, ...] | None = None
    aliases: tuple[str, ...] = ()
    renamed_from: str | None = None
    exclusive: str | None = None
    required: bool = False
    metavar: str | None = None

    @property
    def flag(self) -> str:
        """The option on the command line: ``--sensitive-fraction``."""
        return "--" + self.keyword.replace("_", "-")

    @property
    def stated_default(self) -> str:
        """The default as ``--help`` states it."""
        if self.required:
            return "required there, no default"
        return self.default_text if self.default_text is not None else f"default: {self.default}"

    def value(self, given: Any) -> Any:
        """The constructor's value for the parsed argument ``given``."""
        return given if self.convert is None else self.convert(given)


#: The options of the shipped mechanisms, each defined once; an entry lists those it takes.
LAM = MechanismOption("lam", "regularization lambda in [0, 1]", 0.2)
T_OPTION = MechanismOption("t", "tuning parameter t in [0, 1]", 0.5)
WEIGHTS = MechanismOption(
    "weights",
    "t_1,...,t_k comma-separated, one per nearest word considered, e.g. 0,0.05,0.1",
    parse=str,
    convert=parse_weights,
    required=True,
    metavar="t1,...,tk",
)
GEOMETRY = MechanismOption(
    "geometry",
    "the space perturbed in",
    default_text="default: euclidean if the pack has float vectors, else hamming",
    parse=str,
    choices=("euclidean", "hamming"),
    renamed_from="space",
)
GAMMA = MechanismOption(
    "gamma",
    "distance threshold",
    default_text="default: from --beta, the paper's recipe",
    exclusive="threshold",
)
BETA = MechanismOption(
    "beta",
    "Pr[output beyond gamma], without --gamma",
    default_text="default: 0.001",
    exclusive="threshold",
)
K = MechanismOption("k", "output-set size", 20, parse=int, aliases=("--top-k",))
P = MechanismOption("p", "probability a non-sensitive word is resampled", 0.3)
SENSITIVE_FRACTION = MechanismOption(
    "sensitive_fraction", "share of the rarest vocabulary words treated as sensitive", 0.9
)
NOISE = MechanismOption("noise", "noise", "laplace", parse=str, choices=("laplace", "gaussian"))
ADEPT_DELTA = MechanismOption(
    "delta",
    "delta in (0, 1)",
    default_text="default: none; required with --noise gaussian",
    parse=str,
    convert=parse_delta,
)
SUBSPACE_DELTA = MechanismOption(
    "delta",
    "(epsilon, delta) with discrete Gaussian noise",
    default_text="default: pure",
    parse=str,
    convert=parse_delta,
)
DIMS = MechanismOption(
    "dims", "directions d'", default_text="default: the pack's per length", parse=int
)
PROJECTIONS = MechanismOption(
    "projections", "projections", default_text="default: the pack's choice", parse=int
)


@dataclass(frozen=True)
class MechanismEntry:
    """One mechanism, described once (see the module docstring).

    ``metric``: the metric of its guarantee with its default geometry, under which
    ``calibrate`` and :func:`~edgedp.equivalent_epsilon` know it by name (``None``: not comparable
    by a privacy ratio); a mechanism with a ``geometry`` option is also known as
    ``<name>-hamming``, in Hamming space. ``matchable``: ``calibrate --match`` builds it from a
    name and an epsilon alone. ``pack``: the pack it runs on when none is named.
    """

    name: str
    target: str
    options: tuple[MechanismOption, ...] = ()
    metric: str | None = None
    matchable: bool = False
    pack: str = DEFAULT_WORD_PACK

    def calibration_names(self) -> dict[str, str]:
        """The names under which calibration knows this mechanism, and their metrics."""
        if self.metric is None:
            return {}
        names = {self.name: self.metric}
        if GEOMETRY in self.options:
            names[f"{self.name}-hamming"] = "hamming"
        return names


class MechanismRegistry(Mapping[str, "type[T]"], Generic[T]):
    """Mechanisms by name: a read-only name -> class mapping whose classes are imported on first
    lookup, with each mechanism's :class:`MechanismEntry`."""

    def __init__(self, entries: Iterable[MechanismEntry]) -> None:
        self._described = {entry.name: entry for entry in entries}

    def entry(self, name: str) -> MechanismEntry:
        """The description of mechanism ``name``."""
        return self._described[name]

    def entries(self) -> list[MechanismEntry]:
        """Every entry, in registration order."""
        return list(self._described.values())

    def __getitem__(self, name: str) -> type[T]:
        cls: Any = import_target(self._described[name].target)
        return cls  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[str]:
        return iter(self._described)

    def __len__(self) -> int:
        return len(self._described)


WORD_MECHANISMS: MechanismRegistry[WordMechanism] = MechanismRegistry(
    [
        MechanismEntry("brr", "edgedp.words.brr:BRR", metric="hamming", matchable=True),
        MechanismEntry("madlib", "edgedp.words.madlib:Madlib", metric="euclidean", matchable=True),
        MechanismEntry(
            "mahalanobis",
            "edgedp.words.mahalanobis:Mahalanobis",
            (LAM,),
            metric="mahalanobis",
            matchable=True,
        ),
        MechanismEntry(
            "vickrey", "edgedp.words.vickrey:Vickrey", (T_OPTION, GEOMETRY), metric="euclidean"
        ),
        MechanismEntry(
            "generalized-vickrey",
            "edgedp.words.vickrey:GeneralizedVickrey",
            (WEIGHTS, GEOMETRY),
            metric="euclidean",
        ),
        MechanismEntry(
            "tem",
            "edgedp.words.tem:TEM",
            (GAMMA, BETA, GEOMETRY),
            metric="euclidean",
            matchable=True,
        ),
        MechanismEntry(
            "santext", "edgedp.words.santext:SanText", metric="euclidean", matchable=True
        ),
        MechanismEntry(
            "santext-plus",
            "edgedp.words.santext:SanTextPlus",
            (P, SENSITIVE_FRACTION),
            metric="euclidean",
        ),
        MechanismEntry("custext", "edgedp.words.custext:CusText", (K, GEOMETRY)),
    ]
)
#: Mechanisms that rewrite whole sentences (``edgedp privatize`` runs them line by line).
SENTENCE_REWRITERS: MechanismRegistry[ADePT] = MechanismRegistry(
    [
        MechanismEntry(
            "adept", "edgedp.adept.adept:ADePT", (NOISE, ADEPT_DELTA), pack=DEFAULT_AUTOENCODER_PACK
        )
    ]
)
#: The DP document-embedding mechanisms (``edgedp embed``, corpus jobs' ``embed``).
DOCUMENT_MECHANISMS: MechanismRegistry[DocumentMechanism[Any]] = MechanismRegistry(
    [
        MechanismEntry(
            "subspace-mean",
            "edgedp.documents.subspace:SubspaceMean",
            (SUBSPACE_DELTA, DIMS),
            pack=DEFAULT_SUBSPACE_PACK,
        ),
        MechanismEntry(
            "deepcandidate",
            "edgedp.documents.deepcandidate:DeepCandidate",
            (PROJECTIONS,),
            pack=DEFAULT_SENTENCE_PACK,
        ),
        MechanismEntry(
            "truncation", "edgedp.documents.truncation:Truncation", pack=DEFAULT_SENTENCE_PACK
        ),
    ]
)
#: The document embeddings that are NOT private, for comparison (``edgedp embed`` only; corpus
#: jobs refuse them).
DOCUMENT_BASELINES: MechanismRegistry[DocumentMechanism[Any]] = MechanismRegistry(
    [
        MechanismEntry(
            "mean", "edgedp.documents.baselines:NonPrivateMean", pack=DEFAULT_SENTENCE_PACK
        )
    ]
)
#: The document mechanism of ``edgedp embed`` and corpus jobs' ``embed`` when none is named
#: (the leave-one-domain-out study, bench/reports/2026-11-24-domains-subspace-mean.md: above
#: DeepCandidate on held-out domains).
DEFAULT_DOCUMENT_MECHANISM = "subspace-mean"


class CalibrationNames(Mapping[str, str]):
    """Every name calibration knows (:func:`~edgedp.equivalent_epsilon`, ``edgedp calibrate``)
    and its metric: the word mechanisms with a metric (:attr:`MechanismEntry.metric`), their
    Hamming variants, and the metrics themselves; read from :data:`WORD_MECHANISMS` as it is."""

    #: The metrics, which calibration also takes by name.
    METRICS = ("hamming", "euclidean")

    def _names(self) -> dict[str, str]:
        names: dict[str, str] = {}
        for entry in WORD_MECHANISMS.entries():
            names.update(entry.calibration_names())
        return {**names, **{metric: metric for metric in self.METRICS}}

    def __getitem__(self, name: str) -> str:
        return self._names()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


#: The metric of each name calibration knows.
METRICS: Mapping[str, str] = CalibrationNames()


#: Pack kind -> its pack type, which builds the pack from a verified manifest (``from_manifest``,
#: the same path as the type's own ``load``).
PACK_TYPES: LazyRegistry[LoadablePack] = LazyRegistry(
    {
        "words": "edgedp.words.pack:WordPack",
        "sentences": "edgedp.documents.pack:SentencePack",
        "subspace": "edgedp.documents.subspace_pack:SubspacePack",
        "autoencoder": "edgedp.adept.pack:AutoencoderPack",
        "lm": "edgedp.words.language_model:LanguageModelPack",
        "encoder": "edgedp.encoder.pack:EncoderPack",
    }
)


def load_pack(
    path: PackRef | None = None,
    *,
    kind: str | None = None,
    verify: bool = True,
    expected_digest: str | None = None,
) -> AnyPack:
    """Load an asset pack of any kind, verifying it first.

    A pack is a directory of public assets (a vocabulary and its codes or vectors, a sentence
    encoder, a language model, ...) with a versioned manifest that records the SHA-256 of every
    file. Loading checks the manifest, the files and, for bundled and pinned packs, the manifest's
    own digest; big arrays are memory-mapped. No pickle is ever read. For a typed result, each
    pack type loads itself: ``WordPack.load()``, ``SentencePack.load("sentences-bbc")``, ...

    Parameters
    ----------
    path : str, PathLike or None, default None
        A pack directory, the name of a bundled or installed pack (``"words-small"``,
        ``"lm-general"``, ``"sentences-bbc"``, ...), or ``None`` for the default words pack,
        ``words-small``. A bare name is looked up in the bundled packs, the installed pack
        distributions and ``EDGEDP_PACKS`` before the current directory.
    kind : {"words", "sentences", "subspace", "autoencoder", "lm", "encoder"} or None, default None
        Requires a pack of this kind; ``None`` accepts any kind. Keyword only.
    verify : bool, optional
        Check every file's SHA-256 (default ``True``); ``False`` checks sizes only and is meant for packs on
        storage you control.
    expected_digest : str or None, default None
        Pins the SHA-256 of the pack's manifest (and so of every file); bundled packs are always
        pinned, whatever this says.

    Returns
    -------
    WordPack, SentencePack, SubspacePack, AutoencoderPack, LanguageModelPack or EncoderPack
        The loaded pack, frozen, of the manifest's kind.

    Raises
    ------
    ~edgedp.AssetError
        On any problem: no such pack, a missing or modified file, a manifest digest that is not
        the pinned or expected one, a pack of another kind than ``kind``, a newer format.

    See Also
    --------
    list_packs : the packs this installation can load, and where they come from.

    Notes
    -----
    A pack holds public data only (vocabularies built from public corpora, never from the text to
    privatize), so loading one costs no privacy; verification is what makes the mechanisms'
    guarantees hold for the assets actually used (a tampered vocabulary or code table is refused).

    Examples
    --------
    >>> import edgedp
    >>> pack = edgedp.load_pack()
    >>> pack.name, pack.bits, len(pack.vocabulary)
    ('words-small', 256, 100000)
    >>> edgedp.load_pack("lm-general", kind="lm").name
    'lm-general'
    >>> edgedp.load_pack("lm-general", kind="words")
    Traceback (most recent call last):
    ...
    edgedp.errors.AssetError: pack lm-general (...) is a lm pack; this needs a words pack
    """
    manifest = read_pack_manifest(path, kind=kind, verify=verify, expected_digest=expected_digest)
    return PACK_TYPES[manifest.kind].from_manifest(manifest)  # type: ignore[return-value]
