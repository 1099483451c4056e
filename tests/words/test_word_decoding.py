"""Decoders (edgedp.words.decoding): post-processing of the noisy releases, never of the input.

A release decoded in another process gives the same words as the mechanism itself (the decoder
needs nothing but the release); the guarantee does not move; fixed slots stay fixed; ``map`` with
one candidate is ``nearest``; Viterbi finds the best sequence (checked by brute force); each space's
likelihood is its exact noise law; and on a corpus whose order the language model knows, context
decoding recovers more words than nearest decoding at the same noise.
"""

from __future__ import annotations

import itertools
import json
import math
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from edgedp_export.corpus import PublicCorpus, PublicDocument
from edgedp_export.language_model import LanguageModelConfig, build_language_model_pack
from helpers import rr_exact_probability

import edgedp
from edgedp.errors import AssetError, InputError
from edgedp.privacy.noise import multivariate_laplace_radius_scale
from edgedp.registry import WORD_MECHANISMS
from edgedp.words.decoding import PERTURBED, Decoder, NoisyRelease
from edgedp.words.language_model import START

#: Sentences of the planted pack's words: word i of cluster c is followed by word i of cluster
#: c + 1, so a bigram model knows which member of a cluster comes next.
LENGTH = 6


def grammar_sentence(words: list[str], start: int, member: int) -> str:
    return " ".join(words[((start + step) % 20) * 10 + member] for step in range(LENGTH)) + "."


@pytest.fixture(scope="module")
def language_model(euclid_pack, planted, tmp_path_factory):
    words, _, _ = planted
    texts = [grammar_sentence(words, start, member) for start in range(20) for member in range(10)]
    documents = tuple(PublicDocument(f"d{n}", text) for n, text in enumerate(texts * 3))
    corpus = PublicCorpus(
        documents, {"name": "synthetic", "license": "CC0-1.0", "attribution": "tests"}, 0, 0
    )
    config = LanguageModelConfig("planted-lm", "edgedp-export lm (test)", min_count=1)
    out = tmp_path_factory.mktemp("decoding") / "planted-lm"
    return edgedp.load_pack(
        build_language_model_pack({"grammar": corpus}, euclid_pack, config, out), kind="lm"
    )


def test_context_decoding_recovers_words_the_language_model_predicts(
    euclid_pack, planted, language_model, seeded
):
    words, _, _ = planted
    texts = [
        grammar_sentence(words, start, member) for start in range(0, 20, 3) for member in (1, 4, 7)
    ]
    truth = " ".join(texts).replace(".", "").split()
    kept = {}
    for decode in ("nearest", "map", "context"):
        options = {} if decode == "nearest" else {"language_model": language_model}
        madlib = edgedp.Madlib(
            euclid_pack, epsilon=4.0, rng=seeded(3), decode=decode, protect=(), **options
        )
        out = " ".join(madlib.privatize_batch(texts)).replace(".", "").split()
        kept[decode] = np.mean([a == b for a, b in zip(out, truth, strict=True)])
    assert kept["nearest"] < 0.8  # the noise confuses the members of a cluster
    assert kept["context"] > kept["nearest"] + 0.15
    assert kept["context"] > kept["map"]


def test_map_with_one_candidate_is_nearest_and_the_guarantee_does_not_move(
    euclid_pack, language_model, seeded
):
    text = "waa0 wab0 wzz9 wac0. wad0 wae0"
    for name in ("brr", "madlib", "mahalanobis"):
        cls = WORD_MECHANISMS[name]
        plain = cls(euclid_pack, epsilon=2.0, rng=seeded(5), oov="mask")
        decoded = cls(
            euclid_pack,
            epsilon=2.0,
            rng=seeded(5),
            oov="mask",
            decode="map",
            candidates=1,
            language_model=language_model,
        )
        assert decoded.privatize(text) == plain.privatize(text)
        assert decoded.guarantee() == plain.guarantee()


def test_a_decoded_vickrey_release_is_its_perturbation_decoded(euclid_pack, language_model, seeded):
    """Vickrey perturbs as Madlib (or BRR) does; decoding replaces its random choice among the
    nearest, so with one candidate it prints Madlib's nearest word for the same noise."""
    text = "waa0 wab0 wac0. wad0 wae0 waf0"
    madlib = edgedp.Madlib(euclid_pack, epsilon=2.0, rng=seeded(8))
    vickrey = edgedp.Vickrey(
        euclid_pack,
        epsilon=2.0,
        t=0.7,
        geometry="euclidean",
        rng=seeded(8),
        decode="map",
        candidates=1,
        language_model=language_model,
    )
    assert vickrey.privatize(text) == madlib.privatize(text)
    assert vickrey.guarantee() == edgedp.Vickrey(euclid_pack, epsilon=2.0, t=0.7).guarantee()


def test_fixed_slots_stay_fixed(euclid_pack, language_model, seeded):
    madlib = edgedp.Madlib(
        euclid_pack,
        epsilon=1.0,
        rng=seeded(2),
        oov="mask",
        decode="context",
        language_model=language_model,
    )
    out = madlib.privatize("waa0 Zorbulak wab0, 12 March wac0.")
    assert out.split()[1] == "[OOV]" and "[OOV]" in out.split()[3:5]


_DECODE_ELSEWHERE = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import edgedp
    from edgedp.words.decoding import Decoder, NoisyRelease
    words = edgedp.load_pack(sys.argv[1])
    model = edgedp.load_pack(sys.argv[2], kind="lm")
    data = np.load(sys.argv[3])
    release = NoisyRelease(
        data["points"], data["fixed"], tuple(tuple(s) for s in json.loads(sys.argv[4]))
    )
    space = edgedp.BRR(words, epsilon=float(sys.argv[5])).space
    print(json.dumps(Decoder(space, model, mode="context", candidates=8).decode(release).tolist()))
    """
)


def test_a_release_decoded_in_another_process_gives_the_same_words(
    euclid_pack, planted, language_model, seeded, tmp_path
):
    """The decoder needs only the release: another process, which never sees the text, decodes
    it to exactly the words the mechanism prints."""
    words, _, _ = planted
    texts = [grammar_sentence(words, 0, 2) + " " + grammar_sentence(words, 5, 3), "Bob wab0."]

    def mechanism():
        return edgedp.BRR(
            euclid_pack,
            epsilon=0.5,
            rng=seeded(11),
            oov="mask",
            decode="context",
            candidates=8,
            language_model=language_model,
        )

    release = mechanism().noisy_release(texts)
    np.savez(tmp_path / "release.npz", points=release.points, fixed=release.fixed)
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            _DECODE_ELSEWHERE,
            str(euclid_pack.path),
            str(language_model.path),
            str(tmp_path / "release.npz"),
            json.dumps(release.sentences),
            "0.5",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    decoded = np.array(json.loads(result.stdout))
    vocabulary = euclid_pack.vocabulary
    printed = [vocabulary[i] if i >= 0 else "[OOV]" for i in decoded]
    expected = " ".join(mechanism().privatize_batch(texts)).replace(".", "").split()
    assert printed == expected
    assert list(release.fixed).count(PERTURBED) == len(release.points)


def test_euclidean_noisy_points_are_not_offered_as_a_release(euclid_pack, seeded):
    # Float vectors plus continuous noise have holes in their support: on a 1-D pack at epsilon 1,
    # ~2 % of one word's points cannot come from a neighbour 0.01 away. They stay in the process.
    for mechanism in (edgedp.Madlib, edgedp.Mahalanobis):
        with pytest.raises(InputError, match="not a release"):
            mechanism(euclid_pack, epsilon=3.0, rng=seeded(1)).noisy_release(["wab0"])
    release = edgedp.BRR(euclid_pack, epsilon=0.5, rng=seeded(1)).noisy_release(["wab0 Bob"])
    assert release.points.dtype == np.uint8  # exact bits: the release an app may send
    # the guarded name is marked as not perturbed although oov="sample" printed a word there
    assert release.fixed[0] == PERTURBED and release.fixed[1] >= 0 and len(release.points) == 1


def test_viterbi_finds_the_best_sequence(euclid_pack, language_model, seeded):
    space = edgedp.Madlib(euclid_pack, epsilon=1.5, rng=seeded(4)).space
    decoder = Decoder(space, language_model, mode="context", candidates=3)
    rng = np.random.default_rng(0)
    for _ in range(10):
        points = space.perturb(rng.integers(0, len(euclid_pack.vocabulary), 4))
        release = NoisyRelease(points, np.full(4, PERTURBED), ((0, 1, 2, 3),))
        got = decoder.decode(release)
        distances, ids = space.nearest(points, 3)
        emission = space.log_likelihood(points, distances, ids)

        def score(path: tuple[int, ...], ids=ids, emission=emission) -> float:
            chosen = [ids[slot, c] for slot, c in enumerate(path)]
            total = sum(emission[slot, c] for slot, c in enumerate(path))
            previous = START
            for word in chosen:
                total += language_model.transition(np.array([previous]), np.array([word]))[0, 0]
                previous = word
            return total + language_model.end(np.array([previous]))[0]

        best = max(itertools.product(range(3), repeat=4), key=score)
        assert got.tolist() == [ids[slot, c] for slot, c in enumerate(best)]


def test_likelihoods_are_the_noise_laws(euclid_pack, seeded):
    brr = edgedp.BRR(euclid_pack, epsilon=0.7, rng=seeded(1))
    point = brr.space.perturb(np.array([3]))
    distances, ids = brr.space.nearest(point, 5)
    got = brr.space.log_likelihood(point, distances, ids)[0]
    as_int = [int.from_bytes(euclid_pack.codes[i].tobytes(), "big") for i in ids[0]]
    target = int.from_bytes(point[0].tobytes(), "big")
    exact = [math.log(rr_exact_probability(c, target, 64, brr.flip_probability)) for c in as_int]
    assert np.allclose(got - got[0], np.array(exact) - exact[0])

    mahalanobis = edgedp.Mahalanobis(euclid_pack, epsilon=2.0, lam=0.5, rng=seeded(1))
    point = mahalanobis.space.perturb(np.array([7]))
    distances, ids = mahalanobis.space.nearest(point, 4)
    got = mahalanobis.space.log_likelihood(point, distances, ids)[0]
    inverse = np.linalg.inv(mahalanobis.metric_matrix)
    offsets = point[0] - np.asarray(euclid_pack.vectors[ids[0]], dtype=np.float64)
    norms = np.sqrt(np.einsum("kd,de,ke->k", offsets, inverse, offsets))
    assert np.allclose(got, -norms / multivariate_laplace_radius_scale(2.0), rtol=1e-12)


def test_bad_decoder_settings_are_clear_errors(euclid_pack, tiny_pack, language_model):
    with pytest.raises(InputError, match="decode"):
        edgedp.Madlib(euclid_pack, epsilon=1.0, decode="beam")
    with pytest.raises(InputError, match="candidates"):
        edgedp.Madlib(
            euclid_pack, epsilon=1.0, decode="map", candidates=0, language_model=language_model
        )
    with pytest.raises(InputError, match="sampled word"):
        edgedp.TEM(euclid_pack, epsilon=1.0, decode="context", language_model=language_model)
    with pytest.raises(AssetError, match="built for the vocabulary"):
        edgedp.BRR(tiny_pack, epsilon=1.0, decode="context", language_model=language_model)
    with pytest.raises(AssetError, match="language model pack"):
        edgedp.BRR(tiny_pack, epsilon=1.0, decode="map", language_model="no-such-lm")


def test_a_language_model_is_found_at_once_and_read_at_its_first_decode(
    euclid_pack, tiny_pack, language_model, planted, seeded, tmp_path
):
    """Issue 50: a mechanism that never decodes (another language's, in a multilingual chat)
    holds none of its model; what can be told from the manifests is still an error at once, and
    the files are verified when they are read."""
    copy = tmp_path / "planted-lm"
    shutil.copytree(language_model.path, copy)
    with pytest.raises(AssetError, match="built for the vocabulary"):
        edgedp.BRR(tiny_pack, epsilon=1.0, decode="context", language_model=str(copy))
    mechanism = edgedp.Madlib(
        euclid_pack, epsilon=1.0, decode="context", language_model=str(copy), rng=seeded(3)
    )
    following = copy / str(language_model.manifest.section("lm")["following"])
    changed = bytearray(following.read_bytes())
    changed[-1] ^= 1
    following.write_bytes(bytes(changed))  # after the mechanism was built: not read yet
    words = " ".join(planted[0][:LENGTH])
    with pytest.raises(AssetError, match="SHA-256"):
        mechanism.privatize(words)
    built = edgedp.Madlib(
        euclid_pack, epsilon=1.0, decode="context", language_model=language_model, rng=seeded(3)
    )
    assert built.decoder is not None and built.decoder.language_model is language_model


def test_the_cli_decodes_with_a_language_model_pack(euclid_pack, language_model):
    def run(*flags: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "edgedp.cli",
                "privatize",
                "--mechanism",
                "madlib",
                "--epsilon",
                "3",
                "--pack",
                str(euclid_pack.path),
                *flags,
            ],
            input="waa0 wab0 wac0.\n",
            capture_output=True,
            text=True,
        )

    done = run("--decode", "context", "--lm", str(Path(language_model.path)))
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.split()) == 3
    refused = run("--candidates", "4")
    assert refused.returncode != 0 and "--decode map or context" in refused.stderr


def test_corpus_jobs_decode_with_the_language_model_they_name(euclid_pack, language_model):
    """Spark and Dask build each partition's mechanism from the job's options: the decoder and
    its language model (by path or name) travel with them."""
    import pandas as pd

    from edgedp.engines import corpus

    texts = ["waa0 wab0 wac0.", None, "wad0 wae0."]
    with pytest.warns(edgedp.NotPrivateWarning):
        job = corpus.plan_privatize(
            pack=str(euclid_pack.path),
            mechanism="madlib",
            epsilon=3.0,
            seed=1,
            decode="context",
            language_model=str(language_model.path),
        )
    (out,) = corpus.privatize_batches([pd.DataFrame({"text": texts})], job, partition=0)
    assert out["text"][1] is None
    assert [len(text.split()) for text in out["text"][::2]] == [3, 2]
    with pytest.raises(InputError, match="sampled word"):
        corpus.plan_privatize(
            pack=str(euclid_pack.path),
            mechanism="tem",
            epsilon=3.0,
            decode="context",
            language_model=str(language_model.path),
        )


class _LeakyDecoding(edgedp.Madlib):
    """A broken 'decoder' that reads the input: half the time it prints the input word itself."""

    def privatize_ids(self, word_ids):
        released = super().privatize_ids(word_ids)
        leak = np.random.default_rng(0).random(len(word_ids)) < 0.5
        return np.where(leak, word_ids, released)


@pytest.mark.slow
def test_the_audit_finds_no_loss_above_the_bound_with_a_decoder_and_catches_a_leaky_one(
    euclid_pack, language_model, seeded
):
    """Black-box audit of Madlib + context decoding on two words of one cluster: the loss stays
    within epsilon * d; the same audit catches a decoder that reads the input."""
    from edgedp.evaluation.audit import audit_pair

    first, second = 0, 1  # neighbours in the planted space: d is small
    distance = float(np.linalg.norm(euclid_pack.vectors[first] - euclid_pack.vectors[second]))
    epsilon = 1.0 / distance  # a claimed loss of 1 for the pair

    def sampler(cls, word, seed):
        mechanism = cls(
            euclid_pack,
            epsilon=epsilon,
            rng=seeded(seed),
            decode="context",
            candidates=4,
            language_model=language_model,
        )
        return lambda n: mechanism.privatize_ids(np.full(n, word))

    fair = audit_pair(
        sampler(edgedp.Madlib, first, 1),
        sampler(edgedp.Madlib, second, 2),
        claimed_epsilon=1.0,
        samples=20_000,
    )
    assert fair.epsilon_lower_bound <= 1.0
    leaky = audit_pair(
        sampler(_LeakyDecoding, first, 3),
        sampler(_LeakyDecoding, second, 4),
        claimed_epsilon=1.0,
        samples=20_000,
    )
    assert leaky.epsilon_lower_bound > 1.0
