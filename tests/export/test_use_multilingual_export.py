"""edgedp-export encoder: the multilingual Universal Sentence Encoder's ONNX graph computes the
architecture as written down here, sentence by sentence (random weights of the real shapes, a
small vocabulary; no source package needed), for a padded batch on onnxruntime and on the numpy
tier alike; and a subspace pack for a non-English domain builds with the multilingual encoder."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnxruntime
import pytest
from edgedp_export.cli import main as export_main
from edgedp_export.use_multilingual import BRANCH, DIMS, ORDERS, use_graph
from threadpoolctl import threadpool_limits

import edgedp
from edgedp.encoder.numpy_graph import NumpyGraph

ROOT = Path(__file__).resolve().parents[2]
CHUNKS = 17
EPSILON = np.float32(1e-12)


def random_weights(rows: int = 3 * CHUNKS) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)

    def normal(*shape: int, scale: float = 0.05) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    weights = {
        "codes": rng.integers(0, 64, (rows, DIMS)).astype(np.uint8),
        "scale": rng.uniform(0.1, 0.7, CHUNKS).astype(np.float32),
        "lo": rng.uniform(-19, -4, CHUNKS).astype(np.float32),
        "eps": np.array(1e-12),
        "ln_g": 1 + normal(1280),
        "ln_b": normal(1280),
        "cnn_W": normal(1280, DIMS),
        "cnn_b": normal(DIMS),
        "d0": normal(DIMS, 320),
        "d1": normal(320, 320),
        "p1": normal(DIMS, 320),
        "d2": normal(320, DIMS),
        "p3": normal(320, DIMS),
        "d3": normal(DIMS, DIMS),
    }
    for order, _ in ORDERS:
        weights |= {
            f"proj{order}": normal(DIMS, BRANCH),
            f"proj_b{order}": normal(BRANCH),
            f"ln_g{order}": 1 + normal(BRANCH),
            f"ln_b{order}": normal(BRANCH),
            f"w1_{order}": normal(order * BRANCH, BRANCH),
            f"b1_{order}": normal(BRANCH),
            f"w2_{order}": normal(order * BRANCH, BRANCH),
            f"b2_{order}": normal(BRANCH),
        }
    return weights


def layer_norm(x: np.ndarray, scale: np.ndarray, bias: np.ndarray) -> np.ndarray:
    centred = x - x.mean()
    return centred / np.sqrt((centred**2).mean() + EPSILON) * scale + bias


def written_down(weights: dict[str, np.ndarray], ids: list[int]) -> np.ndarray:
    """One sentence, token by token, as the exporter's module docstring describes the model."""
    chunk = np.array(ids) % CHUNKS
    embedded = weights["codes"][ids].astype(np.float32) * weights["scale"][chunk, None]
    embedded = embedded + weights["lo"][chunk, None]
    count = len(ids)
    orders = [order for order, _ in ORDERS]
    projection = np.concatenate([weights[f"proj{n}"] for n in orders], 1)
    bias = np.concatenate([weights[f"proj_b{n}"] for n in orders])
    scale = np.concatenate([weights[f"ln_g{n}"] for n in orders])
    shift = np.concatenate([weights[f"ln_b{n}"] for n in orders])
    branches = [layer_norm(e @ projection + bias, scale, shift) for e in embedded]
    features = [list(embedded)]
    for index, (order, left) in enumerate(ORDERS):
        x = [b[index * BRANCH : (index + 1) * BRANCH] for b in branches]
        for layer in (1, 2):
            weight, offset = weights[f"w{layer}_{order}"], weights[f"b{layer}_{order}"]

            def window(t: int, values: list[np.ndarray], order: int = order, left: int = left):
                return np.concatenate(
                    [
                        values[p] if 0 <= p < count else np.zeros(BRANCH, np.float32)
                        for p in range(t - left, t - left + order)
                    ]
                )

            x = [np.maximum(window(t, x) @ weight + offset, 0) + x[t] for t in range(count)]
        features.append(x)
    tokens = [
        layer_norm(np.concatenate([f[t] for f in features]), weights["ln_g"], weights["ln_b"])
        for t in range(count)
    ]
    pooled = (np.sum(tokens, axis=0) @ weights["cnn_W"] + count * weights["cnn_b"]) / np.sqrt(count)
    y0 = np.maximum(pooled @ weights["d0"], 0)
    y1 = np.maximum(pooled @ weights["p1"] + y0 @ weights["d1"], 0)
    y2 = np.maximum(y1 @ weights["d2"], 0)
    z = np.tanh(y1 @ weights["p3"] + y2 @ weights["d3"])
    return z / np.sqrt(max(float(z @ z), float(EPSILON)))


@pytest.fixture(scope="module")
def graph() -> tuple[dict[str, np.ndarray], bytes]:
    weights = random_weights()
    return weights, use_graph(weights).SerializeToString()


def test_the_graph_computes_the_model_on_a_padded_batch_on_both_tiers(graph):
    weights, model = graph
    sentences = [[1, 7, 2], [1, 20, 33, 40, 5, 49, 2], [1, 2], [1, 18, 44, 9, 2]]
    width = max(map(len, sentences))
    ids = np.array([s + [0] * (width - len(s)) for s in sentences], dtype=np.int64)
    mask = np.array([[1] * len(s) + [0] * (width - len(s)) for s in sentences], dtype=np.int64)
    expected = np.stack([written_down(weights, s) for s in sentences])
    session = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
    (native,) = session.run(None, {"input_ids": ids, "attention_mask": mask})
    with threadpool_limits(limits=1, user_api="blas"):
        (numpy_tier,) = NumpyGraph(model, name="encoder.onnx").run(
            None, {"input_ids": ids, "attention_mask": mask}
        )
    assert native.shape == numpy_tier.shape == (4, DIMS)
    assert np.abs(native - expected).max() < 1e-5
    assert np.abs(numpy_tier - expected).max() < 1e-5
    np.testing.assert_allclose(np.linalg.norm(native, axis=1), 1.0, atol=1e-6)


SPANISH = {
    "cocina": [
        "Pica la cebolla y sofríela con aceite de oliva.",
        "Añade el arroz y el caldo caliente poco a poco.",
        "Deja reposar la paella cinco minutos antes de servirla.",
    ],
    "fútbol": [
        "El delantero marcó dos goles en la segunda parte.",
        "El entrenador cambió la defensa tras el descanso.",
        "La afición celebró el título en la plaza mayor.",
    ],
    "tiempo": [
        "Mañana lloverá con fuerza en todo el norte.",
        "Las temperaturas bajarán hasta los cero grados.",
        "El viento soplará del oeste durante la tarde.",
    ],
}


@pytest.mark.slow
def test_a_spanish_domain_pack_builds_with_the_multilingual_encoder(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGEDP_PACKS", str(ROOT / "assets"))  # where its encoder pack is found
    names = sorted(SPANISH)
    corpus = tmp_path / "es.jsonl"
    with corpus.open("w", encoding="utf-8") as out:
        for number in range(45):
            topic = SPANISH[names[number % 3]]
            text = " ".join(topic[(number + i) % 3] for i in range(2 + number % 2))
            out.write(json.dumps({"id": f"d{number}", "text": text}, ensure_ascii=False) + "\n")
    out = tmp_path / "recetas"
    args = ["subspace", "--corpus-jsonl", str(corpus), "--license", "CC0-1.0"]
    args += ["--attribution", "the test", "--directions", "8"]
    args += ["--encoder-from", str(ROOT / "assets" / "subspace-multilingual"), "--out", str(out)]
    assert export_main(args) == 0
    pack = edgedp.load_pack(out, kind="subspace")
    assert pack.manifest.data["encoder"]["pack"] == "encoder-use-multilingual"
    assert pack.dims == 512 and pack.count == 8
    assert pack.check_encoder() > 0.9995
    release = edgedp.SubspaceMean(pack, epsilon=10.0, rng=1).release(
        "El delantero marcó dos goles. La afición celebró el título."
    )
    assert release.sentences == 2 and np.isfinite(release.coordinates).all()
