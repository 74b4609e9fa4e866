"""The README as a newcomer reads it: the two commands first, contents that match the
sections, and links that lead somewhere."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def headings(text: str) -> list[str]:
    fenced, found = False, []
    for line in text.splitlines():
        fenced ^= line.startswith("```")
        if not fenced and line.startswith("#"):
            found.append(line.lstrip("#").strip())
    return found


def test_the_two_commands_come_first():
    first_block = README.split("```")[1]
    assert [line.split()[:2] for line in first_block.splitlines()[1:]] == [["./dev", "play"], ["./dev", "test"]]


def test_the_contents_list_every_section_in_order():
    contents = README.split("## Contents\n", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^- \[(.+?)\]\(#(.+?)\)$", contents, re.MULTILINE)
    sections = [line[3:] for line in README.splitlines() if line.startswith("## ") and line != "## Contents"]
    assert [title for title, _ in listed] == sections
    assert all(target == anchor(title) for title, target in listed)
    assert README.index("## Contents") < README.index("## What it is"), "contents before the developer's material"


def test_every_link_leads_somewhere():
    for markdown in [ROOT / "README.md", *sorted((ROOT / "hardware").glob("*.md")), ROOT / "firmware" / "README.md"]:
        text = markdown.read_text(encoding="utf-8")
        anchors = {anchor(h) for h in headings(text)}
        for target in LINK.findall(text):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            path, _, fragment = target.partition("#")
            if path:
                assert (markdown.parent / path).exists(), f"{markdown.name} links to {path}, which is not there"
            elif fragment:
                assert fragment in anchors, f"{markdown.name} links to #{fragment}, no such heading"
