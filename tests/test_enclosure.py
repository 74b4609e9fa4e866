"""The enclosure in enclosure/: its parameters keep every fit rule and each rule can fail; the
Python reader agrees with OpenSCAD; every .scad renders without a warning; every STL is one
closed solid that fits the print bed and has the shape the parameters say."""

from __future__ import annotations

import ast
import csv
import importlib.util
import io
import math
import re
import struct
import subprocess
from pathlib import Path

import pytest
from pi_table.hardware import pinout
from pi_table.hardware.tools import enclosure, guide
from pi_table.hardware.tools.enclosure import ENCLOSURE, PARTS, ParamsError

from pi_table.engine import CELLS

from helpers import require_tools

P = enclosure.read()
WIRING = pinout.load()
HAVE_TRIMESH = importlib.util.find_spec("trimesh") is not None


def test_the_reference_parameters_break_no_rule():
    assert enclosure.problems(P, CELLS) == []


@pytest.mark.parametrize(
    "change, words",
    [
        # the card on its lit cell
        ({"card_clearance": 0.1}, "the card's 0.1 mm to its corner stops is under the 0.3 mm"),
        ({"lit_border": 1.5}, "the lit border is 0.75 mm on the side a card has slid to"),
        ({"card_clearance": 1.5}, "the lit border is 3.5 mm on the side a card has slid to"),
        ({"card_stop_arm": 12}, "the corner stops leave 45% of the card's 44 mm edge with light beside it"),
        ({"pocket_depth": 0.4}, "do not stand above a 0.5 mm card"),
        ({"pad_width": 42}, "the pad's platform beside the pad shades the lit border"),
        ({"pad_length": 64}, "the pad's platform at the pad's end shades the lit border"),
        ({"breakout_drop": 12}, "a breakout, beside its host's pad, shades the lit border"),
        ({"guard_width": 3}, "wider than the 2.4 mm wall it lies over"),
        # the top sheet
        ({"acrylic_sheet": 400}, "the top sheet, 409.6 x 314.6 mm, is larger than the 400 mm sheet bought"),
        ({"sheet_gap": 0.5}, "a gap of at least 1 mm for the silicone"),
        ({"spill_lip": 1}, "the rim does not stand above the card grille"),
        ({"grid_rows": 4, "tile_rows": [2, 2]}, "the game has 25"),
        # the pads, the END TURN pads, the breakouts and the pad wires
        ({"pad_width": 14}, "the rule asks through a 3.5 mm cover"),
        ({"pad_length": 66}, "comes within 6.5 mm of its cell's edge"),
        ({"end_pad_width": 12}, "an END TURN pad of 40 x 12 mm is under the 15 mm side"),
        ({"end_band": 20}, "with its guard ring does not fit the 20 mm band"),
        ({"end_pad_x": [40, 60]}, "the END TURN pads' rings overlap or leave the band"),
        ({"mpr121_count": 4}, "the frame mounts 3 MPR121 breakouts, the touch board has 4"),
        ({"breakout_host": [11, 13, 14]}, "breakout 2 hangs under cell 14, which is not one of its pads"),
        ({"cell_breakout": [0] * 13 + [1] * 12}, "breakout 0 is given 13 pads; an MPR121 reads 12"),
        ({"end_turn_breakout": 3}, "name a cell or a breakout the grid does not have (25 cells, 3 breakouts)"),
        ({"breakout_host": [10, 13, 2]}, "the longest pad wire, cell 17's, is 262.6 mm to its breakout; the limit is 250"),
        ({"pad_wire_limit": 200}, "is 237.6 mm to its breakout; the limit is 200 mm"),
        ({"breakout_drop": 16}, "the pad wires hang down to the LED wires"),
        # the LEDs, the cables' exits
        ({"leds_per_cell": 5}, "5 LEDs at 16.67 mm take 83.33 mm"),
        ({"strip_width": 55}, "does not fit across the 54 mm cell"),
        ({"edge_leds": 200}, "the edge strip"),
        ({"led_notch_width": 5, "led_notch_height": 3}, "the LED notch (5 x 3 mm) along the bus's row does not pass 6"),
        ({"pair_wire_od": 3}, "down the bus's column does not pass 5 wires of 0.75 mm2"),
        ({"edge_hole": 5}, "the 5 mm hole for the edge strip's pair and data wire does not take them"),
        ({"wago_width": 32}, "the ground lever connectors and C2 take 80 mm along a wall of cell 20"),
        ({"wago_depth": 21}, "the lever connectors, 8.5 mm tall, reach 21 mm from the wall of cell 20"),
        ({"c2_diameter": 16}, "C2 on its side, 16 mm tall, reach 16 mm"),
        ({"foil_width": 25}, "the 25 mm copper tape does not cover a 50 x 30 mm pad in one strip"),
        ({"station_gap": 380}, "a 400 mm bar does not make a foot 380 mm long"),
        ({"gland_z": 8}, "a gland's nut (-1.5 to 17.5 mm over the table) does not fit between the floor"),
        ({"gland_nut_depth": 6}, "a gland's nut reaches past the corner stops into the lit border"),
        ({"led_exit_wall": 2}, "led_exit_wall 2 is not a wall inside a tile"),
        ({"touch_exit_wall": 1}, "leave the frame by one exit: they need their own"),
        # printing and the tiles
        ({"recess_depth": 0.1}, "shallower than one 0.2 mm layer"),
        ({"wall": 2.5}, "not a whole number of 0.4 mm lines"),
        ({"tile_columns": [2, 3]}, "frame tile 1 is 250.9 x 157.6 mm, larger than the 220 x 220 mm bed"),
        ({"tile_columns": [2, 2]}, "do not add up to the grid's 5"),
        ({"tile_rows": [5]}, "grille tile 0 is"),
        ({"bed_z": 20}, "tall, over the bed's 20 mm"),
        ({"dovetail_head": 7}, "it would not lock"),
        ({"dovetail_head": 54}, "reaches past its 54 mm cell"),
        # the hood, and who sees what from the seats
        ({"display_clearance": 0.1}, "the hood's opening, 189.7 mm, does not take the display's 189.5 mm length"),
        ({"hood_inner_y": 120}, "the display's 120.24 mm width"),
        ({"lip": 17}, "cover the viewing area"),
        ({"hood_wall": 20}, "the hood, 230.5 x 161.24 mm, is larger than the bed"),
        ({"station_gap": 200}, "the hood hides cards from a spymaster whose eye is 1150 mm over the floor"),
        ({"seated_eye": [850, 900]}, "over a spymaster's eye 850 mm over the floor: it hides the table"),
        ({"visor": 25}, "hides the top of the screen from a spymaster looking down at 34.48 degrees"),
        ({"spymaster_side_angle": 50}, "hide the screen's edge from a spymaster 50 degrees to the side"),
        ({"screen_tilt": 85}, "an operative looking at the station from 21.25 degrees sees over the roof"),
        ({"hood_boss": 20}, "reach back into the display's lip"),
        # the electronics box
        ({"box_margin": 4}, "runs into the box's corner post"),
        ({"stripboard_x": 100}, "the USB plug's room and the stripboard overlap"),
        ({"box_inner_y": 80}, "the stripboard does not fit inside the box"),
        ({"pico_y": 20}, "the Pico's USB plug and its cable's bend need 42 mm (22 mm of plug, a 20 mm bend)"),
        ({"shifter_x": 3, "shifter_y": 20}, "a part on the stripboard stands in the Pico's USB plug's way"),
        ({"pico_y": 5}, "the Pico sits on a corner screw"),
        ({"shifter_x": 20}, "the Pico and the level shifter overlap"),
        ({"shifter_y": 95}, "the level shifter hangs off"),
        ({"jack_y": 40}, "the DC jack runs into a corner post, the Pi"),
        ({"jack_z": 5}, "the DC jack's nut does not fit between the box's floor and the lid's lip"),
        ({"box_gland_x": [150, 160]}, "gland 0 and gland 1 overlap in the box's walls"),
        ({"link_apart": 162}, "gland 0 and link boss 1 overlap"),
        ({"box_led_gland_x": 150, "box_touch_gland_x": 176}, "the LED cable and the I2C cable cross"),
        ({"link_apart": 240}, "runs into a gland or a tiles' seam"),
        ({"header_cable_height": 40}, "with its header's cables stands 45 mm"),
        ({"button_y": 70}, "button 0 is not in the lid"),
        ({"button_depth": 20}, "reaches 20 mm under the lid onto the board"),
        ({"button_x": [153, 160]}, "the buttons' holes run into each other"),
        ({"screw_length": 12}, "and not bottom out in its 6.5 mm hole"),
        ({"screw_length": 5}, "reaches 2 mm: it should hold at least half"),
        ({"stripboard_standoff": 3}, "too short for their inserts"),
        ({"hood_back_y": 30}, "do not fit on the box's lid"),
        ({"box_inner_y": 230}, "is larger than the bed"),
        ({"led_cable_od": 6.5}, "the LED cable, 6.5 mm across, is not 1 mm inside the glands' 3.5-7 mm"),
        ({"i2c_cable_od": 3}, "the I2C cable, 3 mm across, is not 1 mm inside"),
        ({"gland_clamp": [3, 6.5]}, "the LED cable, 6 mm across, is not 1 mm inside the glands' 3-6.5 mm"),
        ({"pi_heatsink_height": 25}, "the Pi's heatsink with 5 mm of air over it reaches 36.6 mm"),
    ],
)
def test_each_rule_catches_its_mistake(change, words):
    found = enclosure.problems(enclosure.read(overrides=change), CELLS)
    assert any(words in problem for problem in found), found


@pytest.mark.parametrize("card", [(69, 44), (68, 45), (70, 45), (67, 43)])
def test_the_pocket_follows_the_card_the_maker_measured(card):
    """The guide asks the maker to measure the cards and set card_length and card_width before
    printing: within a millimetre or two of the 69 x 44 mm drawn for, every fit still holds, the
    pocket keeps its border and the wire runs follow."""
    length, width = card
    shape = enclosure.read(overrides={"card_length": length, "card_width": width})
    assert enclosure.problems(shape, CELLS) == []
    assert (shape["pocket_length"], shape["pocket_width"]) == (length + 2 * P["lit_border"], width + 2 * P["lit_border"])
    assert f"{length} x {width} mm card" in enclosure.pads_table(shape)


def test_an_override_carries_into_the_figures_worked_out_from_it():
    """As OpenSCAD's -D does: the pocket follows a changed card size."""
    changed = enclosure.read(overrides={"card_length": 80})
    assert changed["pocket_length"] == 80 + 2 * P["lit_border"]
    assert changed["grid_x"] > P["grid_x"]


@pytest.mark.parametrize(
    "text, words",
    [
        ("a = b + 1;", "b is not defined above it"),
        ("a = 1;\na = 2;", "a is set twice"),
        ("a = 1 > 0 ? 1 : 2;", "does not parse"),
        ("a = foo(1);", "is not a form params.scad may use"),
        ("module m() {}", "not `name = value;`"),
        ("a = 1", "not `name = value;`"),
    ],
)
def test_the_reader_refuses_what_it_cannot_follow(text, words):
    with pytest.raises(ParamsError, match=words.replace("?", r"\?").replace("(", r"\(")):
        enclosure.read(text)


def test_the_reader_works_out_openscad_arithmetic():
    text = "a = 2; // two\nb = a * 3 - min(1, 4) / 2;\nc = [a, b];\nd = tan(45) + len(c) + c[1];\ne = true;"
    names = enclosure.read(text)
    assert names == {"a": 2, "b": 5.5, "c": [2, 5.5], "d": pytest.approx(8.5), "e": True}
    with pytest.raises(ParamsError, match="no such parameters to override: f"):
        enclosure.read("a = 1;", overrides={"f": 2})


def test_the_parameters_agree_with_the_wiring_and_the_bill_of_materials():
    assert P["leds_per_cell"] == WIRING.leds_per_cell
    assert P["strip_per_metre"] == WIRING.strip_per_metre
    assert P["edge_leds"] == WIRING.edge_leds
    assert P["mpr121_count"] == len(WIRING.chips)
    assert P["grid_columns"] * P["grid_rows"] == len(WIRING.cell_electrodes)
    rows = {row["part"]: row for row in csv.DictReader(io.StringIO(
        (Path(pinout.__file__).parent / "bom.csv").read_text(encoding="utf-8")))}
    acrylic = next(row for name, row in rows.items() if "Acrylic" in name)
    assert f"{P['acrylic_thickness']:g} mm opal" in acrylic["part"]
    assert f"{P['acrylic_sheet']:g} x {P['acrylic_sheet']:g} mm" in acrylic["part"]
    buttons = next(row for name, row in rows.items() if "push button" in name)
    assert f"{P['button_hole']:g} mm" in buttons["part"] and int(buttons["quantity"]) == len(P["button_x"])
    screws = next(row for name, row in rows.items() if "inserts" in name)
    assert f"M3 x {P['screw_length']:g}" in screws["typical part or product"]
    assert "Touch Display 2" in next(row for name, row in rows.items() if "display" in name)["typical part or product"]
    strip = next(row for name, row in rows.items() if "WS2812B" in name)
    assert "IP65" in strip["part"] and f"{P['strip_width']:g} mm wide" in strip["part"]  # the channel fits the strip bought


def test_the_lit_border_rule_follows_the_light_from_the_led():
    """Worked by hand: an LED on the cell's centre line (27 mm from the wall, 2 mm over the floor),
    the border's inner edge 5.75 mm from the wall on the sheet 22 mm over the floor: under the
    20 mm plate's underside the line is 27 - 21.25 x 18 / 20 = 7.875 mm from the wall."""
    assert enclosure.border_ray(P, P["pocket_width"] / 2, 0) == pytest.approx(7.875)
    assert enclosure.border_ray(P, P["pocket_width"] / 2, 6) == pytest.approx(27 - 21.25 * 12 / 20)
    assert enclosure.border_ray(P, P["pocket_width"] / 2, 0) <= P["platform_side"]


def test_the_pad_wires_are_measured_along_the_walls():
    """Cell 0 (column 0, row 0) to breakout 0 under cell 11 (column 1, row 2): 11.7 mm up to the
    wall, a pitch across, two pitches along, 11.7 mm in to the host's hole, 20 mm slack."""
    wires = enclosure.pad_wires(P)
    assert wires["cell 0"] == pytest.approx(11.7 + P["pitch_x"] + 2 * P["pitch_y"] + 11.7 + 20)
    assert wires["cell 11"] == P["wire_slack"]  # the host's own pad
    # same column, another row: half a pitch out to a wall running the right way, and back
    assert wires["cell 16"] == pytest.approx(11.7 + P["pitch_x"] + P["pitch_y"] + 11.7 + 20)
    assert set(wires) == {f"cell {n}" for n in range(CELLS)} | {"END TURN pad 0", "END TURN pad 1"}
    assert max(wires.values()) <= P["pad_wire_limit"]


def test_the_sightlines_move_with_the_station():
    """Further back, the spymasters see more of the grid past the hood; a higher eye, too."""
    here = enclosure.sightlines(P)
    back = enclosure.sightlines(enclosure.read(overrides={"station_gap": P["station_gap"] + 100}))
    higher = enclosure.sightlines(enclosure.read(overrides={"seated_eye": [1250, 1300]}))
    assert back.card_seen_from > here.card_seen_from and higher.card_seen_from > here.card_seen_from
    assert here.card_seen_from >= P["grid_y"] and here.operative_elevation < 90 - P["screen_tilt"]


def test_each_pad_is_wired_to_the_breakout_the_frame_mounts_beside_it():
    """pinout.toml's electrode map puts each cell's pad on the chip whose breakout params.scad
    hangs amid it (chips in order of their first electrode, as breakout_host lists them)."""
    chips = sorted(WIRING.chips, key=lambda chip: chip.first_electrode)
    def chip_of(electrode):
        return max(n for n, chip in enumerate(chips) if chip.first_electrode <= electrode)
    assert [chip_of(e) for e in WIRING.cell_electrodes] == list(P["cell_breakout"])
    assert {chip_of(e) for e in WIRING.end_turn_electrodes} == {P["end_turn_breakout"]}


def test_every_scad_file_is_a_part_a_scene_or_a_library():
    """So the build renders or checks every one, and a new file is not left out."""
    known = {part.name for part in PARTS} | set(enclosure.SCENES) | set(enclosure.LIBRARIES)
    assert {path.stem for path in ENCLOSURE.glob("*.scad")} == known


def test_the_build_guide_carries_the_enclosures_figures_and_pictures():
    readme = (Path(pinout.__file__).parent / "README.md").read_text(encoding="utf-8")
    blocks = guide.blocks()
    assert blocks["pads"] == enclosure.pads_table(P) and blocks["printing"] == enclosure.printing_table(P)
    assert f"<!-- generated: pads -->\n{blocks['pads']}" in readme
    own = (ENCLOSURE / "README.md").read_text(encoding="utf-8")
    assert guide.render(own) == own and "<!-- generated: printing -->" in own, "run: python -m pi_table.hardware.tools.guide"
    for picture in set(enclosure.PICTURES.values()):
        path = ENCLOSURE / "pictures" / f"{picture}.png"
        assert f"../enclosure/pictures/{picture}.png" in readme
        header = path.read_bytes()[:24]
        assert header[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", header[16:24]) == enclosure.PICTURE_SIZE


# ---- the render: once per session, every part


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Every part rendered to STL and PNG by the build the README names."""
    require_tools("openscad", "xvfb-run")
    outdir = tmp_path_factory.mktemp("enclosure")
    return outdir, enclosure.build(outdir)


def test_every_scad_renders_without_a_warning(built):
    outdir, renders = built
    assert [warning for render in renders for warning in render.warnings] == []
    stems = [stem for part in PARTS for stem, _ in part.outputs(P)]
    for stem in stems + list(enclosure.SCENES):
        assert (outdir / f"{stem}.png").stat().st_size > 5_000, f"{stem}.png looks empty"
    assert len(stems) == 3 * P["tile_count"] + 3


@pytest.mark.tool
def test_a_warning_fails_the_render(tmp_path):
    require_tools("openscad")
    scad = tmp_path / "bad.scad"
    scad.write_text("cube(size_nowhere);\ncube(5);\n")
    render = enclosure._openscad(["-o", str(tmp_path / "bad.stl"), str(scad)], tmp_path / "bad.stl")
    assert any("unknown variable 'size_nowhere'" in warning for warning in render.warnings)


@pytest.mark.tool
def test_openscad_reads_the_parameters_as_python_does(tmp_path):
    """The fit checks see the numbers the parts are drawn with."""
    require_tools("openscad")
    scad = tmp_path / "echo.scad"
    scad.write_text(f"include <{enclosure.PARAMS}>\n" + "".join(f"echo({name} = {name});\n" for name in P))
    command = ["openscad", "-o", str(tmp_path / "echo.echo"), str(scad)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    echoed = {}
    for line in (tmp_path / "echo.echo").read_text().splitlines():
        name, value = line.removeprefix("ECHO: ").split(" = ", 1)
        echoed[name] = ast.literal_eval(value.replace("true", "True").replace("false", "False"))
    assert done.returncode == 0 and set(echoed) == set(P)
    for name, value in P.items():
        assert value == pytest.approx(echoed[name], rel=1e-5), name


# ---- the meshes


def _mesh(outdir: Path, stem: str):
    if not HAVE_TRIMESH:
        require_tools(also_missing=("trimesh (pip install trimesh)",))
    import trimesh

    return trimesh.load(outdir / f"{stem}.stl", force="mesh")


def _bodies(mesh) -> int:
    """How many separate solids: faces that share an edge belong together."""
    parent = list(range(len(mesh.faces)))

    def root(face: int) -> int:
        while parent[face] != face:
            parent[face] = parent[parent[face]]
            face = parent[face]
        return face

    for a, b in mesh.face_adjacency:
        parent[root(a)] = root(b)
    return len({root(face) for face in range(len(mesh.faces))})


def _inside(mesh, point) -> bool:
    """Whether ``point`` is inside the closed mesh: its winding number, from each triangle's solid angle."""
    import numpy

    a, b, c = (mesh.triangles - numpy.asarray(point, dtype=float)).transpose(1, 0, 2)
    la, lb, lc = (numpy.linalg.norm(v, axis=1) for v in (a, b, c))
    top = numpy.einsum("ij,ij->i", a, numpy.cross(b, c))
    bottom = (la * lb * lc + numpy.einsum("ij,ij->i", a, b) * lc + numpy.einsum("ij,ij->i", a, c) * lb
              + numpy.einsum("ij,ij->i", b, c) * la)
    return abs(numpy.arctan2(top, bottom).sum() * 2 / (4 * math.pi)) > 0.5


STEMS = [stem for part in PARTS for stem, _ in part.outputs(P)]


@pytest.mark.parametrize("stem", STEMS)
def test_every_part_is_one_closed_solid_that_fits_the_bed(built, stem):
    mesh = _mesh(built[0], stem)
    assert mesh.is_watertight and mesh.is_winding_consistent, f"{stem}.stl is not a closed 2-manifold"
    assert mesh.volume > 0 and _bodies(mesh) == 1
    width, depth, height = mesh.extents
    assert enclosure.fits_bed(P, (width, depth)) and height <= P["bed_z"], mesh.extents


@pytest.mark.parametrize("part", ["frame", "carrier", "grille"])
def test_the_tiles_are_where_the_fit_checks_put_them(built, part):
    """The tile outlines the bed check used are the rendered tiles', dovetails included."""
    stem = {"frame": "frame_tile", "carrier": "carrier_tile", "grille": "card_grille"}[part]
    for tile in enclosure.tiles(P, part):
        mesh = _mesh(built[0], f"{stem}_{tile.index}")
        low, high = mesh.bounds
        assert low[:2] == pytest.approx([tile.x[0], tile.y[0]], abs=0.01)
        assert high[:2] == pytest.approx([tile.x[1] + tile.tabs_x, tile.y[1] + tile.tabs_y], abs=0.01)
        hosts = [cell for cell in P["breakout_host"]
                 if tile.x[0] < (cell % P["grid_columns"] + 0.5) * P["pitch_x"] < tile.x[1]
                 and tile.y[0] < (cell // P["grid_columns"] + 0.5) * P["pitch_y"] < tile.y[1]]
        height = {"frame": P["frame_height"], "grille": P["pocket_depth"],
                  "carrier": P["plate_thickness"] + (P["breakout_standoff"] if hosts else 0)}[part]
        assert mesh.extents[2] == pytest.approx(height), tile.index


def _border_probes():
    """Points in cell 0's lit border, in the middle of each side, the card slid away from that side."""
    inner = P["lit_border"] + P["card_clearance"] - 0.05
    middle_x, middle_y = P["pocket_length"] / 2, P["pocket_width"] / 2
    return [(0.05, middle_y), (inner, middle_y), (P["pocket_length"] - inner, middle_y),
            (middle_x, 0.05), (middle_x, inner), (middle_x, P["pocket_width"] - inner)]


def test_the_card_lies_in_the_middle_of_a_lit_cell(built):
    """Probe the rendered grille and carrier plate of cell 0: nothing over or under the lit border
    on any side; the corner stops hold the card's corners; the pad lies under the card's middle."""
    grille = _mesh(built[0], "card_grille_0")
    z = P["pocket_depth"] / 2
    for x, y in _border_probes():
        assert not _inside(grille, (x, y, z)), ("grille over the border", x, y)
    stop = P["lit_border"] - P["card_clearance"]
    assert _inside(grille, (stop - 0.05, P["lit_border"] + 1, z))  # the stop's arms, at the card's corner
    assert _inside(grille, (P["lit_border"] + 1, stop - 0.05, z))
    assert not _inside(grille, (stop + 0.05, P["lit_border"] + 0.05, z))  # the card's corner, clear of it
    assert _inside(grille, (P["pitch_x"] - P["wall"] / 2, P["pocket_width"] / 2, z))  # a bar over a wall
    carrier = _mesh(built[0], "carrier_tile_0")  # exported top down: the plate at z < 0
    z = -P["plate_thickness"] / 2
    for x, y in _border_probes():
        assert not _inside(carrier, (x, y, z)), ("plate under the border", x, y)
    centre = (P["pocket_length"] / 2, P["pocket_width"] / 2)
    assert _inside(carrier, (*centre, z))  # the pad's platform
    assert not _inside(carrier, (*centre, -P["plate_thickness"] + P["recess_depth"] / 2))  # its outline, sunk
    assert _inside(carrier, (P["pitch_x"] - P["wall"] / 2, P["pocket_width"] / 2, z))  # the plate over a wall


def test_the_breakouts_hang_under_their_host_cells(built):
    """A post under a corner of a breakout in its host cell, and none in a cell that hosts none."""
    for tile in enclosure.tiles(P, "carrier"):
        mesh = _mesh(built[0], f"carrier_tile_{tile.index}")
        for cell in range(CELLS):
            x = (cell % P["grid_columns"]) * P["pitch_x"] + P["pocket_length"] / 2 - P["mpr121_length"] / 2 + 1.5
            y = (cell // P["grid_columns"]) * P["pitch_y"] + P["pocket_width"] / 2 - P["mpr121_width"] / 2 + 1.5
            if tile.x[0] < x < tile.x[1] and tile.y[0] < y < tile.y[1]:
                assert _inside(mesh, (x, y, P["breakout_standoff"] / 2)) == (cell in P["breakout_host"]), cell


def test_the_sheet_lies_sealed_in_the_rim_and_the_cables_leave_by_glands(built):
    """The rim's ledge under the sheet's edge, the rim above it, the END TURN pads' outlines in the
    band, and a gland's hole open at each of the two exits."""
    front = _mesh(built[0], "frame_tile_0")
    y = P["pocket_width"] / 2
    sheet = P["plate_top"] + P["acrylic_thickness"] / 2
    assert _inside(front, (-P["sheet_ledge"] / 2, y, P["plate_top"] - 0.5))  # the ledge under the sheet
    assert not _inside(front, (-P["sheet_ledge"] + 0.05, y, sheet))  # the sheet's edge and the silicone
    assert _inside(front, (-P["sheet_ledge"] - 0.5, y, sheet))  # the rim round it...
    assert _inside(front, (-P["sheet_ledge"] - 0.5, y, P["frame_height"] - 0.1))  # ...standing above it
    first = enclosure.tiles(P, "frame")[0]
    for n, x in enumerate(P["end_pad_x"]):
        if x < first.x[1]:
            middle = -P["end_band"] / 2
            assert not _inside(front, (x + 5, middle, P["plate_top"] - P["recess_depth"] / 2)), n
            assert _inside(front, (x + 5, middle, P["plate_top"] - P["recess_depth"] - 0.5)), n
    for wall in (P["led_exit_wall"], P["touch_exit_wall"]):
        x = wall * P["pitch_x"] - P["wall"] / 2
        tile = next(t for t in enclosure.tiles(P, "frame") if t.x[0] < x < t.x[1] and t.y[1] > P["grid_y"])
        mesh = _mesh(built[0], f"frame_tile_{tile.index}")
        rim = P["grid_y"] + P["rim"] / 2
        assert not _inside(mesh, (x, rim, P["gland_z"])), wall
        assert _inside(mesh, (x + P["gland_hole"] / 2 + 1, rim, P["gland_z"])), wall


def test_the_other_parts_measure_as_the_parameters_say(built):
    expected = {"screen_hood": ("hood_x", "hood_y", "hood_depth"), "electronics_box": ("box_x", "box_y", "box_z")}
    for stem, names in expected.items():
        assert _mesh(built[0], stem).extents == pytest.approx([P[name] for name in names])
    lid = [P["box_x"], P["box_y"], P["lid_thickness"] + P["lid_lip"]]
    assert _mesh(built[0], "box_lid").extents == pytest.approx(lid)


def test_the_frame_walls_part_the_cells_and_the_strip_fits_its_floor(built):
    mesh = _mesh(built[0], "frame_tile_0")
    middle = P["floor_thickness"] + P["light_depth"] / 2
    wall_x = P["pitch_x"] - P["wall"] / 2
    assert _inside(mesh, (wall_x, P["pocket_width"] * 0.8, middle))
    strip_z = P["floor_thickness"] + 0.5
    ends = ((P["pocket_length"] - P["led_segment"]) / 2, (P["pocket_length"] + P["led_segment"]) / 2)
    for x in ends + (P["solder_room"] / 2, P["pocket_length"] - P["solder_room"] / 2):
        for y in ((P["pocket_width"] - P["strip_width"]) / 2 + 0.05, (P["pocket_width"] + P["strip_width"]) / 2 - 0.05):
            assert not _inside(mesh, (x, y, strip_z)), (x, y)
    assert _inside(mesh, (P["pocket_length"] / 2, P["pocket_width"] * 0.1, P["floor_thickness"] / 2))  # the floor


def test_the_display_fits_the_hoods_opening(built):
    """No plastic inside the display's outline, set in the hood with its clearance."""
    mesh = _mesh(built[0], "screen_hood")
    x0 = P["hood_wall"] + P["display_clearance"]
    z0 = P["back_plate"]
    for dx in (0.05, P["display_length"] / 2, P["display_length"] - 0.05):
        for dy in (0.05, P["display_width"] / 2, P["display_width"] - 0.05):
            for dz in (0.05, P["display_depth"] - 0.05):
                assert not _inside(mesh, (x0 + dx, x0 + dy, z0 + dz)), (dx, dy, dz)
    assert _inside(mesh, (x0 + 1, x0 + 20, P["glass"] + P["lip_thickness"] / 2))  # the lip holds it


def test_the_boards_fit_the_box(built):
    """The Pi's and the stripboard's corners, just above their standoffs, are in open air."""
    mesh = _mesh(built[0], "electronics_box")
    wall, floor = P["box_wall"], P["box_floor"]
    boards = [("pi", P["pi_length"] + P["pi_port_overhang"], P["pi_width"], P["pi_standoff"]),
              ("stripboard", P["stripboard_length"], P["stripboard_width"], P["stripboard_standoff"])]
    for name, length, width, standoff in boards:
        x, y = wall + P[f"{name}_x"], wall + P[f"{name}_y"]
        for dx in (0.05, length - 0.05):
            for dy in (0.05, width - 0.05):
                assert not _inside(mesh, (x + dx, y + dy, floor + standoff + 0.5)), (name, dx, dy)


def test_the_i2c_cable_is_measured_from_the_breakouts_to_the_pico():
    """Worked by hand: the bus leaves by the gland behind wall 4 (x = 324.4 mm) from the breakout
    under cell 13 (283.7, 139.8): 40.7 + 139.8 to the back of the grid and the 8 mm rim; 360 mm
    across, 168.1 mm sideways to the box's gland and 10.9 mm up; in the box 78 mm to the Pico's
    USB end, 1.5 mm across and 16.5 mm down; 20 mm slack. On the frame: to cell 11, two pitches
    across, then to cell 2, a pitch across and two along."""
    route = enclosure.i2c_route(P)
    assert route.chain == (1, 0, 2) and [P["breakout_host"][n] for n in route.chain] == [13, 11, 2]
    assert route.cable == pytest.approx(188.5 + 360 + 168.1 + 10.9 + 78 + 1.5 + 16.5 + 20)
    assert route.on_frame == pytest.approx(2 * P["pitch_x"] + P["pitch_x"] + 2 * P["pitch_y"])
    assert enclosure.glands(P) == ["the frame's back rim, behind wall 1", "the frame's back rim, behind wall 4",
                                   "the box's back wall, 176 mm along it", "the box's back wall, 150 mm along it"]


def test_the_led_cable_and_the_power_pairs_are_measured_and_bought_with_spare():
    """Worked by hand: the data core from LED 0 (6.17, 27 in cell 0) to the gland behind wall 1
    (x = 80.2): 74.03 across and 279.6 + 8 - 27 along; the same 360 + 55.1 + 10.9 across to the box
    as the I2C cable's way, less its sideways; in the box 38 mm along the back wall to the left and
    (115.6 - 99.5) to the jack, 0 up; 20 mm slack. Each cable bought is a quarter longer than its way,
    and the red and the black wire bought each cover all six pairs."""
    route = enclosure.led_route(P)
    gland = enclosure.exit_x(P, P["led_exit_wall"])
    assert gland == pytest.approx(80.2)
    sideways = abs(gland - enclosure.box_x_on_grid(P, P["box_led_gland_x"]))
    frame = (gland - 6.165) + P["grid_y"] + P["rim"] - P["pocket_width"] / 2
    in_box = P["box_led_gland_x"] + P["box_inner_y"] - P["jack_y"] + abs(P["box_gland_z"] - P["jack_z"])
    assert route.cable == pytest.approx(frame + P["station_gap"] + sideways + abs(P["box_gland_z"] - P["gland_z"])
                                        + in_box + P["wire_slack"], abs=0.01)
    rows = {row["in the diagram"].split()[0]: row for row in guide.bom_rows() if row["in the diagram"]}
    for cable, way in (("W_led", route.cable), ("W_i2c", enclosure.i2c_route(P).cable)):
        metres = float(re.search(r"(\d+(?:\.\d+)?) m$", rows[cable]["part"]).group(1))
        assert 1.25 * way <= 1000 * metres, (cable, way, metres)
    each = float(re.search(r"(\d+(?:\.\d+)?) m each", rows["W_row0_power"]["part"]).group(1))
    assert sum(route.pairs.values()) <= 1000 * each
    assert set(route.pairs) == {"row 0", "row 1", "row 2", "row 3", "row 4", "the edge"}
    assert route.pairs["row 4"] == pytest.approx(abs(P["pocket_length"] / 2 - P["solder_room"]) + P["wire_slack"])
    assert route.along_bus_row == (6, 3) and route.down_bus_column == (5, 1)
    far = enclosure.led_route(enclosure.read(overrides={"station_gap": 900}))
    assert 1.25 * far.cable > 1500  # the check can fail


def test_the_copper_tape_bought_is_the_width_params_scad_needs():
    tape = next(row for row in guide.bom_rows() if "Copper foil" in row["part"])
    assert f"{P['foil_width']:g} mm" in tape["part"] and P["foil_width"] >= P["pad_width"]
