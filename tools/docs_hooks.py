"""MkDocs hooks (mkdocs.yml's ``hooks``): a page that includes a file whole from outside docs/
(``--8<-- "hardware/README.md"``) keeps that file's links and pictures as GitHub shows them,
relative to where the file lives, so the site must resolve them from there.

A relative link or picture the site does not have, on a page or in a file the page includes, is
looked up in the checkout from where it was written: a file some page includes whole becomes a
link to that page (anchor and all, which the strict build then checks), a file under docs/ a
link to it, a folder its README's page, and any other file (a picture, ``pinout.toml``) is
published at its own path in the checkout. What is found nowhere is left for the strict build to
report. Nothing is copied by hand, so the pictures cannot go stale.

This file is a tool of a checkout, like tools/docs.py: a Pi never installs it.
"""

from __future__ import annotations

import posixpath
import re
import xml.etree.ElementTree as etree
from pathlib import Path
from typing import ClassVar
from urllib.parse import unquote, urlsplit, urlunsplit

from markdown import Extension, Markdown
from markdown.treeprocessors import Treeprocessor
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

INCLUDE = re.compile(r"""^[ \t]*-+8<-+[ \t]+["']([^"'\n]+)["'][ \t]*$""", re.MULTILINE)
"""A whole-file include, as pymdownx.snippets writes it on a line of its own."""


class _Site:
    """What the links are resolved against, for the build under way."""

    root = Path()
    docs = Path()
    config: MkDocsConfig | None = None
    files: Files | None = None
    page: Page | None = None
    pages_of: ClassVar[dict[str, str]] = {}  # a file included whole (its path in the checkout) -> its page
    included: ClassVar[dict[str, list[str]]] = {}  # a page -> the files it includes whole


def _site_path(url: str, page: Page) -> str | None:
    """The link ``url``, written on ``page`` or in a file it includes, as the site has it; None
    where there is nothing to change (an outside or in-page link, or one the site resolves)."""
    scheme, netloc, path, query, fragment = urlsplit(url)
    if scheme or netloc or not path or path.startswith(("/", "\\")):
        return None
    path = unquote(path)
    here = posixpath.dirname(page.file.src_uri)
    assert _Site.files is not None and _Site.config is not None
    if _Site.files.get_file_from_path(posixpath.normpath(posixpath.join(here, path))) is not None:
        return None
    written_in = [_Site.docs / here] + [(_Site.root / name).parent for name in _Site.included.get(page.file.src_uri, [])]
    for folder in written_in:
        found = (folder / path).resolve()
        if found.is_dir():
            found = found / "README.md"
        if not found.is_file() or not found.is_relative_to(_Site.root):
            continue
        name = found.relative_to(_Site.root).as_posix()
        if name in _Site.pages_of:
            target = _Site.pages_of[name]
        elif found.is_relative_to(_Site.docs):
            target = found.relative_to(_Site.docs).as_posix()
        elif found.suffix == ".md":
            continue  # a page the site does not have
        else:
            target = name
            if _Site.files.get_file_from_path(name) is None:
                _Site.files.append(File.generated(_Site.config, name, abs_src_path=str(found)))
        return urlunsplit(("", "", posixpath.relpath(target, here or "."), query, fragment))
    return None


class _Links(Treeprocessor):
    """Runs before MkDocs's own link processor (priority 0), which then checks what this wrote."""

    def run(self, root: etree.Element) -> None:
        if _Site.page is None:
            return
        for element in root.iter():
            key = {"a": "href", "img": "src"}.get(element.tag)
            url = element.get(key) if key else None
            if key and url:
                found = _site_path(url, _Site.page)
                if found is not None:
                    element.set(key, found)


class _LinksExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:
        md.treeprocessors.register(_Links(md), "pi_table_links", 1)


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    _Site.root = Path(config.config_file_path).resolve().parent
    _Site.docs = Path(config.docs_dir).resolve()
    _Site.config = config
    config.markdown_extensions.append(_LinksExtension())  # Markdown takes an instance as well as a name
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    _Site.files = files
    _Site.pages_of, _Site.included = {}, {}
    for file in files.documentation_pages():
        if file.abs_src_path is None:
            continue
        names = INCLUDE.findall(Path(file.abs_src_path).read_text(encoding="utf-8"))
        _Site.included[file.src_uri] = names
        for name in names:
            _Site.pages_of.setdefault(posixpath.normpath(name), file.src_uri)
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    _Site.page = page
    return markdown
