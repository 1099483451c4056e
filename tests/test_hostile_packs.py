"""Hostile packs: an attacker who can rewrite the manifest *and* the files consistently (checksums
included) still cannot make edgedp unpickle, follow links, read outside the pack, or use arrays of
the wrong type, shape or content. Each is rejected with AssetError before anything is used."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import faiss
import numpy as np
import pytest
from helpers import write_word_pack

import edgedp
from edgedp.errors import AssetError

MARKER = Path("/tmp/edgedp-hostile-pack-marker")


class _Payload:
    def __reduce__(self):
        return (MARKER.write_text, ("pickle executed",))


@pytest.fixture
def pack_dir(tmp_path: Path) -> Path:
    codes = np.arange(16, dtype=np.uint8).reshape(8, 2)
    return write_word_pack(tmp_path / "pack", [f"w{c}" for c in "abcdefgh"], codes)


def replace_file(pack_dir: Path, name: str, content: bytes) -> None:
    """Swap a file and make the manifest agree with it (a consistent, malicious rewrite)."""
    (pack_dir / name).write_bytes(content)
    manifest = json.loads((pack_dir / "manifest.json").read_text())
    manifest["files"][name] = {"bytes": len(content), "sha256": hashlib.sha256(content).hexdigest()}
    (pack_dir / "manifest.json").write_text(json.dumps(manifest))


def npy_bytes(array: np.ndarray, tmp_path: Path, *, allow_pickle: bool = False) -> bytes:
    path = tmp_path / "array.npy"
    np.save(path, array, allow_pickle=allow_pickle)
    return path.read_bytes()


def test_a_pickled_array_is_never_unpickled(pack_dir, tmp_path):
    MARKER.unlink(missing_ok=True)
    payload = np.array([_Payload(), _Payload()], dtype=object)
    replace_file(pack_dir, "codes.npy", npy_bytes(payload, tmp_path, allow_pickle=True))
    with pytest.raises(AssetError, match=r"codes\.npy"):
        edgedp.load_pack(pack_dir)
    assert not MARKER.exists()


@pytest.mark.parametrize(
    ("array", "message"),
    [
        (np.zeros((8, 2), dtype=np.float32), "holds float32"),
        (np.zeros((8, 3), dtype=np.uint8), r"\(8, 3\)"),
        (np.zeros((7, 2), dtype=np.uint8), r"\(7, 2\)"),
        (np.zeros(16, dtype=np.uint8), r"\(16,\)"),
    ],
)
def test_wrong_dtypes_and_shapes(pack_dir, tmp_path, array, message):
    replace_file(pack_dir, "codes.npy", npy_bytes(array, tmp_path))
    with pytest.raises(AssetError, match=message):
        edgedp.load_pack(pack_dir)


def test_a_garbage_array_file(pack_dir):
    replace_file(pack_dir, "codes.npy", b"\x93NUMPY garbage")
    with pytest.raises(AssetError, match=r"not a readable \.npy"):
        edgedp.load_pack(pack_dir)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"wa\nwb\nwa\nwd\nwe\nwf\nwg\nwh\n", "duplicate"),
        (b"wa\nwb\n\xff\xfe\nwd\nwe\nwf\nwg\nwh\n", "not UTF-8"),
        (b"wa\nwb\n \nwd\nwe\nwf\nwg\nwh\n", "empty or padded"),
    ],
)
def test_hostile_vocabularies(pack_dir, content, message):
    replace_file(pack_dir, "vocab.txt", content)
    with pytest.raises(AssetError, match=message):
        edgedp.load_pack(pack_dir)


def test_a_symlinked_manifest_is_refused(pack_dir, tmp_path):
    elsewhere = tmp_path / "manifest-elsewhere.json"
    shutil.move(pack_dir / "manifest.json", elsewhere)
    os.symlink(elsewhere, pack_dir / "manifest.json")
    with pytest.raises(AssetError, match="missing"):
        edgedp.load_pack(pack_dir)


def test_a_directory_where_a_file_should_be(pack_dir):
    (pack_dir / "codes.npy").unlink()
    (pack_dir / "codes.npy").mkdir()
    with pytest.raises(AssetError, match="not a regular file"):
        edgedp.load_pack(pack_dir)


def test_an_oversized_manifest_is_refused(pack_dir):
    manifest = json.loads((pack_dir / "manifest.json").read_text())
    manifest["padding"] = "x" * (2 << 20)
    (pack_dir / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(AssetError, match="implausibly large"):
        edgedp.load_pack(pack_dir)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m.update(files=[]), "manifest.files must be an object"),
        (lambda m: m["files"]["vocab.txt"].update(bytes=-1), r"bytes must be an integer in \[0"),
        (lambda m: m["files"].update({"manifest.json": m["files"]["vocab.txt"]}), "unsafe"),
        (lambda m: m["files"].update({".hidden/../x": m["files"]["vocab.txt"]}), "unsafe"),
        (lambda m: m.update(format_version="1"), "must be int"),
        (lambda m: m["codes"].update(bit_order="little"), "bit order"),
        (lambda m: m["codes"].update(bits=0), r"codes\.bits must be an integer in \[8"),
        (lambda m: m["codes"].update(bits=12), "multiple of 8"),
    ],
)
def test_hostile_manifest_fields(pack_dir, edit, message):
    manifest = json.loads((pack_dir / "manifest.json").read_text())
    edit(manifest)
    (pack_dir / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(AssetError, match=message):
        edgedp.load_pack(pack_dir)


def test_an_index_of_the_wrong_size_is_refused(pack_dir, tmp_path):
    other = faiss.IndexBinaryHNSW(16, 4)
    other.add(np.zeros((3, 2), dtype=np.uint8))
    faiss.write_index_binary(other, str(tmp_path / "index.faissb"))
    replace_file(pack_dir, "index.faissb", (tmp_path / "index.faissb").read_bytes())
    manifest = json.loads((pack_dir / "manifest.json").read_text())
    manifest["index"] = {"type": "hnsw", "file": "index.faissb", "search_parameter": 16}
    (pack_dir / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(AssetError, match="indexes 3 codes"):
        edgedp.load_pack(pack_dir)


def test_a_garbage_index_is_refused(pack_dir):
    replace_file(pack_dir, "index.faissb", b"not an index at all")
    manifest = json.loads((pack_dir / "manifest.json").read_text())
    manifest["index"] = {"type": "ivf", "file": "index.faissb", "search_parameter": 4}
    (pack_dir / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(AssetError, match="not a readable FAISS"):
        edgedp.load_pack(pack_dir)


def _swapped_copy(tmp_path: Path, bundled: str, target: str, source: str) -> Path:
    """A copy of a bundled pack whose ``target`` model is ``source``'s, manifest made consistent."""
    copy = tmp_path / bundled
    shutil.copytree(edgedp.load_pack(bundled).path, copy)
    replace_file(copy, target, (copy / source).read_bytes())
    return copy


def test_a_swapped_sentence_encoder_is_refused_before_it_runs(tmp_path):
    pack = edgedp.load_pack(
        _swapped_copy(tmp_path, "sentences-bbc", "encoder.onnx", "recoder.onnx")
    )
    with pytest.raises(AssetError, match=r"encoder\.onnx has inputs/outputs"):
        edgedp.DeepCandidate(pack, epsilon=5.0).embed("One sentence. Another one.")


def test_a_swapped_autoencoder_model_is_refused_before_it_runs(tmp_path):
    pack = edgedp.load_pack(
        _swapped_copy(tmp_path, "adept-bbc", "encoder.onnx", "decoder_step.onnx")
    )
    with pytest.raises(AssetError, match=r"encoder\.onnx has inputs/outputs"):
        edgedp.ADePT(pack, epsilon=5.0).privatize("One sentence.")


def test_a_consistently_rewritten_bundled_pack_is_caught_by_its_pin(monkeypatch, tmp_path):
    import edgedp.packs

    copy = _swapped_copy(tmp_path, "sentences-bbc", "encoder.onnx", "recoder.onnx")
    monkeypatch.setattr(edgedp.packs, "bundled_packs_dir", lambda: tmp_path)
    with pytest.raises(AssetError, match="not the expected"):
        edgedp.load_pack(copy.name)


@pytest.mark.parametrize(
    ("covariance", "message"),
    [
        (np.zeros((4, 4)), "not positive definite"),  # noise confined to a point
        (np.diag([1.0, 1.0, 1.0, 0.0]), "not positive definite"),  # ... or to a subspace
        (np.full((4, 4), np.nan), "NaN"),
        (np.eye(4) + np.triu(np.ones((4, 4)), 1), "not symmetric"),
    ],
)
def test_a_covariance_mahalanobis_cannot_use_is_refused(pack_dir, tmp_path, covariance, message):
    vectors = np.random.default_rng(0).normal(size=(8, 4)).astype(np.float32)
    manifest = json.loads((pack_dir / "manifest.json").read_text())
    manifest["euclidean"] = {
        "dims": 4,
        "dtype": "float32",
        "vectors_file": "vectors.npy",
        "covariance_file": "covariance.npy",
    }
    (pack_dir / "manifest.json").write_text(json.dumps(manifest))
    replace_file(pack_dir, "vectors.npy", npy_bytes(vectors, tmp_path))
    replace_file(pack_dir, "covariance.npy", npy_bytes(np.cov(vectors.T), tmp_path))
    assert edgedp.load_pack(pack_dir).covariance.shape == (4, 4)  # the honest covariance loads
    replace_file(pack_dir, "covariance.npy", npy_bytes(covariance, tmp_path))
    with pytest.raises(AssetError, match=message):
        edgedp.load_pack(pack_dir)
