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

// A tile's extent: to the rim's outside (frame), short of the rim (carrier plate) or inside the
// rim's top over the sheet (card grille) at the grid's edge, to its side of a seam inside.
function span(cells, count, seam_low, seam_high, outer_low, outer_high) =
    [cells[0] == 0 ? outer_low : seam_low + seam_gap / 2, cells[1] == count ? outer_high : seam_high - seam_gap / 2];
function frame_span_x(t) = let(c = tile_cells_x(t)) span(c, grid_columns, seam_x(c[0]), seam_x(c[1]), -rim, grid_x + rim);
function frame_span_y(t) = let(r = tile_cells_y(t)) span(r, grid_rows, seam_y(r[0]), seam_y(r[1]), -rim - end_band, grid_y + rim);
function carrier_span_x(t) = let(c = tile_cells_x(t))
    span(c, grid_columns, seam_x(c[0]), seam_x(c[1]), carrier_clearance, grid_x - carrier_clearance);
function carrier_span_y(t) = let(r = tile_cells_y(t))
    span(r, grid_rows, seam_y(r[0]), seam_y(r[1]), carrier_clearance, grid_y - carrier_clearance);
grille_reach = sheet_ledge - print_tolerance;
function grille_span_x(t) = let(c = tile_cells_x(t))
    span(c, grid_columns, seam_x(c[0]), seam_x(c[1]), -grille_reach, grid_x + grille_reach);
function grille_span_y(t) = let(r = tile_cells_y(t))
    span(r, grid_rows, seam_y(r[0]), seam_y(r[1]), -end_band - grille_reach, grid_y + grille_reach);

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
// The pad's platform, held by four spokes out to the cell's corners, where the corner stops
// hide their shadow; everywhere else in the cell the plate is open to the light.
module light_windows_2d() {
    corners = [[0, 0], [pocket_length, 0], [0, pocket_width], [pocket_length, pocket_width]];
    difference() {
        square([pocket_length, pocket_width]);
        box_2d(platform_end, pocket_length - platform_end, platform_side, pocket_width - platform_side);
        for (corner = corners) hull() {
            translate(corner) square(spoke_width, center = true);
            translate([pocket_length / 2 + sign(corner[0] - pocket_length / 2) * (pad_length / 2 + platform_margin / 2),
                       pocket_width / 2 + sign(corner[1] - pocket_width / 2) * (pad_width / 2 + platform_margin / 2)])
                square(spoke_width, center = true);
        }
    }
}
module pad_wire_hole_2d() {
    translate([pocket_length / 2, (pocket_width + pad_width) / 2 + platform_margin / 2]) circle(d = wire_hole);
}
// The card grille's corner stops: an L at each corner of the cell, holding the card's corner
// with card_clearance each way and leaving the rest of the border open.
module corner_stops_2d() {
    stop = lit_border - card_clearance;
    for (mx = [0, 1], my = [0, 1])
        translate([mx * pocket_length, my * pocket_width]) mirror([mx, 0]) mirror([0, my]) {
            square([stop, lit_border + card_stop_arm]);
            square([lit_border + card_stop_arm, stop]);
        }
}

// The guard foil's lines, in the grid's coordinates: along the top of every wall between two cells.
module guard_lines_2d() {
    for (c = [1 : grid_columns - 1]) box_2d(c * pitch_x - (wall + guard_width) / 2, c * pitch_x - (wall - guard_width) / 2, -1, grid_y + 1);
    for (r = [1 : grid_rows - 1]) box_2d(-1, grid_x + 1, r * pitch_y - (wall + guard_width) / 2, r * pitch_y - (wall - guard_width) / 2);
}

// The END TURN pads in the band before row 0, in the grid's coordinates: pad n, its guard ring,
// its wire's hole at its edge towards the grid, and the window the card grille leaves over it.
module end_pad_2d(n) {
    translate([end_pad_x[n] - end_pad_length / 2, -(end_band + end_pad_width) / 2]) square([end_pad_length, end_pad_width]);
}
module end_window_2d(n, grow) {
    translate([end_pad_x[n] - end_pad_length / 2 - grow, -(end_band + end_pad_width) / 2 - grow])
        square([end_pad_length + 2 * grow, end_pad_width + 2 * grow]);
}
module end_guard_ring_2d(n) {
    difference() { end_window_2d(n, end_guard_gap + guard_width); end_window_2d(n, end_guard_gap); }
}
module end_pad_hole_2d(n) {
    translate([end_pad_x[n], -(end_band - end_pad_width) / 2 - wire_hole]) circle(d = wire_hole);
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
// A cable gland's hole through the back rim, at the end of wall w (between columns w - 1 and w).
module gland_hole(w) {
    translate([w * pitch_x - wall / 2, grid_y - 1, gland_z]) rotate([-90, 0, 0]) cylinder(d = gland_hole, h = rim + 2);
}
// The links' inserts: in the frame's back rim (frame coordinates) and the box's back wall.
module at_frame_links() {
    for (side = [-1, 1]) translate([grid_x / 2 + side * link_apart / 2, grid_y + rim, link_z]) children();
}
module at_box_links() {
    for (side = [-1, 1]) translate([box_x / 2 + side * link_apart / 2, box_y - box_wall, link_z]) children();
}
