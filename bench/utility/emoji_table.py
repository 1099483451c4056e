"""Build ``edgedp/text/emoji.txt``, the emoji table of :mod:`edgedp.text.emoji`, from Unicode's files.

``python -m bench.utility.emoji_table --write`` rewrites it; :func:`build_table` returns its text,
which ``python -m bench chat-output`` compares with the shipped file. The sources are Unicode's
``emoji-data.txt`` and ``emoji-test.txt`` (Emoji 15.0), as shipped in Debian's ``unicode-data``
15.0.0 package (``apt-get download unicode-data``, run here), under the Unicode licence (the
notice is copied into the table's header).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import tempfile
import textwrap
import unicodedata
from pathlib import Path

from bench.harness import ROOT

#: Where the Debian package is unpacked (outside the repository).
CACHE = Path.home() / ".cache" / "edgedp-bench" / "unicode-data"
TABLE = ROOT / "edgedp" / "text" / "emoji.txt"
#: A character with one of these properties starts an emoji (with the regional indicators).
START_PROPERTIES = ("Extended_Pictographic", "Emoji_Presentation", "Emoji_Modifier")
REGIONAL_INDICATORS = (0x1F1E6, 0x1F1FF)
#: The subgroups of emoji-test.txt the filler emoji come from: animals, plants, food, weather,
#: sport, crafts, clothing, music, books, household things. Left out: faces and emotions (a random
#: one would make up a feeling), people and body (gender, skin tone), flags, places and buildings,
#: religion, symbols (letters, digits, signs), festivals and dates, money, medicine, weapons.
FILLER_SUBGROUPS = (
    "animal-mammal",
    "animal-bird",
    "animal-amphibian",
    "animal-reptile",
    "animal-marine",
    "animal-bug",
    "plant-flower",
    "plant-other",
    "food-fruit",
    "food-vegetable",
    "food-prepared",
    "food-asian",
    "food-marine",
    "food-sweet",
    "drink",
    "sky & weather",
    "sport",
    "arts & crafts",
    "clothing",
    "music",
    "musical-instrument",
    "book-paper",
    "writing",
    "household",
)
#: Left out of those subgroups: prayer beads (religion), a ring (an engagement), a graduation cap,
#: and every emoji whose Unicode name has the word FACE (moon and sun faces: a made-up mood).
FILLER_EXCLUDED = frozenset({0x1F4FF, 0x1F48D, 0x1F393})
#: Filler emoji are at most this Emoji version (2018), so that phones and fonts draw them.
FILLER_MAX_VERSION = 11.0

_LINE = re.compile(r"^([0-9A-F]+)(?:\.\.([0-9A-F]+))?\s*;\s*([\w ]+?)\s*#")


def unicode_emoji_dir() -> Path:
    """Unicode's emoji data files, from Debian's unicode-data package (downloaded once)."""
    directory = CACHE / "usr" / "share" / "unicode" / "emoji"
    if not (directory / "emoji-data.txt").is_file():
        CACHE.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["apt-get", "download", "unicode-data"], cwd=tmp, check=True)
            (deb,) = Path(tmp).glob("unicode-data_*.deb")
            subprocess.run(["dpkg-deb", "-x", str(deb), str(CACHE)], check=True)
    return directory


def _ranges(points: set[int]) -> list[tuple[int, int]]:
    ranges: list[list[int]] = []
    for point in sorted(points):
        if ranges and ranges[-1][1] == point - 1:
            ranges[-1][1] = point
        else:
            ranges.append([point, point])
    return [(first, last) for first, last in ranges]


def _format(first: int, last: int) -> str:
    return f"{first:04X}" if first == last else f"{first:04X}..{last:04X}"


def start_points(emoji_data: str) -> set[int]:
    """Code points above U+007F with a property of :data:`START_PROPERTIES`, and the regional
    indicators."""
    points = set(range(REGIONAL_INDICATORS[0], REGIONAL_INDICATORS[1] + 1))
    for line in emoji_data.splitlines():
        match = _LINE.match(line)
        if match and match.group(3) in START_PROPERTIES:
            first = int(match.group(1), 16)
            last = int(match.group(2) or match.group(1), 16)
            points.update(point for point in range(first, last + 1) if point > 0x7F)
    return points


def filler_points(emoji_test: str) -> set[int]:
    """The filler emoji: fully-qualified single code points of :data:`FILLER_SUBGROUPS`, Emoji
    version <= :data:`FILLER_MAX_VERSION`, less :data:`FILLER_EXCLUDED` and faces."""
    subgroup = ""
    points = set()
    for line in emoji_test.splitlines():
        if line.startswith("# subgroup:"):
            subgroup = line.split(":", 1)[1].strip()
        elif line.strip() and not line.startswith("#") and subgroup in FILLER_SUBGROUPS:
            sequence, rest = line.split(";", 1)
            status, comment = rest.split("#", 1)
            version = re.search(r"E(\d+\.\d+)", comment)
            codes = sequence.split()
            if (
                status.strip() == "fully-qualified"
                and len(codes) == 1
                and version is not None
                and float(version.group(1)) <= FILLER_MAX_VERSION
                and int(codes[0], 16) not in FILLER_EXCLUDED
                and "FACE" not in unicodedata.name(chr(int(codes[0], 16)), "").split()
            ):
                points.add(int(codes[0], 16))
    return points


def _licence(emoji_data: str) -> list[str]:
    """The Unicode header lines of emoji-data.txt (copyright and terms)."""
    return [line for line in emoji_data.splitlines()[:6] if line.startswith("# ")]


def build_table(directory: Path | None = None) -> str:
    """The text of ``edgedp/text/emoji.txt``, from the emoji files in ``directory`` (default:
    :func:`unicode_emoji_dir`)."""
    directory = unicode_emoji_dir() if directory is None else directory
    emoji_data = (directory / "emoji-data.txt").read_text(encoding="utf-8")
    emoji_test = (directory / "emoji-test.txt").read_text(encoding="utf-8")
    starts = start_points(emoji_data)
    filler = filler_points(emoji_test)
    if not filler <= starts:
        raise ValueError("a filler emoji does not start an emoji")
    header = [
        "# Emoji for edgedp.text.emoji: which characters start an emoji, and the filler emoji that",
        "# replace an emoji slot with oov='sample'. Generated by bench/utility/emoji_table.py",
        "# (python -m bench.utility.emoji_table --write) from Unicode's emoji-data.txt and",
        "# emoji-test.txt, Emoji 15.0, as shipped in Debian's unicode-data 15.0.0 package; modified",
        "# (only the ranges below are kept). Their notice:",
        *_licence(emoji_data),
        "# Unicode's licence (https://www.unicode.org/license.txt) permits copying and modifying the",
        "# data files with this notice and a clear notice of the modification.",
        "#",
        "# start FIRST[..LAST]: code points above U+007F with the property Extended_Pictographic",
        "#   (which holds Unicode's reserved pictographic ranges, so later emoji are recognised too),",
        "#   Emoji_Presentation or Emoji_Modifier, and the regional indicators (flags).",
        "# filler FIRST[..LAST]: fully-qualified single-code-point emoji of Emoji version"
        f" <= {FILLER_MAX_VERSION}",
        *textwrap.wrap(
            "in the emoji-test.txt subgroups "
            + ", ".join(FILLER_SUBGROUPS)
            + ", less U+"
            + ", U+".join(f"{point:04X}" for point in sorted(FILLER_EXCLUDED))
            + " and the emoji whose Unicode name has the word FACE.",
            width=96,
            break_on_hyphens=False,
            initial_indent="#   ",
            subsequent_indent="#   ",
        ),
    ]
    lines = [f"start {_format(*pair)}" for pair in _ranges(starts)]
    lines += [f"filler {_format(*pair)}" for pair in _ranges(filler)]
    return "\n".join([*header, *lines]) + "\n"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="rebuild edgedp/text/emoji.txt")
    parser.add_argument("--write", action="store_true", help="write it into edgedp/text/")
    if parser.parse_args().write:
        TABLE.write_text(build_table(), encoding="utf-8")
        print(f"wrote {TABLE}")
    else:
        print(build_table(), end="")
