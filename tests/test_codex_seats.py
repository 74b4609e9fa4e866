"""Taking a Codex seat back: whoever opens a seat's code first owns its page, so a seat claimed
by the wrong phone gets a new link, from a tap on the table's screen or `pi-table release-seat
N`; the old link opens nothing any more, the screen shows the new code, the game is untouched,
and a restart keeps the new link."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"  # headless: before pygame is imported
os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"

import html
import http.client
import json
import re
import threading
import urllib.parse

import pygame
import pytest

from pi_table.engine.codex import Codex
from pi_table.engine.codex_rules import CodexRules
from pi_table.hal import ReleaseSeat, SimButtons, SimLedStrip, SimScreen, SimTouch, UiEvent
from pi_table.table import Session
from pi_table.table.codex_loop import CodexLoop
from pi_table.ui.codex_screen import draw_codex
from pi_table.ui.codex_turns import Turn
from pi_table.ui.screens import ScreenPainter
from pi_table.web import Companion, CompanionScreen, Tokens
from pi_table.web.phones import REPLACED
from pi_table.web.seats import SeatLinks
from pi_table.web.tokens import seat_role

from helpers import pi_table, wait_for
from helpers_phones import another_phone, get, next_event, post
from helpers_tables import CODEX_CONFIG, service_daemon

SETUP = (
    "Moon:red:leader:1:AAAA Aleman:red:hacker:2:BBBB Viper:red:inquisitore:3:CCCC "
    "Falco:blue:leader:1:DDDD Nebbia:blue:hacker:2:EEEE Orso:blue:inquisitore:3:FFFF"
)
ACT = b'{"action": "send 2 3 role"}'
OK = (200, {"ok": True, "error": None})
GONE = (410, {"ok": False, "error": REPLACED})


def refused_page(answer: tuple[int, bytes]) -> tuple[int, str]:
    """A refusal page's status and its one sentence."""
    status, page = answer
    return status, html.unescape(re.search(r'<h1 class="hide">(.*?)</h1>', page.decode()).group(1))


def link(table, status: dict, seat: int, generation: int = 0) -> str:
    """Seat ``seat``'s link of that ``generation`` (0 until the seat is released), as the table makes it."""
    token = Tokens.kept_in(table.folder / "journal").token(status["game_id"], seat_role(seat), generation)
    return f"{status['companion']}/p/{token}"


def api(page: str) -> str:
    return page.replace("/p/", "/api/p/")


# --- over the control socket -------------------------------------------------------------------


def test_release_seat_voids_the_old_link_opens_a_new_one_and_a_restart_keeps_it(codex_daemon):
    status = codex_daemon.status()
    wrong, right, stranger = another_phone(), another_phone(), another_phone()
    old = link(codex_daemon, status, 2)
    assert get(old, wrong)[0] == 200  # the wrong phone scanned seat 2's code first
    before = codex_daemon.status()["state"]
    answer = pi_table("release-seat", "2", "--config", str(codex_daemon.config))
    assert answer.returncode == 0, answer.stderr
    assert "seat 2" in answer.stdout and "new code" in answer.stdout
    assert codex_daemon.status()["state"] == before  # the game is untouched
    for phone in (wrong, stranger):
        assert refused_page(get(old, phone)) == (410, REPLACED)
        assert (get(api(old), phone)[0], json.loads(get(api(old), phone)[1])) == GONE
        assert post(api(old) + "/act", ACT, phone) == GONE
    new = link(codex_daemon, status, 2, generation=1)
    assert new != old and get(new, right)[0] == 200  # the right phone scans the new code
    assert post(api(new) + "/act", ACT, right) == OK
    assert get(new, wrong)[0] == 403  # and the page is the right phone's
    released = codex_daemon.folder / "journal" / "companion.released"
    assert released.stat().st_mode & 0o777 == 0o600
    codex_daemon.systemd.kill()
    codex_daemon.systemd.start()
    restarted = codex_daemon.status()
    assert restarted["game_id"] == status["game_id"]
    old, new = link(codex_daemon, restarted, 2), link(codex_daemon, restarted, 2, generation=1)  # the port is another
    assert get(new, right)[0] == 200 and json.loads(get(api(new), right)[1])["seat"] == 2
    assert get(new, stranger)[0] == 403 and get(old, wrong)[0] == 410
    refused = pi_table("release-seat", "6", "--config", str(codex_daemon.config))
    assert refused.returncode == 1 and "seat 6 is not at this table: a seat is a number from 0 to 5" in refused.stderr


def joins(daemon):
    return daemon.devices.screen.screen.last.joins


MISSING = object()


@pytest.mark.parametrize("seat, error", [
    (6, "seat 6 is not at this table: a seat is a number from 0 to 5"),
    (-1, "seat -1 is not at this table: a seat is a number from 0 to 5"),
    ("2", 'expected a seat number, such as {"command": "release-seat", "seat": 2}, not \'2\''),
    (True, 'expected a seat number, such as {"command": "release-seat", "seat": 2}, not True'),
    (MISSING, 'expected a seat number, such as {"command": "release-seat", "seat": 2}, not None'),
])
def test_a_bad_seat_is_refused_clearly_and_changes_nothing(codex_in_process, seat, error):
    daemon = codex_in_process
    state, shown = daemon.session.state, joins(daemon)
    request = {"command": "release-seat"} if seat is MISSING else {"command": "release-seat", "seat": seat}
    assert daemon.answer(request) == {"ok": False, "error": error}
    assert daemon.session.state == state and joins(daemon) == shown
    assert not (daemon.config.paths.journal_dir / "companion.released").exists()


def test_a_release_is_for_codex_seats_only_and_the_screen_shows_the_new_code(codex_in_process):
    daemon = codex_in_process
    old = joins(daemon)
    journal = daemon.config.paths.journal_dir / f"{daemon.session.id}.jsonl"
    kept = journal.read_text()
    answer = daemon.answer({"command": "release-seat", "seat": 4})
    assert answer["ok"] and answer["game_id"] == daemon.session.id
    new = joins(daemon)
    assert new[4] is not None and new[4] != old[4] and new[:4] + new[5:] == old[:4] + old[5:]
    assert journal.read_text() == kept  # nothing to journal: the game is untouched
    assert daemon.answer({"command": "new-game", "game": "codenames"})["ok"]
    assert daemon.answer({"command": "release-seat", "seat": 4}) == {
        "ok": False, "error": "the table is playing Codenames, whose players have no seats"}


def test_without_the_phones_pages_there_is_no_seat_to_release(tmp_path):
    (tmp_path / "config.toml").write_text(CODEX_CONFIG.replace('[web]\n', '[web]\nenabled = false\n'))
    daemon = service_daemon(tmp_path / "config.toml")
    runner = threading.Thread(target=daemon.run, daemon=True)
    try:
        daemon.start()
        runner.start()
        assert daemon.wait_for_phones()  # the companion opens once the table is up
        answer = daemon.answer({"command": "release-seat", "seat": 1})
        assert answer == {"ok": False, "error": "this table has no phone pages (the companion is off): "
                                                "there is no seat link to release"}
        assert daemon.loop.message is None  # the staff's refusal, not the table's
        frame = draw_codex(pygame.Surface((800, 480)), daemon.loop.model(0.0))
        assert not any(isinstance(tap.mode, Turn) and tap.mode.releasing is not None for tap in frame.taps)
    finally:
        daemon.stop()
        runner.join(timeout=5)
        daemon.close()


def test_the_cli_says_what_release_seat_does_and_wants_a_number():
    helped = pi_table("release-seat", "--help")
    assert helped.returncode == 0 and "new link" in " ".join(helped.stdout.split())
    wrong = pi_table("release-seat", "two")
    assert wrong.returncode == 2 and "invalid int value: 'two'" in wrong.stderr


# --- from a tap on the table's screen -----------------------------------------------------------


class Table:
    """A Codex table with the companion beside its screen, drawn by the real painter."""

    def __init__(self, folder, tokens) -> None:
        self.companion = Companion("127.0.0.1", 0, proof=tokens.proof)
        self.companion.start()
        self.tokens, self.inner = tokens, SimScreen()
        self.seats = SeatLinks(folder / "companion.released")
        screen = CompanionScreen(self.inner, self.companion, tokens, self.seats)
        self.session = Session(CodexRules(), key=Codex().parse_setup(SETUP))
        self.loop = CodexLoop(self.session, SimTouch(), SimLedStrip(), screen, SimButtons())
        self.loop.open()
        self.painter = ScreenPainter()
        self.image = pygame.Surface((800, 480))

    def draw(self):
        return self.painter.draw(self.image, self.inner.last, 0.0)

    def tap(self, hit):
        x, y, w, h = hit.rect
        command = self.painter.tap((x + w // 2, y + h // 2))
        if command is not None:
            self.loop.post(UiEvent(command))
        outcomes = self.loop.run_pending()
        self.draw()
        return command, outcomes

    def hit(self, mode: Turn | None = None, command=None):
        """The one tap on the frame that leads to ``mode`` or sends ``command``."""
        found = [tap for tap in self.painter.frame.taps if (tap.command == command if command else tap.mode == mode)]
        assert len(found) == 1, (mode, command, self.painter.frame.texts)
        return found[0]

    def close(self):
        self.loop.close()
        self.companion.stop()


@pytest.fixture
def tokens():
    return Tokens(b"0123456789abcdef0123456789abcdef")


def stream(companion, page: str, tokens):
    """The page's event stream, opened by the phone holding its cookie."""
    token = page.rsplit("/", 1)[1]
    connection = http.client.HTTPConnection("127.0.0.1", companion.port, timeout=5)
    cookie = f"pt_{token[:12]}={tokens.proof(token)}"
    connection.request("GET", urllib.parse.urlsplit(api(page)).path + "/events", headers={"Cookie": cookie})
    return connection, connection.getresponse()



def test_a_tap_on_a_seat_asks_first_then_gives_it_a_new_code(tmp_path, tokens):
    table = Table(tmp_path, tokens)
    wrong, right = another_phone(), another_phone()
    try:
        links = table.inner.last.joins
        old = links[2]
        for seat, page in enumerate(links):  # every agent joins, and the wrong phone got Viper's seat
            assert get(page, wrong if seat == 2 else another_phone())[0] == 200
        wait_for(lambda: table.loop.run_pending() is not None and table.inner.last.joins == (None,) * 6,
                 "the screen to stop showing the codes")
        connection, held = stream(table.companion, old, tokens)  # the wrong phone's page stays open
        assert next_event(held)[1]["seat"] == 2
        state = table.session.state
        table.draw()
        assert table.tap(table.hit(Turn(releasing=2))) == (None, [])  # Viper's card asks first
        assert "A new code for Viper (seat 2)?" in table.painter.frame.texts
        table.tap(table.hit(Turn()))  # CANCEL
        assert table.painter.current.turn == Turn() and table.inner.last.joins[2] is None
        table.tap(table.hit(Turn(releasing=2)))
        command, [outcome] = table.tap(table.hit(command=ReleaseSeat(2)))
        assert command == ReleaseSeat(2) and outcome.ok
        new = table.inner.last.joins[2]
        assert new is not None and new != old and table.session.state == state
        assert table.painter.current.turn == Turn()
        assert "Viper (seat 2): scan with your phone to join" in table.painter.frame.texts
        assert next_event(held) == ("gone", {"replaced": True})  # the old page learns at once
        connection.close()
        assert refused_page(get(old, wrong)) == (410, REPLACED)
        assert get(new, right)[0] == 200 and json.loads(get(api(new), right)[1])["seat"] == 2
        assert get(new, wrong)[0] == 403
    finally:
        table.close()


def test_the_phone_on_the_old_link_is_told_its_link_was_replaced(tmp_path, tokens, browser):
    table = Table(tmp_path, tokens)
    phone = browser.new_page()
    try:
        phone.goto(table.inner.last.joins[3])
        phone.wait_for_selector(".identikit")
        table.loop.post(UiEvent(ReleaseSeat(3)))
        assert [outcome.ok for outcome in table.loop.run_pending()] == [True]
        phone.wait_for_selector("text=This seat's link was replaced: scan the new code on the table's screen.")
        assert phone.inner_text("#status") == "link replaced"
        phone.reload()
        assert phone.inner_text("body") == REPLACED
    finally:
        phone.close()
        table.close()


def test_the_seat_links_file_is_the_services_alone_and_a_damaged_one_is_not_fatal(tmp_path):
    path = tmp_path / "companion.released"
    seats = SeatLinks(path)
    assert seats.generations("g1", 6) == (0,) * 6
    assert seats.release("g1", 3) == 1 and seats.release("g1", 3) == 2
    assert path.stat().st_mode & 0o777 == 0o600
    again = SeatLinks(path)
    assert again.generations("g1", 6) == (0, 0, 0, 2, 0, 0) and again.generations("g2", 6) == (0,) * 6
    assert again.release("g2", 0) == 1 and SeatLinks(path).generations("g1", 6) == (0,) * 6  # one game kept
    path.write_text("{not json")
    assert SeatLinks(path).generations("g2", 6) == (0,) * 6
