"""The documentation site, checked like code: the references are what tools/docs.py writes from the
code now, so no configuration key, command, option or protocol message can be missing; the site's
navigation leads each reader in order, every page in it; and the strict build fails on a broken
link, a missing anchor, a page outside the navigation or a picture that is not there."""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pi_table.cli import build_parser
from pi_table.config import schema
from pi_table.protocol import wire
from pi_table.ui.messages import parse_po, po_path

from helpers import defined_tests, require_tools

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "reference"


def _generator():
    spec = importlib.util.spec_from_file_location("docs_generator", ROOT / "tools" / "docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


docs = _generator()


def test_the_references_are_what_the_code_makes_now():
    assert docs.stale() == [], "run ./dev docs (or python tools/docs.py) and commit the pages it writes"


def test_a_key_added_to_the_schema_makes_the_configuration_pages_stale(monkeypatch):
    extra = schema.Option("sound", "chime", True, "bool", "ring a chime", label="Chime")
    monkeypatch.setattr(schema, "OPTIONS", (*schema.OPTIONS, extra))
    assert docs.stale() == ["docs/reference/configuration.md", "docs/reference/configuration.it.md"]


def test_a_part_added_to_the_bill_of_materials_makes_its_page_stale(monkeypatch):
    from pi_table.hardware.tools import guide

    rows = guide.bom_rows()
    monkeypatch.setattr(guide, "bom_rows", lambda: [*rows, {**rows[-1], "part": "Spare copper tape"}])
    assert docs.stale() == ["docs/make/bom.md"]


def test_every_part_of_the_bill_of_materials_is_on_its_page():
    from pi_table.hardware.tools import guide

    page = (ROOT / "docs" / "make" / "bom.md").read_text(encoding="utf-8")
    for row in guide.bom_rows():
        assert f"| {row['part']} | {row['quantity']} |" in page, f"{row['part']} is missing from docs/make/bom.md"


def _section(page: str, heading: str) -> str:
    return page.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("lang", ["en", "it"])
def test_every_configuration_key_is_in_its_section_with_its_meaning_and_label(lang):
    page = (REFERENCE / ("configuration.md" if lang == "en" else "configuration.it.md")).read_text(encoding="utf-8")
    italian = parse_po(po_path("it").read_text(encoding="utf-8"))
    for option in schema.OPTIONS:
        row = next((line for line in _section(page, f"[{option.section}]").splitlines()
                    if line.startswith(f"| `{option.name}` |")), None)
        assert row is not None, f"{option.key} is missing from the {lang} configuration reference"
        for text in (option.help, option.label):
            said = text if lang == "en" else italian.get(text)
            assert said, f"{option.key}: {text!r} has no Italian in the catalogue"
            assert docs.cell(said) in row, f"{option.key}: {said!r}"
        assert docs.toml_value(option.default) in row


def test_every_command_and_option_is_in_the_command_reference():
    page = (REFERENCE / "commands.md").read_text(encoding="utf-8")
    commands = list(docs._commands(build_parser()))
    assert len(commands) >= 19
    for prog, _, command in commands:
        assert f"\n## {prog}\n" in page, f"{prog} is missing from the command reference"
        section = _section(page, prog)
        for action in command._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            for option in action.option_strings or [action.metavar or action.dest]:
                assert f"`{option}`" in section, f"{prog} {option} is missing from the command reference"


def test_every_protocol_message_is_in_the_protocol_reference():
    page = (REFERENCE / "protocol.md").read_text(encoding="utf-8")
    assert f"version {wire.PROTOCOL_MAJOR}.{wire.PROTOCOL_MINOR}" in page
    for kind, message in wire.MESSAGES.items():
        assert f"| `{kind:02X}` | `{message.NAME}` |" in page, f"{message.NAME} is missing from the protocol reference"
        for field in message.FIELDS:
            assert f"`{field}`" in page


def _nav() -> list:
    import yaml

    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]


def _pages(entries) -> list[str]:
    found = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        found += _pages(value) if isinstance(value, list) else [value]
    return found


def test_the_navigation_leads_each_reader_in_order_and_every_italian_page_has_its_english_one():
    pytest.importorskip("yaml")
    nav = _nav()
    sections = [next(iter(entry)) for entry in nav]
    readers = ["Home", "Players", "Café owners", "Makers", "Developers", "Reference", "Italiano"]
    assert sections == [name for name in readers if name in sections]
    assert {"Home", "Players", "Café owners", "Developers", "Reference", "Italiano"} <= set(sections)
    assert ("Makers" in sections) == (ROOT / "docs" / "make" / "index.md").is_file()
    pages = _pages(nav)
    assert len(pages) == len(set(pages)), "a page listed twice"
    english = set(pages)
    for page in pages:
        if page.endswith(".it.md"):
            assert page.replace(".it.md", ".md") in english, f"{page} has no English page in the nav"
    italian = _pages(next(entry["Italiano"] for entry in nav if "Italiano" in entry))
    assert all(page.endswith(".it.md") for page in italian)


def _build(folder: Path) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        require_tools(also_missing=("mkdocs and mkdocs-material (pip install -e '.[docs]')",))
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder / "site")],
                          cwd=folder, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})


def _checkout_copy(folder: Path) -> Path:
    """What the site is built from (docs/, mkdocs.yml, its hook and the files its pages include whole,
    with the folders of the makers' pages, whose pictures and sources the hook publishes)."""
    shutil.copytree(ROOT / "docs", folder / "docs")
    for name in ("mkdocs.yml", "CONTRIBUTING.md", "tools/docs_hooks.py"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, folder / name)
    for name in ("hardware", "enclosure", "firmware"):
        shutil.copytree(ROOT / name, folder / name, ignore=shutil.ignore_patterns("__pycache__", "build", "tools"))
    return folder


@pytest.mark.slow  # some 5 s of CPU by itself: out of ./dev test (issue 40)
def test_the_site_builds_strictly(tmp_path):
    done = _build(_checkout_copy(tmp_path))
    assert done.returncode == 0, f"mkdocs build --strict:\n{done.stderr[-6000:]}"
    built = tmp_path / "site"
    for page in ("index.html", "dev/protocol/index.html", "dev/contributing/index.html",
                 "reference/configuration/index.html", "reference/configuration.it/index.html"):
        assert (built / page).is_file(), page
    protocol = (built / "dev" / "protocol" / "index.html").read_text(encoding="utf-8")
    assert all(message.NAME in protocol for message in wire.MESSAGES.values()), "firmware/PROTOCOL.md included"
    # the makers' pages include hardware/README.md and enclosure/README.md whole: the pictures, written
    # relative to those files, are published where the pages' links lead
    shown = {}
    for html in (built / "make").glob("**/index.html"):
        for picture in re.findall(r'<img [^>]*src="([^"]+)"', html.read_text(encoding="utf-8")):
            shown[(html.parent / picture).resolve()] = html
    assert {(built / "hardware" / "wiring.png").resolve(),
            (built / "enclosure" / "pictures" / "carrier_tile.png").resolve()} <= set(shown)
    assert [(picture, html) for picture, html in shown.items() if not picture.is_file()] == []


@pytest.mark.slow  # some 5 s of CPU by itself: out of ./dev test (issue 40)
def test_the_strict_build_fails_on_a_broken_link_a_missing_anchor_an_orphan_page_and_a_missing_picture(tmp_path):
    folder = _checkout_copy(tmp_path)
    with open(folder / "docs" / "dev" / "index.md", "a", encoding="utf-8") as page:
        page.write("\n[gone](nowhere.md) [no heading](architecture.md#no-such-heading) ![gone](../no-such-picture.png)\n")
    (folder / "docs" / "dev" / "orphan.md").write_text("# Not in the nav\n", encoding="utf-8")
    done = _build(folder)
    assert done.returncode != 0
    for warning in ("'nowhere.md'", "'#no-such-heading'", "dev/orphan.md", "'../no-such-picture.png'"):
        assert re.search(re.escape(warning.strip("'")), done.stderr), f"no warning for {warning}:\n{done.stderr}"


def test_every_test_the_threat_model_names_exists():
    """docs/dev/security.md names, for each boundary, the test that proves it: a test renamed or
    taken out leaves a row proven by nothing, so each name must be a test in the file named."""
    text = (ROOT / "docs/dev/security.md").read_text(encoding="utf-8")
    named: list[tuple[str, str]] = []
    for row in text.splitlines():
        file = None  # a row's ``::test_name`` is in the file it named last
        for cell in re.findall(r"`([^`]+)`", row):
            match = re.fullmatch(r"(test_\w+\.py)?(?:::(test_\w+))?", cell)
            if match is None:
                continue
            file = match.group(1) or file
            if match.group(2):
                assert file is not None, f"{cell} names no file before it: {row[:80]}"
                named.append((file, match.group(2)))
    defined = defined_tests()
    missing = [f"{file}::{name}" for file, name in named
               if not any(test.startswith(f"{file}::{name}") for test in defined)]
    assert len(named) > 40 and missing == []


TROUBLESHOOTING = {"en": ROOT / "docs" / "cafe" / "troubleshooting.md", "it": ROOT / "docs" / "cafe" / "troubleshooting.it.md"}


def test_the_troubleshooting_pages_name_each_chips_cards_as_the_reference_build_wires_them():
    """Issue 60.3: the page's examples used an identity map ("0x5b ... cards 12-23") where the
    reference build's pinout puts 0x5B on cards 3-4, 8-9, 13-14, 18-19, 22-24."""
    for lang, path in TROUBLESHOOTING.items():
        page = path.read_text(encoding="utf-8")
        assert "| 0x5b | 3V3 | 3-4, 8-9, 13-14, 18-19, 22-24 |" in page, lang
        assert "| 0x5c | SDA | 2, 7, 12 |" in page, lang
        assert "12-23" not in page and "0-23" not in page, lang


def test_a_card_rewired_in_the_pinout_makes_the_troubleshooting_pages_stale(monkeypatch):
    from dataclasses import replace

    from pi_table.hardware import pinout

    wiring = pinout.load()
    electrodes = list(wiring.cell_electrodes)
    electrodes[2], electrodes[3] = electrodes[3], electrodes[2]  # card 2 onto 0x5B, card 3 onto 0x5C
    monkeypatch.setattr(docs, "_wiring", lambda: replace(wiring, cell_electrodes=tuple(electrodes)))
    assert docs.stale() == ["docs/cafe/troubleshooting.md", "docs/cafe/troubleshooting.it.md"]


def test_a_page_that_lost_its_generated_blocks_markers_is_refused_saying_what_it_expects():
    with pytest.raises(docs.MissingBlock, match=r"docs/cafe/x\.md has no generated block touch-chips: expected a line "
                                                r"'<!-- generated by tools/docs\.py: touch-chips"):
        docs.with_blocks("# A page\n\nno markers\n", {"touch-chips": lambda: "made"}, "cafe/x.md")


def test_the_troubleshooting_pages_say_what_the_firmware_does():
    """The page said a reset chip is noticed "within a second" (the firmware's probe finds it
    within three steps, about 15 ms) and told the owner to look at a Pico "power LED" the Pico has
    not and the firmware never lights."""
    from pi_table.firmware import touchboard
    from pi_table.hardware.tools import latency

    found_ms = latency.reset_found_ms(latency.firmware())
    said = {"en": r"The board noticed within about (\d+) ms", "it": r"La scheda se n'è accorta entro circa (\d+) ms"}
    lights = (ROOT / "firmware" / "code.py").read_text(encoding="utf-8") + Path(touchboard.__file__).read_text(encoding="utf-8")
    for lang, path in TROUBLESHOOTING.items():
        page = " ".join(path.read_text(encoding="utf-8").split())
        (shown,) = re.findall(said[lang], page)
        assert abs(int(shown) - found_ms) <= 2.5, f"{lang}: the page says {shown} ms, the firmware finds it in {found_ms:.1f}"
        if "board.LED" not in lights:
            assert not re.search(r"Pico's LED|LED del Pico|power LED", page), f"{lang}: a Pico LED the firmware never lights"
