"""Each pack type loads itself (``WordPack.load(name)``, ...); ``edgedp.load_pack`` dispatches on
the manifest's kind to the same loaders; a pack of another kind is refused in one clear line."""

from __future__ import annotations

import doctest
import warnings

import pytest

import edgedp
from edgedp.errors import AssetError
from edgedp.packs.loading import LoadablePack, read_pack_manifest
from edgedp.runtime import lazy_names
from edgedp.words.language_model import LanguageModelPack

#: type -> (its default pack, its kind); the document packs are installed as wheels in the suite.
TYPES = {
    edgedp.WordPack: ("words-small", "words"),
    LanguageModelPack: ("lm-general", "lm"),
    edgedp.SentencePack: ("sentences-bbc", "sentences"),
    edgedp.SubspacePack: ("subspace-general", "subspace"),
    edgedp.AutoencoderPack: ("adept-bbc", "autoencoder"),
    edgedp.EncoderPack: ("encoder-minilm", "encoder"),
}


@pytest.mark.parametrize("pack_type", TYPES, ids=lambda t: t.__name__)
def test_a_pack_type_loads_its_default_and_load_pack_gives_the_same_type(pack_type):
    name, kind = TYPES[pack_type]
    pack = pack_type.load()
    assert isinstance(pack, pack_type) and pack.name == name and pack.kind == kind
    assert type(edgedp.load_pack(name)) is pack_type
    assert type(edgedp.load_pack(name, kind=kind)) is pack_type
    assert pack_type.load(pack.path).manifest.digest == pack.manifest.digest


@pytest.mark.parametrize("pack_type", TYPES, ids=lambda t: t.__name__)
def test_a_pack_of_another_kind_is_refused(pack_type):
    other = "words-small" if pack_type is not edgedp.WordPack else "lm-general"
    with pytest.raises(AssetError, match=f"this needs a {TYPES[pack_type][1]} pack$"):
        pack_type.load(other)


@pytest.mark.parametrize("pack_type", TYPES, ids=lambda t: t.__name__)
def test_every_pack_type_loads_through_the_one_classmethod(pack_type):
    assert pack_type.load.__func__ is LoadablePack.load.__func__
    assert pack_type.from_manifest is not LoadablePack.from_manifest


def test_an_expected_digest_pins_the_pack():
    with pytest.raises(AssetError, match=r"is not the expected 0{64}"):
        edgedp.WordPack.load("words-small", expected_digest="0" * 64)
    assert read_pack_manifest(None).name == "words-small"


@pytest.mark.parametrize(
    "function",
    [LoadablePack.load, read_pack_manifest, lazy_names.lazy_names],
    ids=lambda f: f.__qualname__,
)
def test_the_examples_of_the_loaders_run(function):
    tests = doctest.DocTestFinder(recurse=False).find(function, function.__qualname__, globs={})
    assert tests and tests[0].examples
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.UtilityWarning)
        for test in tests:
            runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
