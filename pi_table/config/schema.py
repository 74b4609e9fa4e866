"""Every key of the configuration file: its section and name, default, kind and help, and the
words that say what a kind of value is. What the other rooms of the configuration read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..engine.phrase import N_, Phrase, Text
from ..engine.rules import CENTRE
from ..hardware import pinout
from ..table.timer import DISCUSSION_S
from ..ui.mounting import PanelMounting

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
    Option("web", "request_s", 10.0, "number", N_("seconds a phone has to send a request, its headers and then an action's body, 2 to 120 (longer on a slow Wi-Fi)")),
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


def defaults() -> dict[str, object]:
    return {option.key: option.default for option in OPTIONS}


def describe(value: object) -> Phrase:
    """A value found, as it is written and what kind it is: "'x' (a string)"."""
    kind: Text = next((Phrase(word) for t, word in KINDS.items() if isinstance(value, t)), type(value).__name__)
    text = repr(value)
    return Phrase.of("{value} ({kind})", value=f"{text[:60]}{'...' if len(text) > 60 else ''}", kind=kind)

