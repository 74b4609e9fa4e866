"""The table's configuration: one TOML file in which every key has a default.

The hardware keys' defaults are the reference build's wiring, read from hardware/pinout.toml.

``load_config`` reads the file, checks every key's type, then builds the settings objects of
the layers below (``Rules``, ``TouchBoardConfig``, ``PixelOutput``...). Those objects check
their own ranges, so a range lives in one place: when building fails, each key the file sets
is tried alone on top of the defaults to name the key at fault, then the others two at a time
to name a mistake only two keys make together. ``check_machine`` adds the values that cannot
work on this machine (a journal folder that is a file, a group that does not exist). Every
problem found is reported at once, with the file, the key, what was expected and what was found.
"""

from __future__ import annotations

import difflib
import errno
import grp
import itertools
import json
import math
import os
import pwd
import re
import socket
import stat
import tempfile
import tomllib
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

from .drivers.buttons import ButtonPins
from .drivers.spi_leds import SpiLedConfig
from .drivers.touchboard import ELECTRODE_LIMIT, TouchBoardConfig
from .drivers.ws281x import PINS, Ws281xConfig
from .engine import CELLS, CODEX, Rules
from .engine.errors import Refusal
from .engine.phrase import N_, Phrase, Text, meaning
from .engine.rules import CENTRE
from .engine.views import LANGUAGES
from .hardware import pinout
from .table.input import InputSettings
from .table.session import Retention
from .table.timer import DISCUSSION_S, TimerSettings
from .ui.i18n import say
from .ui.leds import LightSettings
from .ui.mounting import PanelMounting, ScreenSettings
from .ui.pixels import LedMap, PixelOutput, PowerLimit
from .ui.sound import QuietHours, SoundSettings

if TYPE_CHECKING:
    from .engine import CodexRules

DEFAULT_PATH = Path("/etc/pi-table/config.toml")
MAX_BYTES = 256 * 1024  # a real configuration is a few kilobytes; more is a wrong file
LED_BACKENDS = ("ws281x", "spi", "none")
SPI_MOSI = 10  # the spidev backend's data line is SPI0 MOSI, GPIO10
SOCKET_PATH_MAX = 107  # sockaddr_un holds 108 bytes with the closing NUL
MAX_LEDS = 2000  # at 30 µs an LED, a frame of 2,000 takes 60 ms on the data line: more is no table


WIRING = pinout.load()
"""The reference build's wiring (hardware/pinout.toml): the defaults of the hardware keys."""


def _fitted(pin: int) -> int | bool:
    return pin if WIRING.encoder_fitted else False


class ConfigError(ValueError):
    """What is wrong with a configuration: one sentence per problem, each naming the file and
    key; ``problems`` in English (logs, tests), ``said()`` in the file's own [game] language
    (when it names one it can be read in) or the one asked, as ``check-config`` and the staff
    page show them."""

    def __init__(self, phrases: list[Phrase], lang: str = "en") -> None:
        self.phrases = phrases
        self.lang = lang
        self.problems = [str(phrase) for phrase in phrases]
        super().__init__("\n".join(self.problems))

    def said(self, lang: str | None = None) -> list[str]:
        return [say(phrase, lang or self.lang) for phrase in self.phrases]


@dataclass(frozen=True, slots=True)
class Option:
    """One key: its section and name, default, kind (how the TOML value is read) and help."""

    section: str
    name: str
    default: object
    kind: str
    help: str

    @property
    def key(self) -> str:
        return f"{self.section}.{self.name}"


OPTIONS = (
    Option("game", "game", "codenames", "str", N_("the game a new table deals: codenames, codenames-coop, alias24, codex")),
    Option("game", "nuke", "basic", "str", N_("Alias 24's nuke mode: basic, mad")),
    Option("game", "clue_required", False, "bool", N_("the clue number must be entered before the first touch")),
    Option("game", "three_player", False, "bool", N_("one operative guesses for both spymasters")),
    Option("game", "setup", "key", "str", N_("key, place: 'place' is Deep Undercover's deal-and-place")),
    Option("game", "dark_cell", CENTRE, "int", N_("Alias 24's cell without a card, 0 to 24")),
    Option("game", "language", "en", "str", N_("the screen's language: en, it")),
    Option("game", "colour_blind", False, "bool", N_("identities also differ by rhythm on the LEDs")),
    Option("game", "hold_s", 0.25, "number", N_("seconds a touch is held before it counts as a guess")),
    Option("game", "discussion_s", DISCUSSION_S, "number", N_("Codex: seconds of public discussion each phase, 10 to 3600")),
    Option("game", "sealed_votes", False, "bool", N_("Codex: hide each ballot until the sixth is in (the book votes in public)")),
    Option("timer", "length_s", 0, "number", N_("turn timer in seconds, 10 to 3600; 0 is off")),
    Option("timer", "warn_s", 10, "number", N_("warn this many seconds before the turn runs out")),
    Option("timer", "enforce", False, "bool", N_("end the turn when the timer runs out")),
    Option("touch", "port", "auto", "str", N_("the board's serial port (/dev/serial/by-id/...), or 'auto': by usb_id")),
    Option("touch", "usb_id", WIRING.usb_id, "usb_id", N_("VENDOR:PRODUCT of the board's data port, in hex")),
    Option("touch", "cell_electrodes", list(WIRING.cell_electrodes), "int_list", N_("for cells 0-24, the electrode each pad is on")),
    Option("touch", "end_turn", list(WIRING.end_turn_electrodes), "int_list", N_("electrodes wired to END TURN pads")),
    Option("touch", "stuck_s", 10.0, "number", N_("a pad touched this long is quarantined as stuck")),
    Option("touch", "thresholds", [], "int_lists", N_("per electrode [touch, release] in counts, from pi-table tune --write ([]: the board's 8/4)")),
    Option("leds", "backend", "ws281x", "str", N_("ws281x (Pi 3/4), spi (Pi 5, spidev) or none")),
    Option("leds", "pin", WIRING.led_data, "int", N_("ws281x data pin: GPIO 10, 12, 13, 18, 19, 21 (10 needs no root)")),
    Option("leds", "dma", 10, "int", N_("ws281x DMA channel")),
    Option("leds", "invert", False, "bool", N_("ws281x: the data line goes through an inverting level shifter")),
    Option("leds", "spi_bus", 0, "int", N_("spi backend: /dev/spidevBUS.DEVICE")),
    Option("leds", "spi_device", 0, "int", N_("spi backend: /dev/spidevBUS.DEVICE")),
    Option("leds", "order", "GRB", "str", N_("the chips' colour order (WS2812B: GRB)")),
    Option("leds", "brightness", 0.5, "number", N_("0 to 1, before the current limit")),
    Option("leds", "gamma", 2.2, "number", N_("1 (none) to 3")),
    Option("leds", "current_limit_ma", WIRING.current_limit_ma, "number", N_("what the LEDs' supply may give; frames are dimmed to fit")),
    Option("leds", "leds_per_cell", WIRING.leds_per_cell, "int", N_("the grid map: LEDs in a row under each cell")),
    Option("leds", "serpentine", WIRING.serpentine, "bool", N_("the grid map: every other row runs back")),
    Option("leds", "offset", 0, "int", N_("the grid map: the first cell's first LED")),
    Option("leds", "edge_leds", WIRING.edge_leds, "int", N_("the grid map: edge LEDs after the grid")),
    Option("leds", "cells", [], "int_lists", N_("an explicit map instead: 25 lists of LED numbers (with edge)")),
    Option("leds", "edge", [], "int_list", N_("an explicit map: the edge's LED numbers in order")),
    Option("screen", "enabled", True, "bool", N_("false: no spymaster screen is fitted")),
    Option("screen", "rotation", 180, "int", N_("the key's rotation for the spymasters: 0, 90, 180 or 270 (180: facing the operatives)")),
    Option("screen", "panel", PanelMounting().panel, "str", N_("the display fitted: touch-display-2-7, touch-display-2-5, touch-display-1, hdmi (the installer sets it up)")),
    Option("screen", "panel_rotation", PanelMounting().rotation, "int",
           N_("how far the panel is turned clockwise in the hood from its native upright: Touch Display 2 90 or 270, others 0 or 180")),
    Option("screen", "video_driver", "kmsdrm", "str", N_("SDL's video driver (kmsdrm on the Pi, no desktop)")),
    Option("screen", "width", 0, "int", N_("a window this wide instead of the whole display (0: the display)")),
    Option("screen", "height", 0, "int", N_("with width")),
    Option("buttons", "end_turn", WIRING.buttons["end_turn"], "pin", N_("GPIO of END TURN, or false if not fitted")),
    Option("buttons", "new_game", WIRING.buttons["new_game"], "pin", N_("GPIO of NEW GAME (held), or false")),
    Option("buttons", "encoder_a", _fitted(WIRING.buttons["encoder_a"]), "pin", N_("the clue-number encoder's A contact, or false")),
    Option("buttons", "encoder_b", _fitted(WIRING.buttons["encoder_b"]), "pin", N_("its B contact, or false")),
    Option("buttons", "encoder_push", _fitted(WIRING.buttons["encoder_push"]), "pin", N_("its push contact, or false")),
    Option("buttons", "new_game_hold_s", 2.0, "number", N_("seconds NEW GAME is held to deal a new game")),
    Option("web", "enabled", True, "bool", N_("serve the companion pages for phones (spymaster key, spectators, Codex seats)")),
    Option("web", "host", "0.0.0.0", "str", N_("the address it listens on: 0.0.0.0 every network, 127.0.0.1 this machine only")),
    Option("web", "port", 8024, "int", N_("its TCP port, 1024 to 65535 (0: any free port, for tests)")),
    Option("web", "url", "", "str", N_("how phones reach it, for the QR codes ('': http://ADDRESS:PORT of this machine)")),
    Option("web", "tls_cert", "", "str", N_("serve https with this certificate file (and its chain), so the staff PIN never crosses the Wi-Fi in clear ('': http)")),
    Option("web", "tls_key", "", "str", N_("the certificate's private key file, readable by the service alone")),
    Option("staff", "session_min", 60, "int", N_("minutes a staff page login lasts unused, 5 to 1440")),
    Option("fleet", "broker", "", "str", N_("report to this MQTT broker: mqtt://USER:PASSWORD@HOST:PORT or mqtts://... ('': off)")),
    Option("fleet", "table_id", "", "str", N_("this table's name in the fleet's topics, pi-table/<table_id>/... (no / + # or spaces)")),
    Option("fleet", "password_file", "", "str", N_("a file holding the broker password, readable by the service alone (instead of one in the URL)")),
    Option("fleet", "ca", "", "str", N_("mqtts: the CA certificate file the broker's is checked against ('': the system's)")),
    Option("fleet", "cert", "", "str", N_("mqtts: this table's client certificate file, for a broker that asks for one ('': none)")),
    Option("fleet", "key", "", "str", N_("mqtts: the client certificate's private key file, readable by the service alone")),
    Option("sim", "words", "", "str", N_("with --hal sim only: words on the spectator page's cards, en, it or a deck file ('': none)")),
    Option("paths", "journal_dir", "/var/lib/pi-table/journal", "path", N_("one file per game; must be writable")),
    Option("paths", "socket", "/run/pi-table/control.sock", "path", N_("the control socket the pi-table commands use")),
    Option("paths", "socket_group", "pi-table", "str", N_("the group allowed on the socket ('' keeps the user's)")),
    Option("paths", "keep_games", 200, "int", N_("finished games kept in the journal directory")),
    Option("paths", "keep_mb", 50, "number", N_("at most this many megabytes of finished games")),
    Option("sound", "enabled", True, "bool", N_("play the cues: a reveal, the turn, the timer, the game's end (README, Sound)")),
    Option("sound", "volume", 0.8, "number", N_("0 (silent) to 1 (full)")),
    Option("sound", "spoken", False, "bool", N_("also announce the turn, the timer and the winner, in the table's language")),
    Option("sound", "quiet_hours", "", "str", N_("'HH:MM-HH:MM', e.g. '23:00-08:00': a quarter of the volume, nothing spoken ('': none)")),
)
BY_KEY = {option.key: option for option in OPTIONS}
SECTIONS = tuple(dict.fromkeys(option.section for option in OPTIONS))
EXPECTED = {
    "str": N_("a string"),
    "bool": N_("true or false"),
    "int": N_("a whole number"),
    "number": N_("a number"),
    "pin": N_("a GPIO number or false"),
    "path": N_("a path (a string)"),
    "usb_id": N_("a string 'VVVV:PPPP' in hex"),
    "int_list": N_("a list of whole numbers"),
    "int_lists": N_("a list of lists of whole numbers"),
}
KINDS = {bool: N_("a boolean"), int: N_("a whole number"), float: N_("a number"), str: N_("a string"),
         list: N_("a list"), dict: N_("a table")}
"""How a value found in the file is described, by its Python type."""


@dataclass(frozen=True, slots=True)
class Paths:
    journal_dir: Path
    socket: Path
    socket_group: str | None
    retention: Retention


def user_paths(environ: Mapping[str, str] = os.environ, retention: Retention | None = None) -> Paths:
    """Where a table a person runs for themselves keeps its games and socket (the simulator
    without ``--config``): the user's own folders by the XDG base directories, never the
    service's /var/lib/pi-table and /run/pi-table. The XDG spec ignores relative paths."""

    def folder(name: str) -> Path | None:
        value = environ.get(name, "")
        return Path(value) if value.startswith("/") else None

    state = (folder("XDG_STATE_HOME") or Path(environ.get("HOME") or Path.home()) / ".local" / "state") / "pi-table"
    runtime = folder("XDG_RUNTIME_DIR")
    return Paths(journal_dir=state / "journal", socket=(runtime / "pi-table" if runtime else state) / "control.sock",
                 socket_group=None, retention=retention or Retention())


@dataclass(frozen=True, slots=True)
class WebConfig:
    enabled: bool
    host: str
    port: int
    url: str  # '' when the daemon works it out
    tls_cert: str = ""  # https with this certificate and key; '' for http
    tls_key: str = ""


@dataclass(frozen=True, slots=True)
class FleetConfig:
    """[fleet]: where the table reports, as a URL taken apart; ``broker`` '' is off."""

    broker: str
    scheme: str  # mqtt or mqtts
    host: str
    port: int
    username: str | None
    password: str | None = field(repr=False)  # never in a log or a traceback
    table_id: str
    password_file: str  # '': the password is the URL's, if any
    ca: str
    cert: str
    key: str

    @property
    def enabled(self) -> bool:
        return bool(self.broker)


@dataclass(frozen=True, slots=True)
class ScreenConfig:
    enabled: bool
    settings: ScreenSettings
    mounting: PanelMounting
    video_driver: str
    size: tuple[int, int] | None  # None: the whole display


@dataclass(frozen=True, slots=True)
class LedConfig:
    backend: str
    map: LedMap
    brightness: float
    gamma: float
    power: PowerLimit
    ws281x: Ws281xConfig
    spi: SpiLedConfig

    def output(self) -> PixelOutput:
        return PixelOutput(self.map, self.brightness, self.gamma, self.power)


@dataclass(frozen=True, slots=True)
class Config:
    """The effective configuration: ``values`` holds every key (file or default) by its
    dotted name, the rest is built from it for the layers that use it."""

    source: Path | None
    values: dict[str, object]
    rules: Rules | CodexRules  # the game a new table deals
    grid_rules: Rules  # the grid games' options, also while Codex is played
    discussion_s: float
    language: str
    input: InputSettings
    timer: TimerSettings
    lights: LightSettings
    touch: TouchBoardConfig
    leds: LedConfig
    screen: ScreenConfig
    buttons: ButtonPins
    web: WebConfig
    paths: Paths
    fleet: FleetConfig
    words: tuple[str, ...] | None = None  # [sim] words: a simulated table's cards (a real one has physical cards)
    sound: SoundSettings = field(default_factory=SoundSettings)
    staff_session_s: float = 3600.0  # [staff] session_min: a staff page login lasts this long unused


def defaults() -> dict[str, object]:
    return {option.key: option.default for option in OPTIONS}


def load_config(path: Path | None = None, machine: bool = False) -> Config:
    """The configuration in ``path``; with None, ``DEFAULT_PATH`` if it exists, else every
    default. Raises ConfigError listing every problem found; with ``machine``, the values that
    cannot work on this machine too (``check_machine``), as ``check-config`` and ``run`` ask.
    Every default without a file is a developer's table, not checked: its folders and group
    are the Pi's, and the daemon plays on without them, keeping the game in memory."""
    if path is None:
        if not DEFAULT_PATH.exists():
            return build(defaults(), None)
        path = DEFAULT_PATH
    return parse_config(_read(path), path, machine)


def _read(path: Path) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise ConfigError([Phrase.of("{path}: {size} bytes is too big for a configuration (at most {most})",
                                         path=str(path), size=size, most=MAX_BYTES)])
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise ConfigError([Phrase.of("{path}: no such file (expected a TOML configuration; {default} by default)",
                                     path=str(path), default=str(DEFAULT_PATH))]) from None
    except IsADirectoryError:
        raise ConfigError([Phrase.of("{path}: is a directory, expected a TOML file", path=str(path))]) from None
    except OSError as e:
        raise ConfigError([Phrase.of("{path}: cannot be read: {error}", path=str(path),
                                     error=e.strerror or str(e))]) from None
    except UnicodeDecodeError as e:
        raise ConfigError([Phrase.of("{path}: not UTF-8 text (byte {byte}): expected a TOML file", path=str(path),
                                     byte=e.start)]) from None


def parse_config(text: str, path: Path, machine: bool = False) -> Config:
    """The configuration in ``text``, read from ``path`` (relative paths in it are taken
    from the file's folder); with ``machine``, checked against this machine as well."""
    where = str(path)
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:  # tomllib's own words (and line) follow, in English
        raise ConfigError([Phrase.of("{path}: not valid TOML: {error}", path=where, error=str(e))]) from None
    except RecursionError:
        raise ConfigError([Phrase.of("{path}: nested too deeply to be a configuration", path=where)]) from None
    problems: list[Phrase] = []
    given: dict[str, object] = {}
    unread: set[str] = set()  # keys of the right section whose value is of the wrong kind
    for section, table in document.items():
        if section not in SECTIONS:
            problems.append(Phrase.of("{path}: unknown section [{section}]{hint}: expected one of {sections}",
                                      path=where, section=section, hint=_did_you_mean(section, SECTIONS),
                                      sections=", ".join(SECTIONS)))
            continue
        if not isinstance(table, dict):
            problems.append(Phrase.of("{path}: {section} is a section ([{section}]), found {found}", path=where,
                                      section=section, found=_describe(table)))
            continue
        for name, raw in table.items():
            key = f"{section}.{name}"
            option = BY_KEY.get(key)
            if option is None:
                names = [o.name for o in OPTIONS if o.section == section]
                problems.append(Phrase.of("{path}: unknown key {key}{hint}: [{section}] has {names}", path=where,
                                          key=key, hint=_did_you_mean(name, names), section=section,
                                          names=", ".join(names)))
                continue
            try:
                given[key] = _read_value(option, raw, path.parent)
            except Refusal as e:
                problems.append(_at_key(where, key, e.phrase))
                unread.add(key)
    for key, problem in _secret_readers(given, path):
        problems.append(_at_key(where, key, problem))
        unread.add(key)
        del given[key]
    try:
        config = build(defaults() | given, path)
    except ValueError:
        problems += _blame(given, path)
    if machine:  # a key read wrong is not checked on its default in its place
        problems += [_at_key(where, key, problem) for key, problem in check_machine(defaults() | given)
                     if key not in unread]
    if problems:
        raise ConfigError(problems, _language_of(document))
    return config


def _at_key(path: str, key: str, problem: Text) -> Phrase:
    return Phrase.of("{path}: {key}: {problem}", path=path, key=key, problem=problem)


def _language_of(document: dict) -> str:
    """The language a file asks its table to speak, when it names one the table speaks."""
    game = document.get("game")
    language = game.get("language") if isinstance(game, dict) else None
    return language if isinstance(language, str) and language in LANGUAGES else "en"


def _read_value(option: Option, raw: object, base: Path) -> object:
    """The value of one key as the builders take it; ValueError saying what was expected."""
    kind = option.kind
    found = _describe(raw)
    if kind == "bool":
        ok = isinstance(raw, bool)
    elif kind == "int":
        ok = isinstance(raw, int) and not isinstance(raw, bool)
    elif kind == "number":
        ok = isinstance(raw, (int, float)) and not isinstance(raw, bool) and math.isfinite(raw)
    elif kind == "pin":
        ok = raw is False or (isinstance(raw, int) and not isinstance(raw, bool))
    elif kind == "int_list":
        ok = isinstance(raw, list) and all(isinstance(n, int) and not isinstance(n, bool) for n in raw)
    elif kind == "int_lists":
        ok = isinstance(raw, list) and all(
            isinstance(row, list) and all(isinstance(n, int) and not isinstance(n, bool) for n in row) for row in raw
        )
    else:  # str, path, usb_id
        ok = isinstance(raw, str) and "\0" not in raw
    expected = Phrase(EXPECTED[kind])
    if not ok:
        raise Refusal("expected {expected}, found {found}", expected=expected, found=found)
    if kind == "path":
        raw = str(raw)  # checked above: a string
        if not raw:
            raise Refusal("expected a path, found an empty string")
        return str(base / raw) if not Path(raw).is_absolute() else raw
    if kind == "usb_id":
        vendor, _, product = str(raw).partition(":")
        try:
            usb_id = (int(vendor, 16), int(product, 16))
        except ValueError:
            raise Refusal("expected {expected}, such as '239A:80F4', found {found}", expected=expected,
                          found=found) from None
        if not all(0 <= n <= 0xFFFF for n in usb_id) or len(vendor) > 4 or len(product) > 4:
            raise Refusal("expected {expected}, four hex digits each, found {found}", expected=expected, found=found)
    return raw


def _describe(value: object) -> Phrase:
    """A value found, as it is written and what kind it is: "'x' (a string)"."""
    kind: Text = next((Phrase(word) for t, word in KINDS.items() if isinstance(value, t)), type(value).__name__)
    text = repr(value)
    return Phrase.of("{value} ({kind})", value=f"{text[:60]}{'...' if len(text) > 60 else ''}", kind=kind)


def _did_you_mean(word: str, choices) -> Text:
    close = difflib.get_close_matches(word, list(choices), n=1)
    return Phrase.of(" (did you mean {word}?)", word=close[0]) if close else ""


def _blame(given: dict[str, object], path: Path) -> list[Phrase]:
    """Name every mistake: each key alone on the defaults, then the rest two at a time (a
    warning longer than the timer), then whatever is left together; the builders' own
    messages say expected and found."""
    where = str(path)
    problems: list[Phrase] = []
    blamed = set()
    for key, value in given.items():
        error = _fails(defaults() | {key: value}, path)
        if error:
            problems.append(_at_key(where, key, error))
            blamed.add(key)
    rest = {key: value for key, value in given.items() if key not in blamed}
    if not _fails(defaults() | rest, path):
        return problems
    for (key, value), (other, other_value) in itertools.combinations(rest.items(), 2):
        if key in blamed or other in blamed:
            continue
        error = _fails(defaults() | {key: value, other: other_value}, path)
        if error:
            problems.append(Phrase.of("{path}: {key} and {other} together: {problem}", path=where, key=key,
                                      other=other, problem=error))
            blamed |= {key, other}
    rest = {key: value for key, value in rest.items() if key not in blamed}
    error = _fails(defaults() | rest, path)
    if error:
        problems.append(Phrase.of("{path}: {keys} together: {problem}", path=where, keys=", ".join(rest),
                                  problem=error))
    return problems


def _fails(values: dict[str, object], path: Path) -> Text | None:
    """What building refuses: a Refusal's phrase; any other ValueError's English as it is."""
    try:
        build(values, path)
    except ValueError as e:
        return meaning(e)
    return None


class _Values:
    """The keys' values read back as the kind each has: ``_read_value`` checked the file's,
    and the defaults are of their kind. A value of another kind is a programming error."""

    def __init__(self, values: Mapping[str, object]) -> None:
        self._values = values

    def _wrong(self, key: str, kind: str) -> TypeError:
        return TypeError(f"{key}: expected {EXPECTED[kind]}, found {_describe(self._values[key])}")

    def text(self, key: str) -> str:
        value = self._values[key]
        if not isinstance(value, str):
            raise self._wrong(key, "str")
        return value

    def flag(self, key: str) -> bool:
        value = self._values[key]
        if not isinstance(value, bool):
            raise self._wrong(key, "bool")
        return value

    def whole(self, key: str) -> int:
        value = self._values[key]
        if not _is_whole(value):
            raise self._wrong(key, "int")
        return value

    def number(self, key: str) -> float:
        """A whole number stays one (messages show 5, not 5.0)."""
        value = self._values[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self._wrong(key, "number")
        return value

    def pin(self, key: str) -> int | None:
        """A GPIO number, or None for false: the button is not fitted."""
        value = self._values[key]
        if value is False:
            return None
        if not _is_whole(value):
            raise self._wrong(key, "pin")
        return value

    def wholes(self, key: str) -> list[int]:
        value = self._values[key]
        if not _is_wholes(value):
            raise self._wrong(key, "int_list")
        return value

    def rows(self, key: str) -> list[list[int]]:
        value = self._values[key]
        if not isinstance(value, list) or not all(_is_wholes(row) for row in value):
            raise self._wrong(key, "int_lists")
        return value


def _is_whole(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_wholes(value: object) -> TypeGuard[list[int]]:
    return isinstance(value, list) and all(_is_whole(n) for n in value)


def build(values: dict[str, object], source: Path | None) -> Config:
    """Every setting object from the keys' values; ValueError (from the objects themselves,
    or about how two of them fit) when a value does not fit."""
    v = _Values(values)
    language = v.text("game.language")
    if language not in LANGUAGES:
        raise Refusal("the language is one of {languages}, not {language!r}", languages=", ".join(LANGUAGES),
                      language=language)
    codex = v.text("game.game") == CODEX
    grid_rules = Rules(
        game="codenames" if codex else v.text("game.game"), nuke=v.text("game.nuke"),
        clue_required=v.flag("game.clue_required"),
        three_player=v.flag("game.three_player"), setup=v.text("game.setup"), dark_cell=v.whole("game.dark_cell"),
    )
    discussion_s = v.number("game.discussion_s")
    if not 10 <= discussion_s <= 3600:
        raise Refusal("the discussion lasts 10 to 3600 seconds, not {seconds}", seconds=discussion_s)
    leds = _leds(v)
    buttons = ButtonPins(
        end_turn=v.pin("buttons.end_turn"), new_game=v.pin("buttons.new_game"),
        encoder_a=v.pin("buttons.encoder_a"), encoder_b=v.pin("buttons.encoder_b"),
        encoder_push=v.pin("buttons.encoder_push"), new_game_hold_s=v.number("buttons.new_game_hold_s"),
    )
    data_pin = {"ws281x": leds.ws281x.pin, "spi": SPI_MOSI}.get(leds.backend)
    taken = [name for name, pin in buttons.pins().items() if pin == data_pin]
    if taken:
        raise Refusal("GPIO {pin} carries the LED data line, so it cannot also be the {button} button", pin=data_pin,
                      button=taken[0])
    return Config(
        source=source,
        values=dict(values),
        rules=_codex_rules(v.flag("game.sealed_votes")) if codex else grid_rules,
        grid_rules=grid_rules,
        discussion_s=discussion_s,
        language=language,
        input=InputSettings(hold_s=v.number("game.hold_s"), stuck_s=v.number("touch.stuck_s")),
        timer=TimerSettings(
            length_s=v.number("timer.length_s"), warn_s=v.number("timer.warn_s"), enforce=v.flag("timer.enforce"),
        ),
        lights=LightSettings(edge_pixels=max(1, len(leds.map.edge)), colour_blind=v.flag("game.colour_blind")),
        touch=_touch(v),
        leds=leds,
        screen=_screen(v),
        buttons=buttons,
        web=_web(v),
        paths=_paths(v),
        fleet=_fleet(v),
        words=_words(v.text("sim.words"), source),
        sound=SoundSettings(enabled=v.flag("sound.enabled"), volume=v.number("sound.volume"),
                            spoken=v.flag("sound.spoken"), quiet=QuietHours.parse(v.text("sound.quiet_hours"))),
        staff_session_s=_staff_session_s(v),
    )


def _staff_session_s(v: _Values) -> float:
    minutes = v.whole("staff.session_min")
    if not 5 <= minutes <= 1440:
        raise Refusal("session_min is 5 to 1440 minutes, not {minutes}", minutes=minutes)
    return minutes * 60.0


def _words(name: str, source: Path | None) -> tuple[str, ...] | None:
    """The words [sim] names; a deck file's path is taken from the configuration's folder."""
    if not name:
        return None  # the usual table: its words module is not even loaded
    from .ui.words import load_words

    return load_words(_deck_path(name, source))


def _deck_path(name: str, source: Path | None) -> str:
    """[sim] words as a deck's path (taken from the configuration's folder), or a shipped list's name."""
    from .ui.words import LISTS

    if name not in LISTS and source is not None and not Path(name).is_absolute():
        return str(source.parent / name)
    return name


FILES_READ = ("fleet.password_file", "fleet.ca", "fleet.cert", "fleet.key", "web.tls_cert", "web.tls_key")
"""The keys naming a file the table must be able to read (checked on the machine)."""
OUTSIDE_JOURNAL = (*FILES_READ, "sim.words")
"""The keys naming a file the table reads into something it sends or shows: a broker's
password, a certificate, words on the cards (or a checker's message quoting a line)."""


def _secret_readers(given: dict[str, object], path: Path) -> list[tuple[str, Phrase]]:
    """``OUTSIDE_JOURNAL`` given a file in the journal folder, where the table keeps the games'
    keys, the seats' secret and the staff PIN: no setting (the staff page edits them) may turn
    those into words someone sees. Checked before anything reads the files."""
    folder = os.path.realpath(str((defaults() | given)["paths.journal_dir"]))
    found = []
    for key in OUTSIDE_JOURNAL:
        file = given.get(key)
        if isinstance(file, str) and file:
            file = _deck_path(file, path) if key == "sim.words" else file
            if os.path.commonpath([folder, os.path.realpath(file)]) == folder:
                found.append((key, Phrase.of(
                    "{name} names {file}, in the journal folder {folder}, where the table keeps its secrets (the "
                    "games' keys, the staff PIN): name a file outside it", name=key.partition(".")[2], file=file,
                    folder=folder)))
    return found


def _codex_rules(sealed_votes: bool) -> CodexRules:
    """Codex's rules, its engine loaded only by a table that deals it."""
    from .engine import CodexRules

    return CodexRules(sealed_votes=sealed_votes)


def _touch(v: _Values) -> TouchBoardConfig:
    electrodes = v.wholes("touch.cell_electrodes")
    if len(electrodes) != CELLS:
        raise Refusal("cell_electrodes lists one electrode for each of the {cells} cells, not {count}", cells=CELLS,
                      count=len(electrodes))
    for cell, electrode in enumerate(electrodes):
        if not 0 <= electrode < ELECTRODE_LIMIT:
            raise Refusal("cell {cell} is on electrode {electrode}, which does not exist: 0 to {last}", cell=cell,
                          electrode=electrode, last=ELECTRODE_LIMIT - 1)
    cells: list[int | None] = [None] * (max(electrodes) + 1)
    for cell, electrode in enumerate(electrodes):
        if cells[electrode] is not None:
            raise Refusal("electrode {electrode} is given to cells {first} and {cell}: one pad each",
                          electrode=electrode, first=cells[electrode], cell=cell)
        cells[electrode] = cell
    usb = v.text("touch.usb_id").split(":")
    port = v.text("touch.port")
    return TouchBoardConfig(
        port=None if port == "auto" else port,
        usb_id=(int(usb[0], 16), int(usb[1], 16)),
        cells=tuple(cells),
        end_turn=tuple(v.wholes("touch.end_turn")),
        thresholds=_pairs(v.rows("touch.thresholds")),
    )


def _pairs(rows: list[list[int]]) -> tuple[tuple[int, int], ...]:
    for electrode, row in enumerate(rows):
        if len(row) != 2:
            raise Refusal("thresholds lists a [touch, release] pair per electrode: electrode {electrode} has {row}",
                          electrode=electrode, row=row)
    return tuple((touch, release) for touch, release in rows)


def _leds(v: _Values) -> LedConfig:
    backend = v.text("leds.backend")
    if backend not in LED_BACKENDS:
        raise Refusal("the LED backend is one of {backends}, not {backend!r}", backends=", ".join(LED_BACKENDS),
                      backend=backend)
    cells, edge = v.rows("leds.cells"), v.wholes("leds.edge")
    if cells:
        if len(cells) != CELLS:
            raise Refusal("an explicit LED map lists the LEDs of all {cells} cells, not {count}", cells=CELLS,
                          count=len(cells))
        length = max((led for leds in [*cells, edge] for led in leds), default=-1) + 1
        _strip_length(length, Phrase.of("the highest LED in the map"))
        led_map = LedMap(tuple(map(tuple, cells)), tuple(edge), length)
    elif edge:
        raise Refusal("an explicit edge goes with an explicit map of the cells (leds.cells)")
    else:
        per_cell, offset, edge_leds = v.whole("leds.leds_per_cell"), v.whole("leds.offset"), v.whole("leds.edge_leds")
        _strip_length(offset + CELLS * max(per_cell, 0) + max(edge_leds, 0),
                      f"offset + {CELLS} x leds_per_cell + edge_leds")
        led_map = LedMap.grid(per_cell, v.flag("leds.serpentine"), offset, edge_leds)
    pin = v.whole("leds.pin")
    ws281x = Ws281xConfig(
        pin=pin, channel=PINS[pin][0] if pin in PINS else 0, dma=v.whole("leds.dma"), invert=v.flag("leds.invert"),
        order=v.text("leds.order"),
    )
    leds = LedConfig(
        backend=backend, map=led_map, brightness=v.number("leds.brightness"), gamma=v.number("leds.gamma"),
        power=PowerLimit(budget_ma=v.number("leds.current_limit_ma")), ws281x=ws281x,
        spi=SpiLedConfig(bus=v.whole("leds.spi_bus"), device=v.whole("leds.spi_device"), order=v.text("leds.order")),
    )
    leds.output()  # checks brightness, gamma, and that the budget covers the strip at rest
    return leds


def _strip_length(length: int, what: Text) -> None:
    """Refuse a strip too long for any table before a map of that size is made."""
    if length > MAX_LEDS:
        raise Refusal("the strip has at most {most} LEDs, not {length} ({what})", most=MAX_LEDS, length=length,
                      what=what)


def _screen(v: _Values) -> ScreenConfig:
    width, height = v.whole("screen.width"), v.whole("screen.height")
    if (width == 0) != (height == 0) or width < 0 or height < 0 or width > 8192 or height > 8192:
        raise Refusal("width and height are both 0 (the whole display) or both 1 to 8192, not {width} x {height}",
                      width=width, height=height)
    return ScreenConfig(
        enabled=v.flag("screen.enabled"), settings=ScreenSettings(rotation=v.whole("screen.rotation")),
        mounting=PanelMounting(panel=v.text("screen.panel"), rotation=v.whole("screen.panel_rotation")),
        video_driver=v.text("screen.video_driver"), size=(width, height) if width else None,
    )


def _web(v: _Values) -> WebConfig:
    port, url = v.whole("web.port"), v.text("web.url")
    if port != 0 and not 1024 <= port <= 65535:
        raise Refusal("port is 1024 to 65535 (0: any free port), not {port}", port=port)
    if url and not url.startswith(("http://", "https://")):
        raise Refusal("url starts with http:// or https://, not {url!r}", url=url)
    cert, key = v.text("web.tls_cert"), v.text("web.tls_key")
    for name, file in (("tls_cert", cert), ("tls_key", key)):
        if file and not Path(file).is_absolute():
            raise Refusal("{name} is an absolute path, such as /etc/pi-table/tls/{name}.pem, not {file!r}", name=name,
                          file=file)
    if bool(cert) != bool(key):
        raise Refusal("tls_cert and tls_key go together: a certificate needs its private key")
    return WebConfig(enabled=v.flag("web.enabled"), host=v.text("web.host"), port=port, url=url, tls_cert=cert,
                     tls_key=key)


def _fleet(v: _Values) -> FleetConfig:
    """The broker's URL taken apart and checked, the table's id as one MQTT topic level (this
    machine's host name when none is given), and the TLS files; all off without a broker."""
    url, table_id = v.text("fleet.broker"), v.text("fleet.table_id")
    files = {name: v.text(f"fleet.{name}") for name in ("password_file", "ca", "cert", "key")}
    relative = [name for name, file in files.items() if file and not Path(file).is_absolute()]
    if relative:
        raise Refusal("{name} is an absolute path, such as /etc/pi-table/mqtt/{name}.pem, not {file!r}",
                      name=relative[0], file=files[relative[0]])
    if bool(files["cert"]) != bool(files["key"]):
        raise Refusal("cert and key go together: a client certificate needs its private key")
    if table_id:
        _topic_level(table_id, "table_id")
    if not url:
        return FleetConfig(broker="", scheme="", host="", port=0, username=None, password=None, table_id=table_id,
                           **files)
    if url.startswith("mqtt://") and any(files[name] for name in ("ca", "cert", "key")):
        raise Refusal("ca, cert and key are for an mqtts:// broker: with mqtt:// nothing is encrypted")
    if not table_id:
        table_id = _topic_level(socket.gethostname(),
                                Phrase.of("this machine's host name, the table_id when none is set,"))
    found = broker(url, table_id, **files)
    if found.password_file and found.password is not None:
        raise Refusal("the broker's password is in the URL or in password_file, not both")
    if found.password_file and found.username is None:
        raise Refusal("password_file is the password of the user the URL names: mqtt[s]://USER@HOST")
    return found


def broker(url: str, table_id: str = "", password_file: str = "", ca: str = "", cert: str = "",
           key: str = "") -> FleetConfig:
    """A broker's URL taken apart (``pi-table fleet --broker`` too); ValueError naming what
    was expected, never the password."""
    parts = urllib.parse.urlsplit(url)
    shown = urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
    if parts.scheme not in ("mqtt", "mqtts"):
        raise Refusal("broker is a URL mqtt://HOST[:PORT] or mqtts://HOST[:PORT], not {url!r}", url=shown)
    try:
        port = parts.port or (8883 if parts.scheme == "mqtts" else 1883)
    except ValueError:
        raise Refusal("broker's port is 1 to 65535, in {url!r}", url=shown) from None
    if not parts.hostname or parts.path not in ("", "/") or parts.query or parts.fragment:
        raise Refusal("broker is mqtt[s]://[USER:PASSWORD@]HOST[:PORT] and nothing after, not {url!r}", url=shown)
    unquote = urllib.parse.unquote
    return FleetConfig(broker=url, scheme=parts.scheme, host=parts.hostname, port=port,
                       username=None if parts.username is None else unquote(parts.username),
                       password=None if parts.password is None else unquote(parts.password), table_id=table_id,
                       password_file=password_file, ca=ca, cert=cert, key=key)


def _topic_level(name: str, what: Text) -> str:
    """``name`` if it can be one level of an MQTT topic (pi-table/<table_id>/status)."""
    if not name or any(c in name for c in "/+# \0") or len(name.encode()) > 64:
        raise Refusal("{what} names this table in the topic pi-table/<table_id>/status: 1 to 64 bytes with no '/', "
                      "'+', '#', space or NUL, found {name!r}", what=what, name=name)
    return name


def _paths(v: _Values) -> Paths:
    socket = Path(v.text("paths.socket"))
    if len(str(socket).encode()) > SOCKET_PATH_MAX:
        raise Refusal("a UNIX socket path is at most {most} bytes, not {length}", most=SOCKET_PATH_MAX,
                      length=len(str(socket).encode()))
    keep_games, keep_mb = v.whole("paths.keep_games"), v.number("paths.keep_mb")
    if not 1 <= keep_games <= 100_000:
        raise Refusal("keep_games is 1 to 100000 games, not {games}", games=keep_games)
    if not 1 <= keep_mb <= 100_000:
        raise Refusal("keep_mb is 1 to 100000 megabytes, not {megabytes}", megabytes=keep_mb)
    return Paths(
        journal_dir=Path(v.text("paths.journal_dir")),
        socket=socket,
        socket_group=v.text("paths.socket_group") or None,
        retention=Retention(keep_games=keep_games, keep_bytes=int(keep_mb * 1024 * 1024)),
    )


def check_machine(values: dict[str, object]) -> list[tuple[str, Phrase]]:
    """What in these keys' values cannot work on this machine, for the user running this:
    (key, what was expected and what was found) for each. The one place where folders,
    groups and addresses are looked at; nothing is made or changed here."""
    expected = {
        "paths.journal_dir": N_("a folder the table can write its games in (made if missing)"),
        "paths.socket": N_("a socket in a folder the table can write in (made if missing)"),
        "paths.socket_group": N_("the name of a group of this machine ('' keeps the user's own)"),
        "web.host": N_("an address of this machine, or 0.0.0.0 or :: for every network"),
        **{key: N_("a file the table can read") for key in FILES_READ},
    }
    v = _Values(values)
    socket_path = Path(v.text("paths.socket"))
    found = {
        "paths.journal_dir": _unusable_folder(Path(v.text("paths.journal_dir"))),
        "paths.socket": (Phrase.of("{path}, which is not a socket (one a stopped table left is fine)",
                                   path=str(socket_path))
                         if _taken(socket_path) else _unusable_folder(socket_path.parent)),
        "paths.socket_group": _missing_group(v.text("paths.socket_group")),
        "web.host": _foreign_host(v.text("web.host")) if v.flag("web.enabled") else None,
        **{key: _unreadable(v.text(key)) for key in FILES_READ},
    }
    return [(key, Phrase.of("expected {expected}, found {found}", expected=Phrase(expected[key]), found=what))
            for key, what in found.items() if what]


def _unusable_folder(folder: Path) -> Phrase | None:
    """Why the table could not make ``folder`` or write in it; None when it can."""
    if os.path.exists(folder):
        if not os.path.isdir(folder):
            return Phrase.of("a file: {path}", path=str(folder))
        if not os.access(folder, os.W_OK | os.X_OK):
            return Phrase.of("{path}, and {user} may not write in it{read_only}", path=str(folder), user=_user(),
                             read_only=_read_only(folder))
        return None
    made = folder.parent
    while not os.path.exists(made):
        made = made.parent
    if not os.path.isdir(made):
        return Phrase.of("that {file} is a file, so {path} cannot be made", file=str(made), path=str(folder))
    if not os.access(made, os.W_OK | os.X_OK):
        return Phrase.of("that {user} may not write in {parent}{read_only}, so {path} cannot be made", user=_user(),
                         parent=str(made), read_only=_read_only(made), path=str(folder))
    return None


def _unreadable(name: str) -> Phrase | None:
    """Why the table could not read the file ``name`` ('' names none); None when it can."""
    if not name:
        return None
    if not os.path.isfile(name):
        return Phrase.of("{path}, which is not a file", path=name)
    if not os.access(name, os.R_OK):
        return Phrase.of("{path}, which {user} may not read", path=name, user=_user())
    return None


def _read_only(folder: Path) -> Text:
    """Say so when ``folder`` is on a read-only file system, as all but the unit's own folders
    are under its ProtectSystem=strict: permissions are then not the reason."""
    try:
        return Phrase.of(" (a read-only file system here)") if os.statvfs(folder).f_flag & os.ST_RDONLY else ""
    except OSError:
        return ""


def _taken(socket_path: Path) -> bool:
    """Whether something other than a socket is in the socket's place (binding would fail)."""
    try:
        return not stat.S_ISSOCK(os.stat(socket_path).st_mode)
    except OSError:
        return False


def _user() -> Phrase:
    try:
        return Phrase.of("user {name}", name=pwd.getpwuid(os.geteuid()).pw_name)
    except KeyError:
        return Phrase.of("user {name}", name=os.geteuid())


def _missing_group(group: str) -> Phrase | None:
    if not group:
        return None
    try:
        grp.getgrnam(group)
    except KeyError:
        return Phrase.of("{group!r}, and no group has that name", group=group)
    return None


def _foreign_host(host: str) -> Phrase | None:
    """Why the companion could not listen on ``host``; None when it can. Each address the
    name resolves to is bound to a free port, as the companion's server binds them all."""
    try:
        addresses = socket.getaddrinfo(host or None, 0, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as e:
        return Phrase.of("{host!r}, a name that does not resolve ({error})", host=host,
                         error=getattr(e, "strerror", None) or str(e))
    for family, kind, protocol, _, address in addresses:
        try:
            probe = socket.socket(family, kind, protocol)
        except OSError:
            continue  # a family this machine lacks (IPv6 off): the server skips it too
        with probe:
            try:
                probe.bind(address)
            except OSError as e:
                which = "" if address[0] == host else f" ({address[0]})"
                if e.errno == errno.EADDRNOTAVAIL:
                    return Phrase.of("{host!r}, which is not an address of this machine{which}", host=host,
                                     which=which)
                return Phrase.of("{host!r}, on which nothing may listen here{which}: {error}", host=host, which=which,
                                 error=e.strerror or str(e))
    return None


def to_toml(config: Config, comments: bool = True) -> str:
    """The whole configuration as a TOML file (every key, defaults included), which
    ``parse_config`` reads back to the same values."""
    lines = [f"# pi-table configuration{f' (from {config.source})' if config.source else ' (every key at its default)'}"]
    for section in SECTIONS:
        lines += ["", f"[{section}]"]
        for option in (o for o in OPTIONS if o.section == section):
            value = toml_value(config.values[option.key])
            lines.append(f"{option.name} = {value}" + (f"  # {option.help}" if comments else ""))
    return "\n".join(lines) + "\n"


def toml_value(value: object) -> str:
    """``value`` as TOML writes it; ValueError for what no key of this file holds (a missing
    value, a table), so a change from a form or a command never writes a file TOML cannot read."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # JSON's string escapes are TOML's too
    if isinstance(value, list):
        return "[" + ", ".join(map(toml_value, value)) + "]"
    if isinstance(value, int | float) and math.isfinite(value):
        return repr(value)
    raise Refusal("expected a string, a number, true or false, or a list of them, found {found}",
                  found=_describe(value))


# --- writing the file -----------------------------------------------------------------------


def write_keys(path: Path, changes: dict[str, str], machine: bool = False) -> None:
    """Set each ``section.key`` of ``changes`` to its value (TOML text) in ``path``, keeping every
    other line; the new file is checked as the daemon will check it (ConfigError: nothing
    written; with ``machine``, against this machine too, as ``check-config``) and replaces the
    old at once (a power cut leaves one or the other, never half)."""
    new = path.read_text(encoding="utf-8") if path.exists() else ""
    for dotted, value in changes.items():
        section, _, key = dotted.rpartition(".")
        new = _with_key(new, section, key, f"{key} = {value}")
    parse_config(new, path, machine)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(new)
            out.flush()
            os.fsync(out.fileno())
        if path.exists():
            os.chmod(temporary, path.stat().st_mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _with_key(text: str, section: str, key: str, line: str) -> str:
    """``text`` with ``key`` in ``[section]`` set to ``line``: the old value (however many lines
    its array takes) replaced in place, or the line put first in the section, or the section added."""
    lines = text.splitlines()
    start = next((i for i, each in enumerate(lines) if _header(each) == section), None)
    if start is None:
        return text + ("\n" if text and not text.endswith("\n") else "") + f"\n[{section}]\n{line}\n"
    at = start + 1
    while at < len(lines) and _header(lines[at]) is None:
        if re.match(r"^\s*" + re.escape(key) + r"\s*=", lines[at]):
            last, depth = at, 0
            while True:  # an array may go on over several lines: to where its brackets close
                code = lines[last].split("#", 1)[0]
                depth += code.count("[") - code.count("]")
                if depth <= 0 or last + 1 >= len(lines):
                    break
                last += 1
            lines[at:last + 1] = [line]
            return "\n".join(lines) + "\n"
        at += 1
    lines.insert(start + 1, line)
    return "\n".join(lines) + "\n"


def _header(line: str) -> str | None:
    """The table a header line opens (``[touch]``); a bare name, so no line of an array of
    numbers looks like one."""
    match = re.match(r"^\s*\[\s*([A-Za-z_][\w.-]*)\s*\]\s*(#.*)?$", line)
    return match[1] if match else None
