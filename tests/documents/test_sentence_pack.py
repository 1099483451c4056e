"""The bundled sentences pack loads, describes itself, keeps the test split out, and every
inconsistency in a sentences pack is an AssetError naming the problem."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import edgedp
from edgedp.errors import AssetError


def test_bundled_pack(sentence_pack):
    assert isinstance(sentence_pack, edgedp.SentencePack) and sentence_pack.kind == "sentences"
    info = sentence_pack.describe()
    assert info["dims"] == 384 and info["candidates"] == len(sentence_pack.candidates) > 1000
    assert info["bytes"] <= 35 * 2**20
    manifest = sentence_pack.manifest.data
    assert "research use" in manifest["source"]["license"]
    assert manifest["build_command"].startswith("edgedp-export sentences --default")
    assert str(Path.home()) not in json.dumps(manifest, default=dict)
    norms = np.linalg.norm(sentence_pack.projections, axis=1)
    np.testing.assert_allclose(norms, 1.0, rtol=1e-5)
    assert sentence_pack.candidate_depth.projections == len(sentence_pack.projections)


def test_candidates_come_from_the_public_splits_only(sentence_pack):
    corpus = pytest.importorskip("edgedp_export.corpus")
    splits = {
        corpus.split_of(source, corpus.BBC_VALIDATION_PERCENT, corpus.BBC_TEST_PERCENT)
        for source in sentence_pack.candidate_sources
    }
    assert splits == {"train"}


def test_recommended_projections(sentence_pack):
    table = sentence_pack.recommended_projections
    assert set(table) == {1.0, 3.0, 6.0, 10.0, 23.0, 30.0}
    assert all(1 <= count <= len(sentence_pack.projections) for count in table.values())
    assert sentence_pack.projections_for(9.0) == table[10.0]
    assert sentence_pack.projections_for(1000.0) == table[30.0]


@pytest.fixture
def pack_copy(sentence_pack, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(sentence_pack.path, copy)
    return copy


def _edit_manifest(pack: Path, edit: Callable[[dict], object]) -> None:
    path = pack / "manifest.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["candidates"].update(count=3), r"candidates\.npy holds"),
        (lambda d: d["encoder"].update(dims=512), "gives 384-d embeddings, the manifest says 512"),
        (lambda d: d["encoder"].update(pack="../encoder-minilm"), "plain pack name"),
        (lambda d: d["encoder"].pop("manifest_sha256"), r"encoder\.manifest_sha256 is missing"),
        (
            lambda d: d["projections"].update(recommended=[{"epsilon": 1, "projections": 0}]),
            r"recommended\[0\]\.projections must be an integer",
        ),
        (lambda d: d["projections"].update(recommended=[]), "must be a list of 1 to"),
        (lambda d: d["reference"].pop("min_cosine"), "min_cosine"),
        (lambda d: d.update(kind="sentence"), "unknown pack kind"),
    ],
)
def test_inconsistent_manifest_is_an_asset_error(pack_copy, edit, message):
    _edit_manifest(pack_copy, edit)
    with pytest.raises(AssetError, match=message):
        edgedp.load_pack(pack_copy)


def test_tampered_file_is_detected(pack_copy):
    with (pack_copy / "candidates.npy").open("r+b") as handle:
        handle.seek(-4, 2)
        handle.write(b"\x00\x00\x80\x7f")
    with pytest.raises(AssetError, match="SHA-256"):
        edgedp.load_pack(pack_copy)


def test_encoder_check_reports_a_wrong_model(sentence_pack):
    import dataclasses

    wrong = dataclasses.replace(
        sentence_pack, reference_embeddings=np.roll(sentence_pack.reference_embeddings, 1, axis=0)
    )
    with pytest.raises(AssetError, match="reproduces the torch reference"):
        wrong.check_encoder()
