"""What a word mechanism does when nothing is asked: BRR decodes in context where its public
language model is installed, every mechanism warns in Python where the command line warns."""

from __future__ import annotations

import warnings

import pytest

import edgedp
from edgedp.errors import InputError, UtilityWarning


def test_brr_decodes_in_context_by_default_on_the_bundled_pack(default_pack):
    brr = edgedp.BRR(default_pack, epsilon=0.6)
    assert brr.decode == "context" and brr.language_model == "lm-general"
    assert brr.parameters()["decode"] == "context"  # a corpus worker rebuilds the same decoder
    assert edgedp.Madlib.auto_decode == "nearest"  # held-out results were mixed for Madlib
    assert edgedp.BRR(default_pack, epsilon=0.6, decode="nearest").decoder is None


@pytest.mark.parametrize("decode", ["nearest", "map", "context"])
def test_parameters_rebuild_the_same_decoder(default_pack, decode):
    """What the keep-rate warning, explain and tune rebuild a mechanism from:
    ``nearest`` left out meant BRR's default, context decoding, measured instead."""
    brr = edgedp.BRR(default_pack, epsilon=0.6, decode=decode)
    again = edgedp.BRR(default_pack, **brr.parameters())
    assert again.decode == decode and (again.decoder is None) == (decode == "nearest")


def test_without_a_language_model_for_the_pack_auto_is_nearest(euclid_pack):
    # lm-general is built for words-small's vocabulary; another pack has no model to decode with
    assert edgedp.BRR(euclid_pack, epsilon=0.6).decode == "nearest"
    with pytest.raises(edgedp.AssetError):  # asked for explicitly, a missing model is an error
        edgedp.BRR(euclid_pack, epsilon=0.6, decode="context")
    with pytest.raises(InputError, match="decode"):
        edgedp.BRR(euclid_pack, epsilon=0.6, decode="automatic")


@pytest.mark.parametrize(
    ("epsilon", "what"), [(3.0, "almost a copy"), (0.05, "mostly unrelated words")]
)
def test_the_python_api_warns_where_the_command_line_warns(default_pack, epsilon, what):
    brr = edgedp.BRR(default_pack, epsilon=epsilon)
    with pytest.warns(UtilityWarning, match=what):
        brr.privatize("the patient said the results were fine")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UtilityWarning)
        brr.privatize("once is enough")  # said at the first release only


def test_a_useful_epsilon_does_not_warn(default_pack):
    with warnings.catch_warnings():
        warnings.simplefilter("error", UtilityWarning)
        edgedp.BRR(default_pack, epsilon=0.6).privatize_batch(["a text", "another text"])
