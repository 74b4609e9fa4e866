"""The cards' words: read from a picture of the laid-out grid (the spymaster's phone camera), so the
table knows what is written where. ``reading`` is the seam the pages call; the reader behind it is
this room's own."""
