"""Sentence-level DP document embeddings: SubspaceMean, DeepCandidate, Truncation, packs, baselines.

A document is a list of sentences (:mod:`edgedp.text.sentences`); the mechanisms release one
embedding per document with a guarantee about replacing any one sentence (SentDP). The sentence
encoder they run is :mod:`edgedp.encoder`; the estimators that fit a pack to a domain, and
release nothing, are in :mod:`edgedp.evaluation`.
"""
