"""ADePT: sentence rewriting through a clipped, noised autoencoder latent (pack, model, decoding)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from edgedp.runtime.lazy_names import lazy_names

#: Public name -> the module that defines it (imported on first access, like ``edgedp``'s own).
_EXPORTS = {
    "ADePT": "edgedp.adept.adept",
    "AutoencoderPack": "edgedp.adept.pack",
}

__all__ = [
    "ADePT",
    "AutoencoderPack",
]

if TYPE_CHECKING:
    from edgedp.adept.adept import ADePT
    from edgedp.adept.pack import AutoencoderPack

__getattr__, __dir__ = lazy_names("edgedp.adept", _EXPORTS, globals())
