"""The touch board's stripboard (hardware/tools/stripboard.py): the layout read back as a netlist
and held to the wiring diagram's, tested the way a tired maker breaks it (a cut left out, a link
left off, a part a hole out); its drawing at 1:1, current and in the build guide."""

from __future__ import annotations

import re
from dataclasses import replace
from itertools import combinations

import pytest
from pi_table.hardware import pinout
from pi_table.hardware.tools import HARDWARE, stripboard, wiring

HARNESS = wiring.harness(pinout.load())
BOARD = stripboard.layout()


def _partition(board: stripboard.Layout) -> set[frozenset[int]]:
    """Which of the board's places it joins, by their numbers: a mistake that leaves them is no mistake."""
    joins = stripboard.board_joins(board, HARNESS)
    groups: dict[object, set[int]] = {}
    for number, place in enumerate(board.places):
        groups.setdefault(joins.root(stripboard._item(place)), set()).add(number)
    return {frozenset(group) for group in groups.values()}


def _moved(board: stripboard.Layout, which, tracks: int, holes: int) -> stripboard.Layout:
    return replace(board, places=tuple(replace(p, hole=(p.hole[0] + tracks, p.hole[1] + holes)) if which(p) else p
                                       for p in board.places))


def mutants(board: stripboard.Layout):
    """Each mistake in turn, named: every cut left out, every link left off, every part soldered
    a hole or a track out (all its pins), every wire's end a hole out."""
    for cut in sorted(board.cuts):
        yield f"the cut at T{cut[0]} H{cut[1]} left out", replace(board, cuts=board.cuts - {cut})
    for n, link in enumerate(board.links):
        yield f"the link {link} left off", replace(board, links=board.links[:n] + board.links[n + 1:])
    for part in ("Pico", "U1", "R1", "C1", "C3"):
        for tracks, holes in ((0, -1), (0, 1), (-1, 0), (1, 0)):
            yield f"{part} {tracks, holes} out", _moved(
                board, lambda p, part=part: p.pin[0] == part and not p.wire and not p.name, tracks, holes)
    for place in board.places:
        if place.name:
            for holes in (-1, 1):
                yield f"{place.name} a hole out", _moved(board, lambda p, place=place: p == place, 0, holes)


def test_the_reference_board_is_the_harness_netlist_on_its_tracks():
    assert stripboard.problems(BOARD, HARNESS) == []


def test_every_mistake_on_the_board_is_reported(capsys):
    reference = _partition(BOARD)
    killed, missed, same = 0, [], 0
    for name, mutant in mutants(BOARD):
        if _partition(mutant) == reference and not stripboard.problems(mutant, HARNESS):
            same += 1  # a cut between two pins of one ground, a place moved within its piece of track
            continue
        if stripboard.problems(mutant, HARNESS):
            killed += 1
        else:
            missed.append(name)
    total = killed + len(missed)
    with capsys.disabled():
        print(f"\nstripboard mutation score: {killed}/{total} ({same} mistakes change nothing the board joins)")
    assert not missed, missed
    assert total > 60


@pytest.mark.parametrize("mistake, words", [
    (lambda b: replace(b, cuts=b.cuts - {(25, 11)}),
     "the board joins Pico 28 (GND) at T25 H9 and U1 1 (1OE) at T26 H15, which the design keeps apart on it"),
    (lambda b: replace(b, cuts=b.cuts - {(32, 16)}), "the board joins U1 7 (GND) at T32 H15 and U1 8 (3Y) at T32 H18"),
    (lambda b: replace(b, links=tuple(link for link in b.links if link != ((31, 20), (33, 20)))),
     "the board does not join U1 7 (GND) at T32 H15 and U1 9 (3A) at T31 H18, which the design joins on it"),
    (lambda b: replace(b, places=tuple(replace(p, hole=(19, 1)) if p.wire == ("W_i2c", 1) else p for p in b.places)),
     "T19 H1 holds W_i2c wire 1 at T19 H1 and W_i2c wire 2 at T19 H1: one thing a hole"),
    (lambda b: replace(b, places=tuple(replace(p, hole=(30, 5)) if p.wire == ("W_led", 3) else p for p in b.places)),
     "W_led wire 3 at T30 H5: T30 H5 is a cut, drilled through"),
    (lambda b: replace(b, places=tuple(replace(p, hole=(38, 22)) if p.wire == ("W_shifter_power", 2) else p
                                       for p in b.places)),
     "T38 H22 is within 7 mm of a corner, under its screw"),
])
def test_each_board_rule_catches_its_mistake(mistake, words):
    found = stripboard.problems(mistake(BOARD), HARNESS)
    assert any(words in problem for problem in found), found


def test_the_drawing_is_current_and_at_one_to_one():
    drawn = stripboard.drawing()
    assert stripboard.DRAWING.read_text(encoding="utf-8") == drawn, "run: python -m pi_table.hardware.tools.stripboard"
    size = re.search(r'width="([\d.]+)mm" height="([\d.]+)mm" viewBox="(\S+) (\S+) ([\d.]+) ([\d.]+)"', drawn)
    assert size is not None and size.group(1) == size.group(5) and size.group(2) == size.group(6)  # 1 unit = 1 mm
    assert f'width="{stripboard.WIDTH:g}" height="{stripboard.LENGTH:g}"' in drawn  # the board itself, 60 x 100
    for cut in BOARD.cuts:
        x, y = stripboard.centre(cut)
        assert f"M{x - 0.9:.2f},{y - 0.9:.2f}" in drawn
    for place in BOARD.places:
        if place.name:
            assert f"{place.name} (T{place.hole[0]} H{place.hole[1]})" in drawn


def test_the_guide_shows_the_drawing_and_its_table_is_the_layout():
    """The build guide's stripboard table says what the layout places: every link, every cut and
    every wire end at the same holes."""
    guide = (HARDWARE / "README.md").read_text(encoding="utf-8")
    assert "(stripboard.svg)" in guide
    table = guide[guide.index("### The stripboard"):guide.index("### The touch board, at schematic level")]
    said_links = {((int(a), int(b)), (int(c), int(d)))
                  for a, b, c, d in re.findall(r"T(\d+) H(\d+) to T(\d+) H(\d+)", table)}
    said_links |= {((int(t), int(h)), (33, int(h))) for t, h in re.findall(r"T(\d+)\) to T33 by a link at H(\d+)", table)}
    parts_leads = {frozenset(p.hole for p in BOARD.places if p.pin[0] == part and not p.wire) for part in ("R1", "C1", "C3")}
    assert {frozenset(link) for link in said_links} - parts_leads == {frozenset(link) for link in BOARD.links}
    cuts_row = next(line for line in table.splitlines() if line.startswith("| track cuts |"))
    said_cuts = {(track, int(hole)) for hole, first, last in re.findall(r"H(\d+) on T(\d+)-T(\d+)", cuts_row)
                 for track in range(int(first), int(last) + 1)}
    assert said_cuts == BOARD.cuts
    for place in BOARD.places:
        if place.wire:
            assert f"T{place.hole[0]} H{place.hole[1]}" in table, place


def test_the_reference_places_are_every_pin_of_the_boards_parts():
    placed = {place.pin for place in BOARD.places if not place.wire and not place.name}
    assert placed == {("Pico", pin) for pin in pinout.PICO_PINS} | {("U1", pin) for pin in range(1, 15)} | {
        (part, pin) for part in ("R1", "C1", "C3") for pin in (1, 2)}
    assert len({place.hole for place in BOARD.places}) == len(BOARD.places)
    assert not [pair for pair in combinations(BOARD.links, 2) if set(pair[0]) & set(pair[1])]


def _billed(text_of: dict[str, str]) -> list[dict[str, str]]:
    """The bill of materials with the rows drawn as the given parts' typical part text changed."""
    from pi_table.hardware.tools import guide

    return [{**row, "typical part or product": text_of.get(row["in the diagram"].split()[0],
                                                           row["typical part or product"]) if row["in the diagram"]
             else row["typical part or product"]} for row in guide.bom_rows()]


@pytest.mark.parametrize("mistake, bom, words", [
    # issue 60: a 0.75 mm2 class-5 core (about 1.1-1.2 mm over its strands) does not enter a 1.0 mm hole
    (lambda b: replace(b, places=tuple(replace(p, on_pin=False) if p.wire == ("W_led", 3) else p for p in b.places)),
     {}, "T28 H13: W_led wire 3 (0.75 mm2, about 1.14 mm over its strands) does not enter the board's 1.0 mm "
         "hole: solder it to a 2.54 mm header pin standing in the hole"),
    (lambda b: b, {}, None),  # the reference board fits: the thin cores in their holes, the LED cable's on a pin
    # issue 60: C3 billed with 2.54 mm leads spans T15-T17 (5.08 mm)
    (lambda b: b, {"C3": "KEMET C322C106K3R5TA, 2.54 mm leads"},
     "C3 is billed with 2.54 mm leads (hardware/bom.csv) but its holes T15 H12 and T17 H12 are 5.08 mm apart"),
    (lambda b: b, {"C1": "Vishay K104K15X7RF5TL2"},
     "C1's row in hardware/bom.csv does not say how far apart its leads are (as \"2.54 mm leads\")"),
    (lambda b: _moved(b, lambda p: p.pin == ("C1", 1) and not p.wire, 1, 0), {},
     "C1 is billed with 2.54 mm leads (hardware/bom.csv) but its holes T25 H19 and T27 H19 are 5.08 mm apart"),
])
def test_each_fit_rule_catches_its_maker_mistake(mistake, bom, words):
    """Issue 60: what enters a hole and what a part's leads span, against the bill of materials."""
    found = stripboard.problems(mistake(BOARD), HARNESS, _billed(bom))
    if words is None:
        assert found == []
    else:
        assert any(words in problem for problem in found), found
