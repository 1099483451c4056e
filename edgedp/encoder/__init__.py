"""The on-device sentence encoders on both tiers, and their packs: all-MiniLM-L6-v2 (English) and
the multilingual Universal Sentence Encoder (16 languages).

* :mod:`~edgedp.encoder.sentence_encoder`: :class:`~edgedp.encoder.sentence_encoder.SentenceEncoder`
  (tokenize, run the encoder, pool, normalize) and the recoder of sentence packs.
* :mod:`~edgedp.encoder.pack`: :class:`~edgedp.encoder.pack.EncoderPack`, the encoder as a pack of
  its own, and the encoder pack a sentences or subspace pack references by digest.
* :mod:`~edgedp.encoder.wordpiece`: the BERT WordPiece tokenizer in Python (numpy tier).
* :mod:`~edgedp.encoder.unigram`: the SentencePiece unigram tokenizer in Python (numpy tier).
* :mod:`~edgedp.encoder.numpy_transformer`, :mod:`~edgedp.encoder.numpy_graph`,
  :mod:`~edgedp.encoder.onnx_reader`: the same ONNX files run by numpy alone.

The document mechanisms (:mod:`edgedp.documents`) and the exporter use it; it releases nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from edgedp.runtime.lazy_names import lazy_names

#: Public name -> the module that defines it (imported on first access, like ``edgedp``'s own).
_EXPORTS = {
    "EncoderPack": "edgedp.encoder.pack",
}

__all__ = [
    "EncoderPack",
]

if TYPE_CHECKING:
    from edgedp.encoder.pack import EncoderPack

__getattr__, __dir__ = lazy_names("edgedp.encoder", _EXPORTS, globals())
