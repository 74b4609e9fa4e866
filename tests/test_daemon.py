"""The daemon as systemd runs it: READY and watchdog over a real notify socket, the control
socket and the commands that use it, resuming a journal, degraded devices. Bounded waits."""

from __future__ import annotations

import json
import logging
import os
import socket
import stat
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from pi_table.cli.output import EXIT_UNAVAILABLE
from pi_table.cli.tables import DEFAULT_CONFIG
from pi_table.config import DEFAULT_PATH, parse_config
from pi_table.daemon.control import ControlError, Refused, request
from pi_table.engine import Guess, Rules, Undo, make_game
from pi_table.sim.systemd import FakeSystemd
from pi_table.table import Session
from pi_table.ui.leds import WARNING

from helpers import wait_for
from helpers_board import HOLD_S, LiveBoard, electrode_of
from helpers_tables import service_daemon

pytestmark = pytest.mark.daemon

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"


def write_config(folder, extra: str = "") -> str:
    path = folder / "config.toml"
    path.write_text(f'[web]\nhost = "127.0.0.1"\nport = 0\n[paths]\njournal_dir = "journal"\nsocket = "control.sock"\nsocket_group = ""\n{extra}')
    return str(path)


def pi_table(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pi_table", *args], capture_output=True, text=True, timeout=30)


@pytest.fixture
def service(tmp_path):
    config = write_config(tmp_path)
    systemd = FakeSystemd(["--hal", "sim", "--config", config], watchdog_s=0.4)
    systemd.start()
    yield systemd, config, tmp_path
    systemd.close()


def test_ready_status_watchdog_and_a_clean_stop(service):
    systemd, config, folder = service
    status = pi_table("status", "--json", "--config", config)
    assert status.returncode == 0, status.stderr
    answer = json.loads(status.stdout)
    assert answer["state"]["board"] == "?" * 25 and answer["state"]["phase"] == "clue"
    assert set(answer["health"]) == {"touch", "leds", "screen", "buttons", "sound", "companion"}
    assert answer["health"]["companion"] == "ok" and answer["companion"].startswith("http://127.0.0.1:")
    assert answer["journal"] == "ok" and answer["uptime_s"] >= 0
    assert answer["version"] == metadata.version("pi-table")
    assert pi_table("status", "--config", config).stdout.startswith(f"pi-table {answer['version']}: game ")
    assert (folder / "journal" / f"{answer['game_id']}.jsonl").exists()
    key = json.loads((folder / "journal" / f"{answer['game_id']}.jsonl").read_text().splitlines()[0])["key"]
    assert key not in status.stdout and "key" not in answer["state"]  # the operatives' view only
    assert oct(stat.S_IMODE(os.stat(folder / "control.sock").st_mode)) == "0o660"
    systemd.wait_for("WATCHDOG", timeout=2)  # pings at half of WATCHDOG_USEC, from the loop
    systemd.wait_for("WATCHDOG", timeout=2)
    assert systemd.stop() == 0
    systemd.wait_for("STOPPING", timeout=1)  # already sent: the datagram waits in the socket
    assert not (folder / "control.sock").exists()


def test_status_says_whether_the_table_is_healthy_as_a_change_on_trial_must_be(service, tmp_path):
    """``status --healthy``, which the root helper asks before it keeps a new release: healthy
    when the loop and the pages answer; not, saying why and exiting 1, when the pages cannot
    open (another program holds their port)."""
    _systemd, config, _folder = service
    asked = pi_table("status", "--json", "--healthy", "--config", config)
    assert asked.returncode == 0, asked.stderr
    assert json.loads(asked.stdout)["healthy"] == {"ok": True, "why": None}
    assert pi_table("status", "--healthy", "--config", config).stdout.splitlines()[-1] == "healthy"
    assert "healthy" not in json.loads(pi_table("status", "--json", "--config", config).stdout)

    squatter = socket.socket()
    squatter.bind(("127.0.0.1", 0))
    squatter.listen()
    other = tmp_path / "other"
    other.mkdir()
    config = write_config(other)
    Path(config).write_text(Path(config).read_text().replace("port = 0", f"port = {squatter.getsockname()[1]}"))
    systemd = FakeSystemd(["--hal", "sim", "--config", config])
    try:
        systemd.start()
        asked = pi_table("status", "--json", "--healthy", "--config", config)
        assert asked.returncode == 1
        healthy = json.loads(asked.stdout)["healthy"]
        assert not healthy["ok"] and healthy["why"].startswith("the phones' pages and the staff page cannot open: ")
        said = pi_table("status", "--healthy", "--lang", "it", "--config", config)
        assert said.returncode == 1 and said.stdout.splitlines()[-1].startswith("non funziona bene: ")
    finally:
        systemd.close()
        squatter.close()



@pytest.mark.arm64
def test_the_service_starts_finds_its_touch_board_and_a_game_is_played_on_it_to_the_end(tmp_path):
    """What the Pi runs, as systemd starts it (the arm64 check runs it on the Pi's libraries):
    ``pi-table run`` says READY over the notify socket, opens the phones' pages, finds the touch
    board at its link through pyserial (the test is the board, speaking the wire protocol as the
    firmware does), and each card pressed on the board is revealed, until the game is over."""
    board = LiveBoard(tmp_path / "touch-board")
    config = write_config(tmp_path, f"[game]\nhold_s = {HOLD_S}\n")
    systemd = FakeSystemd(["--hal", "sim", "--touch-port", str(board.link), "--config", config])
    try:
        systemd.start(timeout=120)  # minutes are not unusual under emulation on a loaded machine

        def status() -> dict:
            return request(tmp_path / "control.sock", "status")
        wait_for(lambda: status()["health"]["touch"] == "ok", "the table's hello with the board", timeout=60)
        first = status()
        assert first["companion"].startswith("http://127.0.0.1:") and first["state"]["winner"] is None
        revealed = 0
        for cell in range(25):
            state = status()["state"]
            if state["winner"] is not None:
                break
            board.press(electrode_of(cell))
            wait_for(lambda cell=cell: status()["state"]["board"][cell] != "?", f"card {cell} revealed", timeout=60)
            board.release(electrode_of(cell))
            revealed += 1
        over = status()
        assert over["state"]["winner"] in ("red", "blue"), over["state"]
        assert over["game_id"] == first["game_id"] and over["state"]["board"].count("?") == 25 - revealed
        assert board.hellos >= 1
        assert systemd.stop() == 0
    finally:
        systemd.close()
        board.unplug()

def test_commands_act_on_the_running_table(service):
    _systemd, config, folder = service
    first = request(folder / "control.sock", "status")["game_id"]
    done = pi_table("new-game", "--game", "alias24", "--config", config)
    assert done.returncode == 0, done.stderr
    answer = request(folder / "control.sock", "status")
    assert answer["game_id"] != first and answer["state"]["game"] == "alias24"
    back = pi_table("undo", "--config", config)  # the new game dealt over one in progress is taken back
    assert back.returncode == 0, back.stderr
    assert request(folder / "control.sock", "status")["game_id"] == first
    refused = pi_table("undo", "--config", config)
    assert refused.returncode == 1 and "nothing to undo" in refused.stderr
    with pytest.raises(Refused, match="unknown command 'reveal-key'"):
        request(folder / "control.sock", "reveal-key")
    assert request(folder / "control.sock", "status")["game_id"] == first  # nothing lost


def test_status_without_a_table_says_so(tmp_path):
    done = pi_table("status", "--config", write_config(tmp_path))
    assert done.returncode == EXIT_UNAVAILABLE
    assert "no table is running" in done.stderr
    with pytest.raises(ControlError, match="no table is running"):
        request(tmp_path / "control.sock", "status")


def test_a_restart_resumes_the_unfinished_game_exactly(tmp_path):
    config = write_config(tmp_path)
    rules = Rules()
    session = Session(rules, key=make_game(rules).parse_key(KEY), journal_dir=tmp_path / "journal")
    for action in (Guess(0), Guess(1), Guess(2), Undo(), Guess(9)):  # the blue agent ends red's turn
        session.submit(action)
    expected = session.table_view().to_json()
    session.close()
    systemd = FakeSystemd(["--hal", "sim", "--config", config])
    try:
        systemd.start()
        answer = request(tmp_path / "control.sock", "status")
        assert answer["game_id"] == session.id
        assert answer["state"] == expected
    finally:
        systemd.close()


def test_history_lists_the_games_kept(tmp_path):
    config = write_config(tmp_path)
    rules = Rules()
    session = Session(rules, key=make_game(rules).parse_key(KEY), journal_dir=tmp_path / "journal")
    session.submit(Guess(24))  # the assassin: red loses at once
    session.new_game()
    session.close()
    done = pi_table("history", "--json", "--config", config)
    games = json.loads(done.stdout)
    assert [game["over"] for game in games] == [False, True]
    assert games[1]["winner"] == "blue" and games[1]["moves"] == 1
    text = pi_table("history", "--config", config).stdout
    assert "assassin" in text and "unfinished" in text
    italian = pi_table("history", "--config", config, "--lang", "it").stdout  # the staff page's history says it so too
    assert "la squadra rossa ha toccato l'assassino" in italian and "non finita" in italian and "mosse: 1 " in italian
    assert "assassin" not in italian.replace("assassino", "")


def test_the_cli_default_is_the_configuration_default():
    assert DEFAULT_CONFIG == str(DEFAULT_PATH)


def config_in(tmp_path, extra=""):
    return parse_config(open(write_config(tmp_path, extra)).read(), tmp_path / "config.toml")


@pytest.mark.arm64
def test_devices_that_fail_leave_the_table_playing_degraded(tmp_path, monkeypatch, caplog):
    """No LED strip and no display here (no LED library on this machine; under the arm64 check,
    the Pi's own spidev, pygame and gpiozero that find no device): the table plays on, says so
    once each, and the LEDs (simulated stand-ins here) show the warning edge that replaces a
    missing screen."""
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)  # SDL's wayland finds no compositor
    config_in(tmp_path, '[leds]\nbackend = "spi"\n[screen]\nvideo_driver = "wayland"\n'
                        '[touch]\nport = "/dev/pi-table-no-board"\n')
    caplog.set_level(logging.INFO)
    daemon = service_daemon(tmp_path / "config.toml", hal="hw")
    try:
        daemon.start()
        health = daemon.status()["health"]
        assert health["leds"].startswith("not working") and health["screen"].startswith("not working")
        assert health["buttons"] == "ok"
        wait_for(lambda: daemon.loop.run_pending() is not None and "touch" in daemon.loop.faults, "touch fault")
        assert daemon.loop.leds.last.edge[0] == WARNING
        for _ in range(20):
            daemon.loop.run_pending()
        errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
        assert sum("LED strip" in e for e in errors) == 1 and sum("screen" in e for e in errors) == 1
        assert sum("touch board not found" in e for e in errors) == 1
    finally:
        daemon.close()
    assert not (tmp_path / "control.sock").exists()


def test_a_second_table_on_the_same_journal_refuses_to_start(service):
    _systemd, config, folder = service
    second = pi_table("run", "--hal", "sim", "--config", config)
    assert second.returncode == 75 and "already running on the journal" in second.stderr
    assert request(folder / "control.sock", "status")["ok"]  # the first one plays on, socket and all


def test_a_second_table_does_not_take_the_first_ones_socket(service, tmp_path_factory, monkeypatch):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    _systemd, _config, folder = service
    other = tmp_path_factory.mktemp("other")
    (other / "config.toml").write_text(f'[web]\nenabled = false\n[paths]\nsocket = "{folder / "control.sock"}"\nsocket_group = ""\n'
                                       f'journal_dir = "journal"\n[leds]\nbackend = "none"\n[screen]\nenabled = false\n')
    daemon = service_daemon(other / "config.toml", hal="hw")
    try:
        daemon.start()
        assert "another table already answers" in str(daemon.loop.faults["control"])
        assert daemon.status()["health"]["leds"] == "not fitted" and daemon.status()["health"]["screen"] == "not fitted"
    finally:
        daemon.close()  # and leaves the first table's socket where it is
    first = request(folder / "control.sock", "status")
    assert first["game_id"] != daemon.session.id  # still the first table answering
