"""The one source of randomness in edgedp.

Every random draw of every mechanism goes through a :class:`RandomSource`, obtained from
:func:`resolve_rng`. Two backends exist:

* **OS entropy** (the default): every byte comes from the operating system's CSPRNG
  (``os.urandom``, i.e. ``getrandom(2)`` on Linux). There is no user-space state, so threads, forked
  and spawned workers can never share or repeat a stream, and past outputs say nothing about future
  noise.
* **Seeded** (tests and reproducible benchmarks only): a PCG64 stream from numpy, so that results
  can be reproduced. Creating one emits :class:`~edgedp.errors.NotPrivateWarning`: noise that can be
  regenerated from a seed protects nothing. A seeded source refuses to be used in a forked child or to
  be pickled (either would silently repeat its stream); use :meth:`RandomSource.spawn` instead.

All samplers (uniform, Bernoulli, normal, Gamma, categorical) are built from raw random bytes here, so
the code that is tested with a seed is the code that runs on OS entropy. The global ``numpy.random``
state is never used.

**Support and tails.** A DP proof needs the noise to reach every value the ideal law reaches; the
textbook float samplers do not (-log of a 53-bit uniform never exceeds 36.74). Here the exponential
(:meth:`RandomSource.exponential`, X = K ln 2 + R with a geometric K and no cap), Gumbel, Laplace
and normal draws have unbounded tails and a relative precision of about 2^-49;
:meth:`RandomSource.choice_from_log_weights` is Gumbel-max, so every finite weight has a positive
probability (its float slack: :func:`edgedp.privacy.realised_distributions.gumbel_max_slack`);
:meth:`RandomSource.discrete_laplace` is exact (Canonne, Kamath and Steinke 2020, Algorithm 2), and
:meth:`RandomSource.bernoulli` compares 64-bit integers with a threshold rounded toward privacy.
Derivation: docs/theory.md, section "Floating point: what the samplers realise".
"""

from __future__ import annotations

import math
import numbers
import os
import warnings
from typing import NoReturn, Protocol

import numpy as np

from edgedp.errors import InputError, NotPrivateWarning, RandomnessError

_TWO_POW_53 = float(2**53)
_TWO_POW_52 = float(2**52)
_LN2 = math.log(2.0)
#: V (the uniform inverted for the exponential's remainder) keeps its binary exponent down to
#: 2**-(_V_EXPONENT_CAP + 1): below, V / 2 would become subnormal and lose mantissa bits. Draws whose
#: geometric exponent is deeper (probability 2**-1020) keep V in the last binade: an absolute error
#: below 2**-1020 in the exponential, and none in the Gumbel, which uses the exponent directly.
_V_EXPONENT_CAP = 1020
#: The geometric exponent is read 53 bits at a time: a 53-bit integer converts to float exactly, so
#: frexp gives the position of its leading one bit without rounding.
_CHUNK_BITS = 53
_TWO_POW_64 = 2**64
_BYTE_SHIFT = np.uint64(56)
_LOW_56_BITS = np.uint64(2**56 - 1)


class _ByteStream(Protocol):
    """What a reproducible source draws from: ``numpy.random.Generator`` or :class:`_Mersenne`."""

    def bytes(self, length: int) -> bytes: ...


class _Mersenne:
    """Bytes of Python's Mersenne Twister: a reproducible public stream without ``numpy.random``."""

    __slots__ = ("_random",)

    def __init__(self, seed: int) -> None:
        import random

        self._random = random.Random(seed)  # noqa: S311 - public Monte Carlo only

    def bytes(self, length: int) -> bytes:
        return self._random.randbytes(length)


class RandomSource:
    """The one source of random bits of every edgedp mechanism.

    ``RandomSource()`` (or :meth:`os_entropy`) is the private default: every byte comes from the
    operating system's CSPRNG (``os.urandom``), with no user-space state, so threads and forked or
    spawned workers never share or repeat a stream. :meth:`seeded` is the reproducible, NOT private
    source for tests and benchmarks (a PCG64 stream; it warns). Mechanisms take either through
    ``rng=`` (``None``, a seed, or a source); the samplers (uniform, Bernoulli, exponential, Gumbel,
    Laplace, normal, categorical, discrete Laplace) are built from raw bytes here, so the code
    tested with a seed is the code that runs on OS entropy. The global ``numpy.random`` is never
    used. The constructor takes no parameters.

    Raises
    ------
    ~edgedp.RandomnessError
        When a seeded source is used in a forked child or pickled (either would repeat its
        stream; :meth:`spawn` gives independent sources instead).
    ~edgedp.InputError
        From :meth:`seeded`, for a seed that is not a non-negative integer.

    Warns
    -----
    ~edgedp.NotPrivateWarning
        From :meth:`seeded`: noise that can be regenerated from a seed protects nothing.

    Notes
    -----
    A DP proof needs the noise to reach every value the ideal law reaches; the textbook float
    samplers do not (-log of a 53-bit uniform never exceeds 36.74). Here the exponential, Gumbel
    and Laplace draws have unbounded tails, the Gumbel-max choice gives every finite weight a
    positive probability, discrete Laplace is exact, and Bernoulli draws compare 64-bit integers
    with a threshold rounded toward privacy. The constructions and their proofs: docs/theory.md,
    section "Floating point: what the samplers realise".

    Examples
    --------
    >>> import edgedp
    >>> source = edgedp.RandomSource()
    >>> source.is_private
    True
    >>> source.uniform(3).shape
    (3,)
    >>> brr = edgedp.BRR(edgedp.load_pack(), epsilon=0.6, rng=source)
    >>> brr.rng.is_private
    True
    """

    __slots__ = ("_generator", "_owner_pid", "_seed_sequence")

    def __init__(self) -> None:
        """The private default (OS entropy); :meth:`seeded` makes the reproducible one."""
        self._seed_sequence: np.random.SeedSequence | None = None
        self._generator: _ByteStream | None = None
        self._owner_pid = os.getpid()

    @classmethod
    def os_entropy(cls) -> RandomSource:
        """The private default: bytes from the operating system's CSPRNG."""
        return cls()

    @classmethod
    def _derived(cls, seed_sequence: np.random.SeedSequence) -> RandomSource:
        """A reproducible, NOT private source from a SeedSequence, *without* a warning (internal:
        :func:`spawned_source` and :func:`public_statistics_source` are its two uses)."""
        if not isinstance(seed_sequence, np.random.SeedSequence):
            raise InputError(f"expected a numpy SeedSequence, got {type(seed_sequence).__name__}")
        source = cls()
        source._seed_sequence = seed_sequence
        source._generator = np.random.Generator(np.random.PCG64(seed_sequence))
        return source

    @classmethod
    def _public(cls, seed: int) -> RandomSource:
        """A reproducible, NOT private source for Monte Carlo on public words, *without* a warning
        and without ``numpy.random`` (internal: :func:`light_public_source`).

        Importing ``numpy.random`` costs more resident memory than the bundled pack
        (bench/reports/2026-11-23-footprint.md):
        ``edgedp privatize``'s keep-rate warning (:mod:`edgedp.evaluation.keep_rate`) draws its public
        releases from Python's Mersenne Twister instead. Never for anything private; it cannot
        spawn (its children would have no seed sequence).
        """
        source = cls()
        source._generator = _Mersenne(seed)
        return source

    @classmethod
    def seeded(cls, seed: int) -> RandomSource:
        """A reproducible, NOT private source; warns with :class:`NotPrivateWarning`."""
        seed = check_seed(seed)
        warnings.warn(
            f"edgedp is using a fixed seed ({seed}): the output is reproducible and therefore "
            "NOT differentially private. Use seeds only for tests and benchmarks.",
            NotPrivateWarning,
            stacklevel=3,
        )
        return cls._derived(np.random.SeedSequence(int(seed)))

    @property
    def is_private(self) -> bool:
        """True when the bytes come from OS entropy (the only private configuration)."""
        return self._generator is None

    def __repr__(self) -> str:
        return (
            "RandomSource(os_entropy)" if self.is_private else "RandomSource(seeded, NOT private)"
        )

    def __reduce__(self) -> tuple[type[RandomSource], tuple[()]]:
        if not self.is_private:
            _refuse_copy("pickled")
        return (RandomSource, ())

    def spawn(self, count: int) -> list[RandomSource]:
        """Independent sources for ``count`` workers (OS-entropy sources stay OS-entropy)."""
        self._check_spawnable()
        if self._seed_sequence is None:
            return [RandomSource() for _ in range(count)]
        return [RandomSource._derived(child) for child in self._seed_sequence.spawn(count)]

    def spawn_seeds(self, count: int) -> list[np.random.SeedSequence | None]:
        """Picklable seeds of ``count`` independent child sources (None: OS entropy, no seed)."""
        self._check_spawnable()
        if self._seed_sequence is None:
            return [None] * count
        return list(self._seed_sequence.spawn(count))

    def _check_spawnable(self) -> None:
        if self._generator is not None and self._seed_sequence is None:
            raise InputError("a public evaluation source (light_public_source) cannot spawn")

    # -- raw bits -------------------------------------------------------------------------------

    def random_bytes(self, count: int) -> np.ndarray:
        """``count`` independent uniform bytes as a uint8 array."""
        if self._generator is None:
            return np.frombuffer(os.urandom(count), dtype=np.uint8)
        if os.getpid() != self._owner_pid:
            _refuse_copy("used in a forked child process")
        return np.frombuffer(self._generator.bytes(count), dtype=np.uint8)

    def uint64(self, size: int | tuple[int, ...]) -> np.ndarray:
        """Independent uniform 64-bit unsigned integers."""
        count = math.prod(size) if isinstance(size, tuple) else size
        return self.random_bytes(8 * count).view(np.uint64).reshape(size)

    # -- derived samplers -----------------------------------------------------------------------

    def bernoulli(self, threshold: int, size: int | tuple[int, ...]) -> np.ndarray:
        """Booleans, each True with probability exactly ``threshold / 2**64``.

        Equivalent to comparing a uniform 64-bit integer ``u`` with ``threshold`` (``u < threshold``)
        but evaluated lazily: the top byte decides unless it ties with the threshold's top byte
        (probability 1/256), and only the ties draw the remaining 56 bits. About one random byte per
        draw instead of eight, with the same distribution.
        """
        if not 0 <= threshold <= _TWO_POW_64:
            raise InputError(f"threshold must be in [0, 2**64], got {threshold}")
        if threshold == _TWO_POW_64:
            return np.ones(size, dtype=bool)
        top, low = threshold >> 56, threshold & (2**56 - 1)
        count = math.prod(size) if isinstance(size, tuple) else size
        first = self.random_bytes(count)
        ties = np.flatnonzero(first == top)  # before ``result``: one byte per draw less at once
        result = first < top
        if ties.size:
            rest = self.uint64(ties.size) & _LOW_56_BITS
            result[ties] = rest < np.uint64(low)
        return result.reshape(size)

    def uniform(self, size: int | tuple[int, ...]) -> np.ndarray:
        """Uniform floats in the half-open interval [0, 1) with 53 random bits each."""
        return (self.uint64(size) >> np.uint64(11)).astype(np.float64) / _TWO_POW_53

    def uniform_positive(self, size: int | tuple[int, ...]) -> np.ndarray:
        """Uniform floats in (0, 1] with 53 random bits each (safe to take the logarithm of)."""
        return ((self.uint64(size) >> np.uint64(11)).astype(np.float64) + 1.0) / _TWO_POW_53

    def integers(self, upper: int, size: int) -> np.ndarray:
        """Uniform integers in [0, upper) without modulo bias (rejection sampling)."""
        if not 1 <= upper < 2**63:
            raise InputError(f"upper must be in [1, 2**63), got {upper}")
        limit = np.uint64((_TWO_POW_64 // upper) * upper - 1)  # largest accepted raw value
        out = np.empty(size, dtype=np.int64)
        todo = np.arange(size)
        while todo.size:
            raw = self.uint64(todo.size)
            accepted = raw <= limit
            out[todo[accepted]] = (raw[accepted] % np.uint64(upper)).astype(np.int64)
            todo = todo[~accepted]
        return out

    def geometric_half(self, size: int | tuple[int, ...]) -> np.ndarray:
        """Exact Geometric(1/2) counts: Pr[k] = 2**-(k+1), k = 0, 1, 2, ... (no upper bound).

        The number of leading zero bits of an unbounded stream of fair bits, read 53 bits per 64-bit
        word (the top 53 bits) from as many words as each draw needs.
        """
        count = math.prod(size) if isinstance(size, tuple) else size
        shift = np.uint64(64 - _CHUNK_BITS)
        # chunk < 2**53 converts exactly; frexp's exponent e has 2**(e-1) <= chunk < 2**e, and e = 0
        # for chunk = 0: 53 zero bits, and that draw goes on to its next word. The first word of
        # every draw is read without index arrays: it decides all but 2**-53 of the draws.
        chunk = self.uint64(count) >> shift
        out = (_CHUNK_BITS - np.frexp(chunk.astype(np.float64))[1]).astype(np.int64)
        todo = np.flatnonzero(chunk == 0)
        while todo.size:
            chunk = self.uint64(todo.size) >> shift
            out[todo] += _CHUNK_BITS - np.frexp(chunk.astype(np.float64))[1]
            todo = todo[chunk == 0]
        return out.reshape(size)

    def _exponential_parts(
        self, size: int | tuple[int, ...]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(k, j, mantissa) of exponential draws: X = k ln 2 + R(V), V = (1 + m/2**52) 2**-(j+1).

        Bit layout (fixed; tests/privacy/test_exact_samplers.py reads it): first the words of k's geometric
        count, then those of j's, then one word whose top 52 bits are the mantissa m.
        """
        k = self.geometric_half(size)
        j = self.geometric_half(size)
        mantissa = (self.uint64(size) >> np.uint64(12)).astype(np.float64)
        return k, j, mantissa

    @staticmethod
    def _exponential_from_parts(k: np.ndarray, j: np.ndarray, mantissa: np.ndarray) -> np.ndarray:
        v = np.ldexp(1.0 + mantissa / _TWO_POW_52, -(np.minimum(j, _V_EXPONENT_CAP) + 1))
        value: np.ndarray = k * _LN2 + -np.log1p(-0.5 * v)
        return value

    def exponential(self, size: int | tuple[int, ...]) -> np.ndarray:
        """Standard exponential samples (rate 1) with an unbounded tail and ~2**-49 relative error.

        X = K ln 2 + R with K exactly Geometric(1/2) (unbounded) and R = -log1p(-V/2) the inverse CDF
        of Exp(1) truncated to [0, ln 2), V uniform on [0, 1) with a geometric binary exponent
        (docs/theory.md, "Floating point: what the samplers realise"). There is no largest value:
        the probability that a draw exceeds c is e^-c up to a relative 2**-45 for every c
        (tests/privacy/test_exact_samplers.py computes it exactly over the bit patterns).
        """
        return self._exponential_from_parts(*self._exponential_parts(size))

    def gumbel(self, size: int | tuple[int, ...]) -> np.ndarray:
        """Standard Gumbel samples (location 0, scale 1): -log of :meth:`exponential`.

        Both tails are unbounded: the lower one through the exponential's unbounded K, the upper one
        because draws with K = 0 and a tiny V use -log X = (j + 2) ln 2 - log1p(m / 2**52) + O(V)
        directly from the exponent j (no cap), so Gumbel-max gives every finite weight a positive
        probability however far below the maximum it is.
        """
        k, j, mantissa = self._exponential_parts(size)
        out: np.ndarray = -np.log(self._exponential_from_parts(k, j, mantissa))
        deep = (k == 0) & (j >= _V_EXPONENT_CAP)
        if deep.any():
            # X = R = V/2 (1 + V/4 + ...) with V < 2**-1020: the correction is below 2**-1022.
            out[deep] = (j[deep] + 2) * _LN2 - np.log1p(mantissa[deep] / _TWO_POW_52)
        return out

    def gamma_integer_shape(self, shape: int, size: int) -> np.ndarray:
        """Gamma(shape, scale=1) samples for an integer ``shape``: sums of ``shape`` exponentials."""
        if shape < 1:
            raise InputError(f"Gamma shape must be a positive integer, got {shape}")
        sums: np.ndarray = self.exponential((size, shape)).sum(axis=1)
        return sums

    def standard_normal(self, size: int | tuple[int, ...]) -> np.ndarray:
        """Standard normal samples by the Box-Muller transform on :meth:`exponential`.

        The radius sqrt(2 X) uses the unbounded exponential, so ``|N|`` has no bound (the 53-bit-uniform
        Box-Muller stopped at 8.57); the angle is a 53-bit uniform, an error of at most 2**-50 radian.
        """
        count = math.prod(size) if isinstance(size, tuple) else size
        pairs = (count + 1) // 2
        radius = np.sqrt(2.0 * self.exponential(pairs))
        angle = (2.0 * np.pi) * self.uniform(pairs)
        normals = np.concatenate([radius * np.cos(angle), radius * np.sin(angle)])
        return normals[:count].reshape(size)

    def laplace(self, size: int | tuple[int, ...]) -> np.ndarray:
        """Standard Laplace samples (scale 1): a fair sign times :meth:`exponential` (unbounded).

        A float release x + b * L is still exposed to Mironov's low-order-bit attack; mechanisms that
        release numbers use :meth:`discrete_laplace` on a grid instead
        (:func:`edgedp.privacy.noise.snapped_laplace`).
        """
        magnitude = self.exponential(size)
        sign = np.where(self.bernoulli(2**63, size), 1.0, -1.0)
        signed: np.ndarray = sign * magnitude
        return signed

    def unit_vectors(self, count: int, dims: int) -> np.ndarray:
        """``count`` directions uniform on the unit sphere in ``dims`` dimensions."""
        normals = self.standard_normal((count, dims))
        norms = np.linalg.norm(normals, axis=1, keepdims=True)
        directions: np.ndarray = normals / norms
        return directions

    def choice_from_log_weights(self, log_weights: np.ndarray) -> np.ndarray:
        """One index per row of a 2-D array, drawn with probability proportional to exp(weight).

        The Gumbel-max trick: argmax_i (w_i - max w + G_i) with independent full-tail Gumbel draws
        (:meth:`gumbel`). For ideal Gumbel variables this *is* the exponential-mechanism law
        Pr[i] = exp(w_i) / sum_j exp(w_j), with no cumulative sum: a weight far below the maximum
        keeps its (tiny) positive probability instead of rounding to 0, as inverting a float
        cumulative sum did (weights 15*[8, 7] vs 15*[9, 6] gave the second candidate probability
        3e-7 vs exactly 0: an unbounded privacy loss). Every realised probability is within a factor
        e^(+-2 eta) of the exact one, eta from :func:`edgedp.privacy.realised_distributions.gumbel_max_slack`.
        ``-inf`` entries have probability zero; each row needs one finite entry. One Gumbel draw
        (about 24 random bytes) per entry.
        """
        scores = np.asarray(log_weights, dtype=np.float64)
        if scores.ndim != 2 or scores.shape[1] == 0:
            raise InputError(f"log_weights must be a non-empty 2-D array, got shape {scores.shape}")
        row_max = scores.max(axis=1, keepdims=True)
        if not np.isfinite(row_max).all():
            raise InputError("every row of log_weights needs a finite maximum")
        keys = (scores - row_max) + self.gumbel(scores.shape)
        chosen: np.ndarray = np.argmax(keys, axis=1)
        return chosen

    # -- exact discrete samplers ----------------------------------------------------------------

    def integers_below(self, uppers: np.ndarray) -> np.ndarray:
        """One uniform integer in [0, upper) per entry of ``uppers`` (each in [1, 2**63)), unbiased.

        Rejection as in :meth:`integers`, with a per-entry bound: a raw w-bit value r is accepted
        when r >= 2**w mod upper, leaving a multiple of ``upper`` equally likely values (w = 16, 32
        or 64, the narrowest that holds every bound).
        """
        bounds = np.asarray(uppers, dtype=np.int64).ravel()
        if bounds.size and (bounds.min() < 1):
            raise InputError("every upper bound must be >= 1")
        largest = int(bounds.max(initial=1))
        # Draw words just wide enough for the largest bound (16, 32 or 64 bits): the rejection
        # below keeps every width exact, and narrow words cost a quarter or half of the entropy.
        width = 16 if largest <= 2**16 else 32 if largest <= 2**32 else 64
        word = {16: np.uint16, 32: np.uint32, 64: np.uint64}[width]
        bounds = bounds.astype(np.uint64)
        out = np.empty(bounds.size, dtype=np.int64)
        todo = np.arange(bounds.size)
        while todo.size:
            raw = self.random_bytes(todo.size * width // 8).view(word).astype(np.uint64)
            upper = bounds[todo]
            if width == 64:
                rejected_below = (~upper + np.uint64(1)) % upper  # (2**64 - upper) mod upper
            else:
                rejected_below = (np.uint64(1 << width) - upper) % upper
            accepted = raw >= rejected_below
            out[todo[accepted]] = (raw[accepted] % upper[accepted]).astype(np.int64)
            todo = todo[~accepted]
        return out.reshape(np.shape(uppers))

    def bernoulli_exp(self, numerators: np.ndarray, denominator: int) -> np.ndarray:
        """Exact Bernoulli(exp(-n / d)) for integers 0 <= n <= d (one draw per numerator).

        Canonne, Kamath and Steinke (2020), Algorithm 1: draw A_k ~ Bernoulli(gamma / k) for
        k = 1, 2, ... until one is 0; the result is 1 iff that happens at an odd k. Only uniform
        integers are used, so the probability is exactly exp(-gamma) (no floating point).
        """
        gamma = np.asarray(numerators, dtype=np.int64).ravel()
        if (
            not 1 <= denominator < 2**40
            or gamma.min(initial=0) < 0
            or gamma.max(initial=0) > denominator
        ):
            raise InputError("bernoulli_exp needs 0 <= n <= d < 2**40")
        k = np.ones(gamma.size, dtype=np.int64)
        result = np.zeros(gamma.size, dtype=bool)
        todo = np.arange(gamma.size)
        while todo.size:
            success = self.integers_below(denominator * k[todo]) < gamma[todo]
            stopped = todo[~success]
            result[stopped] = k[stopped] % 2 == 1
            k[todo[success]] += 1
            todo = todo[success]
        return result.reshape(np.shape(numerators))

    def discrete_laplace(self, scale: int, size: int) -> np.ndarray:
        """Exact discrete Laplace integers: Pr[x] = (1 - q) / (1 + q) q^|x|, q = exp(-1 / scale).

        Canonne, Kamath and Steinke (2020), Algorithm 2 with s = 1, t = ``scale``: U uniform in
        [0, t) accepted with probability exp(-U / t), plus t times a geometric count of
        Bernoulli(exp(-1)) successes, and a fair sign (rejecting "-0"). Exact: the only randomness
        is uniform integers (no floating point), so x + noise on an integer grid is epsilon-DP for
        sensitivity epsilon * scale, with no delta and no low-order-bit leak.
        """
        if (
            isinstance(scale, bool)
            or not isinstance(scale, int | np.integer)
            or not 1 <= scale < 2**40
        ):
            raise InputError(
                f"discrete Laplace scale must be an integer in [1, 2**40), got {scale!r}"
            )
        t = int(scale)
        out = np.empty(size, dtype=np.int64)
        todo = np.arange(size)
        while todo.size:
            # About 0.63 of the candidates are accepted: draw twice as many so one round usually
            # serves every entry (fewer numpy passes; the law of each accepted draw is unchanged).
            n = todo.size + todo.size // 2 + 8
            u = self.integers(t, n)
            u = u[self.bernoulli_exp(u, t)]
            x = u + t * self._geometric_exp_minus_one(u.size)
            negative = self.bernoulli(2**63, u.size)
            accepted = ~(negative & (x == 0))
            values = np.where(negative, -x, x)[accepted][: todo.size]
            out[todo[: values.size]] = values
            todo = todo[values.size :]
        return out

    def _geometric_exp_minus_one(self, count: int) -> np.ndarray:
        """Exact counts V with Pr[V >= v] = e^-v: leading successes of Bernoulli(exp(-1)) trials.

        Small batches draw three trials per entry at a time (the count continues only where all
        three succeeded, probability e^-3), large ones one: the same sequence of independent trials.
        """
        out = np.zeros(count, dtype=np.int64)
        todo = np.arange(count)
        while todo.size:
            per_entry = (
                3 if todo.size < 4096 else 1
            )  # fewer passes when small, less work when large
            trials = self.bernoulli_exp(np.ones(todo.size * per_entry, dtype=np.int64), 1)
            trials = trials.reshape(todo.size, per_entry)
            leading = np.where(trials.all(axis=1), per_entry, np.argmin(trials, axis=1))
            out[todo] += leading
            todo = todo[leading == per_entry]
        return out
        return out


def _refuse_copy(how: str) -> NoReturn:
    raise RandomnessError(
        f"a seeded RandomSource cannot be {how}: both copies would draw the same noise. "
        "Give each worker its own source with RandomSource.spawn(n)."
    )


def spawned_source(seed: np.random.SeedSequence | None) -> RandomSource:
    """The source of one worker from a seed that :meth:`RandomSource.spawn_seeds` handed out: OS
    entropy for ``None`` (a private parent), else that seeded child, NOT private and silent (its
    parent warned when it was seeded)."""
    return RandomSource() if seed is None else RandomSource._derived(seed)


def public_statistics_source(seed: int) -> RandomSource:
    """A reproducible, NOT private, silent source for statistics of PUBLIC data only (the pairs
    sampled for a pack's calibration statistics, ``explain``'s evaluation on public words). Never
    for a release: a mechanism that protects anything takes ``rng=None`` (or, in tests, a seed,
    which warns)."""
    return RandomSource._derived(np.random.SeedSequence(check_seed(seed)))


def light_public_source(seed: int) -> RandomSource:
    """:func:`public_statistics_source` without importing ``numpy.random`` (Python's Mersenne
    Twister; see :meth:`RandomSource._public`): the keep-rate warning of every ``privatize`` run."""
    return RandomSource._public(check_seed(seed))


def check_seed(seed: object) -> int:
    """A seed: a non-negative integer (not a bool)."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise InputError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def resolve_rng(rng: RandomSource | int | None) -> RandomSource:
    """The one entry point for randomness: ``None`` -> OS entropy, an int -> seeded (warns)."""
    if rng is None:
        return RandomSource.os_entropy()
    if isinstance(rng, RandomSource):
        return rng
    if isinstance(rng, np.random.Generator | np.random.RandomState):
        raise InputError(
            "edgedp does not take numpy generators: pass rng=None (private, OS entropy) or an "
            "integer seed (tests only)"
        )
    return RandomSource.seeded(rng)
