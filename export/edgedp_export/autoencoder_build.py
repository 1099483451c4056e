"""Building an ``autoencoder`` pack: sentences, vocabulary, training, ONNX export, checks, writing.

Steps: public documents (their train and validation splits, see :mod:`edgedp_export.corpus`) ->
sentences (:func:`edgedp.text.sentences.split_sentences`) -> the subword vocabulary
(:mod:`edgedp_export.subword_vocabulary`) -> training with latent clipping at C
(:mod:`edgedp_export.autoencoder_training`) -> ONNX encoder and decoder step, checked against torch
(:mod:`edgedp_export.autoencoder_onnx`) -> reconstruction statistics measured through the edgedp
runtime -> a verified pack. Deterministic for a seed and a thread count.
"""

from __future__ import annotations

import importlib.metadata
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

import edgedp
from edgedp.adept.autoencoder import SentenceAutoencoder
from edgedp.adept.pack import (
    BOS_ID,
    EOS_ID,
    PAD_ID,
    SPECIAL_TOKENS,
    UNK_ID,
    AutoencoderPack,
    wordpiece_tokenizer,
)
from edgedp.errors import InputError
from edgedp.text.sentences import split_sentences
from edgedp_export.autoencoder_config import AdeptConfig
from edgedp_export.autoencoder_onnx import check_parity, export_onnx
from edgedp_export.autoencoder_training import (
    Example,
    TrainingSettings,
    bucketed_batches,
    train,
)
from edgedp_export.corpus import PublicCorpus
from edgedp_export.onnx_export import OPSET
from edgedp_export.pack_writer import FileWriter, lines_writer, write_pack
from edgedp_export.reconstruction import reconstruction_accuracy
from edgedp_export.seq2seq_autoencoder import Seq2SeqAutoencoder
from edgedp_export.subword_vocabulary import build_subword_vocabulary

#: Validation sentences decoded through the runtime for the manifest's reconstruction figures.
EVALUATION_SENTENCES = 500
PARITY_BATCHES = 4


@dataclass(frozen=True)
class LabeledSentence:
    label: str | None
    text: str


def corpus_sentences(corpus: PublicCorpus, split: str) -> list[LabeledSentence]:
    """The sentences of one split's documents, in corpus order."""
    return [
        LabeledSentence(document.label, sentence)
        for document in tqdm(corpus.split(split), desc=f"{split} sentences", unit="doc")
        for sentence in split_sentences(document.text)
    ]


def _examples(
    sentences: list[LabeledSentence], tokenizer, label_ids: dict[str, int] | None, limit: int
) -> tuple[list[Example], int]:
    """Encoder inputs and decoder targets; sentences longer than ``limit`` tokens are skipped."""
    examples, skipped = [], 0
    encodings = tokenizer.encode_batch([item.text for item in sentences], add_special_tokens=False)
    for item, encoding in zip(sentences, encodings, strict=True):
        if not 1 <= len(encoding.ids) <= limit:
            skipped += 1
            continue
        prefix = () if label_ids is None else (label_ids[item.label],)
        source = prefix + tuple(encoding.ids)
        examples.append(Example(source, (*source, EOS_ID)))
    return examples, skipped


def _bytes_writer(data: bytes) -> FileWriter:
    return lambda path: path.write_bytes(data)


def _versions() -> dict[str, str]:
    return {
        name: importlib.metadata.version(name)
        for name in ("edgedp-export", "torch", "onnx", "onnxruntime", "tokenizers", "numpy")
    }


def build_autoencoder_pack(
    corpus: PublicCorpus, config: AdeptConfig, out: Path, *, force: bool
) -> Path:
    """Train, export, check and write an ``autoencoder`` pack at ``out``."""
    training_sentences = corpus_sentences(corpus, "train")
    validation_sentences = corpus_sentences(corpus, "validation")
    if config.max_sentences is not None:
        training_sentences = training_sentences[: config.max_sentences]
        validation_sentences = validation_sentences[: max(1, config.max_sentences // 10)]
    # BBC News repeats articles across document ids (13 % of its validation sentences also occur
    # in training); a sentence the model was trained on says nothing about generalization.
    seen = {item.text for item in training_sentences}
    held_out = [item for item in validation_sentences if item.text not in seen]
    seen_in_training = len(validation_sentences) - len(held_out)
    validation_sentences = held_out
    if not training_sentences or not validation_sentences:
        raise InputError(
            "the corpus gives no training sentences, or no validation sentences that do not also "
            "occur in training"
        )
    labels: list[str] = []
    if config.labels:
        if any(item.label is None for item in training_sentences + validation_sentences):
            raise InputError("--labels needs a label on every document (BBC topics, JSONL label)")
        labels = sorted({item.label for item in training_sentences + validation_sentences})
    vocabulary = build_subword_vocabulary(
        [item.text for item in training_sentences],
        labels,
        min_count=config.min_count,
        max_tokens=config.max_vocabulary,
    )
    tokens = vocabulary.tokens
    tokenizer = wordpiece_tokenizer(tokens)
    label_ids = (
        {label: len(SPECIAL_TOKENS) + index for index, label in enumerate(labels)}
        if labels
        else None
    )
    content_limit = config.max_tokens
    training, skipped = _examples(training_sentences, tokenizer, label_ids, content_limit)
    validation, _ = _examples(validation_sentences, tokenizer, label_ids, content_limit)
    tqdm.write(
        f"{len(training):,} training and {len(validation):,} validation sentences "
        f"({skipped:,} longer than {content_limit} tokens skipped), vocabulary {len(tokens):,}"
    )
    torch.manual_seed(config.seed)
    torch.use_deterministic_algorithms(True)
    model = Seq2SeqAutoencoder(
        len(tokens),
        cell=config.cell,
        embedding_dims=config.embedding_dims,
        encoder_hidden=config.encoder_hidden,
        decoder_hidden=config.decoder_hidden,
        latent_dims=config.latent_dims,
        clip_norm=config.clip_norm,
        pad_id=PAD_ID,
    )
    settings = TrainingSettings(
        epochs=config.epochs,
        batch_size=config.batch_size,
        learning_rate=config.learning_rate,
        word_dropout=config.word_dropout,
        bag_of_words_weight=config.bag_of_words,
        seed=config.seed,
        threads=config.threads,
    )
    training_batches = bucketed_batches(training, config.batch_size, pad_id=PAD_ID, bos_id=BOS_ID)
    validation_batches = bucketed_batches(
        validation, config.batch_size, pad_id=PAD_ID, bos_id=BOS_ID
    )
    result = train(
        model, training_batches, validation_batches, settings, pad_id=PAD_ID, unk_id=UNK_ID
    )
    tqdm.write(f"training took {result.seconds / 60:.1f} min (best epoch {result.best_epoch})")
    with tempfile.TemporaryDirectory() as scratch:
        encoder_path, step_path = Path(scratch) / "encoder.onnx", Path(scratch) / "step.onnx"
        export_onnx(model, encoder_path, step_path)
        parity_batches = validation_batches[:: max(1, len(validation_batches) // PARITY_BATCHES)]
        parity = check_parity(model, encoder_path, step_path, parity_batches[:PARITY_BATCHES])
        files = {
            "vocab.txt": lines_writer(tokens),
            "encoder.onnx": _bytes_writer(encoder_path.read_bytes()),
            "decoder_step.onnx": _bytes_writer(step_path.read_bytes()),
        }
    manifest = {
        "kind": "autoencoder",
        "name": config.name,
        "description": (
            f"{config.cell.upper()} sequence-to-sequence sentence autoencoder for ADePT, latent "
            f"d={config.latent_dims} clipped to L2 norm C={config.clip_norm}, "
            f"{len(tokens):,} WordPiece tokens, trained on {corpus.provenance['name']}"
        ),
        "source": {
            **corpus.provenance,
            "use_in_this_pack": (
                "training and validation splits only; no text is shipped, but the decoder learned "
                "from these documents and can write phrases seen in them, and the vocabulary holds "
                "their frequent WordPiece tokens: the corpus licence applies to this pack"
            ),
        },
        "build_command": config.command,
        "built_with": _versions(),
        "vocabulary": {
            "file": "vocab.txt",
            "size": len(tokens),
            "labels": labels,
            "special_tokens": list(SPECIAL_TOKENS),
            "tokenizer": "BERT uncased WordPiece (edgedp.adept.pack.wordpiece_tokenizer)",
            "selection": vocabulary.provenance,
        },
        "model": {
            "cell": config.cell,
            "latent_dims": config.latent_dims,
            "clip_norm": config.clip_norm,
            "embedding_dims": config.embedding_dims,
            "encoder_hidden": config.encoder_hidden,
            "decoder_hidden": config.decoder_hidden,
            "state_size": model.state_size,
            "max_input_tokens": config.max_tokens,
            "max_output_tokens": config.max_tokens + (1 if labels else 0),
            "encoder": "encoder.onnx",
            "decoder_step": "decoder_step.onnx",
            "onnx_opset": OPSET,
            "onnx_parity_max_abs_error": float(f"{parity:.3g}"),
        },
        "training": {
            "settings": {
                key: value
                for key, value in asdict(config).items()
                if key not in ("name", "command", "max_tokens")
            },
            "clipping": "z * min(1, C / ||z||_2) on every latent during training, no noise",
            "sentences": len(training),
            "validation_sentences": len(validation),
            "validation_sentences_dropped_as_seen_in_training": seen_in_training,
            "skipped_longer_than_max_tokens": skipped,
            "target_tokens": sum(len(example.target) for example in training),
            "history": result.history,
            "best_epoch": result.best_epoch,
            "validation_loss": round(result.validation_loss, 4),
            "validation_loss_unit": "nats per target token (teacher forcing)",
            "validation_token_accuracy": round(result.validation_token_accuracy, 4),
        },
    }
    with tempfile.TemporaryDirectory() as scratch:
        draft = edgedp.load_pack(write_pack(Path(scratch) / config.name, manifest, files))
        manifest["evaluation"] = _evaluate(draft, validation_sentences)
    return write_pack(out, manifest, files, force=force)


def _evaluate(pack: AutoencoderPack, sentences: list[LabeledSentence]) -> dict[str, Any]:
    """Noise-free greedy reconstruction through the runtime of held-out validation sentences."""
    if pack.labels:
        return {
            "note": "reconstruction statistics are measured by bench/utility/adept.py for label packs"
        }
    autoencoder = SentenceAutoencoder(pack)
    texts = [item.text for item in sentences[:EVALUATION_SENTENCES]]
    norms = np.linalg.norm(autoencoder.encode(autoencoder.tokenize(texts)), axis=1)
    return {
        "validation_sentences": len(texts),
        "greedy_token_accuracy": round(reconstruction_accuracy(autoencoder, texts), 4),
        "chance_token_accuracy": round(reconstruction_accuracy(autoencoder, texts, chance=True), 4),
        "latent_norm_median": round(float(np.median(norms)), 4),
        "latent_clipped_fraction": round(float((norms > pack.clip_norm).mean()), 4),
    }
