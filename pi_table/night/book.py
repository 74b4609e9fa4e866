"""The night's book: one private file per night, written as the journal is, a line per event
(opened, a team joined, a phone's team approved or a team removed, a round proposed, swapped
or confirmed, a game begun at this table and the round it was dealt for, a game played, a
team withdrawn or back, a result the staff entered or corrected, closed; at a follower, the
host accepted, the host's plan as it was heard, the night left), each
line fsynced and sealed with its CRC-32, so a restart or a power cut in the middle of a night
loses nothing the staff or a table was told was kept. The night as it stands is the fold of
its lines (``night.state.Night``): pure, and what the standings and the pairings are computed
from. The book is the rest: its commands check a director's request and write its event, its
store writes, fsyncs and locks.

Its rooms: ``night.store`` (the file, the pointer, the lock, the table's own games),
``night.director`` (the host's commands; ``night.roster``, those on the teams once joined) and ``night.follower`` (another table's night followed).
"""

from __future__ import annotations

from .director import Director
from .follower import Follower
from .roster import Roster


class Book(Director, Roster, Follower):
    """The nights kept in a folder and the open one (``night.store.Store``), run here as its
    director (``Director``, and ``Roster`` for the teams once joined) or followed from another
    table (``Follower``)."""
