"""The subspace pack chosen per document by its language: English keeps subspace-general (and the
same release, bit for bit), other languages get subspace-multilingual, which loads and embeds a
Spanish document; --language and --pack bypass the identifier (mocked here); every embed record
names its pack and the manifest digest that pins it; the guarantee says what the choice reveals."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
import pytest
from helpers import SEEDED_ON_PURPOSE
from multilingual_text import SENTENCES

import edgedp
from edgedp.cli import main
from edgedp.documents import language_choice
from edgedp.documents.language_choice import (
    MULTILINGUAL_SUBSPACE_PACK,
    DocumentPackChoice,
    SubspaceMeanByLanguage,
    choose_document_pack,
)
from edgedp.documents.subspace_pack import SubspacePack
from edgedp.errors import DependencyError, InputError

pytestmark = SEEDED_ON_PURPOSE
ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "assets"
ENGLISH = " ".join(SENTENCES["en"][:6])
SPANISH = " ".join(SENTENCES["es"][:6])
GERMAN = " ".join(SENTENCES["de"][:6])


#: The real function, kept before the autouse fixture replaces it.
IDENTIFY_LANGUAGE = language_choice.identify_language


def fake_identifier(text: str) -> str:
    """The identifier, mocked: which of our test documents this is."""
    for language in SENTENCES:
        if text.startswith(SENTENCES[language][0][:20]):
            return language
    return "und"


@pytest.fixture(autouse=True)
def identifier(monkeypatch):
    calls: list[str] = []

    def identify(text: str) -> str:
        calls.append(text)
        return fake_identifier(text)

    monkeypatch.setattr(language_choice, "identify_language", identify)
    return calls


@pytest.fixture(autouse=True)
def assets_packs(monkeypatch):
    monkeypatch.setenv("EDGEDP_PACKS", str(ASSETS))


@functools.cache
def load(name: str) -> SubspacePack:
    return SubspacePack.load(ASSETS / name)


def test_the_choice_by_language_and_its_overrides(identifier):
    assert choose_document_pack(ENGLISH) == DocumentPackChoice(
        "subspace-general", "en", "identifier"
    )
    assert choose_document_pack(SPANISH).pack == MULTILINGUAL_SUBSPACE_PACK
    assert choose_document_pack(list(SENTENCES["de"])).language == "de"
    assert choose_document_pack("12345").pack == "subspace-general"  # und keeps English
    count = len(identifier)
    assert choose_document_pack(ENGLISH, language="pl") == DocumentPackChoice(
        MULTILINGUAL_SUBSPACE_PACK, "pl", "language"
    )
    assert choose_document_pack(SPANISH, pack="p") == DocumentPackChoice("p", None, "pack")
    assert len(identifier) == count  # an override reads nothing of the document
    with pytest.raises(InputError, match="not both"):
        choose_document_pack(SPANISH, language="es", pack="p")
    with pytest.raises(InputError, match="ISO 639-1"):
        choose_document_pack(SPANISH, language="")


def test_the_multilingual_pack_loads_and_embeds_a_spanish_document():
    pack = load(MULTILINGUAL_SUBSPACE_PACK)
    assert pack.manifest.data["encoder"]["pack"] == "encoder-use-multilingual"
    assert pack.dims == 512 and pack.check_encoder() > 0.9995
    languages = pack.manifest.data["source"]["name"]
    assert all(f"help-{language}" in languages for language in SENTENCES)
    release = edgedp.SubspaceMean(pack, epsilon=10.0, rng=3).release(SPANISH)
    assert release.sentences == 6 and release.dims > 0
    assert np.isfinite(release.coordinates).all()


def test_english_documents_get_the_english_release_bit_for_bit():
    documents = [ENGLISH, SPANISH, " ".join(SENTENCES["en"][6:]), GERMAN]
    chooser = SubspaceMeanByLanguage(epsilon=10.0, load=load, rng=7)
    released = chooser.release_batch(documents)
    assert [r.choice.pack for r in released] == [
        "subspace-general",
        MULTILINGUAL_SUBSPACE_PACK,
        "subspace-general",
        MULTILINGUAL_SUBSPACE_PACK,
    ]
    alone = edgedp.SubspaceMean(load("subspace-general"), epsilon=10.0, rng=7)
    english = alone.release_batch([documents[0], documents[2]])
    for mine, theirs in zip([released[0], released[2]], english, strict=True):
        assert mine.release.coordinates.tobytes() == theirs.coordinates.tobytes()
        assert mine.pack_sha256 == load("subspace-general").manifest.digest
    guarantee = chooser.guarantee()
    assert "pack chosen (the language found) is released" in guarantee.protects
    assert guarantee.epsilon == 10.0


def run(capsys, *argv: str) -> tuple[int, list[dict], str]:
    code = main(["embed", *argv])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


@pytest.mark.slow
def test_embed_chooses_per_document_and_every_record_names_its_pack(tmp_path, capsys):
    lines = tmp_path / "docs.txt"
    lines.write_text(f"{ENGLISH}\n{SPANISH}\n{GERMAN}\n", encoding="utf-8")
    base = ["--epsilon", "10", "--seed", "4", "--input", "lines", str(lines)]
    code, records, _ = run(capsys, *base)
    assert code == 0 and not any(r["private"] for r in records)  # seeded: not private
    assert [(r["pack"], r["language"], r["language_by"]) for r in records] == [
        ("subspace-general", "en", "identifier"),
        (MULTILINGUAL_SUBSPACE_PACK, "es", "identifier"),
        (MULTILINGUAL_SUBSPACE_PACK, "de", "identifier"),
    ]
    digests = {
        name: load(name).manifest.digest
        for name in ("subspace-general", MULTILINGUAL_SUBSPACE_PACK)
    }
    assert all(r["pack_sha256"] == digests[r["pack"]] for r in records)
    # one English document alone, with the pack given: the same embedding as before the choice
    english = tmp_path / "en.txt"
    english.write_text(ENGLISH + "\n", encoding="utf-8")
    alone = ["--epsilon", "10", "--seed", "4", "--input", "lines", str(english)]
    _, chosen, _ = run(capsys, *alone)
    _, given, _ = run(capsys, *alone, "--pack", "subspace-general")
    assert chosen[0]["embedding"] == given[0]["embedding"]
    assert given[0]["pack"] == "subspace-general" and "language" not in given[0]
    code, fixed, _ = run(capsys, *base, "--language", "it")
    assert code == 0 and {(r["pack"], r["language_by"]) for r in fixed} == {
        (MULTILINGUAL_SUBSPACE_PACK, "--language")
    }


def test_overrides_and_outputs_that_cannot_hold_the_choice_are_one_line(tmp_path, capsys):
    lines = tmp_path / "docs.txt"
    lines.write_text(f"{ENGLISH}\n{SPANISH}\n", encoding="utf-8")
    base = ["--epsilon", "10", "--input", "lines", str(lines)]
    code, _, err = run(capsys, *base, "--language", "es", "--pack", "subspace-general")
    assert code != 0 and "not both" in err and err.count("\n") == 1
    code, _, err = run(capsys, *base, "--output", str(tmp_path / "out.npy"))
    assert code != 0 and "one pack's coordinates" in err and not (tmp_path / "out.npy").exists()
    code, _, err = run(capsys, *base, "--mechanism", "deepcandidate", "--language", "es")
    assert code != 0 and "--language does not apply to --mechanism deepcandidate" in err


def test_without_the_identifier_the_choice_is_one_clear_error(monkeypatch):
    def missing(name: str) -> None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    monkeypatch.setattr(language_choice.importlib, "import_module", missing)
    with pytest.raises(DependencyError, match="give the language"):
        IDENTIFY_LANGUAGE("Der Zug fährt um acht Uhr ab.")
