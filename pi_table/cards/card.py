"""The printed word card, as the reader looks for it and the bench's photographs draw it: a card of
the box (about 68 by 43 mm, laid long side across) shows its word twice, large in black on a light
label along its lower edge and small, upside down, near its top for the player across the table.
In millimetres from the card's top-left corner, the card turned so its label's word reads upright."""

from __future__ import annotations

WIDTH_MM = 68.0
HEIGHT_MM = 43.0
GAP_MM = 5.0  # between two cards of the grid, as a table lays them: loosely, 2 to 10 mm
LABEL_MM = (6.0, 27.0, 62.0, 38.0)  # left, top, right, bottom: the light label the word reads upright on
TOP_WORD_MM = (10.0, 7.0, 58.0, 16.0)  # the same word, upside down, for the other side of the table
LABEL_CAPS_MM = 5.2  # the label word's capital letters' height
TOP_CAPS_MM = 3.6
