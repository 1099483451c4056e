"""Greedy and beam-search decoding of a step-wise decoder, with repetition blocking.

The decoder is any ``step(tokens, states, latents) -> (log_probs, next_states)`` function (the ONNX
decoder step of an autoencoder pack, or a toy one in tests). Decoding only ever picks token ids whose
log-probability is finite after the rules below, so it can emit nothing but the vocabulary tokens the
rules allow.

**Rules.** ``banned`` tokens are never emitted (padding, unknown, start and label tokens), except
that ``first_allowed`` (optional) is the set allowed at the first step (the label tokens of a
label-aware pack). The end token is not allowed as the first content token (no empty sentences);
after ``max_tokens`` tokens the end token is forced, so the output length depends on the latent and
on this constant only, never on the input's length.

**Repetition.** Autoencoder decoders fed a noisy latent fall into loops like the ADePT paper's
"show all flights flights flights boston to any time" (Table 1). With ``no_repeat_ngram = n > 0`` a
token is blocked when it would repeat the previous token or complete an n-gram already in the output
(as ``no_repeat_ngram_size`` in common text-generation libraries); ``0`` decodes as the paper did.

**Beam search** keeps ``beam_width`` hypotheses per sentence; a hypothesis that emits the end token
is set aside with its score divided by its length (mean log-probability per token), and a sentence
is done when ``beam_width`` hypotheses are set aside. ``beam_width = 1`` is greedy decoding. Equal
scores are ordered by token id, so decoding is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from edgedp.errors import InputError

StepFunction = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class DecodingRules:
    """What a decoder may emit and when it must stop (see the module docstring)."""

    bos_id: int
    eos_id: int
    banned: np.ndarray
    max_tokens: int
    first_allowed: np.ndarray | None = None
    beam_width: int = 1
    no_repeat_ngram: int = 3

    @property
    def first_content_step(self) -> int:
        return 0 if self.first_allowed is None else 1


def repeated_tokens(history: np.ndarray, ngram: int) -> list[np.ndarray]:
    """For each row of ``history`` (rows, length), the tokens that would repeat.

    A token is returned if it equals the row's last token, or if appending it would complete an
    ``ngram``-gram that already occurs in the row.
    """
    rows, length = history.shape
    if length == 0 or ngram <= 0:
        return [np.empty(0, dtype=np.int64) for _ in range(rows)]
    blocked = [history[:, -1:]]
    if ngram >= 2 and length >= ngram:
        windows = np.lib.stride_tricks.sliding_window_view(history, ngram, axis=1)
        prefix = history[:, length - ngram + 1 :]
        matches = (windows[:, :, : ngram - 1] == prefix[:, None, :]).all(axis=2)
        followers = np.where(matches, windows[:, :, ngram - 1], -1)
        blocked.append(followers)
    combined = np.concatenate(blocked, axis=1)
    return [row[row >= 0] for row in combined]


def _step_log_probs(
    log_probs: np.ndarray, history: np.ndarray, step: int, rules: DecodingRules
) -> np.ndarray:
    """Apply the rules to one step's log-probabilities (float64, rows x vocabulary)."""
    log_probs = log_probs.astype(np.float64, copy=True)
    if step == 0 and rules.first_allowed is not None:
        log_probs[:, ~rules.first_allowed] = -np.inf
    else:
        log_probs[:, rules.banned] = -np.inf
    if step == rules.first_content_step:
        log_probs[:, rules.eos_id] = -np.inf
    if step >= rules.max_tokens:
        eos = log_probs[:, rules.eos_id].copy()
        log_probs[:] = -np.inf
        log_probs[:, rules.eos_id] = np.where(np.isneginf(eos), 0.0, eos)
    elif rules.no_repeat_ngram > 0 and step > rules.first_content_step:
        content = history[:, rules.first_content_step :]
        for row, tokens in enumerate(repeated_tokens(content, rules.no_repeat_ngram)):
            log_probs[row, tokens] = -np.inf
    return log_probs


def decode(
    step: StepFunction, latents: np.ndarray, state_size: int, rules: DecodingRules
) -> list[list[int]]:
    """Token ids (without start and end tokens) decoded from each latent row."""
    latents = np.asarray(latents, dtype=np.float32)
    if latents.ndim != 2:
        raise InputError(f"latents must be 2-D (sentences, dims), got shape {latents.shape}")
    if rules.beam_width < 1 or rules.max_tokens < 1:
        raise InputError("beam_width and max_tokens must be >= 1")
    sentences, width = latents.shape[0], rules.beam_width
    rows = sentences * width
    tokens = np.full(rows, rules.bos_id, dtype=np.int64)
    states = np.zeros((rows, state_size), dtype=np.float32)
    row_latents = np.repeat(latents, width, axis=0)
    history = np.zeros((rows, 0), dtype=np.int64)
    scores = np.full((sentences, width), -np.inf)
    scores[:, 0] = 0.0  # one live hypothesis per sentence at the start
    finished: list[list[tuple[float, list[int]]]] = [[] for _ in range(sentences)]
    done = np.zeros(sentences, dtype=bool)
    for position in range(rules.max_tokens + 1):
        live = np.flatnonzero(np.repeat(~done, width))
        log_probs, next_states = step(tokens[live], states[live], row_latents[live])
        log_probs = _step_log_probs(log_probs, history[live], position, rules)
        states[live] = next_states
        vocabulary = log_probs.shape[1]
        live_sentences = np.flatnonzero(~done)
        totals = (scores[live_sentences].reshape(-1, 1) + log_probs).reshape(
            len(live_sentences), width * vocabulary
        )
        keep = min(2 * width, totals.shape[1])
        candidates = np.argpartition(-totals, keep - 1, axis=1)[:, :keep]
        picked = np.take_along_axis(totals, candidates, axis=1)
        order = np.lexsort((candidates, -picked), axis=1)
        candidates = np.take_along_axis(candidates, order, axis=1)
        new_rows = np.arange(rows)
        new_tokens = np.full(rows, rules.eos_id, dtype=np.int64)
        for slot, sentence in enumerate(live_sentences):
            survivors = 0
            for rank, flat in enumerate(candidates[slot].tolist()):
                score = float(totals[slot, flat])
                if score == -np.inf:
                    break
                beam, token = divmod(flat, vocabulary)
                source = sentence * width + beam
                if token == rules.eos_id:
                    if rank < width:
                        hypothesis = history[source].tolist()
                        finished[sentence].append((score / (len(hypothesis) + 1), hypothesis))
                    continue
                target = sentence * width + survivors
                new_rows[target], new_tokens[target] = source, token
                scores[sentence, survivors] = score
                survivors += 1
                if survivors == width:
                    break
            scores[sentence, survivors:] = -np.inf
            if len(finished[sentence]) >= width or survivors == 0:
                done[sentence] = True
        history = np.concatenate([history[new_rows], new_tokens[:, None]], axis=1)
        states = states[new_rows]
        tokens = new_tokens
        if done.all():
            break
    return [max(hypotheses, key=lambda item: item[0])[1] for hypotheses in finished]
