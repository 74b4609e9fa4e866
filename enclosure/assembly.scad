// The whole table, for the build guide's picture: the frame's tiles, the carrier plate's tiles
// lifted above them, the acrylic pieces and the cards above those, and the spymasters' station
// (the box, its lid and the hood on it) behind the grid, facing the spymasters.
// Not printed: openscad assembly.scad opens it, F5 draws it.

include <common.scad>
use <frame_tile.scad>
use <carrier_tile.scad>
use <screen_hood.scad>
use <electronics_box.scad>
use <box_lid.scad>

lift = 30; // how far apart the layers are drawn

plate_z = floor_thickness + light_depth;

for (t = [0 : tile_count - 1]) {
    color("#45474d") frame_tile(t);
    color("#9a9ca3") translate([0, 0, plate_z + lift]) carrier_tile(t);
}
// the cover: one acrylic piece per cell, and a card on a few of them
each_cell() {
    color("white", 0.6) translate([acrylic_clearance, acrylic_clearance, plate_z + plate_thickness + 2 * lift])
        cube([diffuser_length, diffuser_width, acrylic_thickness]);
}
for (cell = [[0, 4], [1, 4], [2, 4], [1, 3]]) in_cell(cell[0], cell[1])
    color("#e9dcc0") translate([card_clearance, card_clearance, plate_z + plate_thickness + acrylic_thickness + 3 * lift])
        cube([card_length, card_width, card_thickness]);

// the spymasters' station, turned to face them (+y), its wiring exit towards the grid
translate([grid_x / 2 + box_x / 2, grid_y + rim + 40 + box_y, 0]) rotate(180) {
    color("#5b7fa6") electronics_box();
    color("#6f93ba") translate([0, 0, box_z + lid_thickness]) mirror([0, 0, 1]) box_lid();
    color("#45474d") translate([(box_x - hood_x) / 2, hood_back_y, box_z + lid_thickness]) rotate([90, 0, 0]) screen_hood();
}
