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
"""

from __future__ import annotations

import math
import numbers
import os
import warnings
from typing import NoReturn

import numpy as np

from edgedp.errors import InputError, NotPrivateWarning, RandomnessError

_TWO_POW_53 = float(2**53)
_TWO_POW_64 = 2**64
_BYTE_SHIFT = np.uint64(56)
_LOW_56_BITS = np.uint64(2**56 - 1)


class RandomSource:
    """A source of random bits; build one with :func:`resolve_rng` or the classmethods."""

    __slots__ = ("_generator", "_owner_pid", "_seed_sequence")

    def __init__(self) -> None:
        """The private default (OS entropy); :meth:`seeded` makes the reproducible one."""
        self._seed_sequence: np.random.SeedSequence | None = None
        self._generator: np.random.Generator | None = None
        self._owner_pid = os.getpid()

    @classmethod
    def os_entropy(cls) -> RandomSource:
        """The private default: bytes from the operating system's CSPRNG."""
        return cls()

    @classmethod
    def _derived(cls, seed_sequence: np.random.SeedSequence) -> RandomSource:
        """A reproducible, NOT private source from a SeedSequence, *without* a warning (internal).

        Only for the children of a seeded source that already warned (:meth:`spawn`, worker
        processes) and for reproducible sampling that releases nothing private (e.g. the pairs
        sampled for calibration statistics). It is private so that the only public way to a seeded
        source is :meth:`seeded`, which warns.
        """
        if not isinstance(seed_sequence, np.random.SeedSequence):
            raise InputError(f"expected a numpy SeedSequence, got {type(seed_sequence).__name__}")
        source = cls()
        source._seed_sequence = seed_sequence
        source._generator = np.random.Generator(np.random.PCG64(seed_sequence))
        return source

    @classmethod
    def seeded(cls, seed: int) -> RandomSource:
        """A reproducible, NOT private source; warns with :class:`NotPrivateWarning`."""
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
            raise InputError(f"seed must be a non-negative integer, got {seed!r}")
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
        if self._seed_sequence is None:
            return [RandomSource() for _ in range(count)]
        return [RandomSource._derived(child) for child in self._seed_sequence.spawn(count)]

    def spawn_seeds(self, count: int) -> list[np.random.SeedSequence | None]:
        """Picklable seeds of ``count`` independent child sources (None: OS entropy, no seed)."""
        if self._seed_sequence is None:
            return [None] * count
        return list(self._seed_sequence.spawn(count))

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
        result = first < top
        ties = np.flatnonzero(first == top)
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

    def exponential(self, size: int | tuple[int, ...]) -> np.ndarray:
        """Standard exponential samples (rate 1) by inversion."""
        return -np.log(self.uniform_positive(size))

    def gamma_integer_shape(self, shape: int, size: int) -> np.ndarray:
        """Gamma(shape, scale=1) samples for an integer ``shape``: sums of ``shape`` exponentials."""
        if shape < 1:
            raise InputError(f"Gamma shape must be a positive integer, got {shape}")
        return self.exponential((size, shape)).sum(axis=1)

    def standard_normal(self, size: int | tuple[int, ...]) -> np.ndarray:
        """Standard normal samples by the Box-Muller transform."""
        count = math.prod(size) if isinstance(size, tuple) else size
        pairs = (count + 1) // 2
        radius = np.sqrt(2.0 * self.exponential(pairs))
        angle = (2.0 * np.pi) * self.uniform(pairs)
        normals = np.concatenate([radius * np.cos(angle), radius * np.sin(angle)])
        return normals[:count].reshape(size)

    def laplace(self, size: int | tuple[int, ...]) -> np.ndarray:
        """Standard Laplace samples (scale 1): a random sign times an exponential."""
        magnitude = self.exponential(size)
        sign = np.where(self.bernoulli(2**63, size), 1.0, -1.0)
        return sign * magnitude

    def unit_vectors(self, count: int, dims: int) -> np.ndarray:
        """``count`` directions uniform on the unit sphere in ``dims`` dimensions."""
        normals = self.standard_normal((count, dims))
        norms = np.linalg.norm(normals, axis=1, keepdims=True)
        return normals / norms

    def choice_from_log_weights(self, log_weights: np.ndarray) -> np.ndarray:
        """One index per row of a 2-D array, drawn with probability proportional to exp(weight).

        Works in log space (each row's maximum is subtracted before exponentiating) and samples by
        inverting the cumulative distribution with a 53-bit uniform, so large scores never overflow.
        ``-inf`` entries have probability zero; each row needs one finite entry.
        """
        scores = np.asarray(log_weights, dtype=np.float64)
        if scores.ndim != 2 or scores.shape[1] == 0:
            raise InputError(f"log_weights must be a non-empty 2-D array, got shape {scores.shape}")
        row_max = scores.max(axis=1, keepdims=True)
        if not np.isfinite(row_max).all():
            raise InputError("every row of log_weights needs a finite maximum")
        cumulative = np.cumsum(np.exp(scores - row_max), axis=1)
        targets = self.uniform(scores.shape[0]) * cumulative[:, -1]
        chosen = (cumulative <= targets[:, None]).sum(axis=1)
        return np.minimum(chosen, scores.shape[1] - 1)


def _refuse_copy(how: str) -> NoReturn:
    raise RandomnessError(
        f"a seeded RandomSource cannot be {how}: both copies would draw the same noise. "
        "Give each worker its own source with RandomSource.spawn(n)."
    )


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
    return RandomSource.seeded(rng)  # type: ignore[arg-type]
