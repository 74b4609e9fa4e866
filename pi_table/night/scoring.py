"""The night's scoring words, shared by the book (what a night is opened with, what the staff
enter) and the standings (what each counts for): what a bye scores unless the night says
otherwise, the tie-breaks a night may use, and how a round's result was decided."""

from __future__ import annotations

BYE_POINTS = 1.0  # FIDE C.04: a pairing-allocated bye scores a win's points
RATING, BUCHHOLZ = "rating", "buchholz"  # the tie-breaks after points
PLAYED, FORFEIT, DOUBLE_LOSS = "played", "forfeit", "double-loss"  # how a round's result was decided
