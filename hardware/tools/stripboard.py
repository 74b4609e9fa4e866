"""The touch board's stripboard: where every part, link, cut and wire end sits, drawn from that
at 1:1 and checked against the wiring diagram's netlist.

The board is 60 x 100 mm of 0.1 in stripboard: tracks T1-T39 run across it, counted from the
front edge (the Pico's USB end), holes H1-H23 along each track from the left (the Pico's side).
``LAYOUT`` places each pin of the parts on the board (the Pico, the 74AHCT125's socket, R1, C1,
C3, the two 2-pin headers) and each wire that ends on it (the I2C cable's cores, the LED cable's
data core, the shifter's supply, the Pi's jumpers) at a hole, and says where the tracks are cut
and where insulated links join two holes. ``problems`` reads the board back as a netlist (each
track's pieces between cuts, the links, and each part's own pins of one name, as the Pico's
grounds are joined inside it) and holds it to the harness's (``wiring.harness``): the board
joins two of its pins exactly when the joins the harness makes on the board do (R1, C1 and C3's
leads, U1's ties to ground, and a wire's end to the pin it is drawn to). So a cut left out, a
link left off or moved, or a part a hole out reports what it joins or parts.

``python -m pi_table.hardware.tools.stripboard`` writes ``hardware/stripboard.svg``, the board
seen from the parts' side at 1:1 (its size in millimetres: print it at 100 %); ``tools/docs.py``
writes it too, and a test holds the committed file to what the layout draws now.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from html import escape
from itertools import combinations

from .. import pinout
from ..pinout import PICO_PINS
from . import HARDWARE, wiring
from .wiring import GROUND, Pin, labels

PITCH = 2.54
"""The holes' pitch, along a track and from track to track (0.1 in)."""
TRACKS, HOLES = 39, 23
LENGTH, WIDTH = 100.0, 60.0
"""The board as cut: 100 mm front to back (across the tracks), 60 mm left to right (along them)."""
CORNER_HOLE = (3.5, 3.4)
"""Each corner's screw hole: its centre this far in from both edges, and its drill (M3)."""
KEEP_OUT = 7.0
"""The square at each corner no part may stand in: the screw's head."""
DRAWING = HARDWARE / "stripboard.svg"

Hole = tuple[int, int]
"""(track, hole), both counted from 1."""
HOLE_MM = 1.0
"""The stripboard's holes: a 1.0 mm drill. A wire's conductor enters one with a tenth of a
millimetre to spare for the solder; a thicker one is soldered to a header pin standing in it
(a 2.54 mm header's 0.64 mm square pin, 0.9 mm across its corners)."""
SPARE_MM = 0.1
BENT_LEADS = frozenset({"R1"})
"""The parts on the board whose leads bend to the span of their holes (an axial resistor stood
on end); every other two-lead part is radial, its leads as far apart as bought (hardware/bom.csv
says how far: "2.54 mm leads")."""
LEADS = re.compile(r"(\d+(?:\.\d+)?) mm leads")


@dataclass(frozen=True, slots=True)
class Place:
    """What sits in one hole: a part's pin, or the end of a wire (``wire``) drawn to ``pin``."""

    hole: Hole
    pin: Pin  # the harness's pin it is, or the one its wire is drawn to
    wire: tuple[str, int] | None = None  # a harness cable's wire ending here
    name: str = ""  # how the drawing labels it, where it labels it
    on_pin: bool = False  # the wire is soldered to a header pin standing in the hole (a core too thick for it)


@dataclass(frozen=True, slots=True)
class Layout:
    """The board: what sits where, the cuts and the links (insulated wires between two holes)."""

    places: tuple[Place, ...]
    cuts: frozenset[Hole]
    links: tuple[tuple[Hole, Hole], ...]
    parts: dict[str, dict] = field(default_factory=dict)  # each part on the board: its pins' labels, for its own joins


def _row(part: str, first_pin: int, track: int, hole: int, count: int, step: int = 1) -> list[Place]:
    """``count`` pins of ``part`` from ``first_pin`` (up or down by ``step``) on tracks from ``track``, in ``hole``."""
    return [Place((track + n, hole), (part, first_pin + step * n)) for n in range(count)]


def layout() -> Layout:
    """The reference board, as the build guide's table gives it."""
    places = [
        *_row("Pico", 1, 13, 2, 20),  # pins 1-20 down the left row, pin 1 at T13 (the USB end)
        *_row("Pico", 40, 13, 9, 20, -1),  # pins 40-21 down the right row
        *_row("U1", 1, 26, 15, 7),  # the socket, notch to the front: pins 1-7 in H15
        *_row("U1", 14, 26, 18, 7, -1),  # pins 14-8 in H18
        Place((27, 14), ("R1", 1)), Place((26, 14), ("R1", 2)),  # R1 standing: 1A to ground
        Place((26, 19), ("C1", 1)), Place((25, 19), ("C1", 2)),  # C1: VCC to ground
        Place((17, 12), ("C3", 1)), Place((15, 12), ("C3", 2)),  # C3: 3V3(OUT) to GND
        Place((24, 10), ("Pico", 29), name=f"{MAINTENANCE_HEADER}: GP22"),  # the cap joins these to update
        Place((25, 10), ("Pico", 28), name=f"{MAINTENANCE_HEADER}: GND"),
        Place((18, 1), ("Pico", 6), ("W_i2c", 1), "I2C cable: SDA"),
        Place((19, 1), ("Pico", 7), ("W_i2c", 2), "I2C cable: SCL"),
        Place((17, 14), ("Pico", 36), ("W_i2c", 3), "I2C cable: 3V3"),
        Place((15, 14), ("Pico", 38), ("W_i2c", 4), "I2C cable: GND"),
        Place((27, 13), ("U1", 2), ("W_pi_data", 1), "Pi pin 19 (data)"),  # the Pi's jumpers, on a 2-pin header
        Place((26, 13), ("U1", 7), ("W_pi_data", 2), "Pi pin 20 (GND)"),
        Place((28, 13), ("U1", 3), ("W_led", 3), "LED cable: data, on a pin", on_pin=True),
        Place((26, 21), ("U1", 14), ("W_shifter_power", 1), "from F2: +5 V"),
        Place((33, 22), ("U1", 7), ("W_shifter_power", 2), "from J1: GND"),
    ]
    cuts = frozenset({(track, 5) for track in range(13, 33)}  # between the Pico's two rows
                     | {(track, 11) for track in range(25, 33)}  # between the Pico and the socket
                     | {(track, 16) for track in range(26, 33)})  # under the socket, between its rows
    links = (
        ((25, 23), (33, 23)),  # the shifter's two ground rails
        ((32, 14), (33, 14)),  # its GND (pin 7) to T33
        ((26, 12), (25, 12)),  # 1OE to ground
        ((29, 12), (33, 12)),  # 2OE
        ((30, 13), (33, 13)),  # 2A
        ((27, 19), (25, 20)),  # 4OE
        ((28, 19), (25, 21)),  # 4A
        ((30, 19), (33, 19)),  # 3OE
        ((31, 20), (33, 20)),  # 3A
    )
    return Layout(tuple(places), cuts, links)


BOARD_CABLES = ("W_R1", "W_C1", "W_C3")
"""The harness's joins the board itself makes: the parts' leads on its tracks. The rest of each
net (the Pico's ground and the shifter's, for one) meets off the board."""


def _parts(harness: dict) -> dict[str, dict[int | str, str]]:
    """Each part on the board, by its pins' labels: the harness's, and the Pico's whole pinout."""
    found = {name: labels(harness["connectors"][name]) for name in ("U1", "R1", "C1", "C3") if name in harness["connectors"]}
    return found | {"Pico": dict(PICO_PINS)}


class _Union:
    def __init__(self) -> None:
        self.parent: dict[object, object] = {}

    def root(self, item: object) -> object:
        while self.parent.setdefault(item, item) != item:
            item = self.parent[item]
        return item

    def join(self, a: object, b: object) -> None:
        self.parent[self.root(a)] = self.root(b)


def _own_joins(union: _Union, parts: dict[str, dict[int | str, str]]) -> None:
    """Each part's pins of one name joined, as inside the part (the Pico's eight grounds)."""
    for name, pins in parts.items():
        by_label: dict[str, list] = defaultdict(list)
        for pin, label in pins.items():
            by_label[label].append((name, pin))
        for same in by_label.values():
            for pin in same[1:]:
                union.join(same[0], pin)


def segment(board: Layout, hole: Hole) -> tuple[int, int]:
    """The piece of track a hole is on: (track, the first hole of its piece)."""
    track, at = hole
    start = max((cut for t, cut in board.cuts if t == track and cut < at), default=0) + 1
    return track, start


def board_joins(board: Layout, harness: dict) -> _Union:
    """The board read back: the pins and wire ends joined by its track pieces, its links and the parts' own pins."""
    union = _Union()
    _own_joins(union, _parts(harness))
    for place in board.places:
        union.join(_item(place), ("track", *segment(board, place.hole)))
    for a, b in board.links:
        union.join(("track", *segment(board, a)), ("track", *segment(board, b)))
    return union


def design_joins(board: Layout, harness: dict) -> _Union:
    """What the board should join: the harness's joins it makes (``BOARD_CABLES``, U1's ties), the
    parts' own pins, and each wire end to the pin its wire is drawn to."""
    union = _Union()
    _own_joins(union, _parts(harness))
    for left, through, right in harness["connections"]:
        (cable, _wires), = through.items()
        if cable in BOARD_CABLES:
            (a_name, a_pins), = left.items()
            (b_name, b_pins), = right.items()
            for a, b in zip(a_pins, b_pins, strict=True):
                union.join((a_name, a), (b_name, b))
    for a, b in harness["connectors"].get("U1", {}).get("loops", []):
        union.join(("U1", a), ("U1", b))
    ends = wire_ends(harness)
    for place in board.places:
        union.join(_item(place), ends.get(place.wire, place.pin) if place.wire else place.pin)
    return union


def wire_ends(harness: dict) -> dict[tuple[str, int], Pin]:
    """Each wire of the harness that ends on a part of the board, and the pin it is drawn to there:
    where the pinout puts it (the I2C cable's cores on the Pico's SDA and SCL pins)."""
    on_board = set(_parts(harness))
    found = {}
    for left, through, right in harness["connections"]:
        (cable, wires), = through.items()
        for (name, pins) in (*left.items(), *right.items()):
            if name in on_board:
                found |= {(cable, wire): (name, pin) for wire, pin in zip(wires, pins, strict=True)}
    return found


MAINTENANCE_HEADER = "maintenance header"
"""How the layout names the two pins the maintenance jumper's cap joins: the Pico's maintenance pin
and a ground beside it."""


def pin_problems(board: Layout, harness: dict) -> list[str]:
    """Each wire's end on the track of the pin the diagram draws it to, and the maintenance header on
    the Pico's maintenance pin (pinout.toml's) and a ground beside it: the layout is drawn by hand,
    the pins are the pinout's."""
    found = []
    ends = wire_ends(harness)
    for place in board.places:
        drawn = ends.get(place.wire) if place.wire else None
        if drawn is not None and drawn != place.pin:
            found.append(f"{_said(place, harness)} ({place.name}) is laid on {_pin_said(harness, place.pin)}'s track; the "
                         f"diagram draws it to {_pin_said(harness, drawn)}, where the pinout puts it: move its end to "
                         f"that pin's track, or the pinout back")
    pico = labels(harness["connectors"].get("Pico", {}))
    wanted = next((pin for pin, label in pico.items() if label.endswith(wiring.MAINTENANCE)), None)
    header = [p for p in board.places if p.name.startswith(MAINTENANCE_HEADER)]
    signal = [p.pin[1] for p in header if p.pin[0] == "Pico" and not _grounded(p.pin[1])]
    grounds = [p.pin[1] for p in header if p.pin[0] == "Pico" and _grounded(p.pin[1])]
    if wanted is not None and signal != [wanted]:
        where = ", ".join(f"{_pin_said(harness, ('Pico', pin))}" for pin in signal) or "no pin of the Pico"
        found.append(f"the maintenance header stands on {where}; pinout.toml puts the maintenance jumper on "
                     f"{pico[wanted].removesuffix(wiring.MAINTENANCE).strip()} (Pico pin {wanted}): move the header to "
                     f"Pico pin {wanted} and a ground beside it, or maintenance_pin back")
    elif wanted is not None and not any(isinstance(pin, int) and isinstance(wanted, int) and abs(pin - wanted) == 1
                                        for pin in grounds):
        found.append(f"the maintenance header's second pin is not a ground beside Pico pin {wanted}: the cap joins "
                     f"two pins side by side")
    return found


def _grounded(pin: int | str) -> bool:
    return isinstance(pin, int) and PICO_PINS.get(pin) == GROUND


def _pin_said(harness: dict, pin: Pin) -> str:
    label = _parts(harness).get(pin[0], {}).get(pin[1], "")
    return f"{pin[0]} pin {pin[1]}{f' ({label})' if label and label != str(pin[1]) else ''}"


def _item(place: Place) -> object:
    return ("wire", *place.wire) if place.wire else place.pin


def _said(place: Place, harness: dict) -> str:
    """A place as a problem names it: "Pico 6 (GP4) at T18 H2", "W_i2c wire 1 at T18 H1"."""
    track, hole = place.hole
    if place.wire:
        return f"{place.wire[0]} wire {place.wire[1]} at T{track} H{hole}"
    name, pin = place.pin
    label = _parts(harness).get(name, {}).get(pin, "")
    return f"{name} {pin}{f' ({label})' if label and label != str(pin) else ''} at T{track} H{hole}"


def conductor_mm(gauge: str) -> float:
    """How thick a stranded (class 5) conductor of ``gauge`` ("0.75 mm2", "26 AWG") is over its
    strands: the solid wire of its copper area, and about 17 % more for the gaps between strands
    (0.75 mm2: about 1.14 mm, where its solid wire is 0.98)."""
    number, unit = gauge.split()
    if unit == "AWG":
        solid = 0.127 * 92 ** ((36 - int(number)) / 39)
    elif unit == "mm2":
        solid = math.sqrt(4 * float(number) / math.pi)
    else:
        raise ValueError(f"wire gauge {gauge!r}: expected N AWG or N mm2")
    return round(1.17 * solid, 2)


def fit_problems(board: Layout, harness: dict, bom: list[dict[str, str]]) -> list[str]:
    """What does not fit where the layout puts it: a wire's conductor thicker than its hole (it
    needs a pin), and a radial part whose leads, as billed, do not span its holes."""
    found = []
    for place in board.places:
        if place.wire and not place.on_pin:
            gauge = harness["cables"][place.wire[0]].get("gauge")
            if gauge and conductor_mm(gauge) > HOLE_MM - SPARE_MM:
                found.append(f"T{place.hole[0]} H{place.hole[1]}: {place.wire[0]} wire {place.wire[1]} ({gauge}, about "
                             f"{conductor_mm(gauge):.2f} mm over its strands) does not enter the board's {HOLE_MM:.1f} mm "
                             f"hole: solder it to a 2.54 mm header pin standing in the hole")
    billed = {name: row["typical part or product"] for row in bom for name in row["in the diagram"].split()}
    for part in sorted({place.pin[0] for place in board.places if not place.wire and not place.name} - {"Pico", "U1"}
                       - BENT_LEADS):
        ends = sorted(place.hole for place in board.places if place.pin[0] == part and not place.wire)
        pitch = LEADS.search(billed.get(part, ""))
        if pitch is None:
            found.append(f"{part}'s row in hardware/bom.csv does not say how far apart its leads are (as \"2.54 mm "
                         f"leads\"): a radial part's leads do not stretch to its holes")
            continue
        span = math.dist(*(centre(hole) for hole in ends))
        if abs(span - float(pitch.group(1))) > 0.05:
            (a, b) = ends
            found.append(f"{part} is billed with {pitch.group(1)} mm leads (hardware/bom.csv) but its holes "
                         f"T{a[0]} H{a[1]} and T{b[0]} H{b[1]} are {span:.2f} mm apart: bill a part whose leads span "
                         f"them, or move a lead")
    return found


def problems(board: Layout, harness: dict, bom: list[dict[str, str]] | None = None) -> list[str]:
    """Every way the board differs from the harness, in words; empty when it is sound: two places
    joined that the design parts (a short), two parted that it joins (an open), a hole holding two
    things or a cut, a place off the board or under a corner's screw, and what does not fit its
    holes (``fit_problems``, against ``bom``: hardware/bom.csv unless given)."""
    from .guide import bom_rows

    found = pin_problems(board, harness) + fit_problems(board, harness, bom_rows() if bom is None else bom)
    held: dict[Hole, list[Place]] = defaultdict(list)
    for place in board.places:
        held[place.hole].append(place)
    for (track, hole), here in sorted(held.items()):
        if len(here) > 1:
            found.append(f"T{track} H{hole} holds {' and '.join(_said(p, harness) for p in here)}: one thing a hole")
    link_ends = [end for link in board.links for end in link]
    for track, hole in sorted(set(held) | set(link_ends)):
        what = ", ".join(_said(p, harness) for p in held.get((track, hole), ())) or "a link's end"
        if not (1 <= track <= TRACKS and 1 <= hole <= HOLES):
            found.append(f"{what}: T{track} H{hole} is off the {TRACKS} x {HOLES} board")
        elif (track, hole) in board.cuts:
            found.append(f"{what}: T{track} H{hole} is a cut, drilled through")
        elif _under_a_screw((track, hole)):
            found.append(f"{what}: T{track} H{hole} is within {KEEP_OUT:g} mm of a corner, under its screw")
    made, wanted = board_joins(board, harness), design_joins(board, harness)
    for a, b in combinations(board.places, 2):
        on_board = made.root(_item(a)) == made.root(_item(b))
        meant = wanted.root(_item(a)) == wanted.root(_item(b))
        if on_board and not meant:
            found.append(f"the board joins {_said(a, harness)} and {_said(b, harness)}, which the design keeps apart "
                         f"on it: a cut or a link is wrong")
        elif meant and not on_board:
            found.append(f"the board does not join {_said(a, harness)} and {_said(b, harness)}, which the design "
                         f"joins on it: a link is missing, or a cut too many")
    return found


def centre(hole: Hole) -> tuple[float, float]:
    """Where a hole is, in mm from the board's left edge (x) and its front edge (y)."""
    track, at = hole
    return (WIDTH - HOLES * PITCH) / 2 + (at - 0.5) * PITCH, (LENGTH - TRACKS * PITCH) / 2 + (track - 0.5) * PITCH


def _under_a_screw(hole: Hole) -> bool:
    x, y = centre(hole)
    return min(x, WIDTH - x) < KEEP_OUT and min(y, LENGTH - y) < KEEP_OUT


# --- the drawing

COPPER, CUT, LINK, PART, TEXT, WIRE = "#d9a066", "#c0392b", "#1f5fa8", "#333333", "#111111", "#2e8b57"


def svg(board: Layout, harness: dict) -> str:
    """The board from the parts' side at 1:1: its size in mm, the tracks as the copper shows through,
    the cuts as red crosses, the links in blue, the parts' outlines, each wire's end in green
    with its name, the corner screws, and the tracks' and holes' numbers round the edge."""
    margin = 14.0
    width, height = WIDTH + 2 * margin + 40, LENGTH + 2 * margin
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}mm" height="{height:g}mm" '
           f'viewBox="{-margin:g} {-margin:g} {width:g} {height:g}" font-family="sans-serif">',
           "<title>The touch board's stripboard from the parts' side, at 1:1 (print at 100 %)</title>",
           f'<rect x="0" y="0" width="{WIDTH:g}" height="{LENGTH:g}" fill="#f4efe4" stroke="{PART}" stroke-width="0.3"/>']
    for track in range(1, TRACKS + 1):
        x0, y = centre((track, 1))
        x1, _ = centre((track, HOLES))
        out.append(f'<line x1="{x0 - 1:.2f}" y1="{y:.2f}" x2="{x1 + 1:.2f}" y2="{y:.2f}" stroke="{COPPER}" '
                   f'stroke-width="1.9" opacity="0.45"/>')
        out.append(f'<text x="-1.5" y="{y + 0.6:.2f}" font-size="1.6" text-anchor="end" fill="{TEXT}">T{track}</text>')
        for hole in range(1, HOLES + 1):
            cx, cy = centre((track, hole))
            out.append(f'<circle cx="{cx:.2f}" cy="{cy:.2f}" r="0.5" fill="#ffffff" stroke="{COPPER}" stroke-width="0.15"/>')
    for hole in range(1, HOLES + 1):
        x, _ = centre((1, hole))
        out.append(f'<text x="{x:.2f}" y="-1.5" font-size="1.6" text-anchor="middle" fill="{TEXT}">H{hole}</text>')
    for corner_x in (CORNER_HOLE[0], WIDTH - CORNER_HOLE[0]):
        for corner_y in (CORNER_HOLE[0], LENGTH - CORNER_HOLE[0]):
            out.append(f'<circle cx="{corner_x:g}" cy="{corner_y:g}" r="{CORNER_HOLE[1] / 2:g}" fill="#ffffff" '
                       f'stroke="{PART}" stroke-width="0.3"/>')
    out += _outline(board, "Pico", "Raspberry Pi Pico (USB to the front)")
    out += _outline(board, "U1", "U1 74AHCT125 (notch to the front)")
    for part in ("R1", "C1", "C3"):
        ends = [centre(p.hole) for p in board.places if p.pin[0] == part and not p.wire]
        if len(ends) == 2:
            (ax, ay), (bx, by) = ends
            out.append(f'<line x1="{ax:.2f}" y1="{ay:.2f}" x2="{bx:.2f}" y2="{by:.2f}" stroke="{PART}" stroke-width="1.2"/>')
            out.append(f'<text x="{(ax + bx) / 2 + 1.2:.2f}" y="{(ay + by) / 2 + 0.6:.2f}" font-size="1.8" '
                       f'fill="{TEXT}">{part}</text>')
    for a, b in board.links:
        (ax, ay), (bx, by) = centre(a), centre(b)
        out.append(f'<line x1="{ax:.2f}" y1="{ay:.2f}" x2="{bx:.2f}" y2="{by:.2f}" stroke="{LINK}" stroke-width="0.6" '
                   f'stroke-linecap="round"/>')
    for track, hole in sorted(board.cuts):
        cx, cy = centre((track, hole))
        out.append(f'<path d="M{cx - 0.9:.2f},{cy - 0.9:.2f} L{cx + 0.9:.2f},{cy + 0.9:.2f} M{cx - 0.9:.2f},{cy + 0.9:.2f} '
                   f'L{cx + 0.9:.2f},{cy - 0.9:.2f}" stroke="{CUT}" stroke-width="0.45"/>')
    labelled = [p for p in board.places if p.name]
    for number, place in enumerate(sorted(labelled, key=lambda p: p.hole)):
        cx, cy = centre(place.hole)
        colour = WIRE if place.wire else PART
        label_y = 8 + number * 4.6
        out.append(f'<circle cx="{cx:.2f}" cy="{cy:.2f}" r="0.8" fill="{colour}"/>')
        out.append(f'<polyline points="{cx:.2f},{cy:.2f} {WIDTH + 2:g},{label_y:.2f} {WIDTH + 4:g},{label_y:.2f}" '
                   f'fill="none" stroke="{colour}" stroke-width="0.2"/>')
        out.append(f'<text x="{WIDTH + 4.5:g}" y="{label_y + 0.6:.2f}" font-size="1.9" fill="{colour}">'
                   f'{escape(place.name)} (T{place.hole[0]} H{place.hole[1]})</text>')
    out.append(f'<text x="0" y="{LENGTH + 5:g}" font-size="1.8" fill="{TEXT}">Seen from the parts\' side: the copper side '
               f'is its mirror image. Red crosses: cut tracks. Blue: insulated links.</text>')
    out.append(f'<text x="0" y="{LENGTH + 8:g}" font-size="1.8" fill="{TEXT}">Printed at 100 %, the board measures '
               f'{WIDTH:g} x {LENGTH:g} mm: lay the cut board on it to check.</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _outline(board: Layout, part: str, title: str) -> list[str]:
    """A part's outline round its pins' holes, with its name."""
    holes = [centre(p.hole) for p in board.places if p.pin[0] == part and not p.wire and not p.name]
    xs, ys = [x for x, _ in holes], [y for _, y in holes]
    x0, x1, y0, y1 = min(xs) - 1.6, max(xs) + 1.6, min(ys) - 1.6, max(ys) + 1.6
    return [f'<rect x="{x0:.2f}" y="{y0:.2f}" width="{x1 - x0:.2f}" height="{y1 - y0:.2f}" fill="none" '
            f'stroke="{PART}" stroke-width="0.4" stroke-dasharray="1,0.6"/>',
            f'<text x="{x0:.2f}" y="{y0 - 0.8:.2f}" font-size="1.9" fill="{TEXT}">{escape(title)}</text>']


def drawing() -> str:
    """The reference board's drawing, as hardware/stripboard.svg holds it."""
    return svg(layout(), wiring.harness(pinout.load()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pi_table.hardware.tools.stripboard",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; print the board's problems")
    args = parser.parse_args(argv)
    found = problems(layout(), wiring.harness(pinout.load()))
    for problem in found:
        print(problem, file=sys.stderr)
    if not args.check and not found:
        DRAWING.write_text(drawing(), encoding="utf-8")
        print(f"wrote {DRAWING}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
