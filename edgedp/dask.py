"""Privatize a corpus with Dask: ``import edgedp.dask`` (``pip install ".[dask]"`` in a checkout).

The entry point users import; the adapter is :mod:`edgedp.engines.dask`.
"""

from edgedp.engines.dask import embed, privatize

__all__ = ["embed", "privatize"]
