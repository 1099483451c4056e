"""The sequence-to-sequence sentence autoencoder of ADePT (Krishna et al., Sec. 4.2), in torch.

* Encoder: token embeddings read by two unidirectional GRUs (or LSTMs), one over the sentence and
  one over the sentence reversed within its length (a bidirectional reader that needs no packed
  sequences, so it exports to the ONNX GRU/LSTM operator with dynamic length); the two final states
  are mapped linearly to the latent z in R^d.
* Clipping: z <- z * min(1, C / ||z||_2) during training, as in the paper, so that the decoder learns
  from latents inside the ball the mechanism releases from. No noise is added in training.
* Decoder: a GRU (or LSTM) started from a zero state; every step reads the previous token's embedding
  and z, and predicts the next token from its state and z through a projection onto the (tied) token
  embeddings. :class:`DecoderStep` is one step of it, the unit that is exported to ONNX.
* Training also predicts the sentence's bag of tokens from z alone (a head that is not exported),
  which pushes content into the 32 numbers of the latent sooner than reconstruction alone.
"""

from __future__ import annotations

import torch
from torch import nn

from edgedp.adept.pack import CELLS


def clip_to_ball(latent: torch.Tensor, radius: float) -> torch.Tensor:
    """Scale each row into the L2 ball of ``radius`` (rows inside it are unchanged)."""
    norms = latent.norm(dim=-1, keepdim=True)
    return latent * torch.clamp(radius / norms.clamp_min(1e-12), max=1.0)


def last_states(outputs: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """``outputs[b, lengths[b] - 1]`` for every row b of a (batch, time, hidden) tensor."""
    index = (lengths - 1).clamp(min=0).view(-1, 1, 1).expand(-1, 1, outputs.shape[2])
    return outputs.gather(1, index).squeeze(1)


def reverse_within_length(tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Each row's first ``lengths[b]`` tokens in reverse order, padding left where it was."""
    positions = torch.arange(tokens.shape[1], device=tokens.device).unsqueeze(0)
    mirrored = lengths.unsqueeze(1) - 1 - positions
    return tokens.gather(1, torch.where(mirrored >= 0, mirrored, positions))


class Seq2SeqAutoencoder(nn.Module):
    """Encoder, latent clipping and teacher-forced decoder (see the module docstring)."""

    def __init__(
        self,
        vocabulary_size: int,
        *,
        cell: str,
        embedding_dims: int,
        encoder_hidden: int,
        decoder_hidden: int,
        latent_dims: int,
        clip_norm: float,
        pad_id: int,
    ) -> None:
        super().__init__()
        if cell not in CELLS:
            raise ValueError(f"cell must be one of {CELLS}")
        rnn = nn.GRU if cell == "gru" else nn.LSTM
        self.cell = cell
        self.clip_norm = clip_norm
        self.decoder_hidden = decoder_hidden
        self.embedding = nn.Embedding(vocabulary_size, embedding_dims, padding_idx=pad_id)
        self.forward_reader = rnn(embedding_dims, encoder_hidden, batch_first=True)
        self.backward_reader = rnn(embedding_dims, encoder_hidden, batch_first=True)
        self.to_latent = nn.Linear(2 * encoder_hidden, latent_dims)
        self.decoder = rnn(embedding_dims + latent_dims, decoder_hidden, batch_first=True)
        self.to_embedding = nn.Linear(decoder_hidden + latent_dims, embedding_dims)
        self.output_bias = nn.Parameter(torch.zeros(vocabulary_size))
        #: Training only (never exported): predicts the sentence's tokens from z alone, a direct
        #: signal that makes the latent carry the content (bag-of-words loss, Zhao et al. 2017).
        self.bag_of_words = nn.Linear(latent_dims, vocabulary_size)

    @property
    def state_size(self) -> int:
        """Size of the decoder state passed between steps (LSTM: hidden and cell, concatenated)."""
        return self.decoder_hidden * (2 if self.cell == "lstm" else 1)

    def encode(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """The unclipped latent of each right-padded token row."""
        forward_out, _ = self.forward_reader(self.embedding(tokens))
        backward_tokens = reverse_within_length(tokens, lengths)
        backward_out, _ = self.backward_reader(self.embedding(backward_tokens))
        both = torch.cat([last_states(forward_out, lengths), last_states(backward_out, lengths)], 1)
        return self.to_latent(both)

    def logits(self, hidden: torch.Tensor, latent: torch.Tensor) -> torch.Tensor:
        projected = torch.tanh(self.to_embedding(torch.cat([hidden, latent], dim=-1)))
        return projected @ self.embedding.weight.T + self.output_bias

    def decode(self, latent: torch.Tensor, inputs: torch.Tensor) -> torch.Tensor:
        """Teacher-forced logits (batch, time, vocabulary) for decoder ``inputs`` given ``latent``."""
        repeated = latent.unsqueeze(1).expand(-1, inputs.shape[1], -1)
        outputs, _ = self.decoder(torch.cat([self.embedding(inputs), repeated], dim=-1))
        return self.logits(outputs, repeated)

    def forward(
        self, tokens: torch.Tensor, lengths: torch.Tensor, decoder_inputs: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Teacher-forced logits and the clipped latent they were decoded from."""
        latent = clip_to_ball(self.encode(tokens, lengths), self.clip_norm)
        return self.decode(latent, decoder_inputs), latent


class Encoder(nn.Module):
    """The exported encoder: tokens, lengths -> unclipped latent (the runtime clips)."""

    def __init__(self, model: Seq2SeqAutoencoder) -> None:
        super().__init__()
        self.model = model

    def forward(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return self.model.encode(tokens, lengths)


class DecoderStep(nn.Module):
    """One decoder step with the recurrent cell written out (exports to plain ONNX operators).

    token (batch), state (batch, state_size), latent (batch, d) -> log-probabilities over the
    vocabulary and the next state. The gate equations are torch's GRU/LSTM equations with the
    trained ``model.decoder`` weights, so stepping reproduces the teacher-forced decoder.
    """

    def __init__(self, model: Seq2SeqAutoencoder) -> None:
        super().__init__()
        self.model = model

    def forward(
        self, token: torch.Tensor, state: torch.Tensor, latent: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        rnn = self.model.decoder
        inputs = torch.cat([self.model.embedding(token), latent], dim=-1)
        gates_in = inputs @ rnn.weight_ih_l0.T + rnn.bias_ih_l0
        hidden_size = self.model.decoder_hidden
        if self.model.cell == "gru":
            gates_h = state @ rnn.weight_hh_l0.T + rnn.bias_hh_l0
            in_r, in_z, in_n = gates_in.chunk(3, dim=-1)
            h_r, h_z, h_n = gates_h.chunk(3, dim=-1)
            reset = torch.sigmoid(in_r + h_r)
            update = torch.sigmoid(in_z + h_z)
            candidate = torch.tanh(in_n + reset * h_n)
            hidden = (1 - update) * candidate + update * state
            next_state = hidden
        else:
            previous_hidden, previous_cell = state[:, :hidden_size], state[:, hidden_size:]
            gates = gates_in + previous_hidden @ rnn.weight_hh_l0.T + rnn.bias_hh_l0
            in_gate, forget_gate, cell_gate, out_gate = gates.chunk(4, dim=-1)
            cell = torch.sigmoid(forget_gate) * previous_cell + torch.sigmoid(in_gate) * torch.tanh(
                cell_gate
            )
            hidden = torch.sigmoid(out_gate) * torch.tanh(cell)
            next_state = torch.cat([hidden, cell], dim=-1)
        log_probs = torch.log_softmax(self.model.logits(hidden, latent), dim=-1)
        return log_probs, next_state
