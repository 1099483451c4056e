"""ADePT on the bundled autoencoder pack: latency and what survives the noise.

Data: sentences of the BBC News *test* split that occur in no train or validation document (the
pack was trained on the train split; see ``edgedp_export.reconstruction.held_out_sentences``), at
most the pack's 48 input tokens. Rows:

* pack: size and the training figures recorded in its manifest;
* latency (1 and 2 threads): one 20-token sentence through ``privatize_sentences`` (encode, clip,
  noise, greedy decode), decoding alone, beam search of width 4, and a batch of 64; baseline: BRR on
  the same sentences in the same run (``ratio_vs_brr``);
* (the peak RSS of ``edgedp privatize --mechanism adept`` is in the ``memory`` suite, beside the
  other CLI paths);
* utility vs epsilon, Laplace (scale 2C sqrt(d) / epsilon) and Gaussian (analytic sigma for L2
  sensitivity 2C, delta 1e-6): WordPiece token accuracy and BLEU-4 of the output against its input,
  decoded three ways from the *same* released latents (ADePT's decoding: rescaled to norm C with
  repetition blocking; rescaled without blocking; the paper's: raw latent, no blocking), with the
  share of outputs with an immediate word repetition or a repeated word 3-gram and the share that
  hit the length limit;
* word-level BRR on the same sentences (word accuracy and BLEU), with the sentence-level privacy loss
  its per-bit epsilon implies for same-length sentences (a worst-case and an average-case figure),
  at its usual epsilons and at the epsilons whose average-case sentence loss equals ADePT's.
"""

from __future__ import annotations

import itertools
import math
import re
import time
import warnings
from collections import Counter
from collections.abc import Sequence

import numpy as np
from edgedp_export.reconstruction import held_out_sentences, token_accuracy

import edgedp
from bench.harness import Report, median_seconds
from edgedp.adept.adept import clip_to_l2_ball, project_to_sphere
from edgedp.adept.autoencoder import SentenceAutoencoder
from edgedp.text.segmentation import segment

DELTA = 1e-6
EPSILONS = (1.0, 10.0, 30.0, 100.0, 300.0, 1000.0, 1e4)
BRR_EPSILONS = (0.1, 0.3, 0.6, 1.0, 2.0)
#: BRR is also run at the per-bit epsilon whose average-case sentence loss equals these.
MATCHED_ADEPT_EPSILONS = (100.0, 1000.0, 1e4)
LATENCY_TOKENS = 20
_WORD = re.compile(r"\w+|[^\w\s]")


def words(text: str) -> list[str]:
    """Lower-case words and punctuation marks, for BLEU and word accuracy."""
    return _WORD.findall(text.lower())


def bleu(references: Sequence[Sequence[str]], outputs: Sequence[Sequence[str]]) -> float:
    """Corpus BLEU-4 (Papineni et al. 2002): clipped n-gram precisions, brevity penalty, x100."""
    matches, totals = [0] * 4, [0] * 4
    reference_length = output_length = 0
    for reference, output in zip(references, outputs, strict=True):
        reference_length += len(reference)
        output_length += len(output)
        for n in range(1, 5):
            wanted = Counter(tuple(reference[i : i + n]) for i in range(len(reference) - n + 1))
            got = Counter(tuple(output[i : i + n]) for i in range(len(output) - n + 1))
            matches[n - 1] += sum(min(count, wanted[gram]) for gram, count in got.items())
            totals[n - 1] += max(len(output) - n + 1, 0)
    if min(matches) == 0 or output_length == 0:
        return 0.0
    log_precision = sum(math.log(m / t) for m, t in zip(matches, totals, strict=True)) / 4
    brevity = min(0.0, 1 - reference_length / output_length)
    return 100 * math.exp(log_precision + brevity)


def word_accuracy(references: Sequence[Sequence[str]], outputs: Sequence[Sequence[str]]) -> float:
    matches = sum(
        sum(a == b for a, b in zip(r, o, strict=False))
        for r, o in zip(references, outputs, strict=True)
    )
    return matches / sum(max(len(r), len(o)) for r, o in zip(references, outputs, strict=True))


def repetition_rate(texts: Sequence[str]) -> float:
    """Share of texts with a word repeated at once or a word 3-gram occurring twice."""

    def repeats(tokens: list[str]) -> bool:
        trigrams = [tuple(tokens[i : i + 3]) for i in range(len(tokens) - 2)]
        immediate = any(a == b for a, b in itertools.pairwise(tokens))
        return immediate or len(set(trigrams)) < len(trigrams)

    return sum(repeats(words(text)) for text in texts) / len(texts)


def _seeded(factory, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        return factory(*args, **kwargs)


def _latency(report: Report, pack, brr_pack, sentences: list[str], quick: bool) -> None:
    tokens = pack.tokenizer.encode_batch(sentences, add_special_tokens=False)
    twenty = [s for s, e in zip(sentences, tokens, strict=True) if len(e.ids) == LATENCY_TOKENS]
    twenty = twenty[: 5 if quick else 20]
    batch = sentences[:64]
    repeats = 2 if quick else 5
    for threads in (1, 2):
        edgedp.set_num_threads(threads)
        adept = _seeded(edgedp.ADePT, pack, epsilon=1e4, rng=1)
        beam = _seeded(edgedp.ADePT, pack, epsilon=1e4, rng=1, beam_width=4)
        brr = _seeded(edgedp.BRR, brr_pack, epsilon=1.0, rng=1)
        adept.privatize_sentences(twenty[:1])  # sessions created outside the timings
        beam.privatize_sentences(twenty[:1])

        def per_sentence(function) -> float:
            return float(
                np.mean(
                    [median_seconds(lambda s=s: function([s]), repeats=repeats) for s in twenty]
                )
            )

        released = adept.noisy_latents(twenty)
        lengths = [len(row) for row in adept.decode(released)]
        decode_only = float(
            np.mean(
                [
                    median_seconds(lambda a=adept, r=row: a.decode(r[None, :]), repeats=repeats)
                    for row in released
                ]
            )
        )
        brr_seconds = per_sentence(brr.privatize_batch)
        greedy = per_sentence(adept.privatize_sentences)
        beam_seconds = per_sentence(beam.privatize_sentences)
        batched = median_seconds(lambda a=adept: a.privatize_sentences(batch), repeats=repeats)
        for measure, seconds in (
            ("privatize 1 sentence, greedy", greedy),
            ("decode only, greedy", decode_only),
            ("privatize 1 sentence, beam 4", beam_seconds),
            ("privatize batch of 64, per sentence", batched / len(batch)),
        ):
            single = "batch" not in measure
            report.add(
                measure=measure,
                threads=threads,
                input_tokens=LATENCY_TOKENS if single else "mixed",
                output_tokens_mean=round(float(np.mean(lengths)), 1) if single else "",
                ms_per_sentence=seconds * 1e3,
                ratio_vs_brr=seconds / brr_seconds,
            )
        report.add(
            measure="baseline: BRR privatize 1 sentence",
            threads=threads,
            input_tokens=LATENCY_TOKENS,
            ms_per_sentence=brr_seconds * 1e3,
            ratio_vs_brr=1.0,
        )


def _utility(report: Report, pack, sentences: list[str]) -> None:
    autoencoder = SentenceAutoencoder(pack)
    references = autoencoder.tokenize(sentences)
    reference_words = [words(s) for s in sentences]
    c = pack.clip_norm
    clean = clip_to_l2_ball(autoencoder.encode(references), c)

    def score(
        noise: str, epsilon: float | None, scale: float, released: np.ndarray, decoded: np.ndarray
    ) -> None:
        row: dict = {"noise": noise, "epsilon": epsilon if epsilon is not None else "none"}
        row["scale"] = scale
        row["noise_norm_over_C"] = float(np.linalg.norm(released - clean, axis=1).mean()) / c
        for label, latents, ngram in (
            ("", decoded, 3),
            ("_unblocked", decoded, 0),
            ("_paper", released, 0),
        ):
            ids = autoencoder.decode(latents, no_repeat_ngram=ngram)
            texts = [autoencoder.detokenize(r) for r in ids]
            hypothesis_words = [words(t) for t in texts]
            if not label:
                row["token_acc"] = token_accuracy(references, ids)
                row["word_acc"] = word_accuracy(reference_words, hypothesis_words)
                row["mean_tokens"] = float(np.mean([len(r) for r in ids]))
            row[f"bleu{label}"] = bleu(reference_words, hypothesis_words)
            row[f"repeats{label}"] = repetition_rate(texts)
            row[f"at_limit{label}"] = float(
                np.mean([len(r) >= pack.max_output_tokens for r in ids])
            )
        report.add(**row)

    other = np.roll(clean, len(clean) // 2, 0)
    score("none (NOT private)", None, 0.0, clean, clean)
    score("chance: another sentence's latent", None, 0.0, other, other)
    for noise in ("laplace", "gaussian"):
        for epsilon in EPSILONS:
            adept = _seeded(
                edgedp.ADePT,
                pack,
                epsilon=epsilon,
                noise=noise,
                delta=DELTA if noise == "gaussian" else None,
                rng=7,
            )
            released = adept.noisy_latents(sentences)
            score(noise, epsilon, adept.noise_scale, released, project_to_sphere(released, c))


def _brr(report: Report, brr_pack, sentences: list[str]) -> None:
    reference_words = [words(s) for s in sentences]
    sample = np.random.default_rng(0).integers(len(brr_pack.vocabulary), size=(4000, 2))
    codes = np.asarray(brr_pack.codes)
    mean_distance = float(np.bitwise_count(codes[sample[:, 0]] ^ codes[sample[:, 1]]).sum(1).mean())
    slots = float(np.mean([len(segment(s).words) for s in sentences]))
    matched = [adept / (mean_distance * slots) for adept in MATCHED_ADEPT_EPSILONS]
    for epsilon, adept_epsilon in [
        *((e, "") for e in BRR_EPSILONS),
        *zip(matched, MATCHED_ADEPT_EPSILONS, strict=True),
    ]:
        brr = _seeded(edgedp.BRR, brr_pack, epsilon=epsilon, rng=7)
        outputs = [words(t) for t in brr.privatize_batch(sentences)]
        report.add(
            noise="BRR (word level)",
            epsilon=epsilon,
            matched_adept_epsilon=adept_epsilon,
            word_acc=word_accuracy(reference_words, outputs),
            bleu=bleu(reference_words, outputs),
            sentence_loss_worst=epsilon * brr_pack.bits * slots,
            sentence_loss_average=epsilon * mean_distance * slots,
        )
    report.notes.append(
        f"BRR sentence-level loss for two sentences with the same layout: worst case epsilon * "
        f"{brr_pack.bits} bits * {slots:.1f} words (mean word slots per sentence); average case "
        f"epsilon * {mean_distance:.1f} (mean Hamming distance of two random vocabulary words) * "
        f"{slots:.1f}. Sentences with different layouts (word count, punctuation) are told apart "
        "with certainty: BRR gives no sentence-level guarantee across layouts, ADePT does. "
        "matched_adept_epsilon rows run BRR at epsilon_ADePT / (mean distance * words), where its "
        "average-case sentence loss equals ADePT's epsilon (ADePT's discrete metric on sentences "
        "has privacy ratio 1: every pair of sentences is at distance 1)."
    )


def run(report: Report, *, quick: bool) -> None:
    pack = edgedp.load_pack("adept-bbc")
    brr_pack = edgedp.load_pack()
    sentences = held_out_sentences(pack, 60 if quick else 400)
    data = pack.manifest.data
    size_mb = sum(entry["bytes"] for entry in data["files"].values()) / 2**20
    report.add(
        measure="pack",
        size_mb=size_mb,
        vocabulary=len(pack.vocabulary),
        latent_dims=pack.latent_dims,
        clip_norm=pack.clip_norm,
        validation_loss=data["training"]["validation_loss"],
    )
    start = time.perf_counter()
    _latency(report, pack, brr_pack, sentences, quick)
    edgedp.set_num_threads(2)
    _utility(report, pack, sentences)
    _brr(report, brr_pack, sentences)
    d, c = pack.latent_dims, pack.clip_norm
    report.notes += [
        f"{len(sentences)} sentences of the BBC News test split (3 to {pack.max_input_tokens} "
        f"tokens); pack {pack.name}: d = {d}, C = {c}, {size_mb:.1f} MiB; suite ran "
        f"{time.perf_counter() - start:.0f} s",
        f"Laplace: scale per coordinate 2C*sqrt(d)/epsilon = {2 * c * math.sqrt(d):.3f}/epsilon "
        f"(the paper's 2C/epsilon = {2 * c:.1f}/epsilon would be sqrt(d) = {math.sqrt(d):.2f} "
        f"times too little noise). Gaussian: analytic sigma for L2 sensitivity 2C, delta {DELTA}.",
        "noise_norm_over_C: mean L2 norm of the noise over the clipping radius; above ~1 the "
        "output is a sentence about something else. token_acc: WordPiece ids position by position "
        "over the longer length; bleu: corpus BLEU-4 of output words against input words; "
        "repeats: outputs with an immediate word repetition or a repeated word 3-gram; at_limit: "
        "outputs cut at the 48-token limit. Three decodings of the same release: ADePT's (rescaled "
        "to norm C, repetition blocking), _unblocked (rescaled, no blocking), _paper (the raw noisy "
        "latent, no blocking: the paper's decoder).",
        "targets (issue 6): decoder pack <= 25 MB; <= 30 ms per 20-token sentence on one thread",
    ]
