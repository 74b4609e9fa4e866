// The grid frame, one tile: the floor the LED strips lie on, the walls that keep each cell's
// light to itself, the outer rim, and before row 0 the band that carries the END TURN pads.
// The carrier plate lies on the walls inside the rim; the top sheet lies on the plate, on the
// band and on a ledge in the rim, sealed to the rim with silicone; the rim stands above it.
// Tiles lock together with dovetails in their floors, one under each cell along a seam.
// The LED line and the touch board's I2C leave through cable glands in the back rim, each at the
// end of a wall. Print floor down, in an opaque filament. One tile: openscad -D tile=3 frame_tile.scad

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

module outline_2d() { box_2d(-rim, grid_x + rim, -rim - end_band, grid_y + rim); }

// Under the carrier plate: the rim round the cells, and the band's outer and inner walls with
// the band hollow between them (the END TURN pads' wires run in it).
module rim_2d() {
    difference() {
        outline_2d();
        box_2d(0, grid_x, 0, grid_y);
        box_2d(0, grid_x, -end_band, -wall);
    }
}

// Only what falls inside tile t, in 2D.
module clip_2d(t) {
    sx = frame_span_x(t);
    sy = frame_span_y(t);
    intersection() { box_2d(sx[0], sx[1], sy[0], sy[1]); union() children(); }
}

module frame_tile(t) {
    top = floor_thickness + light_depth;
    difference() {
        union() {
            band(0, floor_thickness - groove_depth) floor_2d(t);
            band(floor_thickness - groove_depth, floor_thickness) difference() { floor_2d(t); grooves_2d(); }
            // Above the floor, the walls and the rim in bands: the LED wires' notches at the walls'
            // foot, the pad wires' notches at their top (and in the band's inner wall, for the
            // END TURN pads' wires)
            band(floor_thickness, floor_thickness + led_notch_height) clip_2d(t) {
                difference() { walls_2d(); across_walls_2d(led_notch_width, 0.5); }
                rim_2d();
            }
            band(floor_thickness + led_notch_height, top - wire_notch_height) clip_2d(t) { walls_2d(); rim_2d(); }
            band(top - wire_notch_height, top) clip_2d(t) {
                difference() { walls_2d(); across_walls_2d(wire_notch_width, 0.25); }
                difference() {
                    rim_2d();
                    for (n = [0 : len(end_pad_x) - 1]) box_2d(end_pad_x[n] - wire_notch_width / 2, end_pad_x[n] + wire_notch_width / 2, -wall - 1, 1);
                }
            }
            // Level with the carrier plate: the rim, and the band's top carrying the END TURN
            // pads, their guard rings sunk into it and their wires' holes through it
            band(top, plate_top - recess_depth) clip_2d(t) difference() {
                outline_2d();
                box_2d(0, grid_x, 0, grid_y);
                for (n = [0 : len(end_pad_x) - 1]) end_pad_hole_2d(n);
            }
            band(plate_top - recess_depth, plate_top) clip_2d(t) difference() {
                outline_2d();
                box_2d(0, grid_x, 0, grid_y);
                for (n = [0 : len(end_pad_x) - 1]) { end_pad_2d(n); end_guard_ring_2d(n); end_pad_hole_2d(n); }
            }
            // Round the top sheet: the rim stands spill_lip above it, a ledge under its edge
            band(plate_top, frame_height) clip_2d(t) difference() {
                outline_2d();
                box_2d(-sheet_ledge, grid_x + sheet_ledge, -end_band - sheet_ledge, grid_y + sheet_ledge);
            }
        }
        gland_hole(led_exit_wall);
        gland_hole(touch_exit_wall);
        at_frame_links() translate([0, -insert_hole_depth, 0]) rotate([-90, 0, 0]) cylinder(d = insert_hole, h = insert_hole_depth + 1);
    }
}
