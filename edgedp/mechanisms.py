"""The registry of mechanisms by CLI name."""

from __future__ import annotations

from edgedp.brr import BRR
from edgedp.word_mechanism import WordMechanism

WORD_MECHANISMS: dict[str, type[WordMechanism]] = {cls.name: cls for cls in (BRR,)}
