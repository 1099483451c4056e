"""Hostile packs: an attacker who can rewrite the manifest *and* the files consistently (checksums
included) still cannot make edgedp unpickle, follow links, read outside the pack, or use arrays of
the wrong type, shape or content. Each is rejected with AssetError before anything is used."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import faiss
import numpy as np
import pytest
from helpers import JSON_VALUES, expect_only_asset_errors, json_paths, write_word_pack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


@pytest.mark.native
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


@pytest.mark.native
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


@pytest.mark.native
def test_a_swapped_sentence_encoder_is_refused_before_it_runs(tmp_path, encoder_pack):
    """An encoder pack whose encoder.onnx is the recoder, and a copy of sentences-bbc that
    references it by its (consistent) digest."""
    sentences = _swapped_copy(tmp_path, "sentences-bbc", "recoder.onnx", "recoder.onnx")
    encoder = tmp_path / encoder_pack.name
    shutil.copytree(encoder_pack.path, encoder)
    replace_file(encoder, "encoder.onnx", (sentences / "recoder.onnx").read_bytes())
    manifest = json.loads((sentences / "manifest.json").read_text())
    manifest["encoder"]["manifest_sha256"] = hashlib.sha256(
        (encoder / "manifest.json").read_bytes()
    ).hexdigest()
    (sentences / "manifest.json").write_text(json.dumps(manifest))
    pack = edgedp.load_pack(sentences)  # the encoder pack beside it, by its new digest
    with pytest.raises(AssetError, match=r"encoder\.onnx has inputs/outputs"):
        edgedp.DeepCandidate(pack, epsilon=5.0).embed("One sentence. Another one.")


def test_a_swapped_autoencoder_model_is_refused_before_it_runs(tmp_path):
    pack = edgedp.load_pack(
        _swapped_copy(tmp_path, "adept-bbc", "encoder.onnx", "decoder_step.onnx")
    )
    with pytest.raises(AssetError, match=r"encoder\.onnx has inputs/outputs"):
        edgedp.ADePT(pack, epsilon=5.0).privatize("One sentence.")


def test_a_consistently_rewritten_bundled_pack_is_caught_by_its_pin(monkeypatch, tmp_path):
    import edgedp.packs.loading

    copy = _swapped_copy(tmp_path, "sentences-bbc", "encoder.onnx", "recoder.onnx")
    monkeypatch.setattr(edgedp.packs.loading, "bundled_packs_dir", lambda: tmp_path)
    bundled = (*edgedp.packs.loading.BUNDLED_PACKS, copy.name)  # as if the wheel carried it
    monkeypatch.setattr(edgedp.packs.loading, "BUNDLED_PACKS", bundled)
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


# -- issue 14 section 3: every hostile pack is an AssetError before use ---------------------------


def write_manifest_text(pack_dir: Path, text: str) -> None:
    (pack_dir / "manifest.json").write_text(text, encoding="utf-8")


def manifest_of(pack_dir: Path) -> dict:
    return json.loads((pack_dir / "manifest.json").read_text())


def test_a_deeply_nested_manifest_is_an_asset_error(pack_dir):
    text = json.dumps(manifest_of(pack_dir))[:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    write_manifest_text(pack_dir, text)
    with pytest.raises(AssetError, match="nests deeper"):
        edgedp.load_pack(pack_dir)


def test_a_5000_digit_integer_is_an_asset_error(pack_dir):
    text = json.dumps(manifest_of(pack_dir)).replace('"size": 8', '"size": ' + "9" * 5000)
    write_manifest_text(pack_dir, text)
    with pytest.raises(AssetError, match="integer literal"):
        edgedp.load_pack(pack_dir)


def test_a_huge_manifest_is_refused_before_it_is_read(pack_dir):
    import tracemalloc

    with (pack_dir / "manifest.json").open("r+b") as handle:
        handle.truncate(256 << 20)  # a sparse 256 MiB file: costs no disk, would cost RSS
    tracemalloc.start()
    try:
        with pytest.raises(AssetError, match="implausibly large"):
            edgedp.load_pack(pack_dir)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20  # nothing near the file's size was allocated


def test_a_fortran_ordered_array_is_refused_at_load(pack_dir, tmp_path):
    codes = np.asfortranarray(np.arange(16, dtype=np.uint8).reshape(8, 2))
    path = tmp_path / "fortran.npy"
    np.lib.format.write_array(path.open("wb"), codes)
    replace_file(pack_dir, "codes.npy", path.read_bytes())
    assert np.load(path).flags.f_contiguous and not np.load(path).flags.c_contiguous
    with pytest.raises(AssetError, match="Fortran"):
        edgedp.load_pack(pack_dir)


def _ivf_pack(pack_dir: Path, tmp_path: Path, shift: int) -> None:
    codes = np.load(pack_dir / "codes.npy")
    quantizer = faiss.IndexBinaryFlat(16)
    index = faiss.IndexBinaryIVF(quantizer, 16, 2)
    index.train(codes)
    index.add_with_ids(codes, np.arange(8, dtype=np.int64) + shift)
    faiss.write_index_binary(index, str(tmp_path / "ivf.faissb"))
    replace_file(pack_dir, "index.faissb", (tmp_path / "ivf.faissb").read_bytes())
    manifest = manifest_of(pack_dir)
    manifest["index"] = {"type": "ivf", "file": "index.faissb", "search_parameter": 2}
    (pack_dir / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.native
def test_an_index_whose_ids_exceed_the_vocabulary_is_refused_at_load(pack_dir, tmp_path):
    _ivf_pack(pack_dir, tmp_path, shift=0)
    assert edgedp.load_pack(pack_dir).index.index_type == "ivf"  # the honest index loads
    _ivf_pack(pack_dir, tmp_path, shift=100)
    with pytest.raises(AssetError, match="outside the vocabulary"):
        edgedp.load_pack(pack_dir)


@pytest.mark.native
def test_an_hnsw_graph_linking_outside_the_vocabulary_is_refused_at_load(pack_dir, tmp_path):
    index = faiss.IndexBinaryHNSW(16, 4)
    index.add(np.load(pack_dir / "codes.npy"))
    neighbours = faiss.vector_to_array(index.hnsw.neighbors)
    neighbours[0] = 1000
    faiss.copy_array_to_vector(neighbours, index.hnsw.neighbors)
    faiss.write_index_binary(index, str(tmp_path / "hnsw.faissb"))
    replace_file(pack_dir, "index.faissb", (tmp_path / "hnsw.faissb").read_bytes())
    manifest = manifest_of(pack_dir)
    manifest["index"] = {"type": "hnsw", "file": "index.faissb", "search_parameter": 8}
    (pack_dir / "manifest.json").write_text(json.dumps(manifest))
    # FAISS >= 1.12 validates HNSW links when it reads an index; edgedp checks them too
    with pytest.raises(AssetError, match=r"outside the vocabulary|out of range"):
        edgedp.load_pack(pack_dir)


@pytest.mark.parametrize(
    "edit",
    [
        lambda m: m.update(source="x"),
        lambda m: m.update(source={"name": 5}),
        lambda m: m.update(vocabulary=[]),
        lambda m: m["codes"].update(file=["codes.npy"]),
        lambda m: m.update(calibration={"hamming": []}),
        lambda m: m["index"].update(search_parameter=1.5),
    ],
)
def test_manifest_fields_of_the_wrong_json_type_are_one_cli_line(pack_dir, edit, capsys):
    from edgedp.cli import main

    manifest = manifest_of(pack_dir)
    edit(manifest)
    (pack_dir / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(AssetError, match="field manifest"):
        edgedp.load_pack(pack_dir)
    assert main(["packs", "info", str(pack_dir)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("edgedp: error: ") and err.count("\n") == 1


# -- a generator of malformed manifests and files (hypothesis) ------------------------------------


@st.composite
def manifest_mutations(draw, base: dict):
    """A copy of ``base`` with 1-3 fields replaced, deleted or added, then maybe raw-text damage."""
    manifest = json.loads(json.dumps(base))
    for _ in range(draw(st.integers(1, 3))):
        paths = [path for path in json_paths(manifest) if path]
        path = draw(st.sampled_from(paths))
        parent = manifest
        for step in path[:-1]:
            parent = parent[step]
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if action == "replace" or isinstance(parent, list):
            parent[path[-1]] = draw(JSON_VALUES)
        elif action == "delete":
            del parent[path[-1]]
        else:
            parent[draw(st.text(max_size=6))] = draw(JSON_VALUES)
    text = json.dumps(manifest)
    damage = draw(st.sampled_from(["none", "truncate", "nest", "big-int", "nan", "duplicate"]))
    if damage == "truncate":
        text = text[: draw(st.integers(0, len(text)))]
    elif damage == "nest":
        depth = draw(st.integers(10, 5000))
        text = text[:-1] + ', "deep": ' + "[" * depth + "]" * depth + "}"
    elif damage == "big-int":
        text = text[:-1] + ', "big": ' + "7" * draw(st.integers(20, 6000)) + "}"
    elif damage == "nan":
        text = text[:-1] + ', "nan": NaN}'
    elif damage == "duplicate":
        text = text[:-1] + ', "kind": "words"}'
    return text


NPY_DTYPES = ["<u1", "|u1", ">u2", "<f4", ">f8", "|b1", "|O", "<i8", "|V2", "<U3"]


@st.composite
def npy_files(draw):
    """A .npy file whose header and data length are drawn: dtype, order, shape, extra bytes."""
    descr = draw(st.sampled_from(NPY_DTYPES))
    fortran = draw(st.booleans())
    # mostly the shape the pack needs (8 words x 2 bytes), so that the rest of the header matters
    shape = draw(st.just((8, 2)) | st.tuples() | st.lists(st.integers(0, 9), max_size=3).map(tuple))
    header = {"descr": descr, "fortran_order": fortran, "shape": shape}
    if draw(st.booleans()):
        header = draw(
            st.sampled_from(
                [
                    {"descr": descr, "shape": shape},
                    {"descr": descr, "fortran_order": "yes", "shape": shape},
                    {"descr": descr, "fortran_order": fortran, "shape": [-1, 2]},
                    {"descr": [("a", "<u1")], "fortran_order": False, "shape": shape},
                ]
            )
        )
    text = repr(header).encode("latin1")
    text += b" " * (-(len(text) + 11) % 64) + b"\n"
    data = draw(st.binary(min_size=16, max_size=16) | st.binary(max_size=40))
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + data


def _expect_only_asset_errors(directory: Path) -> None:
    expect_only_asset_errors(
        directory, lambda pack: edgedp.BRR(pack, epsilon=1.0).privatize("wa wb zz")
    )


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_generated_hostile_manifests_are_asset_errors(pack_dir, data):
    base = manifest_of(pack_dir)
    work = Path(tempfile.mkdtemp(prefix="edgedp-hostile-"))
    try:
        copy = work / "pack"
        shutil.copytree(pack_dir, copy)
        write_manifest_text(copy, data.draw(manifest_mutations(base)))
        _expect_only_asset_errors(copy)
    finally:
        shutil.rmtree(work)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(content=npy_files() | st.binary(max_size=80), target=st.sampled_from(["codes", "vocab"]))
def test_generated_hostile_files_are_asset_errors(pack_dir, content, target):
    work = Path(tempfile.mkdtemp(prefix="edgedp-hostile-"))
    try:
        copy = work / "pack"
        shutil.copytree(pack_dir, copy)
        replace_file(copy, "codes.npy" if target == "codes" else "vocab.txt", content)
        _expect_only_asset_errors(copy)
    finally:
        shutil.rmtree(work)
