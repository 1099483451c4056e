"""The user-facing files beside the code stay consistent: bench/README.md lists every dated report in
bench/reports/ (newest first) and nothing else, their links resolve, CONTRIBUTING.md quotes the
README's set-up command as it is, CHANGELOG.md runs newest first, and none of them cites issue
numbers (users read what was measured and how to reproduce it, not the tracker's history).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import REPO_ROOT

BENCH_README = REPO_ROOT / "bench" / "README.md"
REPORTS = REPO_ROOT / "bench" / "reports"
USER_FACING = [
    BENCH_README,
    REPO_ROOT / "CHANGELOG.md",
    REPO_ROOT / "CONTRIBUTING.md",
    *sorted(REPORTS.glob("*.md")),
]
#: "issue 33", "Issue-2", "issues 20, 24 and 32", "issue #5", "#35" (a word such as "tissue" is not).
ISSUE_NUMBER = re.compile(r"\bissues?[\s#-]*\d+|(?<![\w&])#\d+\b", re.IGNORECASE)
REPORT_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})-[a-z0-9]+(?:-[a-z0-9]+)*\.md")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def results_links() -> list[str]:
    """The report links of bench/README.md's Results section, in the order listed."""
    text = BENCH_README.read_text(encoding="utf-8")
    section = text.split("\n## Results\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"\]\((reports/[^)]+)\)", section)


def issue_numbers(text: str) -> list[str]:
    return ISSUE_NUMBER.findall(text)


def test_every_report_is_listed_and_every_listed_report_exists():
    listed = results_links()
    assert len(listed) == len(set(listed)), "a report is listed twice"
    on_disk = {f"reports/{path.name}" for path in REPORTS.glob("*.md")}
    assert on_disk, "bench/reports/ holds no report"
    assert set(listed) == on_disk


def test_reports_are_dated_and_listed_newest_first():
    dates = []
    for link in results_links():
        match = REPORT_NAME.fullmatch(Path(link).name)
        assert match, f"{link}: name it YYYY-MM-DD-<suite-or-topic>.md"
        dates.append(match.group(1))
    assert dates == sorted(dates, reverse=True)


def test_each_report_opens_with_a_title_carrying_its_date():
    for path in REPORTS.glob("*.md"):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# ") and path.name[:10] in first, path.name


@pytest.mark.parametrize("path", USER_FACING, ids=lambda path: str(path.relative_to(REPO_ROOT)))
def test_no_issue_numbers(path):
    found = issue_numbers(path.read_text(encoding="utf-8"))
    assert not found, f"{path.name} cites the tracker: {found}"


def test_the_issue_number_check_finds_them():
    cited = "as issue 33 showed; Issue-2 targets; issues 20, 24 and 32; issue #5; see #35"
    assert len(issue_numbers(cited)) == 5
    assert issue_numbers("tissue 3, 2 issues, an issue's protocol, &#35;") == []


@pytest.mark.parametrize("path", USER_FACING, ids=lambda path: str(path.relative_to(REPO_ROOT)))
def test_relative_links_resolve(path):
    for target in LINK.findall(path.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a web address or an anchor in the same file
        file, _, anchor = target.partition("#")
        resolved = (path.parent / file).resolve()
        assert resolved.exists(), f"{path.name}: {target} does not exist"
        if anchor and resolved.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", resolved.read_text(encoding="utf-8"), re.M)
            slugs = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings}
            assert anchor in slugs, f"{path.name}: no heading for #{anchor} in {file}"


def test_contributing_quotes_the_readmes_set_up_command():
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    set_up = re.findall(r"```bash\n(.+?)\n```", readme)[1]
    assert f"```bash\n{set_up}\n```" in (REPO_ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")


def test_changelog_runs_newest_first():
    text = (REPO_ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    dates = re.findall(r"^## .*?(\d{4}-\d{2}-\d{2})", text, re.M)
    assert dates, "no dated milestone"
    assert text.split("\n## ", 2)[1].startswith("Unreleased")
    assert dates == sorted(dates, reverse=True)
