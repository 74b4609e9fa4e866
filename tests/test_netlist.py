"""The wiring diagram read back as a netlist: the design's named nets realised exactly, one
ground, the ICs on their datasheet pins and supplies, a gauge on every wire that carries amps and
a fuse before every thin one, and the diagram and the bill of materials naming the same parts;
each rule shown to catch the mistake it is there for (tests/test_netlist_mutations.py tries every
wire left off and every two pins swapped)."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import replace

import pytest
from pi_table.hardware import pinout
from pi_table.hardware.pinout import HEADER, HEADER_GROUNDS
from pi_table.hardware.tools import HARDWARE, enclosure, guide, wiring

WIRING = pinout.load()
HARNESS = wiring.harness(WIRING)


def net_of(harness: dict, pin: wiring.Pin) -> set[wiring.Pin]:
    return next(net for net in wiring.nets(harness) if pin in net)


def test_the_reference_wiring_breaks_no_electrical_rule():
    assert wiring.problems(HARNESS, WIRING) == []
    assert wiring.bom_problems(HARNESS, guide.bom_rows()) == []


def test_one_ground_joins_every_supply_and_board():
    ground = net_of(HARNESS, (wiring.SUPPLY, 2))
    on_it = {name for name, _ in ground}
    needed = {"Pi", "PI_PSU", "DISPLAY", "U1", "PSU", "J1", "BUS", "Pico", "GUARD", "AMP", *wiring.rows(),
              *(f"MPR121_{chip.address:02X}" for chip in WIRING.chips)}
    assert needed <= on_it, needed - on_it
    assert (("Pi", WIRING.grounds["led_data"])) in ground and ("U1", 7) in ground


def test_the_shifter_is_wired_as_its_datasheet_asks():
    """1OE low, the unused gates' inputs and OEs low, the pull-down on 1A, 100 nF at the chip,
    the 330 ohm between 1Y and row 0's DIN."""
    ground = net_of(HARNESS, ("U1", 7))
    assert {("U1", pin) for pin in (1, 4, 5, 9, 10, 12, 13)} <= ground
    data_in = net_of(HARNESS, ("U1", 2))
    assert ("Pi", HEADER[WIRING.led_data][0]) in data_in and ("R1", 1) in data_in and ("R1", 2) in ground
    assert ("C1", 1) in net_of(HARNESS, ("U1", 14)) and ("C1", 2) in ground
    assert ("R2", 1) in net_of(HARNESS, ("U1", 3)) and ("ROW0", 1) in net_of(HARNESS, ("R2", 2))
    assert wiring.AHCT125[7] == "GND" and wiring.AHCT125[14] == "VCC" and wiring.AHCT125[1] == "1OE"


def test_every_row_and_the_edge_take_power_from_the_bus():
    plus, ground = net_of(HARNESS, ("BUS", 1)), net_of(HARNESS, ("BUS", 9))
    for piece in wiring.rows():
        assert (piece, 2) in plus and (piece, 3) in ground
    assert ("F1", 2) in plus and ("F1", 1) not in plus  # the fuse is between the jack and the bus


def test_the_wires_currents_follow_the_power_injection():
    currents = wiring.wire_currents(HARNESS, wiring.loads(WIRING), WIRING.fuse_ma)
    row = 5 * WIRING.leds_per_cell * wiring.MA_PER_LED_FULL
    assert currents[("W_led", 1)] == currents[("W_led", 2)] == WIRING.fuse_ma  # everything, up to the fuse
    assert currents[("W_row0_power", 1)] == row == 1200
    assert currents[("W_edge_power", 2)] == WIRING.edge_leds * wiring.MA_PER_LED_FULL
    assert currents.get(("W_led", 3), 0) == 0 and currents[("W_pi_data", 2)] == 0  # no LED current in thin wires
    assert currents[("W_shifter_power", 1)] == currents[("W_shifter_power", 2)] == 0
    assert currents[("W_i2c", 4)] == 0  # the touch board's ground joins the LEDs' at the box only: no loop
    assert max(currents.values()) <= WIRING.fuse_ma < wiring.AMPACITY_MA[HARNESS["cables"]["W_led"]["gauge"]]


def test_the_amplifier_is_on_the_i2s_pins_and_the_pis_5v():
    """BCLK, LRC and DIN on the header's PCM pins (12, 35, 40), VIN on the 5 V rail with the
    USB-C input and the display, GND on a ground pin of its own; the speaker on OUT+ and OUT-."""
    assert ("Pi", 12) in net_of(HARNESS, ("AMP", 2)) and ("Pi", 35) in net_of(HARNESS, ("AMP", 1))
    assert ("Pi", 40) in net_of(HARNESS, ("AMP", 3))
    assert [HEADER[WIRING.amp_pins[signal]][0] for signal in ("bclk", "lrclk", "din")] == [12, 35, 40]
    rail = net_of(HARNESS, ("AMP", 7))
    assert {("Pi", 2), ("Pi", 4), ("Pi", "USB-C 5V"), ("DISPLAY", 2), ("PI_PSU", 1)} <= rail
    assert ("Pi", WIRING.grounds["amp"]) in net_of(HARNESS, ("AMP", 6)) == net_of(HARNESS, (wiring.SUPPLY, 2))
    assert ("SPEAKER", 1) in net_of(HARNESS, ("AMP", "+")) and ("SPEAKER", 2) in net_of(HARNESS, ("AMP", "-"))
    assert wiring.AMP_PINS[7] == "VIN" and wiring.AMP_PINS[6] == "GND" and wiring.AMP_PINS[2] == "BCLK"


def test_the_amplifier_and_the_pis_supply_currents():
    """The amplifier's peak on its power jumpers, the speaker's 0.87 A on its leads, the Pi's
    whole load on its supply's cable; none of it in a signal wire or the LEDs' wires."""
    currents = wiring.currents(HARNESS, WIRING)
    assert currents[("W_amp", 4)] == currents[("W_amp", 5)] == WIRING.amp_peak_ma == 700
    assert currents[("W_amp", 1)] == currents[("W_amp", 2)] == currents[("W_amp", 3)] == 0
    assert currents[("W_speaker", 1)] == wiring.speaker_ma() == 866
    assert currents[("W_pi_psu", 1)] == WIRING.pi_supply_load_ma == 2550
    assert currents[("W_display_power", 1)] == WIRING.pi_loads_ma["display"]
    led_only = wiring.wire_currents(HARNESS, wiring.loads(WIRING), WIRING.fuse_ma)
    assert led_only.get(("W_amp", 5), 0) == 0 and currents[("W_led", 1)] == led_only[("W_led", 1)]


def test_without_the_amplifier_the_diagram_draws_none():
    bare = replace(WIRING, amp_fitted=False, led_data=18, grounds={k: v for k, v in WIRING.grounds.items() if k != "amp"})
    harness = wiring.harness(bare)
    assert "AMP" not in harness["connectors"] and "W_amp" not in harness["cables"]
    assert wiring.problems(harness, bare) == []


def test_each_header_ground_pin_takes_one_wire():
    ends = [end for link in wiring.links(HARNESS) if link.wire for end in (link.a, link.b) if end[0] == "Pi"]
    grounds = [pin for _, pin in ends if pin in HEADER_GROUNDS]
    assert len(grounds) == len(set(grounds)) == len(WIRING.fitted_grounds())


def _edit(harness: dict, change: Callable[[dict], None]) -> dict:
    edited = copy.deepcopy(harness)
    change(edited)
    return edited


def _drop_connection(harness: dict, cable: str, wires: list[int]) -> None:
    harness["connections"] = [c for c in harness["connections"] if list(c[1].items()) != [(cable, wires)]]


def _shifter_as_positions(harness: dict) -> None:
    """The old drawing: the shifter's pins as positions 1-5, so "pin 1" meant 1OE on the chip."""
    harness["connectors"]["U1"] = {"type": "level shifter", "mpn": "74AHCT125", "pinlabels": ["1A", "1Y", "VCC", "GND", "1OE"]}
    harness["connections"] = [c for c in harness["connections"] if "U1" not in c[0] and "U1" not in c[2]]


def _shifter_fed_without_its_polyfuse(harness: dict) -> None:
    """F2 left out: the shifter's thin red wire soldered straight to the 5 A fuse's out lead."""
    _drop_connection(harness, "W_F2", [1])
    harness["connections"] = [[{"F1": [2]}, c[1], c[2]] if list(c[1].items()) == [("W_shifter_power", [1])] else c
                              for c in harness["connections"]]


def _without_part(harness: dict, part: str) -> None:
    harness["connectors"].pop(part)
    harness["connections"] = [c for c in harness["connections"] if part not in c[0] and part not in c[2]]


def _r2_at_the_box_end(harness: dict) -> None:
    """R2 soldered at U1's 1Y in the box, the LED cable's data core running on to row 0's DIN."""
    for connection in harness["connections"]:
        if connection[1] == {"W_led": [3]}:
            connection[:] = [{"R2": [2]}, {"W_led": [3]}, {"ROW0": [1]}]
        elif connection[1] == {"W_R2": [1]}:
            connection[:] = [{"U1": [3]}, {"W_R2": [1]}, {"R2": [1]}]


def _guard_to(harness: dict, pin: wiring.Pin) -> None:
    """The guard's one wire soldered to ``pin`` instead."""
    harness["connections"] = [[{pin[0]: [pin[1]]}, c[1], c[2]] if c[1] == {"W_guard": [1]} else c
                              for c in harness["connections"]]


def _pulled_up_hard(harness: dict) -> None:
    """A maker's own 1 kOhm pull-ups on SDA and SCL at the Pico, beside the breakouts'."""
    harness["connectors"]["RP"] = {"type": "resistor pair", "subtype": "pull-ups 1 kOhm on SDA and SCL",
                                   "pinlabels": ["SDA", "SCL"]}
    harness["cables"]["W_RP"] = {"category": "bundle", "wirecount": 2}
    harness["connections"].append([{"Pico": [6, 7]}, {"W_RP": [1, 2]}, {"RP": [1, 2]}])


def _join_rows_power(harness: dict) -> None:
    """Power joined from row to row through the notches as well as from the bus: a loop."""
    harness["cables"]["W_link"] = {"wirecount": 1, "gauge": "26 AWG"}
    harness["connections"].append([{"ROW0": [2]}, {"W_link": [1]}, {"ROW1": [2]}])


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda h: _drop_connection(h, "W_shifter_power", [2]), "2 ground nets, not one"),
        (lambda h: _drop_connection(h, "W_usb", [1, 2, 3, 4]), "2 ground nets, not one"),
        (lambda h: _drop_connection(h, "W_i2c", [1, 2, 3, 4]), "2 ground nets, not one"),
        (_shifter_as_positions, "U1 (74AHCT125) pin 1 is drawn as 1A; the datasheet's pin 1 is 1OE"),
        (lambda h: h["connectors"]["U1"]["loops"].remove([9, 7]), "pin 9, input 3A, is left floating"),
        (lambda h: h["cables"]["W_led"].pop("gauge"), "W_led wire 1 carries up to 5.00 A and has no gauge"),
        (lambda h: h["cables"]["W_row0_power"].update(gauge="26 AWG"),
         "W_row0_power wire 1 carries up to 1.20 A; 26 AWG is rated 1 A"),
        (_join_rows_power, "W_link wire 1 carries up to 5.00 A; 26 AWG is rated 1 A"),
        (lambda h: h["cables"]["W_led"].update(gauge="0.3 mm2"), "not one of"),
        (lambda h: h["cables"]["W_speaker"].update(gauge="28 AWG"), "W_speaker wire 1 carries up to 0.87 A; 28 AWG"),
        (lambda h: h["cables"]["W_amp"].update(gauge="28 AWG"), "W_amp wire 4 carries up to 0.70 A; 28 AWG"),
        (lambda h: h["cables"]["W_pi_psu"].pop("gauge"), "W_pi_psu wire 1 carries up to 2.55 A and has no gauge"),
        (lambda h: _drop_connection(h, "W_amp", [1, 2, 3, 4, 5]), "2 ground nets, not one"),
        (lambda h: h["connections"].append([{"U1": [15]}, {"W_R1": [3]}, {"R1": [1]}]), "U1 pin 15, which U1 does not"),
        (lambda h: h["connections"].append([{"U1": [15]}, {"W_R1": [3]}, {"R1": [1]}]), "W_R1 has no wire 3"),
        (_shifter_fed_without_its_polyfuse,
         "W_shifter_power wire 1 may carry 5 A in a short before a fuse opens; 26 AWG is rated 1 A: fuse it at its start"),
        (_shifter_fed_without_its_polyfuse, "C1 1 (1), U1 14 (VCC) are wired to the net +5 V LED bus, where the design "
                                            "puts them on the net +5 V of the shifter"),
        (lambda h: h["connectors"]["U1"]["loops"].append([6, 8]),
         "U1 6 (2Y), U1 8 (3Y) joined to each other, where the design connects nothing"),
        (lambda h: h["connectors"]["U1"]["loops"].append([3, 7]), "LED data at 5 V and ground are joined"),
        (lambda h: _without_part(h, "C3"), "the net 3V3 of the touch chips needs C3 1, which the diagram does not draw"),
        (lambda h: _drop_connection(h, "W_C1", [1, 2]), "the net +5 V of the shifter is in 2 pieces"),
        (lambda h: [_drop_connection(h, "W_pi_data", [1, 2]), _drop_connection(h, "W_shifter_power", [2])],
         "U1 (74AHCT125) pin 7, its supply GND, reaches neither supply: wire it"),
        (lambda h: h["connectors"]["R2"].update(subtype="33 kOhm"),
         "R2 is drawn as 33 kOhm; the design's is 330 Ohm (within 5%, the part bought's tolerance)"),
        (lambda h: h["connectors"]["R1"].update(subtype="10.8 kOhm"), "R1 is drawn as 10.8 kOhm; the design's is 10 kOhm"),
        (lambda h: h["connectors"]["C2"].update(subtype="100 uF"), "C2 is drawn as 100 uF; the design's is 1000 uF"),
        (lambda h: h["connectors"]["C1"].pop("subtype"), "C1 is drawn without its value: the design's is 100 nF"),
        (lambda h: h["connectors"]["U1"].update(mpn="74HC125"),
         "U1 is a 74HC125: at 5 V its inputs need 3.50 V for a high (0.7 x VCC, CMOS thresholds), and its input 1A is "
         "driven by Pi GPIO10 at 3.3 V at most: use a TTL-threshold part, a 74AHCT125 or 74HCT125"),
        (lambda h: h["connectors"]["U1"].update(mpn="74AHC125"), "U1 is a 74AHC125: at 5 V its inputs need 3.50 V"),
        (lambda h: h["connectors"]["U1"].update(mpn="74LVX125"), "U1 is a 74LVX125, a logic family the rules do not know"),
        (lambda h: h["connectors"]["U1"].pop("mpn"), "U1 is drawn without a part number the rules know (74AHCT125"),
        (lambda h: h["cables"]["W_i2c"].update(length=3.0),
         "at 100 kHz the pull-ups, 3.33 kOhm (MPR121_5A 10 kOhm, MPR121_5B 10 kOhm, MPR121_5C 10 kOhm) in parallel, "
         "raise the bus's 616 pF in 1739 ns, over Standard-mode's 1000 ns (UM10204): pull-ups of 1.92 kOhm or less"),
        (lambda h: h["cables"]["W_i2c"].update(length=3.0), "the I2C bus's SDA line has 616 pF, over the 400 pF"),
        (lambda h: h["cables"]["W_MPR121_5C"].pop("length"),
         "W_MPR121_5C carries the I2C bus without a length: the bus's capacitance cannot be checked"),
        (lambda h: h["cables"]["W_i2c"].update(type="flat ribbon"), "W_i2c carries the I2C bus without a type whose"),
        (lambda h: [h["connectors"][f"MPR121_{a}"].pop("subtype") for a in ("5A", "5B", "5C")],
         "nothing on the I2C bus pulls SDA and SCL up"),
        (_pulled_up_hard, "are under the 967 Ohm a device can pull down to 0.4 V at 3 mA (Standard-mode, UM10204)"),
        (_r2_at_the_box_end, "R2 joins ROW0's DIN by W_led, the cable from the box: it is at the box end"),
        (lambda h: _guard_to(h, ("BUS", 9)), "the guard foil is grounded at BUS 9 (GND), not at the GND of MPR121_5B, "
                                               "the breakout the I2C cable reaches first: the LEDs' ground carries"),
        (lambda h: _guard_to(h, ("MPR121_5C", 4)), "grounded at MPR121_5C 4 (GND), not at the GND of MPR121_5B"),
        (lambda h: h["connectors"]["F2"].update(type="polyfuse (Bourns MF-R020)"),
         "F2 is drawn without its trip current (as \"0.4 A trip\"): the wires after it cannot be checked"),
        (lambda h: h["connectors"]["F1"].update(type="blade fuse 20 A, inline holder"),
         "W_led wire 1 may carry 20 A in a short before a fuse opens; 0.75 mm2 is rated 6 A"),
        (lambda h: h["cables"]["W_i2c"].update(colors=["WH", "GN", "BN", "YE"]),
         "W_i2c twists SDA (WH) with 3V3 (BN) and SCL (GN) with GND (YE): its notes say SDA twisted with GND, "
         "SCL with 3V3"),
        (lambda h: h["cables"]["W_i2c"].update(colors=["WH", "BN", "GN", "YE"]),
         "W_i2c twists SDA (WH) with SCL (BN): the bus's two lines crosstalk where they are twisted together"),
    ],
)
def test_each_netlist_rule_catches_its_mistake(change, words):
    problems = wiring.problems(_edit(HARNESS, change), WIRING)
    assert any(words in problem for problem in problems), problems


def test_the_i2c_rules_read_the_pinouts_clock_rate():
    """At 400 kHz this bus's pull-ups cannot raise its 227 pF within Fast-mode's 300 ns."""
    fast = replace(WIRING, i2c_hz=400_000)
    assert any("at 400 kHz the pull-ups" in problem and "over Fast-mode's 300 ns" in problem
               for problem in wiring.problems(wiring.harness(fast), fast))
    assert not [problem for problem in wiring.problems(HARNESS, WIRING) if "I2C" in problem or "pull-ups" in problem]


def test_a_row_too_long_for_its_joins_is_caught():
    """Six LEDs a cell would put 1.44 A through a row's first join of 26 AWG."""
    assert wiring.row_join_ma(WIRING) <= wiring.AMPACITY_MA[wiring.ROW_JOIN_GAUGE]
    brighter = replace(WIRING, leds_per_cell=6)
    assert any("the joins within a row carry up to 1.44 A; 26 AWG is rated 1 A" in problem
               for problem in wiring.problems(wiring.harness(brighter), brighter))


@pytest.mark.parametrize(
    "change, rows, words",
    [
        (lambda h: h["connectors"].update(R9={"type": "resistor", "pinlabels": ["1", "2"]}), None,
         "R9 is drawn but not in the bill of materials"),
        (None, {"part": "a relay", "kind": "electrical", "in the diagram": "K1"}, "names K1, which the diagram does not draw"),
        (None, {"part": "a relay", "kind": "electrical", "in the diagram": ""}, "names nothing in the diagram"),
        (None, {"part": "feet", "kind": "mechanical", "in the diagram": "U1"}, "is mechanical yet names U1"),
        (None, {"part": "feet", "kind": "decorative", "in the diagram": ""}, "electrical or mechanical"),
        (lambda h: h["connectors"]["R2"].update(subtype="470 Ohm"), None,
         "the bill of materials' 330 ohm resistor 1/4 W is for R2, which the diagram draws as 470 Ohm"),
        (lambda h: h["connectors"]["F2"].update(type="polyfuse 1.1 A hold, 2.2 A trip (Bourns MF-R110)"), None,
         "the bill of materials' PTC resettable fuse 0.2 A hold 0.4 A trip is for F2, which the diagram draws as "
         "polyfuse 1.1 A hold, 2.2 A trip"),
        (lambda h: h["connectors"]["F1"].update(type="blade fuse 10 A, inline holder"), None,
         "is for F1, which the diagram draws as blade fuse 10 A"),
        (None, {"part": "5 V 4 A power supply, centre-negative", "kind": "electrical", "in the diagram": "PSU"},
         "the bill of materials' 5 V 4 A power supply, centre-negative is for PSU, whose plug J1 takes centre-positive "
         "(J1's centre is +5V): say centre-positive"),
        (None, {"part": "5 V 4 A power supply", "kind": "electrical", "in the diagram": "PSU"},
         "the bill of materials' 5 V 4 A power supply is for PSU, whose plug J1 takes centre-positive"),
    ],
)
def test_the_bill_of_materials_rule_catches_its_mistake(change, rows, words):
    harness = _edit(HARNESS, change) if change else HARNESS
    problems = wiring.bom_problems(harness, guide.bom_rows() + ([rows] if rows else []))
    assert any(words in problem for problem in problems), problems


def test_a_pinout_with_grounds_shared_gives_a_harness_that_shares_them():
    """The pinout's rule and the diagram agree: two wires on one ground pin is caught in both."""
    shared = replace(WIRING, grounds={**WIRING.grounds, "new_game": WIRING.grounds["end_turn"]})
    assert any("share ground pin 9" in problem for problem in shared.problems())
    assert "the Pi's header pin 9 takes 2 wires: give each its own pin" in wiring.problems(wiring.harness(shared), shared)


def test_the_cables_between_frame_and_box_are_the_enclosures():
    """The Pico is in the box: the I2C cable (SDA, SCL, 3V3, GND) and the LED cable (feed and data)
    are all that leave the frame, each by a gland params.scad draws, in the rim and in the box."""
    shape = enclosure.read()
    assert set(wiring.FRAME_EXITS) == {"W_led", "W_i2c"}
    assert len({shape[wall] for wall in wiring.FRAME_EXITS.values()}) == len(wiring.FRAME_EXITS)
    assert len(enclosure.glands(shape)) == 2 * len(wiring.FRAME_EXITS) == 4
    i2c = [link for link in wiring.links(HARNESS) if link.wire and link.wire[0] == "W_i2c"]
    assert [(link.a, link.b) for link in i2c] == [(("Pico", pin), (f"MPR121_{chip:02X}", wire)) for pin, wire, chip in
                                                 zip((6, 7, 36, 38), (1, 2, 3, 4), [0x5B] * 4, strict=True)]
    assert ("Pico", 38) in net_of(HARNESS, ("MPR121_5C", 4)) and ("GUARD", 1) in net_of(HARNESS, ("Pico", 38))
    led = {link.b for link in wiring.links(HARNESS) if link.wire and link.wire[0] == "W_led"}
    assert led == {("BUS", 1), ("BUS", 9), ("R2", 1)}  # the feed to the bus, the data on to row 0
    assert "in the box" in HARNESS["connectors"]["Pico"]["notes"]


def test_the_i2c_bus_to_the_frame_is_within_its_limit():
    """The cable from the Pico in the box to the first breakout, measured from params.scad and drawn
    in the harness, is no longer than the piece bought; the bus's capacitance at its most (the
    cable's data sheet figure with a margin) and its pull-ups' rise time are within NXP UM10204 at
    the pinout's clock rate, and problems() says so when they are not: a station farther away."""
    shape = enclosure.read()
    route = enclosure.i2c_route(shape)
    bought = next(row for row in guide.bom_rows() if "W_i2c" in row["in the diagram"].split())
    metres = float(re.search(r"(\d+(?:\.\d+)?) m$", bought["part"]).group(1))
    assert route.cable <= 1000 * metres and HARNESS["cables"]["W_i2c"]["length"] == round(route.cable) / 1000
    assert "LiYY (TP)" in bought["typical part or product"] and "LiYY (TP)" in wiring.I2C_CABLE
    assert wiring.i2c_cable_pf_per_m() == wiring.I2C_CABLE_DATASHEET_PF_PER_M * wiring.I2C_CABLE_MARGIN == 180
    bus = wiring.i2c_bus(HARNESS)
    assert bus.pf == pytest.approx(227.4, abs=0.1) and bus.pullup_ohm == pytest.approx(3333.3, abs=0.1)
    assert bus.rise_ns() == pytest.approx(642, abs=1) and wiring.i2c_mode(WIRING.i2c_hz)[1] == 1000
    assert bus.rise_ns() > wiring.i2c_mode(400_000)[1]  # the check can fail: this cable at Fast-mode
    assert {cable for cable, _, _ in bus.cables} == {"W_i2c", "W_MPR121_5A", "W_MPR121_5C"} and len(bus.devices) == 4
    with pytest.raises(ValueError, match="at most 1000000 Hz"):
        wiring.i2c_mode(3_400_000)


def _far(gap: int) -> list[str]:
    """The I2C rules' words for a station ``gap`` mm behind the frame (its harness drawn with that route)."""
    from unittest import mock

    shape = enclosure.read(overrides={"station_gap": gap})
    with mock.patch.object(enclosure, "read", lambda overrides=None: shape):
        harness = wiring.harness(WIRING)
    return [problem for problem in wiring.problems(harness, WIRING) if "pull-ups" in problem or "pF" in problem]


def test_a_station_too_far_for_the_bus_is_caught_by_the_rules():
    assert _far(360) == []
    assert any("over Standard-mode's 1000 ns" in problem for problem in _far(1200))


def test_the_guard_is_grounded_at_the_breakout_the_i2c_cable_reaches_first():
    """The guide says the guard goes to the first breakout's GND: the diagram ties it to the one the
    cable from the box reaches first (under cell 13, 0x5B), not to the lowest address."""
    first = sorted(WIRING.chips, key=lambda chip: chip.first_electrode)[enclosure.i2c_route(enclosure.read()).chain[0]]
    guard = [link for link in wiring.links(HARNESS) if link.wire and link.wire[0] == "W_guard"]
    assert [(link.a, link.b) for link in guard] == [((f"MPR121_{first.address:02X}", 4), ("GUARD", 1))]
    assert first.address == 0x5B


def test_the_guide_twists_the_i2c_cable_as_the_diagram_colours_it():
    """Issue 51.5: the diagram's colours and the guide's words pair the cores alike, SDA with GND and
    SCL with 3V3, and nowhere SDA with SCL."""
    said = wiring.twists_said(HARNESS, "W_i2c")
    assert said == "SDA (white) with GND (brown), SCL (green) with 3V3 (yellow)"
    guide_text = " ".join((HARDWARE / "README.md").read_text(encoding="utf-8").split())
    assert said in guide_text and "Twist SDA with GND and SCL with 3V3" in guide_text
    assert "SDA with SCL" not in guide_text and "SCL with SDA" not in guide_text
