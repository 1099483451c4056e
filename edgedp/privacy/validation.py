"""Validation of user-supplied parameters, in one place.

Mechanisms call these at construction so that a bad parameter fails before any data is touched.
Every check raises :class:`~edgedp.errors.PrivacyParameterError` (a ``ValueError``) or
:class:`~edgedp.errors.InputError` with a message naming the parameter and the accepted range.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Collection, Iterable
from typing import TypeVar

from edgedp.errors import InputError, PrivacyParameterError

T = TypeVar("T")


def _real(value: object, name: str) -> float:
    """Return ``value`` as a float if it is a real number (bool excluded), else raise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise PrivacyParameterError(
            f"{name} must be a real number, got {type(value).__name__} {value!r}"
        )
    try:
        number = float(value)
    except OverflowError:  # an integer beyond the float range, e.g. 10**400
        raise PrivacyParameterError(
            f"{name} must be finite, got a {len(str(value))}-digit number"
        ) from None
    if not math.isfinite(number):
        raise PrivacyParameterError(f"{name} must be finite, got {number!r}")
    return number


def check_epsilon(value: object, name: str = "epsilon") -> float:
    """Return a valid privacy parameter epsilon: a finite real number > 0."""
    epsilon = _real(value, name)
    if epsilon <= 0.0:
        raise PrivacyParameterError(f"{name} must be > 0, got {epsilon!r}")
    return epsilon


def check_delta(value: object, name: str = "delta") -> float:
    """Return a valid delta for (epsilon, delta)-DP: a real number in the open interval (0, 1)."""
    delta = _real(value, name)
    if not 0.0 < delta < 1.0:
        raise PrivacyParameterError(f"{name} must be in (0, 1), got {delta!r}")
    return delta


def check_unit_interval(value: object, name: str) -> float:
    """Return a real number in the closed interval [0, 1]."""
    number = _real(value, name)
    if not 0.0 <= number <= 1.0:
        raise PrivacyParameterError(f"{name} must be in [0, 1], got {number!r}")
    return number


def check_non_negative(value: object, name: str) -> float:
    """Return a finite real number >= 0 (a delta limit, an amount already spent)."""
    number = _real(value, name)
    if number < 0.0:
        raise PrivacyParameterError(f"{name} must be >= 0, got {number!r}")
    return number


def check_positive(value: object, name: str) -> float:
    """Return a finite real number > 0 that is not a privacy parameter (a radius, a scale)."""
    number = _real(value, name)
    if number <= 0.0:
        raise InputError(f"{name} must be > 0, got {number!r}")
    return number


def check_positive_int(value: object, name: str, *, minimum: int = 1) -> int:
    """Return an integer >= ``minimum`` (bools and floats are rejected)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    number = int(value)
    if number < minimum:
        raise InputError(f"{name} must be >= {minimum}, got {number}")
    return number


def check_choice(value: object, name: str, choices: Collection[str]) -> str:
    """Return ``value`` if it is one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        allowed = ", ".join(sorted(choices))
        raise InputError(f"{name} must be one of {allowed}; got {value!r}")
    return value


def check_iterable(items: Iterable[T], method: str, one: str) -> list[T]:
    """``items`` as a list, refusing a single string (a common slip) and non-iterables.

    ``one`` names an item (``"text"``, ``"document"``) for the message.
    """
    what = f"{one}s"
    if isinstance(items, str | bytes | bytearray):
        raise InputError(f"{method} takes an iterable of {what}, not a single {one}")
    try:
        return list(items)
    except TypeError:
        raise InputError(
            f"{method} takes an iterable of {what}, got {type(items).__name__}"
        ) from None


def renamed_keyword(value: T | None, old_value: T | None, name: str, old_name: str) -> T | None:
    """``value``, or what was given under the keyword's deprecated old name (``None``: not given).

    The old name works for one release: it emits a :class:`DeprecationWarning` (at the caller of
    the constructor or function that calls this) and maps to ``name``; both names given is an
    :class:`~edgedp.errors.InputError`.
    """
    if old_value is None:
        return value
    if value is not None:
        raise InputError(f"{old_name}= is the deprecated name of {name}=: give {name}= only")
    warnings.warn(
        f"{old_name}= is renamed {name}=; {old_name}= will be removed in the next release",
        DeprecationWarning,
        stacklevel=3,
    )
    return old_value
