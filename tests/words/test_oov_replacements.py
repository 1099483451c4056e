"""What replaces a slot no mechanism releases: filler words and emoji, drawn independently of it;
and chat spellings, looked up as their word and privatized."""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import SEEDED_ON_PURPOSE, write_word_pack
from scipy import stats

import edgedp
from edgedp.languages.slang import slang_table
from edgedp.text.emoji import filler_emoji
from edgedp.text.identifiers import common_words, public_names
from edgedp.words.decoding import PERTURBED
from edgedp.words.replacements import EMOJI_BASE, filler_ids, pack_language, pack_slang
from edgedp.words.streaming import privatize_stream

pytestmark = [SEEDED_ON_PURPOSE, pytest.mark.filterwarnings("ignore::edgedp.UtilityWarning")]

#: Out-of-vocabulary or protected, every kind: none of them may shape what replaces them.
UNKNOWN = ["Qxzvbl", "Okonkwo", "1701", "jane.doe@example.com", "Multnomah", "zxqj"]


def brr(pack, rng, **options):
    return edgedp.BRR(pack, epsilon=0.5, decode="nearest", rng=rng, **options)


def test_filler_words_look_like_no_identifier(default_pack):
    ids = filler_ids(default_pack)
    words = [default_pack.vocabulary[int(i)] for i in ids]
    assert len(words) > 15_000 and np.all(np.diff(ids) > 0)
    names, common = public_names(), common_words()
    assert all(word.isalpha() and word not in names and word in common for word in words)
    for made_up in ("shukur", "multnomah", "sultanov", "krieg", "1701", "london", "smith", "will"):
        assert default_pack.vocabulary.ids([made_up])[0] not in set(ids.tolist())
    assert not ids.flags.writeable  # shared by every mechanism on the pack


def test_replacements_are_uniform_over_the_filler(default_pack, seeded):
    filler = filler_ids(default_pack)
    text = " ".join(UNKNOWN * 500)  # 3,000 replaced slots
    out = brr(default_pack, seeded(3)).privatize(text).split(" ")
    ids = default_pack.vocabulary.ids(out)
    positions = np.searchsorted(filler, ids)
    assert np.all(filler[np.minimum(positions, len(filler) - 1)] == ids)  # every one is filler
    counts = np.bincount(positions * 20 // len(filler), minlength=20)  # 20 equal bins
    assert stats.chisquare(counts).pvalue > 1e-4


def test_the_replacement_does_not_depend_on_the_token(default_pack, seeded):
    # the same random stream gives the same output whatever the unknown token was, and of
    # whichever kind (out of vocabulary, a name, a number, an e-mail address)
    outputs = {brr(default_pack, seeded(8)).privatize(f"see {token} soon") for token in UNKNOWN}
    assert len(outputs) == 1


def test_emoji_become_filler_emoji_never_words(default_pack, seeded):
    emoji = ["\U0001f602", "\U0001f44d\U0001f3fd", "\U0001f1f3\U0001f1ec", "\u2764\ufe0f"]
    text = " ".join(emoji * 900)  # 3,600 emoji slots
    out = brr(default_pack, seeded(4)).privatize(text).split(" ")
    filler = filler_emoji()
    index = {char: position for position, char in enumerate(filler)}
    assert all(token in index for token in out)
    counts = np.bincount([index[token] for token in out], minlength=len(filler))
    assert stats.chisquare(counts).pvalue > 1e-4


def test_emoji_never_reach_the_mechanism(default_pack, seeded):
    mechanism = brr(default_pack, seeded(1))
    release = mechanism.noisy_release(
        ["great \U0001f389\U0001f389 see u tmrw \U0001f44b\U0001f3fd"]
    )
    # slots: great, 🎉, 🎉, see, u, tmrw, 👋🏽: the four words are perturbed, the emoji are not
    assert release.points.shape[0] == 4
    perturbed = release.fixed == PERTURBED
    assert perturbed.tolist() == [True, False, False, True, True, True, False]
    assert np.all(release.fixed[~perturbed] <= EMOJI_BASE)


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ("mask", "[OOV] [OOV][OOV] ok"),
        ("drop", "  ok"),
        ("placeholder", "[EMOJI] [EMOJI][EMOJI] ok"),
    ],
)
def test_other_policies_mark_emoji(default_pack, policy, expected):
    mechanism = edgedp.BRR(default_pack, epsilon=50.0, oov=policy, decode="nearest")
    assert mechanism.privatize("\U0001f602 \U0001f389\U0001f389 ok") == expected


def _shape(text: str) -> str:
    """Words as ``w``, filler emoji as ``E``, the layout as it is."""
    filler = set(filler_emoji())
    words = re.sub(r"[^\W_]+", "w", "".join("\0" if char in filler else char for char in text))
    return words.replace("\0", "E")


def test_context_decoding_and_streams_keep_emoji_slots(default_pack):
    text = "yay\U0001f389 see u tmrw!! \U0001f602\U0001f602\nidk if Okonkwo can come \U0001f44b\U0001f3fd\n"
    whole = edgedp.BRR(default_pack, epsilon=50.0).privatize(text)  # context decoding
    streamed = "".join(
        privatize_stream(
            edgedp.BRR(default_pack, epsilon=50.0),
            (text[i : i + 5] for i in range(0, len(text), 5)),
            batch_chars=20,
        )
    )
    assert _shape(whole) == _shape(streamed) == "wE w w w!! EE\nw w w w w E\n"


def test_chat_spellings_are_privatized_as_their_word(default_pack, seeded):
    assert pack_language(default_pack) == "en"
    slang = pack_slang(default_pack)
    assert slang["tmrw"] == "tomorrow" and slang["idk"] == "unsure" and slang["wfh"] == "home"
    identity = edgedp.BRR(default_pack, epsilon=50.0, decode="nearest")  # flips nothing
    assert identity.privatize("idk, wfh tmrw tbh") == "unsure, home tomorrow honestly"
    # a spelling and its word are indistinguishable: the same stream, the same output
    first = brr(default_pack, seeded(2)).privatize("see u tmrw")
    assert first == brr(default_pack, seeded(2)).privatize("see you tomorrow")


def test_a_pack_without_the_words_fills_from_its_whole_vocabulary(tmp_path, seeded):
    words = [f"zq{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(64)]
    codes = np.random.default_rng(0).integers(0, 256, size=(64, 4), dtype=np.uint8)
    pack = edgedp.load_pack(write_word_pack(tmp_path / "tiny", words, codes))
    assert len(filler_ids(pack)) == 64 and not pack_slang(pack)
    assert brr(pack, seeded(0)).privatize("tmrw zzz").count(" ") == 1


def test_a_pack_of_another_language_uses_its_slang_and_frequent_words(tmp_path):
    words = ["que", "de", "porque", "también", "maría", "x1", "agua", "libro", "ventana"]
    codes = np.random.default_rng(0).integers(0, 256, size=(len(words), 4), dtype=np.uint8)
    pack = edgedp.load_pack(write_word_pack(tmp_path / "es", words, codes, language="es"))
    assert pack_language(pack) == "es"
    assert dict(pack_slang(pack)) == {
        spelling: word for spelling, word in slang_table("es").items() if word in words
    }
    filler = {words[int(i)] for i in filler_ids(pack)}
    assert "x1" not in filler and "maría" not in filler  # a digit, a name
    assert {"porque", "también", "agua", "libro", "ventana"} <= filler
    identity = edgedp.BRR(pack, epsilon=50.0, decode="nearest", protect=())
    assert identity.privatize("xq tb") == "porque también"
