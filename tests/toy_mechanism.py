"""A toy word mechanism, for the test that adding a mechanism takes its module and one registry
entry (tests/test_registry.py): BRR spending only a share of its epsilon."""

from __future__ import annotations

from typing import Any

from edgedp.privacy.validation import check_unit_interval
from edgedp.registry import MechanismEntry, MechanismOption
from edgedp.words.brr import BRR
from edgedp.words.spaces import HammingSpace


class Toy(BRR):
    """BRR at ``share * epsilon`` per bit (so epsilon per bit is a true, loose bound)."""

    name = "toy"

    def __init__(self, pack: Any, *, epsilon: float, share: float = 1.0, **options: Any) -> None:
        self.share = check_unit_interval(share, "share")
        super().__init__(pack, epsilon=epsilon, **options)

    def _build_space(self) -> HammingSpace:
        return HammingSpace(self.pack, self.share * self.epsilon, self.rng)

    def parameters(self) -> dict[str, object]:
        return {**super().parameters(), "share": self.share}


#: The one registry line of the toy.
ENTRY = MechanismEntry(
    "toy",
    "toy_mechanism:Toy",
    (MechanismOption("share", "share of epsilon spent", 1.0),),
    metric="hamming",
    matchable=True,
)
