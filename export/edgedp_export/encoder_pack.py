"""Encoder packs: the sentence encoder a sentences or subspace build embeds with, as a pack of its own.

A build never copies ``encoder.onnx`` and ``tokenizer.json`` into the pack it writes: its manifest's
``encoder`` section references an encoder pack by name and manifest SHA-256
(:mod:`edgedp.encoder.pack`), so packs built with one encoder share it. Where that encoder pack comes
from:

* ``--encoder-from PACK`` whose encoder is an encoder pack (``sentences-bbc``,
  ``subspace-general``): the same encoder pack is referenced, nothing is written;
* a fresh export from torch, or ``--encoder-from`` a pack built before encoder packs (its encoder
  inside): an encoder pack is written (:func:`write_encoder_pack`, ``--encoder-out``), unless that
  directory already holds an encoder pack with the very same model and tokenizer bytes, which is
  then reused as it is (its manifest, and so its digest, unchanged: :func:`reusable_encoder_pack`,
  checked before the build's work).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from edgedp.encoder.pack import EncoderPack
from edgedp.errors import AssetError, InputError
from edgedp.packs.manifest import MANIFEST_NAME
from edgedp_export.pack_writer import FileWriter, write_pack

ENCODER_FILE = "encoder.onnx"
TOKENIZER_FILE = "tokenizer.json"
#: The distributions that shape an encoder pack's bytes and figures: the ONNX export and int8
#: weights, and the fidelity to torch measured on split sentences.
ENCODER_LIBRARIES = (
    "edgedp-export",
    "numpy",
    "onnx",
    "onnxruntime",
    "onnxscript",
    "sentencex",
    "tokenizers",
    "torch",
    "transformers",
)
#: The fields of a model's provenance an encoder pack's ``source`` shows (``edgedp packs list``).
_SOURCE_FIELDS = ("name", "license", "attribution", "package", "package_version")


def encoder_reference(pack: EncoderPack) -> dict[str, Any]:
    """The ``encoder`` section of a pack that embeds with ``pack``: its name, digest and dims."""
    return {"pack": pack.name, "manifest_sha256": pack.manifest.digest, "dims": pack.dims}


def encoder_manifest(
    section: Mapping[str, Any], *, name: str, command: str, versions: Mapping[str, str]
) -> dict[str, Any]:
    """The manifest of an encoder pack (``files`` and the format are added by ``write_pack``).

    ``section`` is the encoder's description (dims, max_seq_length, pooling, normalize, weights,
    model provenance and licence, fidelity to torch), without file names; ``versions`` the
    build's, of which the encoder's libraries (:data:`ENCODER_LIBRARIES`) are kept.
    """
    model = section.get("model", {})
    weights = str(section.get("weights", "fp32")).split(",")[0]
    return {
        "kind": "encoder",
        "name": name,
        "description": (
            f"Sentence encoder: {model.get('name', 'a sentence-transformers model')} as ONNX "
            f"({weights} weights) with its tokenizer; sentences and subspace packs reference it "
            "by manifest SHA-256"
        ),
        "source": {key: model[key] for key in _SOURCE_FIELDS if key in model},
        "build_command": command,
        "built_with": {key: value for key, value in versions.items() if key in ENCODER_LIBRARIES},
        "encoder": {"file": ENCODER_FILE, "tokenizer": TOKENIZER_FILE, **section},
    }


def reusable_encoder_pack(
    out: Path, model: Path | bytes, tokenizer: Path | bytes, *, force: bool
) -> EncoderPack | None:
    """The encoder pack at ``out`` if it holds this very encoder, to reuse as it is.

    Called before a build's work: ``None`` means the build writes an encoder pack at ``out`` (the
    directory is free, or ``force`` lets it replace what is there); a directory that holds
    anything else is an :class:`InputError` without ``force`` (packs built with the encoder pack
    there would stop loading).
    """
    if (out / MANIFEST_NAME).is_file():
        existing = _existing(out)
        if existing is not None and (
            existing.manifest.contents(existing.encoder_path.name) == _read(model)
            and existing.manifest.contents(existing.tokenizer_path.name) == _read(tokenizer)
        ):
            print(f"reusing the encoder pack {out} (same encoder bytes)", file=sys.stderr)
            return existing
    if out.exists() and not force:
        raise InputError(
            f"{out} holds another pack than this build's encoder; pass --encoder-out DIR to "
            "write the encoder pack elsewhere, or --force to replace it (packs built with the "
            "encoder pack there then stop loading)"
        )
    return None


def write_encoder_pack(
    out: Path,
    section: Mapping[str, Any],
    model: Path | bytes,
    tokenizer: Path | bytes,
    *,
    command: str,
    versions: Mapping[str, str],
    force: bool,
) -> EncoderPack:
    """Write the encoder pack ``out``, named after its directory (:func:`reusable_encoder_pack`
    says first whether one is there to reuse)."""
    files: dict[str, FileWriter] = {
        ENCODER_FILE: _writer(_read(model)),
        TOKENIZER_FILE: _writer(_read(tokenizer)),
    }
    manifest = encoder_manifest(section, name=out.name, command=command, versions=versions)
    return EncoderPack.load(write_pack(out, manifest, files, force=force))


def _existing(out: Path) -> EncoderPack | None:
    try:
        return EncoderPack.load(out)
    except AssetError:
        return None


def _read(file: Path | bytes) -> bytes:
    return file if isinstance(file, bytes) else file.read_bytes()


def _writer(data: bytes) -> FileWriter:
    def write(path: Path) -> None:
        path.write_bytes(data)

    return write
