"""``edgedp packs fit``: the fit check of a document pack on a PUBLIC sample of a domain, for the
mechanism that pack serves (a sentences pack: DeepCandidate; a subspace pack: SubspaceMean)."""

from __future__ import annotations

import json
from pathlib import Path

from edgedp.documents.deepcandidate_fit import PackFit, format_fit, pack_fit, pack_source
from edgedp.documents.pack import SentencePack
from edgedp.documents.public_sample import read_sample
from edgedp.documents.subspace_mean_fit import SubspaceFit, format_subspace_fit, subspace_pack_fit
from edgedp.documents.subspace_pack import SubspacePack
from edgedp.errors import InputError


def run_fit(pack: object, sample: Path, *, as_json: bool = False) -> PackFit | SubspaceFit:
    """``edgedp packs fit``: read the sample, estimate the fit of a sentences pack (DeepCandidate)
    or a subspace pack (SubspaceMean), print it."""
    texts, labels = read_sample(sample)
    if isinstance(pack, SubspacePack):
        subspace = subspace_pack_fit(pack, texts, labels)
        print(
            json.dumps(subspace.as_dict(), indent=2) if as_json else format_subspace_fit(subspace)
        )
        return subspace
    if not isinstance(pack, SentencePack):
        raise InputError(
            f"packs fit needs a sentences or subspace pack, not a {getattr(pack, 'kind', '?')} pack"
        )
    fit = pack_fit(pack, texts, labels, source=pack_source(pack, sample))
    print(json.dumps(fit.as_dict(), indent=2) if as_json else format_fit(fit))
    return fit
