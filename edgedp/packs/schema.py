"""One declarative schema per pack kind: the manifest fields edgedp reads, their JSON types and ranges.

:func:`check_manifest_schema` runs on every manifest right after it is parsed and before any field is
used, so that a field of the wrong JSON type (``"source": "x"``), a size no device can hold or a list
where an object belongs is an :class:`~edgedp.errors.AssetError` naming the field, not a
``TypeError`` or ``IndexError`` deep in a loader or in ``edgedp packs info``. Objects may carry extra
fields (build metadata, quality figures: shown by ``packs info``, never used); the fields listed
here are all that the runtime reads. The loaders still check what a schema cannot say (a file's
contents, relations between fields).

No dependency: a schema is a tree of the small node types below.
"""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from edgedp.errors import AssetError

#: Largest size or count a manifest may state (2**40: larger than any device holds).
MAX_COUNT = 1 << 40


class Node(ABC):
    """A schema node: ``check`` raises :class:`AssetError` naming ``path`` on any mismatch."""

    @abstractmethod
    def check(self, value: Any, path: str, where: str) -> None:
        """Raise AssetError unless ``value`` (at ``path`` in the manifest of ``where``) fits."""


def _fail(where: str, path: str, expected: str, value: Any) -> AssetError:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return AssetError(f"{where}: field {path} must be {expected}, got {shown}")


@dataclass(frozen=True)
class Str(Node):
    non_empty: bool = True
    max_length: int = 4096

    def check(self, value: Any, path: str, where: str) -> None:
        if not isinstance(value, str) or len(value) > self.max_length:
            raise _fail(where, path, f"a string of at most {self.max_length} characters", value)
        if self.non_empty and not value:
            raise _fail(where, path, "a non-empty string", value)


@dataclass(frozen=True)
class Int(Node):
    low: int = 0
    high: int = MAX_COUNT

    def check(self, value: Any, path: str, where: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _fail(where, path, "an integer", value)
        if not self.low <= value <= self.high:
            raise _fail(where, path, f"an integer in [{self.low}, {self.high}]", value)


@dataclass(frozen=True)
class Num(Node):
    """A finite JSON number (integer or float) in ``[low, high]``; ``positive`` excludes 0."""

    low: float = -math.inf
    high: float = math.inf
    positive: bool = False

    def check(self, value: Any, path: str, where: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _fail(where, path, "a number", value)
        number = float(value)
        if not math.isfinite(number) or not self.low <= number <= self.high:
            raise _fail(where, path, f"a finite number in [{self.low}, {self.high}]", value)
        if self.positive and number <= 0:
            raise _fail(where, path, "a positive number", value)


@dataclass(frozen=True)
class List(Node):
    item: Node
    min_length: int = 0
    max_length: int = 100_000

    def check(self, value: Any, path: str, where: str) -> None:
        if not isinstance(value, list | tuple):
            raise _fail(where, path, "a list", value)
        if not self.min_length <= len(value) <= self.max_length:
            raise _fail(
                where, path, f"a list of {self.min_length} to {self.max_length} items", value
            )
        for position, item in enumerate(value):
            self.item.check(item, f"{path}[{position}]", where)


@dataclass(frozen=True)
class Obj(Node):
    """A JSON object with these required and optional fields (others are allowed, unused)."""

    required: Mapping[str, Node] = field(default_factory=dict)
    optional: Mapping[str, Node] = field(default_factory=dict)

    def check(self, value: Any, path: str, where: str) -> None:
        if not isinstance(value, Mapping):
            raise _fail(where, path, "an object", value)
        for key, node in self.required.items():
            if key not in value:
                raise AssetError(f"{where}: required field {path}.{key} is missing")
            node.check(value[key], f"{path}.{key}", where)
        for key, node in self.optional.items():
            if key in value:
                node.check(value[key], f"{path}.{key}", where)


@dataclass(frozen=True)
class MapOf(Node):
    """A JSON object whose values all match ``value`` (and whose keys match ``key``, if given)."""

    value: Node
    max_length: int = 100_000
    key: re.Pattern[str] | None = None
    key_rule: str = ""

    def check(self, value: Any, path: str, where: str) -> None:
        if not isinstance(value, Mapping) or len(value) > self.max_length:
            raise _fail(where, path, f"an object of at most {self.max_length} fields", value)
        for key, item in value.items():
            if self.key is not None and not self.key.match(key):
                raise AssetError(
                    f"{where}: {path} has an unsafe file name {key!r} ({self.key_rule})"
                )
            self.value.check(item, f"{path}[{key!r}]", where)


@dataclass(frozen=True)
class Either(Node):
    """One of two object forms, told apart by whether the object has the field ``key``: a field
    of the wrong form is then reported against the form the manifest chose."""

    key: str
    present: Node
    absent: Node

    def check(self, value: Any, path: str, where: str) -> None:
        chosen = self.present if isinstance(value, Mapping) and self.key in value else self.absent
        chosen.check(value, path, where)


#: A file name a pack may list: plain, inside the pack directory, never the manifest itself.
SAFE_FILE_NAME = re.compile(r"^(?!manifest\.json$)[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
FILE_NAME = Str(max_length=128)
COUNT = Int(1)
DIMS = Int(1, 1 << 20)

_COMMON_REQUIRED: dict[str, Node] = {
    "format": Str(),
    "format_version": Int(1, 1 << 20),
    "kind": Str(),
    "name": Str(max_length=256),
    "files": MapOf(
        Obj(required={"bytes": Int(0, MAX_COUNT), "sha256": Str(max_length=64)}),
        max_length=1024,
        key=SAFE_FILE_NAME,
        key_rule="only plain names inside the pack directory are allowed",
    ),
}
_COMMON_OPTIONAL: dict[str, Node] = {
    "description": Str(non_empty=False, max_length=65536),
    "source": Obj(
        optional={
            key: Str(non_empty=False, max_length=65536)
            for key in ("name", "license", "attribution", "url", "package", "package_version")
        }
    ),
    "build_command": Str(non_empty=False, max_length=65536),
    "built_with": MapOf(Str(non_empty=False)),
}


#: The sentence encoder, as an encoder pack lists it (and as sentences and subspace packs built
#: before encoder packs carried it inside).
_ENCODER = Obj(
    required={
        "file": FILE_NAME,
        "tokenizer": FILE_NAME,
        "dims": DIMS,
        "max_seq_length": Int(1, 1 << 20),
        "pooling": Str(),
        "normalize": Str(),
    },
    optional={
        "weights": Str(non_empty=False, max_length=65536),
        "architecture": Str(max_length=64),
    },
)
#: The encoder of a sentences or subspace pack: a reference to an encoder pack by name and
#: manifest digest, or (packs built before encoder packs) the encoder's own files.
_ENCODER_OR_REFERENCE = Either(
    "pack",
    Obj(
        required={"pack": Str(max_length=256), "manifest_sha256": Str(max_length=64), "dims": DIMS}
    ),
    _ENCODER,
)
#: Reference sentences with the embeddings torch computed at export.
_REFERENCE = Obj(
    required={
        "count": Int(1, 1 << 20),
        "sentences": FILE_NAME,
        "embeddings": FILE_NAME,
        "min_cosine": Num(-1.0, 1.0),
    }
)


def _kind(required: dict[str, Node], optional: dict[str, Node] | None = None) -> Obj:
    return Obj(
        required={**_COMMON_REQUIRED, **required}, optional={**_COMMON_OPTIONAL, **(optional or {})}
    )


#: The schema of each pack kind's manifest (the loaders in edgedp.words.pack,
#: edgedp.documents.pack, edgedp.documents.subspace_pack, edgedp.adept.pack,
#: edgedp.words.language_model and edgedp.encoder.pack read exactly these fields).
SCHEMAS: Mapping[str, Obj] = {
    "words": _kind(
        {
            "vocabulary": Obj(required={"file": FILE_NAME, "size": Int(2, 1 << 31)}),
            "codes": Obj(required={"file": FILE_NAME, "bits": Int(8, 1 << 16), "bit_order": Str()}),
            "index": Obj(
                required={"type": Str()},
                optional={"file": FILE_NAME, "search_parameter": Int(1, 1 << 20)},
            ),
        },
        {
            "euclidean": Obj(
                required={
                    "dims": DIMS,
                    "dtype": Str(),
                    "vectors_file": FILE_NAME,
                    "covariance_file": FILE_NAME,
                },
                optional={
                    "neighbours": Int(1, 1 << 16),
                    "neighbours_file": FILE_NAME,
                    "neighbour_bounds_file": FILE_NAME,
                    "suffix_start": Int(1, MAX_COUNT),
                    "suffix_neighbours": Int(1, 1 << 16),
                    "suffix_neighbours_file": FILE_NAME,
                    "suffix_neighbour_bounds_file": FILE_NAME,
                },
            ),
            "calibration": MapOf(
                Obj(optional={"average": Num(0.0), "maximum": Num(0.0), "pairs": Int(0)}),
                max_length=64,
            ),
            "custext": Obj(
                required={"k": Int(2, 1 << 20)},
                optional={"hamming_file": FILE_NAME, "euclidean_file": FILE_NAME},
            ),
            # the words' language (edgedp.words.replacements.pack_language) and the lm pack that
            # decodes them by default (edgedp.words.decoding.pack_language_model)
            "language": Str(max_length=16),
            "language_model": Str(max_length=256),
        },
    ),
    "sentences": _kind(
        {
            "encoder": _ENCODER_OR_REFERENCE,
            "recoder": Obj(required={"file": FILE_NAME}),
            "candidates": Obj(
                required={"file": FILE_NAME, "count": Int(1, 1 << 31), "sources": FILE_NAME}
            ),
            "projections": Obj(
                required={
                    "file": FILE_NAME,
                    "count": Int(1, 1 << 20),
                    "recommended": List(
                        Obj(required={"epsilon": Num(positive=True), "projections": COUNT}),
                        min_length=1,
                        max_length=1024,
                    ),
                }
            ),
            "truncation": Obj(required={"file": FILE_NAME}),
            "reference": Obj(
                required={**_REFERENCE.required, "recoded": FILE_NAME},
            ),
        }
    ),
    "subspace": _kind(
        {
            "encoder": _ENCODER_OR_REFERENCE,
            "subspace": Obj(
                required={
                    "basis": FILE_NAME,
                    "mean": FILE_NAME,
                    "count": Int(1, 1 << 16),
                    "clip": List(
                        Obj(required={"dims": COUNT, "radius": Num(positive=True)}),
                        min_length=1,
                        max_length=1 << 16,
                    ),
                    "recommended": List(
                        Obj(
                            required={
                                "epsilon": Num(positive=True),
                                "delta": Num(0.0, 1.0),
                                "sentences": COUNT,
                                "dims": COUNT,
                                "clip": Num(positive=True),
                            },
                            optional={"signal": Num(0.0, 1.0)},
                        ),
                        min_length=1,
                        max_length=100_000,
                    ),
                }
            ),
            "reference": _REFERENCE,
        }
    ),
    "lm": _kind(
        {
            "lm": Obj(
                required={
                    "vocabulary": Obj(
                        required={
                            "name": Str(max_length=256),
                            "sha256": Str(max_length=64),
                            "size": Int(1, 1 << 31),
                        }
                    ),
                    "bigrams": Int(0, MAX_COUNT),
                    "unigram": FILE_NAME,
                    "rows": FILE_NAME,
                    "following": FILE_NAME,
                    "logprob": FILE_NAME,
                }
            )
        }
    ),
    "encoder": _kind({"encoder": _ENCODER}, {"reference": _REFERENCE}),
    "autoencoder": _kind(
        {
            "vocabulary": Obj(
                required={
                    "file": FILE_NAME,
                    "size": Int(1, 1 << 24),
                    "labels": List(Str(max_length=256), max_length=10_000),
                }
            ),
            "model": Obj(
                required={
                    "cell": Str(),
                    "clip_norm": Num(positive=True),
                    "latent_dims": DIMS,
                    "state_size": DIMS,
                    "max_input_tokens": Int(1, 1 << 16),
                    "max_output_tokens": Int(1, 1 << 16),
                    "encoder": FILE_NAME,
                    "decoder_step": FILE_NAME,
                }
            ),
        }
    ),
}


def check_manifest_schema(data: Mapping[str, Any], kind: str, where: str) -> None:
    """Raise :class:`AssetError` unless ``data`` matches the schema of pack ``kind``."""
    schema = SCHEMAS.get(kind)
    if schema is None:
        raise AssetError(f"{where}: unknown pack kind {kind!r} (known: {', '.join(SCHEMAS)})")
    schema.check(data, "manifest", where)
