// The card grille, one tile: a thin lattice laid on the top sheet, inside the rim. Its bars lie
// over the frame's walls, so they hide no light; at each corner of a cell an L-shaped stop
// holds the card's corner, so the card lies in the middle of its cell with a lit border on every
// side. Over the band before row 0 it leaves a window on each END TURN pad. It only places the
// cards: lift it off to wipe the sheet. Print flat. openscad -D tile=3 card_grille.scad

include <common.scad>

tile = 0; // 0 .. tile_count - 1, along x first, as the frame's tiles

card_grille(tile);

module clip_2d(t) {
    sx = grille_span_x(t);
    sy = grille_span_y(t);
    intersection() { box_2d(sx[0], sx[1], sy[0], sy[1]); union() children(); }
}

module card_grille(t) {
    band(0, pocket_depth) clip_2d(t) {
        difference() {
            box_2d(-sheet_ledge, grid_x + sheet_ledge, -end_band - sheet_ledge, grid_y + sheet_ledge);
            each_cell() square([pocket_length, pocket_width]);
            for (n = [0 : len(end_pad_x) - 1]) end_window_2d(n, end_guard_gap);
        }
        each_cell() corner_stops_2d();
    }
}
