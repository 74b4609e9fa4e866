"""Each step's wiring sheet: one A4 page a step, drawn from the netlist (``wiring.harness``) and the
stripboard's layout, of the parts the step wires as the maker holds them (the stripboard from above
with the Pico, U1 and its headers where the layout puts them, the Pi's header and the Pico by their
pins' numbers, each breakout with its pins and pads), every wire of the step in its colour and
labelled at both ends with its pin's name, at 8 pt or more.

``STEPS`` (hardware/tools/steps.py) names the cables each step wires; ``drawing(number)`` draws
its sheet, hardware/steps/step-N.svg, which tools/docs.py writes and holds to what the netlist gives
now. ``problems`` reads a sheet back as it prints and holds it to the netlist: a wire of the step
missing from it or drawn to another pin, a label under 8 pt on the page or over another, a page
larger than A4;
``python -m pi_table.hardware.tools.check`` runs it with the build's other rules.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from .. import pinout
from ..pinout import PICO_PINS, Pinout
from . import stripboard, wiring
from .steps import SHEETS, STEPS, Step
from .wiring import Link, Pin, labels

A4_MM = (210.0, 297.0)
LEAST_PT = 8.0
"""The smallest label a sheet may print, on A4."""
MM_PER_PT = 25.4 / 72
LABEL = 3.0
"""The labels' size on the page, in mm: 8.5 pt."""
TITLE = 5.0
COLOURS = {"RD": "#d62d20", "BK": "#222222", "WH": "#ffffff", "GN": "#2ca02c", "YE": "#f2c200", "BU": "#1f5fbf",
           "BN": "#8b5a2b", "GY": "#8c8c8c", "PK": "#f08cb4", "GNYE": "#9acd32"}
"""Each core colour the harness names (IEC 60757's codes), as the sheets draw it."""
COLOUR_WORDS = wiring.COLOUR_WORDS | {"RD": "red", "BK": "black", "BU": "blue", "GNYE": "green-yellow"}
BOARD_PARTS = ("Pico", "U1")
"""The parts on the stripboard a wire ends on: its end is in a hole of the pin's track."""
BOARD_CABLES = stripboard.BOARD_CABLES
"""The netlist's joins the stripboard's tracks make (R1, C1 and C3's leads): drawn on it, not as wires."""


def sheet_path(number: int) -> Path:
    return SHEETS / f"step-{number}.svg"


def step_wires(step: Step, harness: dict) -> list[Link]:
    """The netlist's wires a step puts in: every wire of the cables it names."""
    return [link for link in wiring.links(harness)
            if link.wire is not None and link.wire[0].startswith(step.cables) and link.wire[0] not in BOARD_CABLES]


def pin_name(harness: dict, pin: Pin) -> str:
    """A pin as its label says it: "GP4 (pin 6)" on a part with numbered pins, "SDA" on a breakout,
    "USB-A D+" for a port."""
    name, number = pin
    label = labels(harness["connectors"][name]).get(number, str(number))
    if isinstance(number, str):
        return number
    if name in ("Pi", "Pico", "U1"):
        return f"{label.removesuffix(wiring.MAINTENANCE).strip()} (pin {number})"
    return label


def wire_said(harness: dict, link: Link) -> str:
    assert link.wire is not None
    cable, core = link.wire
    colour = harness["cables"][cable]["colors"][core - 1]
    return (f"{cable} wire {core} ({COLOUR_WORDS.get(colour, colour)}, {link.a[0]} {pin_name(harness, link.a)} to "
            f"{link.b[0]} {pin_name(harness, link.b)})")


def unwired_problems(harness: dict) -> list[str]:
    """Every cable of the netlist is put in by a step (or is the stripboard's own tracks)."""
    found = []
    for cable in harness["cables"]:
        if cable not in BOARD_CABLES and not any(cable.startswith(step.cables) for step in STEPS):
            found.append(f"{cable} is wired by no step: name it in its step's cables (hardware/tools/steps.py), "
                         "so its wiring sheet draws it")
    return found


# --- the rules a sheet is held to, read from the SVG as it prints

LENGTH = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*mm\s*$")


def _pin_key(pin: Pin) -> str:
    return f"{pin[0]} {pin[1]}"


def _width(words: str, size: float = LABEL) -> float:
    """About how long a label prints (a sans-serif's letters average some 0.56 of its size)."""
    return 0.56 * size * len(words)


def _extent(element: ET.Element, words: str) -> tuple[str, float, float, float, float]:
    """About where a text prints: its words, left, top, right and baseline (in the sheet's units)."""
    size, x, y = (float(element.get(name) or 0) for name in ("font-size", "x", "y"))
    width = _width(words, size)
    left = {"end": x - width, "middle": x - width / 2}.get(element.get("text-anchor", "start"), x)
    return words, left, y - 0.72 * size, left + width, y


def _overlaps(printed: list[tuple[str, float, float, float, float]]) -> list[tuple[str, str]]:
    """The texts that print over one another (one pin's two wires' like labels, in one place, are one)."""
    found = []
    for n, (words, left, top, right, base) in enumerate(printed):
        for other, left_, top_, right_, base_ in printed[n + 1:]:
            alike = words == other and abs(left - left_) < 0.01 and abs(base - base_) < 0.01
            if not alike and left < right_ and left_ < right and top < base_ and top_ < base:
                found.append((words, other))
    return found


def problems(number: int, text: str | None, harness: dict, where: str = "") -> list[str]:
    """What keeps step ``number``'s sheet (the SVG ``text``, None where there is none) from printing
    every wire of the step, labelled at both ends, on one A4 page at 8 pt or more, no label over
    another."""
    step = STEPS[number - 1]
    wanted = step_wires(step, harness)
    where = where or f"hardware/steps/step-{number}.svg"
    fix = "draw the sheets again (python tools/docs.py, or ./dev docs)"
    if text is None:
        return [f"step {number} ({step.title}) has no wiring sheet ({where}) for its {len(wanted)} wires, "
                f"{wire_said(harness, wanted[0])} the first: {fix}"] if wanted else []
    root = ET.fromstring(text)
    ns = "{http://www.w3.org/2000/svg}"
    found = []
    width, height = (LENGTH.match(root.get(side, "")) for side in ("width", "height"))
    if width is None or height is None:
        return [f"step {number}'s sheet ({where}) gives its page no size in mm: {fix}"]
    page = float(width[1]), float(height[1])
    small, large = sorted(page)
    if small > min(A4_MM) or large > max(A4_MM):
        found.append(f"step {number}'s sheet ({where}) is {page[0]:g} x {page[1]:g} mm, larger than A4 "
                     f"({A4_MM[0]:g} x {A4_MM[1]:g} mm): {fix}")
    box = [float(value) for value in root.get("viewBox", "").replace(",", " ").split()]
    scale = page[0] / box[2] if len(box) == 4 and box[2] else 1.0  # mm on the page per unit drawn
    drawn: dict[str, tuple[str, ...]] = {}
    ends: dict[str, dict[str, str]] = {}
    printed: list[tuple[str, float, float, float, float]] = []  # each text and about where it prints
    for element in root.iter():
        if element.get("class") == "wire" and element.get("data-wire"):
            drawn[element.get("data-wire", "")] = tuple(element.get("data-ends", "").split(" | "))
        if element.tag == f"{ns}text":
            words = "".join(element.itertext())
            size = element.get("font-size")
            pt = float(size) * scale / MM_PER_PT if size else 0.0
            if pt < LEAST_PT:
                found.append(f"step {number}'s sheet ({where}) prints {words!r} at {pt:.1f} pt on A4, under "
                             f"{LEAST_PT:g} pt: {fix} (its labels are drawn at {LABEL / MM_PER_PT:.1f} pt)")
            if element.get("class") == "end":
                ends.setdefault(element.get("data-wire", ""), {})[element.get("data-pin", "")] = words
            printed.append(_extent(element, words))
    found += [f"step {number}'s sheet ({where}) prints {a!r} over {b!r}: {fix}" for a, b in _overlaps(printed)]
    for link in wanted:
        assert link.wire is not None
        key = f"{link.wire[0]} {link.wire[1]}"
        pins = {_pin_key(link.a), _pin_key(link.b)}
        if key not in drawn:
            found.append(f"step {number}'s sheet ({where}) does not draw {wire_said(harness, link)}: {fix}")
        elif set(drawn[key]) != pins:
            found.append(f"step {number}'s sheet ({where}) draws {link.wire[0]} wire {link.wire[1]} from "
                         f"{' to '.join(drawn[key])}; the netlist joins {_pin_key(link.a)} to {_pin_key(link.b)}: {fix}")
        else:
            said = ends.get(key, {})
            for pin in (link.a, link.b):
                if pin_name(harness, pin).split(" (")[0] not in said.get(_pin_key(pin), ""):
                    found.append(f"step {number}'s sheet ({where}) draws {link.wire[0]} wire {link.wire[1]} with no "
                                 f"label naming {pin[0]} {pin_name(harness, pin)} at its end: {fix}")
    return found


# --- the drawing: each part a block with its pins where the maker finds them, each wire from pin to pin

STUB = 2.0
"""How far a wire leaves its pin before its label."""
PITCH = 4.0
"""The pins' pitch on the sheets' parts (the Pi's header and the Pico drawn at 1.6 times their size)."""
INK, FAINT, PAPER = "#222222", "#8c8c8c", "#ffffff"


@dataclass(frozen=True, slots=True)
class End:
    """Where a wire ends on the sheet: its pin at (x, y), leaving to the left (side -1) or the right
    (+1) first to ``edge`` (the part's edge), its label beyond on the line ``row`` (the pin's own,
    or a free line beside the board, reached on a slant)."""

    x: float
    y: float
    side: int
    edge: float
    row: float

    def way(self) -> list[tuple[float, float]]:
        """From the pin to where its label starts."""
        return [(self.x, self.y)] + ([(self.edge - self.side * STUB, self.y)] if self.row != self.y else []) \
            + [(self.edge, self.row)]


@dataclass
class Sheet:
    """A sheet being drawn: its page (mm), the marks of its parts, and where each pin (or each
    board wire's end, by its wire) is."""

    title: str
    width: float
    height: float
    wired: set[object] = field(default_factory=set)  # the pins (and board wires) the sheet's wires end on
    marks: list[str] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)  # the parts' names, drawn over the wires
    ends: dict[object, End] = field(default_factory=dict)
    named: dict[object, str] = field(default_factory=dict)  # an end's label where not its pin's name alone

    def text(self, x: float, y: float, words: str, size: float = LABEL, anchor: str = "start", colour: str = INK,
             weight: str = "normal") -> None:
        self.marks.append(f'<text x="{x:.2f}" y="{y:.2f}" font-size="{size:g}" text-anchor="{anchor}" '
                          f'font-weight="{weight}" fill="{colour}">{escape(words)}</text>')

    def box(self, x: float, y: float, width: float, height: float, title: str, fill: str = "#f2f2f2") -> None:
        """A part's outline, its name above it."""
        self.marks.append(f'<rect x="{x:.2f}" y="{y:.2f}" width="{width:.2f}" height="{height:.2f}" rx="1.5" '
                          f'fill="{fill}" stroke="{INK}" stroke-width="0.35"/>')
        self.titles.append(f'<text x="{x:.2f}" y="{y - 1.2:.2f}" font-size="{LABEL:g}" font-weight="bold" fill="{INK}" '
                           f'stroke="{PAPER}" stroke-width="0.7" paint-order="stroke">{escape(title)}</text>')

    def pin(self, key: object, x: float, y: float, side: int, name: str = "") -> None:
        """A pin (its dot, and its name inside the part where ``name`` is given and no wire of the
        sheet labels it) that a wire may end on."""
        self.marks.append(f'<circle cx="{x:.2f}" cy="{y:.2f}" r="0.7" fill="{INK}"/>')
        if name and key not in self.wired:
            self.text(x - side * 1.6, y + LABEL * 0.35, name, anchor="end" if side > 0 else "start", colour=FAINT)
        self.ends[key] = End(x, y, side, x, y)


def column(sheet: Sheet, harness: dict, part: str, pins: Iterable[int | str], x: float, y: float, side: int,
           title: str, width: float = 22.0, pitch: float = PITCH, names: bool = True) -> float:
    """A part drawn as a box with its pins down one edge (``side`` the edge wires leave by), in the
    netlist's order; the y below it."""
    pins = list(pins)
    height = pitch * (len(pins) + 0.5)
    left = x if side < 0 else x - width
    sheet.box(left, y, width, height, title)
    for n, pin in enumerate(pins):
        sheet.pin((part, pin), x, y + pitch * (n + 0.75), side,
                  name=pin_name(harness, (part, pin)) if names else "")
    return y + height


def pi_header(sheet: Sheet, harness: dict, x: float, y: float) -> None:
    """The Pi's 40-pin header from above, the Pi turned so the header runs down its right-hand edge
    (its USB ports at the bottom): pin 1 at the top left, odd pins in the inner row, even in the
    outer, each pin where its number puts it."""
    wired = labels(harness["connectors"]["Pi"])
    sheet.box(x - 3, y - 2.5, PITCH + 6, PITCH * 20 + 1, "Pi: 40-pin header")
    for number in range(1, 41):
        px, py = x + (number + 1) % 2 * PITCH, y + (number - 1) // 2 * PITCH
        if number in wired:
            sheet.pin(("Pi", number), px, py, 1 if number % 2 == 0 else -1)
        else:
            sheet.marks.append(f'<circle cx="{px:.2f}" cy="{py:.2f}" r="0.6" fill="none" stroke="{FAINT}" '
                               'stroke-width="0.3"/>')
    sheet.text(x - 3.5, y + LABEL * 0.35 - PITCH, "pin 1", anchor="end", colour=FAINT)


def pico(sheet: Sheet, harness: dict, x: float, y: float) -> None:
    """The Pico from above, its USB port at the top: pins 1-20 down the left row, 21-40 up the right,
    as its datasheet numbers them, so each GP name of the pinout lands on its pin; its USB port above."""
    wired = labels(harness["connectors"]["Pico"])
    sheet.box(x - 3, y - 2.5, PITCH + 14, PITCH * 20 + 1, "Pico (USB to the top)")
    for number in PICO_PINS:
        left = number <= 20
        px, py = x + (0 if left else PITCH + 8), y + ((number - 1) if left else (40 - number)) * PITCH
        if ("Pico", number) in sheet.wired and number in wired:
            sheet.pin(("Pico", number), px, py, -1 if left else 1)
        else:
            sheet.marks.append(f'<circle cx="{px:.2f}" cy="{py:.2f}" r="0.6" fill="none" stroke="{FAINT}" '
                               'stroke-width="0.3"/>')
    ports = [pin for pin in wired if isinstance(pin, str)]
    column(sheet, harness, "Pico", ports, x + PITCH + 15, y - 10 - PITCH * len(ports), 1, "Pico USB", width=20,
           names=False)


def breakout(sheet: Sheet, harness: dict, part: str, x: float, y: float, pitch: float = PITCH) -> float:
    """An MPR121 breakout: its bus pins and ADDR down the left edge, its electrodes E0-E11 down the
    right, in the netlist's order; its address strap said under its name. The y below it."""
    pins = labels(harness["connectors"][part])
    bus = [pin for pin, label in pins.items() if not label.startswith("E")]
    pads = [pin for pin, label in pins.items() if label.startswith("E")]
    height = pitch * (len(pads) + 0.5)
    chip = harness["connectors"][part]
    sheet.box(x, y, 24, height, f"{part}: {chip['notes'].split(';')[1].strip()}")
    for n, pin in enumerate(bus):
        sheet.pin((part, pin), x, y + pitch * (n + 0.75), -1, name=pins[pin])
    for n, pin in enumerate(pads):
        sheet.pin((part, pin), x + 24, y + pitch * (n + 0.75), 1, name=pins[pin])
    return y + height


def board(sheet: Sheet, harness: dict, x: float, y: float, scale: float) -> None:
    """The stripboard from the parts' side as the layout places it (hardware/tools/stripboard.py),
    its front edge (the Pico's USB end) at the top: its tracks, the Pico's and U1's outlines, R1, C1
    and C3 on their holes, the links, the maintenance header; each wire's end in its hole."""
    layout = stripboard.layout()

    def at(hole: tuple[int, int]) -> tuple[float, float]:
        cx, cy = stripboard.centre(hole)
        return x + cx * scale, y + cy * scale

    width, length = stripboard.WIDTH * scale, stripboard.LENGTH * scale
    sheet.box(x, y, width, length, "Stripboard (parts' side, tracks across)", fill="#f4efe4")
    for track in range(1, stripboard.TRACKS + 1):
        (x0, ty), (x1, _) = at((track, 1)), at((track, stripboard.HOLES))
        sheet.marks.append(f'<line x1="{x0:.2f}" y1="{ty:.2f}" x2="{x1:.2f}" y2="{ty:.2f}" stroke="#d9a066" '
                           f'stroke-width="{1.6 * scale:.2f}" opacity="0.45"/>')
    for part, title in (("Pico", "Pico"), ("U1", "U1")):
        holes = [at(p.hole) for p in layout.places if p.pin[0] == part and not p.wire and not p.name]
        xs, ys = [hx for hx, _ in holes], [hy for _, hy in holes]
        sheet.marks.append(f'<rect x="{min(xs) - 2:.2f}" y="{min(ys) - 2:.2f}" width="{max(xs) - min(xs) + 4:.2f}" '
                           f'height="{max(ys) - min(ys) + 4:.2f}" fill="#ffffff" fill-opacity="0.6" stroke="{INK}" '
                           'stroke-width="0.4"/>')
        sheet.text((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2, title, anchor="middle", weight="bold")
        for hx, hy in holes:
            sheet.marks.append(f'<circle cx="{hx:.2f}" cy="{hy:.2f}" r="0.55" fill="{FAINT}"/>')
    for part in ("R1", "C1", "C3"):
        leads = [at(p.hole) for p in layout.places if p.pin[0] == part and not p.wire]
        (ax, ay), (bx, by) = leads
        sheet.marks.append(f'<line x1="{ax:.2f}" y1="{ay:.2f}" x2="{bx:.2f}" y2="{by:.2f}" stroke="{INK}" '
                           'stroke-width="1.4"/>')
        sheet.text(max(ax, bx) + 1.2, (ay + by) / 2 + LABEL * 0.35, part, weight="bold")
    for a, b in layout.links:
        (ax, ay), (bx, by) = at(a), at(b)
        sheet.marks.append(f'<line x1="{ax:.2f}" y1="{ay:.2f}" x2="{bx:.2f}" y2="{by:.2f}" stroke="#1f5fa8" '
                           'stroke-width="0.6" stroke-linecap="round"/>')
    header = [at(p.hole) for p in layout.places if p.name.startswith(stripboard.MAINTENANCE_HEADER)]
    for hx, hy in header:
        sheet.marks.append(f'<rect x="{hx - 1:.2f}" y="{hy - 1:.2f}" width="2" height="2" fill="{INK}"/>')
    if header:
        sheet.text(max(hx for hx, _ in header) + 1.8, header[0][1] + LABEL * 0.35, "maintenance jumper")
    middle = x + width / 2
    ends = sorted((place for place in layout.places if place.wire), key=lambda place: place.hole)
    free = {-1: 0.0, 1: 0.0}  # the next free label line on each side
    for place in ends:
        hx, hy = at(place.hole)
        side = -1 if hx < middle else 1
        row = max(hy, free[side])
        free[side] = row + LABEL * 1.2
        sheet.pin(place.wire, hx, hy, side)
        sheet.ends[place.wire] = End(hx, hy, side, (x - STUB if side < 0 else x + width + STUB) + side * 2 * STUB, row)
        sheet.named[place.wire] = f"{pin_name(harness, place.pin)}, T{place.hole[0]} H{place.hole[1]}"


def away(sheet: Sheet, harness: dict, wires: list[Link], x: float, y: float, side: int, title: str) -> None:
    """The far ends of the wires that leave the sheet's parts (to a part another step puts in), as
    one column: each pin by its part and name."""
    missing: list[Pin] = []
    for link in wires:
        for pin in (link.a, link.b):
            on_board = pin[0] in BOARD_PARTS and link.wire in sheet.ends
            if not on_board and pin not in sheet.ends and pin not in missing:
                missing.append(pin)
    if not missing:
        return
    height = PITCH * (len(missing) + 0.5)
    sheet.box(x if side < 0 else x - 10, y, 10, height, title, fill="#ffffff")
    for n, pin in enumerate(missing):
        sheet.pin(pin, x, y + PITCH * (n + 0.75), side)
        sheet.named[pin] = f"{pin[0]} {pin_name(harness, pin)}"


def _wire(sheet: Sheet, harness: dict, link: Link, lane: float) -> tuple[str, list[str]]:
    """A wire's line (over its dark outline, so a white core shows) and its two end labels: out of
    each pin past its label, then across at its own ``lane`` (mm aside) so no two wires' runs lie
    on one another."""
    assert link.wire is not None
    cable, core = link.wire
    colour = harness["cables"][cable]["colors"][core - 1]
    key = f"{cable} {core}"
    ways, texts = [], []
    for pin, other in ((link.a, link.b), (link.b, link.a)):
        end = sheet.ends[link.wire] if pin[0] in BOARD_PARTS and link.wire in sheet.ends else sheet.ends[pin]
        words = sheet.named.get(link.wire if end is sheet.ends.get(link.wire) else pin) or pin_name(harness, pin)
        if list(labels(harness["connectors"][pin[0]]).values()).count(words) > 1:  # one of many alike: say whither
            words = f"{words} to {other[0]}"
        ways.append((end, end.edge + end.side * (_width(words) + 2 * STUB)))
        texts.append(f'<text class="end" data-wire="{key}" data-pin="{_pin_key(pin)}" x="{end.edge + end.side * STUB:.2f}" '
                     f'y="{end.row - 0.9:.2f}" font-size="{LABEL:g}" text-anchor="{"start" if end.side > 0 else "end"}" '
                     f'fill="{INK}" stroke="{PAPER}" stroke-width="0.7" paint-order="stroke">{escape(words)}</text>')
    (a, reach_a), (b, reach_b) = ways
    if a.side == b.side:  # both leave one way: turn beyond the further label
        across = (min if a.side < 0 else max)(reach_a, reach_b) + a.side * (STUB + abs(lane))
    else:  # between the two labels where there is room, else at the end of the first
        low, high = sorted((reach_a, reach_b))
        facing = (reach_b - reach_a) * a.side > 0
        across = min(max((reach_a + reach_b) / 2 + lane, low), high) if facing else reach_a
    points = [*a.way(), (across, a.row), (across, b.row), *b.way()[::-1]]
    line = " ".join(f"{px:.2f},{py:.2f}" for px, py in points)
    ends = f"{_pin_key(link.a)} | {_pin_key(link.b)}"
    drawn = (f'<polyline class="wire" data-wire="{key}" data-ends="{ends}" points="{line}" fill="none" '
             f'stroke="{INK}" stroke-width="1.2" stroke-linejoin="round"/>\n'
             f'<polyline points="{line}" fill="none" stroke="{COLOURS.get(colour, FAINT)}" stroke-width="0.75" '
             'stroke-linejoin="round"/>')
    return drawn, texts


def _render(sheet: Sheet, harness: dict, wires: list[Link], notes: list[str]) -> str:
    lines, texts = [], []
    for number, link in enumerate(wires):
        drawn, labels_ = _wire(sheet, harness, link, 1.4 * (number % 7 - 3))
        lines.append(drawn)
        texts += labels_
    head = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{sheet.width:g}mm" height="{sheet.height:g}mm" '
            f'viewBox="0 0 {sheet.width:g} {sheet.height:g}" font-family="sans-serif">',
            f"<title>{escape(sheet.title)}</title>",
            f'<rect x="0" y="0" width="{sheet.width:g}" height="{sheet.height:g}" fill="{PAPER}"/>']
    foot = [f'<text x="8" y="12" font-size="{TITLE:g}" font-weight="bold" fill="{INK}">{escape(sheet.title)}</text>']
    foot += [f'<text x="8" y="{sheet.height - 6 - LABEL * 1.3 * (len(notes) - 1 - n):.2f}" font-size="{LABEL:g}" '
             f'fill="{INK}">{escape(note)}</text>' for n, note in enumerate(notes)]
    return "\n".join(head + sheet.marks + lines + sheet.titles + texts + foot + ["</svg>"]) + "\n"


# --- the seven steps' sheets: where each part lies on the page (its pins placed by the part's own drawing)

LANDSCAPE, PORTRAIT = (297.0, 210.0), (210.0, 297.0)


def _chain(harness: dict) -> list[str]:
    """The breakouts in the order the I2C bus reaches them (the harness's connections)."""
    return [name for _left, _cable, right in harness["connections"] for name in right if name.startswith("MPR121_")]


def _bench(sheet: Sheet, harness: dict, wires: list[Link]) -> list[str]:
    pico(sheet, harness, 70, 62)
    y = 26.0
    for part in _chain(harness):
        y = breakout(sheet, harness, part, 200, y, pitch=3.6) + 12
    away(sheet, harness, wires, 152, 92, -1, "Pi (or a computer)")
    return ["On the bench: a female-female jumper a wire, drawn in the colours of the I2C cable's and the bus's "
            "cores that replace them in step 4. Each breakout's strap is beside its name.", "Run python -m pi_table.hardware.tools.bench once all four wires of a breakout "
            "are on."]


def _leds(sheet: Sheet, harness: dict, wires: list[Link]) -> list[str]:
    column(sheet, harness, "BUS", list(labels(harness["connectors"]["BUS"])), 70, 30, 1, "BUS (cell 20)", width=24)
    column(sheet, harness, "C2", [1, 2], 70, 112, 1, "C2 1000 uF", width=24)
    column(sheet, harness, "R2", [1, 2], 70, 134, 1, "R2 330 Ohm", width=24)
    pieces = wiring.rows()
    for number, piece in enumerate(pieces):
        edge = piece == "EDGE"
        top = 30 + (len(pieces) - 2 - number) * 26 if not edge else 30 + (len(pieces) - 1) * 26
        left_start = number % 2 == 0 and not edge
        x0, x1 = 165.0, 265.0
        notes = harness["connectors"][piece]["notes"]
        sheet.box(x0, top, x1 - x0, 14, f"{piece}: {notes}")
        for n, pin in enumerate((1, 2, 3)):
            sheet.pin((piece, pin), x0 if left_start else x1, top + 3 + n * PITCH, -1 if left_start else 1)
        if not edge:
            sheet.pin((piece, 4), x1 if left_start else x0, top + 3, 1 if left_start else -1)
    away(sheet, harness, wires, 44, 160, 1, "In the box (step 5)")
    return ["The frame from above, the operatives' side at the bottom: the rows serpentine from cell 0; each takes "
            "its power from the bus at its start, its data from the row before."]


def _pads(sheet: Sheet, harness: dict, wires: list[Link]) -> list[str]:
    y = 48.0
    column(sheet, harness, "GUARD", [1], 34, 104, 1, "GUARD foil", width=24)
    for part in _chain(harness):
        pads = f"PADS_{part.removeprefix('MPR121_')}"
        bottom = breakout(sheet, harness, part, 72, y)
        if pads in harness["connectors"]:
            column(sheet, harness, pads, list(labels(harness["connectors"][pads])), 160, y, -1, f"{pads}: copper pads",
                   width=26, names=False)
        y = bottom + 22
    away(sheet, harness, wires, 30, 22, 1, "From the box (step 5)")
    return ["Each breakout under its cell amid its pads, its bus chained on from the one before."]


def _box(sheet: Sheet, harness: dict, wires: list[Link]) -> list[str]:
    board(sheet, harness, 72, 38, 1.2)
    pico_usb = [pin for pin in labels(harness["connectors"]["Pico"]) if isinstance(pin, str)]
    column(sheet, harness, "Pico", pico_usb, 152, 18, 1, "Pico USB", width=20)
    ports = [pin for pin in labels(harness["connectors"]["Pi"]) if isinstance(pin, str) and not pin.startswith("USB-C")]
    column(sheet, harness, "Pi", ports, 215, 18, -1, "Pi ports", width=22)
    pi_header(sheet, harness, 215, 62)
    y = 20.0
    for part in ("DISPLAY", wiring.AMP, "SPEAKER", *(wiring._title(name) for name in wiring.buttons(_PINOUT))):
        if part in harness["connectors"]:
            pins = list(labels(harness["connectors"][part]))
            y = column(sheet, harness, part, pins, 272, y, -1, part, width=22) + 7
    column(sheet, harness, "J1", [1, 2], 178, 178, -1, "J1 (box wall)", width=22)
    column(sheet, harness, "F1", [1, 2], 222, 178, -1, "F1 fuse holder", width=22)
    column(sheet, harness, "F2", [1, 2], 266, 178, -1, "F2 polyfuse", width=22)
    away(sheet, harness, wires, 40, 163, 1, "On the frame (steps 3-4)")
    return ["Wire ends on the stripboard are in the hole the layout gives (T track, H hole); the Pi's header is "
            "seen from above, pin 1 at the top left."]


def _power(sheet: Sheet, harness: dict, wires: list[Link]) -> list[str]:
    column(sheet, harness, wiring.SUPPLY, [1, 2], 80, 50, 1, "LED supply (5 V 4 A)", width=34)
    column(sheet, harness, "J1", [1, 2], 180, 50, -1, "J1 (box wall)", width=24)
    column(sheet, harness, wiring.PI_SUPPLY, [1, 2], 80, 110, 1, "Pi's USB-C supply", width=34)
    column(sheet, harness, "Pi", ["USB-C 5V", "USB-C GND"], 180, 110, -1, "Pi", width=24)
    return ["Plug the LED supply in first, alone; then the Pi's."]


LAYOUTS: dict[int, tuple[tuple[float, float], Callable[[Sheet, dict, list[Link]], list[str]]]] = {
    1: (LANDSCAPE, _bench), 3: (LANDSCAPE, _leds), 4: (PORTRAIT, _pads), 5: (LANDSCAPE, _box), 6: (LANDSCAPE, _power),
}
"""Each step that wires something: its page and where its parts lie."""
_PINOUT: Pinout = pinout.load()


def drawing(number: int, harness: dict | None = None) -> str:
    """Step ``number``'s sheet (the guide's step, from 1) as hardware/steps/step-N.svg holds it."""
    harness = wiring.harness(_PINOUT) if harness is None else harness
    step = STEPS[number - 1]
    wires = step_wires(step, harness)
    page, place = LAYOUTS[number]
    sheet = Sheet(f"Step {number}: {step.title}: its {len(wires)} wires", *page)
    sheet.wired = {pin for link in wires for pin in (link.a, link.b)} | {link.wire for link in wires}
    notes = place(sheet, harness, wires)
    notes.append("Each wire in its colour (white ones outlined), labelled at both ends with its pin; drawn by "
                 "hardware/tools/sheets.py from the netlist.")
    return _render(sheet, harness, wires, notes)


def drawn() -> list[int]:
    """The steps with a sheet: those that put a wire in."""
    return sorted(LAYOUTS)
