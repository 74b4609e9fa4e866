"""The settings objects the layers below take (``Rules``, ``TouchBoardConfig``, ``PixelOutput``...),
built from the keys' values by ``build``. The objects check their own ranges, so a range lives in
one place; ``build`` adds how two of them fit together, and checks the ranges of the values no
object takes in the schema's ``Range``, which the staff page's form shows.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeGuard

from ..drivers.settings import ELECTRODE_LIMIT, PINS, ButtonPins, SpiLedConfig, TouchBoardConfig, Ws281xConfig
from ..engine import CELLS
from ..engine.errors import Refusal
from ..engine.games import NAMES, AnyRules, choices, entry
from ..engine.phrase import N_, Phrase, Text
from ..kinds import SerialDevice
from ..night.names import Blocklist
from ..table.input import InputSettings
from ..table.session import Retention
from ..table.timer import TimerSettings
from ..ui.leds import LightSettings
from ..ui.mounting import PanelMounting, ScreenSettings
from ..ui.pixels import LedMap, PixelOutput, PowerLimit
from ..ui.sound import QuietHours, SoundSettings
from ..ui.tell import NOTICE_EVENTS
from .schema import (
    BY_KEY,
    EXPECTED,
    MAX_LEDS,
    SOCKET_PATH_MAX,
    SPI_MOSI,
    Range,
    describe,
)


@dataclass(frozen=True, slots=True)
class Paths:
    """[paths] of the configuration: where the journal and the control socket live, and who may use the socket."""

    journal_dir: Path
    socket: Path
    socket_group: str | None
    retention: Retention
    machine: Path | None = None  # a stand-in machine's folder (``pi-table stand-in``); None: this computer's own


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
    """[web] of the configuration: where the phones' server listens, the address its QR code gives, its TLS pair."""

    enabled: bool
    host: str
    port: int
    url: str  # '' when the daemon works it out
    tls_cert: str = ""  # every page over https with the owner's certificate and key; '' for the table's own, on tls_port
    tls_key: str = ""
    tls_port: int = 8443  # the staff and set-up pages' https, with the table's own certificate
    request_s: float = 10.0  # a phone's time to send a request: its headers, then an action's body


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
    password_in_clear: bool = False  # the owner's word that a password may go over mqtt:// to another machine
    cafe_tables: tuple[str, ...] = ()  # the owner's list of the café's tables: a night one hosts is followed without a code
    league: str = ""  # the league the café's closed nights go to ('': none), and the café's name in it (issue 64)
    cafe: str = ""
    password_key: str = ""  # the setting that named ``password_file``, whose destination it is bound to (``bound``);
    # '': a file given on a command line with its broker, bound by nothing but that line

    @property
    def enabled(self) -> bool:
        return bool(self.broker)

    @property
    def in_clear(self) -> bool:
        """Whether a password would cross the network unencrypted: one is set, the URL is mqtt://,
        and the broker is another machine (on this one, nothing crosses a network)."""
        if self.scheme != "mqtt" or (self.password is None and not self.password_file):
            return False
        try:
            return not ipaddress.ip_address(self.host).is_loopback
        except ValueError:  # a name
            return self.host != "localhost"


@dataclass(frozen=True, slots=True)
class ScreenConfig:
    """[screen] of the configuration: the spymasters' screen, how it is mounted, and the video driver that shows it."""

    enabled: bool
    settings: ScreenSettings
    mounting: PanelMounting
    video_driver: str
    size: tuple[int, int] | None  # None: the whole display


@dataclass(frozen=True, slots=True)
class LedConfig:
    """[leds] of the configuration: which driver lights the cells, their map, brightness, gamma and power limit."""

    backend: str
    map: LedMap
    brightness: float
    gamma: float
    power: PowerLimit
    ws281x: Ws281xConfig
    spi: SpiLedConfig

    def output(self) -> PixelOutput:
        return PixelOutput(self.map, self.brightness, self.gamma, self.power)


WEEKLY_DAY = 0  # Monday: after the weekend's nights


@dataclass(frozen=True, slots=True)
class Schedule:
    """When the table looks for security updates: ``every`` (off, daily, weekly on Monday) at
    ``hour`` in the table's time zone, or at the first moment after it that the table is idle."""

    every: str = "daily"  # one of SECURITY_UPDATES, as the configuration's check found it
    hour: int = 4

    def slot(self, now: float) -> float | None:
        """When the last run was due, at or before ``now`` (seconds since the epoch); None when off."""
        if self.every == "off":
            return None
        import datetime  # the schedule's thread, after the start

        moment = datetime.datetime.fromtimestamp(now)
        at = moment.replace(hour=self.hour, minute=0, second=0, microsecond=0)
        if at > moment:
            at -= datetime.timedelta(days=1)
        if self.every == "weekly":
            at -= datetime.timedelta(days=(at.weekday() - WEEKLY_DAY) % 7)
        return at.timestamp()

    def due(self, last: float | None, now: float) -> bool:
        """Whether a run is due: none since the last slot (``last``: when the last one began)."""
        slot = self.slot(now)
        return slot is not None and (last is None or last < slot)


@dataclass(frozen=True, slots=True)
class Config:
    """The effective configuration: ``values`` holds every key (file or default) by its
    dotted name, the rest is built from it for the layers that use it."""

    source: Path | None
    values: dict[str, object]
    rules: AnyRules  # the game a new table deals
    options: Mapping[str, object]  # [game]'s games' options (engine.games.choices): each game takes those it knows
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
    blocked: Blocklist = field(default_factory=Blocklist)  # [night] blocked_words: not in a game night's team names
    refused: Phrase | None = None  # the file at source was refused at the start: these are its last good settings
    security: Schedule = field(default_factory=Schedule)  # [system]: when Debian's security updates are applied
    dashboard: Dashboard | None = None  # [fleet] dashboard_port: this table also shows the fleet's dashboard


class Values:
    """The keys' values read back as the kind each has: ``_read_value`` checked the file's,
    and the defaults are of their kind. A value of another kind is a programming error."""

    def __init__(self, values: Mapping[str, object]) -> None:
        self._values = values

    def _wrong(self, key: str, kind: str) -> TypeError:
        return TypeError(f"{key}: expected {EXPECTED[kind]}, found {describe(self._values[key])}")

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
        if not is_whole(value):
            raise self._wrong(key, "int")
        return value

    def number(self, key: str) -> float:
        """A whole number stays one (messages show 5, not 5.0)."""
        value = self._values[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self._wrong(key, "number")
        return value

    def of(self, key: str, kind: str) -> object:
        """A value of one of the games' kinds (``engine.described.KINDS_OF_VALUE``)."""
        read: dict[str, Callable[[str], object]] = {"bool": self.flag, "str": self.text, "int": self.whole,
                                                    "number": self.number}
        return read[kind](key)

    def pin(self, key: str) -> int | None:
        """A GPIO number, or None for false: the button is not fitted."""
        value = self._values[key]
        if value is False:
            return None
        if not is_whole(value):
            raise self._wrong(key, "pin")
        return value

    def wholes(self, key: str) -> list[int]:
        value = self._values[key]
        if not is_wholes(value):
            raise self._wrong(key, "int_list")
        return value

    def texts(self, key: str) -> list[str]:
        value = self._values[key]
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise self._wrong(key, "str_list")
        return value

    def rows(self, key: str) -> list[list[int]]:
        value = self._values[key]
        if not isinstance(value, list) or not all(is_wholes(row) for row in value):
            raise self._wrong(key, "int_lists")
        return value


def is_whole(value: object) -> TypeGuard[int]:
    """A TOML integer: Python's bool is an int too, and ``true`` is no number of anything."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_wholes(value: object) -> TypeGuard[list[int]]:
    return isinstance(value, list) and all(is_whole(n) for n in value)


def build(values: dict[str, object], source: Path | None) -> Config:
    """Every setting object from the keys' values; ValueError (from the objects themselves,
    or about how two of them fit) when a value does not fit."""
    v = Values(values)
    language = _chosen(v, "game.language", N_("the language is one of {choices}, not {value!r}"))
    game = entry(v.text("game.game"))
    options = {choice.name: v.of(f"game.{choice.name}", choice.kind) for choice in choices()}  # as the games describe them
    dealt = {name: entry(name).rules_from(options) for name in NAMES}  # every game the table may deal checks its own
    for choice in choices():  # a game's rules check their own options; its table's settings are checked here
        value = options[choice.name]
        if not choice.rule and choice.span is not None and isinstance(value, (int, float)) \
                and not choice.span[0] <= value <= choice.span[1]:
            raise Refusal("{key} is {least} to {most} {unit}, not {value}", key=f"game.{choice.name}",
                          least=choice.span[0], most=choice.span[1], unit=Phrase(choice.unit or ""), value=value)
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
    _notice_events(v)
    return Config(
        source=source,
        values=dict(values),
        rules=dealt[game.name],
        options=options,
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
        fleet=(fleet := _fleet(v)),
        dashboard=_dashboard(v, fleet),
        words=_words(v.text("sim.words"), source),
        sound=SoundSettings(enabled=v.flag("sound.enabled"), volume=v.number("sound.volume"),
                            spoken=v.flag("sound.spoken"), quiet=QuietHours.parse(v.text("sound.quiet_hours"))),
        staff_session_s=_staff_session_s(v),
        blocked=_blocked(v.text("night.blocked_words"), source),
        security=_security(v),
    )


def _blocked(name: str, source: Path | None) -> Blocklist:
    """[night] blocked_words: the file's words (its path taken from the configuration's folder)."""
    if not name:
        return Blocklist()
    return Blocklist.read(config_relative(name, source))


def _security(v: Values) -> Schedule:
    """[system]: when Debian's security updates are applied (``daemon.security``, ``release.system``)."""
    every = _chosen(v, "system.security_updates", N_("security_updates is one of {choices}, not {value!r}"))
    hour, hours = v.whole("system.security_hour"), _range("system.security_hour")
    if not hours.holds(hour):
        raise Refusal("security_hour is an hour {least} to {most}, not {hour}", least=hours.least, most=hours.most,
                      hour=hour)
    return Schedule(every, hour)


def _notice_events(v: Values) -> None:
    """[notify] events: each one the owner's notifications tell of."""
    unknown = [name for name in v.texts("notify.events") if name not in NOTICE_EVENTS]
    if unknown:
        raise Refusal("notify.events takes {choices}, not {unknown!r}", choices=", ".join(NOTICE_EVENTS),
                      unknown=unknown[0][:40])


def _staff_session_s(v: Values) -> float:
    minutes, span = v.whole("staff.session_min"), _range("staff.session_min")
    if not span.holds(minutes):
        raise Refusal("session_min is {least} to {most} minutes, not {minutes}", least=span.least, most=span.most,
                      minutes=minutes)
    return minutes * 60.0


def _chosen(v: Values, key: str, refusal: str) -> str:
    """``key``'s text, one of the choices the schema gives it (those the staff page's form
    offers); else ``refusal``, which names them and the value."""
    value = v.text(key)
    offered = BY_KEY[key].choices
    assert offered, key
    if value not in offered:
        raise Refusal(refusal, choices=", ".join(map(str, offered)), value=value)
    return value


def _range(key: str) -> Range:
    """The numbers ``key`` takes, as the schema gives them to the checker and the staff page's form."""
    span = BY_KEY[key].range
    assert span is not None, key
    return span


def _words(name: str, source: Path | None) -> tuple[str, ...] | None:
    """The words [sim] names; a deck file's path is taken from the configuration's folder."""
    if not name:
        return None  # the usual table: its words module is not even loaded
    from ..ui.words import load_words

    return load_words(deck_path(name, source))


def deck_path(name: str, source: Path | None) -> str:
    """[sim] words as a deck's path (taken from the configuration's folder), or a shipped list's name."""
    from ..ui.words import LISTS

    return name if name in LISTS else config_relative(name, source)


def config_relative(name: str, source: Path | None) -> str:
    """A file a setting names, a relative name taken from the configuration's folder."""
    return str(source.parent / name) if source is not None and not Path(name).is_absolute() else name


def _touch(v: Values) -> TouchBoardConfig:
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
        port=None if port == "auto" else SerialDevice.parse(port),
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


def _leds(v: Values) -> LedConfig:
    backend = _chosen(v, "leds.backend", N_("the LED backend is one of {choices}, not {value!r}"))
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


def _screen(v: Values) -> ScreenConfig:
    driver = _chosen(v, "screen.video_driver", N_("video_driver is one of {choices}, not {value!r}"))
    width, height = v.whole("screen.width"), v.whole("screen.height")
    span = _range("screen.width")
    if (width == 0) != (height == 0) or not span.holds(width) or not _range("screen.height").holds(height):
        raise Refusal("width and height are both 0 (the whole display) or both {least} to {most}, not {width} x "
                      "{height}", least=span.least, most=span.most, width=width, height=height)
    return ScreenConfig(
        enabled=v.flag("screen.enabled"), settings=ScreenSettings(rotation=v.whole("screen.rotation")),
        mounting=PanelMounting(panel=v.text("screen.panel"), rotation=v.whole("screen.panel_rotation")),
        video_driver=driver, size=(width, height) if width else None,
    )


def _web(v: Values) -> WebConfig:
    port, url, ports = v.whole("web.port"), v.text("web.url"), _range("web.port")
    if not ports.holds(port):
        raise Refusal("port is {least} to {most} ({off}: any free port), not {port}", least=ports.least,
                      most=ports.most, off=ports.off, port=port)
    cert, key = v.text("web.tls_cert"), v.text("web.tls_key")
    if bool(cert) != bool(key):
        raise Refusal("tls_cert and tls_key go together: a certificate needs its private key")
    tls_port = v.whole("web.tls_port")
    if not ports.holds(tls_port) or (tls_port == port != 0):
        raise Refusal("tls_port is {least} to {most} ({off}: any free port) and not the pages' own port, not {port}",
                      least=ports.least, most=ports.most, off=ports.off, port=tls_port)
    request_s, span = v.number("web.request_s"), _range("web.request_s")
    if not span.holds(request_s):
        raise Refusal("request_s is {least} to {most} seconds, not {seconds:g}", least=span.least, most=span.most,
                      seconds=request_s)
    return WebConfig(enabled=v.flag("web.enabled"), host=v.text("web.host"), port=port, url=url, tls_cert=cert,
                     tls_key=key, tls_port=tls_port, request_s=request_s)


def _fleet(v: Values) -> FleetConfig:
    """The broker's URL taken apart and checked, the table's id as one MQTT topic level (this
    machine's host name when none is given), the TLS files, and the café's tables (each a table's
    id); all off without a broker. A password goes over TLS unless the owner says it need not."""
    url, table_id = v.text("fleet.broker"), v.text("fleet.table_id")
    in_clear = v.flag("fleet.password_in_clear")
    files = {name: v.text(f"fleet.{name}") for name in ("password_file", "ca", "cert", "key")}
    if bool(files["cert"]) != bool(files["key"]):
        raise Refusal("cert and key go together: a client certificate needs its private key")
    if table_id:
        _topic_level(table_id, "table_id")
    cafe_tables = tuple(dict.fromkeys(v.texts("fleet.cafe_tables")))
    strange = [name for name in cafe_tables if not name or any(c in name for c in "/+# \0") or len(name.encode()) > 64]
    if strange:
        raise Refusal("cafe_tables lists the café's tables by their table_id, each 1 to 64 bytes with no '/', '+', "
                      "'#', space or NUL, found {name!r}", name=strange[0])
    league, cafe = v.text("fleet.league"), v.text("fleet.cafe")
    for name, what in ((league, "league"), (cafe, "cafe")):
        if name and (any(c in name for c in "/+# \0") or len(name.encode()) > 64):
            raise Refusal("{what} is one level of the league's topics, league/<league>/cafes/<cafe>/...: 1 to 64 bytes "
                          "with no '/', '+', '#', space or NUL, found {name!r}", what=what, name=name)
    if bool(league) != bool(cafe):
        raise Refusal("league and cafe go together: a café sends its nights to a league under its own name")
    if not url:
        return FleetConfig(broker="", scheme="", host="", port=0, username=None, password=None, table_id=table_id,
                           **files, password_in_clear=in_clear, cafe_tables=cafe_tables, league=league, cafe=cafe)
    if url.startswith("mqtt://") and any(files[name] for name in ("ca", "cert", "key")):
        raise Refusal("ca, cert and key are for an mqtts:// broker: with mqtt:// nothing is encrypted")
    if not table_id:
        table_id = _topic_level(socket.gethostname(),
                                Phrase.of("this machine's host name, the table_id when none is set,"))
    found = replace(broker(url, table_id, **files), password_in_clear=in_clear, cafe_tables=cafe_tables,
                    league=league, cafe=cafe, password_key=PASSWORD_FILE)
    if found.password_file and found.password is not None:
        raise Refusal("the broker's password is in the URL or in password_file, not both")
    if found.password_file and found.username is None:
        raise Refusal("password_file is the password of the user the URL names: mqtt[s]://USER@HOST")
    if found.in_clear and not in_clear:
        raise Refusal("the broker's password would cross the network in clear to {url}: use mqtts:// (TLS), or set "
                      "password_in_clear = true for a broker on a network you trust", url=shown_url(url))
    return found


@dataclass(frozen=True, slots=True)
class Dashboard:
    """[fleet] dashboard_*: the fleet's dashboard on this table, on ``port``, reading the table's
    broker as its dashboard user (``broker``: the table's broker, that user, that user's password)."""

    port: int
    broker: FleetConfig


def _dashboard(v: Values, fleet: FleetConfig) -> Dashboard | None:
    """The dashboard this table shows, None when ``dashboard_port`` is 0: the table's own broker (its
    address, its CA) read as ``dashboard_user`` with the password in ``dashboard_password_file``."""
    port, ports = v.whole("fleet.dashboard_port"), _range("fleet.dashboard_port")
    if not ports.holds(port):
        raise Refusal("dashboard_port is {least} to {most}, or 0 for none, not {port}", least=ports.least,
                      most=ports.most, port=port)
    if not port:
        return None
    if not fleet.enabled:
        raise Refusal("the fleet's dashboard reads the table's broker: set [fleet] broker first")
    user, password_file = v.text("fleet.dashboard_user"), v.text("fleet.dashboard_password_file")
    _topic_level(user, "dashboard_user")  # a broker's user name, as a table's id is
    host = f"[{fleet.host}]" if ":" in fleet.host else fleet.host
    url = f"{fleet.scheme}://{urllib.parse.quote(user, safe='')}@{host}:{fleet.port}"
    found = replace(broker(url, password_file=password_file, ca=fleet.ca), password_in_clear=fleet.password_in_clear,
                    password_key=DASHBOARD_PASSWORD_FILE)
    if found.in_clear and not found.password_in_clear:
        raise Refusal("the dashboard's broker password would cross the network in clear to {url}: use mqtts:// (TLS), "
                      "or set password_in_clear = true for a broker on a network you trust", url=shown_url(url))
    return Dashboard(port, found)


HIDDEN = "********"
"""A broker URL's password as a page shows it (``hide_password``); sent back unchanged, it stands
for the password kept (``keep_password``)."""


def hide_password(url: str) -> str:
    """``url`` with its password, if it has one, as ``HIDDEN``."""
    parts = urllib.parse.urlsplit(url)
    users, at, host = parts.netloc.rpartition("@")
    user, colon, _ = users.partition(":")
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{user}:{HIDDEN}@{host}")) if at and colon else url


def keep_password(url: str, kept: str) -> str:
    """``url`` as a page sent it back: a password still ``HIDDEN`` is the one ``kept`` has, or,
    with ``kept`` '', none."""
    parts = urllib.parse.urlsplit(url)
    users, at, host = parts.netloc.rpartition("@")
    user, colon, password = users.partition(":")
    if not (at and colon and password == HIDDEN):
        return url
    old = urllib.parse.urlsplit(kept).netloc.rpartition("@")[0].partition(":")[2]
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{user}:{old}@{host}" if old else f"{user}@{host}"))


BROKER, PASSWORD_FILE, DASHBOARD_PASSWORD_FILE = "fleet.broker", "fleet.password_file", "fleet.dashboard_password_file"


def broker_change(changes: Mapping[str, object], kept: Mapping[str, object]) -> dict[str, object]:
    """``changes`` as a page sent them, the broker's password kept only for the broker it was given
    for. Sent back ``HIDDEN`` (as ``hide_password`` showed it), the URL's password is the one kept,
    at the same broker (its scheme, host and port: ``same_broker``); a change to another broker
    drops the passwords kept, the URL's, ``password_file`` and ``dashboard_password_file``, unless the change gives a new one. So
    no page that cannot read the password can send it to a broker of its choosing."""
    changed = dict(changes)
    sent, before = changes.get(BROKER), str(kept[BROKER])
    if not isinstance(sent, str):
        return changed
    if same_broker(sent, before):
        changed[BROKER] = keep_password(sent, before)
        return changed
    changed[BROKER] = keep_password(sent, "")
    for key in (PASSWORD_FILE, DASHBOARD_PASSWORD_FILE):  # the passwords given for the broker before
        old = str(kept.get(key, ""))
        file = changes.get(key, old)
        if old and isinstance(file, str) and os.path.realpath(file) == os.path.realpath(old):
            changed[key] = ""
    return changed


def same_broker(url: str, other: str) -> bool:
    """Whether two broker URLs name the same broker: scheme, host and port (a scheme's own port
    written or not), whatever the user, the password or the case of the host."""
    def address(found: str) -> tuple[str, str | None, int] | None:
        parts = urllib.parse.urlsplit(found)
        try:
            return parts.scheme.lower(), parts.hostname, parts.port or (8883 if parts.scheme == "mqtts" else 1883)
        except ValueError:  # a port out of range: no broker
            return None

    mine = address(url)
    return mine is not None and mine == address(other)


def shown_url(url: str) -> str:
    """A broker's URL as a message may show it: its user and password left out."""
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def broker(url: str, table_id: str = "", password_file: str = "", ca: str = "", cert: str = "",
           key: str = "") -> FleetConfig:
    """A broker's URL taken apart (``pi-table fleet --broker`` too); ValueError naming what
    was expected, never the password."""
    parts = urllib.parse.urlsplit(url)
    shown = shown_url(url)
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


def _paths(v: Values) -> Paths:
    socket = Path(v.text("paths.socket"))
    if len(str(socket).encode()) > SOCKET_PATH_MAX:
        raise Refusal("a UNIX socket path is at most {most} bytes, not {length}", most=SOCKET_PATH_MAX,
                      length=len(str(socket).encode()))
    keep_games, keep_mb = v.whole("paths.keep_games"), v.number("paths.keep_mb")
    games, megabytes = _range("paths.keep_games"), _range("paths.keep_mb")
    if not games.holds(keep_games):
        raise Refusal("keep_games is {least} to {most} games, not {games}", least=games.least, most=games.most,
                      games=keep_games)
    if not megabytes.holds(keep_mb):
        raise Refusal("keep_mb is {least} to {most} megabytes, not {megabytes}", least=megabytes.least,
                      most=megabytes.most, megabytes=keep_mb)
    return Paths(
        journal_dir=Path(v.text("paths.journal_dir")),
        socket=socket,
        socket_group=v.text("paths.socket_group") or None,
        retention=Retention(keep_games=keep_games, keep_bytes=int(keep_mb * 1024 * 1024)),
        machine=Path(machine) if (machine := v.text("paths.machine")) else None,
    )

