"""Encoder packs: the sentence encoder G as a pack of its own, shared by the packs that use it.

An ``encoder`` pack holds ``encoder.onnx`` (the encoder: token embeddings out for a BERT
transformer, sentence embeddings out for the multilingual Universal Sentence Encoder) and
``tokenizer.json`` (fixed to truncate at ``max_seq_length`` tokens and pad to the longest sentence),
and its manifest's ``encoder`` section says what they compute (architecture, dims, pooling,
normalization, weights) and where the model comes from (provenance, licence, fidelity to the
reference measured at export). See ``assets/encoder-minilm/manifest.json`` and
``assets/encoder-use-multilingual/manifest.json``.

Sentences and subspace packs do not carry the encoder: their ``encoder`` section references an
encoder pack by name and by the SHA-256 of its manifest (``{"pack": "encoder-minilm",
"manifest_sha256": "...", "dims": 384}``), so an install with several of them holds the encoder
once. The manifest lists the SHA-256 of every file, so the digest pins the encoder's every byte: a
referencing pack loads with exactly the encoder it was built with or not at all. Packs built
before encoder packs, with ``encoder.onnx`` and ``tokenizer.json`` of their own and the encoder's
fields inline, load as they did.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edgedp.encoder.sentence_encoder import SentenceEncoder
from edgedp.errors import REBUILD_HINT, AssetError
from edgedp.packs.loading import (
    LoadablePack,
    install_hint,
    read_pack_manifest,
    resolve_pack_path,
)
from edgedp.packs.manifest import Manifest, read_manifest

#: The encoder pack of the shipped sentences and subspace packs (all-MiniLM-L6-v2, int8 weights).
DEFAULT_ENCODER_PACK = "encoder-minilm"
#: The multilingual encoder pack (Universal Sentence Encoder multilingual v3, 16 languages).
MULTILINGUAL_ENCODER_PACK = "encoder-use-multilingual"
#: Encoder architecture -> its pooling: BERT token embeddings are mean-pooled by the runtime, the
#: multilingual Universal Sentence Encoder pools (and normalizes) in its graph.
POOLING = {"bert": "mean", "use-dan-cnn": "graph"}
_PACK_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True, slots=True, eq=False)
class EncoderPack(LoadablePack):
    """A loaded ``encoder`` pack: the sentence encoder G that sentences and subspace packs share.

    Load one with ``EncoderPack.load(name)`` (or :func:`~edgedp.load_pack`), never by hand: loading
    verifies every file. A sentences or subspace pack that references an encoder pack loads it by
    itself (:func:`referenced_encoder_pack`); load one directly to embed public sentences, or to
    check an installed encoder.

    Parameters
    ----------
    name : str
        The pack's name (``"encoder-minilm"``).
    path : Path
        Its directory.
    manifest : Manifest
        The verified manifest: the file digests, and the ``encoder`` section (dims, pooling,
        weights, model provenance and licence, fidelity to torch).
    encoder : SentenceEncoder
        The encoder, built from the verified bytes (its onnxruntime session is created on first
        use).
    encoder_path : Path
        The ONNX model's file, for messages and tools (the bytes used are the verified ones).
    tokenizer_path : Path
        The ``tokenizer.json`` file, likewise.

    Raises
    ------
    ~edgedp.AssetError
        From :meth:`load`, for a missing, modified or inconsistent pack.

    See Also
    --------
    referenced_encoder_pack : the encoder pack a sentences or subspace pack references.

    Notes
    -----
    An encoder pack holds a public model and releases nothing; loading it costs no privacy.

    Examples
    --------
    >>> from edgedp.encoder.pack import EncoderPack
    >>> pack = EncoderPack.load("encoder-minilm")  # doctest: +SKIP
    >>> pack.kind, pack.dims  # doctest: +SKIP
    ('encoder', 384)
    >>> from edgedp.encoder.pack import DEFAULT_ENCODER_PACK
    >>> DEFAULT_ENCODER_PACK  # what the shipped sentences and subspace packs reference
    'encoder-minilm'
    """

    name: str
    path: Path
    manifest: Manifest
    encoder: SentenceEncoder
    encoder_path: Path
    tokenizer_path: Path

    PACK_KIND = "encoder"
    DEFAULT_PACK = DEFAULT_ENCODER_PACK

    @classmethod
    def from_manifest(cls, manifest: Manifest) -> EncoderPack:
        """Build the pack from its verified manifest (:meth:`load` is the way in)."""
        return load_encoder_pack(manifest)

    @property
    def dims(self) -> int:
        """Dimension of the sentence embeddings."""
        return self.encoder.dims

    @property
    def max_seq_length(self) -> int:
        """The most tokens of a sentence the encoder reads (the rest is truncated)."""
        return self.encoder.max_seq_length

    def sentence_encoder(self, *, threads: int | None = None) -> SentenceEncoder:
        """Another encoder on the same verified bytes, with its own sessions.

        Parameters
        ----------
        threads : int or None, default None
            onnxruntime intra-op threads, calls one at a time (large batches, as the exporter
            runs); ``None`` spreads the calls over ``edgedp.set_num_threads`` workers.

        Returns
        -------
        SentenceEncoder
            An encoder that embeds exactly as :attr:`encoder`.
        """
        return _sentence_encoder(self.manifest, threads=threads)

    def describe(self) -> dict[str, Any]:
        """A short summary for ``edgedp packs info``.

        Returns
        -------
        dict
            The manifest's summary, the dims, the longest sentence in tokens, the weights and the
            model's name.
        """
        section = self.manifest.section("encoder")
        model = section.get("model")
        return {
            **self.manifest.summary(),
            "dims": self.dims,
            "max_seq_length": self.max_seq_length,
            "weights": section.get("weights"),
            "model": model.get("name") if isinstance(model, Mapping) else None,
        }


def load_encoder_pack(manifest: Manifest) -> EncoderPack:
    """Build an :class:`EncoderPack` from a validated manifest whose files are verified.

    Parameters
    ----------
    manifest : Manifest
        The verified manifest of an ``encoder`` pack.

    Returns
    -------
    EncoderPack
        The pack.

    Raises
    ------
    ~edgedp.AssetError
        If the encoder section asks for what this edgedp does not compute, or the tokenizer is
        not configured as the encoder needs.
    """
    return EncoderPack(
        name=manifest.name,
        path=manifest.directory,
        manifest=manifest,
        encoder=_sentence_encoder(manifest),
        encoder_path=manifest.file(manifest.field("encoder", "file", str)),
        tokenizer_path=manifest.file(manifest.field("encoder", "tokenizer", str)),
    )


def _sentence_encoder(manifest: Manifest, *, threads: int | None = None) -> SentenceEncoder:
    """The encoder of a manifest whose ``encoder`` section lists its files: an encoder pack's, or
    a sentences or subspace pack's from before encoder packs."""
    dims = manifest.field("encoder", "dims", int)
    max_seq_length = manifest.field("encoder", "max_seq_length", int)
    architecture = manifest.section("encoder").get("architecture", "bert")
    pooling = POOLING.get(architecture)
    if pooling is None or (
        manifest.field("encoder", "pooling", str),
        manifest.field("encoder", "normalize", str),
    ) != (pooling, "l2"):
        raise AssetError(
            f"pack {manifest.directory}: this edgedp supports "
            + ", ".join(f"{kind} encoders with {way} pooling" for kind, way in POOLING.items())
            + ", each with L2 normalization"
        )
    if dims < 1 or max_seq_length < 1:
        raise AssetError(f"pack {manifest.directory}: dims and max_seq_length must be >= 1")
    return SentenceEncoder(
        manifest.contents(manifest.field("encoder", "file", str)),
        manifest.contents(manifest.field("encoder", "tokenizer", str)),
        dims=dims,
        max_seq_length=max_seq_length,
        threads=threads,
        architecture=architecture,
    )


def pack_encoder(manifest: Manifest) -> SentenceEncoder:
    """The sentence encoder G of a sentences or subspace pack.

    Parameters
    ----------
    manifest : Manifest
        The verified manifest of a sentences or subspace pack.

    Returns
    -------
    SentenceEncoder
        The encoder of the encoder pack the manifest references (:func:`referenced_encoder_pack`),
        or, for a pack built before encoder packs, the one its own files hold.

    Raises
    ------
    ~edgedp.AssetError
        If the referenced encoder pack cannot be found with its digest, or the encoder is not
        one this edgedp computes.
    """
    if "pack" not in manifest.section("encoder"):
        return _sentence_encoder(manifest)
    encoder_pack = referenced_encoder_pack(manifest)
    dims = manifest.field("encoder", "dims", int)
    if encoder_pack.dims != dims:
        raise AssetError(
            f"pack {manifest.name} ({manifest.directory}): its encoder pack {encoder_pack.name} "
            f"gives {encoder_pack.dims}-d embeddings, the manifest says {dims}; {REBUILD_HINT}"
        )
    return encoder_pack.encoder


def encoder_summary(section: Mapping[str, Any]) -> str | None:
    """What ``edgedp packs info`` shows of a sentences or subspace pack's encoder.

    Parameters
    ----------
    section : Mapping
        The manifest's ``encoder`` section.

    Returns
    -------
    str or None
        The encoder pack it references, with the digest; for a pack that carries its own encoder,
        its weights (``None`` if the manifest does not say).
    """
    if "pack" in section:
        return f"encoder pack {section['pack']} (manifest SHA-256 {section['manifest_sha256']})"
    weights = section.get("weights")
    return None if weights is None else str(weights)


def referenced_encoder_pack(manifest: Manifest) -> EncoderPack:
    """The encoder pack a sentences or subspace pack references, found and verified.

    Parameters
    ----------
    manifest : Manifest
        A manifest whose ``encoder`` section is a reference: ``pack`` (a name) and
        ``manifest_sha256``.

    Returns
    -------
    EncoderPack
        The encoder pack of that name whose manifest has that SHA-256, every file verified.

    Raises
    ------
    ~edgedp.AssetError
        One line naming the pack, the encoder pack it needs and how to install it, if no encoder
        pack of that name and digest is found (none at all, or only another build of it), or it
        is damaged.

    Notes
    -----
    The name is looked up as any pack name is (:func:`edgedp.list_packs`: installed pack
    distributions, ``EDGEDP_PACKS``, the working directory), then beside the referencing pack's
    directory (``assets/encoder-minilm`` beside ``assets/sentences-bbc``); the first directory
    whose manifest has the referenced digest is loaded. The digest pins every file of the encoder
    pack, so where it is found does not matter; its files are always checked.
    """
    name = manifest.field("encoder", "pack", str)
    digest = manifest.field("encoder", "manifest_sha256", str)
    where = f"pack {manifest.name} ({manifest.directory})"
    if not _PACK_NAME.match(name) or not _SHA256_HEX.match(digest):
        raise AssetError(
            f"{where}: the encoder reference needs a plain pack name and the manifest SHA-256 of "
            f"that pack (64 lower-case hex digits); {REBUILD_HINT}"
        )
    needs = f"{where} needs the encoder pack {name} with manifest SHA-256 {digest}"
    try:
        places: list[Path] = []
        missing: AssetError | None = None
        try:
            places.append(resolve_pack_path(name))
        except AssetError as error:
            missing = error
        sibling = manifest.directory.parent / name
        if sibling.is_dir() and all(sibling.resolve() != place.resolve() for place in places):
            places.append(sibling)
        if missing is not None and not places:
            raise missing
        others = []
        for directory in places:
            found = read_manifest(directory).digest
            if found == digest:
                verified = read_pack_manifest(directory, kind="encoder", expected_digest=digest)
                return load_encoder_pack(verified)
            others.append(f"{directory} holds one with manifest SHA-256 {found}")
        raise AssetError(
            f"only another build of it is here ({'; '.join(others)}); {install_hint(name)} "
            "(the build this pack was made with)"
        )
    except AssetError as error:
        raise AssetError(f"{needs}: {error}") from None
