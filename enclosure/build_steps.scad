// The build guide's steps, one picture each (-D step=N): what that step puts in, in colour and
// lifted apart where its parts go together, on what the steps before it built, in grey.
// hardware/tools/steps.py renders them (tools/docs.py, ./dev docs) and says what each step does.
// Not printed: openscad build_steps.scad -D step=3 opens one, F5 draws it.
//   1 the frame's tiles, spread apart at their dovetails
//   2 the LED strip in every cell's groove, and the power bus in its cell
//   3 the pad carrier's tiles, copper pads on them, lifted over the frame and see-through; the breakouts
//     and their wires under their cells
//   4 the electronics box: the Pi and the stripboard (green) on their standoffs, the lid and the hood going on
//   5 the top sheet and the card grille, lifted over the finished frame
// Each step's wiring is drawn in colour over it (module wiring): build_wires.scad, which
// hardware/tools/steps.py writes from the netlist and params.scad.

include <common.scad>
include <build_wires.scad>
use <frame_tile.scad>
use <carrier_tile.scad>
use <card_grille.scad>
use <screen_hood.scad>
use <electronics_box.scad>
use <box_lid.scad>

step = 1;
lift = 40;   // how far the step's parts are lifted over where they go
spread = 25; // how far the first step spreads the tiles apart
see_through = 0.12; // step 3's carrier plate: its breakouts and wires hang under it

done = "#b8bac0";   // what earlier steps built
part = "#e07b24";   // what this step puts in
copper = "#c8793a";
strip = "#f2f0e6";
board = "#2e7d4f";

module frame(colour) {
    for (t = [0 : tile_count - 1])
        color(colour) translate(step == 1 ? [tile_column(t) * spread, tile_row(t) * spread, 0] : [0, 0, 0]) frame_tile(t);
}

module strips() {
    // one piece of strip along each cell's floor, on its centre line, and the bus in bus_cell
    for (c = [0 : grid_columns - 1], r = [0 : grid_rows - 1]) in_cell(c, r)
        color(strip) translate([(pitch_x - wall - led_segment) / 2, (pitch_y - wall - strip_width) / 2, floor_thickness - groove_depth])
            cube([led_segment, strip_width, led_height]);
    in_cell(bus_cell % grid_columns, floor(bus_cell / grid_columns))
        color("#c0392b") translate([3, pitch_y - wall - 12, floor_thickness]) cube([pitch_x - wall - 6, 9, 9]);
}

// opacity below 1 draws the plate see-through, so the wires that hang under it show
module carrier(z, colour, opacity = 1) {
    for (t = [0 : tile_count - 1]) color(colour, opacity) translate([0, 0, z]) carrier_tile(t);
    color(copper, opacity) translate([0, 0, z + plate_thickness]) each_cell() linear_extrude(0.2) pad_2d();
}

module breakouts(z) {
    for (cell = breakout_host) in_cell(cell % grid_columns, floor(cell / grid_columns))
        color(board) translate([(pitch_x - wall) / 2 - 13, (pitch_y - wall) / 2 - 10, z]) cube([26, 20, 1.6]);
}

module boards() {
    color(board) translate([box_wall + pi_x, box_wall + pi_y, box_floor + pi_standoff]) cube([pi_length, pi_width, pi_board]);
    color(board) translate([box_wall + stripboard_x, box_wall + stripboard_y, box_floor + stripboard_standoff])
        cube([stripboard_length, stripboard_width, stripboard_thickness]);
}

module wire(points, thick) {
    for (i = [0 : len(points) - 2]) hull() {
        translate(points[i]) sphere(d = thick, $fn = 8);
        translate(points[i + 1]) sphere(d = thick, $fn = 8);
    }
}

// The step's wiring, highlighted: its cables and parts from build_wires.scad (the netlist's).
module wiring(s) {
    for (w = wires) if (w[0] == s) color(w[1]) wire(w[3], w[2]);
    for (b = blocks) if (b[0] == s) color(b[1]) translate(b[2]) cube(b[3]);
}

if (step == 1) frame(part);
if (step == 2) { frame(done); strips(); wiring(2); }
if (step == 3) {
    frame(done);
    color(done) strips();
    // under the plate first: a see-through part hides what is drawn after it behind it
    breakouts(floor_thickness + light_depth + lift - breakout_drop);
    translate([0, 0, floor_thickness + light_depth + lift - breakout_drop]) wiring(3);
    carrier(floor_thickness + light_depth + lift, part, see_through);
}
if (step == 4) {
    color(done) electronics_box();
    boards();
    wiring(4);
    color(part) translate([0, 0, box_z + lid_thickness + 3 * lift]) mirror([0, 0, 1]) box_lid();
    color(part) translate([(box_x - hood_x) / 2, hood_back_y, box_z + lid_thickness + 5 * lift]) rotate([90, 0, 0]) screen_hood();
}
if (step == 5) {
    frame(done);
    carrier(floor_thickness + light_depth, done);
    color("white", 0.6) translate([-sheet_ledge + sheet_gap, -end_band - sheet_ledge + sheet_gap, plate_top + lift])
        cube([sheet_x, sheet_y, acrylic_thickness]);
    for (t = [0 : tile_count - 1]) color(part) translate([0, 0, plate_top + acrylic_thickness + 2 * lift]) card_grille(t);
}
