"""Every key of the configuration file: its section and name, default, kind and help, and the
words that say what a kind of value is. What the other rooms of the configuration read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..drivers.settings import ORDERS, PINS
from ..engine.described import Choice
from ..engine.games import NAMES, choices, title_of
from ..engine.phrase import N_, Phrase, Text
from ..engine.rules import Rules
from ..engine.views import LANGUAGES
from ..hardware import pinout
from ..table.input import HOLD_MAX_S, HOLD_MIN_S
from ..table.timer import TURN_S
from ..ui.mounting import PANELS, ROTATIONS, PanelMounting
from ..ui.pixels import GAMMA
from ..ui.tell import NOTICE_EVENTS

DEFAULT_PATH = Path("/etc/pi-table/config.toml")


MAX_BYTES = 256 * 1024  # a real configuration is a few kilobytes; more is a wrong file


LED_BACKENDS = ("ws281x", "spi", "none")


VIDEO_DRIVERS = ("kmsdrm", "wayland", "x11", "offscreen", "dummy")
"""SDL's video drivers a table may ask for (``SDL_VIDEODRIVER``): the Pi's, a desktop's, and none."""


SPI_MOSI = 10  # the spidev backend's data line is SPI0 MOSI, GPIO10


SOCKET_PATH_MAX = 107  # sockaddr_un holds 108 bytes with the closing NUL


MAX_LEDS = 2000  # at 30 µs an LED, a frame of 2,000 takes 60 ms on the data line: more is no table


WIRING = pinout.load()
"""The reference build's wiring (hardware/pinout.toml): the defaults of the hardware keys."""


def _fitted(pin: int) -> int | bool:
    return pin if WIRING.encoder_fitted else False


SECURITY_UPDATES = ("daily", "weekly", "off")
"""How often the table applies Debian's security updates by itself ([system] security_updates)."""

GROUPS = {"game": N_("Game"), "lights": N_("Lights"), "sound": N_("Sound"), "phones": N_("Phones"),
          "fleet": N_("Fleet"), "advanced": N_("Advanced")}
"""What an owner does with a key, in the order the staff page's form shows them: the board, the
pins, the paths and the screen's hardware are advanced."""

SECTION_GROUPS = {"game": "game", "timer": "game", "touch": "advanced", "leds": "advanced", "screen": "advanced",
                  "buttons": "advanced", "web": "phones", "staff": "phones", "fleet": "fleet", "sim": "advanced",
                  "paths": "advanced", "sound": "sound", "night": "game", "system": "advanced",
                  "notify": "advanced"}
"""A section's keys' group, unless a key names its own."""

SECONDS, MINUTES, PIXELS, DEGREES = N_("seconds"), N_("minutes"), N_("pixels"), N_("degrees")
LANGUAGE_NAMES = {"en": "English", "it": "Italiano"}
"""Each language by its own name, as a choice is offered in any language."""


@dataclass(frozen=True, slots=True)
class Range:
    """The numbers a key takes: ``least`` to ``most``, or ``off`` (a number outside them that
    turns the thing off). The checker refuses others and the staff page's form offers these."""

    least: float
    most: float
    off: float | None = None

    def holds(self, value: float) -> bool:
        return value == self.off or self.least <= value <= self.most


NAMING = {"device": N_("a device"), "usb_id": N_("a device"), "file": N_("a file"), "deck": N_("a file"),
          "secret": N_("a secret file"),
          "path": N_("a folder"), "machine": N_("a folder"), "group": N_("a group of this machine"), "address": N_("an address of this machine"),
          "url": N_("a host, by its URL"), "broker": N_("a host, by its URL")}
"""The kinds whose value names something outside the table's memory (``pi_table.kinds``), and
what: a key of these kinds is the owner's, for whoever names a device, a file, a folder or a
host decides what the table opens, reads, writes or dials. Every other kind is a number, a
choice or plain words, and the staff's unless its key says otherwise (``Option.owner``)."""
WIRED = ("pin",)
"""The kinds that say how the table is wired (the GPIO a button is on, or false: not fitted): the
owner's too, for a button set "not fitted" takes the buttons' reset away from everyone (issue 58)."""


@dataclass(frozen=True, slots=True)
class Option:
    """One key: its section and name, default, kind (how the TOML value is read, and what it
    may name: ``NAMING``) and help; for the staff page's form its label, its group (``GROUPS``:
    its section's by default), the values it is one of (``choices``, said in ``words`` where
    they are not words already), the numbers it takes (``range``) and their unit. ``owner``
    makes a key that names nothing the owner's all the same (the fleet's name for the table,
    how many games the table keeps)."""

    section: str
    name: str
    default: object
    kind: str
    help: str
    label: str = field(kw_only=True)
    in_group: str | None = field(default=None, kw_only=True)
    choices: tuple[object, ...] = field(default=(), kw_only=True)
    words: Mapping[str, str] = field(default_factory=dict, kw_only=True)
    range: Range | None = field(default=None, kw_only=True)
    unit: str | None = field(default=None, kw_only=True)
    owner: bool = field(default=False, kw_only=True)

    @property
    def key(self) -> str:
        return f"{self.section}.{self.name}"

    @property
    def owners(self) -> bool:
        """Whether changing this key needs the owner: it names a device, a file, a folder, a
        group or a host, says how the table is wired, or its key says so."""
        return self.owner or self.kind in NAMING or self.kind in WIRED

    @property
    def group(self) -> str:
        return self.in_group or SECTION_GROUPS[self.section]


def game_option(choice: Choice) -> Option:
    """A game's option (``engine.described.Choice``) as a ``[game]`` key: its help, label, words
    and numbers are the game's description's."""
    return Option("game", choice.name, choice.default, choice.kind, choice.help, label=choice.label,
                  choices=choice.values, words=choice.words, range=None if choice.span is None else Range(*choice.span),
                  unit=choice.unit)


OPTIONS = (
    Option("game", "game", Rules().game, "str", N_("the game a new table deals"),  # the rules' own default
           label=N_("Game a new table deals"), choices=NAMES, words={name: title_of(name) for name in NAMES}),
    *(game_option(choice) for choice in choices()),
    Option("game", "language", "en", "str", N_("the screen's language: en, it"),
           label=N_("Language"), choices=LANGUAGES, words=LANGUAGE_NAMES),
    Option("game", "colour_blind", False, "bool", N_("identities also differ by rhythm on the LEDs"),
           label=N_("Colour-blind rhythms"), in_group="lights"),
    Option("game", "hold_s", 0.25, "number", N_("seconds a touch is held before it counts as a guess"),
           label=N_("Touch hold time"), range=Range(HOLD_MIN_S, HOLD_MAX_S), unit=SECONDS),
    Option("timer", "length_s", 0, "number", N_("turn timer in seconds; 0 is off"),
           label=N_("Turn timer"), range=Range(*TURN_S, off=0), unit=SECONDS),
    Option("timer", "warn_s", 10, "number", N_("warn this many seconds before the turn runs out"),
           label=N_("Timer warning"), unit=SECONDS),
    Option("timer", "enforce", False, "bool", N_("end the turn when the timer runs out"),
           label=N_("End the turn when the timer runs out")),
    Option("touch", "port", "auto", "device", N_("the board's serial port (/dev/serial/by-id/...), or 'auto': by usb_id"),
           label=N_("Touch board port")),
    Option("touch", "usb_id", WIRING.usb_id, "usb_id", N_("VENDOR:PRODUCT of the board's data port, in hex"),
           label=N_("Touch board USB id")),
    Option("touch", "cell_electrodes", list(WIRING.cell_electrodes), "int_list", N_("for cells 0-24, the electrode each pad is on"),
           label=N_("Electrode of each cell")),
    Option("touch", "end_turn", list(WIRING.end_turn_electrodes), "int_list", N_("electrodes wired to END TURN pads"),
           label=N_("END TURN electrodes")),
    Option("touch", "stuck_s", 10.0, "number", N_("a pad touched this long is quarantined as stuck"),
           label=N_("Stuck pad time"), unit=SECONDS),
    Option("touch", "thresholds", [], "int_lists", N_("per electrode [touch, release] in counts, from pi-table tune --write ([]: the board's 8/4)"),
           label=N_("Pad thresholds")),
    Option("leds", "backend", "ws281x", "str", N_("ws281x (Pi 3/4), spi (Pi 5, spidev) or none"),
           label=N_("LED driver"), choices=LED_BACKENDS),
    Option("leds", "pin", WIRING.led_data, "int", N_("ws281x data pin: GPIO 10, 12, 13, 18, 19, 21 (10 needs no root)"),
           label=N_("LED data pin"), choices=tuple(sorted(PINS))),
    Option("leds", "dma", 10, "int", N_("ws281x DMA channel"),
           label=N_("DMA channel")),
    Option("leds", "invert", False, "bool", N_("ws281x: the data line goes through an inverting level shifter"),
           label=N_("Inverted data line")),
    Option("leds", "spi_bus", 0, "int", N_("spi backend: /dev/spidevBUS.DEVICE"),
           label=N_("SPI bus"), owner=True),
    Option("leds", "spi_device", 0, "int", N_("spi backend: /dev/spidevBUS.DEVICE"),
           label=N_("SPI device"), owner=True),
    Option("leds", "order", "GRB", "str", N_("the chips' colour order (WS2812B: GRB)"),
           label=N_("Colour order"), choices=ORDERS),
    Option("leds", "brightness", 0.5, "number", N_("0 to 1, before the current limit"),
           label=N_("Brightness"), in_group="lights", range=Range(0, 1)),
    Option("leds", "gamma", 2.2, "number", N_("the LEDs' gamma correction; 1 is none"),
           label=N_("Gamma correction"), in_group="lights", range=Range(*GAMMA)),
    Option("leds", "current_limit_ma", WIRING.current_limit_ma, "number", N_("what the LEDs' supply may give; frames are dimmed to fit"),
           label=N_("LED current limit"), unit=N_("milliamperes")),
    Option("leds", "leds_per_cell", WIRING.leds_per_cell, "int", N_("the grid map: LEDs in a row under each cell"),
           label=N_("LEDs per cell")),
    Option("leds", "serpentine", WIRING.serpentine, "bool", N_("the grid map: every other row runs back"),
           label=N_("Serpentine rows")),
    Option("leds", "offset", 0, "int", N_("the grid map: the first cell's first LED"),
           label=N_("First LED")),
    Option("leds", "edge_leds", WIRING.edge_leds, "int", N_("the grid map: edge LEDs after the grid"),
           label=N_("Edge LEDs")),
    Option("leds", "cells", [], "int_lists", N_("an explicit map instead: 25 lists of LED numbers (with edge)"),
           label=N_("LEDs of each cell")),
    Option("leds", "edge", [], "int_list", N_("an explicit map: the edge's LED numbers in order"),
           label=N_("LEDs of the edge")),
    Option("screen", "enabled", True, "bool", N_("false: no spymaster screen is fitted"),
           label=N_("Spymaster screen fitted")),
    Option("screen", "rotation", 180, "int", N_("the key's rotation for the spymasters: 0, 90, 180 or 270 (180: facing the operatives)"),
           label=N_("Key rotation"), choices=ROTATIONS, unit=DEGREES),
    Option("screen", "panel", PanelMounting().panel, "str", N_("the display fitted: touch-display-2-7, touch-display-2-5, touch-display-1, hdmi (the installer sets it up)"),
           label=N_("Display panel"), choices=tuple(PANELS)),
    Option("screen", "panel_rotation", PanelMounting().rotation, "int",
           N_("how far the panel is turned clockwise in the hood from its native upright: Touch Display 2 90 or 270, others 0 or 180"),
           label=N_("Panel rotation"), choices=ROTATIONS, unit=DEGREES),
    Option("screen", "video_driver", "kmsdrm", "str", N_("SDL's video driver (kmsdrm on the Pi, no desktop)"),
           label=N_("Video driver"), choices=VIDEO_DRIVERS),
    Option("screen", "width", 0, "int", N_("a window this wide instead of the whole display (0: the display)"),
           label=N_("Window width"), range=Range(1, 8192, off=0), unit=PIXELS),
    Option("screen", "height", 0, "int", N_("with width"),
           label=N_("Window height"), range=Range(1, 8192, off=0), unit=PIXELS),
    Option("buttons", "end_turn", WIRING.buttons["end_turn"], "pin", N_("GPIO of END TURN, or false if not fitted"),
           label=N_("END TURN button pin")),
    Option("buttons", "new_game", WIRING.buttons["new_game"], "pin", N_("GPIO of NEW GAME (held), or false"),
           label=N_("NEW GAME button pin")),
    Option("buttons", "encoder_a", _fitted(WIRING.buttons["encoder_a"]), "pin", N_("the clue-number encoder's A contact, or false"),
           label=N_("Encoder A pin")),
    Option("buttons", "encoder_b", _fitted(WIRING.buttons["encoder_b"]), "pin", N_("its B contact, or false"),
           label=N_("Encoder B pin")),
    Option("buttons", "encoder_push", _fitted(WIRING.buttons["encoder_push"]), "pin", N_("its push contact, or false"),
           label=N_("Encoder push pin")),
    Option("buttons", "new_game_hold_s", 2.0, "number", N_("seconds NEW GAME is held to deal a new game"),
           label=N_("NEW GAME hold time"), in_group="game", unit=SECONDS),
    Option("web", "enabled", True, "bool", N_("serve the companion pages for phones (spymaster key, spectators, players' seats)"),
           label=N_("Phone pages")),
    Option("web", "host", "0.0.0.0", "address", N_("the address it listens on: 0.0.0.0 every network, 127.0.0.1 this machine only"),
           label=N_("Listening address")),
    Option("web", "port", 8024, "int", N_("its TCP port, 1024 to 65535 (0: any free port, for tests)"),
           label=N_("Phone pages' port"), range=Range(1024, 65535, off=0)),
    Option("web", "tls_port", 8443, "int", N_("the https port of the staff and set-up pages, which take PINs and passwords: 1024 to 65535 (0: any free port, for tests); with the table's own certificate unless tls_cert names the owner's"),
           label=N_("Staff pages' https port"), range=Range(1024, 65535, off=0), owner=True),
    Option("web", "url", "", "url", N_("how phones reach it, for the QR codes ('': http://ADDRESS:PORT of this machine)"),
           label=N_("Address phones use")),
    Option("web", "tls_cert", "", "file", N_("a certificate of the owner's own (and its chain) for every page, over https on port ('': the phones' pages over http, the staff and set-up pages over https on tls_port with the table's own certificate)"),
           label=N_("HTTPS certificate file")),
    Option("web", "tls_key", "", "secret", N_("the certificate's private key file, readable by the service alone"),
           label=N_("HTTPS private key file")),
    Option("web", "request_s", 10.0, "number", N_("seconds a phone has to send a request, its headers and then an action's body, 2 to 120 (longer on a slow Wi-Fi)"),
           label=N_("Time a phone has to send a request"), range=Range(2, 120), unit=SECONDS),
    Option("staff", "session_min", 60, "int", N_("minutes a staff page login lasts unused, 5 to 1440"),
           label=N_("Staff login lasts"), range=Range(5, 1440), unit=MINUTES),
    Option("fleet", "broker", "", "broker", N_("report to this MQTT broker: mqtt://USER:PASSWORD@HOST:PORT or mqtts://... ('': off)"),
           label=N_("Fleet broker")),
    Option("fleet", "table_id", "", "str", N_("this table's name in the fleet's topics, pi-table/<table_id>/... (no / + # or spaces)"),
           label=N_("Table name in the fleet"), owner=True),
    Option("fleet", "password_file", "", "secret", N_("a file holding the broker password, readable by the service alone (instead of one in the URL)"),
           label=N_("Broker password file")),
    Option("fleet", "ca", "", "file", N_("mqtts: the CA certificate file the broker's is checked against ('': the system's)"),
           label=N_("Broker CA certificate file")),
    Option("fleet", "cert", "", "file", N_("mqtts: this table's client certificate file, for a broker that asks for one ('': none)"),
           label=N_("Client certificate file")),
    Option("fleet", "key", "", "secret", N_("mqtts: the client certificate's private key file, readable by the service alone"),
           label=N_("Client private key file")),
    Option("fleet", "password_in_clear", False, "bool", N_("true: the broker's password may go over mqtt://, which anyone on the network can read (a broker on a network you trust only); false: a password needs mqtts://"),
           label=N_("Broker password without TLS"), owner=True),
    Option("fleet", "cafe_tables", [], "str_list", N_("the owner's list of the café's tables, by their table_id: a game night one of them hosts is followed without its code ([]: the staff accept each host with its code)"),
           label=N_("The café's tables"), owner=True),
    Option("fleet", "league", "", "str", N_("the league this café's nights go to, its name in the league's topics, league/<league>/... ('': none; the owner joins one on the staff page)"),
           label=N_("League"), owner=True),
    Option("fleet", "cafe", "", "str", N_("this café's name in the league, as the league's organiser gave it: the host table of a night sends it under league/<league>/cafes/<cafe>/..."),
           label=N_("The café's name in the league"), owner=True),
    Option("fleet", "dashboard_port", 0, "int", N_("this table also shows the café's fleet dashboard on this port, its login the owner's passphrase (0: it does not)"),
           label=N_("Fleet dashboard's port"), range=Range(1024, 65535, off=0), owner=True),
    Option("fleet", "dashboard_user", "dashboard", "str", N_("the broker's user the dashboard reads every table as (the ACL's dashboard user)"),
           label=N_("Fleet dashboard's broker user"), owner=True),
    Option("fleet", "dashboard_password_file", "", "secret", N_("a file holding that user's broker password, readable by the service alone"),
           label=N_("Fleet dashboard's broker password file")),
    Option("sim", "words", "", "deck", N_("with --hal sim only: words on the spectator page's cards, en, it or a deck file ('': none)"),
           label=N_("Simulator words")),
    Option("paths", "journal_dir", "/var/lib/pi-table/journal", "path", N_("one file per game; must be writable"),
           label=N_("Journal folder")),
    Option("paths", "socket", "/run/pi-table/control.sock", "path", N_("the control socket the pi-table commands use"),
           label=N_("Control socket")),
    Option("paths", "socket_group", "pi-table", "group", N_("the group allowed on the socket ('' keeps the user's)"),
           label=N_("Control socket group")),
    Option("paths", "machine", "", "machine", N_("a stand-in machine's folder for a table in a folder, where pi-table stand-in plays the root helper ('': this computer's own)"),
           label=N_("Stand-in machine")),
    Option("paths", "keep_games", 200, "int", N_("finished games kept in the journal directory"),
           label=N_("Finished games kept"), range=Range(1, 100_000), unit=N_("games"), owner=True),
    Option("paths", "keep_mb", 50, "number", N_("at most this many megabytes of finished games"),
           label=N_("Space for finished games"), range=Range(1, 100_000), unit=N_("megabytes"), owner=True),
    Option("sound", "enabled", True, "bool", N_("play the cues: a reveal, the turn, the timer, the game's end (README, Sound)"),
           label=N_("Sound")),
    Option("sound", "volume", 0.8, "number", N_("0 (silent) to 1 (full)"),
           label=N_("Volume"), range=Range(0, 1)),
    Option("sound", "spoken", False, "bool", N_("also announce the turn, the timer and the winner, in the table's language"),
           label=N_("Spoken announcements")),
    Option("sound", "quiet_hours", "", "str", N_("'HH:MM-HH:MM', e.g. '23:00-08:00': a quarter of the volume, nothing spoken ('': none)"),
           label=N_("Quiet hours")),
    Option("system", "security_updates", "daily", "str", N_("when the table applies Debian's security updates by itself: daily, weekly (on Monday) or off, at security_hour, never during a game or a night"),
           label=N_("Security updates"), choices=SECURITY_UPDATES,
           words={"daily": N_("every day"), "weekly": N_("every Monday"), "off": N_("never by themselves")}, owner=True),
    Option("system", "security_hour", 4, "int", N_("the hour of the night the table looks for them, in its time zone (or the first idle moment after it)"),
           label=N_("Security updates' hour"), range=Range(0, 23), owner=True),
    Option("night", "blocked_words", "", "file", N_("a game night's teams may not use these words in their names: a file, one word a line ('': none)"),
           label=N_("Words not allowed in team names")),
    Option("notify", "url_file", "", "secret", N_("a file holding the Apprise URL the owner's notifications are sent to, readable by the service alone ('': none are sent)"),
           label=N_("Notifications' address file")),
    Option("notify", "events", list(NOTICE_EVENTS), "str_list", N_("what the owner is told of: device, restart, update, backup, disk, night"),
           label=N_("Notifications' events"), owner=True),
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
    "machine": N_("a folder's path, or '' for this computer's own"),
    "device": N_("'auto' or a serial device's path under /dev"),
    "file": N_("a file in the configuration's folder, or '' for none"),
    "secret": N_("a file in the table's secrets folder (files beside the configuration), or '' for none"),
    "deck": N_("en, it, or a deck file in the configuration's folder ('' for none)"),
    "group": N_("a group's name, or '' for the user's own"),
    "address": N_("an IP address of this machine, in numbers"),
    "url": N_("an http:// or https:// URL, or '' to work it out"),
    "broker": N_("an mqtt:// or mqtts:// URL, or '' for none"),
    "usb_id": N_("a string 'VVVV:PPPP' in hex"),
    "int_list": N_("a list of whole numbers"),
    "int_lists": N_("a list of lists of whole numbers"),
    "str_list": N_("a list of strings"),
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



def form_field(option: Option, value: object) -> dict[str, object]:
    """``option`` as the staff page's form shows it, with its ``value``: its label, group, help
    and unit (msgids, which the page says in its language), the choices it is one of with their
    words, and the numbers it takes."""
    span = option.range
    return {"key": option.key, "kind": option.kind, "label": option.label, "group": option.group, "help": option.help,
            "default": option.default, "value": value, "unit": option.unit, "owner": option.owners,
            "choices": [{"value": choice, "label": option.words.get(str(choice), str(choice))} for choice in option.choices],
            "range": None if span is None else {"min": span.least, "max": span.most, "off": span.off}}
