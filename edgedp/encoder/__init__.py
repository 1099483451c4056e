"""The on-device sentence encoder (all-MiniLM-L6-v2) on both tiers, and its pack.

* :mod:`~edgedp.encoder.sentence_encoder`: :class:`~edgedp.encoder.sentence_encoder.SentenceEncoder`
  (tokenize, run the transformer, mean-pool, normalize) and the recoder of sentence packs.
* :mod:`~edgedp.encoder.wordpiece`: the BERT WordPiece tokenizer in Python (numpy tier).
* :mod:`~edgedp.encoder.numpy_transformer`, :mod:`~edgedp.encoder.numpy_graph`,
  :mod:`~edgedp.encoder.onnx_reader`: the same ONNX files run by numpy alone.

The document mechanisms (:mod:`edgedp.documents`) and the exporter use it; it releases nothing.
"""
