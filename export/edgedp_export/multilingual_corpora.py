"""Public text of eight languages from Debian packages, for the multilingual subspace pack.

The languages are those of the word packs: en, es, de, fr, pt, it, ru, pl. Every source is a
Debian package (``apt-get download`` + ``dpkg-deb -x``, :func:`edgedp_export.public_corpora.debian_package`)
under a free licence; none is research-only, and the pack ships no text:

============ ===================================== ============================ ============ ========
name         what                                  Debian packages              licence      label
============ ===================================== ============================ ============ ========
help-LANG    the LibreOffice 7.4 help, one page a  libreoffice-help-LANG        MPL-2.0      module
             document (the same 2,561 pages in     (en-us, es, de, fr, it, pl,
             every language: a parallel corpus)    pt, pt-br, ru)
manpages-L   Linux man pages translated (sections  manpages-LANG (fr, de, es,   GPL-3+ (the  section
             1-8) as ~2,000-character passages     it, pl, ru, pt-br)           translations)
fortunes-L   fortune cookies, four to a document   fortunes-es, -de, -ru, -br   GPL / free   file
             (es, de, ru by topic file; pt one file)
============ ===================================== ============================ ============ ========

plus the English corpora of :mod:`edgedp_export.public_corpora`. Debian's ``fortunes-it`` and
``fortunes-pl`` are reserved for independent evaluation and are never read. Portuguese is
``pt-br`` where a package has both (the help has both: ``pt`` is European Portuguese).
"""

from __future__ import annotations

import gzip
import html.parser
import json
import re
from collections.abc import Sequence
from pathlib import Path

from edgedp.errors import InputError
from edgedp_export.corpus import PublicCorpus, PublicDocument
from edgedp_export.public_corpora import (
    CACHE,
    MANPAGE_CHARACTERS,
    debian_package,
    fortunes,
    labelled_corpus,
    linux_manpages,
    manpage_prose,
    mixed_corpus,
    passages,
    write_jsonl,
)

#: The languages of the word packs, which the multilingual packs cover.
LANGUAGES = ("en", "es", "de", "fr", "pt", "it", "ru", "pl")
#: Debian's name of each language's LibreOffice help and man pages.
_HELP = {"en": "en-us", "pt": "pt-br"}
_MANPAGES = {"pt": "pt-br"}
_MAN_DIRECTORY = {"pt": "pt_BR"}
#: Reserved for independent evaluation: never read, here or anywhere.
RESERVED = ("fortunes-it", "fortunes-pl")
#: Help modules with pages of their own subject (``shared`` is the common dialogs).
HELP_MODULES = ("sbasic", "scalc", "schart", "sdatabase", "sdraw", "simpress", "smath", "swriter")
#: Fortune files by topic (labels): everyday subjects, the offensive ones left out.
FORTUNE_TOPICS = {
    "es": (
        "amistad", "arte", "ciencia", "familia", "informatica", "libertad", "poder",
        "sentimientos", "vida",
    ),
    "de": ("fussball", "hauptgericht", "kinderzitate", "linuxtag", "mathematiker", "ms", "regeln"),
    "ru": ("education", "fidelity", "flirt", "friendship", "murphy", "war", "wealth"),
}  # fmt: skip
#: Cookies joined into one document (a cookie is one to three sentences: about six a document).
COOKIES_PER_DOCUMENT = 4
_FORTUNE_PACKAGE = {
    "es": "fortunes-es",
    "de": "fortunes-de",
    "ru": "fortunes-ru",
    "pt": "fortunes-br",
}
#: The languages with public fortune files (fortunes-it and -pl are reserved, never read).
FORTUNE_LANGUAGES = tuple(_FORTUNE_PACKAGE)
_ATTRIBUTION = re.compile(r"^\s+--\s")


class _HelpText(html.parser.HTMLParser):
    """The paragraphs of a help page's display area: headings, paragraphs, list items, cells."""

    _BLOCKS = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "td", "th"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.paragraphs: list[str] = []
        self._inside = False
        self._depth = 0
        self._skip = 0
        self._current: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "div" and ("id", "DisplayArea") in attrs:
            self._inside = True
        if tag in ("script", "style", "pre", "code"):
            self._skip += 1
        if self._inside and tag in self._BLOCKS:
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "pre", "code"):
            self._skip = max(self._skip - 1, 0)
        if self._inside and tag in self._BLOCKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if self._inside and not self._skip:
            self._current.append(data)

    def _flush(self) -> None:
        text = re.sub(r"\s+", " ", "".join(self._current)).strip()
        self._current = []
        if len(text) > 1:
            self.paragraphs.append(text)


def help_page_text(source: str) -> str:
    """The prose of one LibreOffice help page: its paragraphs, one per line."""
    parser = _HelpText()
    parser.feed(source)
    parser.close()
    return "\n".join(parser.paragraphs)


def libreoffice_help(language: str, cache: Path = CACHE) -> PublicCorpus:
    """The LibreOffice help in ``language``, one page a document; label: the module."""
    name = _HELP.get(language, language)
    package = f"libreoffice-help-{name}"
    root, version = debian_package(package, cache)
    parsed = cache / "parsed" / f"{package}_{version}.jsonl"
    if parsed.is_file():
        documents = [
            PublicDocument(row["id"], row["text"], row.get("label"))
            for row in map(json.loads, parsed.read_text(encoding="utf-8").splitlines())
        ]
    else:
        region = name.split("-")
        base = (
            root / "usr/share/libreoffice/help" / "-".join([region[0], *map(str.upper, region[1:])])
        )
        documents = []
        for path in sorted((base / "text").glob("*/**/*.html")):
            relative = path.relative_to(base / "text")
            module = relative.parts[0]
            text = help_page_text(path.read_text(encoding="utf-8", errors="replace"))
            if len(text) >= 200:
                label = module if module in HELP_MODULES else None
                documents.append(PublicDocument(str(relative.with_suffix("")), text, label))
        parsed.parent.mkdir(parents=True, exist_ok=True)
        write_jsonl(documents, parsed.with_suffix(".partial"))
        parsed.with_suffix(".partial").replace(parsed)  # written whole, then renamed
    return labelled_corpus(
        documents,
        f"LibreOffice 7.4 help, {language} (software documentation)",
        "MPL-2.0 (LibreOffice help content)",
        "The Document Foundation and the LibreOffice contributors and translators",
        f"Debian {package} {version}",
    )


def translated_manpages(language: str, cache: Path = CACHE) -> PublicCorpus:
    """Linux man pages translated to ``language`` (manpages-l10n) as ~2,000-character passages;
    label: the section. English: :func:`edgedp_export.public_corpora.linux_manpages`."""
    if language == "en":
        return linux_manpages(cache)
    package = f"manpages-{_MANPAGES.get(language, language)}"
    root, version = debian_package(package, cache)
    directory = root / "usr/share/man" / _MAN_DIRECTORY.get(language, language)
    documents = []
    for path in sorted(directory.glob("man*/*.gz")):
        source = gzip.decompress(path.read_bytes()).decode("utf-8", errors="replace")
        if source.lstrip().startswith(".so "):
            continue
        section, page = path.parent.name[3:], path.name.removesuffix(".gz")
        for number, passage in enumerate(passages(manpage_prose(source), MANPAGE_CHARACTERS)):
            documents.append(PublicDocument(f"man{section}/{page}/{number:03d}", passage, section))
    return labelled_corpus(
        documents,
        f"Linux man pages in {language} (manpages-l10n translations)",
        "GPL-3.0-or-later (the translations); the pages under their own free licences",
        "The manpages-l10n translators; the Linux man-pages and program authors",
        f"Debian {package} {version}",
    )


def _cookies(path: Path) -> list[str]:
    """The cookies of one fortune file, attribution lines dropped, whitespace collapsed."""
    text = path.read_text(encoding="utf-8", errors="replace")
    cookies = []
    for cookie in re.split(r"\n%\n", text):
        lines = [line for line in cookie.splitlines() if not _ATTRIBUTION.match(line)]
        body = "\n".join(line.strip() for line in lines if line.strip())
        if len(body) >= 20:
            cookies.append(body)
    return cookies


def translated_fortunes(language: str, cache: Path = CACHE) -> PublicCorpus:
    """Fortune cookies in ``language``, four consecutive cookies of one file a document; label:
    the file for the topic files of :data:`FORTUNE_TOPICS` (none for Portuguese: one file).
    English: :func:`edgedp_export.public_corpora.fortunes`."""
    if language == "en":
        return fortunes(cache)
    package = _FORTUNE_PACKAGE.get(language)
    if package is None or package in RESERVED:
        raise InputError(f"no public fortune files in {language} (fortunes-it/-pl are reserved)")
    root, version = debian_package(package, cache)
    folder = root / "usr/share/games/fortunes"
    topics = FORTUNE_TOPICS.get(language, ())
    documents = []
    files = sorted(
        path
        for path in folder.rglob("*")
        if path.is_file()
        and path.suffix != ".dat"
        and "off" not in path.relative_to(folder).parts
        and not path.name.endswith("-pre")
    )
    for path in files:
        topic = path.name.removesuffix(".fortunes")
        cookies = _cookies(path)
        for start in range(0, len(cookies) - COOKIES_PER_DOCUMENT + 1, COOKIES_PER_DOCUMENT):
            text = "\n".join(cookies[start : start + COOKIES_PER_DOCUMENT])
            label = topic if topic in topics else None
            documents.append(PublicDocument(f"{topic}/{start:05d}", text, label))
    return labelled_corpus(
        documents,
        f"fortune cookies in {language} ({package})",
        "free (GPL and public-domain collections, per the package's copyright file)",
        f"the {package} authors and the quoted authors",
        f"Debian {package} {version}",
    )


#: The sources of each language (fortunes where a public package has them).
def sources(language: str) -> dict[str, PublicCorpus]:
    """Every public corpus of ``language``, by name (``help-es``, ``manpages-es``, ...)."""
    if language not in LANGUAGES:
        raise InputError(f"no public corpora for {language!r}; one of {', '.join(LANGUAGES)}")
    corpora = {
        f"help-{language}": libreoffice_help(language),
        f"manpages-{language}": translated_manpages(language),
    }
    if language in ("en", *_FORTUNE_PACKAGE):
        corpora[f"fortunes-{language}"] = translated_fortunes(language)
    return corpora


def corpus_of_language(name: str) -> PublicCorpus:
    """One corpus of :func:`sources` by its name (``help-es``, ``manpages-ru``, ``fortunes-de``),
    read alone (``edgedp-export lm --corpora``)."""
    kind, _, language = name.rpartition("-")
    if name in RESERVED or language not in LANGUAGES:
        raise InputError(f"no public corpus {name!r}")
    if kind == "help":
        return libreoffice_help(language)
    if kind == "manpages":
        return translated_manpages(language)
    if kind == "fortunes":
        return translated_fortunes(language)
    raise InputError(f"no public corpus {name!r} (help-LANG, manpages-LANG or fortunes-LANG)")


#: Documents per source of the multilingual subspace pack.
MULTILINGUAL_PER_SOURCE = 300


def multilingual_corpus(
    languages: Sequence[str] = LANGUAGES, per_source: int = MULTILINGUAL_PER_SOURCE
) -> PublicCorpus:
    """The corpus of ``edgedp-export subspace --multilingual``: every source of every language,
    at most ``per_source`` documents each, test splits left out (:func:`mixed_corpus`)."""
    corpora = {name: corpus for language in languages for name, corpus in sources(language).items()}
    mixed = mixed_corpus(corpora, per_domain=per_source)
    provenance = dict(mixed.provenance)
    provenance["name"] = "public text of eight languages: " + ", ".join(sorted(corpora))
    provenance["languages"] = list(languages)
    return PublicCorpus(mixed.documents, provenance, mixed.validation_percent, mixed.test_percent)
