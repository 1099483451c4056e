"""atheris harness: arbitrary bytes through the CLI's decoding and streaming privatization.

Run: python tests/fuzz/fuzz_privatize.py -runs=5000 -max_len=4096   (tests/test_fuzz.py does)
Crashes are uncaught exceptions other than edgedp's own InputError, or a privacy-invariant breach.
"""

from __future__ import annotations

import io
import sys

import atheris

with atheris.instrument_imports():
    import edgedp
    from edgedp.cli.reading import Reader
    from edgedp.errors import InputError
    from edgedp.text.emoji import filler_emoji
    from edgedp.text.segmentation import PASS_THROUGH_PUNCTUATION, segment
    from edgedp.words.streaming import privatize_stream

PACK = edgedp.load_pack()
MECHANISMS = [
    edgedp.BRR(PACK, epsilon=epsilon, oov=oov)
    for epsilon in (0.2, 50.0)
    for oov in ("sample", "mask", "drop")
]
VOCABULARY = PACK.vocabulary
FILLER_EMOJI = frozenset(filler_emoji())


def check(output: str) -> None:
    """Every non-separator token of the output is public (tokenizer round trip): a vocabulary word
    or a filler emoji."""
    output = output.replace(edgedp.OOV_MASK, " ")
    segmented = segment(output)
    for piece in segmented.pieces:
        if piece is not None and not piece.isspace():
            assert all(char in PASS_THROUGH_PUNCTUATION for char in piece), repr(piece)
    for word in segmented.words:
        assert word in VOCABULARY or word in FILLER_EMOJI, f"{word!r} reached the output"


def test_one_input(data: bytes) -> None:
    provider = atheris.FuzzedDataProvider(data)
    mechanism = MECHANISMS[provider.ConsumeIntInRange(0, len(MECHANISMS) - 1)]
    batch_chars = provider.ConsumeIntInRange(1, 512)
    payload = provider.ConsumeBytes(provider.remaining_bytes())
    try:
        pieces = Reader(io.BytesIO(payload), "utf-8").pieces()
        output = "".join(privatize_stream(mechanism, pieces, batch_chars=batch_chars))
    except InputError:
        return  # invalid UTF-8 and the like: a clean, documented error
    check(output)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
