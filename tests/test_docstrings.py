"""The public names' docstrings are numpydoc (as diffprivlib's), and their Examples run.

For every finished name of ``edgedp.__all__`` (listed here, so that a name losing its sections
fails): a one-line summary and an extended summary, a ``Parameters`` section where the callable
takes parameters, ``Notes`` for the mechanisms (their guarantee), an ``Examples`` section, no
"issue N" reference; and the Examples pass as doctests (ELLIPSIS and NORMALIZE_WHITESPACE).
numpydoc's parser is not installed: the section headers are matched as numpydoc writes them, a
title on its own line underlined with dashes of its length.
"""

from __future__ import annotations

import doctest
import inspect
import re
import warnings

import pytest

import edgedp
from edgedp import registry


def registered(*registries: registry.MechanismRegistry) -> tuple[str, ...]:
    """The public names of the classes of ``registries``."""
    return tuple(found[name].__name__ for found in registries for name in found)


#: Word mechanisms (every keyword of WordOptions documented).
WORD_MECHANISMS = (*registered(registry.WORD_MECHANISMS), "WordMechanism")
#: Document mechanisms, ADePT and what they release.
DOCUMENT_MECHANISMS = (
    *registered(
        registry.DOCUMENT_MECHANISMS, registry.DOCUMENT_BASELINES, registry.SENTENCE_REWRITERS
    ),
    "WordLevelEmbedding",
    "SentenceMechanism",
)
RELEASES = ("SubspaceRelease", "CandidateRelease")
#: The rest of the finished callables with parameters.
OTHERS = (
    *("load_pack", "explain", "equivalent_epsilon", "set_num_threads", "PrivacyLedger"),
    *("Guarantee", "Mechanism", "WordPack", "SentencePack", "SubspacePack", "AutoencoderPack"),
    "EncoderPack",
    "Multilingual",
)
#: Finished names whose constructor takes no parameter of its own (no Parameters section).
WITHOUT_PARAMETERS = (
    "list_packs",
    "RandomSource",
    "EdgedpError",
    "PrivacyParameterError",
    "InputError",
    "AssetError",
    "BudgetError",
    "RandomnessError",
    "NotPrivateWarning",
    "UtilityWarning",
    "ShortDocumentWarning",
)
FINISHED = WORD_MECHANISMS + DOCUMENT_MECHANISMS + RELEASES + OTHERS + WITHOUT_PARAMETERS
WITH_PARAMETERS = WORD_MECHANISMS + DOCUMENT_MECHANISMS + RELEASES + OTHERS

#: Every keyword of edgedp.words.mechanism.WordOptions, with the choices a word mechanism's
#: docstring must name.
WORD_OPTIONS = {
    "rng": (),
    "oov": ('"sample"', '"mask"', '"drop"', '"placeholder"'),
    "casing": ('"lower"', '"sentence"'),
    "protect": (),
    "deny": (),
    "decode": ('"auto"', '"nearest"', '"map"', '"context"'),
    "candidates": (),
    "language_model": (),
}


def section(name: str) -> re.Pattern[str]:
    """A numpydoc section header: the title alone on its line, underlined by as many dashes."""
    return re.compile(rf"^\s*{name}\n\s*{'-' * len(name)}\n", re.MULTILINE)


def doc(name: str) -> str:
    text = inspect.getdoc(getattr(edgedp, name))
    assert text, f"{name} has no docstring"
    return text


def parameter_names(text: str) -> list[str]:
    """The names documented in the Parameters section (``name : type`` lines)."""
    body = section("Parameters").split(text, maxsplit=1)[1]
    body = re.split(r"^\S.*\n-+\n", body, maxsplit=1, flags=re.MULTILINE)[0]
    return re.findall(r"^(\*{0,2}\w+) :", body, re.MULTILINE)


def test_every_public_class_and_function_is_finished():
    """A new public name joins one of the lists above (and so gets its sections checked)."""
    assert set(FINISHED) == set(edgedp.__all__) - {"__version__", "OOV_MASK"}  # OOV_MASK: a str
    for name in FINISHED:
        obj = getattr(edgedp, name)
        assert inspect.isclass(obj) or inspect.isfunction(obj), name


@pytest.mark.parametrize("name", FINISHED)
def test_summary_and_sections(name):
    text = doc(name)
    summary, _, rest = text.partition("\n\n")
    assert "\n" not in summary and summary.endswith("."), f"{name}: a one-line summary"
    assert rest and not re.match(r"\S+\n-+\n", rest), f"{name}: an extended summary"
    assert section("Examples").search(text), f"{name}: Examples"
    assert ">>> " in text.split("Examples", 1)[1], f"{name}: an example to run"
    assert not re.search(r"\bissues? \d", text), f"{name}: an issue number"


@pytest.mark.parametrize("name", WITH_PARAMETERS)
def test_parameters_section(name):
    text = doc(name)
    assert section("Parameters").search(text), f"{name}: Parameters"
    obj = getattr(edgedp, name)
    signature = inspect.signature(obj.__init__ if inspect.isclass(obj) else obj)
    documented = parameter_names(text)
    for parameter in signature.parameters.values():
        if parameter.name == "self" or parameter.kind is parameter.VAR_KEYWORD:
            continue
        assert parameter.name in documented, f"{name}: parameter {parameter.name}"


@pytest.mark.parametrize("name", WORD_MECHANISMS)
def test_word_mechanisms_document_every_word_option(name):
    text = doc(name)
    documented = parameter_names(text)
    for option, choices in WORD_OPTIONS.items():
        assert option in documented, f"{name}: {option}"
        for choice in choices:
            assert choice in text, f"{name}: {option} {choice}"
    for heading in ("Raises", "Notes"):
        assert section(heading).search(text), f"{name}: {heading}"


@pytest.mark.parametrize("name", WORD_MECHANISMS + DOCUMENT_MECHANISMS)
def test_mechanisms_state_their_guarantee_in_notes(name):
    text = doc(name)
    assert section("Raises").search(text), f"{name}: Raises"
    notes = section("Notes").split(text, maxsplit=1)
    assert len(notes) == 2 and "uarantee" in notes[1], f"{name}: the guarantee in Notes"


#: The finished names whose source is a paper (References): every registered mechanism.
FROM_PAPERS = registered(
    registry.WORD_MECHANISMS, registry.DOCUMENT_MECHANISMS, registry.SENTENCE_REWRITERS
)


@pytest.mark.parametrize("name", FROM_PAPERS)
def test_papers_are_referenced(name):
    assert section("References").search(doc(name)), name


@pytest.mark.parametrize("name", FINISHED)
def test_examples_run(name):
    finder = doctest.DocTestFinder(recurse=False)
    tests = finder.find(getattr(edgedp, name), name, globs={})
    assert tests and tests[0].examples, name
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", edgedp.UtilityWarning)
        for test in tests:
            runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
