"""A phone's browsing, checked: axe-core run inside each page at every width, the page's fit on a
phone, what its Content-Security-Policy blocked, files asked for and missing, and live regions
written again with the same words. tests/test_a11y.py checks each page's states with it,
tests/test_every_page_browser.py every route of every server.

axe-core comes from the npm registry (``npm pack``, pinned in AXE), cached beside the suite's other
downloads (``cache_dir``); it is run inside each page through Playwright, its rules as shipped."""

from __future__ import annotations

import fcntl
import shutil
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers import PAST_THE_EDGE, cache_dir, npm_packed, require_tools

AXE = ("axe-core", "4.14.1")
FAILING = ("serious", "critical")
"""The impacts that fail a page; the others are printed."""
WIDTHS = (360, 390, 1280)
LAID_OUT = """(width) => new Promise((done) => {
  setTimeout(done, 300);  // a page the browser paints no frame for waits as long as before
  const frame = () => window.innerWidth === width ? requestAnimationFrame(() => requestAnimationFrame(done))
                                                  : requestAnimationFrame(frame);
  frame();
})"""
"""The page at its new width, laid out and painted twice (or 300 ms, the wait it replaces): no page
script listens for a resize (the widths are CSS's), so nothing else changes with the width."""
PHONE = 390
"""At this width and below a page reflows: nothing wider than the screen, no sideways scrolling."""


@pytest.fixture(scope="module")
def axe() -> str:
    """axe-core's script, fetched once per pin into the CI cache (a fixture: a test module takes it
    with ``from browsing import axe``)."""
    require_tools("npm")
    name, version = AXE
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    script = cache / f"{name}-{version}" / "axe.min.js"
    with open(cache / "axe-core.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not script.exists():
            with tempfile.TemporaryDirectory() as download:
                with tarfile.open(npm_packed(name, version, Path(download))) as archive:
                    archive.extract("package/axe.min.js", download, filter="data")
                script.parent.mkdir(exist_ok=True)
                partial = script.with_suffix(".part")
                shutil.copy(Path(download) / "package" / "axe.min.js", partial)
                partial.rename(script)
    return script.read_text(encoding="utf-8")


def violations(page, axe: str, where: str) -> list[str]:
    """axe-core's violations on ``page`` as it is now: the serious and critical ones, each a line;
    the others are printed. (Evaluated through the DevTools protocol: the pages' CSP allows no
    script of the test's own.)"""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(axe)
    found = page.evaluate("() => axe.run(document).then((r) => r.violations.map((v) => "
                          "({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' '))})))")
    failing = []
    for violation in found:
        line = f"{where}: {violation['impact']} {violation['id']} ({violation['help']}) at {', '.join(violation['nodes'][:4])}"
        print(line)
        if violation["impact"] in FAILING:
            failing.append(line)
    return failing


LIVE = "[aria-live]:not([aria-live=off]), [role=status], [role=alert], [role=log], [role=timer]"
WATCH_LIVE = """(selector) => {
  // Every live region's words as they were; a write that leaves them the same is a repeat, which a
  // screen reader reads out again.
  const said = new WeakMap();
  window.__repeats = window.__repeats || [];
  const region = (node) => (node.nodeType === 1 ? node : node.parentElement)?.closest(selector);
  const note = () => document.querySelectorAll(selector).forEach((r) => { if (!said.has(r)) said.set(r, r.textContent); });
  note();
  new MutationObserver((records) => {
    const touched = new Set(records.map((record) => region(record.target)).filter(Boolean));
    for (const r of touched) {
      if (said.get(r) === r.textContent && !r.closest('[hidden]')) window.__repeats.push(`${r.id || r.className} "${r.textContent.slice(0, 60)}"`);
      said.set(r, r.textContent);
    }
    note();
  }).observe(document.documentElement, {childList: true, subtree: true, characterData: true});
}"""




class Browsing:
    """One phone in the test's language (a seat's link opens on one phone only); each page is
    checked at every width and in each state it is put in, and every check's failures are kept:
    axe's, a phone's width the page does not fit, what the page's Content-Security-Policy blocked,
    a file asked for that is not there (an icon, a script: the pages' own requests may answer 404,
    as /night/standings does with no night open), and live regions written again with the same
    words."""

    def __init__(self, browser, axe: str, lang: str, **context) -> None:
        self.axe, self.lang = axe, lang
        self.context = browser.new_context(locale="it-IT" if lang == "it" else "en-GB", **context)
        self.failing: list[str] = []
        self.missing: list[str] = []
        self.blocked: list[str] = []

    def open(self, url: str, ready: str, act: Callable | None = None):
        """A page of this phone at ``url``, once ``ready`` shows (after ``act``), its live regions watched."""
        page = self.context.new_page()
        self.watch(page)
        page.goto(url)
        if act is not None:
            act(page)
        page.wait_for_selector(ready)
        page.evaluate(WATCH_LIVE, LIVE)
        return page

    def watch(self, page) -> None:
        page.on("dialog", lambda dialog: dialog.accept())
        page.on("console", lambda message: self.blocked.append(f"{page.url}: {message.text}")
                if "Content Security Policy" in message.text else None)
        page.on("response", lambda response: self.missing.append(response.url) if response.status == 404
                and response.request.resource_type not in ("fetch", "xhr", "eventsource") else None)  # a file, not an answer

    def check(self, page, name: str, served: bool = True) -> None:
        """The page as it is now, at every width; its icon too while its server is there
        (``served``: not once the table has gone to restart)."""
        icon = page.evaluate("() => location.protocol === 'blob:' ? 'blob:' : "
                             "(document.querySelector('link[rel~=icon]') || new URL('/favicon.ico', location.href)).href")
        if served and not icon.startswith(("data:", "blob:")) and page.request.get(icon).status == 404:
            self.missing.append(icon)  # the browser asks for it by itself
        page.wait_for_timeout(300)  # the last fetches answered (the icon among them)
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 844})
            page.evaluate(LAID_OUT, width)
            where = f"{name} [{self.lang}, {width} px]"
            self.failing += violations(page, self.axe, where)
            wide = page.evaluate("() => document.documentElement.scrollWidth")
            if width <= PHONE and wide > width:
                past = page.evaluate(PAST_THE_EDGE, width)
                self.failing.append(f"{where}: {wide} px wide: a phone scrolls it sideways or zooms it out ({past})")
        page.set_viewport_size({"width": PHONE, "height": 844})

    def visit(self, url: str, name: str, ready: str, act: Callable | None = None) -> None:
        page = self.open(url, ready, act)
        try:
            self.check(page, name)
        finally:
            self.close(page)

    def close(self, page) -> None:
        self.failing += [f"{page.url}: a live region written again with the same words: {repeat}"
                         for repeat in page.evaluate("() => window.__repeats || []")]
        page.close()

    def done(self) -> None:
        self.context.close()
        assert not self.failing, "\n".join(self.failing)
        assert not self.blocked, "the page's Content-Security-Policy blocked:\n" + "\n".join(self.blocked)
        assert not self.missing, f"asked for and not found: {self.missing}"
