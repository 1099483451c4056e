"""Corpus jobs on data engines, with the same packs and guarantees as on a device.

* :mod:`~edgedp.engines.corpus`: the engine-neutral block (plans on the driver, record batches in
  a worker: pinned packs, per-partition randomness, ledger charges before release).
* :mod:`~edgedp.engines.spark`, :mod:`~edgedp.engines.dask`: thin adapters (``edgedp[spark]``,
  ``edgedp[dask]``); users import them as :mod:`edgedp.spark` and :mod:`edgedp.dask`.

Who may import it: nothing inside edgedp but the two entry points; it sits on top of the
mechanisms.
"""
