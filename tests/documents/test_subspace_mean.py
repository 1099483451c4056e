"""SubspaceMean: the guarantee, the exact lattice release, the sensitivity with its widening, the
noise law, the audit, short documents, the per-length choice of d' and C, lifting, real text."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats
from sentence_helpers import orthonormal_rows, write_subspace_pack

import edgedp
from edgedp.errors import InputError, PrivacyParameterError
from edgedp.evaluation.audit import audit_pair
from edgedp.privacy import noise

DIMS = 384


@pytest.fixture(scope="module")
def pack(tmp_path_factory) -> edgedp.SubspacePack:
    basis = orthonormal_rows(np.random.default_rng(0), 8, DIMS)
    return edgedp.load_pack(write_subspace_pack(tmp_path_factory.mktemp("s") / "sub", basis))


def _sentences(rng, k, scale=0.05):
    return (scale * rng.standard_normal((k, DIMS))).astype(np.float32)


def _seeded_mechanism(pack, seeded, **options):
    return edgedp.SubspaceMean(pack, rng=seeded(options.pop("seed", 1)), **options)


# -- the promise -----------------------------------------------------------------------------------


def test_guarantee_states_the_relation_and_the_noise(pack):
    pure = edgedp.SubspaceMean(pack, epsilon=3.0)
    assert pure.guarantee().epsilon == 3.0 and pure.guarantee().delta == 0.0
    assert "one sentence" in pure.guarantee().relation
    assert "not protected" in pure.guarantee().protects
    assert pure.group_guarantee(4).epsilon == 12.0  # m epsilon, exactly
    gaussian = edgedp.SubspaceMean(pack, epsilon=3.0, delta=1e-6)
    assert gaussian.guarantee().delta == 1e-6
    group = gaussian.group_guarantee(2)
    # m^2 rho-zCDP: worse than epsilon, far better than the naive 2 epsilon with e^epsilon delta
    assert 3.0 < group.epsilon < 2 * 3.0 + 1.0 and group.delta == 1e-6
    event = gaussian.privacy_cost(["a. b."] * 3)
    assert event.count == 3 and event.delta == pytest.approx(3e-6)


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"epsilon": 0.0}, PrivacyParameterError),
        ({"epsilon": math.inf}, PrivacyParameterError),
        ({"epsilon": 1.0, "delta": 0.0}, PrivacyParameterError),
        ({"epsilon": 1.0, "delta": 1.0}, PrivacyParameterError),
        ({"epsilon": 1.0, "dims": 9}, InputError),
        ({"epsilon": 1.0, "dims": 0}, InputError),
        ({"epsilon": 1.0, "clip": 0.3}, InputError),
        ({"epsilon": 1.0, "dims": 2, "clip": -1.0}, InputError),
    ],
)
def test_bad_parameters_fail_at_construction(pack, options, error):
    with pytest.raises(error):
        edgedp.SubspaceMean(pack, **options)


def test_privacy_arguments_are_keyword_only_and_the_pack_kind_is_checked(pack, sentence_pack):
    with pytest.raises(TypeError):
        edgedp.SubspaceMean(pack, 10.0)  # type: ignore[misc]
    with pytest.raises(InputError, match="subspace pack"):
        edgedp.SubspaceMean(sentence_pack, epsilon=1.0)


def test_pure_epsilon_refuses_more_dims_than_its_exact_sampler_serves(tmp_path):
    basis = orthonormal_rows(np.random.default_rng(1), 32, DIMS)
    wide = edgedp.load_pack(write_subspace_pack(tmp_path / "wide", basis))
    edgedp.SubspaceMean(wide, epsilon=1.0, dims=16)
    with pytest.raises(PrivacyParameterError, match="delta"):
        edgedp.SubspaceMean(wide, epsilon=1.0, dims=17)
    edgedp.SubspaceMean(wide, epsilon=1.0, dims=32, delta=1e-6)


# -- exactness: the lattice, the sensitivity, the widening -----------------------------------------


def _on_lattice(rows: np.ndarray, sentences: int, grid: float) -> bool:
    steps = np.asarray(rows, dtype=np.float64) * sentences / grid
    return bool(np.array_equal(steps, np.rint(steps)))


@pytest.mark.filterwarnings("ignore::edgedp.ShortDocumentWarning")
def test_releases_are_integers_on_the_power_of_two_grid(pack, seeded):
    mechanism = _seeded_mechanism(pack, seeded, epsilon=2.0, dims=4)
    rng = np.random.default_rng(2)
    for k in (1, 3, 16):
        rows, _ = mechanism._noisy_rows([_sentences(rng, k) for _ in range(5)])
        assert _on_lattice(rows, k, mechanism.lattice(4, mechanism.clip).grid)


def test_an_unsnapped_float_release_is_caught(pack, seeded):
    # The broken variant: the float mean of the clipped projections plus continuous K-norm
    # noise (Mironov's setting): its outputs are not on the lattice.
    mechanism = _seeded_mechanism(pack, seeded, epsilon=2.0, dims=4)
    rng = np.random.default_rng(3)
    lattice = mechanism.lattice(4, mechanism.clip)
    sums = mechanism.clipped_sums([_sentences(rng, 3)], 4, mechanism.clip)
    direction = rng.standard_normal(4)
    float_release = (sums * lattice.grid / 3) + direction * rng.gamma(4, 0.01)
    assert not _on_lattice(float_release, 3, lattice.grid)


def _adversarial_pair(rng, mechanism, k, dims):
    """Two documents of k sentences that differ in one, the changed sentence projected on
    opposite points of the clip sphere (and the rest random)."""
    basis = np.asarray(mechanism.pack.basis[:dims], dtype=np.float64)
    shared = _sentences(rng, k - 1, scale=rng.uniform(0.001, 0.2))
    direction = rng.standard_normal(dims)
    direction /= np.linalg.norm(direction)
    extreme = (50.0 * direction) @ basis  # far beyond the clip: lands on the sphere
    first = np.vstack([shared, extreme[None, :]]).astype(np.float32)
    second = np.vstack([shared, -extreme[None, :]]).astype(np.float32)
    return first, second


def test_neighbouring_sums_are_within_the_widened_sensitivity_exactly(pack):
    mechanism = edgedp.SubspaceMean(pack, epsilon=1.0, dims=4)
    lattice = mechanism.lattice(4, mechanism.clip)
    rng = np.random.default_rng(4)
    for _ in range(300):
        first, second = _adversarial_pair(rng, mechanism, int(rng.integers(1, 6)), 4)
        sums = mechanism.clipped_sums([first, second], 4, mechanism.clip)
        distance_squared = int(((sums[0] - sums[1]) ** 2).sum())
        assert Fraction(distance_squared) <= lattice.sensitivity**2


def test_the_rounding_widening_is_needed(pack):
    # Without the 2 sqrt(d') steps of rounding (sensitivity 2R), some neighbours' rounded sums are
    # further apart than the sensitivity the noise would be calibrated to.
    mechanism = edgedp.SubspaceMean(pack, epsilon=1.0, dims=4)
    lattice = mechanism.lattice(4, mechanism.clip)
    rng = np.random.default_rng(5)
    beyond = 0
    for _ in range(300):
        first, second = _adversarial_pair(rng, mechanism, 1, 4)
        sums = mechanism.clipped_sums([first, second], 4, mechanism.clip)
        beyond += Fraction(int(((sums[0] - sums[1]) ** 2).sum())) > (2 * lattice.radius) ** 2
    assert beyond > 0


def test_huge_embeddings_are_refused_rather_than_released_without_the_bound(pack):
    mechanism = edgedp.SubspaceMean(pack, epsilon=1.0, dims=4)
    with pytest.raises(PrivacyParameterError, match="float error"):
        mechanism.release_embeddings([np.full((3, DIMS), 1e15, dtype=np.float32)])
    with pytest.raises(InputError, match="finite"):
        mechanism.release_embeddings([np.full((3, DIMS), np.nan, dtype=np.float32)])


# -- the noise ---------------------------------------------------------------------------------------


def test_pure_noise_is_the_k_norm_gamma_radius(pack, seeded):
    mechanism = _seeded_mechanism(pack, seeded, epsilon=1.0, dims=6)
    lattice = mechanism.lattice(6, mechanism.clip)
    sentences = _sentences(np.random.default_rng(6), 4)
    centre = mechanism.clipped_sums([sentences], 6, mechanism.clip)[0]
    rows, _ = mechanism._noisy_rows([sentences] * 2000)
    noise_steps = rows[:, :6] * 4 / lattice.grid - centre
    radius = np.linalg.norm(noise_steps, axis=1) * float(lattice.rate)
    assert stats.kstest(radius, stats.gamma(6).cdf).pvalue > 1e-4
    assert stats.kstest(radius, stats.gamma(6, scale=0.5).cdf).pvalue < 1e-4  # half the noise


def test_gaussian_noise_has_the_calibrated_variance(pack, seeded):
    mechanism = _seeded_mechanism(pack, seeded, epsilon=3.0, delta=1e-5, dims=8)
    lattice = mechanism.lattice(8, mechanism.clip)
    sentences = _sentences(np.random.default_rng(7), 5)
    centre = mechanism.clipped_sums([sentences], 8, mechanism.clip)[0]
    rows, _ = mechanism._noisy_rows([sentences] * 500)
    noise_steps = (rows * 5 / lattice.grid - centre).ravel() / math.sqrt(float(lattice.sigma2))
    assert stats.kstest(noise_steps, stats.norm.cdf).pvalue > 1e-4
    assert lattice.rho == pytest.approx(noise.zcdp_rho(3.0, 1e-5), rel=1e-9)


def _scalar(outputs: np.ndarray) -> np.ndarray:
    return np.asarray(outputs, dtype=np.float64)


def test_the_auditor_finds_no_loss_above_epsilon_and_catches_half_the_noise(
    pack, seeded, monkeypatch
):
    # Neighbours: the changed sentence at opposite ends of the clip sphere, d' = 1 (the
    # sensitivity is all along one axis, where an audit has the most power).
    rng = np.random.default_rng(8)
    mechanism = _seeded_mechanism(pack, seeded, epsilon=1.0, dims=1)
    first, second = _adversarial_pair(rng, mechanism, 2, 1)

    def sampler(document):
        return lambda n: mechanism.release_embeddings([document] * n)[:, 0]

    result = audit_pair(
        sampler(first), sampler(second), claimed_epsilon=1.0, samples=60_000, statistic=_scalar
    )
    assert result.epsilon_lower_bound <= 1.0
    original = noise.lattice_release
    monkeypatch.setattr(
        "edgedp.documents.subspace.lattice_release",
        lambda clip, dims, epsilon, delta=None: original(clip, dims, 2 * epsilon, delta),
    )
    broken = _seeded_mechanism(pack, seeded, epsilon=1.0, dims=1, seed=2)

    def broken_sampler(document):
        return lambda n: broken.release_embeddings([document] * n)[:, 0]

    caught = audit_pair(
        broken_sampler(first),
        broken_sampler(second),
        claimed_epsilon=1.0,
        samples=60_000,
        statistic=_scalar,
    )
    assert caught.epsilon_lower_bound > 1.0


# -- short documents, per-length d', lifting --------------------------------------------------------


def test_an_empty_document_releases_the_public_mean_and_one_sentence_is_noised(pack, seeded):
    mechanism = _seeded_mechanism(pack, seeded, epsilon=1.0, dims=4)
    rng = np.random.default_rng(9)
    rows = mechanism.release_embeddings([np.empty((0, DIMS), np.float32), _sentences(rng, 1)])
    assert np.array_equal(rows[0], np.zeros(4, dtype=np.float32))
    assert np.any(rows[1] != 0)
    assert mechanism.too_short(0) and mechanism.too_short(1) and not mechanism.too_short(2)


def test_an_empty_document_reports_no_direction_used(tmp_path, seeded):
    basis = orthonormal_rows(np.random.default_rng(13), 4, DIMS)
    pack = edgedp.load_pack(
        write_subspace_pack(tmp_path / "real", basis, real_encoder=True), kind="subspace"
    )
    mechanism = _seeded_mechanism(pack, seeded, epsilon=10.0)
    with pytest.warns(edgedp.ShortDocumentWarning):
        empty, one = mechanism.release_batch(["", "One sentence here."])
    assert (empty.dims, empty.clip, empty.sentences) == (0, 0.0, 0)
    assert not np.any(empty.coordinates)
    assert one.dims >= 1 and one.clip > 0 and one.sentences == 1


def test_d_prime_follows_the_pack_by_length_and_the_rest_is_zero(pack, seeded):
    mechanism = _seeded_mechanism(pack, seeded, epsilon=10.0)
    assert mechanism.output_dims == 2  # the widest pure recommendation of the test pack
    rng = np.random.default_rng(10)
    rows, settings = mechanism._noisy_rows([_sentences(rng, 2), _sentences(rng, 6)])
    assert [dims for dims, _ in settings] == [1, 2]
    assert rows[0, 1] == 0.0 and rows[1, 1] != 0.0
    gaussian = _seeded_mechanism(pack, seeded, epsilon=10.0, delta=1e-6)
    assert gaussian.output_dims == 8


def test_lift_maps_back_to_the_encoder_space(pack, seeded):
    mechanism = _seeded_mechanism(pack, seeded, epsilon=10.0, dims=8)
    coordinates = np.random.default_rng(11).standard_normal((3, 8))
    lifted = mechanism.lift(coordinates)
    basis = np.asarray(pack.basis, dtype=np.float64)
    expected = np.asarray(pack.mean, dtype=np.float64) + coordinates @ basis
    np.testing.assert_allclose(lifted, expected, atol=1e-5)
    np.testing.assert_allclose(lifted @ basis.T, coordinates, atol=1e-5)  # P P^T = I
    with pytest.raises(InputError, match="shape"):
        mechanism.lift(coordinates[:, :3])


def test_real_text_end_to_end(tmp_path, seeded):
    basis = orthonormal_rows(np.random.default_rng(12), 8, DIMS)
    pack = edgedp.load_pack(
        write_subspace_pack(tmp_path / "real", basis, real_encoder=True), kind="subspace"
    )
    assert pack.check_encoder() > 0.999
    mechanism = _seeded_mechanism(pack, seeded, epsilon=10.0, dims=8)
    text = "The board met on Monday. Profits rose by ten percent. Shares fell anyway."
    release = mechanism.release(text)
    assert release.sentences == 3 and release.dims == 8 and release.coordinates.shape == (8,)
    again = _seeded_mechanism(pack, seeded, epsilon=10.0, dims=8).embed(text)
    np.testing.assert_array_equal(release.coordinates, again)  # same seed, same release
    assert mechanism.embed_batch([text, ["One.", "Two."]]).shape == (2, 8)
    with pytest.warns(edgedp.ShortDocumentWarning, match="1 of 2 documents have fewer than 2"):
        assert mechanism.embed_batch([text, "Only one."]).shape == (2, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("error", edgedp.ShortDocumentWarning)
        mechanism.release_batch([text])
