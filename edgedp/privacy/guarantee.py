"""What a mechanism promises, as data: :class:`Guarantee`, and one release's cost, :class:`DpEvent`.

Every mechanism returns its :class:`Guarantee` from ``guarantee()``: what one *unit* of input is (a
word, a sentence, a document), the neighbouring relation the promise is about, the metric when it is
metric DP (epsilon * d(x, x') instead of epsilon), and epsilon and delta per unit. A release of n
units is a :class:`DpEvent` (in the spirit of Google's dp_accounting ``DpEvent``): the ledger stores
events, not bare numbers, so that totals are only ever added within one accounting unit and a tighter
composition theorem can be applied to the stored events later.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from edgedp.errors import InputError
from edgedp.privacy.validation import check_epsilon, check_positive_int

#: What one unit of a release is, and so what one charge of epsilon counts.
UNITS = ("word", "sentence", "document")
#: Metrics of metric DP: epsilon * d(x, x'); ``None`` is plain DP over the neighbouring relation.
METRICS = ("hamming", "euclidean", "mahalanobis")


#: What one unit is, in words, by unit.
_UNIT_WORDS = {
    "word": "word slot released",
    "sentence": "sentence rewritten",
    "document": "document released",
}
#: What a metric's epsilon is per, by metric.
_METRIC_WORDS = {
    "hamming": "bit of Hamming distance between the words' codes",
    "euclidean": "unit of Euclidean distance between the word vectors",
    "mahalanobis": "unit of Mahalanobis distance between the word vectors",
}


def unit_meaning(accounting_unit: str) -> str:
    """What an epsilon in ``accounting_unit`` (``"word:hamming"``, ``"document:dp"``, ...) means,
    in one sentence: what one charge counts, and how the charges add up."""
    unit, _, metric = accounting_unit.partition(":")
    if unit not in _UNIT_WORDS or (metric != "dp" and metric not in _METRIC_WORDS):
        raise InputError(f"unknown accounting unit {accounting_unit!r}")
    if metric == "dp" and unit == "document":
        # SentDP: one charge per document released, but what it protects is any one sentence
        return (
            "epsilon-DP for any one sentence of each document released (sentence-level DP: the "
            "document as a whole is not protected; m sentences replaced cost m epsilon), added "
            "up over documents (basic composition)"
        )
    if metric == "dp":
        return f"plain epsilon-DP per {_UNIT_WORDS[unit]}, added up over them (basic composition)"
    return (
        f"metric DP: epsilon per {_METRIC_WORDS[metric]}, per "
        f"{_UNIT_WORDS[unit]}, added up over them: two texts whose words are d apart are "
        "at most e^(epsilon * d) apart in likelihood, d the distance between their words "
        "(edgedp explain states the bound for real word pairs; edgedp calibrate converts "
        "between metrics)"
    )


@dataclass(frozen=True, slots=True)
class Guarantee:
    """A privacy promise, as a mechanism states it and a ledger charges it.

    For neighbouring inputs x, x' (``relation``) and every output set S,
    Pr[M(x) in S] <= e^(epsilon * d(x, x')) Pr[M(x') in S] + delta, with d = 1 unless ``metric``.
    Every mechanism returns its own from ``guarantee()``; :meth:`statement` says it in one
    sentence, :attr:`accounting_unit` is the key under which a ledger adds charges up.

    Parameters
    ----------
    protects : str
        What is secret, in words.
    relation : str
        The neighbouring relation, in words.
    unit : {"word", "sentence", "document"}
        What one charge counts.
    epsilon : float
        A finite number > 0 (per unit of ``metric`` where there is one).
    delta : float, default 0.0
        In [0, 1).
    metric : {"hamming", "euclidean", "mahalanobis"} or None, default None
        The metric of metric DP; ``None``: plain DP (d = 1 between any two neighbours).
    metric_unit : str or None, default None
        What epsilon is per in the metric (``"bit"`` for Hamming).

    Raises
    ------
    ~edgedp.InputError
        If ``unit`` or ``metric`` is unknown, or ``delta`` is outside [0, 1).
    ~edgedp.PrivacyParameterError
        If ``epsilon`` is not a finite number > 0.

    Notes
    -----
    A guarantee is data, not a proof: each mechanism's docstring and :doc:`/theory` prove the one
    it returns. Guarantees with different accounting units (``"word:hamming"``,
    ``"document:dp"``) do not add up; a :class:`~edgedp.PrivacyLedger` refuses to mix them in one
    scope.

    Examples
    --------
    >>> import edgedp
    >>> guarantee = edgedp.BRR(edgedp.load_pack(), epsilon=0.6).guarantee()
    >>> guarantee.accounting_unit, guarantee.metric_unit
    ('word:hamming', 'bit')
    >>> "at most a factor e^(0.6 * d_hamming)" in guarantee.statement()
    True
    """

    protects: str
    relation: str
    unit: str
    epsilon: float
    delta: float = 0.0
    metric: str | None = None
    metric_unit: str | None = None

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise InputError(f"unit must be one of {', '.join(UNITS)}, got {self.unit!r}")
        if self.metric is not None and self.metric not in METRICS:
            raise InputError(f"metric must be one of {', '.join(METRICS)}, got {self.metric!r}")
        check_epsilon(self.epsilon)
        if not 0.0 <= self.delta < 1.0:
            raise InputError(f"delta must be in [0, 1), got {self.delta!r}")

    @property
    def accounting_unit(self) -> str:
        """The key under which a ledger adds up charges: unit and metric (``"word:hamming"``)."""
        return f"{self.unit}:{self.metric or 'dp'}"

    def statement(self) -> str:
        """The promise in one sentence."""
        bound = f"e^({self.epsilon:g} * d_{self.metric})" if self.metric else f"e^{self.epsilon:g}"
        per = f" (epsilon per {self.metric_unit})" if self.metric_unit else ""
        delta = f", plus an additive delta = {self.delta:.3g}" if self.delta else ""
        return (
            f"Protects {self.protects}. Neighbouring inputs: {self.relation}. Between them, every "
            f"output's probability changes by at most a factor {bound}{per}{delta}. Charged per "
            f"{self.unit}."
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready fields, with the accounting unit and the statement."""
        return {
            **asdict(self),
            "accounting_unit": self.accounting_unit,
            "statement": self.statement(),
        }


@dataclass(frozen=True, slots=True)
class DpEvent:
    """One release: ``count`` units released by ``mechanism`` under ``guarantee``.

    Under basic sequential composition it costs ``count * epsilon`` (and ``count * delta``) in the
    guarantee's accounting unit.
    """

    mechanism: str
    guarantee: Guarantee
    count: int

    def __post_init__(self) -> None:
        check_positive_int(self.count, "count", minimum=0)

    @property
    def epsilon(self) -> float:
        """Total epsilon of the event under basic composition."""
        return self.guarantee.epsilon * self.count

    @property
    def delta(self) -> float:
        """Total delta of the event under basic composition."""
        return self.guarantee.delta * self.count
