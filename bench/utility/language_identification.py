"""The language identifier (:mod:`edgedp.languages.identification`) on held-out public text.

``python -m bench langid`` measures, on text that did not train the model (the model is built from
wordfreq's word lists and LibreOffice's translations only):

1. **Held-out sentences** of Debian's fortune cookies (English, Spanish, German, Brazilian
   Portuguese, Russian, Czech, Slovak, Bulgarian, Esperanto, Irish; never ``fortunes-it`` or
   ``fortunes-pl``, reserved) and of the Debian package descriptions' translations (DDTP, the
   archive's ``Translation-<lang>`` indexes: every language of the archive, French, Italian and
   Polish among them): per language and source, the share identified exactly, undetermined, and
   (for languages without a pack) routed to a pack.
2. **Chat-length fragments** of those sentences, lower-cased and without punctuation, by length
   (1-3, 4-7, 8-15 words), per pack language.
3. **The chat messages written for the tests** (``tests/languages/chat_*``).
4. **English**: the chat sample, fortunes and package descriptions by length, wordfreq's 1,000
   most frequent English words alone, and random pairs and triples of its 2,000 most frequent:
   the share identified as English or undetermined (what a router sends to English).
5. **Other languages**: the share of text in a language without a pack that is routed ``other``
   (protected), for languages the model knows and for languages it has never seen (LibreOffice
   translations into Tswana, Sotho, Northern Sotho, Tsonga, Oromo, Venda, Ndebele, Guarani and
   Silesian, and the Swahili chat messages).
6. **Confusion matrices** (pack languages, other, und) on the fragments and on the chat sample.
7. **Language runs** of two-sentence messages in two pack languages: the share cut into exactly
   the two right runs.
8. **Cost**: model size, load time and peak RSS of a fresh process, per-message time warm
   (against segmenting the same message with :func:`edgedp.text.segmentation.segment`).

Every accuracy is printed beside the floor of a constant answer that ignores the text: "en" (what
an identifier that always says English scores; for the English rows, 1.0 by construction).

Needs the exporter (``pip install ./export``: Debian packages through ``apt-get download``) and
wordfreq, and ``apt-get update`` into a private lists folder for the DDTP indexes.
"""

from __future__ import annotations

import itertools
import re
import statistics
import subprocess
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from bench.harness import ROOT, Report, median_python, progress
from edgedp.languages.identification import (
    MODEL_FILE,
    OTHER,
    UNDETERMINED,
    identify,
    known_languages,
    language_runs,
    model,
)

#: Languages with a word pack (the router's).
PACK_LANGUAGES = ("en", "es", "de", "fr", "pt", "it", "ru", "pl")
#: Debian fortune packages and the folder (under usr/share/games/fortunes) of each language.
FORTUNES = {
    "en": ("fortunes", None),
    "es": ("fortunes-es", "es"),
    "de": ("fortunes-de", "de"),
    "pt": ("fortunes-br", None),
    "ru": ("fortunes-ru", "ru"),
    "cs": ("fortunes-cs", "cs"),
    "sk": ("fortunes-cs", "sk"),
    "bg": ("fortunes-bg", "bg"),
    "eo": ("fortunes-eo", "eo"),
    "ga": ("fortunes-ga", "ga"),
}
#: The archive's description translations: index name -> language code of the model.
DDTP = {
    **{code: code for code in ("en", "es", "de", "fr", "pt", "it", "ru", "pl", "ca", "cs", "da")},
    **{code: code for code in ("el", "eo", "eu", "fi", "gl", "hu", "id", "ja", "ko", "nb", "nl")},
    **{code: code for code in ("ro", "sk", "sv", "tr", "uk", "vi")},
    "pt_BR": "pt",
    "zh_CN": "zh",
    "sr": "sr",
}
#: LibreOffice translations into languages the model has never seen (Debian libreoffice-l10n-*).
UNSEEN = ("tn", "st", "nso", "ts", "om", "ve", "nr", "gug", "szl")
LENGTHS = ((1, 3), (4, 7), (8, 15))
TESTS = ROOT / "tests" / "languages"
_STOP = re.compile(r"(?<=[.!?])\s+")
_NOT_CHAT = re.compile(r"[^\w\s'-]")


def sentences(texts: Iterable[str], *, minimum: int = 3, maximum: int = 40) -> list[str]:
    """The sentences of ``texts`` of ``minimum``..``maximum`` words, mostly letters."""
    found = []
    for text in texts:
        for sentence in _STOP.split(" ".join(text.split())):
            count = len(sentence.split())
            letters = sum(char.isalpha() for char in sentence)
            if minimum <= count <= maximum and letters > 0.6 * len(sentence):
                found.append(sentence)
    return found


def fortune_sentences(language: str) -> list[str]:
    """Sentences of the fortune cookies of ``language`` (attribution lines dropped)."""
    from edgedp_export.public_corpora import FORTUNE_FILES, debian_package

    package, folder = FORTUNES[language]
    root, _ = debian_package(package)
    base = root / "usr/share/games/fortunes"
    if language == "en":
        paths = [base / name for name in FORTUNE_FILES]
    elif language == "pt":
        paths = [base / "brasil"]
    else:
        # the Czech folder also holds the Slovak files (klasik-sk), which the Slovak one links to
        paths = sorted(
            path
            for path in (base / str(folder)).iterdir()
            if path.suffix not in (".dat", ".u8")
            and path.name != "off"
            and (language == "sk") == path.name.endswith("-sk")
        )
    cookies = []
    for path in paths:
        if not path.resolve().is_file():
            continue
        for cookie in path.read_text(encoding="utf-8", errors="replace").split("\n%\n"):
            kept = [line for line in cookie.splitlines() if not line.strip().startswith("--")]
            cookies.append(" ".join(kept))
    return sentences(cookies)


def ddtp_indexes(cache: Path) -> dict[str, list[str]]:
    """Long descriptions of the archive's packages in every language of :data:`DDTP`."""
    lists = cache / "debian" / "lists-i18n"
    (lists / "partial").mkdir(parents=True, exist_ok=True)
    if not list(lists.glob("*_main_i18n_Translation-de*")):
        subprocess.run(
            [
                "apt-get",
                "update",
                "-qq",
                f"-o=Dir::State::Lists={lists}",
                f"-o=Acquire::Languages={','.join(DDTP)}",
            ],
            check=True,
            capture_output=True,
        )
    found = {}
    for index in DDTP:
        paths = sorted(lists.glob(f"*bookworm_main_i18n_Translation-{index.replace('_', '%5f')}.*"))
        if not paths:
            continue
        text = subprocess.run(
            ["/usr/lib/apt/apt-helper", "cat-file", str(paths[0])],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        descriptions = []
        for stanza in text.split("\n\n"):
            match = re.search(r"^Description-(?!md5)\S+: .*\n((?: .*\n?)*)", stanza, re.M)
            if match:
                prose = [
                    line[1:]
                    for line in match.group(1).splitlines()
                    if line.startswith(" ") and not line.startswith("  ") and line.strip() != "."
                ]
                descriptions.append(" ".join(prose))
        found[index] = descriptions
    return found


def unseen_messages(language: str, count: int) -> list[str]:
    """Translated strings of two words or more from LibreOffice's catalogs in ``language``."""
    from edgedp_export.language_identifier import mo_messages
    from edgedp_export.public_corpora import debian_package

    root, _ = debian_package(f"libreoffice-l10n-{language}")
    folder = root / "usr/lib/libreoffice/program/resource" / language.replace("_", "-")
    messages = [
        translation
        for path in sorted(folder.glob("LC_MESSAGES/*.mo"))
        for source, translation in mo_messages(path.read_bytes())
        if source and translation != source and len(translation.split()) >= 2
    ]
    return pick(messages, count, np.random.default_rng(len(messages)))


def pick(items: Sequence[str], count: int, rng: np.random.Generator) -> list[str]:
    """``count`` of ``items`` (all if fewer), drawn without replacement, in drawn order."""
    return [items[index] for index in rng.permutation(len(items))[:count]]


def fragment(sentence: str, low: int, high: int, rng: np.random.Generator) -> str | None:
    """A chat-like piece of ``sentence``: ``low``..``high`` consecutive words, lower case, no
    punctuation; None if the sentence is shorter than ``low`` words."""
    tokens = [token for token in _NOT_CHAT.sub(" ", sentence.lower()).split() if token]
    if len(tokens) < low:
        return None
    size = int(rng.integers(low, min(high, len(tokens)) + 1))
    start = int(rng.integers(0, len(tokens) - size + 1))
    return " ".join(tokens[start : start + size])


def chat_sample() -> list[tuple[str, str]]:
    """(language, message) of the tests' chat sample; "und" for the messages without evidence."""

    def read(name: str) -> list[str]:
        text = (TESTS / name).read_text(encoding="utf-8")
        return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]

    sample = [("en", line) for line in read("chat_en.txt")]
    for name in ("chat_packs.tsv", "chat_others.tsv"):
        sample += [(line.split("\t", 1)[0], line.split("\t", 1)[1]) for line in read(name)]
    return sample + [(UNDETERMINED, line) for line in read("chat_undetermined.txt")]


def verdict(truth: str, found: str) -> bool:
    """Right for a router: English text English or undetermined; a pack language exactly; any
    other language (or "und" text) never a pack language, and others not undetermined."""
    if truth in ("en", UNDETERMINED):
        return found in ("en", UNDETERMINED)
    if truth in PACK_LANGUAGES:
        return found == truth
    return found not in PACK_LANGUAGES and found != UNDETERMINED


def column(found: str) -> str:
    return found if found in (*PACK_LANGUAGES, UNDETERMINED) else OTHER


def confusion(report: Report, name: str, pairs: Sequence[tuple[str, str]]) -> None:
    """One row per true class (pack languages, other, und), one column per answer."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for truth, found in pairs:
        counts[column(truth)][column(found)] += 1
    for truth in (*PACK_LANGUAGES, OTHER, UNDETERMINED):
        if counts[truth]:
            total = sum(counts[truth].values())
            report.add(
                table=name,
                true=truth,
                n=total,
                **{
                    answer: round(counts[truth][answer] / total, 3)
                    for answer in (*PACK_LANGUAGES, OTHER, UNDETERMINED)
                },
            )


def rate(items: Sequence[tuple[str, str]], check: Callable[[str, str], bool]) -> float:
    return sum(check(truth, found) for truth, found in items) / max(1, len(items))


def run(report: Report, *, quick: bool) -> None:
    from edgedp_export.public_corpora import CACHE

    per_source = 12 if quick else 300
    rng = np.random.default_rng(2026)
    known = set(known_languages())
    held_out: dict[tuple[str, str], list[str]] = {}
    for language in progress(FORTUNES, "fortunes"):
        found = fortune_sentences(language)
        if found:
            held_out[(language, "fortunes")] = pick(found, per_source, rng)
    for index, descriptions in ddtp_indexes(CACHE).items():
        found = sentences(descriptions)
        if found:
            key = (DDTP[index], "descriptions")
            held_out[key] = held_out.get(key, []) + pick(found, per_source, rng)

    # 1. held-out sentences
    answers: dict[tuple[str, str], list[str]] = {}
    for (language, source), texts in progress(held_out.items(), "sentences"):
        answers[(language, source)] = [identify(text).language for text in texts]
        found = answers[(language, source)]
        report.add(
            table="held-out sentences",
            language=language,
            source=source,
            n=len(found),
            exact=round(sum(answer == language for answer in found) / len(found), 3),
            und=round(found.count(UNDETERMINED) / len(found), 3),
            to_a_pack=round(sum(answer in PACK_LANGUAGES for answer in found) / len(found), 3)
            if language not in PACK_LANGUAGES
            else None,
            right_for_a_router=round(rate([(language, a) for a in found], verdict), 3),
            floor_en=1.0 if language == "en" else 0.0,
        )

    # 2. fragments by length
    fragments: dict[tuple[int, int], list[tuple[str, str, str]]] = {}
    for low, high in LENGTHS:
        pieces = []
        for (language, source), texts in held_out.items():
            for text in texts:
                piece = fragment(text, low, high, rng)
                if piece:
                    pieces.append((language, source, piece))
        fragments[(low, high)] = [
            (language, source, identify(piece).language)
            for language, source, piece in progress(pieces, f"fragments {low}-{high}")
        ]
    whole = {
        (low, high): [(language, answer) for language, _, answer in fragments[(low, high)]]
        for low, high in LENGTHS
    }
    for language in PACK_LANGUAGES:
        row: dict[str, object] = {"table": "pack languages by length (words)", "language": language}
        sentences_found = [
            answer for (lang, _), found in answers.items() if lang == language for answer in found
        ]
        for low, high in LENGTHS:
            items = [(lang, answer) for lang, answer in whole[(low, high)] if lang == language]
            row[f"{low}-{high}"] = round(rate(items, verdict), 3)
            row[f"und {low}-{high}"] = round(
                sum(answer == UNDETERMINED for _, answer in items) / max(1, len(items)), 3
            )
        row["sentences"] = round(rate([(language, a) for a in sentences_found], verdict), 3)
        row["n per length"] = sum(1 for lang, _ in whole[LENGTHS[0]] if lang == language)
        row["floor_en"] = 1.0 if language == "en" else 0.0
        report.add(**row)

    # 3. chat sample
    chat = [(truth, identify(text).language, text) for truth, text in chat_sample()]
    groups = {
        "English": lambda truth: truth == "en",
        "pack languages": lambda truth: truth in PACK_LANGUAGES and truth != "en",
        "other, known to the model": lambda truth: (
            truth not in (*PACK_LANGUAGES, UNDETERMINED) and truth in known
        ),
        "other, unseen (sw)": lambda truth: truth not in known and truth != UNDETERMINED,
        "no evidence (und)": lambda truth: truth == UNDETERMINED,
    }
    for name, member in groups.items():
        items = [(truth, found) for truth, found, _ in chat if member(truth)]
        report.add(
            table="chat sample (tests/languages)",
            group=name,
            n=len(items),
            right_for_a_router=round(rate(items, verdict), 3),
            exact=round(rate(items, lambda t, f: t == f or (t == UNDETERMINED and f == t)), 3),
            floor_en=round(rate(items, lambda t, f: verdict(t, "en")), 3),
        )
    for truth in sorted({truth for truth, _, _ in chat} - {"en", UNDETERMINED}):
        items = [(t, f) for t, f, _ in chat if t == truth]
        report.add(
            table="chat sample per language",
            language=truth,
            n=len(items),
            exact=round(rate(items, lambda t, f: t == f), 3),
            right_for_a_router=round(rate(items, verdict), 3),
            answers=", ".join(f"{k} {v}" for k, v in Counter(f for _, f in items).most_common(3)),
        )
    report.sections += [
        "### Chat sample: every message a router would send wrong",
        "",
        *(
            f"- `{text}` ({truth}): {found}"
            for truth, found, text in chat
            if not verdict(truth, found)
        ),
        "",
    ]

    # 4. English
    import wordfreq

    top = [word for word in wordfreq.top_n_list("en", 3000) if word.isalpha()]
    singles = top[:1000] if not quick else top[:50]
    word_rng = np.random.default_rng(7)
    combos = [
        " ".join(pick(top[:2000], size, word_rng))
        for size in (2, 3)
        for _ in range(50 if quick else 1000)
    ]
    english_rows = {
        "chat sample": [found for truth, found, _ in chat if truth == "en"],
        "wordfreq top 1,000 words alone": [identify(word).language for word in singles],
        "random pairs and triples of the top 2,000": [identify(text).language for text in combos],
    }
    for low, high in LENGTHS:
        for source in ("fortunes", "descriptions"):
            english_rows[f"{source}, {low}-{high} words"] = [
                answer
                for lang, src, answer in fragments[(low, high)]
                if lang == "en" and src == source
            ]
    english_rows["sentences (fortunes and descriptions)"] = [
        answer for (lang, _), found in answers.items() if lang == "en" for answer in found
    ]
    for name, found in english_rows.items():
        report.add(
            table="English stays English",
            text=name,
            n=len(found),
            english_or_und=round(
                sum(a in ("en", UNDETERMINED) for a in found) / max(1, len(found)), 4
            ),
            und=round(found.count(UNDETERMINED) / max(1, len(found)), 3),
            wrong=", ".join(
                f"{k} {v}"
                for k, v in Counter(a for a in found if a not in ("en", UNDETERMINED)).most_common(
                    4
                )
            ),
        )

    # 5. other languages: routed "other"
    others = sorted({lang for lang, _ in held_out} - set(PACK_LANGUAGES))
    for language in others:
        found = [a for (lang, _), items in answers.items() if lang == language for a in items]
        short = [a for lang, a in whole[(4, 7)] if lang == language]
        report.add(
            table="languages without a pack: routed other (protected)",
            language=language,
            seen_in_training=language in known,
            n=len(found),
            sentences=round(
                sum(a not in (*PACK_LANGUAGES, UNDETERMINED) for a in found) / len(found), 3
            ),
            fragments_4_7=round(
                sum(a not in (*PACK_LANGUAGES, UNDETERMINED) for a in short) / max(1, len(short)), 3
            ),
            und_sentences=round(found.count(UNDETERMINED) / len(found), 3),
            floor_en=0.0,
        )
    for language in UNSEEN[: 2 if quick else None]:
        messages = unseen_messages(language, 20 if quick else 300)
        found = [identify(text).language for text in messages]
        report.add(
            table="languages without a pack: routed other (protected)",
            language=language,
            seen_in_training=False,
            n=len(found),
            sentences=round(
                sum(a not in (*PACK_LANGUAGES, UNDETERMINED) for a in found) / len(found), 3
            ),
            und_sentences=round(found.count(UNDETERMINED) / len(found), 3),
            answers=", ".join(f"{k} {v}" for k, v in Counter(found).most_common(3)),
            floor_en=0.0,
        )

    # 6. confusion matrices
    confusion(
        report,
        "confusion, fragments of 1-15 words",
        [pair for low_high in LENGTHS for pair in whole[low_high]],
    )
    confusion(report, "confusion, chat sample", [(truth, found) for truth, found, _ in chat])

    # 7. language runs of two-language messages
    by_language: dict[str, list[str]] = defaultdict(list)
    for truth, text in chat_sample():
        if truth in PACK_LANGUAGES and text.rstrip()[-1:] not in ".!?":
            by_language[truth].append(text)
    pairs_checked = right = 0
    for first, second in itertools.permutations(PACK_LANGUAGES, 2):
        for a, b in zip(
            by_language[first][: 8 if not quick else 1], by_language[second][3:11], strict=False
        ):
            text = f"{a}. {b}"
            pairs_checked += 1
            right += language_runs(text) == [
                (0, len(a) + 2, first),
                (len(a) + 2, len(text), second),
            ]
    report.add(
        table="language runs of two-language messages",
        messages=pairs_checked,
        both_runs_right=round(right / max(1, pairs_checked), 3),
        floor_one_run=0.0,
    )

    # 8. cost
    from edgedp.text.segmentation import segment

    texts = [text for _, text in chat_sample()]
    identify(texts[0])
    timings = []
    baseline = []
    for _ in range(3 if quick else 7):
        start = time.perf_counter()
        for text in texts:
            identify(text)
        timings.append((time.perf_counter() - start) / len(texts))
        start = time.perf_counter()
        for text in texts:
            segment(text)
        baseline.append((time.perf_counter() - start) / len(texts))
    found_model = model()
    arrays = sum(
        getattr(found_model, name).nbytes
        for name in ("keys", "offsets", "entry_language", "entry_value")
    )
    repeats = 1 if quick else 5
    floor = median_python(["-c", "import numpy"], repeats=repeats)
    loaded = median_python(
        ["-c", "from edgedp.languages.identification import model; model()"], repeats=repeats
    )
    one = median_python(
        [
            "-c",
            "from edgedp.languages.identification import identify; identify('nos vemos mañana')",
        ],
        repeats=repeats,
    )
    report.add(
        table="cost",
        model_file_mib=round(MODEL_FILE.stat().st_size / 2**20, 2),
        arrays_mib=round(arrays / 2**20, 2),
        languages=len(found_model.languages),
        keys=int(found_model.keys.size),
        entries=int(found_model.entry_value.size),
        per_message_us=round(statistics.median(timings) * 1e6, 1),
        segment_us=round(statistics.median(baseline) * 1e6, 1),
        ratio_to_segment=round(statistics.median(timings) / statistics.median(baseline), 2),
        process_load_s=round(loaded.seconds, 3),
        import_numpy_s=round(floor.seconds, 3),
        peak_rss_identify_mb=round(one.peak_rss_mb, 1),
        peak_rss_import_numpy_mb=round(floor.peak_rss_mb, 1),
    )
    report.notes += [
        "Exact = the language found is the text's; right for a router = English text English or "
        "und, a pack language exactly, any other language neither a pack language nor und.",
        "Fragments are consecutive words of the held-out sentences, lower case, punctuation "
        "removed (what chat looks like); sampled with fixed seeds.",
        "Timings are medians on a shared machine (see the load average above); the ratio to "
        "segmenting the same messages is the figure that travels.",
    ]
