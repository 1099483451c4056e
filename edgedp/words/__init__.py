"""Word-level metric DP: word packs, the Hamming and Euclidean spaces, and the word mechanisms.

A word mechanism perturbs a word's embedding in a *space* (:mod:`edgedp.words.spaces`: randomized
response on binary codes, or multivariate Laplace noise on float vectors) and releases a vocabulary
word chosen from the perturbed point alone. The base class is :class:`edgedp.words.mechanism.WordMechanism`.
"""
