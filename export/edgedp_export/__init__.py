"""edgedp-export: the offline builder of edgedp asset packs.

Runs on a workstation, never on the device. It reads real embeddings from registry packages (or a
file you give it), transforms them (binary codes, indexes, ONNX encoders) and writes a verified pack
directory that the ``edgedp`` runtime loads.
"""

__version__ = "0.1.0"
