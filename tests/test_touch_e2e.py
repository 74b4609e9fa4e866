"""End to end over a real pty: board emulator (the firmware on fake chips) -> real pyserial
driver -> table loop -> reveal on the LEDs. Every wait is bounded."""

from __future__ import annotations

import random
import subprocess
import sys
import threading
import time

import pytest

from pi_table.drivers.settings import TouchBoardConfig
from pi_table.drivers.touchboard import BUS_FREED, CARDS, CHIP_SILENT, DISCONNECTED, I2C_ERRORS, TouchBoardSource
from pi_table.engine import Rules, Team, make_game
from pi_table.engine.phrase import Phrase
from pi_table.hal import DeafCards, NewGame, SimButtons, SimLedStrip, SimScreen, TouchEvent
from pi_table.kinds import SerialDevice
from pi_table.sim.emulator import BoardEmulator, run_commands
from pi_table.table import Session, TableLoop
from pi_table.table.input import HOLD_MIN_S, WIPE_WARNING, InputSettings, TouchPolicy
from pi_table.ui.leds import DEAF, DIM, REVEALED

from helpers import wait_for

pytestmark = pytest.mark.daemon

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"  # red starts; cells 0-8 red, 9-16 blue, 17-23 bystanders, 24 assassin
HOLD = HOLD_MIN_S  # the shortest hold the configuration allows
PALM = (10, 11, 12, 13, 14)  # five pads under one hand, across the first two chips


class Table:
    """The emulator and a real-time table loop on the real driver, in one process."""

    def __init__(self, tmp_path, stuck_s=10.0, stall_s=0.0, hold_s=HOLD):
        self.emulator = BoardEmulator(link=tmp_path / "touch-board")
        self.emulator.start()
        rules = Rules()
        self.session = Session(rules, rng=random.Random(1), key=make_game(rules).parse_key(KEY))
        self.driver = TouchBoardSource(TouchBoardConfig(port=SerialDevice(self.emulator.path)))
        self.leds, self.screen = SimLedStrip(), SimScreen()
        self.hold_s = hold_s
        policy = TouchPolicy(InputSettings(hold_s=hold_s, stuck_s=stuck_s))
        self.loop = TableLoop(self.session, self.driver, self.leds, self.screen, SimButtons(), policy)
        if stall_s:
            self.loop.post = self._stalling(self.loop.post, stall_s)
        self.loop.open()
        self.thread = threading.Thread(target=self.loop.run, args=(None, 0.05))
        self.thread.start()
        wait_for(lambda: self.driver.connected, "the driver's hello with the emulator")

    @staticmethod
    def _stalling(post, stall_s):
        """The driver's thread loses the processor for ``stall_s`` after each event that
        presses a cell, as it may on a busy Pi."""

        def post_then_stall(event):
            post(event)
            if isinstance(event, TouchEvent) and event.pressed:
                time.sleep(stall_s)

        return post_then_stall

    def board(self):
        return self.session.table_view().board

    def tap(self, electrode):
        """A guess: a finger down past the hold, with room for a driver thread late to read it."""
        self.emulator.tap(electrode, 1000 * self.hold_s + 100)

    def close(self):
        self.loop.stop_soon()
        self.thread.join(timeout=5)
        self.loop.close()
        self.emulator.stop()
        assert not self.thread.is_alive()


@pytest.fixture
def table(tmp_path):
    t = Table(tmp_path)
    yield t
    t.close()


@pytest.fixture
def patient_table(tmp_path):
    """A hold of half a second, for what must not become a guess: two calls of this thread a
    hold apart on a loaded machine would make a guess of a brush at the shortest hold."""
    t = Table(tmp_path, hold_s=0.5)
    yield t
    t.close()


def test_a_tap_on_the_board_reveals_the_card(table):
    table.tap(0)
    wait_for(lambda: table.board()[0] == "R", "card 0 to be revealed")
    assert table.leds.last.cells[0] == REVEALED["R"]
    table.tap(17)  # a bystander: the turn passes
    wait_for(lambda: table.session.state.turn is Team.BLUE, "blue's turn")
    assert table.session.record.moves == 2


def test_a_brush_shorter_than_the_hold_does_nothing(patient_table):
    table = patient_table
    table.emulator.press(3)
    table.emulator.release(3)  # a few milliseconds, far under the hold
    table.tap(0)  # after the brush on the wire, and held past the moment the brush's hold would end
    wait_for(lambda: table.board()[0] == "R", "card 0 to be revealed")
    assert table.board()[3] == "?" and table.session.record.moves == 1


def test_garbage_and_a_corrupt_report_never_become_a_guess(table):
    table.emulator.garbage(500)
    table.emulator.corrupt()  # claims every electrode is touched
    table.emulator.garbage(37)
    table.tap(1)  # after the noise on the wire: the only card it reveals
    wait_for(lambda: table.board()[1] == "R", "a real tap after the noise")
    assert table.session.record.moves == 1
    assert table.board() == "?R" + "?" * 23


def test_a_palm_over_the_wire_is_no_guess_and_asks_to_wipe(patient_table):
    table = patient_table
    table.emulator.press(4)
    table.emulator.press(5)
    wait_for(lambda: WIPE_WARNING in table.screen.last.warnings, "the wipe-the-table warning")
    time.sleep(0.2)
    table.emulator.release(4)
    table.emulator.release(5)
    wait_for(lambda: WIPE_WARNING not in table.screen.last.warnings, "the warning to clear")
    assert table.session.record.moves == 0


@pytest.mark.parametrize("stall_s", [0.0, 3 * HOLD], ids=["as-it-comes", "driver-stalls"])
def test_twenty_palms_each_in_one_report_reveal_no_card(tmp_path, stall_s):
    """Five pads in one report, at the shortest hold. One event per cell let the first finger
    count before the others arrived: at a hold of 0, 20 palms in 20 revealed a card; at 0.05 s
    with the driver's thread stalled between its events, 20 in 20 too."""
    t = Table(tmp_path, stall_s=stall_s)
    reveals = 0
    try:
        for _ in range(20):
            t.emulator.press(*PALM)
            wait_for(lambda: WIPE_WARNING in t.screen.last.warnings, "the wipe-the-table warning")
            time.sleep(2 * HOLD)  # past the hold: a palm taken for a guess is revealed by now
            t.emulator.release(*PALM)
            wait_for(lambda: not t.loop.policy.pressed and WIPE_WARNING not in t.screen.last.warnings,
                     "the palm to lift")
            if t.board() != "?" * 25:
                reveals += 1
                t.loop.call(lambda: t.loop.submit(NewGame()))
    finally:
        t.close()
    assert reveals == 0, f"{reveals} of 20 palms revealed a card"


def test_unplug_and_replug_in_the_middle_of_a_turn_loses_nothing(patient_table):
    table = patient_table
    table.tap(0)
    wait_for(lambda: table.board()[0] == "R", "the first guess")
    before = table.session.state
    table.emulator.press(1)  # a finger is down when the cable goes
    table.emulator.unplug()
    wait_for(lambda: DISCONNECTED in table.screen.last.warnings, "the disconnect warning")
    assert table.session.state == before  # the pending press did not become a guess
    assert table.screen.last.pending == frozenset()
    table.emulator.release(1)
    table.emulator.plug()
    wait_for(lambda: table.screen.last.warnings == (), "the reconnect", timeout=8)
    assert table.session.state == before
    table.tap(2)
    wait_for(lambda: table.board()[2] == "R", "a guess after the replug")
    assert table.session.state.turn is Team.RED and table.session.record.moves == 2


def test_a_stuck_pad_is_quarantined_and_recalibrated_over_the_wire(tmp_path):
    t = Table(tmp_path, stuck_s=0.3)
    try:
        t.emulator.press(9)  # a wet pad that stays on: one guess, then quarantined
        wait_for(lambda: any("card 9 is stuck" in str(w) for w in t.screen.last.warnings), "the stuck warning")
        t.tap(0)  # the game goes on around it
        wait_for(lambda: t.board()[0] == "R", "a guess beside the stuck pad")
        t.emulator.release(9)
        wait_for(lambda: t.screen.last.warnings == (), "the quarantine to end")
        assert t.driver.recalibrations >= 1
    finally:
        t.close()


def test_emulate_board_and_sim_play_a_game_over_the_serial_link(tmp_path):
    """The command-line pair: every guess of this game comes over the pty. Each tap waits for
    its reveal on the sim's screen and is tapped again if none comes (a busy machine may take
    longer than a second for the driver's hello), so the game is over before the input closes."""
    link = tmp_path / "board"
    board = subprocess.Popen(
        [sys.executable, "-m", "pi_table", "emulate-board", "--link", str(link)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    sim, out = None, []

    def seen(text, timeout):
        deadline = time.monotonic() + timeout
        while not any(text in line for line in out):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    try:
        assert board.stdout.readline().strip() == str(link)
        sim = subprocess.Popen(
            [sys.executable, "-m", "pi_table", "sim", "--key", KEY, "--touch-port", str(link), "--hold", str(HOLD),
             "--color", "never"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        threading.Thread(target=lambda: [out.append(line) for line in sim.stdout], daemon=True).start()
        assert seen("Type 'help'", timeout=20), "".join(out)
        sim.stdin.write("clue unlimited\n")
        sim.stdin.flush()
        for cell in range(9):  # red finds all nine of its agents by touch
            left = 8 - cell
            shown = ("game over: RED wins (red found all its agents)" if cell == 8
                     else f"RED {left} agent{'s' if left > 1 else ''} left")
            for _ in range(10):
                board.stdin.write(f"tap {cell} 150\n")
                board.stdin.flush()
                if seen(shown, timeout=1.0):
                    break
            else:
                pytest.fail(f"card {cell} was never revealed: {''.join(out)[-2000:]}")
        sim.stdin.close()  # the sim ends with its input
        sim.wait(timeout=20)
    finally:
        if sim and sim.poll() is None:
            sim.kill()
        board.stdin.close()
        board.wait(timeout=10)
    assert sim.returncode == 0, sim.stderr.read()


def test_emulate_board_presses_a_palm_in_one_report_and_names_bad_commands(table):
    said = []
    wiring = table.driver.config  # the pads are named by the cards of the table the board is on
    run_commands(table.emulator, [f"press {' '.join(map(str, PALM))}", "press 10 x", "release 40"], said.append, wiring)
    wait_for(lambda: table.screen.last.pending == set(PALM), "the palm's five cards lit as touched")
    assert WIPE_WARNING in table.screen.last.warnings
    assert said == [
        "emulate-board: not a pad: 'x'; the cards are 0 to 24, and END TURN's pads end and end2\n",
        "emulate-board: card 40 does not exist: the cards are 0 to 24, and END TURN's pads end and end2\n",
    ]
    run_commands(table.emulator, [f"release {' '.join(map(str, PALM))}"], said.append, wiring)
    wait_for(lambda: table.screen.last.warnings == (), "the palm to lift")
    assert table.session.record.moves == 0 and len(said) == 2


def test_emulate_board_survives_a_held_bus_and_spikes_and_the_driver_tells_of_them(table):
    said = []
    run_commands(table.emulator, ["hold-sda 5", "brownout 3"], said.append, table.driver.config)
    assert said == ["emulate-board: chip 3 does not exist: chips are 0 to 2\n"]
    wait_for(lambda: table.driver.trouble() == Phrase.of(BUS_FREED), "the held bus freed and told")
    run_commands(table.emulator, ["spikes 100"], said.append, table.driver.config)
    wait_for(lambda: getattr(table.driver.trouble(), "template", None) == I2C_ERRORS, "the rising I2C errors")
    table.tap(0)  # one transfer in a hundred fails: each is tried again, and the game goes on
    wait_for(lambda: table.board()[0] == "R", "a guess among the spikes")
    run_commands(table.emulator, ["spikes 0"], said.append, table.driver.config)
    assert len(said) == 1 and table.driver.connected


@pytest.mark.parametrize("lang, words, silent, joints", [
    ("en", "touch chip 0x5b was reset and set up again", "touch chip 0x5c does not answer: cards 2, 7, 12",  # the reference wiring's cards on it
     "Check the soldered joints on touch chip 0x5c's breakout"),
    ("it", "il chip touch 0x5b si è azzerato ed è stato configurato di nuovo",
     "il chip touch 0x5c non risponde; non si possono toccare: carte 2, 7, 12",
     "Controlla le saldature sulla scheda del chip touch 0x5c")])
def test_a_chip_reset_by_a_brown_out_shows_on_the_staff_pages_health_and_the_game_goes_on(tmp_path, lang, words, silent,
                                                                                          joints):
    """The firmware finds the chip within its check each second and sets it up again; the table,
    started as the service starts it on the emulated board, says so in the board's health on the
    staff page, in the page's language. A chip that then stops answering comes before it there,
    with the advice of that fault (its joints, its cards), not of an unplugged board's cable."""
    from helpers_tables import BoardTable

    emulator = BoardEmulator(link=tmp_path / "board")
    emulator.start()
    table = BoardTable(tmp_path, emulator)
    try:
        staff = table.staff(lang)

        def touch_device() -> dict[str, str]:
            status, answer = staff.call("GET", "/staff/api/health")
            assert status == 200
            return next(device for device in answer["devices"] if device["device"] == "touch")

        def touch_health() -> str:
            return touch_device()["health"]

        assert words not in touch_health()
        emulator.brownout(1)
        wait_for(lambda: words in touch_health(), "the reset chip in the board's health", timeout=5)
        assert table.daemon.devices.touch.connected
        assert emulator.chips[1].read_register(0x5E) == 0x8F  # running again, as set up
        emulator.cut_chip(2)
        wait_for(lambda: silent in touch_health(), "the silent chip in the board's health", timeout=5)
        advice = touch_device()["advice"]
        assert advice.startswith(joints) and "2, 7, 12" in advice and "USB" not in advice, advice
    finally:
        table.close()
        emulator.stop()


def test_emulate_board_touches_the_card_the_owner_names_on_a_table_of_the_reference_wiring(tmp_path):
    """docs/cafe/try.md's pair: ``pi-table emulate-board`` beside ``pi-table run --config``, whose
    wiring is the reference build's (card 7's pad is not electrode 7). ``press 7`` reveals card 7,
    whatever electrode its pad is on, and ``press end`` ends the turn, as the owner reads the table."""
    from pi_table.daemon.control import request
    from pi_table.sim.systemd import FakeSystemd

    from helpers_board import HOLD_S

    link = tmp_path / "board"
    board = subprocess.Popen([sys.executable, "-m", "pi_table", "emulate-board", "--link", str(link)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    config = tmp_path / "config.toml"
    config.write_text(f'[game]\nhold_s = {HOLD_S}\n[web]\nenabled = false\n'
                      '[paths]\njournal_dir = "journal"\nsocket = "control.sock"\nsocket_group = ""\n')
    service = FakeSystemd(["--hal", "sim", "--touch-port", str(link), "--config", str(config)], log=tmp_path / "log")

    def status():
        return request(tmp_path / "control.sock", "status")

    def typed(line):
        board.stdin.write(line + "\n")
        board.stdin.flush()

    try:
        assert board.stdout.readline().strip() == str(link)
        service.start()
        wait_for(lambda: status()["health"]["touch"] == "ok", "the table's hello with the board", timeout=30)
        turn = status()["state"]["turn"]
        typed("press 7")
        wait_for(lambda: status()["state"]["board"][7] != "?", "card 7 revealed", timeout=30)
        typed("release 7")
        revealed = [cell for cell, shown in enumerate(status()["state"]["board"]) if shown != "?"]
        assert revealed == [7], revealed
        if status()["state"]["turn"] == turn:  # card 7 was the team's own: END TURN passes the turn on
            typed("press end")
            wait_for(lambda: status()["state"]["turn"] != turn, "the turn ended by its pad", timeout=30)
            typed("release end")
        typed("press 40")
        typed("quit")
        board.wait(timeout=10)
        assert board.stderr.read().splitlines()[-1] == (
            "emulate-board: card 40 does not exist: the cards are 0 to 24, and END TURN's pads end and end2")
    finally:
        service.close()
        if board.poll() is None:
            board.kill()


@pytest.mark.parametrize("how", ["config", "lang"])
def test_emulate_board_speaks_the_tables_language_as_its_other_commands_do(tmp_path, how):
    """Issue 62, 5: the Italian try page's board said its commands and refusals in English. Its
    language is the one the table's configuration gives (``--config``), or ``--lang``."""
    config = tmp_path / "config.toml"
    config.write_text('[game]\nlanguage = "it"\n' if how == "config" else '[game]\nlanguage = "en"\n')
    chosen = ["--config", str(config)] + (["--lang", "it"] if how == "lang" else [])
    board = subprocess.run([sys.executable, "-m", "pi_table", "emulate-board", "--link", str(tmp_path / "board"),
                            *chosen], input="tap 40 300\nfrobnicate\nquit\n", capture_output=True, text=True,
                           timeout=60)
    assert board.returncode == 0, board.stderr
    said = board.stderr.splitlines()
    assert said[0].startswith("comandi: press PAD... | release PAD... | tap PAD MS"), said
    assert "(PAD una carta da 0 a 24" in board.stderr
    assert "emulate-board: la carta 40 non esiste: le carte vanno da 0 a 24, e i pad di FINE TURNO sono end e end2" \
        in said, said
    assert any(line.startswith("emulate-board: non è un comando: 'frobnicate'; serve uno di questi: press PAD...")
               for line in said), said


def test_a_chip_that_stops_answering_is_a_fault_naming_it_and_its_deaf_cards(table, caplog):
    """Issue 51's reproduction: chip 0x5B's joint breaks (electrodes 12-23, cards 12-23 under
    the default map). A finger on electrode 14 is never reported; the board's health says which
    chip, which cards and what to check, a warning is logged, and the table marks those cards
    deaf on its screen and LEDs, until the chip answers again."""
    said = []
    run_commands(table.emulator, ["cut-chip 1", "cut-chip 3"], said.append, table.driver.config)
    assert said == ["emulate-board: chip 3 does not exist: chips are 0 to 2\n"]
    table.emulator.press(14)
    trouble = wait_for(table.driver.trouble, "the chip that stopped answering in the board's health", timeout=3)
    assert trouble == Phrase.of(CHIP_SILENT, chip="0x5b", pads=Phrase.of(CARDS, cells="12-23"))
    assert str(trouble) == ("touch chip 0x5b does not answer: cards 12-23 cannot be touched; check the joints on "
                            "that chip's breakout and the I2C cable to it")
    assert any(record.levelname == "WARNING" and str(trouble) in record.getMessage() for record in caplog.records)
    deaf = frozenset(range(12, 24))
    wait_for(lambda: table.screen.last.deaf == deaf, "the deaf cards on the screen")
    assert trouble in table.screen.last.warnings and not table.screen.last.pending  # the finger was never heard
    cells = table.leds.last.cells
    assert {cells[cell] for cell in deaf} <= {DEAF, tuple(round(c * DIM) for c in DEAF)}
    assert cells[11] not in {DEAF} and cells[24] not in {DEAF}
    table.emulator.release(14)
    run_commands(table.emulator, ["mend-chip 1"], said.append, table.driver.config)
    wait_for(lambda: table.driver.trouble() is None and table.screen.last.deaf == frozenset(), "the chip heard again",
             timeout=3)
    assert trouble not in table.screen.last.warnings
    table.tap(14)
    wait_for(lambda: table.board()[14] == "B", "a guess on the card that was deaf")


def test_a_chip_missing_when_the_board_starts_is_told_as_such(tmp_path):
    """A breakout whose joints never made contact: the board starts without it, says so after its
    hello, and finds it once it answers."""
    emulator = BoardEmulator(link=tmp_path / "touch-board", missing=(2,))
    emulator.start()
    driver = TouchBoardSource(TouchBoardConfig(port=SerialDevice(emulator.path)))
    events = []
    driver.start(events.append)
    try:
        trouble = wait_for(driver.trouble, "the missing chip in the board's health", timeout=3)
        assert str(trouble) == ("touch chip 0x5c has not answered since the touch board started: card 24 and both "
                                "END TURN pads cannot be touched; check the joints on that chip's breakout and the I2C "
                                "cable to it")
        assert DeafCards(frozenset({24}), (trouble,)) in events
        emulator.mend_chip(2)
        wait_for(lambda: driver.trouble() is None, "the chip found", timeout=3)
        assert events[-1] == DeafCards()
    finally:
        driver.stop()
        emulator.stop()


def test_a_chip_missing_when_the_board_connects_runs_its_tuned_thresholds_once_it_answers(tmp_path):
    """Issue 60.1: a breakout whose joint is open at power-on and makes contact later. The chips
    that answer take their tuned thresholds at once, and the one that comes back takes its own,
    not the firmware's 8/4; until then the board's health says the chip is deaf, then nothing."""
    tuned = tuple((12 + e % 4, 6) for e in range(36))
    emulator = BoardEmulator(link=tmp_path / "touch-board", missing=(2,))
    emulator.start()
    driver = TouchBoardSource(TouchBoardConfig(port=SerialDevice(emulator.path), thresholds=tuned))
    driver.start(lambda event: None)

    def held(chip: int) -> tuple[tuple[int, int], ...]:
        fake = emulator.chips[chip]
        return tuple((fake.read_register(0x41 + 2 * pin), fake.read_register(0x42 + 2 * pin)) for pin in range(12))

    try:
        wait_for(lambda: held(0) == tuned[:12] and held(1) == tuned[12:24], "the chips that answer tuned", timeout=3)
        wait_for(lambda: "0x5c has not answered" in str(driver.trouble()), "the missing chip in the health", timeout=3)
        emulator.mend_chip(2)
        wait_for(lambda: held(2) == tuned[24:], "the chip that came back tuned with its own", timeout=3)
        wait_for(lambda: driver.trouble() is None, "the board's health clear", timeout=3)
    finally:
        driver.stop()
        emulator.stop()
