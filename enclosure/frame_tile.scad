// The grid frame, one tile: the floor the LED strips lie on, the walls that keep each cell's
// light to itself, and the outer rim. The carrier plate lies on the walls inside the rim.
// Tiles lock together with dovetails in their floors, one under each cell along a seam.
// Print floor down, in an opaque filament. Render one tile: openscad -D tile=3 frame_tile.scad

include <common.scad>

tile = 0; // 0 .. tile_count - 1, along x first

frame_tile(tile);

// The floor's outline: the tile, with dovetails out over its right and back seams and
// sockets (a seam gap larger all round) for its neighbours' dovetails at its left and front.
module floor_2d(t) {
    c = tile_cells_x(t);
    r = tile_cells_y(t);
    sx = frame_span_x(t);
    sy = frame_span_y(t);
    difference() {
        union() {
            box_2d(sx[0], sx[1], sy[0], sy[1]);
            if (c[1] < grid_columns) for (row = [r[0] : r[1] - 1])
                translate([seam_x(c[1]), row * pitch_y + pocket_width / 2]) dovetail_2d();
            if (r[1] < grid_rows) for (column = [c[0] : c[1] - 1])
                translate([column * pitch_x + pocket_length / 2, seam_y(r[1])]) rotate(90) dovetail_2d();
        }
        if (c[0] > 0) for (row = [r[0] : r[1] - 1])
            translate([seam_x(c[0]), row * pitch_y + pocket_width / 2]) dovetail_2d(seam_gap);
        if (r[0] > 0) for (column = [c[0] : c[1] - 1])
            translate([column * pitch_x + pocket_length / 2, seam_y(r[0])]) rotate(90) dovetail_2d(seam_gap);
    }
}

// A channel along each cell's centre line that places its strip segment.
module grooves_2d() {
    each_cell() box_2d(-1, pocket_length + 1, (pocket_width - strip_width) / 2 - print_tolerance,
                       (pocket_width + strip_width) / 2 + print_tolerance);
}

module rim_2d() {
    difference() {
        box_2d(-rim, grid_x + rim, -rim, grid_y + rim);
        box_2d(0, grid_x, 0, grid_y);
    }
}

// The cable exit: in the rim on the spymasters' side, in the middle of each tile along it.
module cable_exit_2d(t) {
    sx = frame_span_x(t);
    if (tile_cells_y(t)[1] == grid_rows)
        box_2d((sx[0] + sx[1] - cable_exit_width) / 2, (sx[0] + sx[1] + cable_exit_width) / 2, grid_y - 1, grid_y + rim + 1);
}

// Only what falls inside tile t, in 2D.
module clip_2d(t) {
    sx = frame_span_x(t);
    sy = frame_span_y(t);
    intersection() { box_2d(sx[0], sx[1], sy[0], sy[1]); union() children(); }
}

module frame_tile(t) {
    top = floor_thickness + light_depth;
    band(0, floor_thickness - groove_depth) floor_2d(t);
    band(floor_thickness - groove_depth, floor_thickness) difference() { floor_2d(t); grooves_2d(); }
    // Above the floor, the walls and rim in bands: the LED wires' notches at the walls' foot,
    // the cable exit in the rim, the pad wires' notches at the walls' top.
    band(floor_thickness, floor_thickness + led_notch_height) clip_2d(t) difference() {
        union() { difference() { walls_2d(); across_walls_2d(led_notch_width, 0.5); } rim_2d(); }
        cable_exit_2d(t);
    }
    band(floor_thickness + led_notch_height, floor_thickness + cable_exit_height) clip_2d(t) difference() {
        union() { walls_2d(); rim_2d(); }
        cable_exit_2d(t);
    }
    band(floor_thickness + cable_exit_height, top - wire_notch_height) clip_2d(t) { walls_2d(); rim_2d(); }
    band(top - wire_notch_height, top) clip_2d(t) {
        difference() { walls_2d(); across_walls_2d(wire_notch_width, 0.25); }
        rim_2d();
    }
    band(top, frame_height) clip_2d(t) rim_2d();
}
