"""Exporting the trained autoencoder to ONNX (encoder + one decoder step) and checking the export.

Both graphs are exported with the dynamo exporter (opset 18) with dynamic batch (and, for the
encoder, sequence) axes; the input and output names are those :mod:`edgedp.adept.autoencoder` expects.
:func:`check_parity` runs the exported graphs with onnxruntime against torch on real sentences: the
encoder's latents and the decoder's teacher-forced log-probabilities, step by step.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnxruntime
import torch

from edgedp.adept.autoencoder import DECODER_STEP_IO, ENCODER_IO
from edgedp.errors import InputError
from edgedp_export.autoencoder_training import Batch
from edgedp_export.onnx_export import export_onnx as export_graph
from edgedp_export.seq2seq_autoencoder import DecoderStep, Encoder, Seq2SeqAutoencoder, clip_to_ball

#: Largest difference between onnxruntime and torch accepted by the parity check.
PARITY_TOLERANCE = 1e-3


def export_onnx(model: Seq2SeqAutoencoder, encoder_path: Path, decoder_step_path: Path) -> None:
    """Write the encoder and the decoder step of ``model`` as ONNX files."""
    model.eval()
    batch, time = torch.export.Dim("batch", min=1), torch.export.Dim("time", min=1)
    tokens = torch.tensor([[5, 6, 7], [8, 9, 0]], dtype=torch.long)
    lengths = torch.tensor([3, 2], dtype=torch.long)
    export_graph(
        Encoder(model),
        (tokens, lengths),
        encoder_path,
        input_names=ENCODER_IO[0],
        output_names=ENCODER_IO[1],
        dynamic_shapes={"tokens": {0: batch, 1: time}, "lengths": {0: batch}},
    )
    latent_dims = model.to_latent.out_features
    step_args = (
        torch.tensor([5, 6], dtype=torch.long),
        torch.zeros(2, model.state_size),
        torch.zeros(2, latent_dims),
    )
    export_graph(
        DecoderStep(model),
        step_args,
        decoder_step_path,
        input_names=DECODER_STEP_IO[0],
        output_names=DECODER_STEP_IO[1],
        dynamic_shapes={"token": {0: batch}, "state": {0: batch}, "latent": {0: batch}},
    )


def check_parity(
    model: Seq2SeqAutoencoder,
    encoder_path: Path,
    decoder_step_path: Path,
    batches: Sequence[Batch],
) -> float:
    """Largest |onnxruntime - torch| over latents and step log-probabilities; raises if too large."""
    encoder = onnxruntime.InferenceSession(str(encoder_path), providers=["CPUExecutionProvider"])
    step = onnxruntime.InferenceSession(str(decoder_step_path), providers=["CPUExecutionProvider"])
    worst = 0.0
    with torch.no_grad():
        for batch in batches:
            latent = model.encode(batch.tokens, batch.lengths)
            (onnx_latent,) = encoder.run(
                None, {"tokens": batch.tokens.numpy(), "lengths": batch.lengths.numpy()}
            )
            worst = max(worst, float(np.abs(onnx_latent - latent.numpy()).max()))
            clipped = clip_to_ball(latent, model.clip_norm)
            expected = torch.log_softmax(model.decode(clipped, batch.decoder_inputs), -1).numpy()
            state = np.zeros((len(batch.tokens), model.state_size), dtype=np.float32)
            for position in range(batch.decoder_inputs.shape[1]):
                log_probs, state = step.run(
                    None,
                    {
                        "token": batch.decoder_inputs[:, position].numpy(),
                        "state": state,
                        "latent": clipped.numpy(),
                    },
                )
                worst = max(worst, float(np.abs(log_probs - expected[:, position]).max()))
    if worst > PARITY_TOLERANCE:
        raise InputError(f"ONNX export differs from torch by {worst:.2e} (> {PARITY_TOLERANCE})")
    return worst
