"""edgedp-export sentences on a tiny random sentence-transformers model and a synthetic public
corpus: the pack loads, the fp32 ONNX encoder matches torch, int8 weights stay close, the recoder
trains deterministically, the held-out split is never read, and bad corpora are clear errors. The
encoder is an encoder pack of its own, written beside the pack (or reused) and referenced by
digest; --encoder-from references the source pack's.

Needs the export extra (``pip install "./export[sbert]"``: torch, transformers, onnx, onnxscript).
"""

from __future__ import annotations

import importlib.metadata
import json
import shutil
import string
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("onnxscript")

from edgedp_export import corpus, recoder, sbert_onnx
from edgedp_export.cli import main as export_main
from edgedp_export.commands import sentences as sentences_command
from helpers import REPO_ROOT

import edgedp
from edgedp.encoder.sentence_encoder import SentenceEncoder
from edgedp.errors import InputError

ROOT = REPO_ROOT
TOPICS = {
    "market": ["bank", "market", "shares", "profit", "price", "trade"],
    "sport": ["team", "game", "match", "player", "goal", "coach"],
    "music": ["music", "band", "song", "album", "singer", "stage"],
    "vote": ["vote", "party", "election", "minister", "law", "policy"],
}


def write_tiny_model(folder: Path) -> Path:
    """A 2-layer, 32-d random BERT saved as a sentence-transformers folder (mean pooling)."""
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import BertConfig, BertModel

    words = sorted({word for group in TOPICS.values() for word in group} | {"the", "a", "and"})
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    letters = string.ascii_lowercase + string.digits
    vocab = [*specials, *letters, *string.punctuation, *(f"##{c}" for c in letters), *words]
    folder.mkdir(parents=True)
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tokenizer = Tokenizer(models.WordPiece({w: i for i, w in enumerate(vocab)}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    tokenizer.enable_truncation(128)  # the shipped all-MiniLM-L6-v2 file has these defaults
    tokenizer.enable_padding(length=128, pad_id=0, pad_token="[PAD]")
    tokenizer.save(str(folder / "tokenizer.json"))
    special_map = dict(zip(["pad", "unk", "cls", "sep", "mask"], specials, strict=True))
    (folder / "tokenizer_config.json").write_text(
        json.dumps(
            {"tokenizer_class": "BertTokenizerFast", "do_lower_case": True}
            | {f"{name}_token": token for name, token in special_map.items()}
        )
    )
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
    )
    BertModel(config).eval().save_pretrained(str(folder))
    modules = [("Transformer", ""), ("Pooling", "1_Pooling"), ("Normalize", "2_Normalize")]
    (folder / "modules.json").write_text(
        json.dumps(
            [
                {
                    "idx": i,
                    "name": str(i),
                    "path": path,
                    "type": f"sentence_transformers.models.{t}",
                }
                for i, (t, path) in enumerate(modules)
            ]
        )
    )
    (folder / "1_Pooling").mkdir()
    (folder / "1_Pooling" / "config.json").write_text(
        json.dumps({"word_embedding_dimension": 32, "pooling_mode_mean_tokens": True})
    )
    (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 256}))
    return folder


def write_corpus(path: Path, documents: int = 160) -> Path:
    rng = np.random.default_rng(0)
    topics = sorted(TOPICS)
    with path.open("w", encoding="utf-8") as handle:
        for number in range(documents):
            topic = topics[number % len(topics)]
            sentences = [
                " ".join(rng.choice(TOPICS[topic], size=rng.integers(3, 8))).capitalize() + "."
                for _ in range(rng.integers(6, 14))
            ]
            record = {"id": f"doc-{number}", "text": " ".join(sentences), "label": topic}
            handle.write(json.dumps(record) + "\n")
    return path


def export_sentences(documents: Path, out: Path, *options: str) -> int:
    """edgedp-export sentences on the synthetic public corpus, one thread, into ``out``."""
    return export_main(
        [
            "sentences",
            "--corpus-jsonl",
            str(documents),
            "--license",
            "CC0-1.0",
            *options,
            "--threads",
            "1",
            "--out",
            str(out),
        ]
    )


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("sentence-export")
    model = write_tiny_model(root / "model")
    documents = write_corpus(root / "public.jsonl")
    out = root / "pack"
    code = export_sentences(
        documents,
        out,
        *("--model-dir", str(model), "--weights", "fp32", "--clusters", "4"),
        *("--candidates", "60", "--projections", "20", "--epochs", "3"),
    )
    assert code == 0
    return model, documents, out


def test_pack_loads_and_fp32_onnx_matches_torch(tiny):
    model, _, out = tiny
    pack = edgedp.load_pack(out)
    assert isinstance(pack, edgedp.SentencePack) and pack.dims == 32
    assert pack.check_encoder() >= 0.999
    encoded = pack.encoder.encode(pack.reference_sentences)
    torch_embeddings = sbert_onnx.torch_sentence_embeddings(model, list(pack.reference_sentences))
    assert np.sum(encoded * torch_embeddings, axis=1).min() >= 0.999
    np.testing.assert_allclose(
        pack.recoder.recode(pack.reference_embeddings), pack.reference_recoded, atol=1e-4
    )
    release = edgedp.DeepCandidate(pack, epsilon=5.0).release("Bank shares rose. Profit fell.")
    assert 0 <= release.index < len(pack.candidates) <= 60


def test_manifest_records_provenance_and_no_machine_paths(tiny):
    _, documents, out = tiny
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["source"]["license"] == "CC0-1.0"
    assert manifest["build_command"].startswith(
        "edgedp-export sentences --corpus-jsonl public.jsonl"
    )
    assert str(documents.parent) not in json.dumps(manifest)
    encoder = json.loads((out.parent / "pack-encoder" / "manifest.json").read_text())
    assert (encoder["kind"], encoder["name"]) == ("encoder", "pack-encoder")
    assert encoder["build_command"] == manifest["build_command"]
    assert str(documents.parent) not in json.dumps(encoder)
    fidelity = encoder["encoder"]["fidelity_vs_torch_fp32"]
    assert fidelity["min_cosine"] >= 0.999
    assert fidelity["on"] == f"validation sentences of {manifest['source']['name']} (not shipped)"
    assert set(encoder["built_with"]) <= set(manifest["built_with"]) - {"faiss-cpu"}
    assert manifest["recoder"]["epochs"] <= 3
    assert {row["epsilon"] for row in manifest["projections"]["recommended"]} == {
        1.0,
        3.0,
        6.0,
        10.0,
        23.0,
        30.0,
    }
    sources = (out / "candidate_sources.txt").read_text(encoding="utf-8").split()
    assert {corpus.split_of(source, 10, 0) for source in sources} == {"train"}


def test_int8_weights_stay_close_to_fp32(tiny, tmp_path):
    _, _, out = tiny
    encoder = out.parent / "pack-encoder"
    quantized = tmp_path / "int8.onnx"
    info = sbert_onnx.quantize_weights_int8(encoder / "encoder.onnx", quantized)
    assert info["quantized_parameters"] > 0
    assert quantized.stat().st_size < (encoder / "encoder.onnx").stat().st_size
    pack = edgedp.load_pack(out)
    int8 = SentenceEncoder(quantized, encoder / "tokenizer.json", dims=32, max_seq_length=256)
    cosines = np.sum(int8.encode(pack.reference_sentences) * pack.reference_embeddings, axis=1)
    assert cosines.min() >= 0.999


def test_tokenizer_is_fixed_for_sentence_transformers(tiny):
    model, _, _ = tiny
    fixed = json.loads(sbert_onnx.sentence_transformers_tokenizer(model, 256))
    assert fixed["truncation"]["max_length"] == 256
    assert fixed["padding"]["strategy"] == "BatchLongest"


def test_recoder_training_is_deterministic():
    rng = np.random.default_rng(0)
    documents = [rng.standard_normal((rng.integers(2, 6), 8)).astype(np.float32) for _ in range(30)]
    labels = np.arange(30) % 3

    def train() -> np.ndarray:
        trained = recoder.train_recoder(
            documents[:24],
            labels[:24],
            documents[24:],
            labels[24:],
            clusters=3,
            seed=1,
            max_epochs=2,
        )
        return recoder.recode_with_torch(trained.module, documents[0])

    assert np.array_equal(train(), train())


def test_corpus_errors(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "fine"}\n{"title": "no text"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.jsonl:2"):
        corpus.jsonl_corpus(bad, license_name="x", attribution="")
    with pytest.raises(InputError, match=r"no \.txt files"):
        corpus.folder_corpus(tmp_path / "nothing", license_name="x", attribution="")
    assert export_main(["sentences", "--corpus-jsonl", str(bad), "--out", str(tmp_path / "p")]) == 1
    assert export_main(["sentences", "--out", str(tmp_path / "p")]) == 1


def test_splits_depend_on_the_id_only():
    ids = [f"topic/{number:03d}.txt" for number in range(2000)]
    splits = [corpus.split_of(document_id, 10, 20) for document_id in ids]
    assert splits == [corpus.split_of(document_id, 10, 20) for document_id in reversed(ids)][::-1]
    shares = {name: splits.count(name) / len(ids) for name in corpus.SPLITS}
    assert abs(shares["test"] - 0.2) < 0.03 and abs(shares["validation"] - 0.1) < 0.03


@pytest.mark.parametrize("kind", ["identity", "pca"])
def test_linear_recoders_export_and_load(tiny, tmp_path, kind):
    model, documents, _ = tiny
    out = tmp_path / kind
    extra = ["--components", "5"] if kind == "pca" else []
    code = export_sentences(
        documents,
        out,
        *("--model-dir", str(model), "--weights", "fp32", "--recoder", kind, *extra),
        *("--min-sentences", "4", "--projections", "10"),
    )
    assert code == 0
    pack = edgedp.load_pack(out)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert f"--recoder {kind}" in manifest["build_command"]
    assert manifest["recoder"]["kind"] == kind
    recoded = pack.recoder.recode(pack.reference_embeddings)
    if kind == "identity":
        np.testing.assert_array_equal(recoded, pack.reference_embeddings)
    else:
        assert np.all(recoded[:, 5:] == 0) and np.abs(recoded[:, :5]).max() > 0
    release = edgedp.DeepCandidate(pack, epsilon=5.0).release("Bank shares rose. Profit fell.")
    assert 0 <= release.index < len(pack.candidates)


def test_encoder_reused_from_a_pack_byte_for_byte(tiny, tmp_path, monkeypatch, capsys):
    """--encoder-from references the source pack's encoder pack: same encoder, same embeddings, no
    model, nothing copied."""
    _, documents, source = tiny

    def no_export(*args, **kwargs):
        raise AssertionError("the transformer must not be exported again")

    monkeypatch.setattr("edgedp_export.sentences.export_transformer", no_export)
    monkeypatch.setattr("edgedp_export.sentences.torch_sentence_embeddings", no_export)
    # as in a fresh `pip install "./export[domain]"`, which has no transformers (issue 26: the
    # build recorded built_with transformers: null and the loader refused it, after all the work)
    installed = importlib.metadata.version

    def version(name: str) -> str:
        if name == "transformers":
            raise importlib.metadata.PackageNotFoundError(name)
        return installed(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    out = tmp_path / "domain"
    settings = ["--clusters", "4", "--candidates", "60", "--projections", "20", "--epochs", "2"]
    assert export_sentences(documents, out, "--encoder-from", str(source), *settings) == 0
    assert (out / "reference_embeddings.npy").read_bytes() == (
        (source / "reference_embeddings.npy").read_bytes()
    )
    assert not (out / "encoder.onnx").exists() and not (tmp_path / "domain-encoder").exists()
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    original = json.loads((source / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["encoder"] == original["encoder"]  # the same encoder pack, by digest
    assert f"--encoder-from {original['name']}" in manifest["build_command"]
    # its encoder pack is beside the source, not beside the new pack: said, and found that way
    assert "nor found by name: keep the two together" in capsys.readouterr().err
    monkeypatch.setenv("EDGEDP_PACKS", str(source.parent))
    # only what was used, every version a string
    assert "transformers" not in manifest["built_with"] and "torch" in manifest["built_with"]
    assert all(isinstance(value, str) for value in manifest["built_with"].values())
    pack, reference = edgedp.load_pack(out), edgedp.load_pack(source)
    sentences = ["Bank shares rose.", "The team won the match."]
    np.testing.assert_array_equal(
        pack.encoder.encode(sentences), reference.encoder.encode(sentences)
    )
    assert pack.check_encoder() > 0.99


def test_encoder_from_refuses_weights_and_other_kinds(tiny, tmp_path):
    _, documents, source = tiny
    out = tmp_path / "p"
    assert export_sentences(documents, out, "--encoder-from", str(source), "--weights", "fp32") == 1
    assert export_sentences(documents, out, "--encoder-from", "words-small") == 1
    assert not out.exists()


def test_build_command_records_every_setting_that_applies():
    bundled = json.loads((ROOT / "assets/sentences-bbc/manifest.json").read_text(encoding="utf-8"))
    default = sentences_command.DEFAULT_SENTENCES_PACK
    assert (
        sentences_command.build_command(default, "--default", exported=True)
        == (bundled["build_command"])
    )
    reused = default | {"recoder": "pca", "components": 8, "name": "domain"}
    command = sentences_command.build_command(reused, "--corpus-jsonl d.jsonl", exported=False)
    assert "--weights" not in command and "--clusters" not in command
    for option in ("--recoder pca", "--components 8", "--candidates 5000", "--min-sentences 8"):
        assert option in command


def test_too_few_documents_for_the_clusters_or_the_candidates_say_which_option_to_change():
    """The builder's errors name what the number is and the option that changes it."""
    from edgedp_export.candidates import select_candidates

    with pytest.raises(InputError, match=r"3 training documents cannot make 5 clusters of similar"):
        recoder.cluster_documents(np.zeros((3, 4)), 5, 0)
    with pytest.raises(InputError, match=r"a smaller --clusters"):
        recoder.cluster_documents(np.zeros((3, 4)), 5, 0)
    short = [np.zeros((2, 4)), np.zeros((3, 4))]
    with pytest.raises(InputError, match=r"the fewest a candidate needs \(--min-sentences\)"):
        select_candidates(short, ["a", "b"], min_sentences=4, limit=10, seed=0)


def test_a_fresh_export_reuses_an_encoder_pack_with_the_same_bytes(tiny, tmp_path, capsys):
    """--encoder-out naming an encoder pack that holds this build's encoder (the export is
    deterministic): reused as it is, digest unchanged, and both packs reference it; one that holds
    another encoder is replaced only with --force."""
    from edgedp.encoder.pack import EncoderPack

    model, documents, out = tiny
    encoder = EncoderPack.load(out.parent / "pack-encoder")
    again = tmp_path / "again"
    settings = ["--model-dir", str(model), "--weights", "fp32", "--recoder", "identity"]
    settings += ["--min-sentences", "4", "--projections", "10"]
    shared = ["--encoder-out", str(encoder.path)]
    assert export_sentences(documents, again, *settings, *shared) == 0
    assert "reusing the encoder pack" in capsys.readouterr().err
    assert EncoderPack.load(encoder.path).manifest.digest == encoder.manifest.digest
    reference = json.loads((again / "manifest.json").read_text())["encoder"]
    assert reference == json.loads((out / "manifest.json").read_text())["encoder"]
    other = tmp_path / "other-encoder"
    shutil.copytree(encoder.path, other)
    (other / "encoder.onnx").write_bytes(b"another model")  # not a valid pack any more
    assert (
        export_sentences(documents, tmp_path / "third", *settings, "--encoder-out", str(other)) == 1
    )
    assert "holds another pack than this build's encoder" in capsys.readouterr().err
    assert not (tmp_path / "third").exists()
