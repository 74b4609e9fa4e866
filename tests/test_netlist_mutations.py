"""The netlist rules tested by mutation: the reference harness changed one mistake at a time, as a
tired maker would make it (a wire left off, two wires swapped on a part), and ``wiring.problems``
asked about each. Every mistake must be reported; a change that leaves every net as it was (two
pins the part already joins swapped) is no mistake and is not counted."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

import pytest
from pi_table.hardware import pinout
from pi_table.hardware.tools import wiring

WIRING = pinout.load()
HARNESS = wiring.harness(WIRING)


def without_wire(harness: dict, cable: str, wire: int) -> dict:
    """``harness`` with one wire of ``cable`` left off: the pins at its two ends no longer joined by it."""
    rows = []
    for left, through, right in harness["connections"]:
        (a_name, a_pins), = left.items()
        (name, wires), = through.items()
        (b_name, b_pins), = right.items()
        if name == cable and wire in wires:
            keep = [n for n, each in enumerate(wires) if each != wire]
            if not keep:
                continue
            left = {a_name: [a_pins[n] for n in keep]}
            through = {name: [wires[n] for n in keep]}
            right = {b_name: [b_pins[n] for n in keep]}
        rows.append([left, through, right])
    return {**harness, "connections": rows}


def without_loop(harness: dict, part: str, loop: list) -> dict:
    """``harness`` with one tie drawn on ``part`` (an address strap, an input tied to ground) left off."""
    connector = harness["connectors"][part]
    changed = {**connector, "loops": [each for each in connector["loops"] if each != loop]}
    return {**harness, "connectors": {**harness["connectors"], part: changed}}


def swapped(harness: dict, part: str, a: int | str, b: int | str) -> dict:
    """``harness`` with every wire and tie on ``part``'s pin ``a`` moved to its pin ``b``, and back."""
    other = {a: b, b: a}

    def moved(side: dict) -> dict:
        (name, pins), = side.items()
        return {name: [other.get(pin, pin) for pin in pins]} if name == part else side

    rows = [[moved(left), through, moved(right)] for left, through, right in harness["connections"]]
    connector = harness["connectors"][part]
    if "loops" in connector:
        connector = {**connector, "loops": [[other.get(pin, pin) for pin in loop] for loop in connector["loops"]]}
    return {**harness, "connectors": {**harness["connectors"], part: connector}, "connections": rows}


def _ends(harness: dict) -> set[wiring.Pin]:
    """Every pin a wire or a tie ends on."""
    ends = {pin for link in wiring.links(harness) if link.wire for pin in (link.a, link.b)}
    return ends | {(name, pin) for name, connector in harness["connectors"].items()
                   for loop in connector.get("loops", []) for pin in loop}


def mutants(harness: dict) -> Iterator[tuple[str, dict]]:
    """Each mistake in turn, named: every wire left off, every tie left off, and every two pins of
    a part swapped where a wire or a tie ends on at least one of them."""
    for left, through, right in harness["connections"]:
        (cable, wires), = through.items()
        for wire in wires:
            yield f"{cable} wire {wire} left off", without_wire(harness, cable, wire)
    for part, connector in harness["connectors"].items():
        for loop in connector.get("loops", []):
            yield f"{part}'s tie {loop[0]}-{loop[1]} left off", without_loop(harness, part, loop)
    ends = _ends(harness)
    for part, connector in harness["connectors"].items():
        for a, b in combinations(wiring.labels(connector), 2):
            if (part, a) in ends or (part, b) in ends:
                yield f"{part} pins {a} and {b} swapped", swapped(harness, part, a, b)


def _partition(harness: dict) -> set[frozenset[wiring.Pin]]:
    return {frozenset(net) for net in wiring.nets(harness)}


@pytest.mark.slow  # some 1000 harnesses, each checked by every rule: seconds
def test_every_mistake_is_reported_mutation_score_100_percent(capsys):
    reference = _partition(HARNESS)
    killed, missed, same = 0, [], 0
    kinds = {"left off": 0, "swapped": 0}
    for name, mutant in mutants(HARNESS):
        if _partition(mutant) == reference:
            same += 1  # two pins the part already joins (a tie, a ground), swapped: nothing changed
            continue
        kinds["swapped" if name.endswith("swapped") else "left off"] += 1
        if wiring.problems(mutant, WIRING):
            killed += 1
        else:
            missed.append(name)
    total = killed + len(missed)
    with capsys.disabled():
        print(f"\nnetlist mutation score: {killed}/{total} = {100 * killed / total:.1f} % "
              f"({kinds['left off']} wires and ties left off, {kinds['swapped']} pins swapped; "
              f"{same} swaps of pins already joined change no net and are not counted)")
    assert not missed, f"{len(missed)} mistakes not reported: {missed[:20]}"
    assert total > 1000 and kinds["left off"] > 100


def test_the_mutants_are_the_mistakes_they_are_named_for():
    """Each operator changes what it says and nothing else."""
    gone = without_wire(HARNESS, "W_i2c", 3)
    assert len(wiring.links(gone)) == len(wiring.links(HARNESS)) - 1
    assert not any(link.wire == ("W_i2c", 3) for link in wiring.links(gone))
    crossed = swapped(HARNESS, "MPR121_5B", 1, 2)
    pico_sda = next(net for net in wiring.nets(crossed) if ("Pico", 6) in net)
    assert ("MPR121_5B", 2) in pico_sda and ("MPR121_5B", 1) not in pico_sda
    untied = without_loop(HARNESS, "U1", [9, 7])
    assert [9, 7] not in untied["connectors"]["U1"]["loops"] and [9, 7] in HARNESS["connectors"]["U1"]["loops"]


def _retarget(harness: dict, cable: str, wire: int, end: wiring.Pin, near: bool = False) -> dict:
    """``harness`` with the far end of ``cable``'s wire moved to ``end`` (its near end, if ``near``)."""
    rows = []
    for left, through, right in harness["connections"]:
        (name, wires), = through.items()
        if name == cable and wires == [wire]:
            left, right = ({end[0]: [end[1]]}, right) if near else (left, {end[0]: [end[1]]})
        rows.append([left, through, right])
    return {**harness, "connections": rows}


def _cores_crossed(harness: dict, cable: str, a: int, b: int) -> dict:
    """``harness`` with ``cable``'s wires ``a`` and ``b`` crossed at their far ends."""
    rows = []
    for left, through, right in harness["connections"]:
        (name, wires), = through.items()
        if name == cable:
            (part, pins), = right.items()
            ends = dict(zip(wires, pins, strict=True))
            ends[a], ends[b] = ends[b], ends[a]
            right = {part: [ends[wire] for wire in wires]}
        rows.append([left, through, right])
    return {**harness, "connections": rows}


def _part(harness: dict, name: str, **fields: str) -> dict:
    """``harness`` with part ``name`` drawn with other fields (its value, its part number)."""
    return {**harness, "connectors": {**harness["connectors"], name: {**harness["connectors"][name], **fields}}}


def _cable(harness: dict, name: str, **fields) -> dict:
    """``harness`` with cable ``name`` drawn with other fields (its cores' colours)."""
    return {**harness, "cables": {**harness["cables"], name: {**harness["cables"][name], **fields}}}


def _rewired(harness: dict, by_wire: dict[tuple[str, int], list]) -> dict:
    """``harness`` with the connection of each named wire, alone on its row, made as given."""
    rows = []
    for left, through, right in harness["connections"]:
        (name, wires), = through.items()
        rows.append(by_wire.get((name, wires[0]), [left, through, right]) if len(wires) == 1 else [left, through, right])
    return {**harness, "connections": rows}


MISSES = {
    "bulk capacitor disconnected": (without_wire(without_wire(HARNESS, "W_C2", 1), "W_C2", 2), "C2 1 (+)"),
    "LED data core gone": (without_wire(HARNESS, "W_led", 3), "LED data at 5 V"),
    "a row-to-row data wire gone": (without_wire(HARNESS, "W_row2_data", 1), "row 2's DIN"),
    "the data resistor bypassed": (_retarget(HARNESS, "W_led", 3, ("ROW0", 1)),
                                   "U1 3 (1Y) is wired to the net row 0's DIN, where the design puts it on the net LED "
                                   "data at 5 V"),
    "the DC jack no longer reaching the fuse": (without_wire(HARNESS, "W_jack", 1), "F1 1 (in)"),
    "the level shifter's VCC wire gone": (without_wire(HARNESS, "W_shifter_power", 1),
                                          "U1 (74AHCT125) pin 14, its supply VCC, reaches neither supply"),
    "the SDA wire to the first MPR121 gone": (without_wire(HARNESS, "W_i2c", 1), "| Pico 6 (GP4): a wire is missing"),
    "SDA and SCL swapped at the first MPR121": (_cores_crossed(HARNESS, "W_i2c", 1, 2),
                                                "Pico 6 (GP4) is wired to the net SCL, where the design puts it on the "
                                                "net SDA"),
    "two breakouts' addresses swapped": (_part(_part(HARNESS, "MPR121_5A", loops=[[3, 5]]), "MPR121_5B", loops=[[4, 5]]),
                                         "MPR121_5A 5 (ADDR) is wired to the net 3V3 of the touch chips, where the "
                                         "design puts it on the net ground"),
    "the shifter fed from the Pi's 3.3 V": (_retarget(HARNESS, "W_shifter_power", 1, ("Pi", 1), near=True),
                                            "U1 (74AHCT125) pin 14, its supply VCC, is on the Pi's 3.3 V (header pin 1) "
                                            "instead of the 5 V supply"),
    "the shifter fed from the Pico's 3.3 V": (_retarget(HARNESS, "W_shifter_power", 1, ("Pico", 36), near=True),
                                              "U1 (74AHCT125) pin 14, its supply VCC, is on the Pico's 3.3 V (Pico 36, "
                                              "3V3(OUT)) instead of the 5 V supply"),
    "the shifter's 5 V feed run to the Pi's 3.3 V": (_retarget(HARNESS, "W_shifter_power", 1, ("Pi", 1)),
                                                     "reaches the Pi's 3.3 V (header pin 1): 5 V there would reach "
                                                     "the 3.3 V rail"),
    "the I2C cable's 3V3 core gone": (without_wire(HARNESS, "W_i2c", 3), "the net 3V3 of the touch chips is in 2"),
    "R2 at 33 kOhm": (_part(HARNESS, "R2", subtype="33 kOhm"), "R2 is drawn as 33 kOhm; the design's is 330 Ohm"),
    "a 74HC125 for the 74AHCT125": (_part(HARNESS, "U1", mpn="74HC125"), "use a TTL-threshold part"),
    "R2 at the box end": (_rewired(HARNESS, {("W_led", 3): [{"R2": [2]}, {"W_led": [3]}, {"ROW0": [1]}],
                                             ("W_R2", 1): [{"U1": [3]}, {"W_R2": [1]}, {"R2": [1]}]}),
                          "R2 joins ROW0's DIN by W_led, the cable from the box"),
    "the guard grounded at the LED bus": (_rewired(HARNESS, {("W_guard", 1): [{"BUS": [9]}, {"W_guard": [1]},
                                                                               {"GUARD": [1]}]}),
                                          "the guard foil is grounded at BUS 9 (GND)"),
    "a 1.1 A hold polyfuse for F2": (_part(HARNESS, "F2", type="polyfuse 1.1 A hold, 2.2 A trip (Bourns MF-R110)"),
                                     "W_shifter_power wire 1 may carry 2.2 A in a short before a fuse opens"),
    "SDA twisted with SCL in the I2C cable": (_cable(HARNESS, "W_i2c", colors=["BU", "BUWH", "OG", "OGWH"]),
                                              "W_i2c twists SDA (BU) with SCL (BUWH)"),
}
"""The mistakes the review made one at a time that the rules once let pass, and words of the report."""


@pytest.mark.parametrize("miss", list(MISSES))
def test_each_mistake_the_review_found_is_reported(miss):
    mutant, words = MISSES[miss]
    found = wiring.problems(mutant, WIRING)
    assert any(words in problem for problem in found), found


@pytest.mark.parametrize("miss", ["two breakouts' addresses swapped", "the shifter fed from the Pi's 3.3 V",
                                  "the shifter fed from the Pico's 3.3 V", "the shifter's 5 V feed run to the Pi's 3.3 V"])
def test_a_pin_wired_into_another_net_is_not_reported_as_two_nets_joined_nor_a_pin_the_pi_lacks(miss):
    """Issue 60.5: swapped ADDR straps read as "3V3 and ground are joined", and a wire to the Pi's
    3.3 V as "Pi does not have pin 1": the strays are named where they went, and the Pi has 40 pins."""
    found = wiring.problems(MISSES[miss][0], WIRING)
    assert not [problem for problem in found if "are joined" in problem or "does not have" in problem], found


@pytest.mark.parametrize("miss", ["the shifter fed from the Pi's 3.3 V", "the shifter fed from the Pico's 3.3 V",
                                  "the shifter's 5 V feed run to the Pi's 3.3 V"])
def test_a_supply_wire_moved_to_a_3v3_rail_is_named_as_moved_not_as_missing(miss):
    """Issue 60.5: the shifter's VCC taken from a 3.3 V pin read as "reaches neither supply" and
    its net as "a wire is missing": a maker who adds the wire leaves 5 V joined to 3.3 V. The
    stray end is named where it went, and nothing says a wire is missing; a chip whose VCC is on
    3.3 V is not said to reach no supply (only when the 5 V feed went elsewhere is it unpowered)."""
    found = wiring.problems(MISSES[miss][0], WIRING)
    misleading = ["a wire is missing", "where the design connects nothing", "are joined"]
    misleading += ["neither supply"] if "fed from" in miss else []
    assert not [problem for problem in found if any(words in problem for words in misleading)], found


@pytest.mark.parametrize("miss", ["R2 at 33 kOhm", "a 74HC125 for the 74AHCT125", "R2 at the box end",
                                  "the guard grounded at the LED bus", "a 1.1 A hold polyfuse for F2",
                                  "SDA twisted with SCL in the I2C cable"])
def test_the_mistakes_that_make_the_same_nets_are_each_reported_alone(miss):
    """A value, a part and two places: every net as the design's, so only their own rule speaks."""
    mutant, _words = MISSES[miss]
    assert _partition(mutant) == _partition(HARNESS) and len(wiring.problems(mutant, WIRING)) == 1
