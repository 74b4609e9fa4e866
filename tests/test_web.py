"""The companion web app for the grid games: tokens, what each page may carry, live updates,
and the pages themselves in a real headless Chromium."""

from __future__ import annotations

import html
import http.client
import http.cookiejar
import json
import random
import threading
import time
import urllib.error
import urllib.request
from dataclasses import replace

import pytest

from pi_table.engine import Rules, make_game, parse_action
from pi_table.hal import ScreenModel, SimScreen
from pi_table.web import Companion, CompanionScreen, Tokens, codenames_snapshot, streams
from pi_table.web import games as web_games
from pi_table.web.phones import ANOTHER_PHONE
from pi_table.web.snapshot import SPYMASTER
from pi_table.web.streams import PUSH_GAP_S

from helpers import ROOT, wait_for
from helpers_games import hidden_swapped
from helpers_phones import another_phone, get, next_event, post

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"


def played(actions=(), key=KEY):
    game = make_game(Rules())
    state = game.start(game.parse_key(key))
    for text in actions:
        state = game.apply(state, parse_action(text))
    return game.spymaster_view(state)




class Events:
    """A server-sent event stream read line by line, as a browser's EventSource reads it."""

    def __init__(self, companion: Companion, path: str) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", companion.port, timeout=5)
        self.connection.request("GET", path)
        self.response = self.connection.getresponse()

    def next(self) -> tuple[str, dict]:
        return next_event(self.response)

    def close(self) -> None:
        self.connection.close()


@pytest.fixture
def tokens():
    return Tokens(b"0123456789abcdef0123456789abcdef")


def test_tokens_differ_by_game_and_role_and_survive_a_restart(tmp_path):
    kept = Tokens.kept_in(tmp_path)
    (tmp_path / "companion.secret").chmod(0o644)  # restored from a backup with looser rights
    again = Tokens.kept_in(tmp_path)
    assert kept.token("g1", SPYMASTER) == again.token("g1", SPYMASTER)
    assert oct((tmp_path / "companion.secret").stat().st_mode & 0o777) == "0o600"
    tokens = {kept.token(game, role) for game in ("g1", "g2") for role in (SPYMASTER, "seat-0", "seat-1")}
    assert len(tokens) == 6 and all(len(token) == 22 for token in tokens)
    assert Tokens.kept_in(None).token("g1", SPYMASTER) != kept.token("g1", SPYMASTER)


def test_a_short_secret_is_refused():
    with pytest.raises(ValueError, match="at least 16 bytes"):
        Tokens(b"short")


def test_the_public_snapshot_depends_on_the_shown_cards_alone(tokens):
    """Two keys that agree on every shown card give the same public page (like the LEDs)."""
    rng = random.Random(7)
    view = played(["clue 2", "touch 0", "touch 9"])
    other = played(["clue 2", "touch 0", "touch 9"], key=hidden_swapped(KEY, view.table.board, rng))
    assert other.key.cells != KEY
    assert codenames_snapshot("g", view, tokens).public == codenames_snapshot("g", other, tokens).public
    assert "key" not in json.dumps(codenames_snapshot("g", view, tokens).public)


def test_pages_serve_what_their_token_allows_and_nothing_for_a_wrong_one(companion, tokens):
    view = played(["clue 1", "touch 3"])
    companion.publish(codenames_snapshot("g1", view, tokens))
    spymaster = tokens.token("g1", SPYMASTER)
    base = companion.base_url

    status, body = get(f"{base}/api/public")
    public = json.loads(body)
    assert status == 200 and public["kind"] == "board" and public["view"]["board"][3] == "R"
    assert KEY not in body.decode() and "key" not in public["view"]

    status, body = get(f"{base}/api/p/{spymaster}")
    assert status == 200 and json.loads(body)["view"]["key"] == KEY
    assert get(f"{base}/p/{spymaster}")[0] == 200

    for wrong in (tokens.token("g0", SPYMASTER), spymaster[:-1] + ("A" if spymaster[-1] != "A" else "B"), "x"):
        assert get(f"{base}/api/p/{wrong}") == (404, b"")
        assert get(f"{base}/p/{wrong}") == (404, b"")
        assert get(f"{base}/api/p/{wrong}/events") == (404, b"")

    # A new game: the old spymaster token opens nothing any more.
    companion.publish(codenames_snapshot("g2", played(), tokens))
    assert get(f"{base}/api/public")[0] == 200
    assert get(f"{base}/api/p/{spymaster}") == (404, b"")
    assert get(f"{base}/api/p/{tokens.token('g2', SPYMASTER)}")[0] == 200


def test_actions_are_refused_with_a_reason_when_nothing_takes_them(companion, tokens):
    companion.publish(codenames_snapshot("g1", played(), tokens))
    url = f"{companion.base_url}/api/p/{tokens.token('g1', SPYMASTER)}/act"
    assert post(url, b'{"action": "clue 2"}') == (405, {"ok": False, "error": "this page only shows; it takes no actions"})
    assert post(f"{companion.base_url}/api/p/nope/act", b'{"action": "clue 2"}') == (404, None)


def test_actions_reach_the_table_and_bad_bodies_are_refused(tokens):
    seen = []

    def act(game_id, role, text):
        seen.append((game_id, role, text))
        return None if text == "clue 2" else f"{text!r} is not allowed now"

    companion = Companion("127.0.0.1", 0, act=act)
    companion.start()
    try:
        companion.publish(codenames_snapshot("g1", played(), tokens))
        url = f"{companion.base_url}/api/p/{tokens.token('g1', SPYMASTER)}/act"
        assert post(url, b'{"action": " clue 2 "}') == (200, {"ok": True, "error": None})
        assert post(url, b'{"action": "touch 99"}') == (409, {"ok": False, "error": "'touch 99' is not allowed now"})
        for bad in (b"not json", b'{"act": "clue 2"}', b'{"action": 3}', b'{"action": "a\\nb"}', b'{"action": ""}'):
            status, answer = post(url, bad)
            assert status == 400 and "expected a JSON object" in answer["error"]
        assert post(url, b'{"action": "' + b"x" * 5000 + b'"}') == (413, {"ok": False, "error": "an action is at most 4096 bytes"})
        assert seen == [("g1", SPYMASTER, "clue 2"), ("g1", SPYMASTER, "touch 99")]
    finally:
        companion.stop()


def test_event_streams_follow_the_game_and_say_when_a_token_is_gone(companion, tokens):
    companion.publish(codenames_snapshot("g1", played(), tokens))
    spymaster = Events(companion, f"/api/p/{tokens.token('g1', SPYMASTER)}/events")
    public = Events(companion, "/api/public/events")
    try:
        assert spymaster.next()[1]["view"]["board"] == "?" * 25
        assert public.next()[1]["view"]["board"] == "?" * 25
        companion.publish(codenames_snapshot("g1", played(["clue 1", "touch 0"]), tokens))
        assert spymaster.next()[1]["view"]["board"][0] == "R"
        assert public.next()[1]["view"]["board"][0] == "R"
        companion.publish(codenames_snapshot("g2", played(), tokens))
        assert spymaster.next()[0] == "gone"
        assert public.next()[1]["game_id"] == "g2"
    finally:
        spymaster.close()
        public.close()


def test_changes_closer_than_the_push_gap_reach_a_phone_as_the_newest_view(companion, tokens):
    """However fast the table changes, its phones are written to at most once a ``PUSH_GAP_S``
    (each write is a burst to every phone, in the table's process): a change that comes sooner
    waits out the gap and goes with the newest, so the last reveal is never lost."""
    companion.publish(codenames_snapshot("g1", played(["clue 9"]), tokens))
    public = Events(companion, "/api/public/events")
    reveals = [codenames_snapshot("g1", played(["clue 9", *(f"touch {cell}" for cell in range(n))]), tokens)
               for n in range(1, 9)]
    try:
        assert public.next()[1]["view"]["board"] == "?" * 25
        started = time.monotonic()
        for snapshot in reveals:  # eight reveals back to back
            companion.publish(snapshot)
        spent = time.monotonic() - started
        shown = []
        while not shown or shown[-1] < 8:
            shown.append(25 - public.next()[1]["view"]["board"].count("?"))
        assert len(shown) <= 2 + spent / PUSH_GAP_S, f"{len(shown)} pushes for reveals published in {spent:.3f} s"
    finally:
        public.close()


def test_a_push_to_many_phones_is_written_a_batch_at_a_time_and_all_get_the_newest_view(companion, tokens, monkeypatch):
    """Between two batches of a push the companion's thread sleeps, so the table's threads,
    which share the interpreter's lock with it, wait behind one batch of writes, not all of them:
    in any stretch shorter than ``BATCH_GAP_S`` at most ``PUSH_BATCH`` phones are written."""
    monkeypatch.setattr(streams, "PUSH_BATCH", 2)
    monkeypatch.setattr(streams, "BATCH_GAP_S", 0.05)
    companion.publish(codenames_snapshot("g1", played(["clue 9"]), tokens))
    phones = [Events(companion, "/api/public/events") for _ in range(5)]
    written = []
    push = companion._push
    monkeypatch.setattr(companion, "_push", lambda watcher: written.append(time.monotonic()) or push(watcher))
    try:
        for phone in phones:
            assert phone.next()[1]["view"]["board"] == "?" * 25
        written.clear()
        companion.publish(codenames_snapshot("g1", played(["clue 9", "touch 0"]), tokens))
        for phone in phones:
            assert phone.next()[1]["view"]["board"][0] != "?"
        assert len(written) == 5
        assert all(later - first >= 0.045 for first, later in zip(written, written[2:])), written
    finally:
        for phone in phones:
            phone.close()


def test_a_show_that_changes_nothing_a_page_shows_does_not_wake_the_server(companion, tokens, monkeypatch):
    """The table shows itself again on every touch and tick: only a change is handed to the
    server's thread, which the table's thread would otherwise wake and wait behind."""
    handed = []
    call = companion.call
    monkeypatch.setattr(companion, "call", lambda fn, *args: handed.append(args) or call(fn, *args))
    screen = CompanionScreen(SimScreen(), companion, tokens)
    for _ in range(3):
        screen.show(ScreenModel(played(), "g1"))  # a tick: a snapshot built again, equal
    screen.show(ScreenModel(played(["clue 1", "touch 0"]), "g1"))
    assert [snapshot.public["view"]["board"][0] for (snapshot,) in handed] == ["?", "R"]
    public = Events(companion, "/api/public/events")
    try:
        assert public.next()[1]["view"]["board"][0] == "R"
    finally:
        public.close()


def test_a_show_that_changes_nothing_a_page_shows_makes_no_snapshot_again(companion, tokens, monkeypatch):
    """Two shows in three change nothing a page shows (a touch, a release): the snapshot of the
    view the pages were last given is kept, its JSON and tokens not made again in the table's
    thread, and the spymaster's link stays on the screen."""
    made = []
    monkeypatch.setattr(web_games, "codenames_snapshot", lambda *args: made.append(args[0]) or codenames_snapshot(*args))
    inner = SimScreen()
    screen = CompanionScreen(inner, companion, tokens)
    for _ in range(3):
        screen.show(ScreenModel(played(), "g1"))
    screen.show(ScreenModel(played(["clue 1", "touch 0"]), "g1"))
    screen.show(ScreenModel(played(["clue 1", "touch 0"]), "g1"))
    screen.show(ScreenModel(played(), "g2"))
    assert made == ["g1", "g1", "g2"]
    assert inner.last.join == f"{companion.base_url}/p/{tokens.token('g2', SPYMASTER)}"


def test_the_companion_screen_publishes_and_gives_the_screen_the_spymaster_link(companion, tokens):
    inner = SimScreen()
    screen = CompanionScreen(inner, companion, tokens)
    screen.show(ScreenModel(played(), "g1"))
    link = inner.last.join
    assert link == f"{companion.base_url}/p/{tokens.token('g1', SPYMASTER)}"
    assert json.loads(get(link.replace("/p/", "/api/p/"))[1])["view"]["key"] == KEY
    assert replace(inner.last, join=None) == ScreenModel(played(), "g1")




def test_the_first_phone_to_open_a_page_keeps_it_even_after_a_restart(tmp_path, tokens):
    opened = tmp_path / "companion.opened"
    first, second = another_phone(), another_phone()
    for restart in range(2):
        companion = Companion("127.0.0.1", 0, act=lambda *_: None, proof=tokens.proof, opened_file=opened)
        companion.start()
        try:
            companion.publish(codenames_snapshot("g1", played(), tokens))
            spymaster = tokens.token("g1", SPYMASTER)
            api = f"{companion.base_url}/api/p/{spymaster}"
            if restart == 0:
                assert not companion.was_opened(spymaster)
                assert get(f"{companion.base_url}/p/{spymaster}", first)[0] == 200  # scanned: the page is this phone's
            assert companion.was_opened(spymaster)
            assert get(api, first)[0] == 200 and post(api + "/act", b'{"action": "clue 1"}', first)[0] == 200
            for thief in (second, urllib.request.build_opener()):
                status, page = get(f"{companion.base_url}/p/{spymaster}", thief)  # a page that says so, in English
                assert status == 403 and f"<h1 class=\"hide\">{html.escape(ANOTHER_PHONE)}</h1>".encode() in page
                assert b'<html lang="en">' in page
                refused = (403, {"ok": False, "error": ANOTHER_PHONE})
                assert (get(api, thief)[0], json.loads(get(api, thief)[1])) == refused
                assert post(api + "/act", b'{"action": "clue 1"}', thief) == refused
        finally:
            companion.stop()
    assert opened.read_text() == f"{tokens.token('g1', SPYMASTER)}\n"


def test_a_new_game_forgets_the_last_games_opened_pages(tmp_path, tokens):
    opened = tmp_path / "companion.opened"
    companion = Companion("127.0.0.1", 0, proof=tokens.proof, opened_file=opened)
    companion.start()
    try:
        companion.publish(codenames_snapshot("g1", played(), tokens))
        assert get(f"{companion.base_url}/p/{tokens.token('g1', SPYMASTER)}", another_phone())[0] == 200
        companion.publish(codenames_snapshot("g2", played(), tokens))
        wait_for(lambda: opened.read_text() == "", "the opened pages to be forgotten")
    finally:
        companion.stop()


def test_a_port_in_use_is_an_error_at_start_and_leaves_the_companion_harmless(companion, tokens):
    second = Companion("127.0.0.1", companion.port)
    with pytest.raises(OSError):
        second.start()
    second.publish(codenames_snapshot("g1", played(), tokens))  # the table may still show
    second.stop()


def test_the_watchdog_sees_the_servers_loop_and_thread_while_it_serves_and_nothing_once_stopped():
    """``serving()`` is what the daemon's heartbeat looks at (``LoopHeartbeat.check``): the loop
    and its thread while the companion serves; before it starts and after it stops, nothing to
    find sick."""
    from pi_table.daemon.notify import LoopHeartbeat

    companion = Companion("127.0.0.1", 0)
    assert companion.serving() == (None, None)
    companion.start()
    loop, thread = companion.serving()
    assert loop is not None and thread is not None and thread.is_alive()
    beat = LoopHeartbeat("the companion server")
    assert beat.check(loop, thread) is None
    wait_for(lambda: beat._asked is None, "the loop to answer the beat")
    companion.stop()
    assert companion.serving() == (None, None) and not thread.is_alive() and loop.is_closed()
    assert beat.check(*companion.serving()) is None


def test_a_stop_ends_the_server_though_the_table_never_answers_an_action(tokens):
    """A handler waiting on the table for good (an action the table never answers) holds the
    stop no longer than the application's shutdown gives it: the server's thread ends."""
    asked, released = threading.Event(), threading.Event()

    def act(game_id, role, text):
        asked.set()
        released.wait(30)

    companion = Companion("127.0.0.1", 0, act=act)
    companion.start()
    _, thread = companion.serving()
    assert thread is not None
    companion.publish(codenames_snapshot("g1", played(), tokens))
    connection = http.client.HTTPConnection("127.0.0.1", companion.port, timeout=10)
    connection.request("POST", f"/api/p/{tokens.token('g1', SPYMASTER)}/act", body=b'{"action": "clue 2"}')
    try:
        assert asked.wait(5)
        companion.stop()
        assert not thread.is_alive()
    finally:
        released.set()
        connection.close()


def test_links_follow_the_address_phones_reach_the_table_at():
    addresses = iter(["127.0.0.1", "192.168.1.20"])
    companion = Companion("0.0.0.0", 8024, advertise=lambda: next(addresses))
    assert companion.base_url == "http://127.0.0.1:8024"  # booted before the Wi-Fi had an address
    assert companion.base_url == "http://127.0.0.1:8024"  # asked again only after a while
    companion._address = (companion._address[0] - 60, companion._address[1])
    assert companion.base_url == "http://192.168.1.20:8024"
    assert Companion("0.0.0.0", 8024, base_url="http://table.local:80").base_url == "http://table.local:80"


# The pages in a real browser ------------------------------------------------------------------





def test_the_spymaster_page_shows_the_key_and_the_board_page_never_does(companion, tokens, browser, tmp_path):
    companion.publish(codenames_snapshot("g1", played(["clue 1", "touch 3"]), tokens))
    page = browser.new_page()
    page.goto(f"{companion.base_url}/p/{tokens.token('g1', SPYMASTER)}")
    page.wait_for_selector(".grid .cell.A")
    assert page.locator(".cell.R").count() == 9 and page.locator(".cell.shown").count() == 1
    page.screenshot(path=str(tmp_path / "spymaster.png"))

    board = browser.new_page()
    board.goto(companion.base_url + "/")
    board.wait_for_selector(".grid .cell.R")
    assert board.locator(".cell.hidden").count() == 24 and board.locator(".cell.A").count() == 0
    assert [c for c in board.inner_text(".grid") if c.isalpha()] == ["R"]  # the one card shown, no other letter

    companion.publish(codenames_snapshot("g1", played(["clue 1", "touch 3", "touch 24"]), tokens))
    board.wait_for_selector(".grid .cell.A")  # live: the assassin revealed, on both pages
    page.wait_for_selector(".cell.A.shown")
    companion.publish(codenames_snapshot("g2", played(), tokens))
    page.wait_for_selector("text=This page belonged to a game that has ended")
    page.close()
    board.close()


def test_a_phone_turned_away_at_the_stream_cap_follows_the_game_again_once_a_place_is_free(tokens, browser):
    """A browser takes a 503 on its event stream as final: the page said "trying again" and never
    did. It now tries again as the companion's Retry-After says (a page clock stands in for the wait)."""
    from pi_table.web.doors import RETRY_S

    script = (ROOT / "pi_table" / "web" / "static" / "app.js").read_text()
    assert f"const RETRY_MS = {RETRY_S * 1000};" in script  # the page waits as the server tells it to
    companion = Companion("127.0.0.1", 0, max_streams=1)
    companion.start()
    held = Events(companion, "/api/public/events")
    page = browser.new_page()
    try:
        companion.publish(codenames_snapshot("g1", played(), tokens))
        held.next()  # the one place for a spectator's stream
        page.clock.install()
        page.goto(f"{companion.base_url}/")
        page.locator("#status.error").wait_for(timeout=10_000)
        held.close()
        page.clock.run_for(2 * RETRY_S * 1000 + 1000)
        page.locator("#status:not(.error)").wait_for(timeout=10_000)
        companion.publish(codenames_snapshot("g1", played(["clue 1", "touch 0"]), tokens))
        page.locator('[data-cell="0"].R').wait_for(timeout=10_000)  # the page follows the game again
    finally:
        page.close()
        held.close()
        companion.stop()
