"""The one source of randomness: OS entropy by default, loud seeds, no shared streams, exact samplers."""

from __future__ import annotations

import multiprocessing
import pickle

import numpy as np
import pytest
from scipy import stats

import edgedp
from edgedp.errors import InputError, NotPrivateWarning, RandomnessError
from edgedp.privacy.randomness import (
    RandomSource,
    light_public_source,
    public_statistics_source,
    resolve_rng,
    spawned_source,
)


def test_default_is_os_entropy_and_private():
    source = resolve_rng(None)
    assert source.is_private
    assert not np.array_equal(source.random_bytes(32), source.random_bytes(32))


def test_seed_warns_and_reproduces():
    with pytest.warns(NotPrivateWarning, match="NOT differentially private"):
        first = resolve_rng(123)
    with pytest.warns(NotPrivateWarning):
        second = resolve_rng(123)
    assert not first.is_private
    assert np.array_equal(first.random_bytes(64), second.random_bytes(64))


@pytest.mark.parametrize("bad", [-1, 1.5, "7", True])
def test_bad_seeds_are_rejected(bad):
    with pytest.raises(InputError):
        RandomSource.seeded(bad)


def test_the_only_public_way_to_a_seeded_source_warns():
    assert RandomSource().is_private
    with pytest.raises(TypeError):
        RandomSource(np.random.SeedSequence(0))  # the constructor takes no seed
    public = {name for name in dir(RandomSource) if not name.startswith("_")}
    makers = {name for name in public if isinstance(vars(RandomSource).get(name), classmethod)}
    assert makers == {"os_entropy", "seeded"}  # seeded() warns (test above)
    # the silent seeded sources say in their names what they are for, and none is private
    with pytest.raises(InputError):
        spawned_source(0)  # a seed handed out by spawn_seeds, not a number
    assert spawned_source(None).is_private
    with pytest.warns(NotPrivateWarning):
        (child,) = RandomSource.seeded(0).spawn_seeds(1)
    assert not spawned_source(child).is_private
    for public in (public_statistics_source, light_public_source):
        assert not public(0).is_private
        with pytest.raises(InputError, match="non-negative integer"):
            public(-1)


def test_numpy_generators_are_refused():
    with pytest.raises(InputError, match="numpy generators"):
        resolve_rng(np.random.default_rng(0))


def test_mechanism_never_touches_global_numpy_state(tiny_pack):
    np.random.seed(5)
    before = np.random.get_state()[1].copy()
    edgedp.BRR(tiny_pack, epsilon=1.0).privatize_ids(np.arange(64))
    assert np.array_equal(np.random.get_state()[1], before)


def _draw(source: RandomSource, queue) -> None:
    queue.put(bytes(source.random_bytes(32)))


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_workers_never_share_os_entropy_streams(method):
    context = multiprocessing.get_context(method)
    source = RandomSource.os_entropy()
    queue = context.Queue()
    workers = [context.Process(target=_draw, args=(source, queue)) for _ in range(4)]
    for worker in workers:
        worker.start()
    draws = {queue.get(timeout=60) for _ in workers}
    for worker in workers:
        worker.join(timeout=60)
    draws.add(bytes(source.random_bytes(32)))
    assert len(draws) == 5  # every process, parent included, drew different bytes


def _draw_after_fork(source: RandomSource, queue) -> None:
    try:
        source.random_bytes(8)
        queue.put("drew")
    except RandomnessError as error:
        queue.put(str(error))


def test_seeded_source_refuses_forked_child(seeded):
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    worker = context.Process(target=_draw_after_fork, args=(seeded(1), queue))
    worker.start()
    message = queue.get(timeout=60)
    worker.join(timeout=60)
    assert "spawn" in message


def test_seeded_source_refuses_pickling_but_spawns(seeded):
    source = seeded(3)
    with pytest.raises(RandomnessError):
        pickle.dumps(source)
    children = source.spawn(3)
    draws = {bytes(child.random_bytes(16)) for child in children}
    assert len(draws) == 3
    again = {bytes(child.random_bytes(16)) for child in seeded(3).spawn(3)}
    assert draws == again  # reproducible per child


def test_public_evaluation_source_is_reproducible_not_private_and_never_spawns():
    # the keep-rate warning's stream: Python's Mersenne Twister, so numpy.random is not loaded
    first, second = light_public_source(2), light_public_source(2)
    assert not first.is_private
    assert bytes(first.random_bytes(64)) == bytes(second.random_bytes(64))
    assert bytes(first.random_bytes(64)) != bytes(light_public_source(3).random_bytes(64))
    for spawn in (first.spawn, first.spawn_seeds):
        with pytest.raises(InputError, match="cannot spawn"):
            spawn(2)
    with pytest.raises(RandomnessError):
        pickle.dumps(first)
    hits = int(first.bernoulli(2**62, 200_000).sum())  # the samplers work on it as on any source
    low, high = stats.binom.ppf([1e-6, 1 - 1e-6], 200_000, 0.25)
    assert low <= hits <= high


def test_os_entropy_source_pickles_to_a_fresh_source():
    clone = pickle.loads(pickle.dumps(RandomSource.os_entropy()))
    assert clone.is_private


@pytest.mark.parametrize("threshold", [0, 1, 2**56 - 1, 2**56, 2**62 + 12345, 2**63, 2**64 - 1])
def test_bernoulli_rate_matches_threshold(seeded, threshold):
    n = 400_000
    hits = int(seeded(threshold % 1000).bernoulli(threshold, n).sum())
    p = threshold / 2**64
    low, high = stats.binom.ppf([1e-6, 1 - 1e-6], n, p)
    assert low <= hits <= high


@pytest.mark.parametrize("top", [0, 0x80, 0xFF])
def test_bernoulli_tie_path_carries_the_low_bits(seeded, top):
    # With top byte t and low part 2**55, exactly half of the 1/256 ties must succeed:
    # p = (t + 1/2) / 256. A broken tie path gives t/256 or (t+1)/256 instead.
    threshold = (top << 56) | 2**55
    n = 2_000_000
    hits = int(seeded(top).bernoulli(threshold, n).sum())
    p = threshold / 2**64
    low, high = stats.binom.ppf([1e-7, 1 - 1e-7], n, p)
    assert low <= hits <= high


def test_uniform_ranges_and_ks(seeded):
    source = seeded(2)
    u = source.uniform(100_000)
    v = source.uniform_positive(100_000)
    assert u.min() >= 0.0 and u.max() < 1.0
    assert v.min() > 0.0 and v.max() <= 1.0
    assert stats.kstest(u, "uniform").pvalue > 1e-4
    assert stats.kstest(v, "uniform").pvalue > 1e-4


def test_integers_are_unbiased(seeded):
    upper = 7
    draws = seeded(4).integers(upper, 70_000)
    assert draws.min() == 0 and draws.max() == upper - 1
    counts = np.bincount(draws, minlength=upper)
    assert stats.chisquare(counts).pvalue > 1e-4


@pytest.mark.parametrize(
    ("sampler", "reference"),
    [
        (lambda s: s.standard_normal(50_000), stats.norm.cdf),
        (lambda s: s.exponential(50_000), stats.expon.cdf),
        (lambda s: s.laplace(50_000), stats.laplace.cdf),
        (lambda s: s.gamma_integer_shape(7, 50_000), stats.gamma(7).cdf),
    ],
    ids=["normal", "exponential", "laplace", "gamma7"],
)
def test_continuous_samplers_follow_their_laws(seeded, sampler, reference):
    assert stats.kstest(sampler(seeded(9)), reference).pvalue > 1e-4


def test_unit_vectors_are_unit_and_isotropic(seeded):
    vectors = seeded(5).unit_vectors(20_000, 5)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    # The first coordinate of a uniform direction in d dims: (x + 1) / 2 ~ Beta((d-1)/2, (d-1)/2).
    assert stats.kstest((vectors[:, 0] + 1) / 2, stats.beta(2, 2).cdf).pvalue > 1e-4


def test_categorical_matches_exact_probabilities(seeded):
    log_weights = np.log(np.array([[0.5, 0.0, 0.2, 0.3]]) + 1e-300)
    log_weights[0, 1] = -np.inf
    rows = np.repeat(log_weights, 60_000, axis=0)
    counts = np.bincount(seeded(6).choice_from_log_weights(rows), minlength=4)
    assert counts[1] == 0
    expected = np.array([0.5, 0.2, 0.3]) * rows.shape[0]
    assert stats.chisquare(counts[[0, 2, 3]], expected).pvalue > 1e-4


def test_categorical_handles_huge_scores(seeded):
    chosen = seeded(1).choice_from_log_weights(np.array([[1e6, 1e6 - 1000.0, -1e6]]))
    assert chosen.tolist() == [0]
    with pytest.raises(InputError):
        seeded(1).choice_from_log_weights(np.array([[-np.inf, -np.inf]]))
