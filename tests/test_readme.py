"""The README as a newcomer reads it: the two commands first, short, one picture, each reader sent
on to their pages (players and café owners before the developers' material), and links that lead
somewhere. What the README once held in full is now on the documentation site, which
tests/test_docs.py checks."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
LINK = re.compile(r"\]\(([^)\s]+)\)")
PICTURE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)|<img [^>]*src=\"([^\"]+)\"")


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def headings(text: str) -> list[str]:
    fenced, found = False, []
    for line in text.splitlines():
        fenced ^= line.lstrip().startswith("```")
        if not fenced and line.startswith("#"):
            found.append(line.lstrip("#").strip())
    return found


def test_the_two_commands_come_first():
    first_block = README.split("```")[1]
    assert [line.split()[:2] for line in first_block.splitlines()[1:]] == [["./dev", "play"], ["./dev", "test"]]


def test_the_readme_is_a_front_door():
    assert len(README.encode()) < 10_000, f"README.md is {len(README.encode())} bytes: its details go to docs/"
    pictures = [next(filter(None, found)) for found in PICTURE.findall(README)]
    assert len(pictures) == 1, f"one picture, not {pictures}"
    assert (ROOT / pictures[0]).is_file()
    steps = re.findall(r"^(\d)\. \*\*", README.split("## For a café", 1)[1].split("\n## ", 1)[0], re.MULTILINE)
    assert steps == ["1", "2", "3", "4"], "the four café steps"


def test_each_reader_is_sent_on_players_and_owners_before_the_developers_material():
    onward = README.split("## Where to go next", 1)[1]
    landings = ["docs/play/index.md", "docs/cafe/index.md", "hardware/README.md", "docs/dev/index.md"]
    found = [onward.index(f"]({landing})") for landing in landings]
    assert found == sorted(found), f"players, café owners, makers, developers, in that order: {landings}"
    for reference in ("configuration.md", "configuration.it.md", "commands.md", "protocol.md"):
        assert f"](docs/reference/{reference})" in onward


def test_every_link_leads_somewhere():
    documents = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "hardware").glob("*.md")),
                 ROOT / "firmware" / "README.md"]
    for markdown in documents:
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
