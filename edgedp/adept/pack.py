"""Autoencoder packs: a sentence autoencoder exported to ONNX, with its public subword vocabulary.

Layout of an ``autoencoder`` pack (the manifest's ``model`` section names the files):

* ``vocab.txt``: UTF-8, one token per line, line i is token id i. The first four lines are the
  special tokens :data:`SPECIAL_TOKENS`; then one ``[label:NAME]`` token per label of a label-aware
  pack; then WordPiece tokens (``##`` marks the continuation of a word).
* ``encoder.onnx``: ``tokens`` int64 (batch, time) right-padded with [PAD] and ``lengths`` int64
  (batch) -> ``latent`` float32 (batch, latent_dims), *not* clipped (the runtime clips it).
* ``decoder_step.onnx``: one step of the decoder. ``token`` int64 (batch), ``state`` float32 (batch,
  state_size), ``latent`` float32 (batch, latent_dims) -> ``log_probs`` float32 (batch, vocabulary)
  and ``next_state`` float32 (batch, state_size). Decoding starts from a zero state and [BOS].

Text is tokenized with the BERT-uncased WordPiece rules (:func:`wordpiece_tokenizer`) over the pack's
own vocabulary. Loading checks the vocabulary and the model section; the ONNX sessions are created
later, on first use (:mod:`edgedp.adept.autoencoder`), so loading a pack never imports onnxruntime;
``tokenizers`` is imported when a pack is loaded, so importing this module needs neither.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edgedp.errors import SENTENCES_EXTRA, AssetError, DependencyError
from edgedp.packs.loading import DEFAULT_AUTOENCODER_PACK, LoadablePack
from edgedp.packs.manifest import Manifest

if TYPE_CHECKING:
    from tokenizers import Tokenizer

#: The first tokens of every autoencoder vocabulary, with ids 0, 1, 2, 3.
SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[BOS]", "[EOS]")
PAD_ID, UNK_ID, BOS_ID, EOS_ID = range(len(SPECIAL_TOKENS))
CELLS = ("gru", "lstm")
MAX_WORD_CHARS = 100


def label_token(label: str) -> str:
    """The vocabulary token of a label (the paper's ``@Intent`` prefix)."""
    return f"[label:{label}]"


def wordpiece_tokenizer(tokens: Sequence[str]) -> Tokenizer:
    """A BERT-uncased WordPiece tokenizer over ``tokens`` (token i gets id i).

    Normalization as in all-MiniLM-L6-v2 / bert-base-uncased: control characters removed, CJK
    characters split, accents stripped, lower case; then split at whitespace and punctuation, and
    each word cut greedily into the longest vocabulary pieces (a word that cannot be cut becomes
    [UNK]). Special and label tokens are ordinary vocabulary entries that no text can produce: the
    pre-tokenizer splits their brackets off. Decoding joins ``##`` pieces and tidies spaces before
    punctuation. The exporter and the runtime both use this function, so they tokenize identically.

    Raises
    ------
    ~edgedp.errors.DependencyError
        Without ``tokenizers`` (a words-only install): it names the ``sentences`` extra.
    """
    try:
        from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers
    except ImportError:  # a words-only install: loading an ADePT pack says what to install
        raise DependencyError(SENTENCES_EXTRA.format(what="ADePT needs tokenizers")) from None
    tokenizer = Tokenizer(
        models.WordPiece(
            {token: index for index, token in enumerate(tokens)},
            unk_token=SPECIAL_TOKENS[UNK_ID],
            max_input_chars_per_word=MAX_WORD_CHARS,
        )
    )
    tokenizer.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True
    )
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece(prefix="##", cleanup=True)
    return tokenizer


@dataclass(frozen=True, slots=True, eq=False)
class AutoencoderPack(LoadablePack):
    """A loaded ``autoencoder`` pack: ADePT's tokenizer, encoder and decoder.

    Load one with ``AutoencoderPack.load(name)`` (``AutoencoderPack.load()`` is ``adept-bbc``, a
    pack distribution, not bundled) or :func:`~edgedp.load_pack`, never by hand: loading verifies
    every file. ``clip_norm`` (C) and ``latent_dims`` (d) are the quantities the privacy calibration
    depends on; the rest describes the model and its files. :class:`~edgedp.ADePT` reads one.

    Parameters
    ----------
    name : str
        The pack's name.
    path : Path
        Its directory.
    manifest : Manifest
        The verified manifest.
    vocabulary : tuple of str
        The public WordPiece vocabulary (the only tokens ADePT can output).
    labels : tuple of str
        Label tokens the model was trained with (empty for none).
    tokenizer : tokenizers.Tokenizer
        The WordPiece tokenizer built from ``vocabulary``.
    latent_dims : int
        The latent dimension d (>= 1).
    clip_norm : float
        The clip radius C (> 0) of the latents.
    state_size : int
        The decoder's state size.
    max_input_tokens : int
        The longest input the encoder reads, in tokens.
    max_output_tokens : int
        The default decoded length limit, in tokens.
    encoder_file : Path
        The encoder's ONNX file.
    decoder_step_file : Path
        The decoder step's ONNX file.
    encoder_model : bytes
        The encoder's verified bytes (sessions are made from these, never from the paths).
    decoder_step_model : bytes
        The decoder step's verified bytes.

    Raises
    ------
    ~edgedp.AssetError
        From :func:`~edgedp.load_pack`, for a missing, modified or inconsistent pack.

    Notes
    -----
    Everything in the pack is public (a model trained on public text); ADePT's noise is
    calibrated to C and d, so a pack with other values changes the noise, never the guarantee.
    The examples need the pack, which is not bundled with edgedp (see :doc:`/guide/adept`); the
    example below only checks the class.

    Examples
    --------
    >>> import edgedp
    >>> edgedp.ADePT.pack_type is edgedp.AutoencoderPack
    True
    """

    name: str
    path: Path
    manifest: Manifest
    vocabulary: tuple[str, ...]
    labels: tuple[str, ...]
    tokenizer: Tokenizer
    latent_dims: int
    clip_norm: float
    state_size: int
    max_input_tokens: int
    max_output_tokens: int
    encoder_file: Path
    decoder_step_file: Path
    #: The verified bytes of the two models (sessions are made from these, never from the paths).
    encoder_model: bytes = field(repr=False)
    decoder_step_model: bytes = field(repr=False)

    PACK_KIND = "autoencoder"
    DEFAULT_PACK = DEFAULT_AUTOENCODER_PACK

    @classmethod
    def from_manifest(cls, manifest: Manifest) -> AutoencoderPack:
        """Build the pack from its verified manifest (:meth:`load` is the way in)."""
        return load_autoencoder_pack(manifest)

    def label_id(self, label: str) -> int:
        """The token id of one of the pack's labels."""
        if label not in self.labels:
            known = ", ".join(self.labels) if self.labels else "none: this pack is not label-aware"
            raise AssetError(f"pack {self.name} has no label {label!r} (labels: {known})")
        return len(SPECIAL_TOKENS) + self.labels.index(label)

    @property
    def label_ids(self) -> range:
        """Token ids of the label tokens (empty for a pack without labels)."""
        return range(len(SPECIAL_TOKENS), len(SPECIAL_TOKENS) + len(self.labels))

    def describe(self) -> dict[str, Any]:
        """A short summary for ``edgedp packs info``."""
        data = self.manifest.data
        return {
            **self.manifest.summary(),
            "vocabulary": len(self.vocabulary),
            "labels": list(self.labels),
            "latent_dims": self.latent_dims,
            "clip_norm": self.clip_norm,
            "cell": data["model"]["cell"],
        }


def _positive_int(manifest: Manifest, key: str) -> int:
    value: int = manifest.field("model", key, int)
    if value < 1:
        raise AssetError(f"pack {manifest.directory}: model.{key} must be >= 1, got {value}")
    return value


def _read_vocabulary(manifest: Manifest, labels: tuple[str, ...]) -> tuple[str, ...]:
    path = manifest.file(manifest.field("vocabulary", "file", str))
    size = manifest.field("vocabulary", "size", int)
    tokens = manifest.lines(path.name, size, unit="tokens")
    expected_head = (*SPECIAL_TOKENS, *(label_token(label) for label in labels))
    if tuple(tokens[: len(expected_head)]) != expected_head:
        raise AssetError(
            f"pack {manifest.directory}: {path.name} must start with {', '.join(expected_head)}"
        )
    if len(tokens) <= len(expected_head):
        raise AssetError(f"pack {manifest.directory}: {path.name} holds no text tokens")
    if any(not token or any(char.isspace() for char in token) for token in tokens):
        raise AssetError(f"pack {manifest.directory}: {path.name} has empty or blank tokens")
    if len(set(tokens)) != len(tokens):
        raise AssetError(f"pack {manifest.directory}: {path.name} has duplicate tokens")
    return tuple(tokens)


def load_autoencoder_pack(manifest: Manifest) -> AutoencoderPack:
    """Build an :class:`AutoencoderPack` from a validated manifest (files already verified)."""
    where = f"pack {manifest.directory}"
    labels = manifest.field("vocabulary", "labels", tuple)  # JSON lists are frozen as tuples
    if not all(isinstance(label, str) and label and label.strip() == label for label in labels):
        raise AssetError(f"{where}: vocabulary.labels must be non-empty strings")
    labels = tuple(labels)
    vocabulary = _read_vocabulary(manifest, labels)
    cell = manifest.field("model", "cell", str)
    if cell not in CELLS:
        raise AssetError(f"{where}: model.cell {cell!r} is not supported ({', '.join(CELLS)})")
    clip_norm = float(manifest.field("model", "clip_norm", (int, float)))
    if not (math.isfinite(clip_norm) and clip_norm > 0):
        raise AssetError(f"{where}: model.clip_norm must be finite and > 0, got {clip_norm!r}")
    return AutoencoderPack(
        name=manifest.name,
        path=manifest.directory,
        manifest=manifest,
        vocabulary=vocabulary,
        labels=labels,
        tokenizer=wordpiece_tokenizer(vocabulary),
        latent_dims=_positive_int(manifest, "latent_dims"),
        clip_norm=clip_norm,
        state_size=_positive_int(manifest, "state_size"),
        max_input_tokens=_positive_int(manifest, "max_input_tokens"),
        max_output_tokens=_positive_int(manifest, "max_output_tokens"),
        encoder_file=manifest.file(manifest.field("model", "encoder", str)),
        decoder_step_file=manifest.file(manifest.field("model", "decoder_step", str)),
        encoder_model=manifest.contents(manifest.field("model", "encoder", str)),
        decoder_step_model=manifest.contents(manifest.field("model", "decoder_step", str)),
    )
