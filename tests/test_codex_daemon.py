"""Codex on the running table: `pi-table run --hal sim` under a stand-in for systemd, the phones
acting over the companion's HTTP, the switch between Codex and the grid games, a crash in the
middle of a Codex game, and six real browser sessions playing to a win."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from types import SimpleNamespace

import pytest

from pi_table.engine.codex_actions import parse_codex_action
from pi_table.engine.codex_setup import Faction
from pi_table.engine.games import NAMES
from pi_table.hal import UiEvent
from pi_table.table import load_game
from pi_table.ui.i18n import say
from pi_table.web.tokens import seat_role

from helpers import pi_table, wait_for
from helpers_phones import PHONE, Phones
from helpers_tables import CODEX_CONFIG, CodexTable, service_daemon

pytestmark = pytest.mark.daemon


def post(url: str, text: str) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=json.dumps({"action": text}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    try:
        with PHONE.open(request, timeout=10) as answer:  # keeps each page's cookie, as a phone does
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def act(table: CodexTable, game_id: str, seat: int, text: str) -> None:
    status, answer = post(table.link(game_id, seat).replace("/p/", "/api/p/") + "/act", text)
    assert (status, answer) == (200, {"ok": True, "error": None}), text


def leader_wins_in_phase_one(setup) -> tuple[list[tuple[int, str]], Faction]:
    """Actions that win in the first phase: both of the red Leader's faction mates send it their
    fragment and position, everyone else sends anywhere, the Leader enters the code."""
    leader = next(seat for seat, agent in enumerate(setup.agents)
                  if agent.role.value == "leader" and agent.faction is Faction.RED)
    mates = [seat for seat, agent in enumerate(setup.agents) if agent.faction is Faction.RED and seat != leader]
    actions = []
    for seat in range(6):
        to = leader if seat in mates else (seat + 1) % 6 if (seat + 1) % 6 != seat else (seat + 2) % 6
        actions.append((seat, f"send {seat} {to} position"))
    actions.append((leader, f"code {leader} {setup.code(Faction.RED)}"))
    actions += [(seat, f"done {seat}") for seat in range(6)]
    return actions, Faction.RED




def test_phones_play_codex_to_a_win_and_status_shows_only_the_public_side(codex_daemon):
    status = codex_daemon.status()
    game_id = status["game_id"]
    assert status["state"]["game"] == "codex" and status["state"]["step"] == "messages"
    setup = codex_daemon.setup(game_id)
    actions, winner = leader_wins_in_phase_one(setup)
    for seat, text in actions[:3]:
        act(codex_daemon, game_id, seat, text)
    status = codex_daemon.status()
    assert status["state"]["acted"] == [seat for seat, _ in actions[:3]]
    for agent in setup.agents:  # the staff's status never carries a secret while the game is on
        assert agent.fragment not in json.dumps(status)
    for seat, text in actions[3:]:
        act(codex_daemon, game_id, seat, text)
    state = codex_daemon.status()["state"]
    assert (state["step"], state["winner"]) == ("over", winner.value)
    [game] = json.loads(pi_table("history", "--json", "--config", str(codex_daemon.config)).stdout)
    assert (game["game"], game["winner"], game["moves"]) == ("codex", "red", len(actions))


def test_a_page_acts_only_for_its_own_seat_and_an_old_token_opens_nothing(codex_daemon):
    game_id = codex_daemon.status()["game_id"]
    mine = codex_daemon.link(game_id, 2).replace("/p/", "/api/p/")
    status, answer = post(mine + "/act", "send 4 0 role")
    assert status == 409 and "seat 2" in answer["error"] and not codex_daemon.status()["state"]["acted"]
    status, answer = post(mine + "/act", "end-discussion")
    assert status == 409 and not answer["ok"]
    assert pi_table("new-game", "--config", str(codex_daemon.config)).returncode == 0
    with pytest.raises(urllib.error.HTTPError) as gone:
        urllib.request.urlopen(mine, timeout=5)
    assert gone.value.code == 404 and gone.value.read() == b""


def test_the_table_switches_between_codex_and_the_grid_games(codex_daemon):
    answer = pi_table("new-game", "--game", "codenames", "--json", "--config", str(codex_daemon.config))
    assert answer.returncode == 0, answer.stderr
    assert json.loads(answer.stdout)["state"]["game"] == "codenames"
    game_id = codex_daemon.status()["game_id"]
    status, answer = post(codex_daemon.link(game_id, 0).replace("/p/", "/api/p/") + "/act", "send 0 1 role")
    assert status == 404  # no seat pages while a grid game is on
    answer = pi_table("new-game", "--game", "codex", "--json", "--config", str(codex_daemon.config))
    assert json.loads(answer.stdout)["state"]["game"] == "codex"
    answer = pi_table("new-game", "--game", "chess", "--config", str(codex_daemon.config))
    assert answer.returncode == 2 and "invalid choice: 'chess'" in answer.stderr


def test_a_crash_in_the_middle_of_codex_resumes_it_exactly(tmp_path):
    table = CodexTable(tmp_path)
    table.systemd.start()
    try:
        game_id = table.status()["game_id"]
        setup = table.setup(game_id)
        actions, _ = leader_wins_in_phase_one(setup)
        for seat, text in actions[:7]:
            act(table, game_id, seat, text)
        before = table.status()["state"]
        table.systemd.kill()
        table.systemd.start()
        after = table.status()
        assert after["game_id"] == game_id and after["state"] == before
        for seat, text in actions[7:]:  # the same links still work: the tokens survive a restart
            act(table, game_id, seat, text)
        assert table.status()["state"]["winner"] == "red"
    finally:
        table.systemd.close()


class Watched:
    """The running table as the phones' driver sees it: what its journal says was accepted."""

    def __init__(self, table: CodexTable, game_id: str) -> None:
        self.table, self.game_id = table, game_id
        self.path = table.folder / "journal" / f"{game_id}.jsonl"
        self.companion = SimpleNamespace(base_url=table.status()["companion"])

    @property
    def accepted(self) -> list[str]:
        return self.path.read_text().splitlines()[1:]

    @property
    def state(self):
        return load_game(self.path)[1].state

    def link(self, seat: int) -> str:
        return self.table.link(self.game_id, seat)


def test_six_browser_sessions_play_codex_to_a_win_against_the_daemon(codex_daemon, browser):
    """Each agent taps its own page: the red Leader's mates send it their fragments, the
    Leader taps them into the code, everyone ends the private turn, and red wins."""
    watched = Watched(codex_daemon, codex_daemon.status()["game_id"])
    setup = watched.state.setup
    actions, _ = leader_wins_in_phase_one(setup)
    leader = next(seat for seat, text in actions if text.startswith("code"))
    phones = Phones(browser, watched)
    try:
        for seat, text in actions[:6]:
            _, _, to, fact = text.split()
            phones.send(seat, int(to), fact)
        phones.check_privacy()  # the messages are delivered: each page holds what its agent may know
        red = sorted((agent for agent in setup.agents if agent.faction is Faction.RED), key=lambda a: a.position)
        phones.code(leader, *(agent.fragment for agent in red))
        phones.check_privacy()
        for seat in range(6):
            phones.done(seat)
        phones.public.wait_for_selector("text=Red wins")
        phones.pages[leader].wait_for_selector("text=Red wins")
    finally:
        phones.close()
    state = codex_daemon.status()["state"]
    assert (state["winner"], state["winning_seat"]) == ("red", leader)


def test_the_discussion_runs_on_the_tables_clock_and_the_phones_see_it(codex_daemon):
    game_id = codex_daemon.status()["game_id"]
    for seat in range(6):
        act(codex_daemon, game_id, seat, f"send {seat} {(seat + 1) % 6} position")
    for seat in range(6):
        act(codex_daemon, game_id, seat, f"done {seat}")
    assert codex_daemon.status()["state"]["step"] == "discussion"
    with urllib.request.urlopen(codex_daemon.status()["companion"] + "/api/public", timeout=5) as answer:
        timer = json.loads(answer.read())["timer"]
    assert timer["length_s"] == 10 and 0 < timer["remaining_s"] <= 10
    wait_for(lambda: codex_daemon.status()["state"]["step"] == "vote", "the discussion's 10 s to run out", timeout=15)
    journal = (codex_daemon.folder / "journal" / f"{game_id}.jsonl").read_text().splitlines()
    assert json.loads(journal[-1])["action"] == "end-discussion"




def test_a_phones_refusal_goes_back_to_it_alone_and_an_old_games_page_cannot_act(codex_in_process):
    daemon = codex_in_process
    game_id = daemon.session.id
    refusal = daemon.act(game_id, seat_role(0), "vote 0 1")
    assert "vote" in str(refusal) and daemon.loop.message is None  # not on the table's screen
    assert daemon.act(game_id, seat_role(0), "send 0 1 role") is None
    assert daemon.answer({"command": "new-game"})["ok"]
    old_page = daemon.act(game_id, seat_role(1), "send 1 2 role")
    assert str(old_page) == "this page belonged to a game that has ended"
    assert say(old_page, "it") == "questa pagina era di una partita finita"  # said in the page's language
    assert daemon.session.state.acted == ()


def test_an_unknown_game_is_refused_and_the_table_plays_on(codex_in_process):
    daemon = codex_in_process
    loop, game_id = daemon.loop, daemon.session.id
    answer = daemon.answer({"command": "new-game", "game": "chess"})
    assert answer == {"ok": False, "error": f"the game is one of {', '.join(NAMES)}, not 'chess'"}
    assert daemon.loop is loop and daemon.session.id == game_id


def test_a_taken_port_leaves_the_table_playing_without_phones(tmp_path):
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen()
    port = blocker.getsockname()[1]
    (tmp_path / "config.toml").write_text(CODEX_CONFIG.replace("port = 0", f"port = {port}"))
    daemon = service_daemon(tmp_path / "config.toml")
    try:
        daemon.start()
        assert daemon.wait_for_phones()  # the companion opens once the table is up
        assert daemon.status()["health"]["companion"].startswith("not working")
        wait_for(lambda: daemon.loop.run_pending() is not None and "companion" in daemon.loop.faults,
                 "the screen's note that phones cannot join")
        assert "cannot listen on port" in str(daemon.loop.faults["companion"])
        daemon.loop.post(UiEvent(parse_codex_action("send 0 1 role")))
        assert [outcome.ok for outcome in daemon.loop.run_pending()] == [True]
    finally:
        daemon.close()
        blocker.close()
