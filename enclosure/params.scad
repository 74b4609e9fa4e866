// The pi-table enclosure: every dimension of every printed part, in millimetres and degrees.
//
// The one source: each part's .scad includes this file, and hardware/tools/enclosure.py reads it
// (python -m pi_table.hardware.tools.enclosure) for the fit checks in tests/test_enclosure.py and
// the figures in hardware/README.md. Keep every line `name = value;` where the value is a
// number, true/false, a list of numbers, or arithmetic (+ - * / and min, max, tan, len, ...)
// of names defined above it: the Python reader accepts nothing else.
//
// Coordinates: x runs along a row of cards, y from the operatives' side (row 0, the key's
// first row) to the spymasters' side, z up. The grid's origin is the inner corner of the frame's
// rim at the operatives' left, on the wall between the END TURN band and row 0 (the row nearest
// them): the corner of cell 0. Cell n is in column n % 5, row n / 5.

// ---- The game's cards, each on a lit cell
// The reveal is the light round a card, so the card covers only the middle of its cell: a lit
// border `lit_border` wide shows on every side. At least 4 mm of it must show even when the card
// has slid against its stops: seen from the far side of the table (about 1 m away, at 25 to 35
// degrees) a 4 mm band is some 14 minutes of arc, many times what an eye resolves, so a team's
// colour reads at a glance in a lit room; narrower, it reads as a halo (the old 0.75 mm pocket).
// The card sets the cell: card_length and card_width are the size Codenames' word cards are
// commonly given (69 x 44 mm), not a measurement made for this design; printings differ, and so
// do other games' cards. Measure the cards you will play with, set them here before printing,
// and run the fit checks (the guide's Printing): the pocket, the grid and the tiles follow.
card_length = 69;        // the card's long side, mm: measure yours
card_width = 44;         // its short side, mm
card_thickness = 0.5;    // cardboard; counts in the cover a finger senses the pad through
lit_border = 5;          // from the card's edge to the cell's wall, each side, with the card in the middle
min_lit_border = 4;      // the least border that may show on any side, the card slid against a stop
card_clearance = 0.75;   // from the card's edge to a corner stop, each side: how far the card may slide
print_tolerance = 0.3;   // the least gap a printed fit needs on each side (a typical 0.4 mm nozzle printer)
card_stop_arm = 4;       // the card grille's corner stops reach this far along each edge of the card, past its corner
min_lit_edge = 0.75;     // the least share of each edge of the card that has lit border beside it (the stops hide the rest)
pocket_depth = 1.5;      // the card grille's height over the top sheet: its corner stops hold the card
pocket_length = card_length + 2 * lit_border; // a cell's lit opening, wall to wall
pocket_width = card_width + 2 * lit_border;

// ---- The top sheet: one 3 mm opal acrylic sheet over the whole grid (hardware/bom.csv). It
// diffuses the LEDs and keeps a spill off the copper and the LEDs: it lies on the carrier plate
// and on a ledge in the rim, and a bead of clear silicone fills the gap between its edge and the
// rim all round; the rim stands `spill_lip` above it, so a spill stays in a shallow tray.
acrylic_thickness = 3;
acrylic_sheet = 500;     // the square sheet bought, 500 x 500 mm (hardware/bom.csv)
sheet_ledge = 4;         // how far the rim's ledge reaches under the sheet's edge, past the grid
sheet_gap = 1.5;         // between the sheet's edge and the rim: the silicone bead
spill_lip = 3;           // the rim stands this far above the sheet
cover_thickness = card_thickness + acrylic_thickness;

// ---- The grid: 5 x 5 cells, one card each. Cell 0, LED 0 and electrode 0's pad are at the
// grid's origin corner, at the operatives' left in row 0 (the row nearest them).
grid_columns = 5;
grid_rows = 5;
wall = 2.4;              // between two cells: the frame's walls (6 lines of a 0.4 mm nozzle)
rim = 8;                 // the frame's outer rim
end_band = 30;           // the frame's band in front of row 0, on the operatives' side: the END TURN pads
pitch_x = pocket_length + wall;
pitch_y = pocket_width + wall;
grid_x = grid_columns * pocket_length + (grid_columns - 1) * wall;
grid_y = grid_rows * pocket_width + (grid_rows - 1) * wall;
frame_x = grid_x + 2 * rim;
frame_y = grid_y + end_band + 2 * rim;
sheet_x = grid_x + 2 * (sheet_ledge - sheet_gap);           // the top sheet, cut to this size
sheet_y = grid_y + end_band + 2 * (sheet_ledge - sheet_gap);

// ---- Heights, from the table up
floor_thickness = 3;     // the frame's floor, under the LED strip
light_depth = 20;        // floor to carrier plate: room for the light to spread, and for the glands' nuts
plate_thickness = 2;     // the carrier plate the pads are stuck on
recess_depth = 0.2;      // the pads' and the guard's outlines, sunk into the carrier plate's top
plate_top = floor_thickness + light_depth + plate_thickness; // where the top sheet lies
frame_height = plate_top + acrylic_thickness + spill_lip;

// ---- LEDs: a segment of WS2812B strip on the floor of each cell (hardware/pinout.toml [leds])
leds_per_cell = 4;       // must equal pinout.toml's leds_per_cell (a test checks)
strip_per_metre = 60;    // must equal pinout.toml's strip_per_metre
strip_width = 12;        // the IP65 (silicone-sleeved) 60 LEDs/m WS2812B strip the bill of materials lists: about 12 mm wide with its sleeve (the bare strip is 10 mm); measure yours
led_height = 2;          // an LED's top over the floor: where the light starts (under its silicone coat, sunk in the groove: an estimate)
led_pitch = 1000 / strip_per_metre;
led_segment = leds_per_cell * led_pitch; // one cell's piece of strip, cut at the marks between LEDs
solder_room = 1.5;       // free floor at each end of a segment for the wires to the next cell
groove_depth = 0.6;      // a channel in the floor that places each segment on the cell's centre line
led_notch_width = 10;    // in the foot of each wall, where the LED wires pass from cell to cell: the busiest
led_notch_height = 6;    // (row 4's, next to the bus) takes three 0.75 mm2 pairs and a row's three joins
pair_wire_od = 2.3;      // a 0.75 mm2 (18 AWG) silicone wire across its insulation (an estimate: measure yours)
thin_wire_od = 1.3;      // a 26 AWG silicone hook-up wire, the same (an estimate)
wire_notch_width = 4;    // in the top of each wall, where the pad wires pass (apart from the LED wires)
wire_notch_height = 3;
edge_leds = 24;          // must equal pinout.toml's edge_leds: the edge strip on the front rim's outer face (the operatives' side)
edge_hole = 8;           // drilled through the front rim and the band's inner wall at column 4: the edge's pair and data wire
// The power bus (hardware/README.md, The LED supply): four WAGO 221-415 lever connectors on the floor
// of cell bus_cell, beside the LED cable's gland, two a polarity along each long wall of the cell, and C2
// lying on its side; each stands near its wall, low enough that the light to the border passes over it.
bus_cell = 20;           // row 4, column 0: the LED cable's gland is at its back corner (led_exit_wall 1)
wago_width = 30;         // a WAGO 221-415 across its five levers (about 29.9 mm)...
wago_depth = 18.6;       // ...from its entries to its back...
wago_height = 8.5;       // ...and lying flat, its height (WAGO's drawing; an estimate: measure yours)
c2_diameter = 10;        // the 1000 uF 10 V electrolytic lying on its side along the ground side, 10 x 16 mm (an estimate)
c2_length = 16;

// ---- Cables leaving the frame: each through an M12 x 1.5 cable gland (strain relief, hardware/bom.csv)
// in the back rim, at the end of a wall, where its nut inside sits under two cells' corner stops.
gland_hole = 12.5;       // M12 x 1.5 thread, with clearance
gland_nut = 19;          // its locknut, across the corners (an estimate: measure yours)
gland_clamp = [3.5, 7];  // the cable diameters the gland seals and holds (Lapp SKINTOP ST-M 12x1.5's range)
gland_spare = 1;         // each cable this far inside the range at either end: the sheath's spread, the seal's grip
led_cable_od = 6;        // H03VV-F 3 x 0.75 mm2 across its sheath (an estimate: measure the cable bought)
i2c_cable_od = 5;        // LiYY (TP) 2 x 2 x 0.25 mm2 (an estimate: measure it)
gland_nut_depth = 5;     // the nut's thickness, standing into the cell
gland_thread = 15;       // the thread below the gland's body, as the bill asks for it (a "long thread" gland): the rim's
                         // 8 mm, the nut's 5 and a turn to spare; the common M12 gland's 8 mm leaves the nut nothing
gland_z = floor_thickness + 0.5 + gland_nut / 2; // the glands' centres over the table: the nut clears the floor
led_exit_wall = 1;       // the LED power and data leave behind the wall between columns 0 and 1...
touch_exit_wall = 4;     // ...the touch board's I2C behind the wall between columns 3 and 4, apart

// ---- Pads: copper foil on the carrier plate, under the top sheet, under the card's middle
pad_rule_side = 8;       // the rule of thumb: a pad's side is at least this plus twice the cover
pad_length = 50;
pad_width = 30;
foil_width = 50;         // the copper tape bought (hardware/bom.csv): one strip must cover a pad's short side
pad_gap = min((pocket_length - pad_length) / 2, (pocket_width - pad_width) / 2); // pad edge to cell edge, the least
guard_width = 2;         // the grounded guard foil, a line along the top of every wall between two cells
platform_margin = 3;     // solid plate around the pad, for its wire's hole
wire_hole = 2;           // through the plate at the pad's edge nearest the spymasters' side
spoke_width = 3;         // four arms hold each pad's platform in the plate, out to the cell's corners (under the stops)
platform_side = (pocket_width - pad_width) / 2 - platform_margin;  // cell edge to the pad's platform: the light's way
platform_end = (pocket_length - pad_length) / 2 - platform_margin;
// The END TURN pads (electrodes 25 and 26): in the band in front of row 0, each ringed by guard foil
end_pad_length = 40;
end_pad_width = 15;
end_pad_x = [pitch_x + pocket_length / 2, 3 * pitch_x + pocket_length / 2]; // centres: in front of columns 1 and 3
end_guard_gap = 3;       // from the END TURN pad to its guard ring

// ---- The MPR121 breakouts: on the carrier plate, each under the pad platform of a cell amid
// the pads it reads (the platform is under the card, so the board casts no shadow on the border)
breakout_standoff = 3;   // the posts that hold a breakout under the plate
breakout_drop = 6;       // the plate's underside to the lowest point of a breakout and its wires
cell_breakout = [0, 0, 2, 1, 1, 0, 0, 2, 1, 1, 0, 0, 2, 1, 1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1]; // each cell's breakout, cells row-major from cell 0
end_turn_breakout = 2;   // both END TURN pads: electrodes 25 and 26 are on the third chip (0x5C)
breakout_host = [11, 13, 2]; // the cell each breakout hangs under: 0x5A on the left, 0x5B on the right, 0x5C in front
wire_slack = 20;         // added to each pad wire: the drops through the plate and the solder ends
pad_wire_limit = 250;    // the longest pad wire allowed, mm (hardware/README.md, Pads: why)

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
spymaster_side_angle = 30;  // the spymasters, side by side, look at the screen from up to this far to either side
// Who sees what, from seated eye height (hardware/tools/enclosure.py works out the angles from these):
table_height = 750;      // a café table's top over the floor
seated_eye = [1150, 1250]; // a seated player's eye over the floor, the lowest and the highest
eye_from_edge = [400, 500]; // the eye's distance back from the table's edge, the nearest and the farthest
station_gap = 360;       // the frame's back rim to the electronics box: far enough that the spymasters see the cards over the hood
station_from_edge = 20;  // the box's front to the spymasters' edge of the table
operatives_from_edge = 20; // the frame's front to the operatives' edge of the table
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
pi_board = 1.6;          // the board's thickness
pi_heatsink_height = 10; // a heatsink on its processor, over the board, tape and processor included (hardware/bom.csv)
heatsink_air = 5;        // free air over the heatsink's fins, under the lid's vents
usb_plug_room = 40;      // beside the Pi's USB ports, for the touch board's cable and its USB-A plug
header_cable_height = 24; // the board's underside to the top of the jumper housings on the GPIO header
post = 8;                // the box's corner posts, holding the lid's inserts
box_margin = post + 2;   // between the boards and the walls, clear of the posts
box_margin_front = box_margin; // the stripboard's front edge to the box's front wall
pico_length = 51;        // Raspberry Pi Pico
pico_width = 21;
pico_plug_length = 22;   // a micro-USB plug, its moulding included, out from the Pico's end (an estimate)
usb_bend_radius = 20;    // the least bend of the USB cable past the plug (about 5 x a 4 mm cable)
mpr121_length = 25.4;    // Adafruit 1982 MPR121 breakout: on the frame (Pads, above), not in the box
mpr121_width = 20.3;
mpr121_count = 3;        // must equal the number of chips in pinout.toml
shifter_length = 20;     // the 74AHCT125 in a DIP-14 socket
shifter_width = 8;
part_gap = 3;            // between two boards on the stripboard
stripboard_length = 60;  // the touch board's stripboard (x): the Pico and the level shifter on it
stripboard_width = 100;  // (y)
stripboard_standoff = 5;
stripboard_hole_inset = 3.5; // drill the stripboard's corners for M3 screws this far in...
screw_keepout = 7;       // ...and keep parts out of a square this big at each corner, for the screw heads
stripboard_thickness = 1.6;
part_height = 12;        // the stripboard's underside to the top of the Pico on its headers
pico_x = part_gap;       // on the stripboard: the Pico lengthwise along y, its USB end towards the front...
pico_y = pico_plug_length + usb_bend_radius - box_margin_front;
shifter_x = pico_x + pico_width + part_gap; // ...and the level shifter beside it
shifter_y = pico_y + pico_length - shifter_width;
box_wall = 2.4;
box_floor = 2.4;
pi_x = box_margin;       // in the box: the Pi at the left, its USB ports towards the stripboard
pi_y = box_margin;
stripboard_x = pi_x + pi_length + pi_port_overhang + usb_plug_room;
stripboard_y = box_margin_front;
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
box_led_gland_x = stripboard_x + 38;   // glands in the back wall: the LED cable's, over the shifter...
box_touch_gland_x = stripboard_x + 12; // ...and the touch board's I2C cable's, over the Pico (the box is turned to face the spymasters, so the two cables do not cross)
box_gland_x = [box_led_gland_x, box_touch_gland_x];
box_gland_z = box_z - lid_lip - gland_nut / 2 - 1; // high in the wall, their nuts over the stripboard's parts
jack_hole = 8;           // the LED supply's panel-mount DC jack: Switchcraft 722A (hardware/bom.csv), a 5/16-32 bushing for a 7.95 mm hole in a wall up to 3.18 mm (box_wall)
jack_nut = 15;           // its nut across the corners (an estimate)
jack_depth = 20;         // how far its body and solder tags reach into the box
jack_y = box_inner_y - post - jack_nut / 2 - 2; // in the left wall, behind the Pi, clear of the back posts
jack_z = box_z - lid_lip - jack_nut / 2 - 1;
link_apart = 180;        // two links (aluminium flat bar) hold the station to the frame: M3 inserts this far apart...
link_z = 12;             // ...this high, in the frame's back rim and in bosses on the box's back wall
link_boss = 8;
foot_bar = 400;          // each foot: 20 x 3 mm aluminium flat bar this long (hardware/bom.csv), lying on the table...
foot_leg = 20;           // ...each end bent up this far (outside of the bend to the end), a hole in it link_z up
speaker_length = 70;     // the 4 ohm 3 W enclosed speaker (hardware/bom.csv), lying along the back wall behind the Pi
speaker_height = 31;     // (estimates for an Adafruit 4445-style box speaker: measure yours and set them here)
speaker_depth = 17;      // from its grille face back
speaker_x = 30;          // its left end, along the back wall, clear of the DC jack and the left link boss
speaker_rib = 2;         // a rib on the floor holds it against the wall (foam tape under it)...
speaker_rib_height = 8;  // ...this high
grille_slot_width = 2.5; // the speaker's grille: slots through the back wall, facing the players
grille_slot_length = 40;
grille_slots = 5;
vent_slot_width = 2.5;   // in the lid over the Pi and low in the left wall
vent_slot_length = 30;
vent_slots = 8;
wall_vent_height = 16;    // the left wall's vents
ribbon_slot_length = 25; // in the lid, behind the hood: the display's ribbon and power cable to the Pi
ribbon_slot_width = 5;
hood_back_y = box_y - box_wall - ribbon_slot_width - 4; // where the hood's back stands on the lid, from the box's front
hood_screws_apart = 120; // two M3 screws from inside the box into inserts in the hood's foot
hood_boss = post;        // the blocks in the hood's foot that hold those inserts, at the visor's front edge
