"""Sentence-level DP document embeddings: sentence packs, the ONNX encoder, DeepCandidate, baselines.

A document is a list of sentences (:mod:`edgedp.text.sentences`); the mechanisms release one
embedding per document with a guarantee about replacing any one sentence (SentDP).
"""
