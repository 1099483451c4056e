"""The two runtime tiers and the native libraries: which implementation runs, on how many threads.

* :mod:`~edgedp.runtime.backend`: the tier of each component (``native``: FAISS, onnxruntime,
  Hugging Face tokenizers, sentencex; ``numpy``: numpy alone, for phones and browsers), chosen by
  what is installed or by ``EDGEDP_BACKEND``.
* :mod:`~edgedp.runtime.native`: the thread count (:func:`~edgedp.runtime.native.set_num_threads`),
  worker threads, checked onnxruntime sessions created on first use (``Lazy``).
* :mod:`~edgedp.runtime.environment`: what the native libraries need set before they load.
* :mod:`~edgedp.runtime.knn`: exact k-nearest-neighbour search, FAISS or numpy, same answers.

It imports only :mod:`edgedp.errors` and :mod:`edgedp.privacy`; everything that runs a search or
an ONNX model imports it.
"""
