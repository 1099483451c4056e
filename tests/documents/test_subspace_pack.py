"""Subspace packs: loading, the recommendation table, and hostile manifests and files (each one
AssetError before anything is used)."""

from __future__ import annotations

import io
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
from helpers import JSON_VALUES, expect_only_asset_errors, json_paths
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sentence_helpers import orthonormal_rows, write_subspace_pack

import edgedp
from edgedp.errors import AssetError, InputError

DIMS = 384
RECOMMENDED = [
    {"epsilon": 3.0, "delta": 0.0, "sentences": 1, "dims": 1, "clip": 0.1},
    {"epsilon": 3.0, "delta": 0.0, "sentences": 8, "dims": 3, "clip": 0.3},
    {"epsilon": 10.0, "delta": 0.0, "sentences": 1, "dims": 2, "clip": 0.2},
    {"epsilon": 10.0, "delta": 0.0, "sentences": 4, "dims": 4, "clip": 0.4},
    {"epsilon": 10.0, "delta": 1e-6, "sentences": 1, "dims": 6, "clip": 0.6},
    {"epsilon": 10.0, "delta": 1e-8, "sentences": 1, "dims": 5, "clip": 0.5},
]


@pytest.fixture
def pack_dir(tmp_path: Path) -> Path:
    basis = orthonormal_rows(np.random.default_rng(0), 6, DIMS)
    return write_subspace_pack(tmp_path / "sub", basis, recommended=RECOMMENDED)


def _manifest(pack_dir: Path) -> dict:
    return json.loads((pack_dir / "manifest.json").read_text())


def test_a_pack_loads_and_describes_itself(pack_dir):
    pack = edgedp.load_pack(pack_dir, kind="subspace")
    assert pack.kind == "subspace" and pack.count == 6 and pack.dims == DIMS
    assert pack.clip_for(3) == 0.5
    info = pack.describe()
    assert info["directions"] == 6 and info["recommendations"] == len(RECOMMENDED)
    json.dumps(info)
    with pytest.raises(InputError, match="no clip radius"):
        pack.clip_for(7)
    with pytest.raises(AssetError, match="subspace pack; this needs a sentences"):
        edgedp.load_pack(pack_dir, kind="sentences")


@pytest.mark.parametrize(
    ("epsilon", "delta", "sentences", "dims"),
    [
        (10.0, 0.0, 1, 2),
        (10.0, 0.0, 3, 2),  # the row of the most sentences not above k
        (10.0, 0.0, 40, 4),
        (8.0, 0.0, 5, 4),  # nearest epsilon in log scale
        (5.0, 0.0, 9, 3),  # 5 is nearer 3 than 10 in log scale
        (30.0, 0.0, 1, 2),
        (10.0, 1e-6, 3, 6),
        (10.0, 3e-9, 3, 5),  # nearest delta in log scale
        (10.0, 1e-3, 3, 6),
    ],
)
def test_recommendations_are_looked_up_by_noise_epsilon_and_length(
    pack_dir, epsilon, delta, sentences, dims
):
    pack = edgedp.load_pack(pack_dir, kind="subspace")
    assert pack.recommendation(epsilon, delta, sentences).dims == dims
    assert pack.widest(10.0, 0.0) == 4


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m["subspace"].update(count=0), r"subspace\.count must be an integer"),
        (lambda m: m["subspace"].update(count=7), r"\(7, 384\)"),
        (lambda m: m["subspace"].update(clip=[]), "a list of 1 to"),
        (lambda m: m["subspace"]["clip"][0].update(radius=-1), "positive"),
        (lambda m: m["subspace"]["clip"][0].update(radius=1e300), "clip radius 1e.300 is above"),
        (lambda m: m["subspace"]["recommended"][0].update(clip=2.5), "clip radius 2.5 is above"),
        (lambda m: m["subspace"]["clip"].append({"dims": 1, "radius": 0.2}), "invalid clip"),
        (lambda m: m["subspace"]["clip"].append({"dims": 9, "radius": 0.2}), "invalid clip"),
        (lambda m: m["subspace"]["recommended"][0].update(dims=7), "invalid recommendation"),
        (lambda m: m["subspace"]["recommended"][0].update(delta=1.0), "invalid recommendation"),
        (lambda m: m["subspace"]["recommended"][0].update(sentences=0), "sentences must be an"),
        (lambda m: m["subspace"]["recommended"][0].update(clip=0), "positive"),
        (lambda m: m["subspace"]["recommended"][0].update(signal=2.0), "signal must be"),
        (lambda m: m["subspace"].update(recommended="x"), "must be a list"),
        (lambda m: m["subspace"].update(basis=["basis.npy"]), "basis must be a string"),
        (lambda m: m.update(reference={"count": 1}), "required field"),
        (lambda m: m["encoder"].update(pooling="cls"), "mean pooling"),
    ],
)
def test_hostile_subspace_manifests(pack_dir, edit, message):
    manifest = _manifest(pack_dir)
    edit(manifest)
    (pack_dir / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(AssetError, match=message):
        edgedp.load_pack(pack_dir)


def test_a_clip_radius_beyond_any_projected_sentence_is_refused(pack_dir):
    pack = edgedp.load_pack(pack_dir, kind="subspace")
    assert 1.0 <= pack.largest_clip <= 2.0  # orthonormal rows, a mean of unit vectors
    with pytest.raises(InputError, match="clip must be at most"):
        edgedp.SubspaceMean(pack, epsilon=10.0, dims=2, clip=1e300, rng=0)
    edgedp.SubspaceMean(pack, epsilon=10.0, dims=2, clip=pack.largest_clip, rng=0)


def test_pure_recommendations_beyond_the_exact_sampler_are_refused(tmp_path):
    basis = orthonormal_rows(np.random.default_rng(1), 30, DIMS)
    rows = [{"epsilon": 10.0, "delta": 0.0, "sentences": 1, "dims": 30, "clip": 0.5}]
    with pytest.raises(AssetError, match="invalid recommendation"):
        write_subspace_pack(tmp_path / "wide", basis, recommended=rows)


def _replace(pack_dir: Path, name: str, array: np.ndarray) -> None:
    import hashlib

    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    content = buffer.getvalue()
    (pack_dir / name).write_bytes(content)
    manifest = _manifest(pack_dir)
    manifest["files"][name] = {"bytes": len(content), "sha256": hashlib.sha256(content).hexdigest()}
    (pack_dir / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize(
    ("name", "array", "message"),
    [
        ("basis.npy", np.full((6, DIMS), np.nan, np.float32), "finite"),
        ("basis.npy", np.zeros((6, DIMS), np.float32), "zero"),
        ("basis.npy", np.zeros((6, DIMS), np.float64), "float64"),
        ("mean.npy", np.zeros((DIMS + 1,), np.float32), r"\(385,\)"),
        ("mean.npy", np.full((DIMS,), np.inf, np.float32), "finite"),
    ],
)
def test_hostile_subspace_arrays(pack_dir, name, array, message):
    _replace(pack_dir, name, array)
    with pytest.raises(AssetError, match=message):
        edgedp.load_pack(pack_dir)


def _release(pack) -> None:
    mechanism = edgedp.SubspaceMean(pack, epsilon=10.0, dims=1)
    mechanism.release_embeddings([np.zeros((3, pack.dims), np.float32)])


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_generated_hostile_subspace_manifests_are_asset_errors(pack_dir, data):
    manifest = _manifest(pack_dir)
    sections = {key: manifest[key] for key in ("subspace", "reference")}
    for _ in range(data.draw(st.integers(1, 3))):
        paths = [path for path in json_paths(sections) if len(path) > 1]
        path = data.draw(st.sampled_from(paths))
        parent = sections
        for step in path[:-1]:
            parent = parent[step]
        if isinstance(parent, dict) and data.draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = data.draw(JSON_VALUES)
    manifest.update(sections)
    work = Path(tempfile.mkdtemp(prefix="edgedp-hostile-subspace-"))
    try:
        copy = work / "pack"
        shutil.copytree(pack_dir, copy)
        (copy / "manifest.json").write_text(json.dumps(manifest))
        expect_only_asset_errors(copy, _release)
    finally:
        shutil.rmtree(work)
