"""Training the sentence autoencoder: length-bucketed batches, teacher forcing, validation per epoch.

The loss is the mean cross-entropy per target token (nats) of reconstructing ``[label] tokens [EOS]``
from the clipped latent of the encoded ``[label] tokens``, plus (weighted) the cross-entropy of the
same tokens under the bag-of-words head, which reads the latent only; validation reports the
reconstruction loss alone. Word dropout replaces decoder inputs by
[UNK] with a small probability so that the decoder leans on the latent rather than on its own
history. Adam with a cosine learning-rate decay; the weights of the epoch with the lowest validation
loss are kept. Deterministic for a seed and a thread count (torch's CPU kernels may sum in another
order with another thread count).
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.nn import functional
from tqdm import tqdm

from edgedp_export.seq2seq_autoencoder import Seq2SeqAutoencoder


@dataclass(frozen=True)
class TrainingSettings:
    epochs: int
    batch_size: int
    learning_rate: float
    word_dropout: float
    bag_of_words_weight: float
    seed: int
    threads: int


@dataclass(frozen=True)
class Example:
    """Encoder input and decoder target of one sentence (token ids)."""

    source: tuple[int, ...]
    target: tuple[int, ...]


@dataclass
class TrainingResult:
    history: list[dict[str, Any]] = field(default_factory=list)
    best_epoch: int = 0
    validation_loss: float = math.inf
    validation_token_accuracy: float = 0.0
    seconds: float = 0.0


@dataclass(frozen=True)
class Batch:
    tokens: torch.Tensor
    lengths: torch.Tensor
    decoder_inputs: torch.Tensor
    targets: torch.Tensor


def make_batch(examples: Sequence[Example], *, pad_id: int, bos_id: int) -> Batch:
    """Right-padded tensors of a list of examples."""
    count = len(examples)
    source_len = max(len(example.source) for example in examples)
    target_len = max(len(example.target) for example in examples)
    tokens = torch.full((count, source_len), pad_id, dtype=torch.long)
    decoder_inputs = torch.full((count, target_len), pad_id, dtype=torch.long)
    targets = torch.full((count, target_len), pad_id, dtype=torch.long)
    for row, example in enumerate(examples):
        tokens[row, : len(example.source)] = torch.tensor(example.source)
        target = torch.tensor(example.target)
        targets[row, : len(target)] = target
        decoder_inputs[row, 0] = bos_id
        decoder_inputs[row, 1 : len(target)] = target[:-1]
    lengths = torch.tensor([len(example.source) for example in examples], dtype=torch.long)
    return Batch(tokens, lengths, decoder_inputs, targets)


def bucketed_batches(
    examples: Sequence[Example], batch_size: int, *, pad_id: int, bos_id: int
) -> list[Batch]:
    """Batches of examples of similar length (less padding), in length order."""
    ordered = sorted(examples, key=lambda example: (len(example.source), example.source))
    return [
        make_batch(ordered[start : start + batch_size], pad_id=pad_id, bos_id=bos_id)
        for start in range(0, len(ordered), batch_size)
    ]


def _losses(
    model: Seq2SeqAutoencoder, batch: Batch, decoder_inputs: torch.Tensor, pad_id: int
) -> tuple[torch.Tensor, torch.Tensor, int, int]:
    """Summed reconstruction and bag-of-words losses, correct predictions, target tokens."""
    logits, latent = model(batch.tokens, batch.lengths, decoder_inputs)
    mask = batch.targets != pad_id
    loss = functional.cross_entropy(
        logits.reshape(-1, logits.shape[-1]),
        batch.targets.reshape(-1),
        ignore_index=pad_id,
        reduction="sum",
    )
    bag = functional.log_softmax(model.bag_of_words(latent), dim=-1).gather(1, batch.targets)
    hits = int(((logits.argmax(-1) == batch.targets) & mask).sum())
    return loss, -(bag * mask).sum(), hits, int(mask.sum())


def evaluate(
    model: Seq2SeqAutoencoder, batches: Sequence[Batch], pad_id: int
) -> tuple[float, float]:
    """Mean loss per target token and teacher-forced token accuracy."""
    model.eval()
    total_loss, total_hits, total_tokens = 0.0, 0, 0
    with torch.no_grad():
        for batch in batches:
            loss, _, hits, tokens = _losses(model, batch, batch.decoder_inputs, pad_id)
            total_loss += loss.item()
            total_hits += hits
            total_tokens += tokens
    return total_loss / total_tokens, total_hits / total_tokens


def train(
    model: Seq2SeqAutoencoder,
    training: Sequence[Batch],
    validation: Sequence[Batch],
    settings: TrainingSettings,
    *,
    pad_id: int,
    unk_id: int,
) -> TrainingResult:
    """Train ``model`` in place; it ends with the weights of its best validation epoch."""
    torch.set_num_threads(settings.threads)
    generator = torch.Generator().manual_seed(settings.seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=settings.learning_rate)
    total_steps = settings.epochs * len(training)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * step / total_steps))
    )
    result = TrainingResult()
    best_state = copy.deepcopy(model.state_dict())
    start = time.perf_counter()
    for epoch in range(1, settings.epochs + 1):
        model.train()
        order = torch.randperm(len(training), generator=generator).tolist()
        progress = tqdm(order, desc=f"epoch {epoch}/{settings.epochs}", unit="batch")
        running_loss, running_tokens = 0.0, 0
        for index in progress:
            batch = training[index]
            inputs = batch.decoder_inputs
            if settings.word_dropout > 0:
                dropped = torch.rand(inputs.shape, generator=generator) < settings.word_dropout
                dropped[:, 0] = False  # keep [BOS]
                inputs = torch.where(dropped & (inputs != pad_id), unk_id, inputs)
            loss, bag_loss, _, tokens = _losses(model, batch, inputs, pad_id)
            optimizer.zero_grad()
            ((loss + settings.bag_of_words_weight * bag_loss) / tokens).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            running_loss += loss.item()
            running_tokens += tokens
            progress.set_postfix(loss=f"{running_loss / running_tokens:.3f}")
        validation_loss, accuracy = evaluate(model, validation, pad_id)
        entry = {
            "epoch": epoch,
            "training_loss": round(running_loss / running_tokens, 4),
            "validation_loss": round(validation_loss, 4),
            "validation_token_accuracy": round(accuracy, 4),
        }
        result.history.append(entry)
        tqdm.write(
            f"epoch {epoch}: training loss {entry['training_loss']:.4f}, validation loss "
            f"{validation_loss:.4f} nats/token (perplexity {math.exp(validation_loss):.1f}), "
            f"teacher-forced token accuracy {accuracy:.3f}"
        )
        if validation_loss < result.validation_loss:
            result.best_epoch, result.validation_loss = epoch, validation_loss
            result.validation_token_accuracy = accuracy
            best_state = copy.deepcopy(model.state_dict())
    model.load_state_dict(best_state)
    model.eval()
    result.seconds = time.perf_counter() - start
    return result
