"""The documentation's pictures are what the code draws now (issue 53): each is drawn by
tools/screenshots.py, which ``./dev docs`` runs, and a picture the code would draw otherwise
fails here, pixel for pixel: a screen's on pygame's dummy video driver (the fast tier), a page's
in Debian's Chromium, served by a table started as the service starts it (the browser tier).
Before, the pictures were written by hand from the tests, and four Italian ones still showed
words the catalogue had fixed."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys

import pytest

from helpers import ROOT, require_tools

spec = importlib.util.spec_from_file_location("screenshots", ROOT / "tools" / "screenshots.py")
assert spec is not None and spec.loader is not None
screenshots = sys.modules["screenshots"] = importlib.util.module_from_spec(spec)  # its dataclasses look it up
spec.loader.exec_module(screenshots)


def test_every_picture_of_a_screen_in_the_docs_is_what_the_code_draws_now():
    assert screenshots.stale(screenshots.pictures()) == [], (
        "run ./dev docs (or python tools/screenshots.py) and commit the pictures it writes")


def test_every_picture_the_docs_show_is_drawn_by_the_tool_and_by_nothing_else():
    """A picture the docs show, and every file in docs/screenshots/, is drawn by the tool; no
    test writes one (a picture written as a test's side effect was never checked)."""
    pages = [*ROOT.joinpath("docs").rglob("*.md"), ROOT / "README.md"]
    shown = {name for page in pages for name in re.findall(r"screenshots/([\w-]+\.png)", page.read_text(encoding="utf-8"))}
    kept = {path.name for path in screenshots.FOLDER.glob("*.png")}
    made = set(screenshots.pictures()) | set(screenshots.PAGES)
    assert shown - made == set() and kept - made == set() and shown <= kept
    named = {form for name in made for form in (name, re.sub(r"-(en|it)\.png$", "-{lang}.png", name))}
    for test in set(ROOT.joinpath("tests").glob("*.py")) - {ROOT / "tests" / "test_screenshots.py"}:
        assert not [name for name in named if name in test.read_text(encoding="utf-8")], test.name


def test_the_italian_docs_show_italian_pictures_only():
    """Issue 63, item 5: the Italian Codex page showed two English phones under Italian words."""
    found = [f"{page.relative_to(ROOT)}: {name}" for page in sorted(ROOT.joinpath("docs").rglob("*.it.md"))
             for name in re.findall(r"screenshots/([\w-]+-en\.png)", page.read_text(encoding="utf-8"))]
    assert found == []


def test_a_picture_that_differs_by_one_pixel_is_stale(tmp_path):
    """The comparison sees a change as small as one pixel, and a missing file."""
    import pygame

    name = "coop-score-it.png"
    drawn = screenshots.pictures()[name]()
    drawn.set_at((400, 240), tuple(255 - channel for channel in drawn.get_at((400, 240))[:3]))
    pygame.image.save(drawn, str(tmp_path / name))
    assert not screenshots.same(screenshots.pictures()[name](), tmp_path / name)
    assert not screenshots.same(drawn, tmp_path / "missing.png")
    pygame.image.save(screenshots.pictures()[name](), str(tmp_path / name))
    assert screenshots.same(screenshots.pictures()[name](), tmp_path / name)


def test_a_picture_says_what_drew_it():
    png = (ROOT / "docs/screenshots/window-en.png").read_bytes()
    signed = screenshots.signed(png, "Chromium 1.2.3, DejaVu abc")
    assert screenshots.drawn_by(signed) == "Chromium 1.2.3, DejaVu abc" and screenshots.drawn_by(png) is None
    import io

    import pygame

    assert pygame.image.tobytes(pygame.image.load(io.BytesIO(signed), "x.png"), "RGB") == pygame.image.tobytes(
        pygame.image.load(io.BytesIO(png), "x.png"), "RGB")  # the same picture, its chunks whole


# --- the pages, drawn by Chromium --------------------------------------------------------------------


def check_pages(root, *names: str) -> subprocess.CompletedProcess:
    """``tools/screenshots.py --check`` of the checkout at ``root``, as a developer runs it."""
    return subprocess.run([sys.executable, str(root / "tools" / "screenshots.py"), "--check", *names], cwd=root,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture
def chromium_here():
    require_tools(also_missing=tuple(screenshots.missing_for_pages(screenshots.PAGES)))


@pytest.mark.browser
@pytest.mark.daemon
@pytest.mark.broker
def test_every_picture_of_a_page_in_the_docs_is_what_the_code_draws_now(chromium_here):
    """The staff page, the fleet's dashboard and Codex's phones, served by the code as it is
    and drawn by Chromium as tools/screenshots.py draws them, pixel for pixel."""
    checked = check_pages(ROOT, *screenshots.PAGES)
    assert checked.returncode == 0, checked.stderr + "\nrun ./dev docs (or python tools/screenshots.py) and commit the pictures"


@pytest.mark.browser
@pytest.mark.daemon
def test_a_page_whose_button_says_another_word_no_longer_matches_its_picture(tmp_path, chromium_here):
    """A copy of the checkout passes the check, then fails it once the staff page's Undo button
    says Revert: the comparison sees a one-word change of a page (and names the picture)."""
    shutil.copytree(ROOT / "pi_table", tmp_path / "pi_table", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "tools", tmp_path / "tools", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "docs/screenshots").mkdir(parents=True)
    shutil.copy(screenshots.FOLDER / "staff-en.png", tmp_path / "docs/screenshots")
    assert check_pages(tmp_path, "staff-en.png").returncode == 0
    page = tmp_path / "pi_table/web/static/staff.html"
    button = '<button id="undo" data-t="Undo">Undo</button>'
    assert page.read_text().count(button) == 1, "the staff page's Undo button moved: change this test with it"
    page.write_text(page.read_text().replace(button, '<button id="undo" data-t="Revert">Revert</button>'))
    checked = check_pages(tmp_path, "staff-en.png")
    assert checked.returncode == 1 and "docs/screenshots/staff-en.png is not what the code draws" in checked.stderr
