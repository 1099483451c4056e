"""What the guard sees (``privatize --dry-run``): the protected slots, where, and why (issue 34)."""

from __future__ import annotations

import io
import json
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgedp.cli import main
from edgedp.text.guard_report import findings_by_line, guard_findings
from edgedp.text.identifiers import PROTECT_KINDS
from edgedp.text.segmentation import segment

NOTE = "Maria Okonkwo called John on 12 March. Write to maria@example.com or 07700 900123."


def test_findings_name_each_protected_slot_and_its_kind():
    findings, _ = guard_findings(NOTE, PROTECT_KINDS)
    assert [(f.text, f.kind) for f in findings] == [
        ("Maria", "name"),
        ("Okonkwo", "name"),  # on the list of many origins (Faker's en_NG)
        ("John", "name"),
        ("12 March", "date"),
        ("maria@example.com", "email"),
        ("07700 900123", "phone"),
    ]
    assert all(NOTE[f.start : f.end] == f.text for f in findings)
    identifiers_only, _ = guard_findings(NOTE, ("identifiers",))
    assert [f.kind for f in identifiers_only] == ["date", "email", "phone"]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab Maria.@x.com 12 March,\n")), max_size=60))
def test_the_findings_are_exactly_the_slots_a_release_protects(text):
    findings, _ = guard_findings(text, PROTECT_KINDS)
    segmented = segment(text, frozenset(PROTECT_KINDS))
    assert len(findings) == len(segmented.protected)
    assert all(text[f.start : f.end] == f.text and f.kind for f in findings)


def test_the_dry_run_reads_sentences_as_a_release_does():
    # "Will" (a common word) is a proper noun inside a sentence, not at its start; a line break
    # starts a sentence in a release (privatize prints "will" there), so it does here too
    capitals = ("identifiers", "proper-nouns")
    across = findings_by_line(["we met", "Will came."], capitals)
    assert [[f.text for f in found] for found in across] == [[], []]
    inside = findings_by_line(["we met, Will came."], capitals)
    assert [[f.text for f in found] for found in inside] == [["Will"]]


def test_cli_dry_run_releases_nothing_and_counts_the_kinds(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((NOTE + "\n\n").encode())))
    assert main(["privatize", "--dry-run"]) in (0, None)
    out, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["line"] for line in lines] == [1, 2] and lines[1]["protected"] == []
    assert {span["kind"] for span in lines[0]["protected"]} == {
        "name", "date", "email", "phone",
    }  # fmt: skip
    assert "nothing released: date 1, email 1, name 3, phone 1" in err


def test_placeholders_say_the_kind_of_each_protected_slot(default_pack):
    import edgedp

    brr = edgedp.BRR(default_pack, epsilon=50.0, oov="placeholder")
    assert brr.privatize(NOTE + " Zyxqv.") == (
        "[NAME] [NAME] called [NAME] on [DATE]. write to [EMAIL] or [PHONE]. [RARE-WORD]."
    )  # Zyxqv: no word of English, a rare word (a name, or the rarest and most identifying)
    plain = edgedp.BRR(default_pack, epsilon=50.0, oov="placeholder", protect=())
    assert plain.privatize("the zyxqv cat") == "the [OOV] cat"  # not protected: only OOV
    rebuilt = type(brr)(default_pack, **brr.parameters())
    assert rebuilt.oov == "placeholder"


def test_a_deny_list_protects_its_words_whatever_the_guard(
    default_pack, tmp_path, capsys, monkeypatch
):
    import edgedp
    from edgedp.errors import InputError
    from edgedp.text.segmentation import check_deny

    brr = edgedp.BRR(
        default_pack, epsilon=50.0, oov="placeholder", protect=("identifiers",), deny=["Okonkwo"]
    )
    assert brr.privatize("ask okonkwo, not maria") == "ask [OOV], not maria"
    assert type(brr)(default_pack, **brr.parameters()).deny == frozenset({"okonkwo"})
    for bad in (["New York"], "okonkwo", [""], ["a,b"]):
        with pytest.raises(InputError, match="deny"):
            check_deny(bad)
    contacts = tmp_path / "contacts.txt"
    contacts.write_text("# an app's contacts\nOkonkwo\n\nAdebayo\n", encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"call adebayo or okonkwo\n")))
    argv = ["privatize", "--dry-run", "--protect", "none", "--deny", str(contacts)]
    assert main(argv) in (0, None)
    (line,) = [json.loads(text) for text in capsys.readouterr().out.splitlines()]
    assert [(span["text"], span["kind"]) for span in line["protected"]] == [
        ("adebayo", "deny"),
        ("okonkwo", "deny"),
    ]


def test_a_denied_slot_says_no_more_than_another_protected_slot(default_pack, seeded):
    # Whoever knows an app's deny-list (a patient list) must not see that a slot held one of its
    # words: a denied vocabulary word prints as an out-of-vocabulary token does, with the same
    # release around it; a denied public name prints as any public name.
    import edgedp

    # every kind but rare words, which would protect the out-of-vocabulary word below
    kinds = [kind for kind in PROTECT_KINDS if kind != "rare-words"]

    def brr(**options):
        return edgedp.BRR(
            default_pack, epsilon=1.0, oov="placeholder", rng=seeded(4), protect=kinds, **options
        )

    denied = brr(deny=["tomorrow", "maria"]).privatize("see you tomorrow, maria and anna")
    # an out-of-vocabulary token no rule protects
    unlisted = brr().privatize("see you zyxqv, maria and anna")
    assert "[DENY]" not in denied
    assert denied == unlisted
    assert denied.endswith(", [NAME] and [NAME]")
