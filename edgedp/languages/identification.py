"""Which language a message is in: a small identifier shipped beside this module.

:func:`identify` names the language of a text; :func:`language_runs` cuts a message that mixes
languages into runs of one language at sentence ends. The router of the word mechanisms uses them to
pick the word pack of each message (or sentence), and to protect every word of a text whose
language has no pack.

The model (``identifier.bin`` beside this module, read on first use, checked against
:data:`MODEL_SHA256`) is a naive Bayes classifier over the words of the text. Each word ``w`` has,
in each language ``L``::

    P(w | L) = f_L(w) + P_unknown(L) * P_chars(w | L)

``f_L(w)``: the word's frequency in L's public word list if the model keeps it; ``P_chars``: an
interpolated character 4-gram model of L's rarer words (word boundaries included), which scores
unknown words (names, typos, inflections). A text's log-likelihood is the sum over its words, and
the posterior adds the language priors (the preferred language first, then the languages of the
word packs, then the others). The decision (:func:`identify`) is the most probable language if its
posterior is at least :data:`MIN_CONFIDENCE` and the text explains it at least
:data:`MIN_EVIDENCE` nats better than an even mixture of all the model's languages; otherwise
``"und"`` (undetermined: ``ok``, ``lol 😂``, ``14:30``, a bare name). Text whose letters are mostly
in a script the model has never seen is ``"mis"`` (a language without a code here).

The model is a fixed public function of public data (its sources and licences are in its
metadata: word frequencies from ``wordfreq``, CC BY-SA 4.0, and LibreOffice's translations,
MPL-2.0; ``edgedp-export langid`` rebuilds it), and no randomness is involved: the language found
is a deterministic function of the raw text, and releasing it (by which pack privatizes a message)
reveals that function of the text. See the user guide, "Languages".

It imports the standard library, numpy, :mod:`edgedp.errors` and :mod:`edgedp.packs.manifest`
(the SHA-256 of the model file, without OpenSSL's resident memory).
"""

from __future__ import annotations

import json
import mmap
import re
import threading
import unicodedata
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from edgedp.errors import AssetError, InputError
from edgedp.packs.manifest import sha256_file
from edgedp.text.identifiers import CLOSING_PUNCTUATION
from edgedp.text.segmentation import SENTENCE_TITLES

#: The model file shipped beside this module.
MODEL_FILE = Path(__file__).resolve().with_name("identifier.bin")
#: SHA-256 of :data:`MODEL_FILE`; loading refuses any other file.
MODEL_SHA256 = "907ff81a1baa5de3887981f9833dae37cb713f923b12cfdc9e6055cd06e201bf"
#: The language of a text without evidence of any (ISO 639-2 "undetermined").
UNDETERMINED = "und"
#: The language of a text in a script the model does not know (ISO 639-2 "uncoded languages").
UNCODED = "mis"
#: What :attr:`Identification.route` says of a language outside the requested ``languages``.
OTHER = "other"
#: Characters of a text (and of each sentence) that decisions read: the rest of a long text does
#: not change them, so a stream decides after at most this many characters (see
#: :func:`language_runs`).
EVIDENCE_CHARS = 1000
#: The language favoured where a text holds little evidence, unless ``prefer`` says otherwise.
DEFAULT_PREFERRED = "en"
#: The smallest posterior probability of a language that :func:`identify` names.
MIN_CONFIDENCE = 0.7
#: The fewest nats by which a text must favour the language found over an even mixture of all
#: the model's languages.
MIN_EVIDENCE = 1.0
#: The weight of the message's posterior in the prior of each of its sentences
#: (:func:`language_runs`); the rest is the language priors.
MESSAGE_WEIGHT = 0.8
#: Longest character n-gram of the model (word boundaries included).
MAX_ORDER = 4
#: The characters that open and close a word in the character model.
WORD_START, WORD_END = "\x02", "\x03"
#: Step (nats) of the stored log values: each is one byte.
LOG_STEP = 1 / 16
#: The largest stored log value (an n-gram occurs at most e times per word on average).
LOG_MAX = 1.0
#: The first bytes of a model file; then the length of its JSON header (4 bytes, little-endian),
#: the header (array names, dtypes, shapes and offsets; languages; metadata) and the arrays.
MODEL_MAGIC = b"EDGEDP-LANGID-1\n"
#: The arrays of the model file.
MODEL_ARRAYS = (
    "keys",
    "offsets",
    "entry_language",
    "entry_value",
    "log_unknown",
    "log_characters",
    "prior_weights",
    "interpolation",
)

#: The dtype of each of MODEL_ARRAYS.
_DTYPES = ("uint32", "uint32", "uint8", "uint8", "float64", "float64", "float64", "float64")
_MASK = (1 << 64) - 1
_MULTIPLIER = 0x9E3779B97F4A7C15
_INVERSE = pow(_MULTIPLIER, -1, 1 << 64)
_WORD_SALT = 0xD1B54A32D192ED03
_POWERS = (np.ones(0, dtype=np.uint64), np.ones(0, dtype=np.uint64))
_ORDER_SALTS = np.array(
    [[(order * 0x632BE59BD9B4E019) & _MASK] for order in range(1, MAX_ORDER + 1)], dtype=np.uint64
)
#: The stored byte b > 0 of a value means exp(LOG_MAX - (b - 1) * LOG_STEP); 0 means absent.
_VALUES = np.exp(LOG_MAX - (np.arange(256) - 1) * LOG_STEP)
_VALUES[0] = 0.0
#: The k-gram ending at a position is inside its word (and predicts a character) from this offset.
_MINIMUM_OFFSET = np.maximum(np.arange(MAX_ORDER), 1)[:, None]
_LETTERS = re.compile(r"[^\W\d_]+")
#: Whitespace as edgedp.text.segmentation splits at (Unicode White_Space: Python's, less U+001C..F).
_GAP = re.compile(r"[^\S\x1c-\x1f]+")
_STOPS = frozenset(".!?")
_TRAILING_WORD = re.compile(r"\w+$")
_ADDRESS = re.compile(r"\S*(?:://|@|www\.)\S*")

FloatArray = npt.NDArray[np.float64]
#: Keys of words and n-grams: 32 bits (a text's word or n-gram the model lacks matches a stored
#: key with probability about 1e-4, bench/reports/2026-11-29-language-identification.md).
KeyArray = npt.NDArray[np.uint32]


def words(text: str) -> list[str]:
    """The words the identifier reads in ``text``.

    After NFKC normalization and case folding, the runs of letters (word characters other than
    digits and ``_``), once the whitespace-separated chunks holding ``://``, ``@`` or ``www.``
    (addresses) are dropped. Digits, punctuation, apostrophes, symbols and emoji separate words.

    Examples
    --------
    >>> words("Hola María! l'été, 14:30 😂 https://example.com Straße")
    ['hola', 'maría', 'l', 'été', 'strasse']
    """
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _LETTERS.findall(_ADDRESS.sub(" ", folded))


def _mix(values: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """splitmix64's finalizer: a bijection of 64-bit integers that spreads every input bit."""
    z = values + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _top_bits(values: npt.NDArray[np.uint64]) -> KeyArray:
    """The keys of 64-bit hash values: the top 32 bits of :func:`_mix` of them."""
    return (_mix(values) >> np.uint64(32)).astype(np.uint32)


def word_keys(words_: Sequence[str]) -> KeyArray:
    """The keys of whole words in the model's table (see :func:`_word_values`)."""
    if not words_:
        return np.zeros(0, dtype=np.uint32)
    codes, offset = padded_codes(words_)
    return _top_bits(_word_values(codes, offset) + np.uint64(_WORD_SALT))


def padded_codes(words_: Sequence[str]) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.int64]]:
    """The code points of ``words_``, each between WORD_START and WORD_END, one after the other;
    and each position's offset from the start of its word (0 at WORD_START)."""
    joined = "".join(f"{WORD_START}{word}{WORD_END}" for word in words_)
    codes = np.frombuffer(joined.encode("utf-32-le"), dtype="<u4").astype(np.uint64)
    lengths = np.fromiter((len(word) + 2 for word in words_), np.int64, len(words_))
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    return codes, np.arange(codes.size, dtype=np.int64) - starts


def _ngram_values(codes: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """values[k - 1, j]: the polynomial hash (modulo 2^64) of the k-gram ending at position j."""
    values = np.zeros((MAX_ORDER, codes.size), dtype=np.uint64)
    values[0] = codes
    for order in range(1, MAX_ORDER):  # the k-gram ending at j: the (k-1)-gram ending at j - 1
        np.multiply(values[order - 1, :-1], np.uint64(_MULTIPLIER), out=values[order, 1:])
        values[order] += codes
    return values


def _word_values(
    codes: npt.NDArray[np.uint64], offset: npt.NDArray[np.int64]
) -> npt.NDArray[np.uint64]:
    """The polynomial hash (modulo 2^64) of each whole padded word of :func:`padded_codes`:
    sum_j codes[j] R^(j - start), from prefix sums of codes[j] R^j shifted back by R^-start (R is
    odd, so invertible modulo 2^64; numpy's unsigned arithmetic wraps modulo 2^64)."""
    powers, inverse = _powers(codes.size)
    prefix = np.zeros(codes.size + 1, dtype=np.uint64)
    np.cumsum(codes * powers, out=prefix[1:])
    starts = np.flatnonzero(offset == 0)
    ends = np.append(starts[1:], codes.size)
    values: npt.NDArray[np.uint64] = (prefix[ends] - prefix[starts]) * inverse[starts]
    return values


def _powers(count: int) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """R^0 .. R^(count - 1) and R^-0 .. R^-(count - 1) modulo 2^64 (cached up to a message's
    length)."""
    global _POWERS
    if _POWERS[0].size < count:
        size = max(count, 4 * EVIDENCE_CHARS)
        tables = []
        for base in (_MULTIPLIER, _INVERSE):
            table = np.ones(size, dtype=np.uint64)
            table[1:] = np.cumprod(np.full(size - 1, base, dtype=np.uint64))
            tables.append(table)
        _POWERS = (tables[0], tables[1])
    return _POWERS[0][:count], _POWERS[1][:count]


def ngram_keys(codes: npt.NDArray[np.uint64]) -> KeyArray:
    """keys[k - 1, j]: the key of the k-gram of ``codes`` ending at position j (k = 1 ..
    MAX_ORDER; a k-gram that would start before position 0 gets a meaningless key)."""
    return _top_bits(_ngram_values(codes) + _ORDER_SALTS)


def quantize(log_values: FloatArray) -> npt.NDArray[np.uint8]:
    """Log values as the model stores them (bytes 1..255; see :data:`LOG_STEP`)."""
    steps = np.clip(np.round((LOG_MAX - log_values) / LOG_STEP), 0, 254)
    return (steps + 1).astype(np.uint8)


@dataclass(frozen=True)
class IdentifierModel:
    """The identifier's arrays, as stored in :data:`MODEL_FILE`.

    ``keys`` (sorted, unique, 32-bit) are whole words (:func:`word_keys`) and character n-grams
    (:func:`ngram_keys`); key ``i`` has the entries ``offsets[i]:offsets[i + 1]``, each a language
    (``entry_language``, an index into ``languages``) and a value (``entry_value``, a byte of
    :func:`quantize`): a word's frequency, or an n-gram's count per word of the language's
    rarer words. Per language: ``log_unknown`` (log of the frequency of the words not kept),
    ``log_characters`` (log of the characters per word the unigrams are counted over) and
    ``prior_weights``; ``interpolation``: the weights of the uniform floor and of orders 1..4.
    ``metadata``: sources, licences, parameters and the command that built the file.
    """

    languages: tuple[str, ...]
    keys: KeyArray
    offsets: npt.NDArray[np.uint32]
    entry_language: npt.NDArray[np.uint8]
    entry_value: npt.NDArray[np.uint8]
    log_unknown: FloatArray
    log_characters: FloatArray
    prior_weights: FloatArray
    interpolation: FloatArray
    metadata: Mapping[str, Any] = field(default_factory=dict)
    #: log_prior's results, per preferred language.
    priors: dict[str, FloatArray] = field(default_factory=dict, compare=False, repr=False)
    #: The mapping of the model file the arrays view (``None``: arrays in memory).
    pages: mmap.mmap | None = field(default=None, compare=False, repr=False)

    def release_pages(self) -> None:
        """Drop the model file's pages from this process's resident memory (they stay in the
        system's file cache; the next lookup maps the pages it reads again). A message's lookups
        touch most of the file (its keys are hashed), so the identifier costs 3.8 MB of
        resident memory while it identifies, and nothing between messages
        (bench/reports/2026-11-29-footprint.md)."""
        if self.pages is not None and hasattr(mmap, "MADV_DONTNEED"):
            self.pages.madvise(mmap.MADV_DONTNEED)

    @classmethod
    def load(cls, path: Path = MODEL_FILE, *, sha256: str | None = MODEL_SHA256) -> IdentifierModel:
        """Read a model file (memory-mapped, no pickle), refusing it unless its SHA-256 is
        ``sha256`` (``None``: any file, for the exporter's own checks).

        Raises
        ------
        ~edgedp.AssetError
            If the file is missing, altered or malformed.
        """
        try:
            digest = sha256_file(path)
            with path.open("rb") as handle:
                pages = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as error:  # ValueError: an empty file
            raise AssetError(f"cannot read the language identifier {path}: {error}") from None
        blob: npt.NDArray[np.uint8] = np.frombuffer(pages, dtype=np.uint8)
        if sha256 is not None and digest != sha256:
            raise AssetError(
                f"the language identifier {path.name} is not the file this edgedp shipped "
                f"(sha256 {digest}, expected {sha256})"
            )
        try:
            header = _read_header(blob)
            arrays: dict[str, Any] = {
                name: np.frombuffer(
                    blob, np.dtype(spec["dtype"]), int(np.prod(spec["shape"])), spec["offset"]
                ).reshape(spec["shape"])
                for name, spec in header["arrays"].items()
            }
            model = cls(
                languages=tuple(str(code) for code in header["languages"]),
                metadata=header["metadata"],
                pages=pages,
                **{name: arrays[name] for name in MODEL_ARRAYS},
            )
        except (ValueError, KeyError, TypeError) as error:
            raise AssetError(f"the language identifier {path.name} is malformed: {error}") from None
        model.check()
        return model

    def check(self, *, contents: bool = False) -> None:
        """Raise :class:`~edgedp.AssetError` unless the arrays fit together; ``contents`` also
        reads every key and entry (sorted unique keys, languages in range), which loading skips:
        the checksum vouches for the shipped file, and reading would make it all resident."""
        count = len(self.languages)
        checks = [
            (name, getattr(self, name).dtype == np.dtype(dtype))
            for name, dtype in zip(MODEL_ARRAYS, _DTYPES, strict=True)
        ]
        checks += [
            ("keys", self.keys.ndim == 1),
            ("offsets", self.offsets.shape == (self.keys.size + 1,)),
            ("entries", self.entry_language.shape == self.entry_value.shape),
            ("per-language arrays", self.log_unknown.shape == (count,)),
            ("per-language arrays", self.log_characters.shape == (count,)),
            ("per-language arrays", self.prior_weights.shape == (count,)),
            ("interpolation", self.interpolation.shape == (MAX_ORDER + 1,)),
            ("languages", 0 < count < 256 and len(set(self.languages)) == count),
        ]
        if contents:
            checks += [
                ("keys", bool(np.all(self.keys[1:] > self.keys[:-1]))),
                ("offsets", int(self.offsets[-1]) == self.entry_value.size),
                ("offsets", bool(np.all(self.offsets[1:] > self.offsets[:-1]))),
                ("entries", int(self.entry_language.max(initial=0)) < count),
                ("entries", int(self.entry_value.min(initial=1)) > 0),
            ]
        problems = sorted({name for name, good in checks if not good})
        if problems:
            raise AssetError(f"the language identifier's arrays do not fit: {', '.join(problems)}")

    def save(self, path: Path) -> None:
        """Write the model file: :data:`MODEL_MAGIC`, the header's length and JSON header, then
        each array (little-endian, 8-byte aligned, at its offset from the end of the padded
        header). The bytes depend only on the model."""
        arrays = {name: np.ascontiguousarray(getattr(self, name)) for name in MODEL_ARRAYS}
        specs: dict[str, dict[str, Any]] = {}
        offset = 0
        for name, array in arrays.items():
            specs[name] = {"dtype": array.dtype.newbyteorder("<").str, "shape": list(array.shape)}
            specs[name]["offset"], offset = offset, offset + -(-array.nbytes // 8) * 8
        header = {"arrays": specs, "languages": list(self.languages), "metadata": self.metadata}
        text = json.dumps(header, sort_keys=True, ensure_ascii=False).encode("utf-8")
        start = _data_start(len(text))
        with path.open("wb") as handle:
            handle.write(MODEL_MAGIC + len(text).to_bytes(4, "little") + text)
            handle.write(b" " * (start - len(MODEL_MAGIC) - 4 - len(text)))
            for array in arrays.values():
                data = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
                handle.write(data + b"\0" * (-len(data) % 8))

    def probabilities(self, keys: KeyArray) -> FloatArray:
        """The stored value of each key (rows) per language (columns); 0 where absent."""
        index = np.searchsorted(self.keys, keys)
        np.minimum(index, self.keys.size - 1, out=index)
        rows = np.flatnonzero(self.keys[index] == keys)
        starts = self.offsets[index[rows]].astype(np.int64)
        counts = self.offsets[index[rows] + 1].astype(np.int64) - starts
        ends = np.cumsum(counts)
        entries = np.repeat(starts - ends + counts, counts) + np.arange(
            ends[-1] if rows.size else 0
        )
        width = len(self.languages)
        table = np.zeros(keys.size * width)
        table[np.repeat(rows * width, counts) + self.entry_language[entries]] = _VALUES[
            self.entry_value[entries]
        ]
        return table.reshape(keys.size, width)

    def score(self, words_: Sequence[str]) -> tuple[FloatArray, int]:
        """log P(word | language) of each word (rows) in each language (columns), and how many
        letters of the words no language of the model has ever seen."""
        if not words_:
            return np.zeros((0, len(self.languages))), 0
        codes, offset = padded_codes(words_)
        size = codes.size
        values = np.concatenate(
            [
                (_ngram_values(codes) + _ORDER_SALTS).ravel(),
                _word_values(codes, offset) + np.uint64(_WORD_SALT),
            ]
        )
        table = self.probabilities(_top_bits(values))
        grams = table[: MAX_ORDER * size].reshape(MAX_ORDER, size, -1)
        letters = (offset > 0) & (codes != ord(WORD_END))
        unknown = int(np.count_nonzero(grams[0, letters].max(axis=1) == 0.0))
        # P(c | h) of order k: count(h c) / count(h), where count(h) is that of the (k-1)-gram
        # ending one position earlier (order 1: the characters counted per word).
        context = np.empty_like(grams)
        context[0] = np.exp(self.log_characters)
        context[1:, 0] = 1.0
        context[1:, 1:] = grams[:-1, :-1]
        ratio = np.minimum(grams / np.maximum(context, 1e-300), 1.0)
        weights = self.interpolation[1:, None] * (offset >= _MINIMUM_OFFSET)
        mixed = self.interpolation[0] + np.einsum("kn,knl->nl", weights, ratio)
        lengths = np.fromiter((len(word) + 1 for word in words_), np.int64, len(words_))
        log_chars = np.add.reduceat(np.log(mixed[offset > 0]), np.cumsum(lengths) - lengths)
        with np.errstate(divide="ignore"):
            log_listed = np.log(table[MAX_ORDER * size :])
        return np.logaddexp(log_listed, self.log_unknown + log_chars), unknown

    def log_prior(self, prefer: str) -> FloatArray:
        """Log prior of each language: ``prefer`` takes the weight of the model's most weighted
        language (English) and gives it its own."""
        if prefer not in self.priors:
            self.priors[prefer] = self._log_prior(prefer)
        return self.priors[prefer]

    def _log_prior(self, prefer: str) -> FloatArray:
        weights = np.array(self.prior_weights, dtype=np.float64)
        top = int(np.argmax(weights))
        if prefer != self.languages[top]:
            mine = self.languages.index(prefer)
            weights[top], weights[mine] = weights[mine], weights[top]
        log_prior: FloatArray = np.log(weights / weights.sum())
        return log_prior


def _read_header(blob: npt.NDArray[np.uint8]) -> dict[str, Any]:
    """The JSON header of a model file (see :meth:`IdentifierModel.save`)."""
    if bytes(blob[: len(MODEL_MAGIC)]) != MODEL_MAGIC:
        raise ValueError("not an edgedp language identifier file")
    size = int.from_bytes(bytes(blob[len(MODEL_MAGIC) : len(MODEL_MAGIC) + 4]), "little")
    start = len(MODEL_MAGIC) + 4
    header: dict[str, Any] = json.loads(bytes(blob[start : start + size]).decode("utf-8"))
    for spec in header["arrays"].values():
        spec["offset"] += _data_start(size)
    return header


def _data_start(header_size: int) -> int:
    """Where the arrays of a model file start: after its header, at a multiple of 8 bytes."""
    return -(-(len(MODEL_MAGIC) + 4 + header_size) // 8) * 8


_MODEL: IdentifierModel | None = None
_MODEL_LOCK = threading.Lock()


def model() -> IdentifierModel:
    """The shipped model, read (and checked) once, on first use."""
    global _MODEL
    if _MODEL is None:
        with _MODEL_LOCK:
            if _MODEL is None:
                _MODEL = IdentifierModel.load()
    return _MODEL


def sentence_starts(text: str) -> list[int]:
    """Where the sentences of ``text`` start: 0, and the first character after each sentence end.

    A sentence ends at whitespace holding a line break, or at whitespace right after ``.``, ``!``
    or ``?`` (closing quotes and brackets between them allowed), except a ``.`` right after one of
    :data:`SENTENCE_TITLES` (``Dr. Okafor``). Each of these is a place where
    :mod:`edgedp.text.segmentation` starts a sentence too (a word after it starts a sentence), so a
    text cut there segments as it would whole.

    Examples
    --------
    >>> text = "hola maría! see you at 5. Dr. Okafor says hi\\nok"
    >>> [text[start:start + 6] for start in sentence_starts(text)]
    ['hola m', 'see yo', 'Dr. Ok', 'ok']
    """
    starts = [0]
    for gap in _GAP.finditer(text):
        if gap.end() < len(text) and (
            "\n" in gap.group() or "\r" in gap.group() or _ends_sentence(text, gap.start())
        ):
            starts.append(gap.end())
    return starts


def _ends_sentence(text: str, end: int) -> bool:
    """Whether ``text[:end]`` ends with a sentence stop (closing quotes and brackets after it)."""
    while end > 0 and text[end - 1] in CLOSING_PUNCTUATION:
        end -= 1
    if end == 0 or text[end - 1] not in _STOPS:
        return False
    if text[end - 1] != "." or (end > 1 and text[end - 2] in _STOPS):
        return True
    title = _TRAILING_WORD.search(text, 0, end - 1)
    return title is None or unicodedata.normalize("NFKC", title.group()).lower() not in (
        SENTENCE_TITLES
    )


@dataclass(frozen=True, slots=True)
class Identification:
    """What :func:`identify` found in a text.

    Attributes
    ----------
    language : str
        The language found: a code of :func:`known_languages` (ISO 639-1 where one exists),
        ``"und"`` (no evidence of a language: no words, or words of many languages alike) or
        ``"mis"`` (mostly letters of a script the model does not know).
    route : str
        Where a router sends the text: ``language`` if it is one of the requested ``languages``,
        ``"und"`` if undetermined, else ``"other"``; ``language`` itself when no ``languages``
        were given.
    confidence : float
        The posterior probability of ``language`` (0.0 for ``"und"`` and ``"mis"``).
    evidence : float
        How many nats better the most probable language explains the words than an even mixture
        of all the model's languages (0.0 without words).
    candidates : tuple of (str, float)
        The three most probable languages and their posterior probabilities.
    words : int
        How many words the decision read.
    """

    language: str
    route: str
    confidence: float
    evidence: float
    candidates: tuple[tuple[str, float], ...]
    words: int

    @property
    def supported(self) -> bool:
        """Whether ``route`` is a language (one of the requested ones, or any when none were)."""
        return self.route not in (UNDETERMINED, UNCODED, OTHER)


def known_languages() -> tuple[str, ...]:
    """The languages the shipped model can name (codes, sorted).

    Examples
    --------
    >>> {"en", "es", "de", "fr", "pt", "it", "ru", "pl", "nl"} <= set(known_languages())
    True
    """
    return model().languages


def _check_text(text: object) -> str:
    if isinstance(text, bytes | bytearray):
        raise InputError(
            "text must be str, not bytes: decode it first (e.g. bytes.decode('utf-8'))"
        )
    if not isinstance(text, str):
        raise InputError(f"text must be str, got {type(text).__name__}")
    return text


def _check_languages(languages: Collection[str] | None, known: Sequence[str]) -> frozenset[str]:
    if languages is None:
        return frozenset()
    if isinstance(languages, str):
        raise InputError(
            f"languages takes a collection of codes, not a single string: [{languages!r}]"
        )
    chosen = frozenset(languages)
    unknown = sorted(code for code in chosen if not isinstance(code, str) or code not in known)
    if unknown:
        raise InputError(
            f"languages {unknown} are not languages the identifier knows ({', '.join(known)})"
        )
    return chosen


def _check_preferred(prefer: object, known: Sequence[str]) -> str:
    if not isinstance(prefer, str) or prefer not in known:
        raise InputError(f"prefer must be a language the identifier knows, got {prefer!r}")
    return prefer


@dataclass(frozen=True, slots=True)
class _Scores:
    """What a text's words say: how many there are, how many letters they hold and how many of
    those no language knows, and their log-likelihood per language (zeros without words)."""

    count: int
    letters: int
    unknown: int
    log_likelihood: FloatArray

    @property
    def uncoded(self) -> bool:
        """Whether most letters are in a script the model does not know ("mis")."""
        return 2 * self.unknown > self.letters

    def __add__(self, other: _Scores) -> _Scores:
        return _Scores(
            self.count + other.count,
            self.letters + other.letters,
            self.unknown + other.unknown,
            self.log_likelihood + other.log_likelihood,
        )


def _scores(found: IdentifierModel, text: str) -> _Scores:
    """The scores of the words of ``text[:EVIDENCE_CHARS]``."""
    words_ = words(text[:EVIDENCE_CHARS])
    per_word, unknown = found.score(words_)
    letters = sum(len(word) for word in words_)
    return _Scores(len(words_), letters, unknown, per_word.sum(axis=0))


def _normalized(log_weights: FloatArray) -> FloatArray:
    """exp(log_weights) scaled to sum to 1 (computed from the largest)."""
    weights = np.exp(log_weights - log_weights.max())
    normalized: FloatArray = weights / weights.sum()
    return normalized


def _decide(
    found: IdentifierModel, scores: _Scores, log_prior: FloatArray, chosen: frozenset[str]
) -> Identification:
    """The decision rule (module docstring) on a text's scores under ``log_prior``."""

    def route(language: str) -> str:
        if not chosen or language == UNDETERMINED or language in chosen:
            return language
        return OTHER

    if scores.count == 0 or scores.uncoded:
        language = UNCODED if scores.count else UNDETERMINED
        return Identification(language, route(language), 0.0, 0.0, (), scores.count)
    likelihood = scores.log_likelihood
    posterior = _normalized(likelihood + log_prior)
    best = int(np.argmax(posterior))
    # log of the even mixture's likelihood: log mean exp, from the largest term
    top_likelihood = float(likelihood.max())
    mixture = top_likelihood + float(np.log(np.exp(likelihood - top_likelihood).mean()))
    evidence = float(likelihood[best]) - mixture
    top = np.argsort(-posterior, kind="stable")[:3]
    candidates = tuple((found.languages[i], round(float(posterior[i]), 6)) for i in top)
    if posterior[best] < MIN_CONFIDENCE or evidence < MIN_EVIDENCE:
        return Identification(UNDETERMINED, UNDETERMINED, 0.0, evidence, candidates, scores.count)
    language = found.languages[best]
    confidence = float(posterior[best])
    return Identification(language, route(language), confidence, evidence, candidates, scores.count)


def identify(
    text: str, languages: Collection[str] | None = None, *, prefer: str = DEFAULT_PREFERRED
) -> Identification:
    """The language of ``text`` (a message), from its first :data:`EVIDENCE_CHARS` characters.

    Parameters
    ----------
    text : str
        The text; only its first :data:`EVIDENCE_CHARS` characters are read.
    languages : Collection of str or None, default None
        The languages a router can serve (those with an installed word pack). They do not change
        the language found, only :attr:`Identification.route`: the language if it is one of
        them, ``"und"`` if undetermined, else ``"other"``.
    prefer : str, default "en"
        The language favoured where the words leave the choice open: it takes the largest prior
        weight (normally English's). Keyword only.

    Returns
    -------
    Identification
        The language found, where to route the text, and how sure the model is.

    Raises
    ------
    ~edgedp.InputError
        If ``text`` is not a str, or ``languages`` or ``prefer`` name a language the model does
        not know.

    Notes
    -----
    The language found is a deterministic function of the raw text (no randomness, no state):
    whoever sees which pack privatized a message learns it, as they learn the layout. It is the
    most probable language under the model if its posterior probability is at least
    :data:`MIN_CONFIDENCE` and the words favour it by at least :data:`MIN_EVIDENCE` nats over an
    even mixture of all languages; else ``"und"``.

    Examples
    --------
    >>> identify("nos vemos mañana en la playa").language
    'es'
    >>> identify("see you tomorrow at the beach").language
    'en'
    >>> found = identify("tot straks, ik bel je nog", languages=["en", "es", "de"])
    >>> found.language, found.route
    ('nl', 'other')
    >>> identify("ok 👍 14:30").language
    'und'
    """
    text = _check_text(text)
    found = model()
    chosen = _check_languages(languages, found.languages)
    log_prior = found.log_prior(_check_preferred(prefer, found.languages))
    try:
        return _decide(found, _scores(found, text), log_prior, chosen)
    finally:
        found.release_pages()


def language_runs(
    text: str, languages: Collection[str] | None = None, default: str | None = None
) -> list[tuple[int, int, str]]:
    """``text`` cut into runs of one language at sentence ends: ``[(start, end, language), ...]``.

    Parameters
    ----------
    text : str
        A message (one line of a stream, or a whole message).
    languages : Collection of str or None, default None
        The languages a router can serve: each run is labelled with its route (a language of
        them, ``"other"`` or ``"und"``, as :attr:`Identification.route`); ``None`` labels runs
        with the languages found.
    default : str or None, default None
        The label of undetermined text that has no determined neighbour (normally the router's
        default language), and the language preferred where evidence is thin (``prefer`` of
        :func:`identify`) when it is one the model knows. ``None``: such text is ``"und"``.

    Returns
    -------
    list of (int, int, str)
        Consecutive runs covering ``text`` (``[]`` for an empty text); adjacent runs have
        different labels.

    Raises
    ------
    ~edgedp.InputError
        If ``text`` is not a str, or ``languages`` name a language the model does not know.

    Notes
    -----
    The exact rule:

    1. The text is cut at :func:`sentence_starts`.
    2. The message is decided as :func:`identify` decides it, from its first
       :data:`EVIDENCE_CHARS` characters. Each sentence is decided like :func:`identify` on its
       own first :data:`EVIDENCE_CHARS` characters; if the message is determined, with a prior
       that mixes the language priors (``1 - MESSAGE_WEIGHT``) with the message's posterior
       (:data:`MESSAGE_WEIGHT`), so that a short sentence borrows the message's language while a
       sentence with evidence of its own keeps its language (``hola maría! see you at 5.``).
    3. An undetermined sentence takes the label of the run before it (``hola. ok.`` is one
       Spanish run); at the start of the text, the message's own decision; if that is
       undetermined too, ``default`` (or ``"und"``).
    4. Adjacent sentences with the same label are one run.

    Every label is a deterministic function of the text. The label of the character at position
    p depends only on ``text[:p + EVIDENCE_CHARS + 1]``: a stream that holds the text from the
    start of the current line up to :data:`EVIDENCE_CHARS` + 1 characters past what it releases
    (or to the line's end) labels each line as if it had it whole, however the line was cut.

    Examples
    --------
    >>> text = "hola maría! see you at 5."
    >>> [(text[start:end], language) for start, end, language in language_runs(text)]
    [('hola maría! ', 'es'), ('see you at 5.', 'en')]
    >>> language_runs("hola. ok.")
    [(0, 9, 'es')]
    >>> language_runs("ok 👍", languages=["en", "es"], default="en")
    [(0, 4, 'en')]
    """
    text = _check_text(text)
    found = model()
    chosen = _check_languages(languages, found.languages)
    if default is not None and not isinstance(default, str):
        raise InputError(f"default must be a language code or None, got {default!r}")
    prefer = default if default in found.languages else DEFAULT_PREFERRED
    if not text:
        return []
    log_prior = found.log_prior(prefer)
    starts = sentence_starts(text)
    ends = [*starts[1:], len(text)]
    # Each sentence's own words (its first EVIDENCE_CHARS characters), and its share of the
    # message's first EVIDENCE_CHARS characters (the same words when it ends inside them).
    try:
        own = [_scores(found, text[start:end]) for start, end in zip(starts, ends, strict=True)]
        shares = [
            mine if end <= EVIDENCE_CHARS else _scores(found, text[start:EVIDENCE_CHARS])
            for start, end, mine in zip(starts, ends, own, strict=True)
            if start < EVIDENCE_CHARS
        ]
    finally:
        found.release_pages()
    whole = sum(shares[1:], shares[0])
    message = _decide(found, whole, log_prior, chosen)
    sentence_prior = log_prior
    if message.language not in (UNDETERMINED, UNCODED):
        # a determined message lends its posterior to each sentence's prior
        posterior = _normalized(whole.log_likelihood + log_prior)
        sentence_prior = np.log(
            (1 - MESSAGE_WEIGHT) * np.exp(log_prior) + MESSAGE_WEIGHT * posterior
        )
    decisions = (
        [message]
        if len(starts) == 1
        else [_decide(found, mine, sentence_prior, chosen) for mine in own]
    )
    opening = message.route if message.route != UNDETERMINED else (default or UNDETERMINED)
    runs: list[tuple[int, int, str]] = []
    for start, end, decision in zip(starts, [*starts[1:], len(text)], decisions, strict=True):
        label = decision.route
        if label == UNDETERMINED:
            label = runs[-1][2] if runs else opening
        if runs and runs[-1][2] == label:
            runs[-1] = (runs[-1][0], end, label)
        else:
            runs.append((start, end, label))
    return runs
