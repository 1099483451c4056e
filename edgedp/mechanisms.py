"""The registry of mechanisms by CLI name."""

from __future__ import annotations

from edgedp.adept.mechanism import ADePT
from edgedp.words.brr import BRR
from edgedp.words.custext import CusText
from edgedp.words.madlib import Madlib
from edgedp.words.mahalanobis import Mahalanobis
from edgedp.words.mechanism import WordMechanism
from edgedp.words.santext import SanText, SanTextPlus
from edgedp.words.tem import TEM
from edgedp.words.vickrey import GeneralizedVickrey, Vickrey

WORD_MECHANISMS: dict[str, type[WordMechanism]] = {
    cls.name: cls
    for cls in (
        BRR,
        Madlib,
        Mahalanobis,
        Vickrey,
        GeneralizedVickrey,
        TEM,
        SanText,
        SanTextPlus,
        CusText,
    )
}
#: Mechanisms that rewrite whole sentences (``edgedp privatize`` runs them line by line).
SENTENCE_REWRITERS: dict[str, type[ADePT]] = {ADePT.name: ADePT}
