"""The labelled estimate of ``packs fit``: a numpy linear probe, its floor, and what it ranks."""

from __future__ import annotations

import numpy as np
import pytest
from test_pack_fit import _recommend, _topics

from edgedp.evaluation import task_probe
from edgedp.evaluation.subspace_mean_fit import fit_subspace, subspace_fit


def test_macro_f1_is_the_mean_of_per_class_f1():
    truth = np.array(["a", "a", "a", "b", "b", "c"])
    predicted = np.array(["a", "b", "a", "b", "b", "b"])
    # a: precision 1, recall 2/3 -> 0.8; b: 2/4, 2/2 -> 2/3; c: never predicted -> 0
    assert task_probe.macro_f1(truth, predicted) == pytest.approx((0.8 + 2 / 3 + 0) / 3)


def test_folds_are_stratified_and_cover_every_document_once():
    labels = np.array(["x"] * 23 + ["y"] * 11)
    folds = task_probe.stratified_folds(labels)
    tested = np.concatenate([test for _, test in folds])
    assert sorted(tested) == list(range(len(labels)))
    for train, test in folds:
        assert set(train).isdisjoint(test)
        assert 4 <= np.sum(labels[test] == "x") <= 5 and 2 <= np.sum(labels[test] == "y") <= 3


def _separable(rng, shift: float):
    labels = np.repeat(["a", "b", "c"], 40)
    centres = {tag: shift * rng.standard_normal(8) for tag in "abc"}
    plain = np.stack([centres[tag] for tag in labels]) + rng.standard_normal((120, 8))
    return plain, labels


def test_a_release_equal_to_the_input_keeps_everything_and_noise_keeps_nothing():
    rng = np.random.default_rng(1)
    plain, labels = _separable(rng, 3.0)
    assert task_probe.task_kept(lambda _rng: plain, plain, labels) == pytest.approx(1.0)
    noise = task_probe.task_kept(lambda g: g.standard_normal(plain.shape), plain, labels)
    assert noise is not None and abs(noise) < 0.15
    half = task_probe.task_kept(lambda g: plain + 2 * g.standard_normal(plain.shape), plain, labels)
    assert half is not None and noise + 0.2 < half < 0.95


def test_labels_near_chance_give_no_answer_and_thin_classes_are_refused():
    rng = np.random.default_rng(2)
    plain, labels = _separable(rng, 0.0)  # the labels carry nothing
    assert task_probe.task_kept(lambda _rng: plain, plain, labels) is None
    assert task_probe.usable_labels(labels)
    assert not task_probe.usable_labels(["a"] * 10)
    assert not task_probe.usable_labels(["a"] * 10 + ["b"] * 4)


def test_subspace_fit_reports_the_task_kept_for_a_labelled_sample():
    rng = np.random.default_rng(9)
    documents = _topics(rng, 4, 20, 4, spread=2.0)
    labels = [str(i // 20) for i in range(len(documents))]
    mean, basis, _ = fit_subspace(documents, 16)
    own = subspace_fit("own", mean, basis, _recommend(8, 0.5), documents, labels).task_kept
    assert own is not None and set(own) == {3.0, 10.0, 23.0}
    assert 0.3 < own[3.0] < own[10.0] and own[23.0] > 0.9  # type: ignore[operator]
    # Directions unrelated to the topics keep less at every epsilon.
    foreign_basis = rng.standard_normal((16, 384)) / np.sqrt(384)
    foreign = subspace_fit("general", mean, foreign_basis, _recommend(8, 0.5), documents, labels)
    assert foreign.task_kept is not None
    assert all(foreign.task_kept[e] < own[e] - 0.2 for e in own)  # type: ignore[operator]
    assert subspace_fit("own", mean, basis, _recommend(8, 0.5), documents).task_kept is None


def test_cli_packs_fit_reports_the_labels_task(tmp_path, capsys):
    import json

    from sentence_helpers import orthonormal_rows, write_subspace_pack
    from test_pack_fit import SAMPLE

    from edgedp import cli

    basis = orthonormal_rows(np.random.default_rng(10), 8, 384)
    pack = write_subspace_pack(tmp_path / "sub", basis, real_encoder=True)
    sample = tmp_path / "sample.jsonl"
    records = [{"text": text, "label": f"topic {i}"} for i, text in enumerate(SAMPLE)] * 12
    sample.write_text("".join(json.dumps(record) + "\n" for record in records))
    assert cli.main(["packs", "fit", str(pack), str(sample), "--json"]) in (0, None)
    report = json.loads(capsys.readouterr().out)
    assert set(report["task_kept"]) == {"3", "10", "23"}
    assert cli.main(["packs", "fit", str(pack), str(sample)]) in (0, None)
    assert "your labels" in capsys.readouterr().out


def test_the_probe_has_an_intercept():
    """With features that say nothing, the probe predicts the larger class (the intercept of
    centred features is the class shares), not whichever class comes first."""
    labels = np.array(["a"] * 10 + ["b"] * 90)
    folds = task_probe.stratified_folds(labels)
    f1 = task_probe.probe_f1(np.zeros((100, 3)), labels, folds)
    assert f1 == pytest.approx((0 + 2 * 0.9 / 1.9) / 2)
