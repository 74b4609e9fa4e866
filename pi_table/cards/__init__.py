"""The cards' words: read from a picture of the laid-out grid (the spymaster's phone camera), so the
table knows what is written where. ``reading`` is the seam the pages call; the reader behind it is
this room's own."""

import os

# Debian's Tesseract is built with OpenMP, whose waiting threads spin: one thread reads a picture
# with 0.41 s of CPU where four took 0.95 s, taken from the table's other work (docs/dev/cards.md).
# OpenMP reads this once, when its library loads, which Debian's Pillow already brings: so here,
# before this room imports either.
os.environ.setdefault("OMP_THREAD_LIMIT", "1")
