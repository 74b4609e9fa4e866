// The pad carrier plate, one tile. It lies on the frame's walls inside the rim, and the top
// sheet lies on it. On its top, in each cell: the pad's outline (copper foil) on a platform
// under the card's middle, its wire's hole, and round the platform the cell open to the light,
// the platform held by four spokes out to the cell's corners (under the card grille's corner
// stops). Along the top of every wall between two cells, a line sunk for the grounded guard
// foil. Under the plate, in three cells, the posts an MPR121 breakout hangs on, under the
// platform, amid the pads it reads. Drawn in place; exported top down, as it prints (the
// posts up). openscad -D tile=3 carrier_tile.scad

include <common.scad>

tile = 0; // 0 .. tile_count - 1, along x first, as the frame's tiles

mirror([0, 0, 1]) carrier_tile(tile);

module clip_2d(t) {
    sx = carrier_span_x(t);
    sy = carrier_span_y(t);
    intersection() { box_2d(sx[0], sx[1], sy[0], sy[1]); union() children(); }
}

module plate_2d(t) {
    difference() {
        clip_2d(t) box_2d(-1, grid_x + 1, -1, grid_y + 1);
        each_cell() { light_windows_2d(); pad_wire_hole_2d(); }
    }
}

// Four posts under a breakout's corners, in its host cell, the board across the cell's width.
module breakout_posts_2d() {
    post_side = 3;
    for (host = breakout_host) in_cell(host % grid_columns, floor(host / grid_columns))
        for (mx = [-1, 1], my = [-1, 1])
            translate([pocket_length / 2 + mx * (mpr121_length - post_side) / 2, pocket_width / 2 + my * (mpr121_width - post_side) / 2])
                square(post_side, center = true);
}

module carrier_tile(t) {
    band(-breakout_standoff, 0) clip_2d(t) breakout_posts_2d();
    band(0, plate_thickness - recess_depth) plate_2d(t);
    band(plate_thickness - recess_depth, plate_thickness) difference() {
        plate_2d(t);
        each_cell() pad_2d();
        guard_lines_2d();
    }
}
