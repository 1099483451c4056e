"""Binarization (random hyperplanes, the Tissier autoencoder, flip-trained codes) and the quality
measurements."""

from __future__ import annotations

import numpy as np
import pytest
from edgedp_export.binarize import binarize
from edgedp_export.cli import main as export_main
from edgedp_export.quality import cosine_neighbours, expected_neighbour_overlap
from helpers import write_vector_file

pytest.importorskip("torch", reason="the autoencoder needs the export extra [autoencoder]")
from edgedp_export.binary_autoencoder import train_binary_autoencoder
from edgedp_export.flip_trained import train_flip_projection


def same_cluster_share(codes: np.ndarray, labels: np.ndarray, k: int = 5) -> float:
    distances = np.bitwise_count(codes[:, None, :] ^ codes[None, :, :]).sum(axis=2)
    np.fill_diagonal(distances, 10**6)
    nearest = np.argsort(distances, axis=1, kind="stable")[:, :k]
    return float((labels[nearest] == labels[:, None]).mean())


def test_autoencoder_lowers_reconstruction_loss(planted):
    _, vectors, _ = planted
    _, history = train_binary_autoencoder(vectors, 32, seed=1, epochs=20, batch_size=32)
    assert history[-1] < 0.6 * history[0]


@pytest.mark.parametrize("method", ["autoencoder", "random-hyperplane"])
def test_planted_neighbours_survive_binarization(planted, method):
    _, vectors, labels = planted
    codes = binarize(vectors, method=method, bits=32, seed=0)
    chance = (10 - 1) / (len(labels) - 1)  # a random other word shares the cluster
    assert same_cluster_share(codes, labels) > 0.8 > 10 * chance


def test_autoencoder_is_deterministic_for_a_seed(planted):
    _, vectors, _ = planted
    first = binarize(vectors, method="autoencoder", bits=64, seed=3)
    assert np.array_equal(first, binarize(vectors, method="autoencoder", bits=64, seed=3))
    assert not np.array_equal(first, binarize(vectors, method="autoencoder", bits=64, seed=4))


def test_flip_training_lowers_its_retrieval_loss(planted):
    # What the codes buy on real vectors (BBC News at heavy noise) is measured by
    # `python -m bench brr-parity`; on planted, well-separated clusters random hyperplanes are
    # already as good (the share of releases in the input's cluster does not rise), so this only
    # checks that training optimises its objective.
    _, vectors, _ = planted
    _, history = train_flip_projection(vectors, 32, seed=2, steps=300)
    assert len(history) == 6
    assert history[-1] < 0.95 * history[0]


def test_flip_trained_codes_are_deterministic_for_a_seed(planted):
    _, vectors, _ = planted
    first = binarize(vectors, method="flip-trained", bits=32, seed=3)
    assert first.shape == (len(vectors), 4)
    assert np.array_equal(first, binarize(vectors, method="flip-trained", bits=32, seed=3))
    assert not np.array_equal(first, binarize(vectors, method="flip-trained", bits=32, seed=4))


def test_autoencoder_pack_export_is_byte_for_byte_deterministic(planted, tmp_path):
    words, vectors, _ = planted
    source = write_vector_file(tmp_path / "v.txt", words, vectors)
    for name in ("a", "b"):
        args = [
            "words",
            "--source-file",
            str(source),
            "--words",
            "200",
            "--bits",
            "64",
            "--method",
            "autoencoder",
            "--report",
            "--name",
            "same",
            "--out",
            str(tmp_path / name),
        ]
        assert export_main(args) == 0
    for file in ("manifest.json", "codes.npy", "vocab.txt", "REPORT.md"):
        assert (tmp_path / "a" / file).read_bytes() == (tmp_path / "b" / file).read_bytes()
    assert "| autoencoder | 64 |" in (tmp_path / "a" / "REPORT.md").read_text()


def test_expected_overlap_breaks_ties_uniformly():
    # word 0's Hamming distances: word 1 at 0, words 2 and 3 tied at 1, word 4 at 2 (8-bit codes)
    codes = np.array(
        [[0b0000_0000], [0b0000_0000], [0b0000_0001], [0b0000_0010], [0b0000_0011]], dtype=np.uint8
    )
    sample = np.array([0])
    assert expected_neighbour_overlap(codes, sample, np.array([[1, 2]])) == pytest.approx(0.75)
    assert expected_neighbour_overlap(codes, sample, np.array([[1, 4]])) == pytest.approx(0.5)
    assert expected_neighbour_overlap(codes, sample, np.array([[2, 3]])) == pytest.approx(0.5)


def test_cosine_neighbours_exclude_the_word_itself(planted):
    _, vectors, labels = planted
    neighbours = cosine_neighbours(vectors, np.arange(20), k=5)
    assert all(word not in row for word, row in enumerate(neighbours))
    assert (labels[neighbours] == labels[np.arange(20)][:, None]).mean() > 0.95


def test_bundled_pack_records_its_quality_and_report(default_pack):
    quality = default_pack.manifest.data["quality"]
    assert quality["method"] == default_pack.manifest.data["codes"]["method"] == "autoencoder"
    assert quality["bits"] == 256 and quality["neighbour_overlap_10"] >= 0.5
    assert "random-hyperplane" in (default_pack.path / "REPORT.md").read_text()
