"""Asset packs: what they are on disk, how they are found, checked and loaded.

* :mod:`~edgedp.packs.manifest`: the versioned manifest, reading every file once into private
  memory and checking its size and SHA-256 there.
* :mod:`~edgedp.packs.schema`: the declarative schema each pack kind's manifest is checked against.
* :mod:`~edgedp.packs.loading`: finding packs by name (bundled, installed distributions through the
  ``edgedp.packs`` entry points, ``EDGEDP_PACKS``) or path, pins, ``load_pack`` / ``list_packs``.
* :mod:`~edgedp.packs.wheel`: a pack as its own installable wheel, built with the runtime alone
  (``python -m edgedp.packs.wheel PACKDIR... --out DIR``; ``edgedp-export wheel`` runs the same code).

Who may import it: the mechanisms (``words``, ``documents``, ``adept``), the encoder and
everything above them. It
imports only :mod:`edgedp.errors` and :mod:`edgedp.privacy`; ``loading`` reaches each pack kind's
loader (``edgedp.words.pack``, ...) by name on first use, so a words program never loads
onnxruntime.
"""
