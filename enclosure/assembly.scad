// The whole table, for the build guide's picture: the frame's tiles, the carrier plate's tiles
// lifted above them, the one top sheet and the card grille above those, a few cards, and the
// spymasters' station (the box, its lid and the hood on it) behind the grid, station_gap from
// it, facing the spymasters. Cell 0 is the grid's corner nearest the viewer's left, on the
// operatives' side (the END TURN band's side).
// Not printed: openscad assembly.scad opens it, F5 draws it.

include <common.scad>
use <frame_tile.scad>
use <carrier_tile.scad>
use <card_grille.scad>
use <screen_hood.scad>
use <electronics_box.scad>
use <box_lid.scad>

lift = 30; // how far apart the layers are drawn

for (t = [0 : tile_count - 1]) {
    color("#45474d") frame_tile(t);
    color("#9a9ca3") translate([0, 0, floor_thickness + light_depth + lift]) carrier_tile(t);
    color("#2f3034") translate([0, 0, plate_top + acrylic_thickness + 3 * lift]) card_grille(t);
}
// the top sheet, one piece, and a card on a few cells
color("white", 0.6) translate([-sheet_ledge + sheet_gap, -end_band - sheet_ledge + sheet_gap, plate_top + 2 * lift])
    cube([sheet_x, sheet_y, acrylic_thickness]);
for (cell = [[0, 4], [1, 4], [2, 4], [1, 3]]) in_cell(cell[0], cell[1])
    color("#e9dcc0") translate([lit_border, lit_border, plate_top + acrylic_thickness + 4 * lift])
        cube([card_length, card_width, card_thickness]);

// the spymasters' station, turned to face them (+y), its glands towards the grid
translate([grid_x / 2 + box_x / 2, grid_y + rim + station_gap + box_y, 0]) rotate(180) {
    color("#5b7fa6") electronics_box();
    color("#6f93ba") translate([0, 0, box_z + lid_thickness]) mirror([0, 0, 1]) box_lid();
    color("#45474d") translate([(box_x - hood_x) / 2, hood_back_y, box_z + lid_thickness]) rotate([90, 0, 0]) screen_hood();
}
