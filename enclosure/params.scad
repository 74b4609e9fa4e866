// The pi-table enclosure: every dimension of every printed part, in millimetres and degrees.
//
// The one source: each part's .scad includes this file, and hardware/enclosure.py reads it
// (python -m pi_table.hardware.enclosure) for the fit checks in tests/test_enclosure.py and
// the figures in hardware/README.md. Keep every line `name = value;` where the value is a
// number, true/false, a list of numbers, or arithmetic (+ - * / and min, max, tan, len, ...)
// of names defined above it: the Python reader accepts nothing else.
//
// Coordinates: x runs along a row of cards, y from the operatives' side (row 0, the key's
// first row) to the spymasters' side, z up. The grid's origin is the inner corner of the
// frame's rim at the operatives' left.

// ---- The game's cards
card_length = 69;        // a Codenames word card, the common retail size (about 69 x 44 mm): measure yours and set it here
card_width = 44;
card_thickness = 0.5;    // cardboard; counts in the cover a finger senses the pad through
card_clearance = 0.75;   // on each side of the card in its pocket
print_tolerance = 0.3;   // the least gap a printed fit needs on each side (a typical 0.4 mm nozzle printer)
pocket_depth = 1.5;      // how far a pocket's rim stands above the cover, holding the card
pocket_length = card_length + 2 * card_clearance;
pocket_width = card_width + 2 * card_clearance;

// ---- The cover: 3 mm opal acrylic (hardware/bom.csv), cut into one piece per cell
acrylic_thickness = 3;
acrylic_sheet = 500;     // the square sheet bought, 500 x 500 mm (hardware/bom.csv)
acrylic_clearance = 0.25; // on each side of a cut piece in its pocket
diffuser_length = pocket_length - 2 * acrylic_clearance;
diffuser_width = pocket_width - 2 * acrylic_clearance;
saw_kerf = 3;            // lost between two pieces cut from the sheet
cover_thickness = card_thickness + acrylic_thickness;

// ---- The grid: 5 x 5 cells, one card each
grid_columns = 5;
grid_rows = 5;
wall = 2.4;              // between two cells: the frame's walls and the carrier plate's ribs (6 lines of a 0.4 mm nozzle)
rim = 8;                 // the frame's outer rim
pitch_x = pocket_length + wall;
pitch_y = pocket_width + wall;
grid_x = grid_columns * pocket_length + (grid_columns - 1) * wall;
grid_y = grid_rows * pocket_width + (grid_rows - 1) * wall;
frame_x = grid_x + 2 * rim;
frame_y = grid_y + 2 * rim;

// ---- Heights, from the table up
floor_thickness = 3;     // the frame's floor, under the LED strip
light_depth = 16;        // floor to carrier plate: room for the LEDs' light to spread before the cover
plate_thickness = 2;     // the carrier plate the pads are stuck on
rib_height = acrylic_thickness + pocket_depth; // the carrier's ribs hold the acrylic piece and, above it, the card
recess_depth = 0.2;      // the pads' and the guard's outlines, sunk into the carrier plate's top
frame_height = floor_thickness + light_depth + plate_thickness + rib_height;

// ---- LEDs: a segment of WS2812B strip on the floor of each cell (hardware/pinout.toml [leds])
leds_per_cell = 4;       // must equal pinout.toml's leds_per_cell (a test checks)
strip_per_metre = 60;    // must equal pinout.toml's strip_per_metre
strip_width = 10;        // a 60 LEDs/m WS2812B strip
led_pitch = 1000 / strip_per_metre;
led_segment = leds_per_cell * led_pitch; // one cell's piece of strip, cut at the marks between LEDs
solder_room = 1.5;       // free floor at each end of a segment for the wires to the next cell
groove_depth = 0.6;      // a channel in the floor that places each segment on the cell's centre line
led_notch_width = 5;     // in the foot of each wall, where the LED wires pass from cell to cell
led_notch_height = 3;
wire_notch_width = 4;    // in the top of each wall, where the pad wires pass (apart from the LED wires)
wire_notch_height = 3;
cable_exit_width = 30;   // in the rim on the spymasters' side: the pad wires and the LED line leave the frame
cable_exit_height = 10;
edge_leds = 24;          // must equal pinout.toml's edge_leds: the edge strip on the rim's outer face

// ---- Pads: copper foil on the carrier plate, under the acrylic (hardware/README.md, Pads)
pad_rule_side = 8;       // the rule of thumb: a pad's side is at least this plus twice the cover
pad_length = 36;
pad_width = 22;
pad_gap = min((pocket_length - pad_length) / 2, (pocket_width - pad_width) / 2); // pad edge to cell edge, the least
guard_width = 3;         // the grounded guard foil, a band along each cell's edge
platform_margin = 3;     // solid plate around the pad, for its wire's hole
wire_hole = 2;           // through the plate at the pad's edge nearest the spymasters' side
spoke_width = 3;         // four arms hold each pad's platform in the plate
window_side = (pocket_width - pad_width) / 2 - platform_margin - guard_width;   // the light's way past the pad
window_end = (pocket_length - pad_length) / 2 - platform_margin - guard_width;
min_window = 3;          // the least width a light window may have
guard_passage_width = guard_width + 1; // a low tunnel under each rib, for the guard foil from cell to cell
guard_passage_height = 0.6;

// ---- Printing: the bed and the settings the parts are drawn for (enclosure/README.md)
bed_x = 220;             // a common print bed, 220 x 220 mm
bed_y = 220;
bed_z = 250;
nozzle = 0.4;
layer_height = 0.2;
perimeters = 3;          // walls of the slicer's outlines; the cell walls are solid lines of nozzle width anyway
infill_percent = 20;

// ---- Tiles: the frame and the carrier plate, split along walls to fit the print bed
tile_columns = [2, 1, 2]; // cells across each tile, left to right
tile_rows = [2, 3];       // cells along each tile, operatives' side first
tile_count = len(tile_columns) * len(tile_rows);
seam_gap = 0.2;          // between two tiles' edges
dovetail_neck = 8;       // the frame tiles' floors lock with a dovetail under each cell along a seam
dovetail_head = 12;
dovetail_length = 8;
carrier_clearance = 0.3; // between the carrier plate's outer edge and the rim

// ---- The spymaster screen: Raspberry Pi Touch Display 2, 7 inch (SC1635), held landscape
// Raspberry Pi's documentation (Touch Display 2, Specifications, Dimensions) gives the 7 inch
// display's outline as 189.5 x 120 mm, 15 mm deep, viewing area 155.5 x 88 mm, active area
// 154.5 x 87 mm; the product brief's drawing gives 189.32 x 120.24 mm. The outline here is the
// larger figure of each.
display_length = 189.5;
display_width = 120.24;
display_depth = 15;
viewing_length = 155.5;
viewing_width = 88;
display_clearance = 0.5; // on each side of the display in the hood
hood_wall = 2.4;
back_plate = 3;          // the hood's back, towards the operatives
lip = 5;                 // over the display's bezel at the sides and the bottom, holding it in
lip_thickness = 2;
visor = 18;              // how far the hood's roof and sides reach beyond the display's glass
screen_tilt = 0;         // how far the screen leans back from upright (the hood stands upright)
spymaster_elevation = 40;   // the spymasters look down at the screen at up to this angle...
spymaster_side_angle = 30;  // ...and from up to this far to either side, sitting side by side
operative_elevation = 80;   // the operatives, across the table, look at the hood from at most this high
cable_slot_width = 30;   // in the back plate, from the roof down: the display's ribbon and power cable
cable_slot_length = 70;
hood_inner_x = display_length + 2 * display_clearance;
hood_inner_y = display_width + 2 * display_clearance;
hood_x = hood_inner_x + 2 * hood_wall;
hood_y = hood_inner_y + 2 * hood_wall;
glass = back_plate + display_depth + display_clearance; // the display's front, from the hood's back
hood_depth = glass + visor;

// ---- The electronics box: the Pi, and the touch board on a piece of stripboard
pi_length = 85;          // Raspberry Pi 4 Model B board
pi_width = 56;
pi_holes_x = 58;         // its mounting holes, M2.5, 58 x 49 mm apart...
pi_holes_y = 49;
pi_hole_inset = 3.5;     // ...3.5 mm in from the board's edges at the GPIO header's first pin
pi_port_overhang = 3;    // USB-A and Ethernet stand out past the board's edge
pi_height = 16;          // the board's underside to the top of its USB-A and Ethernet jacks
pi_standoff = 5;
usb_plug_room = 40;      // beside the Pi's USB ports, for the touch board's cable and plug
header_cable_height = 24; // the board's underside to the top of the jumper housings on the GPIO header
pico_length = 51;        // Raspberry Pi Pico
pico_width = 21;
mpr121_length = 25.4;    // Adafruit 1982 MPR121 breakout
mpr121_width = 20.3;
mpr121_count = 3;        // must equal the number of chips in pinout.toml
shifter_length = 20;     // the 74AHCT125 in a DIP-14 socket
shifter_width = 8;
part_gap = 3;            // between two boards on the stripboard
stripboard_length = 60;  // the touch board's stripboard (x), the Pico and the breakouts on it
stripboard_width = 100;  // (y)
stripboard_standoff = 5;
stripboard_hole_inset = 3.5; // drill the stripboard's corners for M3 screws this far in...
screw_keepout = 7;       // ...and keep parts out of a square this big at each corner, for the screw heads
stripboard_thickness = 1.6;
part_height = 12;        // the stripboard's underside to the top of the breakouts' headers
pico_x = part_gap;       // on the stripboard: the Pico lengthwise along y...
pico_y = screw_keepout + part_gap;
mpr121_x = pico_x + pico_width + part_gap; // ...the breakouts in a column beside it...
mpr121_y = [pico_y, pico_y + mpr121_width + part_gap, pico_y + 2 * (mpr121_width + part_gap)];
shifter_x = part_gap;    // ...and the level shifter past the Pico's end
shifter_y = pico_y + pico_length + part_gap;
post = 8;                // the box's corner posts, holding the lid's inserts
box_margin = post + 2;   // between the boards and the walls, clear of the posts
box_wall = 2.4;
box_floor = 2.4;
pi_x = box_margin;       // in the box: the Pi at the left, its USB ports towards the stripboard
pi_y = box_margin;
stripboard_x = pi_x + pi_length + pi_port_overhang + usb_plug_room;
stripboard_y = box_margin;
box_inner_x = stripboard_x + stripboard_length + box_margin;
box_inner_y = box_margin + max(pi_width, stripboard_width) + box_margin;
box_inner_z = 34;
box_x = box_inner_x + 2 * box_wall;
box_y = box_inner_y + 2 * box_wall;
box_z = box_floor + box_inner_z;
lid_thickness = 3;
lid_lip = 2;             // a rim under the lid that sits inside the walls
insert_hole = 4.0;       // Ruthex M3 heat-set insert (hardware/bom.csv): the hole it is pressed into...
insert_length = 5.7;     // ...and its length
insert_hole_depth = 6.5;
screw_length = 8;        // M3 x 8 (hardware/bom.csv)
screw_clearance = 3.4;
pilot_hole = 2.2;        // an M2.5 screw cuts its own thread in the Pi's standoffs
button_hole = 16;        // 16 mm panel-mount push buttons (hardware/bom.csv), END TURN and NEW GAME, in the lid
button_depth = 13;       // how far a button and its lugs reach under the lid
button_x = [stripboard_x + 15, stripboard_x + 45]; // over the stripboard, in front of the hood (inside the walls)
button_y = 25;
port_window_start = 3;   // in the front wall: the Pi's USB-C power and micro-HDMI, along its board edge
port_window_end = 60;
port_window_height = 9;
wiring_exit_width = 30;  // in the back wall behind the stripboard: the pad wires, the LED line, the buttons
wiring_exit_height = 12;
vent_slot_width = 2.5;   // in the lid over the Pi and low in the left wall
vent_slot_length = 30;
vent_slots = 8;
wall_vent_height = 16;    // the left wall's vents
ribbon_slot_length = 25; // in the lid, behind the hood: the display's ribbon and power cable to the Pi
ribbon_slot_width = 5;
hood_back_y = box_y - box_wall - ribbon_slot_width - 4; // where the hood's back stands on the lid, from the box's front
hood_screws_apart = 120; // two M3 screws from inside the box into inserts in the hood's foot
hood_boss = post;        // the blocks in the hood's foot that hold those inserts, at the visor's front edge
