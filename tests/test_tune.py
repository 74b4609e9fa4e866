"""Touch tuning: the numbers and their rule, the configuration they are written to, the
command against the board emulator, and the view on the spymaster screen."""

from __future__ import annotations

import random
import stat
import subprocess
import sys
import time

import pytest

from pi_table.config import ConfigError, load_config
from pi_table.daemon.tune import TOUCH_MESSAGE, write_thresholds
from pi_table.drivers.settings import TouchBoardConfig
from pi_table.hal.tuning import PadNumbers, PadTuner, TuneModel, suggest, table_pads, tuned
from pi_table.kinds import SerialDevice
from pi_table.protocol import wire
from pi_table.sim.emulator import BoardEmulator, run_commands
from pi_table.ui.i18n import say
from pi_table.ui.tune_lines import bar, table_lines

from helpers_board import electrode_of

# --- the rule


@pytest.mark.parametrize("rest_high, peak, pair", [
    (1, 15, (8, 4)),  # the emulator's pad: +-1 at rest, 14 counts under a finger
    (-1, 15, (8, 4)),  # a baseline read low (its top 8 bits) makes rest deltas negative: 0 is the floor
    (2, 20, (11, 6)),
    (1, 7, (4, 2)),  # a weak pad still gets thresholds between its noise and its touch
    (0, 600, (255, 127)),  # the chip's registers hold 255 at most
    (3, 5, None),  # a touch within 2 counts of the noise: no threshold tells them apart
])
def test_the_suggestion_is_halfway_from_the_rest_to_the_touch(rest_high, peak, pair):
    assert suggest(rest_high, peak) == pair
    if pair:
        touch, release = pair
        assert max(rest_high, 0) < release < touch <= peak


def pad(**numbers) -> PadNumbers:
    values = {"electrode": 4, "cell": 4, "delta": 0, "touch": 8, "release": 4, "rest_low": -1, "rest_high": 1,
              "peak": 15} | numbers
    return PadNumbers(**values)


@pytest.mark.parametrize("numbers, verdict, words", [
    ({}, "ok", "cell 4: ok"),
    ({"peak": 7}, "deaf", "moves it only 7 counts, not over its touch threshold of 8; lower its thresholds"),
    ({"rest_high": 5, "peak": 20}, "noisy", "at rest its delta reaches 5 counts, against a release threshold of 4"),
    ({"peak": 2}, "untouched", "no touch seen yet"),
    ({"peak": None}, "untouched", "no touch seen yet"),
    ({"out_of_range": True}, "out of range", "its wire is broken, shorted or far too long"),
    ({"over_current": True}, "over-current", "has stopped"),
    ({"cell": None}, "ok", "END TURN: ok"),
])
def test_each_pad_gets_a_verdict_and_what_to_do(numbers, verdict, words):
    assert pad(**numbers).verdict == verdict
    assert words in str(pad(**numbers).advice())


def test_the_terminal_bar_shows_the_delta_against_both_thresholds():
    assert bar(pad(delta=3)) == "[###  :    |         ]"  # 20 characters for 16 counts: twice the threshold
    assert bar(pad(delta=-2, peak=40)) == "[  : |               ]"  # a strong pad widens the scale
    line = table_lines((pad(delta=3),))[1].split()
    assert line[:3] == ["cell", "4", "4"] and line[-3:] == ["15", "8/4", "ok"]


def test_the_tuner_takes_the_noise_at_rest_and_the_peak_after_it():
    tuner = PadTuner(table_pads((0, 1, None, 2), (12,)))
    for filtered in (719, 721, 720):  # at rest, against a baseline of 720
        tuner.add(wire.Readings(0, 0, 0, ((filtered, 720), (720, 720), (0, 0), (715, 720))), resting=True)
        tuner.add(wire.Readings(12, 0, 0, ((720, 720),)), resting=True)
    for filtered in (712, 705, 716):  # a finger on electrode 0; electrode 3 goes out of range
        tuner.add(wire.Readings(0, 0, 0b1000, ((filtered, 720), (720, 720), (0, 0), (715, 720))), resting=False)
    numbers = {n.electrode: n for n in tuner.numbers()}
    assert sorted(numbers) == [0, 1, 3, 12]  # electrode 2 is no pad; 12 is END TURN
    assert (numbers[0].rest_low, numbers[0].rest_high, numbers[0].noise, numbers[0].peak) == (-1, 1, 2, 15)
    assert numbers[0].delta == 4 and numbers[0].suggested == (8, 4) and numbers[0].verdict == "ok"
    assert numbers[1].verdict == "untouched" and numbers[1].suggested is None
    assert numbers[3].verdict == "out of range" and numbers[12].name == "END TURN" and numbers[12].peak is None
    assert tuned(tuner.numbers(), ((9, 5),) * 2) == ((8, 4), (9, 5))  # a suggestion replaces; the rest stay


# --- the configuration


CONFIG = """\
# the café's table
[game]
hold_s = 0.3

[touch]
stuck_s = 12  # slow players
thresholds = [
    [9, 4],  # hand-tuned
    [9, 4],
]
port = "auto"

[web]
enabled = false
"""


def test_written_thresholds_replace_the_old_ones_and_keep_every_other_line(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(CONFIG)
    path.chmod(0o640)
    write_thresholds(path, ((8, 4), (10, 5), (7, 3)))
    text = path.read_text()
    assert text.replace("thresholds = [[8, 4], [10, 5], [7, 3]]\n", "") == CONFIG.replace(
        "thresholds = [\n    [9, 4],  # hand-tuned\n    [9, 4],\n]\n", "")
    config = load_config(path)
    assert config.touch.thresholds == ((8, 4), (10, 5), (7, 3)) and config.input.stuck_s == 12
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    # no temporary file left behind: the old file kept as the last good one, and the trial noted
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml", "config.toml.good", "config.toml.trial"]
    assert (tmp_path / "config.toml.good").read_text() == CONFIG
    assert stat.S_IMODE((tmp_path / "config.toml.good").stat().st_mode) == 0o640


@pytest.mark.parametrize("text", ["[web]\nenabled = false\n", "", "[touch]\nport = \"auto\"\n"],
                         ids=["no [touch]", "empty file", "no thresholds key"])
def test_written_thresholds_find_a_place_in_any_file(tmp_path, text):
    path = tmp_path / "config.toml"
    path.write_text(text)
    write_thresholds(path, ((8, 4),))
    assert load_config(path).touch.thresholds == ((8, 4),)
    new = path.read_text().splitlines()
    assert all(line in new for line in text.splitlines())


def test_the_table_s_touch_board_gets_the_written_thresholds(tmp_path):
    """What --write keeps is what the daemon's driver sends the board at each connection."""
    from pi_table.daemon.devices import open_devices

    path = tmp_path / "config.toml"
    path.write_text(CONFIG)
    write_thresholds(path, ((8, 4), (10, 5)))
    devices = open_devices(load_config(path), "sim", SerialDevice(str(tmp_path / "board")))
    assert devices.touch.config.thresholds == ((8, 4), (10, 5))


def test_thresholds_the_configuration_refuses_are_not_written(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(CONFIG)
    with pytest.raises(ConfigError, match=r"electrode 0's thresholds are \[touch, release\]"):
        write_thresholds(path, ((4, 8),))
    assert path.read_text() == CONFIG and [p.name for p in tmp_path.iterdir()] == ["config.toml"]


# --- the command against the board emulator


@pytest.mark.daemon
def test_tune_against_the_emulator_prints_verdicts_and_writes_suggestions(tmp_path):
    emulator = BoardEmulator(link=tmp_path / "board")
    emulator.rng = random.Random(7)
    deaf, noisy = electrode_of(3), electrode_of(7)  # cells 3 and 7, on the reference wiring's electrodes
    emulator.set_pad(deaf, strength=6, noise=1)  # deaf: a finger moves it 6 counts, the threshold is 8
    emulator.set_pad(noisy, strength=14, noise=5)  # noisy: it wanders 5 counts either way at rest
    emulator.start()
    config = tmp_path / "config.toml"
    config.write_text(CONFIG.replace("[web]\nenabled = false\n", "[web]\nenabled = false\n[paths]\n"
                                     'journal_dir = "journal"\nsocket = "control.sock"\nsocket_group = ""\n'))
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "pi_table", "tune", "--hal", "sim", "--touch-port", str(emulator.link),
             "--config", str(config), "--rest", "1", "--frames", "150", "--period-ms", "20", "--write"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        seen = []
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            seen.append(process.stdout.readline())
            if seen[-1].startswith(TOUCH_MESSAGE) or not seen[-1]:
                break
        assert seen[-1].startswith(TOUCH_MESSAGE), seen
        for electrode in (electrode_of(0), deaf, 25):
            emulator.press(electrode)
            time.sleep(0.3)  # some 15 rounds under the finger
            emulator.release(electrode)
            time.sleep(0.05)
        out = process.communicate(timeout=30)[0]
    finally:
        emulator.stop()
    assert process.returncode == 0, out
    report = out[out.rindex("pad  "):]  # the last table, then the verdicts
    verdicts = {int(line.split()[2]): line.split()[-1] for line in report.splitlines()[1:28]}  # by electrode
    assert (verdicts[0], verdicts[25], verdicts[1], verdicts[26]) == ("ok", "ok", "untouched", "untouched")
    assert "cell 3: deaf: a touch moves it only" in report and "cell 7: noisy: at rest its delta reaches" in report
    assert "no touch seen on cell 1, cell 2," in report
    written = load_config(config)
    touch, release = written.touch.thresholds[0]
    assert 7 <= touch <= 9 and 1 < release < touch  # between the pad's +-1 at rest and its 14 under a finger
    assert written.touch.thresholds[deaf][0] < 8  # the deaf pad's threshold comes down under its touch
    kept = written.touch.thresholds[noisy] if noisy < len(written.touch.thresholds) else "the firmware's (8, 4)"
    assert kept in ((8, 4), "the firmware's (8, 4)")  # the noisy pad keeps the default: no suggestion
    assert written.input.stuck_s == 12 and "# the café's table" in config.read_text()


def test_the_emulator_s_pads_can_be_made_deaf_or_noisy_from_its_commands(tmp_path):
    emulator = BoardEmulator(link=tmp_path / "board")
    said = []
    run_commands(emulator, ["pad 3 6 2", "pad 40 6 2", "pad 3 x 2"], said.append, TouchBoardConfig())
    assert (emulator.strength[3], emulator.noise[3]) == (6, 2)  # card 3, on electrode 3 in this wiring
    assert "card 40 does not exist" in said[0] and "expected a whole number" in said[1]


def test_tune_without_a_board_says_so(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[paths]\njournal_dir = "journal"\nsocket = "control.sock"\nsocket_group = ""\n')
    done = subprocess.run([sys.executable, "-m", "pi_table", "tune", "--hal", "sim", "--config", str(config)],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and "give --touch-port" in done.stderr


def test_tune_speaks_the_tables_language(tmp_path):
    """Its lines, its refusals and the screen's legend in [game] language; the pads' verdicts too."""
    from pi_table.daemon.tune import Tune, TuneError
    from pi_table.drivers.touchboard import TouchBoardSource
    from pi_table.ui.tune import LEGEND, TunePainter

    config = tmp_path / "config.toml"
    config.write_text('[game]\nlanguage = "it"\n[paths]\njournal_dir = "journal"\nsocket = "control.sock"\n'
                      'socket_group = ""\n')
    done = subprocess.run([sys.executable, "-m", "pi_table", "tune", "--hal", "sim", "--config", str(config)],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stderr == "pi-table tune: con --hal sim non c'è nessuna scheda da regolare: indica --touch-port\n"
    painter = TunePainter(lang="it")
    assert [painter._(text) for text in LEGEND] == ["barra: delta attuale", "tacca: soglia di tocco",
                                                    "n: rumore a riposo", "s: soglie suggerite"]
    with pytest.raises(TuneError) as refused:
        Tune(TouchBoardSource(), {}, (), period_ms=5, lang="it")
    assert say(refused.value.phrase, "it") == "il periodo delle letture è di almeno 20 ms, non 5"
    tune = Tune(TouchBoardSource(), {0: 0, 25: None}, (), lang="it")
    tune.tuner.add(wire.Readings(0, 0, 0, ((720, 720),)), resting=True)
    tune.tuner.add(wire.Readings(25, 0, 0, ((720, 720),)), resting=True)
    report = tune.report()
    assert report[-1] == ("nessun tocco visto su casella 0, FINE TURNO: tocca ciascuno una volta; un sensore che un "
                          "tocco deciso non smuove ha un filo interrotto")
    assert report[-2].startswith("0 sensori su 2 hanno un suggerimento (tocco = a metà")


# --- the spymaster screen


def test_the_tuning_view_on_the_screen_shows_each_pad_in_its_verdict_colour(tmp_path):
    import pygame

    from pi_table.drivers.pygame_screen import PygameScreen
    from pi_table.ui.mounting import ScreenSettings
    from pi_table.ui.screen import DESIGN, slot_of
    from pi_table.ui.selftest import DONE
    from pi_table.ui.tune import TunePainter

    numbers = (pad(electrode=0, cell=0, delta=12), pad(electrode=6, cell=6, delta=5, peak=7),
               pad(electrode=25, cell=None, delta=3))
    settings = ScreenSettings()
    screen = PygameScreen(TunePainter(settings), size=DESIGN, video_driver="dummy")
    screen.start(lambda event: None)
    try:
        screen.show(TuneModel(frozenset(), (), TOUCH_MESSAGE, numbers=numbers))
        screen.screenshot(tmp_path / "tune.png")
    finally:
        screen.stop()
    picture = pygame.image.load(str(tmp_path / "tune.png"))
    size = (DESIGN[1] - 60) // 5

    def colours_in(cell: int) -> set[tuple[int, int, int]]:
        row, col = slot_of(cell, settings.rotation)
        left, top = 16 + col * size, 50 + row * size
        return {tuple(picture.get_at((x, y)))[:3] for x in range(left, left + size - 6, 2)
                for y in range(top, top + size - 6, 2)}

    assert DONE in colours_in(0)  # an ok pad's bar is green
    assert (255, 184, 28) in colours_in(6) and DONE not in colours_in(6)  # a deaf pad's is amber
    assert DONE not in colours_in(12) and (255, 184, 28) not in colours_in(12)  # no numbers yet: no bar
