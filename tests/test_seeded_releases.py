"""Seeded releases do not change when code moves: every mechanism, with a fixed seed, releases what
it released before the package was reorganised (tests/data/seeded_releases.json, recorded then).

A reorganisation (modules moved, arguments renamed, packs split) must not change what the privacy
core does; a change of behaviour on purpose re-records the file
(``EDGEDP_RECORD_SEEDED=1 pytest tests/test_seeded_releases.py``) and says why in its commit.
Word releases are compared exactly (text), document releases to 1e-6 (the encoder's float sums may
differ in their last bits between CPUs); the lattice coordinates of SubspaceMean exactly.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import SEEDED_ON_PURPOSE
from sentence_helpers import bundled_sentence_pack

import edgedp

pytestmark = [SEEDED_ON_PURPOSE, pytest.mark.filterwarnings("ignore::edgedp.UtilityWarning")]

RECORD = Path(__file__).parent / "data" / "seeded_releases.json"
TEXTS = [
    "Patient Jane Zorbulak was admitted on 12 March with chest pain.",
    "hey maria, can you call me tomorrow? the meeting moved to 5pm",
    "The market rose on Monday. Banks led the gains, and analysts were surprised.",
]
DOCUMENT = [
    "The market rose on Monday.",
    "Banks led the gains.",
    "Analysts were surprised by the strength of the rally.",
    "Oil prices fell for a third day.",
]


def word_releases(pack: edgedp.WordPack, euclid: edgedp.WordPack) -> dict[str, Callable[[], Any]]:
    """Each word mechanism's seeded release of TEXTS, by name."""

    def run(make: Callable[[int], edgedp.WordMechanism]) -> Callable[[], list[str]]:
        return lambda: make(11).privatize_batch(TEXTS)

    planted = " ".join(euclid.vocabulary.words[:40])

    def run_euclid(make: Callable[[int], edgedp.WordMechanism]) -> Callable[[], list[str]]:
        return lambda: [make(13).privatize(planted)]

    return {
        "brr-nearest": run(lambda s: edgedp.BRR(pack, epsilon=0.6, decode="nearest", rng=s)),
        "brr-context": run(lambda s: edgedp.BRR(pack, epsilon=0.6, decode="context", rng=s)),
        "vickrey-hamming": run(
            lambda s: edgedp.Vickrey(pack, epsilon=0.6, geometry="hamming", decode="nearest", rng=s)
        ),
        "tem-hamming": run(lambda s: edgedp.TEM(pack, epsilon=2.0, geometry="hamming", rng=s)),
        "custext-hamming": run(
            lambda s: edgedp.CusText(pack, epsilon=2.0, geometry="hamming", rng=s)
        ),
        "madlib": run_euclid(lambda s: edgedp.Madlib(euclid, epsilon=5.0, decode="nearest", rng=s)),
        "mahalanobis": run_euclid(
            lambda s: edgedp.Mahalanobis(euclid, epsilon=5.0, decode="nearest", rng=s)
        ),
        "vickrey-euclidean": run_euclid(
            lambda s: edgedp.Vickrey(
                euclid, epsilon=5.0, geometry="euclidean", decode="nearest", rng=s
            )
        ),
        "generalized-vickrey": run_euclid(
            lambda s: edgedp.GeneralizedVickrey(
                euclid, epsilon=5.0, weights=[0.6, 0.3, 0.1], geometry="euclidean", rng=s
            )
        ),
        "tem-euclidean": run_euclid(
            lambda s: edgedp.TEM(euclid, epsilon=5.0, geometry="euclidean", rng=s)
        ),
        "santext-euclidean": run_euclid(lambda s: edgedp.SanText(euclid, epsilon=5.0, rng=s)),
        "santextplus-euclidean": run_euclid(
            lambda s: edgedp.SanTextPlus(euclid, epsilon=5.0, rng=s)
        ),
        "custext-euclidean": run_euclid(
            lambda s: edgedp.CusText(euclid, epsilon=5.0, geometry="euclidean", rng=s)
        ),
    }


def document_releases() -> dict[str, Callable[[], Any]]:
    """Each document mechanism's seeded release of DOCUMENT, as plain lists, by name."""

    def subspace() -> dict[str, Any]:
        release = edgedp.SubspaceMean(
            edgedp.load_pack("subspace-general"), epsilon=10.0, rng=17
        ).release(DOCUMENT)
        return {"coordinates": np.asarray(release.coordinates).tolist(), "dims": release.dims}

    def candidate() -> dict[str, Any]:
        pack = bundled_sentence_pack()
        return {
            "index": int(edgedp.DeepCandidate(pack, epsilon=10.0, rng=17).release(DOCUMENT).index)
        }

    def truncation() -> dict[str, Any]:
        pack = bundled_sentence_pack()
        return {"embedding": edgedp.Truncation(pack, epsilon=10.0, rng=17).embed(DOCUMENT).tolist()}

    def adept() -> dict[str, Any]:
        pack = edgedp.load_pack("adept-bbc")
        return {"text": edgedp.ADePT(pack, epsilon=30.0, rng=17).privatize(DOCUMENT[0])}

    return {
        "subspace-mean": subspace,
        "deepcandidate": candidate,
        "truncation": truncation,
        "adept": adept,
    }


def recorded() -> dict[str, Any]:
    return dict(json.loads(RECORD.read_text(encoding="utf-8"))) if RECORD.exists() else {}


def check(name: str, value: Any) -> None:
    """Compare with the record, or add to it under EDGEDP_RECORD_SEEDED=1."""
    value = json.loads(json.dumps(value))  # tuples to lists, numpy scalars refused
    if os.environ.get("EDGEDP_RECORD_SEEDED") == "1":
        record = recorded()
        record[name] = value
        RECORD.parent.mkdir(exist_ok=True)
        RECORD.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        return
    expected = recorded()[name]
    if name in {"truncation"}:
        np.testing.assert_allclose(value["embedding"], expected["embedding"], atol=1e-6)
    else:
        assert value == expected


@pytest.mark.parametrize(
    "name",
    [
        "brr-nearest",
        "brr-context",
        "vickrey-hamming",
        "tem-hamming",
        "custext-hamming",
        "madlib",
        "mahalanobis",
        "vickrey-euclidean",
        "generalized-vickrey",
        "tem-euclidean",
        "santext-euclidean",
        "santextplus-euclidean",
        "custext-euclidean",
    ],
)
def test_word_release_is_unchanged(name, default_pack, euclid_pack):
    check(name, word_releases(default_pack, euclid_pack)[name]())


@pytest.mark.parametrize("name", ["subspace-mean", "deepcandidate", "truncation", "adept"])
def test_document_release_is_unchanged(name):
    check(name, document_releases()[name]())
