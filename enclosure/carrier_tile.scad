// The pad carrier plate, one tile. It lies on the frame's walls inside the rim. On its top,
// in each cell: the pad's outline (copper foil), its wire's hole, and around it the windows
// the LEDs' light rises through; along the cell's edge a band for the grounded guard foil,
// which passes under the ribs by low tunnels. The ribs above the walls hold each cell's cut
// acrylic piece and, above it, the card. Print plate down. openscad -D tile=3 carrier_tile.scad

include <common.scad>

tile = 0; // 0 .. tile_count - 1, along x first, as the frame's tiles

carrier_tile(tile);

module clip_2d(t) {
    sx = carrier_span_x(t);
    sy = carrier_span_y(t);
    intersection() { box_2d(sx[0], sx[1], sy[0], sy[1]); union() children(); }
}

// Where the guard foil crosses a rib: across the middle of every wall segment.
module guard_passages_2d() { across_walls_2d(guard_passage_width, 0.5); }

// One hole per tile for the guard's ground wire, in the corner of its first cell's band.
module guard_hole_2d(t) {
    in_cell(tile_cells_x(t)[0], tile_cells_y(t)[1] - 1)
        translate([guard_width / 2, pocket_width - guard_width / 2]) circle(d = wire_hole);
}

module plate_2d(t) {
    difference() {
        clip_2d(t) box_2d(-1, grid_x + 1, -1, grid_y + 1);
        each_cell() { light_windows_2d(); pad_wire_hole_2d(); }
        guard_hole_2d(t);
    }
}

module carrier_tile(t) {
    band(0, plate_thickness - recess_depth) plate_2d(t);
    band(plate_thickness - recess_depth, plate_thickness) difference() {
        plate_2d(t);
        each_cell() { pad_2d(); guard_band_2d(); }
        guard_passages_2d();
    }
    band(plate_thickness, plate_thickness + guard_passage_height) clip_2d(t) difference() { walls_2d(); guard_passages_2d(); }
    band(plate_thickness + guard_passage_height, plate_thickness + rib_height) clip_2d(t) walls_2d();
}
