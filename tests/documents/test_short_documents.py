"""Documents too short for a sentence-level release to say anything: warned about, for every
sentence-level mechanism (the shared code path), never for the baselines."""

from __future__ import annotations

import warnings

import pytest

import edgedp
from edgedp.documents.mechanism import INFORMATIVE_SENTENCES

LONG = "The market rose on Monday. Banks led the gains. Analysts were surprised."


@pytest.mark.parametrize("mechanism", [edgedp.DeepCandidate, edgedp.Truncation])
@pytest.mark.parametrize("short", ["", "Only one sentence here."])
def test_a_short_document_warns(sentence_pack, mechanism, short):
    dp = mechanism(sentence_pack, epsilon=6)
    with pytest.warns(edgedp.ShortDocumentWarning, match="1 of 2 documents have fewer than 2"):
        rows = dp.embed_batch([LONG, short])
    assert rows.shape == (2, sentence_pack.dims)  # still released: private, only useless
    assert dp.too_short(0) and dp.too_short(1) and not dp.too_short(INFORMATIVE_SENTENCES)


def test_deepcandidate_release_warns_too(sentence_pack):
    dc = edgedp.DeepCandidate(sentence_pack, epsilon=6)
    with pytest.warns(edgedp.ShortDocumentWarning):
        release = dc.release("One sentence.")
    assert release.sentences == 1


def test_long_documents_and_the_baselines_do_not_warn(sentence_pack):
    with warnings.catch_warnings():
        warnings.simplefilter("error", edgedp.ShortDocumentWarning)
        edgedp.DeepCandidate(sentence_pack, epsilon=6).embed_batch([LONG, ["Two.", "Given."]])
        with pytest.warns(edgedp.NotPrivateWarning):
            mean = edgedp.NonPrivateMean(sentence_pack)
        mean.embed_batch(["One sentence.", ""])
        assert not mean.too_short(0)
