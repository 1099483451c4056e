"""The registry of mechanisms by CLI name."""

from __future__ import annotations

from edgedp.adept import ADePT
from edgedp.brr import BRR
from edgedp.madlib import Madlib
from edgedp.mahalanobis import Mahalanobis
from edgedp.vickrey import GeneralizedVickrey, Vickrey
from edgedp.word_mechanism import WordMechanism

WORD_MECHANISMS: dict[str, type[WordMechanism]] = {
    cls.name: cls for cls in (BRR, Madlib, Mahalanobis, Vickrey, GeneralizedVickrey)
}
#: Mechanisms that rewrite whole sentences (``edgedp privatize`` runs them line by line).
SENTENCE_REWRITERS: dict[str, type[ADePT]] = {ADePT.name: ADePT}
