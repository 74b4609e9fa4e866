"""The seats whose link the table has replaced, kept across restarts.

Whoever opens a seat's code first owns that seat's page, and the code shows openly on the
table's screen; so the table can take a seat back (a tap on its screen, ``pi-table
release-seat N``). A seat's token is derived from its generation (``Tokens.token``): 0 until the
seat is released, one more at each release, and each release voids the link before it. Only
the game on the table has generations worth keeping: they live in ``companion.released`` beside
the journal, readable by the service alone, so that after a restart the new link still opens
and the old one still does not.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from ..files import TooDeep, read_json, write_private

log = logging.getLogger("pi_table.web")


class SeatLinks:
    """The generation of each seat of one game; ``path`` None keeps them for this run only."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._game_id = ""
        self._generations: dict[int, int] = {}
        if path is not None and path.exists():
            try:
                kept = read_json(path.read_text(encoding="utf-8"))
                game_id = str(kept["game_id"])
                generations = {int(seat): int(n) for seat, n in kept["generations"].items() if int(n) > 0}
            except (OSError, UnicodeError, json.JSONDecodeError, TooDeep) as e:  # the system's words, or where the JSON broke
                log.warning("cannot read %s (%s): the seats released in this game have their first links again", path, e)
            except (ValueError, KeyError, TypeError, AttributeError):  # int()'s words would quote the file
                log.warning('%s is not {"game_id": ..., "generations": {SEAT: COUNT, ...}}: the seats released in this '
                            "game have their first links again", path)
            else:
                self._game_id, self._generations = game_id, generations

    def generations(self, game_id: str, seats: int) -> tuple[int, ...]:
        """Each seat's generation in ``game_id`` (0: never released)."""
        if game_id != self._game_id:
            return (0,) * seats
        return tuple(self._generations.get(seat, 0) for seat in range(seats))

    def release(self, game_id: str, seat: int) -> int:
        """Void ``seat``'s link in ``game_id``: its new generation, written down before it is used."""
        if game_id != self._game_id:  # the last game's releases mean nothing now
            self._game_id, self._generations = game_id, {}
        self._generations[seat] = self._generations.get(seat, 0) + 1
        self._keep()
        return self._generations[seat]

    def _keep(self) -> None:
        if self.path is None:
            return
        text = json.dumps({"game_id": self._game_id, "generations": self._generations}, sort_keys=True)
        try:
            write_private(self.path, text.encode())
        except OSError as e:
            log.warning("cannot keep the released seats in %s (%s): after a restart their old links open again",
                        self.path, e)
