"""The enclosure in enclosure/: its parameters keep every fit rule and each rule can fail; the
Python reader agrees with OpenSCAD; every .scad renders without a warning; every STL is one
closed solid that fits the print bed and has the shape the parameters say."""

from __future__ import annotations

import ast
import csv
import importlib.util
import io
import math
import struct
import subprocess
from pathlib import Path

import pytest
from pi_table.hardware import enclosure, guide, pinout
from pi_table.hardware.enclosure import ENCLOSURE, PARTS, ParamsError

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
        ({"card_clearance": 0.1}, "the card pocket's length 69.2 mm leaves less than 0.3 mm"),
        ({"pocket_width": 44.4}, "the card pocket's width"),
        ({"pocket_depth": 0.4}, "does not stand above a 0.5 mm card"),
        ({"acrylic_clearance": -0.5}, "does not drop into its 70.5 mm pocket"),
        ({"acrylic_sheet": 300}, "acrylic pieces, the grid needs 25"),
        ({"grid_rows": 4, "tile_rows": [2, 2]}, "the game has 25"),
        ({"pad_width": 14}, "the rule asks through a 3.5 mm cover"),
        ({"pad_length": 60}, "comes within 5.25 mm of its cell's edge"),
        ({"platform_margin": 8}, "the light window at the pad's side"),
        ({"guard_passage_width": 3}, "no wider than its 3 mm foil"),
        ({"leds_per_cell": 5}, "5 LEDs at 16.67 mm take 83.33 mm"),
        ({"strip_width": 46}, "does not fit across the 45.5 mm cell"),
        ({"cable_exit_height": 2}, "overlap in height"),
        ({"edge_leds": 100}, "the edge strip"),
        ({"recess_depth": 0.1}, "shallower than one 0.2 mm layer"),
        ({"wall": 2.5}, "not a whole number of 0.4 mm lines"),
        ({"tile_columns": [2, 3]}, "frame tile 1 is 225.4 x 110.6 mm, larger than the 220 x 220 mm bed"),
        ({"tile_columns": [2, 2]}, "do not add up to the grid's 5"),
        ({"tile_rows": [5]}, "carrier tile 0 is"),
        ({"bed_z": 20}, "tall, over the bed's 20 mm"),
        ({"dovetail_head": 7}, "it would not lock"),
        ({"dovetail_head": 46}, "reaches past its 45.5 mm cell"),
        ({"display_clearance": 0.1}, "the hood's opening, 189.7 mm, does not take the display's 189.5 mm length"),
        ({"hood_inner_y": 120}, "the display's 120.24 mm width"),
        ({"lip": 17}, "cover the viewing area"),
        ({"hood_wall": 20}, "the hood, 230.5 x 161.24 mm, is larger than the bed"),
        ({"visor": 25}, "hides the top of the screen from a spymaster"),
        ({"spymaster_side_angle": 50}, "hide the screen's edge from a spymaster 50 degrees to the side"),
        ({"screen_tilt": 20}, "an operative looking down at 80 degrees sees over the roof"),
        ({"hood_boss": 20}, "reach back into the display's lip"),
        ({"box_margin": 4}, "runs into the box's corner post"),
        ({"stripboard_x": 100}, "the USB plug's room and the stripboard overlap"),
        ({"box_inner_y": 80}, "the stripboard does not fit inside the box"),
        ({"mpr121_count": 4}, "places 3 MPR121 breakouts, the touch board has 4"),
        ({"pico_y": 3}, "the Pico sits on a corner screw"),
        ({"mpr121_x": 20}, "the Pico and MPR121 breakout 0 overlap"),
        ({"shifter_y": 95}, "the level shifter hangs off"),
        ({"header_cable_height": 40}, "with its header's cables stands 45 mm"),
        ({"button_y": 70}, "button 0 is not in the lid"),
        ({"button_depth": 20}, "reaches 20 mm under the lid onto the board"),
        ({"button_x": [153, 160]}, "the buttons' holes run into each other"),
        ({"screw_length": 12}, "and not bottom out in its 6.5 mm hole"),
        ({"screw_length": 5}, "reaches 2 mm: it should hold at least half"),
        ({"stripboard_standoff": 3}, "too short for their inserts"),
        ({"hood_back_y": 30}, "do not fit on the box's lid"),
        ({"box_inner_y": 230}, "is larger than the bed"),
    ],
)
def test_each_rule_catches_its_mistake(change, words):
    found = enclosure.problems(enclosure.read(overrides=change), CELLS)
    assert any(words in problem for problem in found), found


def test_an_override_carries_into_the_figures_worked_out_from_it():
    """As OpenSCAD's -D does: the pocket follows a changed card size."""
    changed = enclosure.read(overrides={"card_length": 80})
    assert changed["pocket_length"] == 80 + 2 * P["card_clearance"]
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


def test_every_scad_file_is_a_part_a_scene_or_a_library():
    """So the build renders or checks every one, and a new file is not left out."""
    known = {part.name for part in PARTS} | set(enclosure.SCENES) | set(enclosure.LIBRARIES)
    assert {path.stem for path in ENCLOSURE.glob("*.scad")} == known


def test_the_build_guide_carries_the_enclosures_figures_and_pictures():
    readme = (Path(guide.__file__).parent / "README.md").read_text(encoding="utf-8")
    blocks = guide.blocks()
    assert blocks["pads"] == enclosure.pads_table(P) and blocks["printing"] == enclosure.printing_table(P)
    assert f"<!-- generated: pads -->\n{blocks['pads']}" in readme
    own = (ENCLOSURE / "README.md").read_text(encoding="utf-8")
    assert guide.render(own) == own and "<!-- generated: printing -->" in own, "run: python -m pi_table.hardware.guide"
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
    assert len(stems) == 2 * P["tile_count"] + 3


def test_a_warning_fails_the_render(tmp_path):
    require_tools("openscad")
    scad = tmp_path / "bad.scad"
    scad.write_text("cube(size_nowhere);\ncube(5);\n")
    render = enclosure._openscad(["-o", str(tmp_path / "bad.stl"), str(scad)], tmp_path / "bad.stl")
    assert any("unknown variable 'size_nowhere'" in warning for warning in render.warnings)


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


@pytest.mark.parametrize("part", ["frame", "carrier"])
def test_the_tiles_are_where_the_fit_checks_put_them(built, part):
    """The tile outlines the bed check used are the rendered tiles', dovetails included."""
    for tile in enclosure.tiles(P, part):
        mesh = _mesh(built[0], f"{part}_tile_{tile.index}")
        low, high = mesh.bounds
        assert low[:2] == pytest.approx([tile.x[0], tile.y[0]], abs=0.01)
        assert high[:2] == pytest.approx([tile.x[1] + tile.tabs_x, tile.y[1] + tile.tabs_y], abs=0.01)
    height = P["frame_height"] if part == "frame" else P["plate_thickness"] + P["rib_height"]
    assert mesh.extents[2] == pytest.approx(height)


def test_the_other_parts_measure_as_the_parameters_say(built):
    expected = {"screen_hood": ("hood_x", "hood_y", "hood_depth"), "electronics_box": ("box_x", "box_y", "box_z")}
    for stem, names in expected.items():
        assert _mesh(built[0], stem).extents == pytest.approx([P[name] for name in names])
    lid = [P["box_x"], P["box_y"], P["lid_thickness"] + P["lid_lip"]]
    assert _mesh(built[0], "box_lid").extents == pytest.approx(lid)


def test_the_card_fits_the_pocket_the_carrier_plate_has(built):
    """Probe the rendered pocket of cell 0: open across the card's size and clearance, rib beyond."""
    mesh = _mesh(built[0], "carrier_tile_0")
    card_z = P["plate_thickness"] + P["acrylic_thickness"] + P["card_thickness"] / 2
    for x in (0.05 + P["carrier_clearance"], P["card_length"] + P["print_tolerance"], P["pocket_length"] - 0.05):
        assert not _inside(mesh, (x, P["pocket_width"] * 0.3, card_z)), x
    for y in (0.05 + P["carrier_clearance"], P["card_width"] + P["print_tolerance"], P["pocket_width"] - 0.05):
        assert not _inside(mesh, (P["pocket_length"] * 0.3, y, card_z)), y
    assert _inside(mesh, (P["pocket_length"] + 0.05, P["pocket_width"] * 0.3, card_z))  # the rib
    assert _inside(mesh, (P["pocket_length"] * 0.3, P["pocket_width"] + 0.05, card_z))
    # the pad's outline sunk into the plate, and solid plate under it
    centre = (P["pocket_length"] / 2, P["pocket_width"] / 2)
    assert not _inside(mesh, (*centre, P["plate_thickness"] - P["recess_depth"] / 2))
    assert _inside(mesh, (*centre, P["plate_thickness"] / 2))
    # a light window beside the pad
    window_y = P["guard_width"] + P["window_side"] / 2
    assert not _inside(mesh, (P["pocket_length"] * 0.3, window_y, P["plate_thickness"] / 2))


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
