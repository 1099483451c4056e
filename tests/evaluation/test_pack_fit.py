"""The fit check: exact expected cosines, neighbour and label signal kept, verdicts, the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sentence_helpers import bundled_sentence_pack, unit_rows

from edgedp import cli
from edgedp.documents.deepcandidate import selection_probabilities
from edgedp.documents.tukey import CandidateDepth
from edgedp.errors import InputError
from edgedp.evaluation.deepcandidate_fit import (
    PackSource,
    fit_from_embeddings,
    label_signal_kept,
    neighbours_kept,
    pack_fit,
)
from edgedp.evaluation.public_sample import read_sample

DIMS = 8


def _clustered(rng, centres, per_centre, sentences, spread):
    """Documents whose sentences scatter around one of ``centres``; labels = the centre."""
    documents, labels = [], []
    for label, centre in enumerate(centres):
        for _ in range(per_centre):
            documents.append(centre + spread * rng.standard_normal((sentences, DIMS)))
            labels.append(str(label))
    return documents, labels


def test_expected_cosine_is_the_exact_mean_over_the_selection_distribution():
    rng = np.random.default_rng(0)
    candidates = unit_rows(rng, 30, DIMS)
    projections = unit_rows(rng, 10, DIMS)
    documents = [rng.standard_normal((k, DIMS)) for k in (2, 5, 9)]
    fit = fit_from_embeddings("t", candidates, projections, {3.0: 10}, documents, documents)
    depth = CandidateDepth(candidates, projections)
    expected = []
    for document in documents:
        mean = document.mean(axis=0)
        cosines = candidates @ mean / np.linalg.norm(candidates, axis=1) / np.linalg.norm(mean)
        expected.append(selection_probabilities(depth.depths(document), 3.0) @ cosines)
    assert fit.expected_cosine[3.0] == pytest.approx(np.mean(expected), abs=1e-4)
    assert fit.random_cosine <= fit.expected_cosine[3.0] <= fit.nearest_cosine + 1e-9
    assert fit.short_share == pytest.approx(1 / 3, abs=1e-4)  # one document of 2 < 4 sentences


def test_in_domain_candidates_fit_and_foreign_candidates_do_not():
    rng = np.random.default_rng(1)
    centres = 3 * unit_rows(rng, 4, DIMS)
    documents, labels = _clustered(rng, centres, 12, 12, 0.6)
    projections = unit_rows(rng, 20, DIMS)
    table = {10.0: 20}
    own = np.stack([d.mean(axis=0) for d in documents[::2]])
    good = fit_from_embeddings("own", own, projections, table, documents, documents, labels)
    assert good.verdict == "good"
    assert good.hits[10.0] > 0.5 and good.relative[10.0] > 0.5
    assert good.neighbours_kept == 1.0 and good.label_signal_kept == pytest.approx(1.0)
    # Candidates from elsewhere: far from every document of the domain.
    foreign = 3 * unit_rows(rng, 24, DIMS) + 6 * np.eye(DIMS)[0]
    poor = fit_from_embeddings("foreign", foreign, projections, table, documents, documents)
    assert poor.verdict == "poor"
    assert poor.hits[10.0] < good.hits[10.0]
    assert any("domain pack" in advice for advice in poor.advice)


def test_a_recoder_that_collapses_the_domain_is_reported():
    rng = np.random.default_rng(2)
    centres = 3 * unit_rows(rng, 4, DIMS)
    documents, labels = _clustered(rng, centres, 12, 10, 0.5)
    # H maps every sentence near one point: what distinguishes the documents is gone.
    recoded = [np.ones_like(d) + 0.3 * rng.standard_normal(d.shape) for d in documents]
    kept = neighbours_kept(
        np.stack([d.mean(0) for d in documents]), np.stack([r.mean(0) for r in recoded])
    )
    assert kept is not None and kept < 0.3
    signal = label_signal_kept(
        np.stack([d.mean(0) for d in documents]), np.stack([r.mean(0) for r in recoded]), labels
    )
    assert signal is not None and signal < 0.5
    candidates = np.stack([r.mean(axis=0) for r in recoded[::3]])
    fit = fit_from_embeddings(
        "c", candidates, unit_rows(rng, 10, DIMS), {10.0: 10}, documents, recoded, labels
    )
    assert fit.verdict == "poor"
    assert any("recoder" in advice for advice in fit.advice)


def test_short_documents_are_flagged_whatever_the_pack():
    rng = np.random.default_rng(3)
    documents = [rng.standard_normal((2, DIMS)) for _ in range(20)]
    candidates = np.stack([d.mean(axis=0) for d in documents])
    fit = fit_from_embeddings(
        "s", candidates, unit_rows(rng, 10, DIMS), {10.0: 10}, documents, documents
    )
    assert fit.short_share == 1.0
    assert any("fewer than 4 sentences" in advice for advice in fit.advice)


def test_read_sample(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"text": "a. b."}\n\n{"text": "c.", "label": "x"}\n', encoding="utf-8")
    assert read_sample(path) == (["a. b.", "c."], None)
    path.write_text('{"text": "a.", "label": 1}\n{"text": "c.", "label": "x"}\n')
    assert read_sample(path) == (["a.", "c."], ["1", "x"])
    path.write_text('{"txt": "a."}\n')
    with pytest.raises(InputError, match="text"):
        read_sample(path)
    path.write_text("")
    with pytest.raises(InputError, match="no documents"):
        read_sample(path)


SAMPLE = [
    "The striker scored twice. The coach praised the defence. Fans sang all night. "
    "The league title is close. The club will sign a new keeper.",
    "Shares fell sharply. The bank raised rates. Investors sold bonds. Oil prices rose. "
    "The central bank warned of inflation.",
    "The band released a new album. Critics loved the songs. The tour starts in May. "
    "Tickets sold out in minutes. The singer thanked the fans.",
]


def test_pack_fit_on_the_bundled_pack_matches_the_embedding_path():
    pack = bundled_sentence_pack()
    fit = pack_fit(pack, SAMPLE * 5)
    assert fit.pack == pack.name and fit.documents == 15
    assert set(fit.expected_cosine) == {3.0, 10.0, 23.0}
    assert fit.projections[10.0] == pack.projections_for(10.0)
    assert fit.random_cosine < fit.expected_cosine[23.0] <= fit.nearest_cosine + 1e-9
    assert fit.short_share == 0.0


def test_cli_packs_fit(tmp_path, capsys):
    sample = tmp_path / "sample.jsonl"
    sample.write_text("".join(json.dumps({"text": t}) + "\n" for t in SAMPLE * 5))
    assert cli.main(["packs", "fit", "sentences-bbc", str(sample), "--json"]) in (0, None)
    report = json.loads(capsys.readouterr().out)
    assert report["documents"] == 15 and set(report["expected_cosine"]) == {"3", "10", "23"}
    assert report["verdict"] == "sample too small"  # 15 documents
    assert cli.main(["packs", "fit", "sentences-bbc", str(sample)]) in (0, None)
    assert "expected cosine" in capsys.readouterr().out
    assert cli.main(["packs", "fit", "words-small", str(sample)]) == 1
    assert "sentences or subspace pack" in capsys.readouterr().err


# -- issue 26 item 7 and issue 24: what packs fit says ---------------------------------------------


def test_a_verdict_from_too_few_documents_says_the_sample_is_too_small():
    rng = np.random.default_rng(4)
    centres = 3 * unit_rows(rng, 2, DIMS)
    documents, _ = _clustered(rng, centres, 1, 10, 0.5)  # 2 documents
    own = np.stack([d.mean(axis=0) for d in documents])
    fit = fit_from_embeddings(
        "own", own, unit_rows(rng, 10, DIMS), {10.0: 10}, documents, documents
    )
    assert fit.verdict == "sample too small"
    assert "too few for a verdict" in fit.advice[0]
    # What the 30 is for, in words (it read "the nearest 5% and the neighbours need at least 30").
    assert (
        "compared with its 10 nearest and its nearest 5% among the other sample documents, "
        "which needs at least 30" in fit.advice[0]
    )


def test_the_rebuild_advice_never_names_the_given_pack():
    rng = np.random.default_rng(5)
    centres = 3 * unit_rows(rng, 4, DIMS)
    documents, _ = _clustered(rng, centres, 12, 12, 0.6)
    foreign = 3 * unit_rows(rng, 24, DIMS) + 6 * np.eye(DIMS)[0]
    for name, out in (("foreign", "my-domain-pack"), ("my-domain-pack", "my-domain-pack-2")):
        fit = fit_from_embeddings(
            name, foreign, unit_rows(rng, 10, DIMS), {10.0: 10}, documents, documents
        )
        (command,) = [a for a in fit.advice if "edgedp-export sentences" in a]
        assert f"--out {out} " in command and f"--encoder-from {name} " in command


def test_a_better_projection_count_is_reported_and_advised():
    rng = np.random.default_rng(6)
    centres = 3 * unit_rows(rng, 4, DIMS)
    documents, _ = _clustered(rng, centres, 12, 12, 0.6)
    candidates = np.stack([d.mean(axis=0) for d in documents[::2]])
    projections = unit_rows(rng, 60, DIMS)
    table = {10.0: 1, 23.0: 1}  # one projection: a poor depth
    fit = fit_from_embeddings(
        "p", candidates, projections, table, documents, documents, alternatives=[1, 30]
    )
    assert fit.best_projections[23.0] == 30 and fit.best_cosine[23.0] > fit.expected_cosine[23.0]
    assert any("--projections 30" in advice for advice in fit.advice)
    # Whatever the pack's table says, the best reported cosine does not fall with epsilon.
    assert fit.best_cosine[23.0] >= fit.best_cosine[10.0] - 1e-9


def test_a_poor_verdict_at_a_high_cosine_says_why():
    rng = np.random.default_rng(7)
    centre = 3 * unit_rows(rng, 1, DIMS)
    documents, _ = _clustered(rng, centre, 40, 10, 0.05)  # one tight domain: all documents alike
    candidates = np.stack([d.mean(axis=0) for d in documents[::4]]) + 0.2
    fit = fit_from_embeddings(
        "tight", candidates, unit_rows(rng, 10, DIMS), {10.0: 10}, documents, documents
    )
    assert fit.expected_cosine[10.0] > 0.9 and fit.verdict == "poor"
    assert any("which domain a document is from" in advice for advice in fit.advice)


def test_few_documents_per_cluster_are_said_once_in_our_words(capfd):
    """The warning ended "fewer --clusters (4)": a bare number a person could read as the
    clusters used. It says what the clusters are for, that 50 were asked for, how thin they
    are, and both fixes as they are typed."""
    pytest.importorskip("faiss")
    from edgedp_export.recoder import cluster_documents

    centroids, labels = cluster_documents(np.random.default_rng(8).standard_normal((120, 8)), 50, 0)
    assert centroids.shape == (50, 8) and labels.shape == (120,)
    err = capfd.readouterr().err
    assert "please provide at least" not in err  # faiss's own line
    (line,) = [line for line in err.splitlines() if line.startswith("edgedp-export: warning:")]
    assert "recoder H is trained to keep 50 clusters of similar documents apart" in line
    assert "120 training documents make about 2 a cluster where k-means wants 39" in line
    assert "give 1,950 or more training documents" in line
    assert line.endswith("--clusters 3")  # 120 // 39, typed as the option is
    assert "(3)" not in line


# -- a pack that already is the domain pack --------------------------------------------------------


def _foreign_fit(source=None, name="my-pack"):
    """A poor fit: candidates far from every document of a 4-topic domain."""
    rng = np.random.default_rng(5)
    centres = 3 * unit_rows(rng, 4, DIMS)
    documents, _ = _clustered(rng, centres, 12, 12, 0.6)
    foreign = 3 * unit_rows(rng, 24, DIMS) + 6 * np.eye(DIMS)[0]
    return fit_from_embeddings(
        name, foreign, unit_rows(rng, 10, DIMS), {10.0: 10}, documents, documents, source=source
    )


def test_a_domain_sentences_pack_is_never_told_to_build_itself():
    """packs fit on a DeepCandidate pack just built with --corpus-jsonl advised "build a domain
    pack ... --encoder-from my-pack": building the pack the user has. A domain pack is told how to
    improve it instead (more documents, clusters its documents can fill)."""
    source = PackSource(corpus="public.jsonl", documents=200, train_documents=182, clusters=50)
    fit = _foreign_fit(source)
    assert fit.verdict == "poor" and fit.built_from == "public.jsonl" and not fit.in_sample
    assert not any("build a domain pack" in advice for advice in fit.advice)
    assert not any("--corpus-jsonl public.jsonl" in advice for advice in fit.advice)
    (domain,) = [a for a in fit.advice if "is itself a domain pack" in a]
    assert "built from 200 public documents (public.jsonl)" in domain
    assert "--corpus-jsonl other-domain.jsonl" in domain  # a sample of another domain
    (clusters,) = [a for a in fit.advice if "clusters (groups of similar documents)" in a]
    assert "182 training documents, about 4 a cluster" in clusters
    assert clusters.endswith("about 2,200 public documents, or with --clusters 4")
    # A general pack (no corpus) is still told to build one.
    general = _foreign_fit()
    assert any("build a domain pack" in advice for advice in general.advice)
    assert general.built_from is None


def test_a_sample_that_is_the_packs_corpus_is_recognised():
    """The sample of the user study was the corpus the pack was built from: the pack already is
    the domain pack of those documents, and the in-sample check flatters it."""
    same = PackSource(
        corpus="public.jsonl", documents=48, train_documents=44, sample_is_corpus=True
    )
    fit = _foreign_fit(same)
    assert fit.verdict == "poor" and fit.in_sample
    assert not any("edgedp-export sentences" in advice for advice in fit.advice)
    assert any("already is the domain pack of these documents" in a for a in fit.advice)
    assert any(
        a.startswith("this sample is public.jsonl, the file my-pack was built from")
        for a in fit.advice
    )
    by_id = PackSource(
        corpus="public.jsonl", documents=48, train_documents=44, sample_candidates=30
    )
    assert _foreign_fit(by_id).in_sample
    assert any(
        a.startswith("30 of the sample's 48 documents are documents my-pack was built from")
        for a in _foreign_fit(by_id).advice
    )
    few = PackSource(corpus="public.jsonl", documents=48, train_documents=44, sample_candidates=3)
    assert not _foreign_fit(few).in_sample


def _domain_pack(tmp_path):
    """The bundled pack, as a domain pack built from ``corpus.jsonl`` (a manifest that says so)."""
    import dataclasses
    import types

    from edgedp.packs.manifest import sha256_file

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(json.dumps({"id": f"doc-{i}", "text": t}) + "\n" for i, t in enumerate(SAMPLE * 12))
    )
    pack = bundled_sentence_pack()
    data = dict(pack.manifest.data)
    data["build_command"] = (
        "edgedp-export sentences --corpus-jsonl corpus.jsonl --license 'PSF-2.0' --encoder-from "
        "sentences-bbc --clusters 50 --name mine --out mine"
    )
    data["source"] = {"documents": 36, "files_sha256": {"corpus.jsonl": sha256_file(corpus)}}
    data["candidates"] = {**data["candidates"], "train_documents": 32}
    data["recoder"] = {**data["recoder"], "clusters": 50}
    sources = tuple(f"doc-{i}" for i in range(len(pack.candidate_sources)))
    fake = dataclasses.replace(
        pack, name="mine", manifest=types.SimpleNamespace(data=data), candidate_sources=sources
    )
    return fake, corpus


def test_pack_source_reads_the_manifest_and_the_sample(tmp_path):
    from edgedp.evaluation.deepcandidate_fit import pack_source

    general = pack_source(bundled_sentence_pack())
    assert general.corpus is None and not general.sample_is_corpus
    pack, corpus = _domain_pack(tmp_path)
    source = pack_source(pack, corpus)
    assert source.corpus == "corpus.jsonl" and source.sample_is_corpus
    assert (source.documents, source.train_documents, source.clusters) == (36, 32, 50)
    assert source.sample_candidates == 36  # every id doc-0..doc-35 is a candidate's
    other = tmp_path / "other.jsonl"
    other.write_text(
        "".join(json.dumps({"id": f"x-{i}", "text": t}) + "\n" for i, t in enumerate(SAMPLE))
    )
    assert not pack_source(pack, other).in_sample(3)
    assert pack_source(pack, other).corpus == "corpus.jsonl"


def test_packs_fit_on_its_own_corpus_says_so(tmp_path, capsys):
    """The user study's loop end to end: a domain pack checked on the file it was built from,
    with a poor fit (candidates far from the documents), is not told to build itself."""
    import dataclasses

    from sentence_helpers import with_candidates

    from edgedp.cli.packs import run_fit

    pack, corpus = _domain_pack(tmp_path)
    rng = np.random.default_rng(12)
    poor = with_candidates(pack, unit_rows(rng, 40, pack.dims), unit_rows(rng, 100, pack.dims))
    poor = dataclasses.replace(poor, candidate_sources=pack.candidate_sources[:40])
    fit = run_fit(poor, corpus)
    out = capsys.readouterr().out
    assert fit.verdict == "poor"
    assert out.startswith("pack mine (a domain pack built from corpus.jsonl): 36 sample documents")
    assert "- this sample is corpus.jsonl, the file mine was built from" in out
    assert "- mine already is the domain pack of these documents" in out
    assert "build a domain pack" not in out and "--encoder-from mine" not in out


# -- subspace packs --------------------------------------------------------------------------------


def _topics(rng, topics: int, per_topic: int, sentences: int, dims: int = 384, spread=0.3):
    centres = unit_rows(rng, topics, dims)
    documents = []
    for centre in centres:
        for _ in range(per_topic):
            document = centre + spread * rng.standard_normal((sentences, dims)) / np.sqrt(dims)
            documents.append(document / np.linalg.norm(document, axis=1, keepdims=True))
    return documents


def _recommend(dims: int, clip: float):
    return lambda epsilon, sentences: (dims, clip)


def test_subspace_fit_prefers_a_pack_that_spans_the_domain():
    from edgedp.evaluation.subspace_mean_fit import fit_subspace, subspace_fit

    rng = np.random.default_rng(9)
    documents = _topics(rng, 6, 15, 12)
    mean, basis, _ = fit_subspace(documents, 16)
    own = subspace_fit("own", mean, basis, _recommend(8, 0.5), documents)
    assert own.verdict == "good" and own.signal[10.0] > 0.5
    assert own.signal[3.0] <= own.signal[10.0] <= own.signal[23.0]
    foreign_basis = unit_rows(rng, 16, 384)  # directions unrelated to the domain
    foreign = subspace_fit("general", mean, foreign_basis, _recommend(8, 0.5), documents)
    assert foreign.verdict == "poor" and foreign.signal[10.0] < own.signal[10.0] - 0.1
    assert foreign.domain_signal is not None
    assert foreign.domain_signal[10.0] >= foreign.signal[10.0] + 0.1
    (command,) = [a for a in foreign.advice if "edgedp-export subspace" in a]
    assert "--encoder-from general " in command and "--out my-subspace-pack " in command
    small = subspace_fit("general", mean, foreign_basis, _recommend(8, 0.5), documents[:10])
    assert small.verdict == "sample too small" and small.domain_signal is None


def test_subspace_fit_compares_with_a_domain_pack_at_a_median_off_the_grid():
    """A sample of 60 or more documents whose median length is not a k of the export grid (7)
    ended in "internal error: KeyError: 7" (issue 32): the domain estimate is made at that k."""
    from edgedp.evaluation.subspace_mean_fit import SENTENCES_GRID, fit_subspace, subspace_fit

    documents = _topics(np.random.default_rng(9), 6, 15, 7)
    assert 7 not in SENTENCES_GRID and len(documents) >= 60
    mean, basis, _ = fit_subspace(documents, 16)
    fit = subspace_fit("own", mean, basis, _recommend(8, 0.5), documents)
    assert fit.median_sentences == 7 and fit.domain_signal is not None
    assert set(fit.domain_signal) == {3.0, 10.0, 23.0}
    assert all(0.0 <= value <= 1.0 for value in fit.domain_signal.values())


def test_cli_packs_fit_on_a_subspace_pack(tmp_path, capsys):
    from sentence_helpers import orthonormal_rows, write_subspace_pack

    basis = orthonormal_rows(np.random.default_rng(10), 8, 384)
    pack = write_subspace_pack(tmp_path / "sub", basis, real_encoder=True)
    sample = tmp_path / "sample.jsonl"
    sample.write_text("".join(json.dumps({"text": t}) + "\n" for t in SAMPLE * 12))
    assert cli.main(["packs", "fit", str(pack), str(sample), "--json"]) in (0, None)
    report = json.loads(capsys.readouterr().out)
    assert report["documents"] == 36 and set(report["signal"]) == {"3", "10", "23"}
    assert report["verdict"] in ("good", "poor")
    assert cli.main(["packs", "fit", str(pack), str(sample)]) in (0, None)
    assert "signal kept" in capsys.readouterr().out


def test_packs_fit_reports_progress_while_it_encodes(tmp_path, capsys, monkeypatch):
    """packs fit ran 20-45 s with nothing on screen (issue 34): the encoding reports progress
    (on a terminal; here asked for with EDGEDP_PROGRESS=1, which prints from the start)."""
    from sentence_helpers import orthonormal_rows, write_subspace_pack

    monkeypatch.setenv("EDGEDP_PROGRESS", "1")
    basis = orthonormal_rows(np.random.default_rng(11), 8, 384)
    pack = write_subspace_pack(tmp_path / "sub", basis, real_encoder=True)
    sample = tmp_path / "sample.jsonl"
    sample.write_text("".join(json.dumps({"text": t}) + "\n" for t in SAMPLE * 12))
    assert cli.main(["packs", "fit", str(pack), str(sample)]) in (0, None)
    err = capsys.readouterr().err
    from edgedp.text.sentences import split_sentences  # the tier's splitter (rules or sentencex)

    count = 12 * sum(len(split_sentences(text)) for text in SAMPLE)
    assert (
        f"packs fit: sample sentences encoded: {count} sentences of {count} sentences (100%)" in err
    )


def test_a_domain_pack_is_never_told_to_build_a_domain_pack():
    """Given the pack built from that very domain, packs fit advised building a domain pack, the
    same circular advice as before (issue 34): a domain pack gets advice that can be followed."""
    from edgedp.evaluation.subspace_mean_fit import subspace_fit

    rng = np.random.default_rng(9)
    documents = _topics(rng, 6, 15, 12)
    mean = np.concatenate(documents).mean(axis=0)
    unrelated = unit_rows(rng, 16, 384)
    general = subspace_fit("general", mean, unrelated, _recommend(8, 0.5), documents)
    assert general.verdict == "poor"
    assert any("edgedp-export subspace --corpus-jsonl" in a for a in general.advice)
    own = subspace_fit("mine", mean, unrelated, _recommend(8, 0.5), documents, None, True)
    assert own.verdict == "poor"
    assert not any("edgedp-export subspace" in advice for advice in own.advice)
    assert any("was itself built from a domain corpus" in advice for advice in own.advice)
