// The electronics box: the Raspberry Pi on four standoffs, the touch board's stripboard (the
// Pico and the level shifter; the MPR121 breakouts are on the frame) on four more, room between
// them for the USB cable's plug, and room before the Pico for its own USB plug to bend. Through
// the walls: the Pi's power and HDMI (front), the LED supply's panel-mount DC jack (left, behind
// the Pi), and two cable glands (back) for the cables from the frame, the LED line and the
// touch board's I2C, and the speaker's grille, the speaker held against the wall behind the Pi by
// a rib on the floor. Two bosses on the back wall take the inserts for the links that hold the
// station to the frame. Vents low in the left wall and in the lid. Corner posts take the lid's
// M3 inserts. Print floor down. Coordinates: the box's outside corner at the origin, y from the
// front (the spymasters' side) to the back.

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
            // the rib that holds the speaker against the back wall
            translate(inside + [speaker_x, box_inner_y - speaker_depth - speaker_rib, 0])
                cube([speaker_length, speaker_rib, box_floor + speaker_rib_height]);
            // the links' bosses on the back wall, from the floor up to their inserts
            at_box_links() translate([-link_boss / 2, -link_boss, -link_z]) cube([link_boss, link_boss, link_z + link_boss / 2]);
        }
        // lid inserts in the corner posts
        at_posts() translate([0, 0, box_z - insert_hole_depth]) cylinder(d = insert_hole, h = insert_hole_depth + 1);
        // the Pi's USB-C power and micro-HDMI, through the front wall
        translate([box_wall + pi_x + port_window_start, -1, box_floor + pi_standoff])
            cube([port_window_end - port_window_start, box_wall + 2, port_window_height]);
        // the glands for the frame's cables, through the back wall behind the stripboard
        for (x = box_gland_x) translate([box_wall + x, box_y - box_wall - 1, box_gland_z])
            rotate([-90, 0, 0]) cylinder(d = gland_hole, h = box_wall + 2);
        // the speaker's grille: slots through the back wall, in front of its middle
        for (i = [0 : grille_slots - 1])
            translate([box_wall + speaker_x + (speaker_length - grille_slot_length) / 2, box_y - box_wall - 1,
                       box_floor + speaker_height / 2 + (i - (grille_slots - 1) / 2) * 2 * grille_slot_width
                       - grille_slot_width / 2])
                cube([grille_slot_length, box_wall + 2, grille_slot_width]);
        // the LED supply's DC jack, through the left wall behind the Pi
        translate([-1, box_wall + jack_y, jack_z]) rotate([0, 90, 0]) cylinder(d = jack_hole, h = box_wall + 2);
        // the links' inserts, from outside the back wall into the bosses
        at_box_links() translate([0, -insert_hole_depth + box_wall, 0]) rotate([-90, 0, 0]) cylinder(d = insert_hole, h = insert_hole_depth + 1);
        // vents, low in the left wall
        for (i = [0 : vent_slots - 1])
            translate([-1, box_wall + box_margin + post + i * 2 * vent_slot_width, box_floor + 3])
                cube([box_wall + 2, vent_slot_width, wall_vent_height]);
    }
}
