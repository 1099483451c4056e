"""Context decoding of streamed text is post-processing: it reads the release, never where the
stream happened to be cut.

Where a stream is cut depends on the raw text (the identifier guard never cuts after a capital
letter, a digit, a month name or a short token), so a decoder that decoded each streamed piece as
its own sentences read something the release does not carry. These tests fail on such a decoder:
the same text cut anywhere, and texts that differ only in what the release hides (the case of a
word, the content of an out-of-vocabulary token), decode to the same words for the same noise.
"""

from __future__ import annotations

import numpy as np
import pytest

import edgedp
from edgedp.text.segmentation import segment
from edgedp.words.language_model import MAX_SENTENCE_SLOTS, slot_sentences
from edgedp.words.streaming import privatize_stream

#: Sentences over several lines, a guarded month name and number, a title, a long line without a
#: sentence end: a stream of it is cut at places that depend on the raw text.
TEXT = (
    "the meeting moved to march because the river was high and the roads were closed for a week "
    "so we waited at the old house near the bridge\n"
    "she said that the results would come back on monday. then we will know more about it!\n"
    "dr. smith called the office twice, but nobody answered the phone in the morning\n"
    "is it true that the market fell again? the banks were not happy with the news\n"
) * 3


def context_brr(pack, **options):
    """BRR decoding in context, its randomized response replaced by scripted noise: the n-th
    perturbed slot of a run gets the n-th flip mask (about 35 % of bits, as epsilon 0.6 per bit
    flips), however the slots are batched. The decoder, not the sampler, is under test here: the
    sampler draws its bytes per batch, so real noise differs between two cuttings of a text."""
    options = {"oov": "mask", "decode": "context", **options}
    mechanism = edgedp.BRR(pack, epsilon=0.6, **options)
    space = mechanism.decoder.space
    flips = np.random.default_rng(7).random((4000, pack.bits)) < 0.354
    masks = np.packbits(flips, axis=1)
    used = 0

    def perturb(word_ids):
        nonlocal used
        codes = np.asarray(pack.codes[word_ids]) ^ masks[used : used + len(word_ids)]
        used += len(word_ids)
        return codes

    space.perturb = perturb
    return mechanism


def chunks(text: str, size: int):
    return (text[i : i + size] for i in range(0, len(text), size))


@pytest.mark.parametrize(("size", "batch_chars"), [(7, 40), (64, 150), (500, 333), (5000, 2048)])
def test_a_stream_cut_anywhere_decodes_as_the_whole_text(default_pack, size, batch_chars):
    whole = context_brr(default_pack).privatize(TEXT)
    streamed = privatize_stream(
        context_brr(default_pack), chunks(TEXT, size), batch_chars=batch_chars
    )
    assert "".join(streamed) == whole


def test_case_and_oov_content_do_not_move_the_decoded_words(default_pack):
    # "the" vs "The" at a sentence start (a common word: the guard keeps it in the mechanism) and
    # one out-of-vocabulary token for another: the release is the same, so must be the decoding,
    # although the guard cuts the stream at other places for the capitalized text.
    plain = "and so the day went on. the final word came\n" * 40
    variant = "and so the day went on. The final word came\n" * 40
    variant = variant.replace("day", "qzxwv", 1)
    plain = plain.replace("day", "vwxzq", 1)
    outputs = []
    for text in (plain, variant):
        mechanism = context_brr(default_pack)
        outputs.append("".join(privatize_stream(mechanism, chunks(text, 13), batch_chars=60)))
    assert outputs[0] == outputs[1]


def test_each_line_is_answered_when_it_ends(default_pack):
    # Line in, line out: a line end ends a sentence for the decoder, so a line without a full stop
    # is released as soon as it is complete (a chat filter reading a pipe).
    mechanism = context_brr(default_pack)
    lines = ["hey can you call me tomorrow\n", "the results came back fine\n"]
    stream = privatize_stream(mechanism, iter(lines), batch_chars=10_000)
    first = next(stream)
    assert first.endswith("\n") and first.count("\n") == 1


def test_a_sentence_without_an_end_is_decoded_in_bounded_pieces(default_pack):
    # A stream with no sentence end at all must not hold an ever-growing sentence: the rule cuts a
    # sentence every MAX_SENTENCE_SLOTS slots, a function of the released layout alone.
    words = " ".join(["words"] * (3 * MAX_SENTENCE_SLOTS + 5))
    sentences = slot_sentences(segment(words))
    assert [len(run) for run in sentences] == [MAX_SENTENCE_SLOTS] * 3 + [5]
    mechanism = context_brr(default_pack)
    stream = privatize_stream(mechanism, chunks(words, 100), batch_chars=200)
    first = next(stream)
    assert len(first.split()) <= MAX_SENTENCE_SLOTS + 200
    assert "".join([first, *stream]) == context_brr(default_pack).privatize(words)
