"""Small helpers shared by several test files."""

from __future__ import annotations

import ast
import functools
import hashlib
import http.client
import http.cookiejar
import io
import json
import os
import random
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tarfile
import textwrap
import threading
import time
import tty
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import replace
from itertools import count
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import strategies as st

from pi_table.bench.league import play_night
from pi_table.engine import GameRecord, Guess, Rules, Team, make_game, parse_action
from pi_table.engine.codex import MESSAGES, Codex, CodexState
from pi_table.engine.codex_rules import CodexRules
from pi_table.engine.codex_setup import OPTIONAL_ROLES, Fact, Role, Setup
from pi_table.fleet.league import night_topic, record
from pi_table.night.book import Book
from pi_table.night.state import Night
from pi_table.protocol import wire

if TYPE_CHECKING:
    from pi_table.night.games import Game as NightGame
    from pi_table.night.recorder import Recorder
    from pi_table.sim.systemd import FakeSystemd

ROOT = Path(__file__).resolve().parent.parent

from pi_table.engine import Action, Game, Key, Place, State, parse_action


def with_drawn_key(game: Game, state: State, action: Action, key: Key | None) -> Action:
    """Deep Undercover's last placement carries the key, drawn as it goes down: ``key`` plays the
    session's draw."""
    if isinstance(action, Place) and action.key is None and game.draws_key(state):
        return Place(action.cell, key)
    return action


def played(game: Game, key: Key, texts=()) -> State:
    """``game`` on ``key`` after each action text; Deep Undercover starts without a key, and
    ``key`` comes with its last placement."""
    state = game.start(None if game.rules.setup == "place" else key)
    for text in texts:
        state = game.apply(state, with_drawn_key(game, state, parse_action(text), key))
    return state


class Clock:
    """A clock the test moves by hand (``now``), for what takes one (``clock=``)."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def wait_for(condition, what: str, timeout: float = 5.0, every: float = 0.005, explain=None):
    """Poll ``condition`` every ``every`` s until it gives something true, and return that; fail
    the test, naming ``what`` (and adding ``explain()``: a unit's journal, say), after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not (found := condition()):
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what}{explain() if explain else ''}")
        time.sleep(every)
    return found


def parsed(path: Path) -> ast.Module:
    """A Python file's syntax tree, read once per test file: a test file's tests (the layers, the
    kind questions, the faults...) walk the same three hundred files. Callers only read it."""
    return _parsed(path.resolve())


@functools.cache
def _parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def forget_parsed() -> None:
    """Drop the kept trees (conftest does, after each test file). All of them are a million
    objects: kept for the whole run, every full pass of the garbage collector walked them, and
    the interpreter's exit too, about 13 s of a worker's 100 in the fast tier. A tree holds no
    cycle, so dropping it frees it at once, without a pass of the collector, which the tests
    leave as the table runs it."""
    _parsed.cache_clear()


@functools.cache
def defined_tests() -> frozenset[str]:
    """Every function of the suite's test files, as ``test_FILE.py::name``: what a document that
    names the test proving something (the threat model, the Italian audit) is checked against."""
    return frozenset(f"{path.name}::{node.name}" for path in (ROOT / "tests").glob("test_*.py")
                     for node in ast.walk(parsed(path)) if isinstance(node, ast.FunctionDef))


def hidden_swapped(key: str, board: str, rng: random.Random) -> str:
    """Another key that agrees on every shown cell: the identities of the hidden ones shuffled."""
    hidden = [cell for cell, shown in enumerate(board) if shown == "?"]
    letters = [key[cell] for cell in hidden]
    rng.shuffle(letters)
    cells = list(key)
    for cell, letter in zip(hidden, letters):
        cells[cell] = letter
    return "".join(cells)


REQUIRE_TOOLS = os.environ.get("PI_TABLE_REQUIRE_TOOLS") == "1"
"""Set by .ci/run, which installs every tool: there a missing one fails the test, not skips it."""


def cache_dir() -> Path:
    """Where slow things built for tests are kept between runs: PI_TABLE_CI_CACHE, else
    /var/cache/pi-table-ci where it can be written (CI, as root), else ~/.cache/pi-table-ci."""
    chosen = os.environ.get("PI_TABLE_CI_CACHE")
    if chosen:
        return Path(chosen)
    shared = Path("/var/cache/pi-table-ci")
    try:
        shared.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass
    return shared if os.access(shared, os.W_OK) else Path.home() / ".cache" / "pi-table-ci"


def npm_packed(name: str, version: str, into: Path) -> Path:
    """The npm registry's tarball of ``name@version`` (``npm pack``), written in ``into``; a
    skip when npm cannot fetch it (a failure under PI_TABLE_REQUIRE_TOOLS, as in .ci/run)."""
    packed = subprocess.run(["npm", "pack", "--silent", "--pack-destination", str(into), f"{name}@{version}"],
                            capture_output=True, text=True, timeout=300)
    if packed.returncode != 0:
        require_tools(also_missing=(f"the npm package {name}@{version} (npm pack: {packed.stderr.strip()[-200:]})",))
    return Path(into) / packed.stdout.split()[-1]


def require_tools(*commands: str, also_missing: tuple[str, ...] = ()) -> None:
    """Skip the test when a system command it drives is missing (under PI_TABLE_REQUIRE_TOOLS, as in
    .ci/run, tests/conftest.py makes that skip a failure).

    ``also_missing`` names other prerequisites the caller found missing (a Python module)."""
    missing = [name for name in commands if shutil.which(name) is None] + list(also_missing)
    if not missing:
        return
    pytest.skip(f"{', '.join(missing)} not installed")


def record_untranslated(monkeypatch, *targets: str) -> list[str]:
    """Make the Italian catalogue record every msgid it lacks, for code that looks up its
    translation through ``targets`` (dotted names of ``translation`` functions); the list fills
    as the code draws."""
    import gettext

    from pi_table.ui import i18n

    missed: list[str] = []

    class Recorder(gettext.NullTranslations):
        def gettext(self, message):
            missed.append(message)
            return message

    catalogue = gettext.translation(i18n.DOMAIN, localedir=i18n.LOCALE_DIR, languages=["it"])
    catalogue.add_fallback(Recorder())
    for target in targets:
        monkeypatch.setattr(target, lambda lang: catalogue)
    return missed


def next_event(response) -> tuple[str, dict]:
    """The next server-sent event on ``response`` (its kind and data), read line by line as a
    browser's EventSource reads it."""
    kind, data = "message", None
    while True:
        line = response.readline().decode().rstrip("\n")
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: "):
            data = json.loads(line[6:])
        elif line == "" and data is not None:
            return kind, data


def electrode_of(cell: int) -> int:
    """The electrode under ``cell``'s pad in the reference wiring, which a configuration without
    [touch] cell_electrodes uses: the emulator is pressed by electrode, as a board is."""
    from pi_table.hardware import pinout

    return pinout.load().cell_electrodes[cell]


# The touch board's end of a pty -----------------------------------------------------------------


class Board:
    """The board's end of a pty, linked from a stable path; it speaks only when told to."""

    def __init__(self, link: Path) -> None:
        self.link = link
        self.plug()

    def plug(self) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self._slave)
        os.set_blocking(self.master, False)
        self.decoder = wire.Decoder()
        self.pending: list[wire.Message] = []
        self.seq = 0
        self.counter = 0
        temporary = self.link.with_name(self.link.name + ".new")
        temporary.symlink_to(os.ttyname(self._slave))
        temporary.replace(self.link)

    def unplug(self) -> None:
        """Pull the cable: the link goes and the host's next read fails."""
        self.link.unlink(missing_ok=True)
        os.close(self.master)
        os.close(self._slave)

    def write(self, data: bytes) -> None:
        deadline = time.monotonic() + 3
        while data:
            try:
                data = data[os.write(self.master, data):]
            except BlockingIOError:  # the pty is full until the host reads
                if time.monotonic() > deadline:
                    pytest.fail("the host stopped reading")
                time.sleep(0.005)

    def send(self, message: wire.Message) -> None:
        self.write(wire.encode(message, self.seq))
        self.seq = (self.seq + 1) & 0xFF

    def touch(self, value: int) -> None:
        """A touch report; the counter moves only on a change, as the firmware's does."""
        self.counter += 1
        self.send(wire.Touch(self.counter, value))

    def heartbeat(self, value: int) -> None:
        self.send(wire.Touch(self.counter, value))

    def receive(self, timeout: float = 3.0) -> wire.Message:
        """The host's next frame."""
        deadline = time.monotonic() + timeout
        while not self.pending:
            if time.monotonic() > deadline:
                pytest.fail(f"the host sent nothing within {timeout} s")
            try:
                self.pending += [message for _, message in self.decoder.feed(os.read(self.master, 256))]
            except BlockingIOError:
                time.sleep(0.005)
        return self.pending.pop(0)

    def greet(self, protocol: tuple[int, int] = (wire.PROTOCOL_MAJOR, 0)) -> None:
        """Answer the host's get-hello."""
        assert self.receive() == wire.GetHello()
        self.send(wire.Hello(protocol, (0, 1, 0), "test-board", 36))


class LiveBoard(Board):
    """A board that keeps its end up as the firmware does, in a thread of its own: each get-hello
    answered, whenever the host asks (a host that reconnects asks again), and the pads reported
    at every change and every quarter second (the firmware's heartbeat), so a table that
    times a silent board out finds this one alive however slowly it runs. ``press`` and
    ``release`` are a finger's, on an electrode."""

    HEARTBEAT_S = 0.25

    def __init__(self, link: Path) -> None:
        super().__init__(link)
        self.pads = 0
        self.hellos = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="live-board", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.wait(self.HEARTBEAT_S):
            with self._lock:
                try:
                    self.pending += [message for _, message in self.decoder.feed(os.read(self.master, 256))]
                except BlockingIOError:
                    pass
                for message in self.pending:
                    if message == wire.GetHello():
                        self.send(wire.Hello((wire.PROTOCOL_MAJOR, 0), (0, 1, 0), "test-board", 36))
                        self.hellos += 1
                self.pending.clear()
                self.heartbeat(self.pads)

    def press(self, electrode: int) -> None:
        with self._lock:
            self.pads |= 1 << electrode
            self.touch(self.pads)

    def release(self, electrode: int) -> None:
        with self._lock:
            self.pads &= ~(1 << electrode)
            self.touch(self.pads)

    def unplug(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        super().unplug()

# The companion's pages, over HTTP and in a browser ----------------------------------------

PHONE = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
"""One phone for these tests' requests: it keeps the cookie each page gives the phone that opens it."""


def get(url: str, phone=PHONE) -> tuple[int, bytes]:
    try:
        with phone.open(url, timeout=5) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def post(url: str, body: bytes, phone=PHONE) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"}, method="POST")
    try:
        with phone.open(request, timeout=5) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def another_phone():
    """A phone of its own: its own cookies, so a page another phone opened is not its."""
    return urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]


# Codex games --------------------------------------------------------------------------------

@st.composite
def games(draw):
    roles = draw(st.none() | st.lists(st.sampled_from(OPTIONAL_ROLES), min_size=2, max_size=2, unique=True))
    game = Codex(CodexRules(roles=None if roles is None else (Role.LEADER, *roles)))
    return game, game.deal(random.Random(draw(st.integers(0, 2**32 - 1))))


def choose(game: Codex, state: CodexState, rng: random.Random):
    """A random legal action, its kind drawn first, so that codes (many) do not crowd out the rest."""
    legal = game.legal_actions(state)
    kinds = sorted({type(action).__name__ for action in legal})
    kind = rng.choice(kinds)
    return rng.choice([action for action in legal if type(action).__name__ == kind])


def scrambled(state: CodexState, seat: int, rng: random.Random) -> CodexState:
    """A twin state that differs only in what ``seat`` may not know: the other agents' identikits
    (all but the public codenames) and who did what in private, wherever ``seat`` did not act."""
    others = [s for s in range(6) if s != seat]
    moved = others[:]
    rng.shuffle(moved)
    sigma = dict(zip(others, moved))
    sigma[seat] = seat
    agents = list(state.setup.agents)
    fresh = iter(f"Z{n:03d}" for n in range(6))
    for source, target in zip(others, moved):
        agent = state.setup.agents[source]
        agents[target] = replace(agent, codename=state.setup.agents[target].codename, fragment=next(fresh))
    twin = replace(state, setup=Setup(tuple(agents)))
    return replace(
        twin,
        messages=tuple(
            m if m.sender == seat else replace(m, sender=sigma[m.sender], recipient=sigma[m.recipient])
            for m in state.messages
        ),
        attempts=tuple(a if a.seat == seat else replace(a, seat=sigma[a.seat]) for a in state.attempts),
        blocks=tuple(
            b if b.hacker == seat else replace(b, hacker=sigma[b.hacker], target=sigma[b.target]) for b in state.blocks
        ),
        questions=tuple(q if q.profiler == seat else replace(q, profiler=sigma[q.profiler]) for q in state.questions),
        extortions=tuple(
            e if e.inquisitore == seat else replace(e, inquisitore=sigma[e.inquisitore], target=sigma[e.target])
            for e in state.extortions
        ),
    )


def known_fragments(state: CodexState, seat: int) -> set[str]:
    """The fragments ``seat`` may have seen, from the game itself rather than any view: its own,
    those sent to it once delivered, those the truth machine revealed, those it typed into a
    code itself; all of them at the end."""
    if state.is_over:
        return {agent.fragment for agent in state.setup.agents}
    delivered = [m for m in state.messages if m.recipient == seat and not (m.phase == state.phase and state.step == MESSAGES)]
    return (
        {state.setup.agents[seat].fragment}
        | {m.fragment for m in delivered}
        | {str(r.value) for r in state.revelations if r.fact is Fact.FRAGMENT}
        | {part for attempt in state.attempts if attempt.seat == seat for part in attempt.code.split("-")}
    )


def pick(page, form: str, label: str | re.Pattern) -> None:
    page.locator(f'form[data-form="{form}"] label.chip', has_text=label).click()


def submit(page, form: str) -> None:
    page.locator(f'form[data-form="{form}"] button[type=submit]').click()


class Phones:
    """A phone for each of ``seats``, on its seat's link, and one on the public page; each action
    is tapped on a page, then the test waits for the table to take it. ``table`` has each
    seat's ``link``, the ``companion``'s base_url, the game's ``state`` and the ``accepted`` actions."""

    def __init__(self, browser, table, seats=range(6)) -> None:
        self.table = table
        self.contexts = [browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
                         for _ in range(len(seats) + 1)]  # a phone each: its own connections
        self.pages = {seat: context.new_page() for seat, context in zip(seats, self.contexts)}
        for seat, page in self.pages.items():
            page.goto(table.link(seat))
        self.public = self.contexts[-1].new_page()
        self.public.goto(table.companion.base_url + "/")

    def close(self) -> None:
        for context in self.contexts:
            context.close()

    def taken(self, *taps) -> None:
        """Run ``taps`` (callables), then wait until the table has accepted one more action."""
        before = len(self.table.accepted)
        for tap in taps:
            tap()
        wait_for(lambda: len(self.table.accepted) == before + 1, "the table to take the page's action")

    def send(self, seat: int, to: int, fact: str) -> None:
        page, codename = self.pages[seat], self.table.state.setup.agents[to].codename
        # the chip that reads "FACT: value" and no more: "position" is not the Informatore's
        # "role: informatore + position: 2", which is asked for in full
        chip = re.compile("^" + re.escape(fact) + r":[^+]*$")
        self.taken(lambda: pick(page, "send", f"{codename} (seat {to})"), lambda: pick(page, "send", chip),
                   lambda: submit(page, "send"))

    def code(self, seat: int, *fragments: str) -> None:
        """Tap each fragment the page offers; type the others, key by key, into their box."""
        page = self.pages[seat]

        def enter(position: int, fragment: str) -> None:
            chip = page.locator('form[data-form="code"] button.fragment', has_text=fragment)
            if chip.count():
                chip.click()
            else:
                page.locator(f'[data-draft="code-{position}"]').press_sequentially(fragment.lower())

        self.taken(*[lambda n=n, f=f: enter(n, f) for n, f in enumerate(fragments, start=1)], lambda: submit(page, "code"))

    def done(self, seat: int) -> None:
        self.taken(lambda: submit(self.pages[seat], "done"))

    def vote(self, seat: int, target: int) -> None:
        page, codename = self.pages[seat], self.table.state.setup.agents[target].codename
        self.taken(lambda: pick(page, "vote", f"{codename} (seat {target})"), lambda: submit(page, "vote"))

    def check_privacy(self) -> None:
        """No page's HTML, attributes included, holds a fragment its agent has not seen."""
        for seat, page in self.pages.items():
            html = page.content()
            seen = {agent.fragment for agent in self.table.state.setup.agents if agent.fragment in html}
            assert seen <= known_fragments(self.table.state, seat), f"seat {seat}'s page shows {seen}"


# The daemon --------------------------------------------------------------------------------

CODEX_CONFIG = (
    '[game]\ngame = "codex"\ndiscussion_s = 10\n[web]\nhost = "127.0.0.1"\nport = 0\n'
    '[paths]\njournal_dir = "journal"\nsocket = "control.sock"\nsocket_group = ""\n'
)


def pi_table(*args: str) -> subprocess.CompletedProcess:
    """The pi-table command line, run as a person runs it."""
    return subprocess.run([sys.executable, "-m", "pi_table", *args], capture_output=True, text=True, timeout=30)


class CodexTable:
    """The daemon, and what a test needs of it: its status, the game's setup, each seat's link."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.config = folder / "config.toml"
        self.config.write_text(CODEX_CONFIG)
        from pi_table.sim.systemd import FakeSystemd

        self.systemd = FakeSystemd(["--hal", "sim", "--config", str(self.config)])

    def status(self) -> dict:
        answer = pi_table("status", "--json", "--config", str(self.config))
        assert answer.returncode == 0, answer.stderr
        return json.loads(answer.stdout)

    def setup(self, game_id: str):
        header = json.loads((self.folder / "journal" / f"{game_id}.jsonl").read_text().splitlines()[0])
        from pi_table.engine.codex_setup import parse_setup

        return parse_setup(header["setup"])

    def link(self, game_id: str, seat: int) -> str:
        from pi_table.web.tokens import Tokens, seat_role

        token = Tokens.kept_in(self.folder / "journal").token(game_id, seat_role(seat))
        return f"{self.status()['companion']}/p/{token}"


HOLD_S = 0.05
TAP_MS = 150  # past the hold with room to spare: a driver thread late to read the press still sees a hold


class EmulatedTable:
    """The board emulator, a configuration, and the daemon started and killed at will."""

    def __init__(self, folder: Path, limit_fsize: int | None = None) -> None:
        self.folder = folder
        self.journal = folder / "journal"
        self.socket = folder / "control.sock"
        from pi_table.sim.emulator import BoardEmulator

        self.emulator = BoardEmulator(link=folder / "touch-board")
        self.emulator.start()
        self.config = folder / "config.toml"
        self.config.write_text(
            f'[game]\nhold_s = {HOLD_S}\n'
            f'[web]\nhost = "127.0.0.1"\nport = 0\n[paths]\njournal_dir = "journal"\nsocket = "control.sock"\nsocket_group = ""\n'
        )
        self.limit_fsize = limit_fsize
        self.service: FakeSystemd | None = None

    def start(self, phones: bool = True) -> None:
        """The daemon started as the unit starts it, until READY; with ``phones``, until its phones'
        pages have opened too (``FakeSystemd.start``)."""
        from pi_table.sim.systemd import FakeSystemd

        self.service = FakeSystemd(
            ["--hal", "sim", "--touch-port", str(self.emulator.link), "--config", str(self.config)],
            log=self.folder / "daemon.log", limit_fsize=self.limit_fsize,
        )
        self.service.start(phones=phones)

    def connected(self) -> None:
        wait_for(lambda: self.status()["health"]["touch"] == "ok", "the daemon's hello with the board")

    def status(self) -> dict:
        from pi_table.daemon.control import request

        return request(self.socket, "status")

    def tap(self, cell: int) -> None:
        """A finger on a card's pad for TAP_MS, then a pause: two taps closer than the board's
        scan would overlap, and two cards touched at once count as nothing (a spill)."""
        self.tap_electrode(electrode_of(cell))

    def tap_electrode(self, electrode: int) -> None:
        self.emulator.tap(electrode, TAP_MS)
        time.sleep(0.03)

    def guess(self, cell: int) -> None:
        """A finger on a card's pad until the table shows the card revealed, then lifted. A tap
        of a fixed length proves nothing on a loaded machine: the emulator's scan may sleep
        through it (issue 40: a test saw no guess in 5 s), never through a finger held."""
        self.emulator.press(electrode_of(cell))
        try:
            wait_for(lambda: self.status()["state"]["board"][cell] != "?", f"card {cell} revealed", timeout=30)
        finally:
            self.emulator.release(electrode_of(cell))

    def kill(self) -> None:
        self.service.kill()
        self.service.close()

    def close(self) -> None:
        if self.service is not None:
            self.service.close()
        self.emulator.stop()

    def game_file(self) -> Path:
        return max(self.journal.glob("*.jsonl"))

    def entries(self, path: Path | None = None) -> list[str]:
        """The complete entries of a game file, as text: what a restart must replay."""
        lines = (path or self.game_file()).read_text().split("\n")[:-1]  # a torn last line is no entry
        return [json.loads(line)["action"] for line in lines[1:]]

    def expected(self, path: Path | None = None, entries: list[str] | None = None) -> dict:
        """The table view after ``entries`` on the game's key, by the engine alone."""
        path = path or self.game_file()
        header = json.loads(path.read_text().split("\n")[0])
        game = make_game(Rules.from_json(header["rules"]))
        key = game.parse_key(header["key"], Team.parse(header["start"]))
        entries = self.entries(path) if entries is None else entries
        record = GameRecord.replay(game, key, [parse_action(text) for text in entries])
        return game.table_view(record.state).to_json()


JOURNAL_VERSION_1 = """\
{"format": "pi-table journal", "version": 1, "id": "20261118-110640.250000-f7396e", "started": "2026-11-18T11:06:40Z", "rules": {"game": "codenames", "nuke": "basic", "clue_required": false, "three_player": false, "setup": "key", "dark_cell": 12}, "key": "RRRRRRRRRBBBBBBBBNNNNNNNA", "start": "red"}
{"n": 1, "action": "clue 2", "at": 7.5}
{"n": 2, "action": "touch 0", "at": 15.0}
{"n": 3, "action": "touch 1", "at": 22.5}
{"n": 4, "action": "touch 2", "at": 30.0}
{"n": 5, "action": "clue 1", "at": 37.5}
{"n": 6, "action": "touch 9", "at": 45.0}
{"n": 7, "action": "undo", "at": 52.5}
{"n": 8, "action": "touch 10", "at": 60.0}
"""
"""A journal exactly as version 1 (before checksums) wrote it."""


# The README and the installer ------------------------------------------------------------

README = ROOT / "README.md"


def readme_commands() -> list[list[str]]:
    """Each command line of the README's fenced code blocks, as words, without a ``$`` prompt,
    comments or the block's indentation."""
    text = README.read_text(encoding="utf-8")
    commands = []
    for block in re.finditer(r"^( *)```[^\n]*\n(.*?)^\1```", text, re.DOTALL | re.MULTILINE):
        for line in block.group(2).splitlines():
            line = line.strip().removeprefix("$ ")
            try:
                words = shlex.split(line, comments=True)
            except ValueError:  # an example's output, not a command
                continue
            if words:
                commands.append(words)
    return commands


def readme_scripts() -> dict[str, list[str]]:
    """The checkout's own scripts the README runs by their path (``sudo systemd/install.sh``,
    ``./dev test``): path -> the README's command line. Paths under .venv are made by ./dev."""
    scripts = {}
    for words in readme_commands():
        program = words[1] if words[0] == "sudo" and len(words) > 1 else words[0]
        if "/" in program.rstrip("/") and not program.startswith(("/", ".venv/")):
            scripts[os.path.normpath(program)] = words
    return scripts


STUBS = {
    # Each stub logs its name and arguments; users and groups live in files under $STAGE.
    "apt-get": "",
    # apt's sources offer every package but those listed in $STAGE/unavailable
    "apt-cache": 'grep -qx "$2" "$STAGE/unavailable" 2>/dev/null || printf "%s:\\n  Candidate: 1.0\\n" "$2"',
    # raspi-config remembers what it turned on: get_spi prints 0 once do_spi 0 ran
    "raspi-config": 'case "$2" in do_*) touch "$STAGE/${2#do_}-on" ;; get_*) [ -e "$STAGE/${2#get_}-on" ]; echo $? ;; esac',
    "systemctl": "",
    "usermod": "",
    "chown": "",  # the staging root's files stay the tester's; the log says who would own them
    "getent": 'grep -q "^$2:" "$STAGE/$1" 2>/dev/null',
    "groupadd": 'echo "${@: -1}:" >> "$STAGE/group"',
    "useradd": 'echo "${@: -1}:" >> "$STAGE/passwd"',
}


INSTALL = ROOT / "systemd" / "install.sh"


class Installer:
    """install.sh run against a staging root, with stubs for the system commands it calls."""

    def __init__(self, tmp: Path, model: str | None, boot_config: str = "dtparam=audio=on\n") -> None:
        self.root = tmp / "root"
        self.stage = tmp / "stage"
        self.log = self.stage / "log"
        bin_dir = self.stage / "bin"
        bin_dir.mkdir(parents=True)
        for name, body in STUBS.items():
            stub = bin_dir / name
            stub.write_text(f'#!/usr/bin/env bash\necho "{name} $*" >> "$STAGE/log"\n{body}\n')
            stub.chmod(0o755)
        (self.stage / "group").write_text("gpio:\nspi:\ni2c:\ndialout:\nvideo:\ninput:\naudio:\n")  # no render yet
        if model is not None:  # None: no device tree, as on a PC
            (self.root / "proc/device-tree").mkdir(parents=True)
            (self.root / "proc/device-tree/model").write_text(model + "\0")
        (self.root / "boot/firmware").mkdir(parents=True)
        (self.root / "boot/firmware/config.txt").write_text(boot_config)
        self.env = {
            **os.environ,
            "PATH": f"{bin_dir}:{os.environ['PATH']}",
            "STAGE": str(self.stage),
            "PI_TABLE_ROOT": str(self.root),
            "PYTHON": sys.executable,
        }

    def run(self) -> subprocess.CompletedProcess:
        self.log.write_text("")
        return subprocess.run([str(INSTALL)], env=self.env, capture_output=True, text=True, timeout=600)

    def unavailable(self, *packages: str) -> None:
        """Packages apt's sources do not offer."""
        (self.stage / "unavailable").write_text("".join(f"{package}\n" for package in packages))

    def calls(self, name: str) -> list[str]:
        return [line for line in self.log.read_text().splitlines() if line.split()[0] == name]

    @property
    def config(self) -> Path:
        return self.root / "etc/pi-table/config.toml"

    def pi_table(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([self.root / "opt/pi-table/venv/bin/pi-table", *args], capture_output=True, text=True)

    def config_problems(self) -> list[str]:
        """check-config's complaints about the installed file, but for what this machine lacks:
        the file names the Pi's folders and group, which the stubs made only in the staging
        root (and which a test that is not root may not write in)."""
        done = self.pi_table("check-config", str(self.config))
        assert (done.returncode == 0) == (done.stderr == ""), done.stderr
        from pi_table.config import check_machine, defaults

        lacking = [key for key, _ in check_machine(defaults())]
        return [line for line in done.stderr.splitlines() if not any(f": {key}: " in line for key in lacking)]


def self_signed(folder: Path, name: str = "table") -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, made by openssl in ``folder``."""
    require_tools("openssl")
    cert, key = folder / f"{name}.crt", folder / f"{name}.key"
    done = subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                           "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1", "-days", "1",
                           "-addext", "subjectAltName=IP:127.0.0.1"], capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return cert, key


# --- the staff page: a phone on it, and a table in this process behind it ---------------------

STAFF_PIN = "482916"
OWNER_PASSPHRASE = "our table, our rules 24"  # no quote: the container test pipes it in printf '...'


class Staff:
    """One phone on the staff page: its cookies, its CSRF token, its language."""

    def __init__(self, base: str, lang: str = "en", cafile: Path | None = None, by_name: bool = True) -> None:
        """``cafile``: the certificate a table's https is trusted by (its own, self-signed), for
        the name in ``base`` unless ``by_name`` is False (a phone that reaches the table by an
        address its certificate cannot name, and accepted the certificate itself)."""
        import ssl

        self.base, self.lang = base, lang
        self.cookies = http.cookiejar.CookieJar()
        handlers: list = [urllib.request.HTTPCookieProcessor(self.cookies)]
        if cafile is not None:
            context = ssl.create_default_context(cafile=str(cafile))
            context.check_hostname = by_name
            handlers.append(urllib.request.HTTPSHandler(context=context))
        self.opener = urllib.request.build_opener(*handlers)
        self.csrf: str | None = None
        self.headers: dict[str, str] = {}  # of the last answer
        self.headers_out: dict[str, str] = {}  # sent with every request besides the page's own

    def call(self, method: str, path: str, body: object = None, csrf: str | None = "session") -> tuple[int, object]:
        from pi_table.web.staff import CSRF_HEADER  # aiohttp: loaded by the tests of the pages alone

        headers = {"X-Staff-Lang": self.lang, **self.headers_out}
        if csrf == "session" and self.csrf is not None:
            headers[CSRF_HEADER] = self.csrf
        elif csrf not in ("session", None):
            headers[CSRF_HEADER] = csrf
        data = None if body is None else json.dumps(body).encode()
        if data is not None:
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with self.opener.open(request, timeout=10) as answer:
                status, raw, self.headers = answer.status, answer.read(), dict(answer.headers)
        except urllib.error.HTTPError as e:
            status, raw, self.headers = e.code, e.read(), dict(e.headers)
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode()

    def call_bytes(self, method: str, path: str, data: bytes, content_type: str) -> tuple[int, object]:
        """A file sent whole as the request's body, as the staff page sends a backup or a bundle."""
        from pi_table.web.staff import CSRF_HEADER

        headers = {"X-Staff-Lang": self.lang, "Content-Type": content_type, CSRF_HEADER: self.csrf or ""}
        request = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with self.opener.open(request, timeout=30) as answer:
                status, raw = answer.status, answer.read()
        except urllib.error.HTTPError as e:
            status, raw = e.code, e.read()
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode(errors="replace")

    def login(self, pin: str = STAFF_PIN) -> tuple[int, object]:
        status, answer = self.call("POST", "/staff/login", {"pin": pin})
        if status == 200:
            assert isinstance(answer, dict)
            self.csrf = answer["csrf"]
        return status, answer

    def as_owner(self, passphrase: str = OWNER_PASSPHRASE) -> None:
        """Give the owner's passphrase on this phone's session: it acts as the owner for a while."""
        status, answer = self.call("POST", "/staff/api/owner", {"passphrase": passphrase})
        assert status == 200 and isinstance(answer, dict) and answer["left_s"] > 0, (status, answer)


BROKER_SECRET = "the-broker-password-58"
FLEET = f'[fleet]\nbroker = "mqtts://t1:{BROKER_SECRET}@127.0.0.1:1"\ntable_id = "t1"\n'
"""A fleet's settings whose broker's password the owner holds (issue 58: a reset wipes it); the
broker answers nowhere, and the table plays on unreported."""


def download_backup(staff: Staff) -> dict[str, bytes]:
    """The backup the owner downloads, unpacked: each file by its name."""
    from pi_table.web.staff import CSRF_HEADER  # aiohttp: loaded by the tests of the pages alone

    request = urllib.request.Request(staff.base + "/staff/api/backup", headers={CSRF_HEADER: staff.csrf or ""})
    with staff.opener.open(request, timeout=30) as answer:
        data = answer.read()
    with tarfile.open(fileobj=io.BytesIO(data)) as packed:
        return {member.name: packed.extractfile(member).read() for member in packed.getmembers() if member.isfile()}


def make_key(folder: Path, name: str = "owner") -> str:
    """A new Ed25519 key pair's public line, as the owner's computer makes it."""
    require_tools("ssh-keygen")
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"{name}@cafe", "-f", str(folder / name)],
                   check=True)
    return (folder / f"{name}.pub").read_text()


def as_owner_once_answering(staff: Staff) -> Staff | None:
    """``staff`` logged in and acting as the owner (restores and updates are the owner's), or None
    while the table's page does not answer or refuses the PIN (a table still starting)."""
    try:
        if staff.login()[0] != 200:
            return None
    except OSError:
        return None
    staff.as_owner()
    return staff


def raw_post(base: str, path: str, staff: Staff, data: bytes, headers: dict | None = None) -> tuple[int, dict]:
    """A file from the phone as the body, as care.js's upload() sends it."""
    import http.client
    import json
    from urllib.parse import urlsplit

    where = urlsplit(base)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=10)
    cookie = "; ".join(f"{c.name}={c.value}" for c in staff.cookies)
    connection.request("POST", path, body=data, headers={"X-Staff-Token": staff.csrf or "", "Cookie": cookie,
                                                         "Content-Type": "application/gzip", **(headers or {})})
    answer = connection.getresponse()
    status, body = answer.status, answer.read()
    connection.close()
    return status, json.loads(body) if body.startswith(b"{") else {}


def fake_journalctl(folder, entries: list[dict], status: int = 0):
    """A ``journalctl`` that writes the arguments it was given beside itself and prints ``entries``
    as ``--output json`` does (one object a line), or fails with ``status``."""
    import json

    script = folder / "journalctl"
    printed = "\n".join(json.dumps(entry) for entry in entries)
    script.write_text(f"#!{sys.executable}\nimport json, sys\n"
                      f"open({str(folder / 'args')!r}, 'w').write(json.dumps(sys.argv[1:]))\n"
                      f"print({printed!r})\n"
                      f"if {status}: sys.stderr.write('Failed to open journal: permission denied'); sys.exit({status})\n")
    script.chmod(0o755)
    return script


SYSTEMD_JOURNAL = [
    {"__REALTIME_TIMESTAMP": "1767225600000000", "PRIORITY": "6", "MESSAGE": "INFO pi_table.daemon: table up",
     "_SYSTEMD_INVOCATION_ID": "a1"},
    {"__REALTIME_TIMESTAMP": "1767225660000000", "PRIORITY": "3", "MESSAGE": "ERROR pi_table.daemon: it broke\nTraceback",
     "_SYSTEMD_INVOCATION_ID": "a1"},
    {"__REALTIME_TIMESTAMP": "1767229200000000", "PRIORITY": "4", "MESSAGE": [87, 65, 82, 78, 255],
     "_SYSTEMD_INVOCATION_ID": "b2"},
    {"__REALTIME_TIMESTAMP": "not a time", "MESSAGE": "skipped"},
]


PAST_THE_EDGE = """(width) => [...document.querySelectorAll('body *')].filter((node) => !node.closest('.scroll') && (
  node.getBoundingClientRect().right + scrollX > width || (getComputedStyle(node).overflowX === 'visible'
  && node.getBoundingClientRect().left + node.scrollWidth + scrollX > width)))
  .slice(-3).map((node) => `${node.tagName.toLowerCase()}${node.id ? '#' + node.id : ''}`).join(', ')"""
"""The innermost boxes, or words, past the screen's edge (outside a box that scrolls), to say which."""


def staff_login(page, base: str, pin: str = STAFF_PIN) -> None:
    """Open the staff page at ``base`` in ``page`` and log in as the staff do."""
    page.goto(f"{base}/staff")
    page.fill("#pin", pin)
    page.click("#login button")


def open_night(page, base: str, pin: str, name: str, tables: str, choices: dict[str, str] | None = None) -> None:
    """``staff_login``, then a night named ``name`` on ``tables`` opened from the staff page's form,
    ``choices`` (a select's CSS selector: the value picked) set first, as the staff open one."""
    from playwright.sync_api import expect

    staff_login(page, base, pin)
    expect(page.locator("#night-state")).to_have_text("no night is open", timeout=30_000)  # its first fetches, on a loaded machine
    page.fill("#night-name", name)
    page.fill("#night-tables", tables)
    for select, value in (choices or {}).items():
        page.select_option(select, value)
    page.click("#night-open button[type=submit]")
    expect(page.locator("#night-state")).to_have_text(name)


def owner_login(page, base: str) -> None:
    """``staff_login``, then the owner's actions unlocked with the passphrase, as the owner does."""
    staff_login(page, base)
    page.wait_for_selector("#desk:visible")
    page.fill("#owner-passphrase", OWNER_PASSPHRASE)
    page.click("#owner-form button")
    owner_unlocked(page)


def owner_unlocked(page) -> None:
    """The page shows the owner's actions unlocked, as it has read them: "Lock them again" shows
    from the page's start, so it alone proves nothing; the passphrase's form hides only once the
    page has read that they are unlocked."""
    from playwright.sync_api import expect

    expect(page.locator("#owner-form")).to_be_hidden()
    expect(page.locator("#owner-end")).to_be_visible()


STAFF_CONFIG = ('[web]\nhost = "127.0.0.1"\nport = 0\n[paths]\njournal_dir = "journal"\nsocket = "control.sock"\n'
                'socket_group = ""\n[timer]\n# the café likes a slow game\nlength_s = 0\n')


def dealt_key(seed: int = 5) -> str:
    rules = Rules()
    return make_game(rules).deal(random.Random(seed)).cells


def staff_page(desk, folder, instead=None, **settings):
    """The staff page as the daemon makes it, with every section registered (web.sections), on the
    stand-in table ``desk`` (``daemon.staff_desk.FakeDesk``): each section given its stand-in, or
    ``instead``'s by its name."""
    from pi_table.daemon.staff_parts import stand_in_page  # aiohttp: loaded by the tests of the pages alone

    return stand_in_page(desk, folder, instead, **settings)


SHORTCUTS = {
    "service_daemon": "systemd's part (the unit's sandbox, its watchdog and restarts: a test passes a notifier "
                      "for those it times) and the process of its own, to reach the table's objects from the test; "
                      "every start-up check of `pi-table run --config FILE` is made (daemon.run.starting)",
}
"""The helpers that start a table some other way than the service does, each with what it leaves
out and why (issue 37: a start-up check the tests skipped hid a table that could not start).
Every other test starts one with `pi-table run --config FILE` (StaffService, FakeSystemd) or
through these; tests/test_startup.py holds the list to what the tests' code does."""


def service_daemon(config: Path, hal: str = "sim", checked=None, **devices):
    """The daemon as ``pi-table run --config CONFIG --hal HAL`` makes it, in this process (see
    ``SHORTCUTS``): the configuration after the service's start-up checks, a trial counted.
    ``checked()``: what happens after the checks and before the table is made (a file goes missing)."""
    from pi_table.daemon.run import Daemon, starting

    passed, under_trial = starting(config)
    if checked is not None:
        checked()
    return Daemon(passed, hal, under_trial=under_trial, **devices)


class InProcessDaemon:
    """The daemon in this process on a configuration file (simulated devices), its loop in a
    thread and its phones' pages open: for what HTTP cannot time or see."""

    def __init__(self, config: Path) -> None:
        self.daemon = service_daemon(config)
        self.daemon.start()
        self.runner = threading.Thread(target=self.daemon.run, daemon=True)
        self.runner.start()
        assert self.daemon.wait_for_phones()  # the companion opens once the table is up
        assert self.daemon.companion is not None

    def close(self) -> None:
        self.daemon.stop()
        self.runner.join(timeout=5)
        self.daemon.close()
        assert not self.runner.is_alive()


class BoardTable:
    """The daemon in this process on simulated devices but the emulated touch board (``emulator``,
    started), its phones' pages open and a PIN set; ``key``: the game dealt on it, else a new one."""

    def __init__(self, folder: Path, emulator, key: str | None = None, lang: str = "en") -> None:
        from pi_table.kinds import SerialDevice
        from pi_table.table import Session
        from pi_table.web.staff import set_pin

        self.config = folder / "config.toml"
        self.config.write_text(STAFF_CONFIG + f'[game]\nlanguage = "{lang}"\n')
        if key is not None:
            rules = Rules()
            Session(rules, key=make_game(rules).parse_key(key), journal_dir=folder / "journal").close()
        set_pin(folder / "journal", STAFF_PIN)
        self.daemon = service_daemon(self.config, touch_port=SerialDevice.parse(str(emulator.link)))
        self.daemon.start()
        self.runner = threading.Thread(target=self.daemon.run, daemon=True)
        self.runner.start()
        assert self.daemon.wait_for_phones() and self.daemon.companion is not None
        self.base = self.daemon.companion.base_url
        wait_for(lambda: self.daemon.devices.touch.connected, "the emulated board's hello")

    def staff(self, lang: str = "en") -> Staff:
        staff = Staff(self.base, lang)
        assert staff.login()[0] == 200
        return staff

    def close(self) -> None:
        self.daemon.stop()
        self.runner.join(timeout=5)
        self.daemon.close()


class RestartedAsTheServiceIs:
    """For a state machine that runs one table in this process as ``pi-table run`` does
    (``service_daemon``, every start-up check on) in ``folder`` on ``config``: ``start`` and
    ``stop`` it; ``settle`` does what systemd and a patient owner do meanwhile: a table that ended
    itself to restart (a change, a restore, a trial rolled back) is started again, and a change on
    trial is given its time to be kept or rolled back. ``restarted`` is told after each such start;
    ``looked_at`` sees the settings each wait found. The staff's restarts are forgotten at each
    start, as two quiet minutes would forget them: a machine restarts faster than a café does."""

    folder: Path
    config: Path
    daemon = None

    def start(self) -> None:
        (self.folder / "journal/staff.restarts").unlink(missing_ok=True)
        self.daemon = service_daemon(self.config)
        self.daemon.start()
        self.runner = threading.Thread(target=self.daemon.run, daemon=True)
        self.runner.start()
        assert self.daemon.wait_for_phones()
        if self.daemon.companion is not None:  # none on a trial that turned the pages off: it rolls back
            self.base = self.daemon.companion.base_url

    def stop(self) -> None:
        if self.daemon is not None:
            self.daemon.stop()
            self.runner.join(timeout=10)
            self.daemon.close()
            assert not self.runner.is_alive()
            self.daemon = None

    def settle(self) -> None:
        from pi_table.config import load_config, trial
        from pi_table.daemon import backup

        deadline = time.monotonic() + 90
        while True:
            assert self.daemon is not None
            if self.daemon.restarting or not self.runner.is_alive():
                self.runner.join(timeout=15)
                self.stop()
                self.start()
                self.restarted()
                continue
            checked = load_config(self.config)
            self.looked_at(checked)
            if trial.pending_trial(self.config) is None and backup.pending(checked) is None:
                return
            assert time.monotonic() < deadline, "a change on trial was neither kept nor rolled back"
            time.sleep(0.2)

    def restarted(self) -> None:
        """The table started again (``base``: its pages' address now)."""

    def looked_at(self, config) -> None:
        """The settings in the file as ``settle`` found them."""


class StaffTable(InProcessDaemon):
    """The daemon in this process, with a game on a known key, a PIN and an owner's passphrase
    (none, without ``owner``); ``extra`` ends its configuration (a section of the test's own)."""

    def __init__(self, folder: Path, key: str, lang: str = "en", extra: str = "", owner: bool = True) -> None:
        from pi_table.table import Session
        from pi_table.web.roles import set_passphrase
        from pi_table.web.staff import set_pin

        self.folder, self.key = folder, key
        self.config = folder / "config.toml"
        self.config.write_text(STAFF_CONFIG + f'[game]\nlanguage = "{lang}"\n' + extra)
        rules = Rules()
        Session(rules, key=make_game(rules).parse_key(key), journal_dir=folder / "journal").close()
        set_pin(folder / "journal", STAFF_PIN)
        if owner:
            set_passphrase(folder / "journal", OWNER_PASSPHRASE)
        super().__init__(self.config)
        assert self.daemon.companion is not None  # for the type checker: the base class saw it open
        self.base = self.daemon.companion.base_url

    def guess(self, cell: int) -> None:
        loop = self.daemon.loop
        assert loop.call(lambda: loop.submit(Guess(cell))).ok


def restarted(table: StaffTable) -> InProcessDaemon:
    """The table that ended itself to restart, started again as systemd does."""
    wait_for(lambda: not table.runner.is_alive(), "the table ending itself to restart", 15)
    table.close()
    (table.folder / "journal/staff.restarts").unlink(missing_ok=True)
    return InProcessDaemon(table.config)


def again(staff: Staff, table: InProcessDaemon) -> Staff:
    """The same phone (its cookies, its token) on the table started again, wherever it listens now."""
    assert table.daemon.companion is not None
    staff.base = table.daemon.companion.base_url
    return staff


def run_first_boot(config: Path) -> subprocess.CompletedProcess:
    """The root helper's first-boot act, as the image's unit runs it (there as root; here as
    whoever runs the test, its files left to them)."""
    return subprocess.run([sys.executable, "-I", "-m", "pi_table.release.helper", "--user", "", "first-boot",
                           "--config", str(config)], capture_output=True, text=True, timeout=60)


def this_machines_address() -> str:
    """An address of this machine on a network (not loopback), which a request from it comes from
    as a phone's would: the one the default route leaves by."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))
        address = probe.getsockname()[0]
    finally:
        probe.close()
    assert not address.startswith("127."), "this machine has no address on a network to play a phone from"
    return address


def plain(address: str, port: int, method: str, path: str, body: object = None) -> tuple[int, dict, bytes]:
    """A request over plain http, as a phone on the café's Wi-Fi sends it: redirects not followed."""
    connection = http.client.HTTPConnection(address, port, timeout=10)
    try:
        data = None if body is None else json.dumps(body).encode()
        connection.request(method, path, body=data, headers={"Content-Type": "application/json"} if data else {})
        answer = connection.getresponse()
        return answer.status, dict(answer.headers), answer.read()
    finally:
        connection.close()


class StaffService:
    """``pi-table run`` under the fake systemd, restarted as the unit restarts it, its PIN and
    owner's passphrase set by their commands, with a staff phone that finds the companion
    wherever it listens after each start."""

    def __init__(self, tmp_path: Path, config: str = STAFF_CONFIG, cafile: Path | None = None,
                 first_boot: bool = False) -> None:
        """``first_boot``: a table fresh from the SD image, whose first boot the image's unit ran
        (docs/dev/first-boot.md): no PIN nor passphrase, its set-up waiting."""
        self.folder, self.cafile = tmp_path, cafile
        self.config = tmp_path / "config.toml"
        self.config.write_text(config)
        if first_boot:
            done = run_first_boot(self.config)
            assert done.returncode == 0, done.stderr
        for command, secret in () if first_boot else (("set-staff-pin", STAFF_PIN),
                                                      ("set-owner-passphrase", OWNER_PASSPHRASE)):
            done = subprocess.run([sys.executable, "-m", "pi_table", command, "--config", str(self.config)],
                                  input=f"{secret}\n", capture_output=True, text=True, timeout=30)
            assert done.returncode == 0, done.stderr
        self.systemd: FakeSystemd | None = None

    def start(self) -> None:
        from pi_table.sim.systemd import FakeSystemd

        self.systemd = FakeSystemd(["--hal", "sim", "--config", str(self.config)])
        self.systemd.start()

    def status(self) -> dict:
        answer = pi_table("status", "--json", "--config", str(self.config))
        assert answer.returncode == 0, answer.stderr
        return json.loads(answer.stdout)

    def staff(self, owner: bool = False) -> Staff:
        """A staff phone logged in, acting as the owner too if ``owner``."""
        staff = Staff(self.status()["companion"], cafile=self.cafile)
        assert staff.login()[0] == 200
        if owner:
            staff.as_owner()
        return staff

    def exited(self, timeout: float = 20) -> int:
        assert self.systemd is not None and self.systemd.process is not None
        code = self.systemd.process.wait(timeout=timeout)
        self.systemd.close()
        return code

    def log(self) -> str:
        return "" if self.systemd is None else self.systemd.log.read_text(errors="replace")

    def close(self) -> None:
        if self.systemd is not None:
            self.systemd.close()


# --- release bundles, as pi-table bundle writes them -----------------------------------------------

BUNDLE_SECRET = "the-contents-nobody-may-see"
"""What the stand-in wheels hold: no refusal may show it."""


def bundle_wheels(version: str) -> dict[str, bytes]:
    return {f"pi_table-{version}-py3-none-any.whl": f"# {BUNDLE_SECRET} {version}\n".encode(),
            "segno-1.6.6-py3-none-any.whl": b"segno's wheel\n"}


def signed_bundle(path: Path, key: Path | None, version: str = "0.2.0", wheels_version: str | None = None,
                  **manifest_changes) -> Path:
    """A bundle as pi-table bundle writes one (its wheels stand-ins: the helper never opens them),
    signed with ``key`` (None: not signed); its pi-table wheel ``wheels_version`` (``version``'s)."""
    import hashlib
    import tarfile

    from pi_table.release import bundle, keys

    wheels = bundle_wheels(wheels_version or version)
    manifest = {"format": bundle.FORMAT, "name": "pi-table", "version": version, "commit": "0" * 40, "target": "pi",
                "made": 1.0, "files": {f"wheels/{name}": hashlib.sha256(data).hexdigest() for name, data in wheels.items()},
                **manifest_changes}
    data = json.dumps(manifest).encode()
    with tarfile.open(path, "w:gz") as out:
        bundle._add(out, bundle.MANIFEST, data, 1.0)
        if key is not None:
            bundle._add(out, bundle.SIGNATURE, keys.sign(data, key), 1.0)
        for name, content in wheels.items():
            bundle._add(out, f"wheels/{name}", content, 1.0)
    return path


# --- the first boot: NetworkManager played by a fake nmcli ------------------------------------

FAKE_NMCLI = ROOT / "tests" / "fake_nmcli.py"


class FakeNetworkManager:
    """A fake ``nmcli`` first on PATH (for this process and the tables it starts), playing
    NetworkManager from a small model (tests/fake_nmcli.py): ``networks`` in reach, each
    ``(ssid, password)`` ("" for an open one); ``calls()`` are the arguments nmcli was given."""

    def __init__(self, folder: Path, monkeypatch, networks: tuple[tuple[str, str], ...] = ()) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        program = folder / "nmcli"
        program.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(FAKE_NMCLI))} "$@"\n')
        program.chmod(0o755)
        self.write({"radio": "off", "profiles": {}, "active": [],
                    "networks": [{"ssid": ssid, "password": password, "signal": 70 - 10 * n}
                                 for n, (ssid, password) in enumerate(networks)]})
        (folder / "calls.jsonl").write_text("")
        monkeypatch.setenv("FAKE_NM_DIR", str(folder))
        monkeypatch.setenv("PATH", f"{folder}:{os.environ['PATH']}")

    @property
    def state(self) -> dict:
        return json.loads((self.folder / "state.json").read_text())

    def write(self, state: dict) -> None:
        (self.folder / "state.new").write_text(json.dumps(state))
        os.replace(self.folder / "state.new", self.folder / "state.json")

    def on_wifi(self, ssid: str, name: str = "preconfigured") -> None:
        """Connected to ``ssid`` by a profile made before (Raspberry Pi Imager's is "preconfigured")."""
        state = self.state
        password = next(seen["password"] for seen in state["networks"] if seen["ssid"] == ssid)
        state["radio"] = "on"
        state["profiles"][name] = {"type": "802-11-wireless", "device": "wlan0", "ssid": ssid, "password": password}
        state["active"].append(name)
        self.write(state)

    def cabled(self) -> None:
        """The table on the café's network by its cable: NetworkManager's own profile, an automatic address."""
        state = self.state
        state["profiles"]["Wired connection 1"] = {"type": "802-3-ethernet", "device": "eth0",
                                                   "address": "192.168.1.37/24",
                                                   "ipv4": {"method": "auto", "addresses": "", "gateway": "", "dns": ""}}
        state["active"].append("Wired connection 1")
        state["hostname"] = "raspberrypi"
        self.write(state)

    def calls(self) -> list[list[str]]:
        return [json.loads(line) for line in (self.folder / "calls.jsonl").read_text().splitlines()]

    def active(self) -> list[str]:
        return self.state["active"]


# --- the café's broker: the documented Mosquitto configuration, over TLS, a user per table ----------

MOSQUITTO_DOCS = ROOT / "pi_table" / "fleet" / "mosquitto"  # the shipped files (docs/fleet/mosquitto/ shows a copy)
BROKER_USERS = {"t1": "table-one-secret", "t2": "table-two-secret", "dashboard": "dashboard-secret",
                "staff": "staff-secret"}


def openssl(*args: str, cwd: Path) -> None:
    done = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr


def broker_ca(folder: Path) -> None:
    """A CA, and the broker's certificate for 127.0.0.1 signed by it (P-256 keys: quick)."""
    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *key, "-keyout", "ca.key", "-out", "ca.crt", "-subj", "/CN=pi-table test CA", "-days", "1",
            cwd=folder)
    openssl("req", *key, "-keyout", "broker.key", "-out", "broker.csr", "-subj", "/CN=127.0.0.1", cwd=folder)
    (folder / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "broker.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "broker.crt", "-days", "1", "-extfile", "san.ext", cwd=folder)


def start_cafe(folder: Path, client_certificates: bool = False, users: dict[str, str] = BROKER_USERS):
    """Mosquitto with the documented configuration, its paths and port swapped for the test's, a
    user for each of ``users`` (name: password); with ``client_certificates``, the documented
    lines for them uncommented. The broker (a LocalBroker) and its TLS port."""
    from pi_table.fleet.broker import LocalBroker, free_port, mosquitto  # the fleet's tests alone

    require_tools("openssl", "mosquitto_passwd", also_missing=() if mosquitto() else ("mosquitto",))
    broker_ca(folder)
    passwd = folder / "pi-table.passwd"
    for number, (user, password) in enumerate(users.items()):
        made = subprocess.run(["mosquitto_passwd", "-b", *(["-c"] if number == 0 else []), str(passwd), user, password],
                              capture_output=True, text=True, timeout=30)
        assert made.returncode == 0, made.stderr
    acl = folder / "pi-table.acl"
    acl.write_text((MOSQUITTO_DOCS / "pi-table.acl").read_text())
    port = free_port()
    settings = (MOSQUITTO_DOCS / "pi-table.conf").read_text()
    swaps = {
        "password_file /etc/mosquitto/pi-table.passwd": f"password_file {passwd}",
        "acl_file /etc/mosquitto/pi-table.acl": f"acl_file {acl}",
        "listener 8883": f"listener {port} 127.0.0.1",
        "certfile /etc/mosquitto/certs/broker.crt": f"certfile {folder / 'broker.crt'}",
        "keyfile /etc/mosquitto/certs/broker.key": f"keyfile {folder / 'broker.key'}",
    }
    if client_certificates:
        swaps |= {"#cafile /etc/mosquitto/certs/pi-table-ca.crt": f"cafile {folder / 'ca.crt'}",
                  "#require_certificate true": "require_certificate true",
                  "#use_identity_as_username true": "use_identity_as_username true"}
    for documented, here in swaps.items():
        assert documented in settings, f"the documented configuration no longer says {documented!r}"
        settings = settings.replace(documented, here)
    broker = LocalBroker(folder / "broker", settings)  # its own plain listener too, under the same users
    broker.start()
    return broker, port


# --- Debian's security updates: dpkg, unattended-upgrade and systemctl played by scripts ---------

BEFORE = "openssl:arm64\t3.0.11-1~deb12u2\nlibc6:arm64\t2.36-9+deb12u4\nbase-files:arm64\t12.4+deb12u5\n"
PATCHED = "openssl:arm64\t3.0.15-1~deb12u1\nlibc6:arm64\t2.36-9+deb12u9\nbase-files:arm64\t12.4+deb12u5\n"


def program(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return str(path)


class DebianMachine:
    """A Debian system in ``folder``: its dpkg database as dpkg-query prints it, an
    unattended-upgrade that patches it (and leaves the reboot flag), systemctl and the table's
    status, each noting its calls."""

    def __init__(self, folder: Path, patched: str = PATCHED, upgrade_exit: int = 0, healthy: bool = True,
                 reboot: bool = True) -> None:
        from pi_table.release import helper  # the root helper's: loaded by the tests that play it
        from pi_table.release.keys import Keyring
        from pi_table.release.layout import Releases
        from pi_table.release.service_user import ServiceUser

        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.db = folder / "dpkg"
        self.db.write_text(BEFORE)
        (folder / "patched").write_text(patched)
        self.flag = folder / "run" / "reboot-required"
        self.flag.parent.mkdir()
        calls = folder / "calls"
        self.calls = calls
        query = program(folder / "dpkg-query", f"""\
            echo "dpkg-query $*" >> {calls}
            while read -r package version; do printf 'ii \\t%s\\t%s\\n' "$package" "$version"; done < {self.db}
            """)
        flag = f'echo "libc6" > {self.flag}.pkgs; touch {self.flag}' if reboot else ":"
        upgrade = program(folder / "unattended-upgrade", f"""\
            echo "unattended-upgrade $*" >> {calls}
            if [ {upgrade_exit} -ne 0 ]; then echo "E: Could not get lock /var/lib/dpkg/lock-frontend" >&2; exit {upgrade_exit}; fi
            cp {folder / "patched"} {self.db}
            {flag}
            """)
        systemctl = program(folder / "systemctl", f'echo "systemctl $*" >> {calls}\n')
        answer = json.dumps({"version": "1.4.0", "healthy": {"ok": healthy}})
        self.status = [program(folder / "status", f"echo '{answer}'\n")]
        self.helper = helper.Helper(Releases(folder / "home"), Keyring(folder / "no-keys"), ServiceUser(None),
                                    (systemctl,), upgrade=(upgrade, "-v"), dpkg_query=(query,), reboot_flag=self.flag)

    def called(self) -> list[str]:
        return self.calls.read_text().splitlines() if self.calls.exists() else []


# --- the café's broker on a table: Mosquitto's unit played by a fake systemctl ----------------

FAKE_SYSTEMCTL = ROOT / "tests" / "fake_systemctl.py"


class MosquittoUnit:
    """mosquitto.service as the root helper sees it on a table (tests/fake_systemctl.py): a real
    Mosquitto started on the files the helper writes into ``etc`` (its /etc/mosquitto), on a
    port of the test's own; ``broker`` is the helper's Mosquitto with this unit."""

    def __init__(self, folder: Path) -> None:
        from pi_table.fleet.broker import free_port, mosquitto

        require_tools("openssl", also_missing=() if mosquitto() else ("mosquitto",))
        self.folder, self.etc, self.port = folder, folder / "etc", free_port()
        self.etc.mkdir(parents=True)
        (folder / "port").write_text(str(self.port))
        self.systemctl = (sys.executable, str(FAKE_SYSTEMCTL), str(folder))

    @property
    def broker(self):
        from pi_table.release.broker import Broker

        return Broker(self.etc, self.systemctl, self.port)

    def calls(self) -> list[str]:
        path = self.folder / "calls"
        return path.read_text().splitlines() if path.exists() else []

    def running(self) -> bool:
        return subprocess.run([*self.systemctl, "is-active", "mosquitto.service"], capture_output=True).returncode == 0

    def log(self) -> str:
        path = self.folder / "mosquitto.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def started(self) -> list[int]:
        """Every Mosquitto this unit started, in order (the last one runs while ``running()``)."""
        path = self.folder / "started"
        return [int(pid) for pid in path.read_text().split()] if path.exists() else []

    def cpu_share(self, seconds: float = 2.0) -> float:
        """The share of one core the running Mosquitto used over ``seconds`` (1.0: a core, busy)."""
        pid = self.started()[-1]

        def ticks() -> int:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            return int(fields[11]) + int(fields[12])  # utime, stime

        before, since = ticks(), time.monotonic()
        time.sleep(seconds)
        return (ticks() - before) / os.sysconf("SC_CLK_TCK") / (time.monotonic() - since)

    def close(self) -> None:
        """Mosquitto stopped; AssertionError naming any it started that still runs (a test's processes end with it)."""
        subprocess.run([*self.systemctl, "stop", "mosquitto.service"], capture_output=True, check=False)
        alive = [pid for pid in self.started() if Path(f"/proc/{pid}").exists() and Path(
            f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"]
        assert not alive, f"the Mosquitto of {self.folder} still runs after its stop: {alive}"


def packed(members: list[tuple[tarfile.TarInfo, bytes]], manifest: dict | None = None, extra: bytes = b"") -> bytes:
    """A .tar.gz of ``members`` with a manifest that lists the regular ones (or ``manifest``)."""
    listed = {info.name: {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()} for info, data in members
              if info.isreg()}
    body = json.dumps(manifest or {"format": "pi-table backup", "version": 1, "files": listed}).encode()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.addfile(member("manifest.json", len(body)), io.BytesIO(body))
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buffer.getvalue() + extra


def member(name: str, size: int = 0, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size, info.type, info.linkname = size, kind, link
    return info


def regular(name: str, data: bytes = b"x") -> tuple[tarfile.TarInfo, bytes]:
    return member(name, len(data)), data


def repacked(data: bytes, change) -> bytes:
    """``data``'s members as ``change(name, bytes)`` leaves them (None: left out), in a new .tar.gz."""
    out = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(data)) as source, tarfile.open(fileobj=out, mode="w:gz") as archive:
        for info in source.getmembers():
            extracted = source.extractfile(info)
            changed = change(info.name, extracted.read() if extracted else b"")
            if changed is not None:
                info.size = len(changed)
                archive.addfile(info, io.BytesIO(changed))
    return out.getvalue()


def fix_manifest(data: bytes) -> bytes:
    """``data`` with its manifest made to match its files again (as someone who edited it would)."""
    with tarfile.open(fileobj=io.BytesIO(data)) as source:
        bodies = {info.name: source.extractfile(info).read() for info in source.getmembers()}  # type: ignore[union-attr]
    del bodies["manifest.json"]
    return packed([regular(name, body) for name, body in bodies.items()])


def download(staff: Staff, path: str) -> bytes:
    request = urllib.request.Request(staff.base + path, headers={"X-Staff-Token": staff.csrf or ""})
    with staff.opener.open(request, timeout=30) as answer:
        return answer.read()


def upload(staff: Staff, path: str, data: bytes) -> tuple[int, dict]:
    """A file from the phone as the request's body, as the staff page's care.js sends it."""
    request = urllib.request.Request(staff.base + path, data=data, method="POST", headers={
        "X-Staff-Token": staff.csrf or "", "Content-Type": "application/gzip"})
    try:
        with staff.opener.open(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def guess_from(page, addresses: list[str], tries: int, pin: str = "000000") -> list[int]:
    """``tries`` logins with ``pin`` from each of ``addresses``: their statuses."""
    statuses = []
    for address in addresses:
        for _ in range(tries):
            connection = http.client.HTTPConnection("127.0.0.1", page.port, timeout=10, source_address=(address, 0))
            connection.request("POST", "/staff/login", body=json.dumps({"pin": pin}))
            statuses.append(connection.getresponse().status)
            connection.close()
    return statuses


# the staff's https on the network, http for this machine and the guests
ON_THE_NETWORK = STAFF_CONFIG.replace('host = "127.0.0.1"\nport = 0\n', 'host = "0.0.0.0"\nport = 0\ntls_port = 0\n')


# --- a game night's tables, as the night's tests play them ------------------------------------


def heard(recorder: Recorder) -> dict:
    """The host's plan as a follower reads it off the broker: JSON, through the declared schema."""
    from pi_table.fleet import schema

    plan = recorder.plan()
    assert plan is not None
    return schema.parse("plan", json.dumps(plan).encode())  # type: ignore[return-value]


def played_at(recorder: Recorder, seed: int = 1) -> NightGame | None:
    """A game played to its end at the recorder's table by random touches, and what it records."""
    from pi_table.table.session import Session

    rng = random.Random(seed)
    session = Session(Rules(), rng=rng)
    recorder.untouched(session.id)  # dealt in the night, as the table's loop sees it on a wake
    while not session.state.is_over:
        board = str(session.public_view().to_json()["board"])
        session.submit(Guess(rng.choice([cell for cell, seen in enumerate(board) if seen == "?"])))
    return recorder.seen(session.id, lambda: session.public_view().to_json())


def part(daemon, section: str):
    """The part of ``daemon``'s table its staff page gave the section named ``section`` (``daemon.staff_parts``)."""
    return next(made for made in daemon.companion.staff.sections if made.name == section).table


# --- the set-up page's phones and a fresh table in this process (test_setup_page, test_setup_from_stick) ---


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def call(base: str, method: str, path: str, body: object = None, headers: dict | None = None) -> tuple[int, object, dict]:
    """A phone's request, redirects not followed: its status, JSON (or text) and headers."""
    request = urllib.request.Request(base + path, method=method, headers={"Content-Type": "application/json",
                                                                           **(headers or {})},
                                     data=None if body is None else json.dumps(body).encode())
    try:
        with urllib.request.build_opener(NoRedirect).open(request, timeout=20) as answer:
            status, raw, got = answer.status, answer.read(), dict(answer.headers)
    except urllib.error.HTTPError as e:
        status, raw, got = e.code, e.read(), dict(e.headers)
    try:
        return status, json.loads(raw), got
    except ValueError:
        return status, raw.decode(errors="replace"), got


def daemon_staff(daemon):
    assert daemon.companion is not None and daemon.companion.staff is not None
    return daemon.companion.staff


class PathUnit:
    """pi-table-helper.path played by a thread: whenever a request waits in ``spool``, ``act()``
    takes it, as the root helper's unit does."""

    def __init__(self, spool: Path, act: Callable[[], object]) -> None:
        from pi_table.release import requests

        self._stop = threading.Event()

        def watch() -> None:
            while not self._stop.wait(0.05):
                if (spool / requests.REQUEST).exists():
                    act()

        self._thread = threading.Thread(target=watch, name="path-unit", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


class FreshTable:
    """A fresh table in this process (its first boot run), the root helper played by a thread
    that does each request as pi-table-helper.path and .service do, on a fake NetworkManager."""

    def __init__(self, tmp_path: Path, monkeypatch, nm: FakeNetworkManager) -> None:
        from pi_table.release import helper
        from pi_table.release.keys import Keyring
        from pi_table.release.layout import Releases
        from pi_table.release.service_user import ServiceUser

        self.folder, self.nm = tmp_path, nm
        self.config = tmp_path / "config.toml"
        self.config.write_text(STAFF_CONFIG)
        assert run_first_boot(self.config).returncode == 0
        self.daemon = service_daemon(self.config)
        boot = self.daemon.first_boot
        assert boot is not None
        boot.poll_s, boot.grace_s = 3600.0, 3600.0  # the test looks itself, once its helper is in place
        self.daemon.start()
        self.runner = threading.Thread(target=self.daemon.run, daemon=True)
        self.runner.start()
        assert self.daemon.wait_for_phones()
        desk = self.daemon.helper
        assert desk is not None
        self.spool = desk.spool = tmp_path / "requests"
        desk.helper_missing = lambda: None
        zone = tmp_path / "timedatectl"
        zone.write_text(f'#!/bin/sh\necho "$@" >> {tmp_path / "zone-calls"}\n')
        zone.chmod(0o755)
        home = tmp_path / "opt"
        self.acts = helper.Helper(Releases(home), Keyring(tmp_path / "keys"), ServiceUser(None), timedatectl=(str(zone),),
                                  config=self.config)
        boot.home = home  # the root helper's notes: its last act, the networks it saw
        staff = daemon_staff(self.daemon)
        next(section for section in staff.sections if section.name == "wifi").home = home  # type: ignore[attr-defined]
        self._path_unit = PathUnit(self.spool, self.act)

    def act(self) -> None:
        """The request waiting in the spool, acted on as the helper's unit does."""
        from pi_table.release import helper

        helper.act(self.acts, self.spool)

    @property
    def boot(self):
        assert self.daemon.first_boot is not None
        return self.daemon.first_boot

    def shown(self):
        return self.daemon.devices.screen.screen.screen.models[-1]  # the companion's, the set-up's, the sim's

    def close(self) -> None:
        self._path_unit.stop()
        self.daemon.stop()
        self.runner.join(timeout=5)
        self.daemon.close()


# --- a USB stick and the root helper's stand-ins for it (test_stick, test_notices, the set-up from a stick) ---

USB_STICK = {"name": "sdb", "path": "/dev/sdb", "type": "disk", "tran": "usb", "rm": True, "hotplug": True,
             "fstype": None, "label": None, "mountpoint": None,
             "children": [{"name": "sdb1", "path": "/dev/sdb1", "type": "part", "tran": None, "rm": True,
                           "hotplug": True, "fstype": "vfat", "label": "CAFE", "mountpoint": None}]}


def lsblk_listing(*disks) -> str:
    """What ``lsblk --json`` prints of ``disks``."""
    return json.dumps({"blockdevices": list(disks)})


class StickMachine:
    """A table's folders and the stick's stand-ins: ``lsblk`` answers ``disks``, ``mount`` and
    ``umount`` note their calls; ``mounted`` (the fixed mount folder) stands for the stick."""

    def __init__(self, folder: Path, *disks: dict, mount_fails: bool = False) -> None:
        from pi_table.release import helper, stick
        from pi_table.release.keys import Keyring
        from pi_table.release.layout import Releases
        from pi_table.release.service_user import ServiceUser

        self.folder = folder
        self.calls = folder / "calls"
        answer = folder / "lsblk.json"
        answer.write_text(lsblk_listing(*disks))
        self.config = folder / "etc" / "config.toml"
        self.config.parent.mkdir()
        self.config.write_text('[paths]\njournal_dir = "/nonexistent"\n'.replace("/nonexistent", str(folder / "journal")))
        self.backups = folder / "backups"
        self.backups.mkdir()
        self.mounted = folder / "run" / "pi-table-stick"
        self.mounted.parent.mkdir()
        tools = stick.Tools(
            lsblk=(program(folder / "lsblk", f'echo "lsblk $*" >> {self.calls}\ncat {answer}\n'),),
            mount=(program(folder / "mount", f'echo "mount $*" >> {self.calls}\n'
                                             + ('echo "mount: wrong fs type" >&2; exit 32\n' if mount_fails else "")),),
            umount=(program(folder / "umount", f'echo "umount $*" >> {self.calls}\n'),),
            mount_dir=self.mounted)
        self.helper = helper.Helper(Releases(folder / "home"), Keyring(folder / "no-keys"), ServiceUser(None),
                                    config=self.config, stick=tools)

    def called(self) -> list[str]:
        return self.calls.read_text().splitlines() if self.calls.exists() else []

    def night(self, stamp: str, data: bytes = b"\x1f\x8b a backup") -> Path:
        path = self.backups / f"nightly-{stamp}.tar.gz"
        path.write_bytes(data)
        return path

    def note(self) -> dict | None:
        from pi_table.release import stick
        from pi_table.release.layout import act_note

        return self.helper.releases.note(act_note(stick.ACT))


def stick_holding(machine: StickMachine, **files: bytes) -> Path:
    """The stick (its mount folder) holding ``files`` in its backups folder."""
    on_stick = machine.mounted / "pi-table-backups"
    on_stick.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (on_stick / name).write_bytes(data)
    return on_stick


def old_table_backup(folder: Path) -> bytes:
    """A backup of a café's old table, as its nights wrote it to a stick: its settings (Italian) and its staff PIN."""
    from pi_table.config import load_config
    from pi_table.daemon import backup
    from pi_table.web.staff import set_pin

    (folder / "journal").mkdir(parents=True)
    (folder / "config.toml").write_text(STAFF_CONFIG + '[game]\nlanguage = "it"\n')
    set_pin(folder / "journal", STAFF_PIN)
    return backup.make(load_config(folder / "config.toml"))


# --- the café's broker on a table, its staff page and its root helper (test_broker_page.py, test_league.py) --


class Cafe:
    """A table in this process on the staff page, whose root helper (the test's call of
    ``helper.act``) sets up a real Mosquitto; ``restarted`` starts the table again as systemd does
    after it ended itself to try its new settings."""

    def __init__(self, folder: Path, extra: str = "") -> None:
        from pi_table.release import helper
        from pi_table.release.keys import Keyring
        from pi_table.release.layout import Releases
        from pi_table.release.service_user import ServiceUser

        (folder / "table").mkdir()
        self.folder, self.unit = folder, MosquittoUnit(folder / "unit")
        self.spool, self.home = folder / "spool", folder / "home"
        self.helper = helper.Helper(Releases(self.home), Keyring(folder / "keys"), ServiceUser(None),
                                    mosquitto=self.unit.broker)
        self.table: InProcessDaemon = StaffTable(folder / "table", dealt_key(), extra=extra)
        self.config = folder / "table" / "config.toml"
        self._wire()

    def _wire(self) -> None:
        daemon = self.table.daemon
        assert daemon.helper is not None
        daemon.helper.spool, daemon.helper.helper_missing = self.spool, lambda: None
        desk = part(daemon, "broker")  # the section's part of the table
        desk.home, desk.etc, desk.port = self.home, self.unit.etc, self.unit.port

    def staff(self) -> Staff:
        assert self.table.daemon.companion is not None
        staff = Staff(self.table.daemon.companion.base_url)
        staff.login()
        staff.as_owner()
        return staff

    def helper_acts(self) -> int:
        from pi_table.release import helper

        return helper.act(self.helper, self.spool)

    def restarted(self) -> None:
        """The table ended itself to try the broker's settings: started again on them."""
        wait_for(lambda: not self.table.runner.is_alive(), "the table ending itself to restart", 15)
        self.table.close()
        (self.folder / "table/journal/staff.restarts").unlink(missing_ok=True)
        self.table = InProcessDaemon(self.config)
        self._wire()

    def close(self) -> None:
        self.table.close()
        self.unit.close()


def settled(staff: Staff) -> dict:
    """The broker's view once the change asked has been settled by the helper's note."""
    seen: dict = {}

    def done() -> bool:
        seen.update(staff.call("GET", "/staff/api/broker")[1])
        return seen["pending"] is None

    wait_for(done, "the change settled", 15)
    return seen


def connected(url: str, ca: Path, table_id: str = "", topics: tuple[str, ...] = (), heard=None):
    """A raw client of the café's broker as the user in ``url`` (with its password), over TLS,
    subscribed to ``topics`` at every connection, their messages to ``heard``: the broker takes a
    user's client id from its name, so the table's own dashboard, the same user, takes the
    connection over now and then, and the client comes back on a new one."""
    from pi_table.config import broker as broker_config
    from pi_table.fleet import link

    settings = broker_config(url, ca=str(ca))
    client = link.client(settings, f"test-{time.monotonic_ns()}")
    up = threading.Event()

    def on_connect(c, u, flags, reason, properties) -> None:
        if reason.is_failure:
            return
        if topics:
            client.subscribe([(name, 1) for name in topics])
        else:
            up.set()

    def on_subscribe(c, u, mid, reasons, properties) -> None:
        up.set()  # the broker holds the subscriptions: what is published from now on reaches ``heard``

    client.on_connect, client.on_subscribe, client.on_message = on_connect, on_subscribe, heard
    client.connect(settings.host, settings.port)
    client.loop_start()
    wait_for(up.is_set, f"{settings.username} connected" + (" and subscribed" if topics else ""), 10)
    return client


# --- a league's nights: two cafés' host tables, as the league's tests and its pages' play them --------

LEAGUE_START = 1_795_000_000.0  # 2026-11-18, a café's evening


class CafeClock:
    """A café's clock: each look a minute on, so every night, round and game has its own time."""

    def __init__(self, start: float) -> None:
        self.ticks = count()
        self.start = start

    def __call__(self) -> float:
        return self.start + 60.0 * next(self.ticks)


def sent(night: Night, cafe: str, host: str) -> tuple[str, bytes]:
    """The topic and message a host table sends the league of its closed night, as JSON crosses the bridge."""
    message = record(night, cafe, host)
    assert message is not None
    return night_topic("spring", cafe, host, night.id), json.dumps(message).encode()


def two_cafes(tmp_path, rng: random.Random) -> tuple[dict[str, Book], list[tuple[str, str, Night]]]:
    """Two cafés' host tables, three nights each; two teams play in both cafés (one under another
    spelling, as names are compared: the same team)."""
    books = {"bar-roma": Book(tmp_path / "roma", clock=CafeClock(LEAGUE_START)),
             "bar-milano": Book(tmp_path / "milano", clock=CafeClock(LEAGUE_START + 30))}
    teams = {"bar-roma": ["Owls", "Zebras", "Foxes", "Moles", "Quiz Club"],
             "bar-milano": ["owls", "Zébras", "Lynx", "Herons", "Otters", "Badgers"]}
    tables = {"bar-roma": ["r1", "r2"], "bar-milano": ["m1", "m2", "m3"]}
    played = []
    for week in range(3):
        for cafe, book in books.items():
            night = play_night(book, tables[cafe], rng.sample(teams[cafe], len(teams[cafe]) - week % 2), 3, rng)
            played.append((cafe, tables[cafe][0], night))
    return books, played
