"""How well an autoencoder pack reconstructs sentences without noise (export statistics, tests, bench).

Token accuracy compares the decoded WordPiece ids with the encoder's input ids position by position;
the denominator is the longer of the two sequences, so dropped and extra tokens both count as errors.
The chance level is measured the same way after rotating the latents between sentences (each sentence
is compared with the decoding of the sentence half the list away): what the decoder writes for *a*
sentence of the domain rather than *this* sentence. :func:`held_out_sentences` gives the BBC News
sentences the bundled pack never saw, to measure on.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from edgedp.adept.adept import clip_to_l2_ball
from edgedp.adept.autoencoder import SentenceAutoencoder
from edgedp.adept.pack import AutoencoderPack
from edgedp.text.sentences import split_sentences
from edgedp_export.corpus import bbc_news


def token_accuracy(references: Sequence[Sequence[int]], outputs: Sequence[Sequence[int]]) -> float:
    """Position-wise matches over the longer length, summed over all pairs."""
    matches = total = 0
    for reference, output in zip(references, outputs, strict=True):
        matches += sum(a == b for a, b in zip(reference, output, strict=False))
        total += max(len(reference), len(output))
    return matches / total if total else 0.0


def reconstruction_accuracy(
    autoencoder: SentenceAutoencoder, sentences: Sequence[str], *, chance: bool = False
) -> float:
    """Greedy reconstruction token accuracy of clipped, noise-free latents (NOT private).

    With ``chance=True`` each sentence is compared with the decoding of another sentence's latent.
    """
    references = autoencoder.tokenize(sentences)
    latents = clip_to_l2_ball(autoencoder.encode(references), autoencoder.pack.clip_norm)
    if chance:
        latents = np.roll(latents, max(1, len(sentences) // 2), axis=0)
    return token_accuracy(references, autoencoder.decode(latents))


def held_out_sentences(pack: AutoencoderPack, count: int) -> list[str]:
    """``count`` BBC News test-split sentences of 3 to ``max_input_tokens`` tokens, fixed order.

    The test split is never trained or validated on (see :mod:`edgedp_export.corpus`), and BBC
    News repeats articles under other ids, so sentences that also occur in the train or validation
    split are left out too (about 12 % of the test split).
    """
    corpus = bbc_news()

    def sentences(split: str) -> list[str]:
        return [s for document in corpus.split(split) for s in split_sentences(document.text)]

    seen = set(sentences("train")) | set(sentences("validation"))
    unseen = [sentence for sentence in sentences("test") if sentence not in seen]
    encodings = pack.tokenizer.encode_batch(unseen, add_special_tokens=False)
    usable = [
        sentence
        for sentence, encoding in zip(unseen, encodings, strict=True)
        if 3 <= len(encoding.ids) <= pack.max_input_tokens
    ]
    order = np.random.default_rng(0).permutation(len(usable))[:count]
    return [usable[i] for i in order]
