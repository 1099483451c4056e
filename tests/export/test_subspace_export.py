"""edgedp-export subspace: a subspace pack from a public JSONL with the bundled encoder, no torch.

The pack loads, references the source pack's encoder pack by digest (no copy of the encoder; a
source that carries its own gets an encoder pack written for it), records its provenance, its mean
and directions are those of the public sentence embeddings, its table is a proper choice, the same
command gives the same bytes, and bad input is one clear error.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from edgedp_export.cli import main as export_main
from edgedp_export.subspace import fit_subspace
from helpers import REPO_ROOT

import edgedp
from edgedp.privacy.noise import KNORM_MAX_DIMS

TOPICS = {
    "market": ["Shares fell sharply on the stock market.", "The bank raised its profit forecast."],
    "sport": ["The team won the cup final.", "Their coach praised the young striker."],
    "music": ["The band released a new album.", "The singer toured across Europe."],
    "vote": ["Parliament voted on the new law.", "The minister resigned after the election."],
    "weather": ["Heavy rain flooded the valley.", "A cold wind blew from the north."],
}


def write_corpus(path: Path, documents: int = 48) -> Path:
    rng = np.random.default_rng(0)
    names = sorted(TOPICS)
    with path.open("w", encoding="utf-8") as out:
        for number in range(documents):
            topic = TOPICS[names[number % len(names)]]
            other = TOPICS[names[(number + 1) % len(names)]]
            chosen = [topic[i] for i in rng.integers(0, 2, 2 + number % 3)] + [other[number % 2]]
            out.write(json.dumps({"id": f"d{number}", "text": " ".join(chosen)}) + "\n")
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    work = tmp_path_factory.mktemp("subspace-export")
    corpus = write_corpus(work / "public.jsonl")
    out = work / "topics"
    args = ["subspace", "--corpus-jsonl", str(corpus), "--license", "CC0-1.0"]
    args += ["--attribution", "the test", "--encoder-from", "sentences-bbc", "--out", str(out)]
    assert export_main(args) == 0
    return corpus, out


def test_the_pack_loads_with_the_source_encoder_and_its_provenance(built):
    corpus, out = built
    pack = edgedp.load_pack(out, kind="subspace")
    source = edgedp.load_pack("sentences-bbc", kind="sentences")
    assert not (out / "encoder.onnx").exists() and not (out / "tokenizer.json").exists()
    assert not (out.parent / "topics-encoder").exists()  # the source's encoder pack is referenced
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["source"]["license"] == "CC0-1.0"
    assert manifest["source"]["attribution"] == "the test"
    assert manifest["encoder"] == source.manifest.data["encoder"]
    assert manifest["encoder"]["pack"] == "encoder-minilm"
    assert all(isinstance(v, str) for v in manifest["built_with"].values())
    assert "torch" not in manifest["built_with"]
    assert manifest["build_command"].startswith(
        "edgedp-export subspace --corpus-jsonl public.jsonl"
    )
    assert pack.check_encoder() > 0.999
    assert corpus.name in manifest["source"]["name"]


def test_mean_and_directions_are_those_of_the_public_documents(built):
    corpus, out = built
    pack = edgedp.load_pack(out, kind="subspace")
    texts = [json.loads(line)["text"] for line in corpus.read_text().splitlines()]
    from edgedp.text.sentences import split_sentences

    documents = [pack.encoder.encode(split_sentences(text)) for text in texts]
    mean, basis, variances = fit_subspace(documents, 64)
    np.testing.assert_allclose(pack.mean, mean, atol=1e-5)
    assert pack.count == basis.shape[0] == len(documents) - 1  # fewer directions than documents
    # The same subspace (signs and order of equal-variance directions aside): P_pack P^T ~ I.
    overlap = np.abs(np.asarray(pack.basis[:5], np.float64) @ basis[:5].T)
    np.testing.assert_allclose(np.diag(overlap), 1.0, atol=1e-3)
    assert np.all(np.diff(variances) <= 1e-12)  # leading first


def test_the_table_is_a_choice_the_runtime_can_serve(built):
    _, out = built
    pack = edgedp.load_pack(out, kind="subspace")
    pure = [r for r in pack.recommendations if r.delta == 0]
    assert pure and all(r.dims <= KNORM_MAX_DIMS for r in pure)
    assert {r.delta for r in pack.recommendations} >= {0.0, 1e-6}
    for row in pack.recommendations:
        assert row.signal is not None and 0.0 <= row.signal <= 1.0
        assert row.clip > 0
    # More sentences or more epsilon never keep less signal.
    for epsilon in (3.0, 10.0):
        chosen = [pack.recommendation(epsilon, 0.0, k) for k in (1, 2, 4, 8, 16, 32)]
        signals = [row.signal for row in chosen]
        assert signals == sorted(signals)
    edgedp.SubspaceMean(pack, epsilon=10.0).release_embeddings(
        [np.zeros((3, pack.dims), np.float32)]
    )


def test_the_same_command_gives_the_same_bytes(built, tmp_path):
    corpus, out = built
    again = tmp_path / "topics"
    args = ["subspace", "--corpus-jsonl", str(corpus), "--license", "CC0-1.0"]
    args += ["--attribution", "the test", "--encoder-from", "sentences-bbc", "--out", str(again)]
    assert export_main(args) == 0
    for name in ("basis.npy", "mean.npy", "manifest.json"):
        assert (
            hashlib.sha256((again / name).read_bytes()).digest()
            == hashlib.sha256((out / name).read_bytes()).digest()
        ), name


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--general", "--corpus-jsonl", "x.jsonl"], "--general builds from its own corpora"),
        (["--directions", "0"], "must be >= 1"),
    ],
)
def test_bad_arguments_are_one_line(built, tmp_path, capsys, extra, message):
    corpus, _ = built
    args = ["subspace", "--encoder-from", "sentences-bbc", "--out", str(tmp_path / "x")]
    if "--corpus-jsonl" not in extra:
        args += ["--corpus-jsonl", str(corpus), "--license", "CC0-1.0"]
    assert export_main(args + extra) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_too_few_documents_is_a_clear_error(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "small.jsonl", documents=8)
    args = ["subspace", "--corpus-jsonl", str(corpus), "--license", "CC0-1.0"]
    args += ["--encoder-from", "sentences-bbc", "--out", str(tmp_path / "x")]
    assert export_main(args) == 1
    assert "at least 20 public documents" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_the_build_never_imports_torch(built, tmp_path):
    corpus, _ = built
    code = (
        "import sys\nfrom edgedp_export.cli import main\n"
        f"status = main(['subspace', '--corpus-jsonl', {str(corpus)!r}, '--license', 'CC0-1.0', "
        f"'--encoder-from', 'sentences-bbc', '--out', {str(tmp_path / 'p')!r}])\n"
        "assert status == 0 and 'torch' not in sys.modules, sorted(sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "encoding public sentences" in result.stderr  # progress on stderr


def test_a_source_that_carries_its_own_encoder_gets_an_encoder_pack(
    built, encoder_pack, tmp_path, capsys
):
    """--encoder-from a pack built before encoder packs: its encoder's bytes become an encoder
    pack beside the output (NAME-encoder, or --encoder-out), which the new pack references; a
    second build reuses it as it is."""
    from sentence_helpers import bundled_sentence_pack

    from edgedp.encoder.pack import EncoderPack

    corpus, _ = built
    old = tmp_path / "old"
    shutil.copytree(bundled_sentence_pack().path, old)
    manifest = json.loads((old / "manifest.json").read_text())
    manifest["encoder"] = json.loads(
        json.dumps(encoder_pack.manifest.data["encoder"], default=dict)
    )
    for name in ("encoder.onnx", "tokenizer.json"):
        (old / name).write_bytes(encoder_pack.manifest.contents(name))
        manifest["files"][name] = dict(encoder_pack.manifest.data["files"][name])
    (old / "manifest.json").write_text(json.dumps(manifest))
    args = ["subspace", "--corpus-jsonl", str(corpus), "--license", "CC0-1.0"]
    out = tmp_path / "built" / "mine"
    assert export_main([*args, "--encoder-from", str(old), "--out", str(out)]) == 0
    written = EncoderPack.load(out.parent / "mine-encoder")
    assert written.manifest.data["encoder"]["copied_from"]["pack"] == "sentences-bbc"
    for name in ("encoder.onnx", "tokenizer.json"):
        assert written.manifest.contents(name) == encoder_pack.manifest.contents(name)
    assert json.loads((out / "manifest.json").read_text())["encoder"] == {
        "pack": "mine-encoder",
        "manifest_sha256": written.manifest.digest,
        "dims": 384,
    }
    assert "references the encoder pack mine-encoder" in capsys.readouterr().err
    pack = edgedp.load_pack(out, kind="subspace")  # the encoder pack beside it
    assert pack.check_encoder() > 0.999
    again = tmp_path / "built" / "again"
    shared = ["--encoder-out", str(out.parent / "mine-encoder")]
    assert export_main([*args, "--encoder-from", str(old), *shared, "--out", str(again)]) == 0
    assert "reusing the encoder pack" in capsys.readouterr().err
    assert EncoderPack.load(out.parent / "mine-encoder").manifest.digest == written.manifest.digest
    assert json.loads((again / "manifest.json").read_text())["encoder"]["pack"] == "mine-encoder"
