"""The cluster-preserving recoder H of DeepCandidate (SentDP Sec. 4.3), trained on public documents.

The sentence encoder G stays frozen. k-means (``faiss.Kmeans``, n_c = 50 by default) on the public
training documents' mean embeddings labels every document with a cluster; H (an MLP R^d -> R^d with
4 linear layers, as in the paper) and a linear head L are trained together with Adam so that
L(mean of H(G(s)) over a document's sentences) predicts the document's cluster (cross-entropy). The
number of epochs is the one with the lowest cross-entropy on the public validation documents
(labelled by their nearest centroid). Only H is exported (ONNX, input ``embeddings`` (n, d), output
``recoded`` (n, d)); L is discarded.

Training is seeded and runs on one thread with deterministic algorithms, so a rebuild reproduces it.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import faiss
import numpy as np
from tqdm import tqdm

from edgedp.errors import InputError
from edgedp_export.onnx_export import export_onnx, require_torch

LAYERS = 4
RECODER_INPUT = "embeddings"
RECODER_OUTPUT = "recoded"


@dataclass(frozen=True)
class RecoderTraining:
    """The trained H (a torch module) and how it was trained, for the manifest."""

    module: Any
    summary: dict[str, Any]


#: faiss's k-means asks for this many training points per centroid (its default).
FAISS_POINTS_PER_CENTROID = 39


def thin_clusters_warning(documents: int, clusters: int) -> str:
    """The warning of a recoder asked for more clusters than ``documents`` can fill.

    Parameters
    ----------
    documents : int
        Training documents (>= 1).
    clusters : int
        k-means clusters asked for (``--clusters``).

    Returns
    -------
    str
        One line: what the clusters are for, what is thin, and the two fixes with their numbers.
    """
    fewer = max(2, documents // FAISS_POINTS_PER_CENTROID)
    return (
        f"edgedp-export: warning: DeepCandidate's recoder H is trained to keep {clusters} "
        "clusters of similar documents apart (groups k-means finds among the training documents; "
        f"--clusters), but {documents} training documents make about "
        f"{max(1, round(documents / clusters))} a cluster where k-means wants "
        f"{FAISS_POINTS_PER_CENTROID}: the clusters are thin and H may blur what tells your "
        f"documents apart; give {FAISS_POINTS_PER_CENTROID * clusters:,} or more training "
        f"documents (add public documents), or ask for fewer, fuller clusters with --clusters {fewer}"
    )


def cluster_documents(
    document_means: np.ndarray, clusters: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """k-means centroids (clusters, d) and each document's cluster label."""
    if document_means.shape[0] < clusters:
        raise InputError(
            f"{document_means.shape[0]} training documents cannot make {clusters} clusters of "
            "similar documents for the recoder: give more public documents or a smaller --clusters"
        )
    data = np.ascontiguousarray(document_means, dtype=np.float32)
    if data.shape[0] < FAISS_POINTS_PER_CENTROID * clusters:
        # faiss would print its own "please provide at least N training points" warning on the C
        # stream; say it once in edgedp's words instead, with the fix.
        print(thin_clusters_warning(data.shape[0], clusters), file=sys.stderr)
    kmeans = faiss.Kmeans(
        data.shape[1], clusters, niter=50, seed=seed, verbose=False, min_points_per_centroid=1
    )
    kmeans.train(data)
    return kmeans.centroids.copy(), nearest_centroid(kmeans.centroids, data)


def nearest_centroid(centroids: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The index of the nearest centroid (Euclidean) of every point."""
    index = faiss.IndexFlatL2(centroids.shape[1])
    index.add(np.ascontiguousarray(centroids, dtype=np.float32))
    _, labels = index.search(np.ascontiguousarray(points, dtype=np.float32), 1)
    return labels[:, 0].astype(np.int64)


def _mlp(dims: int) -> Any:
    torch = require_torch()
    layers: list[Any] = []
    for layer in range(LAYERS):
        layers.append(torch.nn.Linear(dims, dims))
        if layer < LAYERS - 1:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def _batches(
    documents: list[np.ndarray], order: np.ndarray, size: int
) -> Iterator[tuple[np.ndarray, Any, Any]]:
    torch = require_torch()
    for start in range(0, len(order), size):
        chosen = order[start : start + size]
        sentences = torch.from_numpy(np.concatenate([documents[i] for i in chosen]))
        owner = torch.from_numpy(
            np.repeat(np.arange(len(chosen)), [documents[i].shape[0] for i in chosen])
        )
        yield chosen, sentences, owner


def _document_means(recoder: Any, sentences: Any, owner: Any, count: int) -> Any:
    torch = require_torch()
    recoded = recoder(sentences)
    sums = torch.zeros(count, recoded.shape[1]).index_add_(0, owner, recoded)
    sizes = torch.bincount(owner, minlength=count).clamp(min=1).unsqueeze(1)
    return sums / sizes


def _loss(recoder: Any, head: Any, documents: list[np.ndarray], labels: np.ndarray) -> float:
    torch = require_torch()
    total = 0.0
    with torch.no_grad():
        for chosen, sentences, owner in _batches(documents, np.arange(len(documents)), 256):
            logits = head(_document_means(recoder, sentences, owner, len(chosen)))
            target = torch.from_numpy(labels[chosen])
            total += float(torch.nn.functional.cross_entropy(logits, target, reduction="sum"))
    return total / len(documents)


def train_recoder(
    train: list[np.ndarray],
    train_labels: np.ndarray,
    validation: list[np.ndarray],
    validation_labels: np.ndarray,
    *,
    clusters: int,
    seed: int,
    max_epochs: int = 20,
    batch_documents: int = 32,
    learning_rate: float = 1e-3,
) -> RecoderTraining:
    """Train H and L on documents given as sentence embeddings; keep H of the best epoch."""
    torch = require_torch()
    if not train or not validation:
        raise InputError("the recoder needs training and validation documents")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    try:
        torch.manual_seed(seed)
        dims = train[0].shape[1]
        recoder, head = _mlp(dims), torch.nn.Linear(dims, clusters)
        optimizer = torch.optim.Adam([*recoder.parameters(), *head.parameters()], lr=learning_rate)
        shuffle = np.random.default_rng(seed)
        history = []
        best = (_loss(recoder, head, validation, validation_labels), 0, copy.deepcopy(recoder))
        for epoch in tqdm(range(1, max_epochs + 1), desc="training recoder H", unit="epoch"):
            order = shuffle.permutation(len(train))
            for chosen, sentences, owner in _batches(train, order, batch_documents):
                logits = head(_document_means(recoder, sentences, owner, len(chosen)))
                loss = torch.nn.functional.cross_entropy(
                    logits, torch.from_numpy(train_labels[chosen])
                )
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            validation_loss = _loss(recoder, head, validation, validation_labels)
            history.append(round(validation_loss, 6))
            if validation_loss < best[0]:
                best = (validation_loss, epoch, copy.deepcopy(recoder))
    finally:
        torch.use_deterministic_algorithms(False)
        torch.set_num_threads(threads)
    summary = {
        "architecture": f"MLP {LAYERS} x Linear({dims}, {dims}) with ReLU between (SentDP Sec. 4.3)",
        "objective": "cross-entropy of a linear head predicting the k-means cluster of a document "
        "from the mean of its recoded sentence embeddings",
        "clusters": clusters,
        "optimizer": f"Adam, learning rate {learning_rate}, {batch_documents} documents per batch",
        "epochs": best[1],
        "max_epochs": max_epochs,
        "validation_cross_entropy": round(best[0], 6),
        "validation_cross_entropy_per_epoch": history,
        "seed": seed,
    }
    return RecoderTraining(best[2].eval(), summary)


def recode_with_torch(recoder: Any, embeddings: np.ndarray) -> np.ndarray:
    """H applied by torch (the reference the exported ONNX recoder is checked against)."""
    torch = require_torch()
    with torch.no_grad():
        return recoder(torch.from_numpy(np.asarray(embeddings, dtype=np.float32))).numpy()


def export_recoder(recoder: Any, dims: int, out: Path) -> None:
    """Export H to ONNX with a dynamic number of rows."""
    torch = require_torch()
    export_onnx(
        recoder,
        (torch.zeros(2, dims),),
        out,
        input_names=[RECODER_INPUT],
        output_names=[RECODER_OUTPUT],
        dynamic_shapes=({0: torch.export.Dim("rows")},),
    )


#: The recoders ``edgedp-export sentences --recoder`` builds.
RECODER_KINDS = ("mlp", "pca", "identity")


def linear_recoder(train_means: np.ndarray, kind: str, components: int) -> RecoderTraining:
    """A linear H as a torch module: the identity, or a PCA projection (no training).

    ``pca``: x -> W (x - mu), where the first ``components`` rows of W are the leading principal
    directions of the public training documents' mean embeddings and the other rows are zero, so
    that H keeps the dimension d (the runtime and the pack format are unchanged) while the depth
    only sees the ``components``-dimensional subspace where the public documents vary most.
    ``identity``: H(x) = x exactly (a weight of ones on the diagonal, zero bias).
    """
    torch = require_torch()
    dims = train_means.shape[1]
    layer = torch.nn.Linear(dims, dims)
    means = np.asarray(train_means, dtype=np.float64)
    if kind == "identity":
        weight, bias = np.eye(dims), np.zeros(dims)
        summary: dict[str, Any] = {"architecture": "identity (no recoder): H(x) = x"}
    elif kind == "pca":
        if not 1 <= components <= min(dims, means.shape[0]):
            raise InputError(f"--components must be in 1..{min(dims, means.shape[0])}")
        centre = means.mean(axis=0)
        _, singular, vt = np.linalg.svd(means - centre, full_matrices=False)
        weight = np.zeros((dims, dims))
        weight[:components] = vt[:components]
        bias = -weight @ centre
        explained = float(np.sum(singular[:components] ** 2) / np.sum(singular**2))
        summary = {
            "architecture": f"PCA: projection on the {components} leading principal directions of "
            f"the training documents' mean embeddings (rows {components}..{dims - 1} zero)",
            "components": components,
            "explained_variance": round(explained, 6),
        }
    else:
        raise InputError(f"recoder must be one of {', '.join(RECODER_KINDS)}")
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(weight.astype(np.float32)))
        layer.bias.copy_(torch.from_numpy(bias.astype(np.float32)))
    module = torch.nn.Sequential(layer).eval()
    return RecoderTraining(module, {"kind": kind, **summary})
