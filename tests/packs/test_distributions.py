"""The light entry-point reader (edgedp.packs.distributions) finds what importlib.metadata finds,
and leaves to it what it cannot read the same way."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest

from edgedp.packs import distributions
from edgedp.packs.distributions import entry_points


def _metadata(group: str) -> list[tuple[str, str, str, str]]:
    return [
        (e.name, e.value, e.module, e.dist.name if e.dist is not None else "")
        for e in importlib.metadata.entry_points(group=group)
    ]


def _light(group: str) -> list[tuple[str, str, str, str]]:
    return [(e.name, e.value, e.module, e.dist.name) for e in entry_points(group)]


def _installed_groups() -> set[str]:
    return {e.group for dist in importlib.metadata.distributions() for e in dist.entry_points}


def test_the_installed_entry_points_of_every_group_are_read_as_importlib_reads_them():
    groups = _installed_groups() | {"edgedp.packs", "console_scripts", "no.such.group"}
    try:
        list(distributions._light_entry_points("console_scripts"))
    except distributions._UnsureError:  # e.g. the importlib_metadata backport, imported by a
        # library an earlier test loaded, adds its finder: entry_points() then defers (below)
        pytest.skip("this process has a distribution finder besides the standard path finder")
    for group in sorted(groups):
        assert _light(group) == _metadata(group), group


def _dist_info(
    where: Path, directory: str, name: str, entry_points_text: str | None, metadata: str = ""
) -> None:
    info = where / directory
    info.mkdir(parents=True)
    (info / "METADATA").write_text(metadata or f"Metadata-Version: 2.1\nName: {name}\n\nbody\n")
    if entry_points_text is not None:
        (info / "entry_points.txt").write_text(entry_points_text)


@pytest.fixture
def plain_path(tmp_path, monkeypatch):
    """sys.path of two fresh directories only."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    monkeypatch.setattr(sys, "path", [str(first), str(second), str(tmp_path / "missing")])
    importlib.invalidate_caches()
    yield first, second
    importlib.invalidate_caches()


def test_order_shadowing_comments_and_sections_are_importlibs(plain_path):
    first, second = plain_path
    group = "edgedp.packs"
    _dist_info(first, "Pack_A-1.0.dist-info", "Pack_A", f"[{group}]\n a = m_a:f\n# no\n")
    _dist_info(first, "pack.b-2.0.dist-info", "pack.b", f"[other]\nx = y\n[{group}]\nb=m_b : g.h\n")
    _dist_info(second, "pack_a-0.9.dist-info", "pack-a", f"[{group}]\nshadowed = m:f\n")
    _dist_info(
        second, "c-1.egg-info", "c", f"\n[ {group} ]\nc = m_c\n[{group}]\n\nc2 = m_c:f [x]\n"
    )
    _dist_info(second, "d-1.dist-info", "d", None)
    (second / "e-1.egg-info").write_text("Name: e\n")  # an egg-info file: no entry points
    assert _light(group) == _metadata(group)
    assert sorted(e.name for e in entry_points(group)) == ["a", "b", "c2"]  # listing order


@pytest.mark.parametrize(
    ("entry_points_text", "metadata"),
    [
        ("[edgedp.packs]\nno equals sign\n", ""),  # importlib.metadata raises: so must we
        ("[edgedp.packs]\nbad = not a value!\n", ""),
        ("[edgedp.packs]\na = m:f\n", "Metadata-Version: 2.1\nName:\n folded\n\n"),
        ("[edgedp.packs]\na = m:f\n", "Metadata-Version: 2.1\nnot a header\nName: x\n\n"),
    ],
)
def test_what_the_light_reader_cannot_read_is_left_to_importlib(
    plain_path, monkeypatch, entry_points_text, metadata
):
    first, _ = plain_path
    _dist_info(first, "odd-1.dist-info", "odd", entry_points_text, metadata)
    with pytest.raises(distributions._UnsureError):
        list(distributions._light_entry_points("edgedp.packs"))
    called = []
    monkeypatch.setattr(
        importlib.metadata, "entry_points", lambda group: called.append(group) or []
    )
    assert entry_points("edgedp.packs") == [] and called == ["edgedp.packs"]


def test_a_zip_on_the_path_is_left_to_importlib(plain_path, tmp_path):
    archive = tmp_path / "packages.zip"
    archive.write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip archive
    sys.path.append(str(archive))
    with pytest.raises(distributions._UnsureError):
        list(distributions._light_entry_points("edgedp.packs"))


def test_looking_for_installed_packs_does_not_import_importlib_metadata():
    script = (
        "import sys; from edgedp.packs.loading import installed_packs; installed_packs(); "
        "print('importlib.metadata' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.strip() == "False"
