"""Sign codes trained for BRR's heavy-noise regime (issue 28), in torch.

BRR releases the vocabulary word whose code is nearest to the input's code with every bit flipped
with probability p = 1 / (1 + e^epsilon). When p is near 1/2 (BBC News: 93 % of words changed, as
Madlib at epsilon 5), the noisy code lies far from its input, and with random-hyperplane or
autoencoder codes the nearest of 100,000 codes is mostly an unrelated word. These codes are the
signs of a learned linear map W x of the centred vectors, trained so that the nearest code to a
*noised* code is the input or one of its 10 cosine nearest neighbours in the float space:

* queries: words drawn by Zipf's law from the :data:`FREQUENT` most frequent (vocabulary order);
* each step flips every bit of the queries' codes with a probability drawn from ``flips``, scores
  candidates by agreement with the noisy code (the decoder's own score, over the standard deviation
  of its noise), and minimises the softmax cross-entropy of the positives (the input and its
  neighbours) against :data:`NEGATIVES` uniformly drawn vocabulary words, corrected by
  log(vocabulary / negatives) to stand for the whole vocabulary (sampled softmax);
* the sign is straight-through on tanh(gamma W x / ||W||), gamma annealed from 1 to 5.

The codes are public (they depend only on the public vectors); the training does not change BRR's
guarantee, only which words lie near each other in Hamming distance. Deterministic for a seed (one
thread, deterministic algorithms, seeded generators). What it gives on BBC News is in
``bench/README.md`` (brr-parity).
"""

from __future__ import annotations

import math

import numpy as np
from tqdm import tqdm

from edgedp_export.onnx_export import require_torch

FREQUENT, NEIGHBOURS, NEGATIVES = 30_000, 10, 2_048
#: The default range of bit-flip probabilities: BRR at 0.32-0.71 per bit (93-94 % of BBC words
#: changed with 256-bit and with 128-bit codes).
HEAVY_NOISE_FLIPS = (0.33, 0.42)


def cosine_neighbourhoods(centred: np.ndarray, count: int) -> np.ndarray:
    """Each of the first ``count`` words with its :data:`NEIGHBOURS` cosine nearest neighbours
    (exact FAISS inner-product search; column 0 is the word itself)."""
    import faiss

    norms = np.linalg.norm(centred, axis=1, keepdims=True)
    unit = np.ascontiguousarray(centred / np.where(norms == 0, 1.0, norms), dtype=np.float32)
    index = faiss.IndexFlatIP(unit.shape[1])
    index.add(unit)
    _, found = index.search(unit[:count], NEIGHBOURS + 1)
    found[:, 0] = np.arange(count)  # a duplicate vector may outrank the word itself
    return found.astype(np.int64)


def train_flip_projection(
    vectors: np.ndarray,
    bits: int,
    *,
    seed: int,
    steps: int = 600,
    flips: tuple[float, float] = HEAVY_NOISE_FLIPS,
    batch_size: int = 128,
    learning_rate: float = 0.01,
) -> tuple[np.ndarray, list[float]]:
    """Train on ``vectors`` and return (unit hyperplane normals of shape (dims, bits), the loss
    every 50 steps)."""
    torch = require_torch("flip-trained")
    centred = np.asarray(vectors, np.float64) - np.asarray(vectors, np.float64).mean(0)
    count, dims = centred.shape
    frequent = min(FREQUENT, count)
    neighbourhoods = torch.from_numpy(cosine_neighbourhoods(centred, frequent))
    zipf = torch.tensor(1.0 / np.arange(1, frequent + 1), dtype=torch.float64)
    generator = torch.Generator().manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    previous_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        inputs = torch.from_numpy(np.ascontiguousarray(centred, dtype=np.float32))
        start = torch.randn(dims, bits, generator=generator) * (3.0 / math.sqrt(dims))
        weights = torch.nn.Parameter(start)
        optimizer = torch.optim.Adam([weights], lr=learning_rate)
        negatives = min(NEGATIVES, count)
        correction = math.log(count / negatives)
        history = []
        for step in tqdm(range(steps), desc=f"flip-trained codes ({bits} bits)", unit="step"):
            gamma = 1.0 + 4.0 * step / steps

            def signs(rows: torch.Tensor, gamma: float = gamma) -> torch.Tensor:
                soft = torch.tanh(gamma * (rows @ weights) / weights.norm(dim=0).clamp_min(1e-6))
                return torch.sign(soft).detach() + soft - soft.detach()  # straight-through

            queries = torch.multinomial(zipf, batch_size, replacement=True, generator=generator)
            drawn = torch.randint(0, count, (negatives,), generator=generator)
            positives = signs(inputs[neighbourhoods[queries].reshape(-1)])
            positives = positives.reshape(batch_size, NEIGHBOURS + 1, bits)
            flip = torch.empty(batch_size, 1).uniform_(*flips, generator=generator)
            noise = torch.where(torch.rand(batch_size, bits, generator=generator) < flip, -1.0, 1.0)
            noisy = signs(inputs[queries]) * noise
            scale = 1.0 / torch.sqrt(bits * flip * (1.0 - flip))  # noise std of a score
            positive = torch.einsum("bd,bkd->bk", noisy, positives) * scale
            negative = (noisy @ signs(inputs[drawn]).T) * scale + correction
            everything = torch.cat([positive, negative], dim=1)
            loss = (torch.logsumexp(everything, 1) - torch.logsumexp(positive, 1)).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % 50 == 0:
                history.append(float(loss.item()))
        normals = weights.detach() / weights.detach().norm(dim=0)
        return normals.numpy().astype(np.float64), history
    finally:
        torch.set_num_threads(previous_threads)


def flip_trained_codes(vectors: np.ndarray, bits: int, seed: int) -> np.ndarray:
    """Packed codes (uint8, big-endian bit order): the signs of the centred vectors projected on
    the trained normals."""
    normals, _ = train_flip_projection(vectors, bits, seed=seed)
    centred = np.asarray(vectors, dtype=np.float64) - np.asarray(vectors, np.float64).mean(0)
    return np.packbits(centred @ normals > 0.0, axis=1, bitorder="big")
