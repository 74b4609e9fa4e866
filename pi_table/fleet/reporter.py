"""A table's reports to the fleet's MQTT broker, off the table loop.

The loop hands the reporter the table's status after it shows (``offer``: a slot and an Event,
never a wait); the reporter's own thread turns the changes into MQTT messages, and paho's
network thread talks to the broker, reconnecting with a growing delay. So a broker that is
down, slow or unreachable costs the loop nothing: at worst events wait in paho's bounded queue.

Topics (DESIGN.md, "MQTT"), under ``pi-table/<table_id>/``:
- ``status``, retained, QoS 1: the game as the operatives see it (the public view, never the
  key), each device's health, the warnings shown, version and uptime. Only the newest counts,
  so it is sent only while connected, and again on every reconnect.
- ``online``, retained: ``true`` once connected; the broker publishes the last will ``false``
  when the table dies or drops off the network.
- ``events``, QoS 1, in a persistent session (clean start off, ``link.SESSION_EXPIRY_S``): game
  started, game over (result, its termination code and duration), faults and their clearing,
  the commands' answers.
  Made while the broker is away, they wait in paho's queue (at most ``MAX_QUEUED``) and go
  out after the reconnect. A full queue drops the new event, logs it once and counts it in
  the status as ``events_dropped``: the table never waits. Those the broker has not taken
  when the table stops (a restart from the staff page during an outage) are kept in a
  private file beside the journal (``pending``) and sent when it starts again; a crash or a
  power cut loses them.
- ``night``, retained, QoS 1: the table's game night (its id, name and teams) and every game
  recorded at this table, whole each time (``night.recorder.Recorder.report``): sent at a
  recorded game and again on every connect, from the night's book on disk, so a table that
  was offline, restarted or lost its power sends its games when it is back, and the
  dashboard, which counts a game by its id, counts none twice.
- ``plan``, retained, QoS 1: the night this table hosts (its staff page runs it), as the tables
  that follow it need it: its id, name, games, tables, teams, confirmed rounds and a sequence
  number (``night.book.Night.plan_json``), sent at each change of the night and on every connect.
  Each table reads every table's ``plan`` and ``night`` (``pi-table/+/plan``, ``+/night``), each
  against its declared schema (a bad one is logged and dropped): it follows the plan of a night
  it plays in (``night.recorder.Recorder.follow``, which says what it refuses) and gathers the
  games the other tables recorded, so each table's standings, and the host's next pairing,
  count them all.
- ``command``: what the broker's ACL lets someone publish to this table alone: new game,
  undo, language, brightness, as JSON. Subscribed with QoS 0, so the broker keeps no
  commands for a table that is away to replay hours later on a game in progress.

A message past the broker's limit (``schema.MAX_PAYLOAD``; ``fits``) is logged and not sent:
the café's broker would disconnect the table, and paho send it again at every reconnect. The
table's client asks the broker for no larger one either (``link.MAX_PACKET``).
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import paho.mqtt.client as mqtt

from ..config import FleetConfig
from ..engine.phrase import N_, Phrase, Text
from ..errors import PiTableError
from ..files import read_json, write_private
from ..hal import Screen
from ..hal.events import is_fault
from ..hal.screen import AnyModel, ScreenInFront
from . import link, schema
from .link import topic
from .schema import Message

if TYPE_CHECKING:
    from ..night.recorder import Recorder
    from ..night.state import Night

log = logging.getLogger("pi_table.fleet")
MAX_QUEUED = 1000  # events (and in-flight messages) paho holds while the broker is away
HEARTBEAT_S = 60.0  # the status is sent again this often even unchanged (the uptime moves on)
COMMANDS = ("new-game", "undo", "language", "brightness", "volume")
ANSWER_WITHIN_S = 15.0  # a broker that has not let the table in by then is a fault, even one that never says no
REFUSED = N_("the broker refused the table ({reason}): check the user and password of [fleet] broker; the game plays on")
UNREACHABLE = N_("cannot reach the broker {address} ({why}): check [fleet] broker and the network; the game plays on")
SILENT = N_("no answer from the broker {address} within {seconds} s: check [fleet] broker and the network; the game "
            "plays on")
LOST = N_("lost the broker ({reason}), reconnecting: check [fleet] broker and the network; the game plays on")
FAULTS = (REFUSED, UNREACHABLE, SILENT, LOST)
"""The templates of the faults this module reports: docs/cafe/troubleshooting.md has an entry for each
(tests/test_troubleshooting.py collects every module's ``FAULTS``)."""

Act = Callable[[Message], Message]
"""Carries out a command on the table (the daemon's control answers): {"ok": ...}."""


def over(state: Message) -> bool:
    """Whether a public view (of any kind of game) shows a finished game."""
    return state.get("winner") is not None or bool(state.get("losers"))


def status_message(status: Message, dropped: int) -> Message:
    """The status topic's JSON from the daemon's status: what operatives see, never the key."""
    state = status.get("state") or {}
    return {
        "version": status.get("version"),
        "game_id": status.get("game_id"),
        "game": state.get("game"),
        "state": state,
        "over": over(state),
        "termination": state.get("termination"),  # how the game ended (engine.endings), each reader's to translate
        "began": status.get("began"),
        "health": {device: health for device, health in status.get("health", {}).items() if device != "fleet"},
        "warnings": status.get("warnings", []),
        "warnings_in": status.get("warnings_in", {}),  # each language's, for a dashboard speaking another
        "language": status.get("language", "en"),  # what the warnings and the game's reason are said in
        "uptime_s": status.get("uptime_s"),
        "events_dropped": dropped,
        "at": round(time.time(), 3),  # when it was made: the dashboard's "last report", the bench's latency
    }


def changes(before: Message | None, after: Message) -> list[Message]:
    """The events between two status messages: a new game, a game over, a device's fault
    (its health no longer ok) or its recovery."""
    events: list[Message] = []
    if before is None:
        return events
    if after["game_id"] != before["game_id"]:
        events.append({"event": "game_started", "game_id": after["game_id"], "game": after["game"]})
    if after["over"] and not (before["over"] and before["game_id"] == after["game_id"]):
        state = after["state"]
        began = after.get("began")
        events.append({"event": "game_over", "game_id": after["game_id"], "game": after["game"],
                       "winner": state.get("winner"), "losers": state.get("losers", []), "reason": state.get("reason"),
                       "termination": state.get("termination"), "score": state.get("score"),
                       "duration_s": None if began is None else round(time.time() - began, 1)})
    faulty_before, faulty_after = _faults(before), _faults(after)
    for device, detail in faulty_after.items():
        if faulty_before.get(device) != detail:
            events.append({"event": "fault", "device": device, "detail": detail})
    for device in faulty_before.keys() - faulty_after.keys():
        events.append({"event": "fault_cleared", "device": device})
    return events


def _faults(status: Message) -> dict[str, str]:
    return {device: health for device, health in status["health"].items() if is_fault(health)}


class Reporter:
    """One table's link to the broker. ``offer`` from the loop's thread; ``act`` runs a
    command on the table (from paho's thread: it must not need the broker to answer)."""

    def __init__(self, config: FleetConfig, act: Act, heartbeat_s: float = HEARTBEAT_S,
                 link_state: Callable[[Text], None] | None = None, answer_within_s: float = ANSWER_WITHIN_S,
                 pending: Path | None = None) -> None:
        if not config.enabled:
            raise FleetOff("the fleet is off: [fleet] broker names no broker")
        self.config = config
        self.act = act
        self.heartbeat_s = heartbeat_s
        self.link_state = link_state or (lambda state: None)  # told "ok", or a Phrase why not, from paho's thread
        self.answer_within_s = answer_within_s
        self.table_id = config.table_id
        self.dropped = 0
        self.pending = pending  # where events the broker has not taken wait from a stop to the next start
        self._unacked: list[tuple[mqtt.MQTTMessageInfo, str]] = []  # events sent, until the broker has them
        self._unacked_lock = threading.Lock()  # events come from the reporter's thread and paho's (answers)
        self.connected = threading.Event()
        self._offered: Message | None = None
        self._offered_at = 0.0  # when (monotonic): a heartbeat's uptime runs on from the status's
        self._sent: Message | None = None  # the last status message made (sent, or waiting for the broker)
        # by topic, what is kept retained there and sent again on every connect (``_retain``): the night's
        # message (``night``), the plan of the night this table hosts (``plan``), and the nights it closed or
        # corrected since its start, to the league (``league_night``)
        self._retained: dict[str, str] = {}
        self.recorder: Recorder | None = None  # the table's part in game nights (``take_night``)
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._link_lock = threading.Lock()  # the link's health: paho's thread and the no-answer timer
        self._trouble_said = False  # the broker's absence is in the log, once an outage
        self._no_answer: threading.Timer | None = None
        self.client = self._client()

    def _client(self) -> mqtt.Client:
        client = link.client(self.config, link.table_client_id(self.table_id))
        client.will_set(topic(self.table_id, "online"), "false", qos=1, retain=True)
        client.max_queued_messages_set(MAX_QUEUED)
        client.on_connect = self._connected
        client.on_connect_fail = self._connect_failed
        client.on_disconnect = self._disconnected
        client.on_message = self._command
        return client

    def start(self) -> None:
        """Connect in the background (a broker that is away is tried again and again), with the
        events a stop left pending queued first."""
        self._send_pending()
        link.connect(self.client, self.config)
        self._no_answer = threading.Timer(self.answer_within_s, self._silent)
        self._no_answer.daemon = True
        self._no_answer.start()
        self._thread = threading.Thread(target=self._run, name="fleet-reporter", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """A clean goodbye: ``online`` false (the last will is for an unclean one)."""
        self._stopping = True
        self._wake.set()
        if self._no_answer is not None:
            self._no_answer.cancel()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self.connected.is_set():
            goodbye = self.client.publish(topic(self.table_id, "online"), "false", qos=1, retain=True)
            try:
                goodbye.wait_for_publish(2)
            except (RuntimeError, ValueError):  # the connection went as we spoke: the last will says it
                pass
        self.client.disconnect()
        self.client.loop_stop()
        self._keep_pending()

    def offer(self, status: Message) -> None:
        """The table's status now; from the loop's thread, which never waits here."""
        with self._lock:
            self._offered, self._offered_at = status, time.monotonic()
        self._wake.set()

    def _run(self) -> None:
        while not self._stopping:
            woken = self._wake.wait(self.heartbeat_s)
            self._wake.clear()
            if self._stopping:
                return
            with self._lock:
                offered, offered_at = self._offered, self._offered_at
            if offered is None:
                continue
            message = status_message(offered, self.dropped)
            if isinstance(message["uptime_s"], (int, float)):
                message["uptime_s"] = round(message["uptime_s"] + time.monotonic() - offered_at, 1)
            try:
                self._report(message, heartbeat=not woken)
            except Exception:  # a paho surprise must not end the reports for good
                log.exception("the fleet report failed; the next change tries again")

    def _report(self, message: Message, heartbeat: bool) -> None:
        before = self._sent
        for event in changes(before, message):
            self.event(event)
        if heartbeat or before is None or _without_uptime(before) != _without_uptime(message):
            self._sent = message
            if self.connected.is_set():
                self._publish_status(message)

    def _publish_status(self, message: Message) -> None:
        payload = json.dumps(message)
        if fits("status", payload):
            self.client.publish(topic(self.table_id, "status"), payload, qos=1, retain=True)

    def night(self, report: Message | None) -> None:
        """The table's game night as it stands (``night.recorder.Recorder.report``), from the
        loop's thread: published retained now if the broker is there, and again on every
        connect, so a table that was away sends its night's games when it comes back."""
        if report is not None:
            self._retain("night", topic(self.table_id, "night"), report)

    def _retain(self, kind: str, where: str, message: Message) -> None:
        """``message`` published retained on ``where`` now if the broker is there, and again on
        every connect; one too big for a ``kind`` of message (``fits``) is not sent."""
        payload = json.dumps(message)
        if not fits(kind, payload):
            return
        self._retained[where] = payload
        if self.connected.is_set():
            self.client.publish(where, payload, qos=1, retain=True)

    def take_night(self, recorder: Recorder) -> None:
        """The table's part in game nights, before ``start``: its night's games and, when it hosts
        the night, its plan, published at each change (from whichever thread made it); the
        other tables' plans and games heard (``_plan_heard``, ``_games_heard``)."""
        self.recorder = recorder
        recorder.published = lambda game: self.night(recorder.report())
        recorder.book.changed = lambda: self._changed(recorder)
        recorder.book.corrected = lambda night: self._corrected(recorder, night)
        if self.config.league:
            from .league import season_topic

            self.client.message_callback_add(season_topic(self.config.league), self._season_heard)
        self.client.message_callback_add(topic("+", "plan"), self._plan_heard)
        self.client.message_callback_add(topic("+", "night"), self._games_heard)
        self.night(recorder.report())
        self._changed(recorder)

    def _changed(self, recorder: Recorder) -> None:
        """The night this table hosts changed: its plan, and once it closed, what the league hears of it."""
        self.plan(recorder.plan())
        if recorder.book.night is not None:
            self.league_night(recorder.book.night)

    def _corrected(self, recorder: Recorder, night: Night) -> None:
        """A closed night changed (``Book.corrected``): the league hears of it, and one this table
        hosted before the night its retained plan now tells of (``Recorder.corrected_plan``) is
        published once more on the plan's topic, QoS 1, not retained, so the tables that followed
        it keep the correction, at once or from their persistent session when back (issue 76,
        item 10: only the night the retained plan told of reached them)."""
        self.league_night(night)
        plan = recorder.corrected_plan(night)
        if plan is not None and fits("plan", payload := json.dumps(plan)):
            self.client.publish(topic(self.table_id, "plan"), payload, qos=1)

    def league_night(self, night: Night) -> None:
        """A night this table hosted, closed or corrected since (``league.record``), sent retained
        to the league's topic of the café's broker, which bridges it to the league's (issue 64): now
        if the broker is there, and again on every connect. Nothing without a league ([fleet]
        league and cafe), while the night is open, or for a night another hosts. Called under the
        book's lock (``Book.changed``, ``Book.corrected``)."""
        if not self.config.league:
            return
        from . import league  # the league's fold and its page: loaded at a table of a café in a league alone

        message = league.record(night, self.config.cafe, self.table_id)
        if message is None:
            return
        if len(json.dumps(message).encode()) > schema.MAX_PAYLOAD:
            message.pop("trf", None)  # the night without its TRF, rather than no night at all
        self._retain("league.night", league.night_topic(self.config.league, self.config.cafe, self.table_id, night.id),
                     message)

    def plan(self, plan: Message | None) -> None:
        """The plan of the night this table hosts (``Recorder.plan``): published retained now
        if the broker is there, and again on every connect; None (it hosts none) sends nothing."""
        if plan is not None:
            self._retain("plan", topic(self.table_id, "plan"), plan)

    def event(self, event: Message) -> None:
        """Publish one event (QoS 1); queued while the broker is away, dropped when the queue is full."""
        self._send_event(json.dumps({**event, "table_id": self.table_id, "at": round(time.time(), 3)}))

    def _send_event(self, payload: str) -> None:
        if not fits("events", payload):
            return
        info = self.client.publish(topic(self.table_id, "events"), payload, qos=1)
        if info.rc != mqtt.MQTT_ERR_QUEUE_SIZE:
            with self._unacked_lock:
                self._unacked = [*self._still_unacked(), (info, payload)]
        else:
            self.dropped += 1
            if self.dropped == 1:
                log.warning("the fleet's queue holds %d messages while the broker is away: new events are dropped "
                            "(counted in the status as events_dropped)", MAX_QUEUED)

    def _send_pending(self) -> None:
        """The events a stop kept (``pending``), queued again and the file gone."""
        if self.pending is None:
            return
        try:
            lines = self.pending.read_text(encoding="utf-8").splitlines()
            self.pending.unlink()
        except FileNotFoundError:
            return
        except (OSError, UnicodeError) as e:
            log.warning("cannot read the fleet's pending events in %s (%s): they are lost", self.pending, e)
            return
        for line in lines:
            self._send_event(line)
        log.info("the fleet: %d events kept from the last stop sent again", len(lines))

    def _still_unacked(self) -> list[tuple[mqtt.MQTTMessageInfo, str]]:
        """The events sent that the broker has not acknowledged (QoS 1's PUBACK) yet; under the lock.
        paho marks the info of a message queued while the broker was away published once it is,
        but its ``is_published()`` raises for such a message for ever (its rc says "no
        connection"), so the mark itself is read."""
        return [(info, payload) for info, payload in self._unacked if not getattr(info, "_published", False)]

    def _keep_pending(self) -> None:
        """At a stop: the events the broker has not taken, kept for the next start."""
        with self._unacked_lock:
            left = [payload for _, payload in self._still_unacked()]
        if self.pending is None or not left:
            return
        try:
            write_private(self.pending, "".join(f"{payload}\n" for payload in left).encode())
        except OSError as e:
            log.warning("cannot keep the fleet's %d unsent events in %s (%s): they are lost", len(left), self.pending, e)
            return
        log.info("the fleet: %d events the broker has not taken kept for the next start", len(left))

    # --- paho's network thread ---

    def _connected(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.warning("the broker %s:%d refused the table: %s", self.config.host, self.config.port, reason)
            self.link_state(Phrase.of(REFUSED, reason=str(reason)))
            return
        log.info("reporting to the fleet's broker %s:%d as %s", self.config.host, self.config.port, self.table_id)
        with self._link_lock:
            self.connected.set()
            self._trouble_said = False
            self.link_state("ok")
        client.publish(topic(self.table_id, "online"), "true", qos=1, retain=True)
        client.subscribe(topic(self.table_id, "command"), qos=0)
        if self.recorder is not None:
            client.subscribe([(topic("+", "plan"), 1), (topic("+", "night"), 1)])
            if self.config.league:
                client.subscribe(f"league/{self.config.league}/season", qos=1)
        if self._sent is not None:
            self._publish_status(self._sent)
        for where, payload in list(self._retained.items()):
            client.publish(where, payload, qos=1, retain=True)

    def _connect_failed(self, client: mqtt.Client, userdata: Any) -> None:
        """An attempt to reach the broker failed (nothing listens, no route, no such name, the
        TLS handshake): paho tries again later, growing its delay. Called within paho's
        ``except OSError``, so the error at hand is the one that failed it."""
        error = sys.exc_info()[1]
        why = (getattr(error, "strerror", None) or str(error) or type(error).__name__) if error else "no connection"
        self._unreachable(Phrase.of(UNREACHABLE, address=self._address(), why=why))

    def _silent(self) -> None:
        """The no-answer timer: still not let in, though no attempt failed outright (a port that
        takes the connection and never answers)."""
        self._unreachable(Phrase.of(SILENT, address=self._address(), seconds=f"{self.answer_within_s:g}"))

    def _unreachable(self, why: Phrase) -> None:
        """The link is a fault (pi-table status, the staff page), said in the log once an
        outage; a connection clears both."""
        with self._link_lock:
            if self.connected.is_set() or self._stopping:
                return
            first, self._trouble_said = not self._trouble_said, True
            self.link_state(why)
        if first:
            log.warning("the fleet: %s (trying again, less and less often, up to once a minute)", why)

    def _address(self) -> str:
        return f"{self.config.host}:{self.config.port}"

    def _disconnected(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if self.connected.is_set() and not self._stopping:
            log.warning("lost the fleet's broker (%s): reconnecting; the table plays on", reason)
            self.link_state(Phrase.of(LOST, reason=str(reason)))
        self.connected.clear()

    def _plan_heard(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        """Another table's plan, its host the topic's table (the ACL lets a table write its own
        alone): followed, or refused and logged (``Recorder.follow``)."""
        if (recorder := self.recorder) is not None:
            self._heard(message, "plan", recorder.follow)

    def _games_heard(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        """Another table's night: the games it recorded, gathered when they are the night's."""
        if (recorder := self.recorder) is not None:
            self._heard(message, "night", recorder.gather)

    def _heard(self, message: mqtt.MQTTMessage, kind: str, take: Callable[[str, Message], object]) -> None:
        """Another table's message on ``kind``, read against its schema and handed to ``take``
        with the topic's table; a bad one is logged and dropped, never raised in paho's thread."""
        table = message.topic.split("/")[1]
        if table == self.table_id or not message.payload:
            return
        try:
            take(table, schema.parse(kind, message.payload))  # type: ignore[arg-type]  # a Record: a dict
        except schema.Refused as e:
            log.warning("the fleet: the %s message of table %s was dropped: %s", kind, table, e)
        except Exception:  # a surprise must not end paho's thread
            log.exception("the fleet: the %s message of table %s could not be taken", kind, table)

    def _season_heard(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        """The league's season, brought down by the café's bridge: kept for the spectators' TV
        (``Recorder.season``) once read against its schema; a bad one is logged and dropped."""
        recorder = self.recorder
        if recorder is None:
            return
        try:
            recorder.season = schema.parse("league.season", message.payload) if message.payload else None  # type: ignore[assignment]
        except schema.Refused as e:
            log.warning("the fleet: the league's season was dropped: %s", e)

    def _command(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        """A command from the fleet: carried out, and answered by an event; a malformed one is
        logged and answered with an error event, never more."""
        try:
            request = parse_command(message.payload)
        except CommandRefused as e:
            log.warning("a fleet command was refused: %s", e)
            self.event({"event": "error", "error": str(e)})
            return
        try:
            answer = self.act(request)
        except Exception as e:  # the table's answer failed: say so, keep listening
            log.exception("the fleet command %s failed", request["command"])
            answer = {"ok": False, "error": f"the table could not carry it out: {e}"}
        self.event({"event": "command", "command": request["command"], "ok": bool(answer.get("ok")),
                    "error": answer.get("error")})


class ReportingScreen(ScreenInFront):
    """The table's screen, telling the reporter after each model it shows: the loop shows
    after every change, so this is when the status may have changed. ``shown`` runs in the
    loop's thread and must be quick (it hands the status over and returns)."""

    def __init__(self, screen: Screen, shown: Callable[[], None]) -> None:
        super().__init__(screen)
        self.shown = shown

    def show(self, model: AnyModel) -> None:
        self.screen.show(model)
        try:
            self.shown()
        except Exception:  # the reports are never worth a game: log, play on
            log.exception("the table's status could not be handed to the fleet's reporter")


class FleetOff(PiTableError, ValueError):
    """A reporter made for a table whose ``[fleet]`` names no broker: the caller asks
    ``FleetConfig.enabled`` first."""


class CommandRefused(PiTableError, ValueError):
    """A command from the fleet that is not one: answered with an error event, never carried out."""


def parse_command(payload: bytes | bytearray) -> Message:
    """A command's JSON checked: an object whose "command" is one of ``COMMANDS``."""
    example = '{"command": "new-game", "game": "codenames"}'
    try:
        request = read_json(payload)
    except (ValueError, UnicodeError):
        shown = payload[:60].decode("utf-8", "replace")
        raise CommandRefused(f"a command is a JSON object such as {example}, not {shown!r}") from None
    if not isinstance(request, dict) or request.get("command") not in COMMANDS:
        found = request.get("command") if isinstance(request, dict) else request
        raise CommandRefused(f"the command is one of {', '.join(COMMANDS)}, as in {example}, not {found!r}")
    return request


def fits(kind: str, payload: str) -> bool:
    """Whether a message is within the broker's limit (``schema.MAX_PAYLOAD``, which the
    dashboard and the tables read at most); one past it is said in the log and not sent: the
    café's broker would disconnect the table, and paho send it again at every reconnect."""
    size = len(payload.encode())
    if size <= schema.MAX_PAYLOAD:
        return True
    log.warning("the fleet: the %s message of %d KB is past the broker's limit of %d KB: not sent", kind,
                size // 1024, schema.MAX_PAYLOAD // 1024)
    return False


def _without_uptime(message: Message) -> Message:
    """What a change is made of: all but the clocks that move on their own."""
    return {key: value for key, value in message.items() if key not in ("uptime_s", "at")}
