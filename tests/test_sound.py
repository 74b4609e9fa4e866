"""Sound cues: chosen from the public views alone (random games with the hidden cards shuffled
play the same cues), each event has its cue, the scripted simulator reports them, the settings
apply, and every cue has its file, made by this project's builder."""

from __future__ import annotations

import json
import random
import threading

import pytest

from pi_table.cli import main
from pi_table.engine import Clue, EndTurn, Guess, Key, Rules, Team, Undo
from pi_table.engine.codex import Codex
from pi_table.hal import UiEvent
from pi_table.hal.sound import SimSound
from pi_table.sim.harness import SimTable
from pi_table.sim.script import Wait, parse_script, run_script
from pi_table.table import Session
from pi_table.table.timer import TimerSettings
from pi_table.ui import sounds
from pi_table.ui.cues import SAY, SOUNDS_DIR, cue_file
from pi_table.ui.i18n import translation
from pi_table.ui.sound import Announcer, Moment, QuietHours, SoundSettings, choose_cues, every_sound

from helpers import ROOT, require_tools
from helpers_games import choose, scrambled
from helpers_tables import service_daemon

VARIANTS = {
    "codenames": Rules(),
    "codenames-coop": Rules(game="codenames-coop"),
    "alias24": Rules(game="alias24"),
    "alias24-mad": Rules(game="alias24", nuke="mad"),
    "deep-undercover": Rules(setup="place"),
    "three-player": Rules(three_player=True, clue_required=True),
}
GRID_CUES = {"reveal-red", "reveal-blue", "reveal-opponent", "reveal-bystander", "assassin", "nuke", "turn",
             "timer-warning", "timer-end", "win", "game-over"}
CODEX_CUES = {"codex-messages", "codex-private", "codex-discussion", "codex-vote", "truth-machine", "truth-reveal", "win"}
KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"  # red starts: cells 0-8 red, 9-16 blue, 17-23 bystanders, 24 the assassin
CUES = every_sound().cues  # the table's and each kind's own
CUE_NAMES = tuple(cue.name for cue in CUES)
PHRASES = every_sound().phrases


# --- random games: the cues never depend on a hidden card ------------------------------------------


def sim_table(rules: Rules, seed: int, key: Key | None) -> SimTable:
    session = Session(rules, rng=random.Random(seed), key=key)
    table = SimTable(session, timer=TimerSettings(length_s=10, warn_s=3, enforce=seed % 2 == 0))
    table.loop.sound.settings = SoundSettings(spoken=True)  # the announcements are chosen too
    return table


def random_game(rules: Rules, seed: int) -> tuple[list, list[list[str]], set[int], Key]:
    """A random game through the table's devices: its commands (and waits, for the timer), the
    cues each played, the cells ever shown, and the key it was played on."""
    table = sim_table(rules, seed, None)
    rng = random.Random(seed)
    commands, heard, shown = [], [], set()
    try:
        while not table.session.state.is_over and len(commands) < 300:
            roll = rng.random()
            if roll < 0.15:
                command = Wait(rng.choice((0.5, 2.0, 4.0, 7.5, 12.0)))
            elif roll < 0.18:
                command = Undo()
            elif roll < 0.21:
                command = EndTurn()
            else:
                command = rng.choice(table.session.game.legal_actions(table.session.state))
            table.wait(command.seconds) if isinstance(command, Wait) else table.do(command)
            commands.append(command)
            heard.append(table.sounds())
            shown |= {cell for cell, card in enumerate(table.session.table_view().board) if card not in "?."}
        key = table.session.state.key if rules.setup == "key" else table.session.chosen_key
    finally:
        table.close()
    assert key is not None
    return commands, heard, shown, key


def replayed(rules: Rules, seed: int, key: Key, commands: list) -> list[list[str]]:
    table = sim_table(rules, seed, key)
    heard = []
    try:
        for command in commands:
            table.wait(command.seconds) if isinstance(command, Wait) else table.do(command)
            heard.append(table.sounds())
    finally:
        table.close()
    return heard


def hidden_shuffled(key: Key, shown: set[int], rng: random.Random) -> Key:
    """The same key on every card ever shown; the identities of the others shuffled."""
    hidden = [cell for cell in range(25) if cell not in shown and key.cells[cell] != "."]  # the dark cell stays
    letters = [key.cells[cell] for cell in hidden]
    rng.shuffle(letters)
    cells = list(key.cells)
    for cell, letter in zip(hidden, letters):
        cells[cell] = letter
    return Key("".join(cells), key.start)


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_games_play_the_same_cues_whatever_the_hidden_cards_are(variant):
    rules = VARIANTS[variant]
    played: set[str] = set()
    changed = 0
    for seed in range(12):
        commands, heard, shown, key = random_game(rules, seed)
        other = hidden_shuffled(key, shown, random.Random(seed))
        changed += other != key
        assert replayed(rules, seed, other, commands) == heard, f"seed {seed}: the cues told the hidden cards"
        played |= {cue for cues in heard for cue in cues}
    assert changed >= 6, "the twin keys must differ somewhere hidden for the test to mean anything"
    assert {cue for cue in played if not cue.startswith(SAY)} <= GRID_CUES


@pytest.mark.slow  # some 3 s of CPU by itself: out of ./dev test (issue 40)
def test_every_grid_event_has_its_cue_in_random_games():
    played: set[str] = set()
    for rules in VARIANTS.values():
        for seed in range(12):
            played |= {cue for cues in random_game(rules, seed)[1] for cue in cues}
    assert GRID_CUES <= played, f"never heard: {sorted(GRID_CUES - played)}"
    assert {"say-turn-red", "say-turn-blue", "say-win-red", "say-win-blue", "say-timer-warning", "say-timer-end"} <= played


SEEDS = 8


def public_moments(game: Codex, states, at: float = 0.0):
    return [Moment("g", game.public_view(state), None, at) for state in states]


@pytest.mark.slow  # some 3 s of CPU by itself: out of ./dev test (issue 40)
def test_random_codex_games_play_the_same_cues_whatever_the_agents_hide():
    """Codex's cues come from the public view: a twin game whose agents hide other identikits and
    other private moves (the helpers' ``scrambled``) plays the same cues, step by step."""
    played: set[str] = set()
    for seed in range(SEEDS):
        rng = random.Random(seed)
        game = Codex()
        states = [game.start(game.deal(rng))]
        while not states[-1].is_over and len(states) < 400:
            states.append(game.apply(states[-1], choose(game, states[-1], rng)))
        real = public_moments(game, states)
        for step in range(1, len(states)):
            cues = choose_cues(real[step - 1], real[step])
            seat = rng.randrange(6)
            if not states[step].is_over:  # at the end every identikit is public anyway
                twins = public_moments(game, [scrambled(states[step - 1], seat, rng), scrambled(states[step], seat, rng)])
                assert choose_cues(*twins) == cues, (seed, step)
            played |= set(cues)
    assert CODEX_CUES <= played, f"never heard: {sorted(CODEX_CUES - played)}"
    spoken = {cue for cue in played if cue.startswith("say-") and "win" in cue}
    assert spoken and spoken <= {"say-codex-win-red", "say-codex-win-blue"}, spoken  # a faction wins Codex, not a team


# --- each event, by name ------------------------------------------------------------------------


def script_sounds(text: str, rules: Rules = Rules(), key: str = KEY, timer: TimerSettings | None = None,
                  spoken: bool = False, lang: str = "en") -> list[list[str]]:
    session = Session(rules, key=Key(key, Team.RED))
    table = SimTable(session, timer=timer, lang=lang)
    table.loop.sound.settings = SoundSettings(spoken=spoken)
    out: list[str] = []
    try:
        run_script(table, parse_script(text.splitlines()), out.append)
    finally:
        table.close()
    return [json.loads(line)["sounds"] for line in out]


def test_a_reveal_sounds_own_opponent_bystander_or_assassin_from_the_guessing_team():
    sounds = script_sounds("clue 3\ntouch 0\ntouch 17\nclue 2\ntouch 9\ntouch 1\nclue 1\ntouch 2\nclue 1\ntouch 24\n")
    assert sounds == [
        [], [], ["reveal-red"], ["reveal-bystander", "turn"],  # a bystander ends red's turn
        [], ["reveal-blue"], ["reveal-opponent", "turn"],  # blue touched red's agent
        [], ["reveal-red"], [], ["assassin", "win"],  # red touches the assassin: blue wins
    ]


def test_alias24_is_heard_from_the_team_eliminating_the_others_assets():
    key = "RRRRRRRRRBBBBBB.BBNNNNNNA"  # red 0-8, blue 9-14 and 16-17, the dark cell 15, decoys, the nuke 24
    sounds = script_sounds("clue 2\ntouch 9\ntouch 0\nclue 1\ntouch 24\n", rules=Rules(game="alias24", dark_cell=15), key=key)
    assert sounds == [[], [], ["reveal-red"], ["reveal-opponent", "turn"], [], ["nuke", "win"]]


def test_the_timer_warns_once_and_ends_once_per_turn():
    timer = TimerSettings(length_s=20, warn_s=5, enforce=True)
    sounds = script_sounds("wait 10\nwait 6\nwait 1\nwait 4\nwait 16\n", timer=timer, spoken=True)
    assert sounds == [[], [], ["timer-warning", "say-timer-warning"], [],
                      ["timer-end", "turn", "say-timer-end", "say-turn-blue"], ["timer-warning", "say-timer-warning"]]


def test_an_unenforced_timer_ends_without_passing_the_turn():
    sounds = script_sounds("wait 30\nwait 30\n", timer=TimerSettings(length_s=20, warn_s=5))
    assert sounds == [[], ["timer-warning", "timer-end"], []]


# --- the settings -------------------------------------------------------------------------------


class Clock:
    def __init__(self, hour: int) -> None:
        self.tm_hour, self.tm_min = hour, 0

    def __call__(self):
        return self


def heard_with(settings: SoundSettings, hour: int = 12, lang: str = "en"):
    """Play a red reveal that passes the turn through an announcer with ``settings``."""
    device = SimSound()
    announcer = Announcer(device, settings, lang, wall_clock=Clock(hour))
    session = Session(Rules(), key=Key(KEY, Team.RED))
    announcer.hear(Moment(session.id, session.table_view(), None, 0))
    session.submit(Clue(1))
    session.submit(Guess(9))
    return announcer.hear(Moment(session.id, session.table_view(), None, 1)), device


def test_settings_off_spoken_and_volume():
    names, device = heard_with(SoundSettings(enabled=False))
    assert names == () and not device.played
    names, device = heard_with(SoundSettings(volume=0.5))
    assert names == ("reveal-opponent", "turn") and device.played[0].volume == 0.5
    names, device = heard_with(SoundSettings(spoken=True), lang="it")
    assert names == ("reveal-opponent", "turn", "say-turn-blue")
    assert device.played[0].files[-1] == cue_file("say-turn-blue", "it") and device.played[0].files[-1].name.endswith(".it.wav")


def test_quiet_hours_play_at_a_quarter_and_say_nothing():
    quiet = QuietHours.parse("23:00-08:00")
    assert quiet is not None and 23 * 60 in quiet and 7 * 60 + 59 in quiet and 8 * 60 not in quiet and 12 * 60 not in quiet
    names, device = heard_with(SoundSettings(volume=0.8, spoken=True, quiet=quiet), hour=2)
    assert names == ("reveal-opponent", "turn") and device.played[0].volume == pytest.approx(0.2)
    names, device = heard_with(SoundSettings(volume=0.8, spoken=True, quiet=quiet), hour=20)
    assert "say-turn-blue" in names and device.played[0].volume == 0.8


@pytest.mark.parametrize("text", ["23:00", "25:00-08:00", "8-9", "08:00-08:00", "23:00-08:00-09:00", "aa:bb-cc:dd"])
def test_bad_quiet_hours_say_what_is_expected(text):
    with pytest.raises(ValueError, match="quiet hours"):
        QuietHours.parse(text)


# --- the files ----------------------------------------------------------------------------------


def test_every_cue_and_announcement_has_its_file_and_the_set_is_small():
    total = 0
    for name in CUE_NAMES:
        assert cue_file(name, "en").exists(), name
    for name in PHRASES:
        for lang in ("en", "it"):
            path = cue_file(name, lang)
            samples, rate = sounds.read_wav(path)
            assert rate == sounds.RATE and len(samples) > rate // 4, path  # a phrase, not a click
    for path in sorted(SOUNDS_DIR.glob("*.wav")):
        samples, rate = sounds.read_wav(path)
        loudest = max(abs(x) for x in samples)
        assert 0.5 * sounds.FULL < loudest <= round(sounds.PEAK * sounds.FULL), f"{path.name}: silent or clipping"
        assert len(samples) / rate <= 3.0, f"{path.name}: {len(samples) / rate:.1f} s is no cue"
        total += path.stat().st_size
    assert total < 1024 * 1024, f"the sounds take {total / 1024:.0f} KiB"  # shipped in every install: small


def test_the_synthesised_cues_are_what_the_builder_makes_now():
    for name in CUE_NAMES:
        shipped, rate = sounds.read_wav(cue_file(name, "en"))
        made = sounds.synthesise(name)
        assert rate == sounds.RATE and len(shipped) == len(made), name
        # one step of rounding either way: another machine's libm may differ in the last bit
        assert max(abs(a - b) for a, b in zip(shipped, made)) <= 1, f"{name}: run python -m pi_table.ui.sounds build"


def test_every_cue_has_its_synthesiser_and_nothing_else_has_one():
    assert sorted(sounds.synthesisers()) == sorted(CUE_NAMES) and len(set(CUE_NAMES)) == len(CUE_NAMES)


def test_the_cues_sound_different_from_each_other():
    """No two cues are the same sound: their lengths or their first 50 ms differ clearly."""
    made = {name: sounds.synthesise(name) for name in CUE_NAMES}
    names = list(made)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            x, y = made[a], made[b]
            head = min(len(x), len(y), sounds.RATE // 20)
            difference = sum(abs(p - q) for p, q in zip(x[:head], y[:head])) / head
            assert abs(len(x) - len(y)) > sounds.RATE // 20 or difference > 1000, (a, b)


# --- the simulators' contract -------------------------------------------------------------------


def test_the_scripted_simulators_lines_name_the_sounds(tmp_path, capsys):
    script = tmp_path / "game.txt"
    script.write_text("clue 1\ntouch 0\ntouch 9\n")
    assert main(["sim", "--key", KEY, "--start", "red", "--script", str(script), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["sounds"] for line in lines] == [[], [], ["reveal-red"], ["reveal-opponent", "turn"]]


def test_the_loop_never_waits_for_the_sound_device():
    """A device that takes its time costs the table nothing: the loop hands it the files and
    the device's own contract is to return at once. Here the device never finishes opening:
    fifty cues still return, the ones past the queue dropped."""
    from pi_table.drivers.pygame_sound import QUEUE, PygameSound

    device = PygameSound(driver="dummy")
    stuck = threading.Event()
    device._open = lambda: stuck.wait()  # a device that hangs until the test lets it go
    device._play = lambda files, volume: None
    device.start(lambda event: None)
    loop = threading.Thread(target=lambda: [device.play((cue_file("turn", "en"),), 1.0) for _ in range(50)])
    try:
        loop.start()
        loop.join(timeout=30)  # only a play that waited for the device could keep it
        assert not loop.is_alive(), "play waited for a device that hangs"
        assert device.dropped >= 50 - QUEUE - 1
    finally:
        stuck.set()
        device.close()


def test_codex_phases_and_the_discussion_timer_in_the_scripted_simulator(tmp_path, capsys):
    setup = ("Moon:red:leader:1:AAAA Aleman:red:hacker:2:BBBB Viper:red:inquisitore:3:CCCC "
             "Falco:blue:leader:1:DDDD Nebbia:blue:hacker:2:EEEE Orso:blue:inquisitore:3:FFFF")
    messages = "".join(f"send {seat} {(seat + 1) % 6} position\n" for seat in range(6))
    done = "".join(f"done {seat}\n" for seat in range(6))
    script = tmp_path / "codex.txt"
    script.write_text(messages + done + "wait 23\nwait 6.5\nwait 0.5\n")  # the warning 7.5 s before the end
    assert main(["sim", "--game", "codex", "--setup", setup, "--discussion", "30", "--script", str(script), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    heard = [cue for line in lines for cue in line["sounds"]]
    assert [line["sounds"] for line in lines[-3:]] == [["timer-warning"], [], ["timer-end", "codex-vote"]]
    assert heard == ["codex-private", "codex-discussion", "timer-warning", "timer-end", "codex-vote"]


def test_the_developers_pages_list_every_cue_as_it_is_played():
    page = (ROOT / "docs" / "dev" / "architecture.md").read_text(encoding="utf-8")
    for cue in CUES:
        assert f"| `{cue.name}` | {cue.when} | {cue.sounds} |" in page, cue.name
    for name in PHRASES:
        assert f"| `{name}` |" in page, name


@pytest.mark.tool
def test_espeak_ng_speaks_each_announcement_as_the_build_does():
    """The spoken files are espeak-ng's at build time; the builder still works with the espeak-ng
    installed here, and says each phrase in about the time the shipped file takes."""
    require_tools("espeak-ng")
    for name in ("say-turn-blue", "say-timer-end"):
        for lang in ("en", "it"):
            spoken = sounds.speak(translation(lang).gettext(PHRASES[name]), lang)
            shipped, _ = sounds.read_wav(cue_file(name, lang))
            assert 0.7 < len(spoken) / len(shipped) < 1.4, (name, lang)
            assert max(abs(x) for x in spoken) == round(sounds.PEAK * sounds.FULL)


# --- the daemon ---------------------------------------------------------------------------------


def daemon_config(tmp_path, sound: str):
    path = tmp_path / "config.toml"
    path.write_text('[web]\nenabled = false\n[paths]\njournal_dir = "journal"\nsocket = "control.sock"\n'
                    f'socket_group = ""\n[game]\nlanguage = "it"\n[sound]\n{sound}')
    return path


def test_the_daemon_plays_the_cues_of_each_loop_on_its_sound_device(tmp_path):
    """The same announcer serves the grid games' loop and Codex's, in the table's language."""
    daemon = service_daemon(daemon_config(tmp_path, "spoken = true\nvolume = 0.5\n"))
    try:
        daemon.start()
        assert daemon.status()["health"]["sound"] == "simulated"
        key = daemon.session.state.key
        turn = daemon.session.state.turn
        other = next(cell for cell, letter in enumerate(key.cells) if letter == turn.other.letter)
        for command in (Clue(1), Guess(other)):
            daemon.loop.post(UiEvent(command))
        daemon.loop.run_pending()
        [played] = daemon.devices.sound.played
        assert played.names == ("reveal-opponent", "turn", f"say-turn-{turn.other.value}") and played.volume == 0.5
        assert played.files[-1].name.endswith(".it.wav")
    finally:
        daemon.close()


def test_sound_off_in_the_configuration_plays_nothing(tmp_path):
    daemon = service_daemon(daemon_config(tmp_path, "enabled = false\n"))
    try:
        daemon.start()
        assert daemon.status()["health"]["sound"] == "off"
        daemon.loop.post(UiEvent(Clue(1)))
        daemon.loop.post(UiEvent(Guess(0)))
        daemon.loop.run_pending()
        assert daemon.session.table_view().board[0] != "?" and daemon.loop.sound.take_played() == []
    finally:
        daemon.close()
