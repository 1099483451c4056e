"""The sentence autoencoder of a pack, run with onnxruntime: tokenize, encode, decode, detokenize.

This is a model, not a privacy mechanism: :meth:`SentenceAutoencoder.encode` returns the latent of a
sentence as it is. :class:`edgedp.ADePT` clips and noises it before anything is released. The
onnxruntime sessions are created on first use (so ``import edgedp`` never loads onnxruntime) with the
thread count of :func:`edgedp.set_num_threads`, or one thread if it was not called: one step of a
small decoder is too little work to share, and one thread was fastest in bench/utility/adept.py.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from edgedp.adept.beam_search import DecodingRules, decode
from edgedp.adept.pack import BOS_ID, EOS_ID, PAD_ID, UNK_ID, AutoencoderPack
from edgedp.errors import InputError
from edgedp.runtime.native import GraphIO, Lazy, get_num_threads, open_session

ENCODER_IO: GraphIO = (("tokens", "lengths"), ("latent",))
DECODER_STEP_IO: GraphIO = (("token", "state", "latent"), ("log_probs", "next_state"))
#: Sentences encoded per onnxruntime call (sorted by length to limit padding).
ENCODE_BATCH = 128
_DETOKENIZE_FIXES = (
    (re.compile(r"(\d) ?([.,]) (\d)"), r"\1\2\3"),  # "3. 5" -> "3.5", "1, 000" -> "1,000"
    (re.compile(r" %"), "%"),
    (re.compile(r"([$£€(]) "), r"\1"),
    (re.compile(r" \)"), ")"),
)


def _open(model: bytes, name: str, io: GraphIO) -> Any:
    """One thread unless set: a decoder step is too little work to share (bench/utility/adept.py).

    The session is made from the bytes the pack verified at load, never from the file again."""
    return open_session(model, io=io, threads=get_num_threads() or 1, name=name)


class SentenceAutoencoder:
    """Encoder and decoder of an autoencoder pack (see the module docstring)."""

    def __init__(self, pack: AutoencoderPack) -> None:
        if not isinstance(pack, AutoencoderPack):
            raise InputError(
                f"an autoencoder pack is needed (edgedp.load_pack('adept-bbc')), got "
                f"{type(pack).__name__}"
            )
        self.pack = pack
        self._encoder = Lazy(lambda: _open(pack.encoder_model, pack.encoder_file.name, ENCODER_IO))
        self._decoder_step = Lazy(
            lambda: _open(pack.decoder_step_model, pack.decoder_step_file.name, DECODER_STEP_IO)
        )
        self._banned = np.zeros(len(pack.vocabulary), dtype=bool)
        self._banned[[PAD_ID, UNK_ID, BOS_ID, *pack.label_ids]] = True

    # -- text <-> token ids ---------------------------------------------------------------------

    def tokenize(
        self, sentences: Sequence[str], labels: Sequence[str] | None = None
    ) -> list[list[int]]:
        """Encoder input ids: ``[label]`` (label-aware packs) then at most ``max_input_tokens``
        WordPiece ids; a sentence without any token is read as [UNK]."""
        pack = self.pack
        if pack.labels and labels is None:
            raise InputError(
                f"pack {pack.name} is label-aware (labels: {', '.join(pack.labels)}): give a label "
                "per sentence (ADePT.privatize_labeled)"
            )
        if labels is not None and len(labels) != len(sentences):
            raise InputError(f"{len(labels)} labels for {len(sentences)} sentences")
        prefixes = [[pack.label_id(label)] for label in labels] if labels is not None else None
        encodings = pack.tokenizer.encode_batch(list(sentences), add_special_tokens=False)
        token_lists = []
        for row, encoding in enumerate(encodings):
            ids = encoding.ids[: pack.max_input_tokens] or [UNK_ID]
            token_lists.append(ids if prefixes is None else prefixes[row] + ids)
        return token_lists

    def detokenize(self, token_ids: Sequence[int]) -> str:
        """Text of decoded token ids: WordPiece pieces joined, lower case, BERT-style spaces around
        decimal points, percent signs, currency signs and brackets removed."""
        text = self.pack.tokenizer.decode(list(token_ids), skip_special_tokens=False)
        for pattern, replacement in _DETOKENIZE_FIXES:
            text = pattern.sub(replacement, text)
        return text

    # -- the model ------------------------------------------------------------------------------

    def encode(
        self, token_lists: Sequence[Sequence[int]], *, independent: bool = False
    ) -> np.ndarray:
        """Latents (float64, sentences x latent_dims) of tokenized sentences; NOT private.

        ``independent=True`` runs every sentence on its own (no batch, no padding), so that its
        latent is a function of that sentence alone, bit for bit: batched matrix products round
        differently, and a per-sentence guarantee must not let one sentence move another's latent.
        ADePT's release uses it.
        """
        count = len(token_lists)
        latents = np.zeros((count, self.pack.latent_dims), dtype=np.float64)
        if count == 0:
            return latents
        order = sorted(range(count), key=lambda row: len(token_lists[row]))
        session = self._encoder.get()
        batch_size = 1 if independent else ENCODE_BATCH
        for start in range(0, count, batch_size):
            rows = order[start : start + batch_size]
            lengths = np.array([len(token_lists[row]) for row in rows], dtype=np.int64)
            tokens = np.full((len(rows), int(lengths.max())), PAD_ID, dtype=np.int64)
            for slot, row in enumerate(rows):
                tokens[slot, : lengths[slot]] = token_lists[row]
            (latent,) = session.run(None, {"tokens": tokens, "lengths": lengths})
            latents[rows] = latent
        return latents

    def decode(
        self,
        latents: np.ndarray,
        *,
        labeled: bool = False,
        beam_width: int = 1,
        no_repeat_ngram: int = 3,
        max_tokens: int | None = None,
    ) -> list[list[int]]:
        """Token ids decoded from each latent row (a label id first when ``labeled``)."""
        pack = self.pack
        if labeled and not pack.labels:
            raise InputError(f"pack {pack.name} has no labels")
        first_allowed = None
        if labeled:
            first_allowed = np.zeros(len(pack.vocabulary), dtype=bool)
            first_allowed[list(pack.label_ids)] = True
        rules = DecodingRules(
            bos_id=BOS_ID,
            eos_id=EOS_ID,
            banned=self._banned,
            max_tokens=pack.max_output_tokens if max_tokens is None else max_tokens,
            first_allowed=first_allowed,
            beam_width=beam_width,
            no_repeat_ngram=no_repeat_ngram,
        )
        session = self._decoder_step.get()

        def step(
            tokens: np.ndarray, states: np.ndarray, rows: np.ndarray
        ) -> tuple[np.ndarray, np.ndarray]:
            log_probs, next_state = session.run(
                None, {"token": tokens, "state": states, "latent": rows}
            )
            return log_probs, next_state

        latents = np.asarray(latents, dtype=np.float32)
        if latents.ndim != 2 or latents.shape[1] != pack.latent_dims:
            raise InputError(
                f"latents must have shape (sentences, {pack.latent_dims}), got {latents.shape}"
            )
        if not np.isfinite(latents).all():
            raise InputError("latents must be finite")
        return decode(step, latents, pack.state_size, rules)
