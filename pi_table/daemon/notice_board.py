"""The table's screen notice and its part in a game night, on each wake of the loop: a game that
has just ended goes into the open night, a round's pair is dealt the game its red team starts, and
the notice says the reset code, the code a new staff phone types, or who plays here next."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ..engine.keys import Team
from ..hal import NewGame

if TYPE_CHECKING:
    from ..engine.phrase import Phrase
    from ..night.recorder import Recorder
    from ..table import Session
    from ..table.loop import EventLoop
    from ..web.auth import LineCode, Recovery


class Table(Protocol):
    """What the notice reads of the running table (``run.Daemon``)."""

    night: Recorder | None
    session: Session
    loop: EventLoop
    recovery: Recovery | None
    line_code: LineCode | None


class NoticeBoard:
    """``daemon``'s screen notice and night, kept up in the loop's thread."""

    def __init__(self, daemon: Table) -> None:
        self.daemon = daemon

    def tick(self) -> None:
        """On each wake of the loop, in its thread: a game that has just ended goes into the open night,
        and the screen's notice says who plays here next ("next: The Owls vs Quiz Club at table 2")."""
        next_up = None
        if self.daemon.night is not None:
            if self.daemon.session.state.is_over:
                self.daemon.night.seen(self.daemon.session.id, lambda: self.daemon.session.public_view().to_json())
            elif self.daemon.session.record.moves:  # a game under way: the round it is played for, looked up once
                self.daemon.night.begun(self.daemon.session.id)
            else:  # dealt, untouched: its first move, in a round, makes it the round's
                self.daemon.night.untouched(self.daemon.session.id)
                self._deal_red_first(self.daemon.night)
            next_up = self.daemon.night.next_up()
        self._show_notice(next_up)

    def _deal_red_first(self, night: Recorder) -> None:
        """While a round's pair is up here, the table deals games its red team starts, as the
        pairing says ("Foxes (red, plays first)"), and deals again the untouched game dealt
        otherwise (no move is lost): the slips and the TRF's white are then the team that began."""
        pair_up = night.pair_up()
        self.daemon.session.start = Team.RED if pair_up else None
        if pair_up and self.daemon.session.public_view().to_json().get("start") not in (None, Team.RED.value):
            self.daemon.loop.submit(NewGame(), public=False)
            night.untouched(self.daemon.session.id)  # dealt now, untouched: the round's at its first move

    def _show_notice(self, next_up: Phrase | None) -> None:
        """The screen's notice, shown when it changes: a staff PIN reset code first, then the code
        a new staff phone types while others' logins wait in line (``web.auth.LineCode``), then
        the night's next pair (``next_up``)."""
        if self.daemon.recovery is not None and self.daemon.recovery.active:
            return
        code = None if self.daemon.line_code is None else self.daemon.line_code.shown()
        if code is not None:
            from ..web.auth import code_notice  # loaded with the staff page that made the code

            said: Phrase | None = code_notice(code)
        else:
            said = next_up
        if said == self.daemon.loop.notice:
            return
        self.daemon.loop.notice = said
        self.daemon.loop.show()
