"""The comparison with other appliances (docs/cafe/compared.md, compared.it.md) is checked against
the capability table the docs keep (docs/cafe/capabilities.toml), and the table against the code
(issue 73): a row for each capability, the code behind each claim there, each thing pi-table's cell
must say, and its lacks said exactly, none of them one the product no longer has. (The page once
said backups were "never sent off the table by itself" for months after they were, and had no
row for the owner's notifications.)"""

from __future__ import annotations

import importlib
import re
import tomllib
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs" / "cafe"
PAGES = {"en": DOCS / "compared.md", "it": DOCS / "compared.it.md"}
TRAILS = re.compile(r"\*\*(?:Trails|Indietro)(\.?)\*\*:?\s*(?P<said>.*)$")
LINKED = re.compile(r"\s*\(\[[^\]]*\]\([^)]*\)\)\.?$")  # a cell's closing source, ([where](address))


def capabilities() -> dict[str, dict]:
    return tomllib.loads((DOCS / "capabilities.toml").read_text(encoding="utf-8"))


def pi_tables_cells(lang: str) -> dict[str, str]:
    """Each row's title on the page in ``lang``, and pi-table's cell (the first after the title)."""
    rows = {}
    for line in PAGES[lang].read_text(encoding="utf-8").splitlines():
        if line.startswith("| **"):
            cells = line.strip().strip("|").split(" | ")
            rows[cells[0].strip().strip("*")] = cells[1].strip()
    return rows


def exists(name: str) -> bool:
    """Whether the code ``name`` names (a module, or module:name) is there."""
    module, _, attribute = name.partition(":")
    try:
        found = importlib.import_module(module)
    except ModuleNotFoundError:
        return False
    return not attribute or hasattr(found, attribute)


def test_every_claim_of_the_capability_table_is_given_by_the_code_and_every_lack_is_still_one():
    for name, capability in capabilities().items():
        assert set(capability) <= {"row", "gives", "says", "trails", "until"}, name
        assert capability.get("gives") or "trails" in capability, f"{name}: neither what gives it nor where it trails"
        for given in capability.get("gives", []):
            assert exists(given), f"{name}: {given} is no more: the pages cannot claim it"
        for ending in capability.get("until", []):
            assert not exists(ending), f"{name}: {ending} is here: the lack the pages say is gone"


@pytest.mark.parametrize("lang", ["en", "it"])
def test_the_comparison_page_has_a_row_for_each_capability_and_says_each_as_the_table_does(lang):
    rows = pi_tables_cells(lang)
    table = capabilities()
    assert sorted(rows) == sorted(capability["row"][lang] for capability in table.values()), \
        "a row of the page that the capability table does not have, or a capability with no row"
    for name, capability in table.items():
        cell = rows[capability["row"][lang]]
        for said in capability.get("says", {}).get(lang, []):
            assert said in cell, f"{name}: pi-table's cell does not say {said!r}"
        trailing = TRAILS.search(cell)
        if "trails" not in capability:
            assert trailing is None, f"{name}: pi-table's cell says it trails where the capability table does not"
            continue
        assert trailing is not None, f"{name}: pi-table's cell does not say where it trails"
        said = LINKED.sub("", trailing.group("said")).rstrip(".")
        assert said == capability["trails"][lang], f"{name}: the cell says it trails in {said!r}"
