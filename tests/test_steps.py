"""The build step by step (hardware/tools/steps.py, docs/make/steps.md): a picture a step drawn
from the OpenSCAD model, current with it, and drawn anew when it changes."""

from __future__ import annotations

import shutil
import struct

import pytest
from pi_table.hardware.tools import enclosure, steps

from helpers import require_tools

ROOT = enclosure.ENCLOSURE.parent


def test_every_step_has_its_picture_drawn_from_the_model_as_it_is():
    assert not steps.stale(), "the pictures are older than the model: run ./dev docs (with openscad and xvfb)"
    drawn = [step for step in steps.STEPS if step.picture is not None]
    for picture in [step.picture for step in drawn if step.picture is not None]:
        header = picture.read_bytes()[:24]
        assert header[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", header[16:24]) == enclosure.PICTURE_SIZE
    assert [step.scene for step in drawn] == list(range(1, len(drawn) + 1))  # the bench and the tuning put nothing on it


def test_a_change_to_the_model_makes_the_pictures_stale(tmp_path):
    model = tmp_path / "enclosure"
    shutil.copytree(enclosure.ENCLOSURE, model, ignore=shutil.ignore_patterns("pictures", "build"))
    assert steps.fingerprint(model) == steps.fingerprint()
    params = model / "params.scad"
    params.write_text(params.read_text(encoding="utf-8").replace("wall = ", "wall = 0.5 + ", 1), encoding="utf-8")
    assert steps.fingerprint(model) != steps.fingerprint()


def test_every_part_picture_is_drawn_from_the_model_as_it_is():
    """The part pictures in enclosure/pictures/ were not drawn again when the jack hole changed,
    and nothing noticed: they carry their model's fingerprint as the steps' do."""
    assert not enclosure.pictures_stale(), "the part pictures are older than the model: run ./dev docs"
    for picture in enclosure.PICTURES.values():
        header = (enclosure.ENCLOSURE / "pictures" / f"{picture}.png").read_bytes()[:24]
        assert header[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", header[16:24]) == enclosure.PICTURE_SIZE


def test_a_change_to_a_part_makes_its_pictures_stale_and_a_step_s_scene_does_not(tmp_path):
    model = tmp_path / "enclosure"
    shutil.copytree(enclosure.ENCLOSURE, model, ignore=shutil.ignore_patterns("pictures", "build"))
    assert enclosure.pictures_fingerprint(model) == enclosure.pictures_fingerprint()
    scene = model / "build_steps.scad"
    scene.write_text(scene.read_text(encoding="utf-8") + "// a step's scene only\n", encoding="utf-8")
    assert enclosure.pictures_fingerprint(model) == enclosure.pictures_fingerprint()
    params = model / "params.scad"
    params.write_text(params.read_text(encoding="utf-8").replace("jack_hole = ", "jack_hole = 0.5 + ", 1), encoding="utf-8")
    assert enclosure.pictures_fingerprint(model) != enclosure.pictures_fingerprint()


def test_the_page_shows_each_step_its_work_and_its_checks():
    page = steps.page()
    for number, step in enumerate(steps.STEPS, 1):
        assert f"## Step {number}: {step.title}" in page
        assert step.picture is None or f"(../../enclosure/pictures/steps/{step.picture.name})" in page
        assert (f"[Its wiring sheet](../../hardware/steps/step-{number}.svg) alone, to print on A4." in page) \
            == bool(step.cables)
        assert all(f"- ☐ {line}" in page for line in step.work + step.checks)
        assert f"(guide.md#{step.guide})" in page
    assert page.count('break-after: page') == len(steps.STEPS) - 1  # a sheet a step when printed
    guide = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    assert "../docs/make/steps.md" in guide


@pytest.mark.tool
def test_the_pictures_are_what_openscad_draws_and_change_with_the_model(tmp_path):
    """Drawn again from the model as it is, each picture is the committed one byte for byte; drawn
    from a model whose walls are thicker, each differs."""
    require_tools("openscad", "xvfb-run")
    again = tmp_path / "again"
    assert steps.render(again) == []
    for step in steps.STEPS:
        if step.picture is not None:
            assert (again / step.picture.name).read_bytes() == step.picture.read_bytes(), step.picture.name
    assert (again / steps.SOURCES.name).read_text(encoding="utf-8") == steps.SOURCES.read_text(encoding="utf-8")
    model = tmp_path / "enclosure"
    shutil.copytree(enclosure.ENCLOSURE, model, ignore=shutil.ignore_patterns("pictures", "build"))
    params = model / "params.scad"
    text = params.read_text(encoding="utf-8")
    params.write_text(text.replace("\nwall = ", "\nwall = 2 + ", 1).replace("\nbox_wall = ", "\nbox_wall = 2 + ", 1),
                      encoding="utf-8")  # the frame's walls and the box's
    changed = tmp_path / "changed"
    assert steps.render(changed, model) == []
    for step in steps.STEPS:
        if step.picture is not None:
            assert (changed / step.picture.name).read_bytes() != step.picture.read_bytes(), step.picture.name


def test_each_step_draws_its_wiring_from_the_netlist_and_the_model():
    """Issue 60: the step pictures did not show the wires. Each wiring step draws its cables and
    parts highlighted: the LED pairs and the edge strip (2), the breakouts' bus and pads (3), the
    jack, the fuse and the cables into the box (4); a cable the netlist drops is not drawn, and
    build_wires.scad, which the pictures are drawn from, is what the two make now."""
    from pi_table.hardware import pinout
    from pi_table.hardware.tools import wiring

    assert steps.WIRES.read_text(encoding="utf-8") == steps.wires_scad(), "run ./dev docs (or python tools/docs.py)"
    p, harness = enclosure.read(), wiring.harness(pinout.load())
    found, blocks = steps.wires(p, harness)
    colours = {(step, colour) for step, colour, _thick, _points in found}
    assert {(2, steps.WIRE_COLOURS["power"]), (2, steps.WIRE_COLOURS["data"]), (3, steps.WIRE_COLOURS["i2c"]),
            (3, steps.WIRE_COLOURS["pads"]), (4, steps.WIRE_COLOURS["cable"]), (4, steps.WIRE_COLOURS["usb"])} <= colours
    powered = [points for step, colour, _thick, points in found if colour == steps.WIRE_COLOURS["power"]]
    assert len(powered) == p["grid_rows"] + 1  # a pair to each row's start and to the edge
    assert {step for step, *_ in blocks} == {2, 4}  # the edge strip; the jack and the fuse
    fewer = {**harness, "cables": {name: cable for name, cable in harness["cables"].items() if name != "W_edge_power"}}
    assert len(steps.wires(p, fewer)[0]) == len(found) - 1
    moved = steps.wires({**p, "bus_cell": p["bus_cell"] - 1}, harness)[0]
    assert moved != found  # the bus moved in the model: the pairs are drawn from its new cell
