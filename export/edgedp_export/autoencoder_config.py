"""What an autoencoder pack is built from: the settings of ``edgedp-export adept`` and their defaults.

Shared by the command (:mod:`edgedp_export.commands.adept`, no torch) and the build
(:mod:`edgedp_export.autoencoder_build`, torch), so neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DEFAULT_ADEPT_PACK: dict[str, Any] = {
    "cell": "gru",
    "latent_dims": 32,
    "clip_norm": 1.0,
    "embedding_dims": 128,
    "encoder_hidden": 256,
    "decoder_hidden": 384,
    "max_tokens": 48,
    "min_count": 5,
    "max_vocabulary": 12000,
    "epochs": 24,
    "batch_size": 32,
    "learning_rate": 0.002,
    "word_dropout": 0.1,
    "bag_of_words": 1.0,
    "seed": 0,
}
SETTING_KEYS = tuple(DEFAULT_ADEPT_PACK)


@dataclass(frozen=True)
class AdeptConfig:
    """What to build; ``command`` is the canonical command line recorded in the manifest."""

    name: str
    labels: bool
    cell: str
    latent_dims: int
    clip_norm: float
    embedding_dims: int
    encoder_hidden: int
    decoder_hidden: int
    max_tokens: int
    min_count: int
    max_vocabulary: int
    epochs: int
    batch_size: int
    learning_rate: float
    word_dropout: float
    bag_of_words: float
    seed: int
    threads: int
    max_sentences: int | None
    command: str
