// The electronics box's lid: screws into the corner posts' inserts; a lip underneath keeps it
// in place. In it: the two push buttons (END TURN, NEW GAME), vents over the Pi, the slot the
// display's ribbon comes down through behind the hood, and the two holes for the screws that
// hold the hood. Made upside down, as it prints: its top face on the bed.

include <common.scad>

box_lid();

module box_lid() {
    lip_wall = 1.6;
    mirror([0, 0, 1]) translate([0, 0, -lid_thickness]) difference() {
        union() {
            cube([box_x, box_y, lid_thickness]);
            // the lip, inside the walls, clear of the corner posts
            translate([0, 0, -lid_lip]) difference() {
                translate([box_wall + print_tolerance, box_wall + print_tolerance, 0])
                    cube([box_inner_x - 2 * print_tolerance, box_inner_y - 2 * print_tolerance, lid_lip]);
                translate([box_wall + print_tolerance + lip_wall, box_wall + print_tolerance + lip_wall, -1])
                    cube([box_inner_x - 2 * (print_tolerance + lip_wall), box_inner_y - 2 * (print_tolerance + lip_wall), lid_lip + 2]);
                at_posts() translate([-post / 2 - print_tolerance, -post / 2 - print_tolerance, -1])
                    cube([post + 2 * print_tolerance, post + 2 * print_tolerance, lid_lip + 2]);
            }
        }
        at_posts() translate([0, 0, -lid_lip - 1]) cylinder(d = screw_clearance, h = lid_thickness + lid_lip + 2);
        at_hood_screws() translate([0, 0, -1]) cylinder(d = screw_clearance, h = lid_thickness + 2);
        for (x = button_x) translate([box_wall + x, box_wall + button_y, -1]) cylinder(d = button_hole, h = lid_thickness + 2);
        translate([(box_x - ribbon_slot_length) / 2, hood_back_y + 2, -1]) cube([ribbon_slot_length, ribbon_slot_width, lid_thickness + 2]);
        for (i = [0 : vent_slots - 1])
            translate([box_wall + pi_x + 10 + i * 2 * vent_slot_width, box_wall + box_margin + 5, -1])
                cube([vent_slot_width, vent_slot_length, lid_thickness + 2]);
    }
}
