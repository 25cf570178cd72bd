"""The project's own pages: every link resolves, and the README's test command is CI's.

A reader who follows a link from the README to a file or a section that is not there
meets a dead end on the first page; this keeps each relative link and each
`#anchor` honest as sections are renamed and files move.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["README.md", "ARCHITECTURE.md", "CONTRIBUTING.md", "CHANGELOG.md", "bench/RESULTS.md"]

# [text](target) and ![alt](target), not inside inline code.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def _prose_lines(text: str) -> list[str]:
    """The page's lines outside fenced code blocks, inline code spans removed."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(re.sub(r"`[^`]*`", "", line))
    return lines


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in _prose_lines(page.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if not match:
            continue
        slug = github_slug(match.group(2))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        out.add(slug if count == 0 else f"{slug}-{count}")
    return out


def links(page: Path) -> list[str]:
    return [m.group(1) for line in _prose_lines(page.read_text(encoding="utf-8")) for m in LINK.finditer(line)]


def test_the_first_pages_exist() -> None:
    for name in ["README.md", "LICENSE", "CHANGELOG.md", "CONTRIBUTING.md", "ARCHITECTURE.md"]:
        assert (ROOT / name).is_file(), f"{name} is missing"


@pytest.mark.parametrize("name", [p for p in PAGES if (ROOT / p).exists()])
def test_every_link_resolves(name: str) -> None:
    page = ROOT / name
    broken = []
    for target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, … are not checked offline
            continue
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading with that anchor in {dest.name}")
    assert not broken, f"{name} has broken links:\n" + "\n".join(broken)


def test_the_slugs_follow_github() -> None:
    assert github_slug("Memory inside your agents (Claude Code, Codex, pi)") == (
        "memory-inside-your-agents-claude-code-codex-pi"
    )
    assert github_slug("Agent hooks: what happens at each point of a session") == (
        "agent-hooks-what-happens-at-each-point-of-a-session"
    )
    assert github_slug("`scriptorium` CLI") == "scriptorium-cli"


def test_the_readme_test_command_is_what_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Run the tests", 1)[1]
    command = re.search(r"```sh\n(.+?)\n```", section, re.S)
    assert command, "the README's 'Run the tests' has no command"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert command.group(1).strip() in ci, "the README's test command is not the one .ci/run runs"
    assert "[ -d .venv ] ||" in command.group(1), "the test command must reuse an existing venv"
