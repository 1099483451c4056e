"""Privatize a corpus on Apache Spark: ``import edgedp.spark`` (``pip install ".[spark]"`` in a checkout).

The entry point users import; the adapter is :mod:`edgedp.engines.spark`.
"""

from edgedp.engines.spark import embed, privatize

__all__ = ["embed", "privatize"]
