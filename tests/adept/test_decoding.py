"""Greedy and beam-search decoding on toy decoders: exact optima, rules, repetition blocking."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from edgedp.adept.beam_search import DecodingRules, decode, repeated_tokens
from edgedp.errors import InputError

BOS, EOS = 0, 1


def markov_step(table: np.ndarray):
    """A decoder whose next-token distribution depends on the previous token only."""
    log_table = np.log(table / table.sum(axis=1, keepdims=True))

    def step(tokens, states, latents):
        assert len(tokens) == len(states) == len(latents)
        return log_table[tokens].astype(np.float32), states

    return step


def rules(vocabulary: int, **overrides) -> DecodingRules:
    banned = np.zeros(vocabulary, dtype=bool)
    banned[BOS] = True
    settings = {"bos_id": BOS, "eos_id": EOS, "banned": banned, "max_tokens": 6}
    settings.update(overrides)
    return DecodingRules(**settings)


def run(step, count: int = 1, **overrides) -> list[list[int]]:
    vocabulary = overrides.pop("vocabulary", 5)
    return decode(step, np.zeros((count, 2)), 1, rules(vocabulary, **overrides))


def brute_force_best(log_table: np.ndarray, max_tokens: int) -> list[int]:
    """The sequence with the best mean log-probability per token (EOS included), by enumeration."""
    content = [t for t in range(log_table.shape[0]) if t not in (BOS, EOS)]
    best, best_score = None, -np.inf
    for length in range(1, max_tokens + 1):
        for sequence in itertools.product(content, repeat=length):
            path = [BOS, *sequence, EOS]
            score = sum(log_table[a, b] for a, b in itertools.pairwise(path)) / (length + 1)
            if score > best_score + 1e-12:
                best, best_score = list(sequence), score
    return best


def test_greedy_follows_the_most_likely_token():
    table = np.full((5, 5), 1.0)
    table[BOS, 3] = 10  # first 3
    table[3, 4] = 10  # then 4
    table[4, EOS] = 10  # then stop
    assert run(markov_step(table), no_repeat_ngram=0) == [[3, 4]]


def test_wide_beam_finds_the_exact_optimum_that_greedy_misses():
    rng = np.random.default_rng(4)
    table = rng.uniform(0.05, 1.0, size=(5, 5))
    table[BOS, 2] = 3.0  # a tempting first step
    table[2, :] = [0.1, 0.1, 0.1, 0.1, 0.1]  # ... that leads nowhere good
    table[BOS, 3], table[3, EOS] = 2.0, 5.0
    log_table = np.log(table / table.sum(axis=1, keepdims=True))
    step = markov_step(table)
    expected = brute_force_best(log_table, 4)
    assert run(step, beam_width=200, max_tokens=4, no_repeat_ngram=0) == [expected]
    assert run(step, max_tokens=4, no_repeat_ngram=0)[0][0] == 2  # greedy takes the bait
    assert expected[0] != 2


def test_rows_decode_independently_and_deterministically():
    table = np.random.default_rng(1).uniform(0.1, 1, size=(6, 6))
    step = markov_step(table)
    first = run(step, count=4, vocabulary=6, beam_width=3)
    assert first == run(step, count=4, vocabulary=6, beam_width=3)
    assert first[0] == first[1] == first[2] == first[3]  # same latent, same decoder: same output


def test_banned_tokens_are_never_emitted_even_when_most_likely():
    table = np.full((5, 5), 1.0)
    table[:, 4] = 100.0  # token 4 dominates everywhere
    banned = np.array([True, False, False, False, True])
    for width in (1, 3):
        out = run(markov_step(table), banned=banned, beam_width=width)[0]
        assert 4 not in out and BOS not in out


def test_max_tokens_forces_the_end_and_no_empty_sentence():
    table = np.full((5, 5), 1.0)
    table[:, EOS] = 1e-6  # the decoder never wants to stop ...
    for max_tokens in (1, 3, 6):
        (out,) = run(markov_step(table), max_tokens=max_tokens, no_repeat_ngram=0)
        assert len(out) == max_tokens
    table = np.full((5, 5), 1.0)
    table[BOS, EOS] = 1e6  # ... or wants to stop at once: at least one token is written
    assert len(run(markov_step(table))[0]) >= 1


def test_first_allowed_restricts_only_the_first_token():
    table = np.full((6, 6), 1.0)
    table[:, 5] = 50.0  # token 5 (a "label") is the favourite everywhere
    banned = np.array([True, False, False, False, False, True])
    first = np.array([False, False, False, False, False, True])
    (out,) = run(markov_step(table), vocabulary=6, banned=banned, first_allowed=first)
    assert out[0] == 5 and 5 not in out[1:]


def test_repetition_blocking_breaks_the_flights_flights_flights_loop():
    table = np.full((5, 5), 1.0)
    table[:, 3] = 40.0  # "flights" after anything, the paper's Table 1 failure
    table[3, 3] = 80.0
    looping = run(markov_step(table), max_tokens=6, no_repeat_ngram=0)[0]
    assert looping == [3] * 6
    blocked = run(markov_step(table), max_tokens=6, no_repeat_ngram=3)[0]
    assert all(a != b for a, b in itertools.pairwise(blocked))
    trigrams = [tuple(blocked[i : i + 3]) for i in range(len(blocked) - 2)]
    assert len(trigrams) == len(set(trigrams))


def test_repeated_tokens_lists_the_previous_token_and_ngram_followers():
    history = np.array([[5, 6, 7, 5, 6], [1, 2, 3, 4, 9]])
    blocked = repeated_tokens(history, 3)
    assert sorted(blocked[0].tolist()) == [6, 7]  # 6 repeats itself; "5 6" was followed by 7
    assert blocked[1].tolist() == [9]
    assert [row.tolist() for row in repeated_tokens(history, 0)] == [[], []]


def test_bad_arguments_are_input_errors():
    step = markov_step(np.ones((5, 5)))
    with pytest.raises(InputError):
        decode(step, np.zeros(3), 1, rules(5))
    with pytest.raises(InputError):
        decode(step, np.zeros((1, 2)), 1, rules(5, beam_width=0))
