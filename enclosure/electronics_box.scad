// The electronics box: the Raspberry Pi on four standoffs, the touch board's stripboard (the
// Pico, the three MPR121 breakouts and the level shifter) on four more, room between them for
// the USB cable's plug. Cable exits: the Pi's power and HDMI through the front wall, the frame's
// wiring through the back wall. Vents low in the left wall and in the lid. Corner posts take
// the lid's M3 inserts. Print floor down. Coordinates: the box's outside corner at the origin,
// y from the front (the spymasters' side) to the back.

include <common.scad>

electronics_box();

module standoff(height, hole, hole_depth, diameter) {
    difference() {
        cylinder(d = diameter, h = height);
        translate([0, 0, height - hole_depth]) cylinder(d = hole, h = hole_depth + 1);
    }
}

module electronics_box() {
    inside = [box_wall, box_wall, 0];
    difference() {
        union() {
            difference() {
                cube([box_x, box_y, box_z]);
                translate([box_wall, box_wall, box_floor]) cube([box_inner_x, box_inner_y, box_z]);
            }
            at_posts() translate([-post / 2, -post / 2, 0]) cube([post, post, box_z]);
            // the Pi's standoffs: M2.5 screws cut their own thread
            for (x = [0, pi_holes_x], y = [0, pi_holes_y])
                translate(inside + [pi_x + pi_hole_inset + x, pi_y + pi_hole_inset + y, 0])
                    standoff(box_floor + pi_standoff, pilot_hole, pi_standoff, 6);
            // the stripboard's standoffs, with M3 inserts
            for (x = [stripboard_hole_inset, stripboard_length - stripboard_hole_inset],
                 y = [stripboard_hole_inset, stripboard_width - stripboard_hole_inset])
                translate(inside + [stripboard_x + x, stripboard_y + y, 0])
                    standoff(box_floor + stripboard_standoff, insert_hole, insert_hole_depth, insert_hole + 3.2);
        }
        // lid inserts in the corner posts
        at_posts() translate([0, 0, box_z - insert_hole_depth]) cylinder(d = insert_hole, h = insert_hole_depth + 1);
        // the Pi's USB-C power and micro-HDMI, through the front wall
        translate([box_wall + pi_x + port_window_start, -1, box_floor + pi_standoff])
            cube([port_window_end - port_window_start, box_wall + 2, port_window_height]);
        // the frame's wiring, through the back wall behind the stripboard
        translate([box_wall + stripboard_x + (stripboard_length - wiring_exit_width) / 2, box_y - box_wall - 1, box_floor])
            cube([wiring_exit_width, box_wall + 2, wiring_exit_height]);
        // vents, low in the left wall
        for (i = [0 : vent_slots - 1])
            translate([-1, box_wall + box_margin + post + i * 2 * vent_slot_width, box_floor + 3])
                cube([box_wall + 2, vent_slot_width, wall_vent_height]);
    }
}
