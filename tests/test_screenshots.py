"""The documentation's pictures of the screens are what the code draws now (issue 53): each is
drawn by tools/screenshots.py, which ``./dev docs`` runs, and a picture the code would draw
otherwise fails here, pixel for pixel, on pygame's dummy video driver. Before, the pictures were
written by hand from the tests, and four Italian ones still showed words the catalogue had fixed."""

from __future__ import annotations

import importlib.util
import re
import sys

from helpers import ROOT

spec = importlib.util.spec_from_file_location("screenshots", ROOT / "tools" / "screenshots.py")
assert spec is not None and spec.loader is not None
screenshots = sys.modules["screenshots"] = importlib.util.module_from_spec(spec)  # its dataclasses look it up
spec.loader.exec_module(screenshots)


def test_every_picture_of_a_screen_in_the_docs_is_what_the_code_draws_now():
    assert screenshots.stale() == [], "run ./dev docs (or python tools/screenshots.py) and commit the pictures it writes"


def test_every_picture_the_docs_show_is_drawn_by_the_tool_or_written_by_its_browser_test():
    """A picture the docs show, and every file in docs/screenshots/, has a maker: the tool, or
    the browser test that names it."""
    pages = [*ROOT.joinpath("docs").rglob("*.md"), ROOT / "README.md"]
    shown = {name for page in pages for name in re.findall(r"screenshots/([\w-]+\.png)", page.read_text(encoding="utf-8"))}
    kept = {path.name for path in screenshots.FOLDER.glob("*.png")}
    made = set(screenshots.pictures()) | set(screenshots.BROWSER_PICTURES)
    assert shown - made == set() and kept - made == set() and shown <= kept
    for name, test in screenshots.BROWSER_PICTURES.items():
        source = (ROOT / test).read_text(encoding="utf-8")
        assert name in source or name.replace("-en.png", "-{lang}.png").replace("-it.png", "-{lang}.png") in source, name


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
