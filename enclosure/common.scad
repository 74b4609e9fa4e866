// Shapes the parts share: where the tiles fall, the grid's walls, the cells' inner layout.
// Every dimension comes from params.scad. Flat shapes are built in 2D and extruded in bands
// of height, which keeps OpenSCAD's render of a tile to seconds.

include <params.scad>

$fn = 32;

function sum_to(list, n) = n <= 0 ? 0 : list[n - 1] + sum_to(list, n - 1);

// Tile t counts along x first: t = column + row * len(tile_columns).
function tile_column(t) = t % len(tile_columns);
function tile_row(t) = floor(t / len(tile_columns));
function tile_cells_x(t) = [sum_to(tile_columns, tile_column(t)), sum_to(tile_columns, tile_column(t) + 1)];
function tile_cells_y(t) = [sum_to(tile_rows, tile_row(t)), sum_to(tile_rows, tile_row(t) + 1)];

// A seam runs down the middle of the wall before column c (row r).
function seam_x(c) = c * pitch_x - wall / 2;
function seam_y(r) = r * pitch_y - wall / 2;

// A tile's extent: to the rim's outside (frame) or short of it (carrier) at the grid's edge,
// to its side of a seam inside.
function span(cells, count, seam_low, seam_high, outer_low, outer_high) =
    [cells[0] == 0 ? outer_low : seam_low + seam_gap / 2, cells[1] == count ? outer_high : seam_high - seam_gap / 2];
function frame_span_x(t) = let(c = tile_cells_x(t)) span(c, grid_columns, seam_x(c[0]), seam_x(c[1]), -rim, grid_x + rim);
function frame_span_y(t) = let(r = tile_cells_y(t)) span(r, grid_rows, seam_y(r[0]), seam_y(r[1]), -rim, grid_y + rim);
function carrier_span_x(t) = let(c = tile_cells_x(t))
    span(c, grid_columns, seam_x(c[0]), seam_x(c[1]), carrier_clearance, grid_x - carrier_clearance);
function carrier_span_y(t) = let(r = tile_cells_y(t))
    span(r, grid_rows, seam_y(r[0]), seam_y(r[1]), carrier_clearance, grid_y - carrier_clearance);

module box_2d(x0, x1, y0, y1) { translate([x0, y0]) square([x1 - x0, y1 - y0]); }

module in_cell(c, r) { translate([c * pitch_x, r * pitch_y]) children(); }

module each_cell() { for (c = [0 : grid_columns - 1], r = [0 : grid_rows - 1]) in_cell(c, r) children(); }

// The walls between cells (the frame's) and the ribs on the carrier plate: the same lines.
// They run 1 mm on into the rim, so that walls and rim overlap rather than merely touch.
module walls_2d() {
    for (c = [1 : grid_columns - 1]) box_2d(c * pitch_x - wall, c * pitch_x, -1, grid_y + 1);
    for (r = [1 : grid_rows - 1]) box_2d(-1, grid_x + 1, r * pitch_y - wall, r * pitch_y);
}

// Openings across every wall segment: `across` wide, at `along` (a fraction) of its length.
module across_walls_2d(across, along) {
    for (c = [1 : grid_columns - 1], r = [0 : grid_rows - 1])
        box_2d(c * pitch_x - wall - 1, c * pitch_x + 1,
               r * pitch_y + pocket_width * along - across / 2, r * pitch_y + pocket_width * along + across / 2);
    for (r = [1 : grid_rows - 1], c = [0 : grid_columns - 1])
        box_2d(c * pitch_x + pocket_length * along - across / 2, c * pitch_x + pocket_length * along + across / 2,
               r * pitch_y - wall - 1, r * pitch_y + 1);
}

// A dovetail from a seam at 0 pointing along +x, centred on y = 0, grown by `grow` all round.
module dovetail_2d(grow = 0) {
    offset(delta = grow)
        polygon([[-1, -dovetail_neck / 2], [dovetail_length, -dovetail_head / 2],
                 [dovetail_length, dovetail_head / 2], [-1, dovetail_neck / 2]]);
}

// Inside one cell, in the cell's own corner-origin coordinates:
module pad_2d() {
    translate([(pocket_length - pad_length) / 2, (pocket_width - pad_width) / 2]) square([pad_length, pad_width]);
}
module guard_band_2d() {
    difference() {
        square([pocket_length, pocket_width]);
        box_2d(guard_width, pocket_length - guard_width, guard_width, pocket_width - guard_width);
    }
}
module light_windows_2d() {
    difference() {
        box_2d(guard_width, pocket_length - guard_width, guard_width, pocket_width - guard_width);
        box_2d((pocket_length - pad_length) / 2 - platform_margin, (pocket_length + pad_length) / 2 + platform_margin,
               (pocket_width - pad_width) / 2 - platform_margin, (pocket_width + pad_width) / 2 + platform_margin);
        box_2d((pocket_length - spoke_width) / 2, (pocket_length + spoke_width) / 2, 0, pocket_width);
        box_2d(0, pocket_length, (pocket_width - spoke_width) / 2, (pocket_width + spoke_width) / 2);
    }
}
module pad_wire_hole_2d() {
    translate([pocket_length / 2, (pocket_width + pad_width) / 2 + platform_margin / 2]) circle(d = wire_hole);
}

module band(z0, z1) { translate([0, 0, z0]) linear_extrude(z1 - z0) children(); }

// The electronics box: its corner posts (lid inserts), in the box's outer coordinates.
module at_posts() {
    for (x = [box_wall + post / 2, box_x - box_wall - post / 2], y = [box_wall + post / 2, box_y - box_wall - post / 2])
        translate([x, y]) children();
}
// The two screws that hold the hood on the lid, in the box's outer coordinates.
module at_hood_screws() {
    for (side = [-1, 1]) translate([box_x / 2 + side * hood_screws_apart / 2, hood_back_y - hood_depth + hood_boss / 2]) children();
}
