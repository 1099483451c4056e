"""The one base class of every mechanism: pack checking, randomness, privacy status, guarantee.

A mechanism is built as ``Mechanism(pack, *, epsilon=..., rng=None, ...)`` with keyword-only
privacy arguments validated at construction (:mod:`edgedp.privacy.validation`). The base class

* checks that ``pack`` is a loaded pack of the kind the mechanism needs (:attr:`pack_type`);
* resolves ``rng`` through :func:`edgedp.privacy.randomness.resolve_rng` (``None``: OS entropy, private; an
  int: a seeded, loudly NOT private source for tests);
* says whether the output is private (:attr:`is_private`: a private mechanism *and* OS entropy);
* turns :meth:`parameters` into ``repr`` and lets workers rebuild the mechanism on another process;
* turns :meth:`guarantee` and :meth:`units` into the :class:`~edgedp.privacy.guarantee.DpEvent` that a
  ledger charges before a release (:meth:`privacy_cost`); inside :meth:`reading_once` the release
  reuses what counting the units read.

Subclasses define :attr:`name` (the CLI's ``--mechanism``), :attr:`pack_type`, :meth:`guarantee`,
:meth:`units` and their release methods (word mechanisms: ``privatize``; document mechanisms:
``embed``).
"""

from __future__ import annotations

import contextlib
import inspect
from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, ClassVar, Generic, Self, TypeVar

from edgedp.errors import InputError
from edgedp.privacy.guarantee import DpEvent, Guarantee
from edgedp.privacy.randomness import RandomSource, resolve_rng

PackT = TypeVar("PackT")


class Mechanism(ABC, Generic[PackT]):
    """Base class of every edgedp mechanism: pack checking, randomness, privacy status, guarantee.

    A mechanism is built as ``Mechanism(pack, *, epsilon=..., rng=None, ...)`` with keyword-only
    privacy arguments validated at construction (a privacy parameter given by position is a
    ``TypeError`` that names the keywords). The base class checks that ``pack`` is of the kind the
    mechanism needs, resolves ``rng``, says whether the output is private (:attr:`is_private`),
    and turns :meth:`guarantee` and :meth:`units` into the event a ledger charges before a release
    (:meth:`privacy_cost`). Use a subclass: :class:`~edgedp.WordMechanism`,
    :class:`~edgedp.SentenceMechanism`, :class:`~edgedp.SubspaceMean`, :class:`~edgedp.ADePT`.

    Parameters
    ----------
    pack : object
        A loaded pack of the subclass's ``pack_type`` (:func:`~edgedp.load_pack`).
    rng : ~edgedp.RandomSource, int or None, default None
        ``None`` for OS entropy (private) or an int seed (tests only; NOT private, warns).
        Keyword only.

    Raises
    ------
    ~edgedp.InputError
        If ``pack`` is not of the kind the mechanism needs.

    Notes
    -----
    **Guarantee.** Each subclass states its own in its docstring and returns it from
    :meth:`guarantee` (a :class:`~edgedp.Guarantee`: what is protected, the neighbouring
    relation, epsilon and delta per unit, the metric); :attr:`is_private` is ``False`` for a
    non-private baseline or a seeded source. Proofs: :doc:`/theory`.

    Examples
    --------
    >>> import edgedp
    >>> brr = edgedp.BRR(edgedp.load_pack(), epsilon=0.6)
    >>> isinstance(brr, edgedp.Mechanism), brr.is_private
    (True, True)
    >>> edgedp.BRR(edgedp.load_pack(), 0.6)
    Traceback (most recent call last):
    ...
    TypeError: BRR's privacy parameters are keyword-only: BRR(pack, *, epsilon=..., ...
    """

    #: Name used by the CLI's ``--mechanism`` switch.
    name: ClassVar[str]
    #: The pack class this mechanism reads.
    pack_type: ClassVar[type]
    #: How to get such a pack: the error for a pack of another kind says it.
    pack_hint: ClassVar[str] = "edgedp.load_pack()"
    #: Whether the algorithm is differentially private at all: False only for the comparison
    #: baselines (:class:`edgedp.NonPrivateMean`). A DP algorithm run from a seed is still not
    #: private in practice: :attr:`is_private` combines both.
    differentially_private: ClassVar[bool] = True

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        """Refuse privacy parameters given by position with an error that says they are
        keyword-only (Python's own says only how many positional arguments were expected)."""
        signature = inspect.signature(cls.__init__)
        positional = [
            parameter
            for parameter in list(signature.parameters.values())[1:]
            if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD)
        ]
        if len(args) > len(positional):
            keywords = [
                f"{parameter.name}=..."
                for parameter in signature.parameters.values()
                if parameter.kind == parameter.KEYWORD_ONLY
            ]
            if any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values()):
                keywords.append("...")
            call = ", ".join([*(p.name for p in positional), "*", *keywords])
            raise TypeError(
                f"{cls.__name__}'s privacy parameters are keyword-only: {cls.__name__}({call}); "
                f"got {len(args)} positional arguments"
            )
        return super().__new__(cls)

    def __init__(self, pack: PackT, *, rng: RandomSource | int | None = None) -> None:
        if not isinstance(pack, self.pack_type):
            raise InputError(
                f"{type(self).__name__} needs a {self.pack_type.__name__} "
                f"({self.pack_hint}), got {type(pack).__name__}"
            )
        self.pack: PackT = pack
        self.rng = resolve_rng(rng)

    @property
    def is_private(self) -> bool:
        """False when the output is not DP: a non-private mechanism, or a seeded source."""
        return self.differentially_private and self.rng.is_private

    def parameters(self) -> dict[str, object]:
        """The keyword arguments that rebuild this mechanism on its pack (without ``rng``)."""
        return {}

    def __repr__(self) -> str:
        pack_name = getattr(self.pack, "name", "?")
        fields = "".join(f", {key}={value!r}" for key, value in self.parameters().items())
        marker = "" if self.differentially_private else " [NOT PRIVATE]"
        return f"{type(self).__name__}(pack={pack_name!r}{fields}, rng={self.rng!r}){marker}"

    @abstractmethod
    def guarantee(self) -> Guarantee:
        """What this mechanism promises per unit (raises InputError for a non-private one)."""

    @abstractmethod
    def units(self, inputs: Sequence[Any]) -> int:
        """How many units (words, sentences, documents) releasing ``inputs`` spends."""

    def reading_once(self) -> AbstractContextManager[None]:
        """A context in which inputs charged (:meth:`privacy_cost`) and then released are read
        once: what counting their units computes, the release reuses, and nothing of it is kept
        after the context. Word mechanisms share each text's cut into slots; this base class has
        nothing to share."""
        return contextlib.nullcontext()

    def privacy_cost(self, inputs: Sequence[Any]) -> DpEvent:
        """The event a ledger charges before ``inputs`` are released."""
        if not self.differentially_private:
            raise InputError(f"{type(self).__name__} is NOT private and cannot be budgeted")
        return DpEvent(self.name, self.guarantee(), self.units(inputs))
