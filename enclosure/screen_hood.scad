// The spymaster screen's hood: the Touch Display 2 slides in from the top, face towards the
// spymasters, its back to the operatives. The back plate hides the screen from the operatives'
// side; the roof and sides, a visor, shade it, and stay short enough that both spymasters,
// sitting side by side, see all of it. Lips at the sides and bottom hold the display's bezel.
// The hood stands on the electronics box's lid, held by two M3 screws into inserts in its foot.
// Coordinates: x along the display, y up it (the foot at y = 0), z out of the screen.
// Print back plate down: the lips overhang `lip` millimetres, the bosses slope at 45 degrees.

include <common.scad>

screen_hood();

module screen_hood() {
    difference() {
        union() {
            // back plate and the four walls
            cube([hood_x, hood_y, back_plate]);
            difference() {
                cube([hood_x, hood_y, hood_depth]);
                translate([hood_wall, hood_wall, -1]) cube([hood_inner_x, hood_inner_y, hood_depth + 2]);
            }
            // lips over the display's bezel: both sides, and the foot
            for (x = [hood_wall, hood_x - hood_wall - lip])
                translate([x, hood_wall, glass]) cube([lip, hood_inner_y, lip_thickness]);
            translate([hood_wall, hood_wall, glass]) cube([hood_inner_x, lip, lip_thickness]);
            // the bosses in the foot for the inserts, sloping into the foot below them
            for (side = [-1, 1]) translate([hood_x / 2 + side * hood_screws_apart / 2, 0, 0]) hull() {
                translate([-hood_boss / 2, 0, hood_depth - hood_boss]) cube([hood_boss, hood_wall + insert_hole_depth + 1, hood_boss]);
                translate([-hood_boss / 2, 0, hood_depth - hood_boss - insert_hole_depth - 1]) cube([hood_boss, hood_wall, 0.01]);
            }
        }
        // the display slides in through the roof, between the back plate and the lips
        translate([hood_wall, hood_y - hood_wall - 1, back_plate]) cube([hood_inner_x, hood_wall + 2, display_depth + display_clearance]);
        // the display's ribbon and power cable leave through the back plate
        translate([(hood_x - cable_slot_width) / 2, hood_y - hood_wall - cable_slot_length, -1])
            cube([cable_slot_width, cable_slot_length + hood_wall + 1, back_plate + 2]);
        // insert holes, from the foot's underside
        for (side = [-1, 1]) translate([hood_x / 2 + side * hood_screws_apart / 2, -1, hood_depth - hood_boss / 2])
            rotate([-90, 0, 0]) cylinder(d = insert_hole, h = insert_hole_depth + 1);
    }
}
