"""Fault tests on the real daemon process, its touches coming from the board emulator over a pty.

- ``kill -9`` at random moments of games (``PI_TABLE_KILLS`` of them, 200 by default), each
  followed by a restart that must show exactly the state of the last accepted action;
- the board unplugged and plugged back in the middle of a turn;
- a journal that stops growing because the disk is full;
- a journal damaged in the middle of a game.

The oracle is independent of the journal code: the engine replays the actions the test saw
accepted (read from the journal as plain JSON lines) and the daemon's status must match it.
Every wait is bounded.
"""

from __future__ import annotations

import json
import os
import random
import threading
import time

import pytest

from pi_table.daemon.control import ControlError, request
from pi_table.drivers.touchboard import DISCONNECTED, USB_CABLE
from pi_table.engine import EndTurn, GameRecord, Guess, Rules, Undo, make_game
from pi_table.sim.systemd import FakeSystemd
from pi_table.table import Session

from helpers import wait_for
from helpers_board import EmulatedTable, electrode_of
from helpers_tables import BoardTable

pytestmark = pytest.mark.daemon

KILLS = int(os.environ.get("PI_TABLE_KILLS", "200"))
END_TURN_ELECTRODE = 25


@pytest.fixture
def table(tmp_path):
    t = EmulatedTable(tmp_path)
    yield t
    t.close()


def act(table: EmulatedTable, rng: random.Random, board: str, over: bool) -> str:
    """Do one random thing a player or the staff might; the entry it makes if accepted."""
    if over:
        request(table.socket, "new-game")
        return "new-game"
    roll = rng.random()
    if roll < 0.12:
        table.tap_electrode(END_TURN_ELECTRODE)
        return str(EndTurn())
    if roll < 0.2:
        try:
            request(table.socket, "undo")
        except ControlError:
            pass  # nothing to undo: refused, no entry
        return str(Undo())
    cell = rng.choice([cell for cell, shown in enumerate(board) if shown == "?"])
    table.tap(cell)
    return str(Guess(cell))


def settled(table: EmulatedTable, before: tuple[str, int]) -> None:
    """Wait until an action's entry is in the journal, or long enough that it was refused."""
    deadline = time.monotonic() + 0.6  # a slow fsync may take a while
    while time.monotonic() < deadline and (table.game_file().name, len(table.entries())) == before:
        time.sleep(0.01)


def test_kill_minus_nine_at_random_moments_loses_and_doubles_nothing(table):
    rng = random.Random(20261123)
    counts = {"in flight kept": 0, "in flight lost": 0, "during start": 0, "actions": 0}
    for _ in range(KILLS):
        if rng.random() < 0.1:  # while it starts: resuming, cutting a torn line, dealing
            before = table.game_file() if table.journal.exists() else None
            entries_before = table.entries(before) if before else None
            table.service = FakeSystemd(
                ["--hal", "sim", "--touch-port", str(table.emulator.link), "--config", str(table.config)],
                log=table.folder / "daemon.log",
            )
            try:
                table.service.start(timeout=rng.uniform(0.0, 0.4))
            except Exception:
                pass  # killed before READY, as intended
            table.kill()
            counts["during start"] += 1
            if before is not None:  # whatever the daemon did, the old game's entries are intact
                assert table.entries(before) == entries_before
            continue
        table.start(phones=False)  # the phones' pages, which hold no game, open while it plays: a kill may fall then too
        table.connected()
        path = table.game_file()
        status = table.status()
        assert status["state"] == table.expected(path), "the restart shows a state no replay gives"
        for _ in range(rng.randrange(0, 4)):  # a few actions seen through to the end
            before = (table.game_file().name, len(table.entries()))
            act(table, rng, status["state"]["board"], status["state"]["phase"] == "over")
            settled(table, before)
            wait_for(lambda: table.status()["state"] == table.expected(), "the table to show what its journal replays",
                     timeout=10)
            status = table.status()
            counts["actions"] += 1
        path, seen = table.game_file(), table.entries()
        board, over = status["state"]["board"], status["state"]["phase"] == "over"
        delay = rng.uniform(0.0, 0.2)
        started = time.monotonic()
        entry = None
        if rng.random() < 0.5:
            entry = act(table, rng, board, over)  # taps block for TAP_MS: the kill falls after it
        time.sleep(max(0.0, delay - (time.monotonic() - started)))
        table.kill()
        after = table.entries(path)
        newest = table.game_file()
        if entry == "new-game" and newest != path:
            assert table.entries(newest) == [] and after == seen
            counts["in flight kept"] += 1
        elif after == seen:
            counts["in flight lost"] += entry is not None
        else:
            assert after == seen + [entry], f"journal {after[len(seen) - 2:]} after {seen[-2:]} and in flight {entry}"
            counts["in flight kept"] += 1
    table.start()
    table.connected()
    assert table.status()["state"] == table.expected()
    print(f"\n{KILLS} kills: {counts}")
    assert counts["actions"] > KILLS // 2 and counts["in flight kept"] > 0 and counts["during start"] > 0


def test_unplugging_the_board_mid_turn_loses_nothing_and_play_goes_on(table):
    table.start()
    table.connected()
    status = table.status()
    first = next(cell for cell, shown in enumerate(status["state"]["board"]) if shown == "?")
    table.tap(first)
    wait_for(lambda: table.status()["state"]["board"][first] != "?", "the first guess")
    table.emulator.press(electrode_of(first + 1))  # a finger on a card as the cable comes out
    table.emulator.unplug()
    wait_for(lambda: table.status()["health"]["touch"].startswith("touch board disconnected"), "the unplug to be seen")
    during = table.status()
    assert any(w.startswith("touch board disconnected: check the USB cable") for w in during["warnings"])
    assert during["state"] == table.expected()  # nothing lost, and the held card did not count
    assert during["state"]["board"][first + 1] == "?"
    table.emulator.release(electrode_of(first + 1))
    table.emulator.plug()
    table.connected()
    assert table.status()["warnings"] == [] and table.status()["state"] == during["state"]
    state = table.status()["state"]
    if state["phase"] != "over":
        cell = next(cell for cell, shown in enumerate(state["board"]) if shown == "?")
        table.tap(cell)
        wait_for(lambda: table.status()["state"]["board"][cell] != "?", "a guess after the replug")
    assert table.status()["state"] == table.expected()


def test_the_status_never_calls_the_board_ok_beside_the_warning_that_it_is_gone(tmp_path):
    """The board answers again before the table's loop has heard so (a busy loop, a loaded Pi):
    until then the table still shows the warning, so the status still names the fault; health and
    warnings change together (CI saw "ok" beside "touch board disconnected"). In this process
    (``BoardTable``) to hold the loop between the board's hello and the loop hearing of it."""
    from pi_table.sim.emulator import BoardEmulator

    emulator = BoardEmulator(link=tmp_path / "board")
    emulator.start()
    table = BoardTable(tmp_path, emulator)
    daemon = table.daemon
    inside, held = threading.Event(), threading.Event()

    def hold() -> None:
        inside.set()
        held.wait(20)

    try:
        wait_for(lambda: daemon.commands.status()["health"]["touch"] == "ok", "the emulated board's hello")
        emulator.unplug()
        wait_for(lambda: daemon.commands.status()["warnings"], "the loop to hear of the unplug")
        threading.Thread(target=daemon.loop.call, args=(hold, 30), daemon=True).start()
        wait_for(inside.is_set, "the loop held")
        emulator.plug()
        wait_for(lambda: daemon.devices.touch.connected, "the board's hello while the loop is held")
        time.sleep(0.2)  # the board's news posted meanwhile: it waits in the loop's queue
        status = daemon.commands.status()
        assert status["warnings"] == [DISCONNECTED.template]
        assert status["health"]["touch"] == DISCONNECTED.template
        assert status["advice"]["touch"] == USB_CABLE
        held.set()
        back = wait_for(lambda: (s := daemon.commands.status())["health"]["touch"] == "ok" and s, "the loop to hear the board")
        assert back["warnings"] == [] and back["advice"] == {}
    finally:
        held.set()
        table.close()
        emulator.stop()


def test_a_journal_that_fills_up_keeps_the_game_in_memory_and_says_so(tmp_path):
    """``LimitFSIZE`` stands for a full disk: the journal's writes fail part way through."""
    table = EmulatedTable(tmp_path, limit_fsize=500)  # the header (about 340 bytes) and a few entries
    try:
        table.start()
        table.connected()
        path = table.game_file()
        assassin = json.loads(path.read_text().split("\n")[0])["key"].index("A")  # the game must go on
        rng = random.Random(5)
        for _ in range(12):
            status = table.status()
            if status["state"]["phase"] == "over" or status["journal"] != "ok":
                break
            cell = rng.choice([c for c, shown in enumerate(status["state"]["board"]) if shown == "?" and c != assassin])
            table.tap(cell)
            wait_for(lambda: table.status()["state"]["board"][cell] != "?", f"the guess on {cell}")  # noqa: B023 - waited for here
        status = table.status()
        assert status["journal"] != "ok", "the journal never filled up: raise the number of guesses"
        assert "cannot be written" in status["journal"] and status["journal"] in status["warnings"]
        written = table.entries(path)
        cell = next(c for c, shown in enumerate(status["state"]["board"]) if shown == "?" and c != assassin)
        table.tap(cell)  # play goes on in memory
        wait_for(lambda: table.status()["state"]["board"][cell] != "?", "a guess after the disk filled")
        assert table.entries(path) == written  # nothing more reached the file, nothing half-parsed
        log = (tmp_path / "daemon.log").read_text()
        assert log.count("the game journal cannot be written") == 1, log
        table.kill()
        table.limit_fsize = None  # room again: the restart replays what was written whole
        table.start()
        assert table.status()["state"] == table.expected(path, written)
    finally:
        table.close()


def test_a_journal_cut_at_every_byte_of_its_last_line_resumes_the_entries_before_it(tmp_path):
    """A power cut mid-write leaves any prefix of the last line: each resumes the game as it
    stood before that line, and the next entry lands on a clean line of its own."""
    rules = Rules()
    key = make_game(rules).parse_key("RRRRRRRRRBBBBBBBBNNNNNNNA")
    session = Session(rules, key=key, journal_dir=tmp_path / "whole")
    for action in (Guess(0), Guess(1), Undo(), Guess(9)):
        session.submit(action)
    session.close()
    whole = next((tmp_path / "whole").glob("*.jsonl")).read_bytes()
    last = whole.rstrip(b"\n").rfind(b"\n") + 1
    before = make_game(rules).table_view(
        GameRecord.replay(make_game(rules), key, [Guess(0), Guess(1), Undo()]).state
    ).to_json()
    for cut in range(last, len(whole) + 1):
        folder = tmp_path / f"cut-{cut}"
        folder.mkdir()
        (folder / "game.jsonl").write_bytes(whole[:cut])
        resumed = Session.resume(rules, folder, fsync=False)
        if cut >= len(whole) - 1:  # the whole line (its checksum vouches for it without its newline)
            assert len(resumed.record.entries) == 4 and resumed.table_view().board[9] == "B"
        else:
            assert resumed.table_view().to_json() == before, f"cut at byte {cut}"
        resumed.submit(Guess(2))
        resumed.close()
        lines = (folder / "game.jsonl").read_text().split("\n")
        assert lines[-1] == "" and json.loads(lines[-2])["action"] == "touch 2"
        replayed = Session.resume(rules, folder, fsync=False)
        assert replayed.table_view().to_json() == resumed.table_view().to_json()


def test_a_damaged_journal_resumes_before_the_damage_and_says_so_everywhere(tmp_path):
    """A changed byte in the middle of the game's file: the daemon resumes the entries before
    it, keeps the damaged file, and the log, ``status`` and the screen's warnings say how many
    actions were lost; entries after it land in a clean journal."""
    rules = Rules()
    key = make_game(rules).parse_key("RRRRRRRRRBBBBBBBBNNNNNNNA")
    session = Session(rules, key=key, journal_dir=tmp_path / "journal", fsync=False)
    for action in (Guess(0), Guess(1), Guess(2), Guess(3), Undo(), Guess(4)):
        session.submit(action)
    session.close()
    path = next((tmp_path / "journal").glob("*.jsonl"))
    lines = path.read_bytes().split(b"\n")
    lines[4] = lines[4].replace(b"touch 3", b"touch 8")  # entry 4, as a flipped bit would leave it
    path.write_bytes(b"\n".join(lines))
    table = EmulatedTable(tmp_path)
    try:
        table.start()
        table.connected()
        status = table.status()
        assert status["game_id"] == session.id
        assert status["state"] == table.expected(path, ["touch 0", "touch 1", "touch 2"])
        aside = f"{path}.damaged-1"
        assert status["journal_damage"] == {"line": 5, "lost_actions": 3, "written_actions": 6,
                                            "damaged_file": aside, "new_game": False}
        assert status["journal"].startswith("journal damaged at action 4: 3 of 6 actions lost; ")
        assert status["journal"] in status["warnings"]  # the screen's warnings, as status reports them
        assert "3 of 6 actions lost" in (tmp_path / "daemon.log").read_text()
        table.tap(9)
        wait_for(lambda: table.status()["state"]["board"][9] != "?", "a guess after the repair")
        table.kill()
        table.start()
        table.connected()
        status = table.status()
        assert status["state"] == table.expected(path, ["touch 0", "touch 1", "touch 2", "touch 9"])
        assert status["journal"] == "ok" and status["journal_damage"] is None and status["warnings"] == []
    finally:
        table.close()
