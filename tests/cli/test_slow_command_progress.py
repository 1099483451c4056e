"""Progress of explain, tune and the word mechanisms' one-time set-ups (edgedp.progress).

On stderr only (stdout stays byte for byte the same), on a terminal after a delay, off a terminal
only when asked with EDGEDP_PROGRESS=1.
"""

from __future__ import annotations

import pytest

from edgedp.cli import main


def _cli(capsys, monkeypatch, *args: str, progress: str | None) -> tuple[str, str]:
    """(stdout, stderr) of ``edgedp ARGS`` run in this process with EDGEDP_PROGRESS unset or set."""
    if progress is None:
        monkeypatch.delenv("EDGEDP_PROGRESS", raising=False)
    else:
        monkeypatch.setenv("EDGEDP_PROGRESS", progress)
    assert main(list(args)) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [
        ("explain", "--mechanism", "tem", "--geometry", "hamming", "--epsilon", "0.5"),
        ("tune", "--mechanism", "custext", "--geometry", "hamming", "--k", "5", "--keep", "0.5"),
    ],
)
def test_explain_tune_and_set_ups_report_on_stderr_never_stdout(capsys, monkeypatch, command):
    sizes = ("--words", "20", "--samples", "4")
    quiet_out, quiet_err = _cli(capsys, monkeypatch, *command, *sizes, progress=None)
    asked_out, asked_err = _cli(capsys, monkeypatch, *command, *sizes, progress="1")
    ours = (f"edgedp: {command[0]}:", "one-time set-up:")
    assert not any(mark in quiet_err + asked_out for mark in ours)
    shown = [line for line in asked_err.splitlines() if line.startswith("edgedp: ")]
    assert any(line.startswith(ours[0]) for line in shown)
    if command[0] == "tune":  # k = 5 is not stored in the pack: the walk is a one-time set-up
        assert any("custext: one-time set-up" in line for line in shown)
        assert quiet_out.splitlines()[0] == asked_out.splitlines()[0]  # the same result
