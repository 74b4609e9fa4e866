"""Every command an owner's or a player's page shows runs as written (issue 50: docs/cafe/try.md
broke at its second step, and its taps touched the wrong cards).

Each fenced ``sh`` block of docs/cafe and docs/play, in English and Italian, is either typed, line
by line, into terminals of a fresh checkout in a home folder of its own (an interactive bash on a
pty, as a desktop's terminal runs one) by the page's scenario below, or marked just above its
fence as needing a Raspberry Pi, with the reason: ``<!-- needs a Raspberry Pi: REASON -->``. The
fast tier checks that every block is one or the other; the scenarios make the checkout's
``.venv`` with pip and start the table, so they are in the ``tool`` and ``daemon`` tiers.

What a page asks in words rather than as a command (edit four lines of config.toml, log in on the
staff page, start the self-test) a scenario does as the page says, over the staff page's API."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import signal
import struct
import subprocess
import termios
import threading
import time
import tomllib
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers import ROOT, wait_for
from helpers_staff import OWNER_PASSPHRASE, STAFF_PIN, Staff

DOCS = ROOT / "docs"
PAGES = sorted([*DOCS.glob("cafe/*.md"), *DOCS.glob("play/*.md")])
NEEDS = re.compile(r"^<!-- needs a Raspberry Pi: (?P<reason>\S.*\S) -->$")
FENCE = re.compile(r"^( *)```(\w*)\n(.*?)^\1```$", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    language: str  # the fence's: sh, toml...
    text: str
    needs: str | None  # why it needs a Raspberry Pi; None: it runs here

    @property
    def commands(self) -> list[str]:
        return [line for line in self.text.splitlines() if line.strip()]


def blocks(page: Path) -> list[Block]:
    """The page's fenced blocks of shell and of settings, in order."""
    text = page.read_text(encoding="utf-8")
    found = []
    for fence in FENCE.finditer(text):
        if fence.group(2) not in ("sh", "toml"):
            continue
        before = text[: fence.start()].rstrip("\n").rsplit("\n", 1)[-1]
        needs = NEEDS.match(before)
        found.append(Block(str(page.relative_to(DOCS)), text.count("\n", 0, fence.start()) + 1, fence.group(2),
                           fence.group(3), needs.group("reason") if needs else None))
    return found


def shell_blocks(page: Path) -> list[Block]:
    return [block for block in blocks(page) if block.language == "sh"]


def english(page: Path) -> Path:
    return page.with_name(page.name.removesuffix(".it.md").removesuffix(".md") + ".md")


# --- the fast tier: every block runs or says why it cannot ------------------------------------------


def test_every_shell_block_of_the_owners_and_players_pages_runs_or_needs_a_pi_with_the_reason():
    unaccounted = [f"{block.page}:{block.line}" for page in PAGES for block in shell_blocks(page)
                   if block.needs is None and english(page).stem not in SCENARIOS]
    assert unaccounted == [], "give each a scenario here, or <!-- needs a Raspberry Pi: REASON --> above it"
    assert {page.stem for page in PAGES if any(b.needs is None for b in shell_blocks(page))} <= {
        *SCENARIOS, *(f"{name}.it" for name in SCENARIOS)}


def test_the_italian_pages_run_the_same_blocks_and_need_a_pi_for_the_same():
    for page in PAGES:
        if page.name.endswith(".it.md"):
            ours, theirs = shell_blocks(page), shell_blocks(english(page))
            assert [b.needs is None for b in ours] == [b.needs is None for b in theirs], page.name
            assert [len(b.commands) for b in ours] == [len(b.commands) for b in theirs], page.name


def test_a_block_that_needs_a_pi_says_why():
    marked = [block for page in PAGES for block in shell_blocks(page) if block.needs]
    assert marked, "the installer's own blocks need the Pi"
    for block in marked:
        assert len(block.needs) > 20, f"{block.page}:{block.line}: say why it needs the Pi"


def test_the_try_pages_game_night_starts_the_rounds_game_with_new_game_by_its_label_on_the_staff_page():
    """Issue 62, 6: step 5 never said that the round's game starts with New game (taps first go
    on with the free game already on the table, which the night does not count). Each language's
    page names the button as the staff page labels it in that language."""
    from pi_table.ui.i18n import translation

    for page in (DOCS / "cafe" / "try.md", DOCS / "cafe" / "try.it.md"):
        lang = "it" if page.name.endswith(".it.md") else "en"
        step = re.search(r"^## 5\..*?(?=^## 6\.)", page.read_text(encoding="utf-8"), re.DOTALL | re.MULTILINE)
        assert step, f"{page.name}: no step 5"
        label = translation(lang).gettext("New game")
        assert f"**{label}**" in step.group(0), f"{page.name}: step 5 does not name **{label}**"


# --- terminals -------------------------------------------------------------------------------------------

READY = re.compile(r"\[ready (\d+)\]\$ $")
ASKED = re.compile(r": $")  # a command asking something on the terminal (a PIN, a passphrase)


def _controlling_terminal() -> None:
    """In the child, after setsid: its pty becomes the session's terminal, and Ctrl+C and Ctrl+\\
    act, as in a terminal window's shell, whatever the test run inherited (a run started in the
    background by a script ignores SIGINT, and its children would too)."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    for number in (signal.SIGINT, signal.SIGQUIT):
        signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


class Terminal:
    """A terminal window: an interactive bash on a pty of its own. Its prompt, ``[ready STATUS]$``,
    says when a command has ended and how."""

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        self.master = master
        self.process = subprocess.Popen(
            ["bash", "--noprofile", "--norc", "--noediting", "-i"], stdin=slave, stdout=slave, stderr=slave,
            cwd=cwd, env={**env, "PS1": "[ready $?]$ "}, start_new_session=True, preexec_fn=_controlling_terminal)
        os.close(slave)
        self.output, self.mark = "", 0
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.ended()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self.output += data.decode(errors="replace").replace("\r\n", "\n")

    def since(self) -> str:
        with self._lock:
            return self.output[self.mark:]

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\n")

    def interrupt(self) -> None:
        os.write(self.master, b"\x03")

    def expect(self, pattern: str | re.Pattern, what: str, timeout: float = 60) -> re.Match:
        """Wait for ``pattern`` in what the terminal has shown since the last match."""
        pattern = re.compile(pattern)
        found = wait_for(lambda: pattern.search(self.since()), what, timeout=timeout, every=0.05,
                         explain=lambda: f"; the terminal shows:\n{self.since()[-3000:]}")
        self.mark += found.end()
        return found

    def ended(self, timeout: float = 60) -> int:
        """The status of the command that ran, once the prompt is back."""
        try:
            return int(self.expect(READY, "the prompt", timeout).group(1))
        except pytest.fail.Exception as late:
            raise pytest.fail.Exception(f"{late}\n{self._stuck()}") from None

    def _stuck(self) -> str:
        """What the command still running does: its signals' state, and (PYTHONFAULTHANDLER is on
        in these terminals) each of its Python threads' stack, which SIGABRT makes it print."""
        group = os.tcgetpgrp(self.master)
        if group == self.process.pid:
            return "(the shell has the terminal: no command is running)"
        status = Path(f"/proc/{group}/status").read_text(errors="replace") if Path(f"/proc/{group}").exists() else ""
        signals = [line for line in status.splitlines() if line.startswith(("Name", "State", "Sig", "Shd"))]
        shown = len(self.output)
        os.killpg(group, signal.SIGABRT)
        time.sleep(2)
        return "the command still running: " + "; ".join(signals) + "\nits threads:\n" + self.output[shown:][-6000:]

    def run(self, line: str, answer: str | None = None, timeout: float = 120) -> str:
        """Type ``line`` and wait for its end, typing ``answer`` whenever it asks something; what it
        showed. A command that fails fails the test, with what it showed."""
        self.type(line)
        deadline = time.monotonic() + timeout
        while not READY.search(shown := self.since()):
            if answer is not None and ASKED.search(shown):
                time.sleep(0.2)  # the prompt written, the terminal's echo turned off
                self.mark += len(shown)
                self.type(answer)
            assert time.monotonic() < deadline, f"{line!r} did not end in {timeout} s:\n{shown[-3000:]}"
            time.sleep(0.05)
        status = self.ended()
        assert status == 0, f"{line!r} ended {status}:\n{shown[-3000:]}"
        return shown

    def close(self) -> None:
        """The window closed: its shell, and whatever it started that still runs (a table a failed
        test left running would hold the page's port for every later test in the worker)."""
        session = self.process.pid
        if self.process.poll() is None:
            self.type("exit")
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        os.close(self.master)
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:  # the session id is the sixth field, after the command's name in brackets
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue  # ended meanwhile
            if int(fields[3]) == session:
                try:
                    os.kill(int(stat.parent.name), signal.SIGKILL)
                except ProcessLookupError:
                    pass


class Reading:
    """A page's blocks, taken in order by its scenario, which must take them all."""

    def __init__(self, page: Path) -> None:
        self.page = page
        self._blocks: Iterator[Block] = iter([b for b in blocks(page) if b.needs is None])

    def next(self, language: str = "sh") -> Block:
        block = next(self._blocks, None)
        assert block is not None, f"{self.page.name}: the scenario wants a {language} block more than the page has"
        assert block.language == language, f"{block.page}:{block.line}: a {block.language} block, where a {language} one was"
        return block

    def done(self) -> None:
        left = list(self._blocks)
        assert left == [], f"blocks of {self.page.name} no scenario step ran: {[b.line for b in left]}"


# --- the fresh checkout ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """A home folder with a fresh copy of pi-table in it (what git tracks and what is new, not what
    it ignores: no .venv), as ``git clone REPOSITORY ~/pi-table`` leaves it."""
    home = tmp_path_factory.mktemp("home")
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source, copy = ROOT / name, home / "pi-table" / name
        if source.is_file():
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy)
    return home


@pytest.fixture(scope="module")
def environment(home) -> dict[str, str]:
    """The owner's environment: this home, no display (the simulator plays in the terminal), no
    virtual environment active and none of the tests' on the path, nor SDL's drivers a test file
    set in this worker (``SDL_VIDEODRIVER=dummy`` makes a window of nothing, and the page's
    simulator then waits in it unseen); pip's settings and cache kept."""
    env = {name: value for name, value in os.environ.items()
           if name not in ("VIRTUAL_ENV", "PYTHONPATH", "DISPLAY", "WAYLAND_DISPLAY", "PYTEST_XDIST_WORKER")
           and not name.startswith(("PYTEST_", "PI_TABLE_", "SDL_", "PYGAME_"))}
    ours = str(ROOT / ".venv" / "bin")
    env["PATH"] = os.pathsep.join(part for part in env["PATH"].split(os.pathsep) if part != ours)
    env.setdefault("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip"))
    env["HOME"] = str(home)
    env["TERM"] = "dumb"
    env["PYTHONFAULTHANDLER"] = "1"  # a command that hangs shows its threads when the test gives up on it
    return env


@pytest.fixture
def terminals(home, environment) -> Iterator[Callable[[], Terminal]]:
    opened: list[Terminal] = []

    def open_one() -> Terminal:
        opened.append(Terminal(home, environment))
        return opened[-1]

    yield open_one
    for terminal in opened:
        terminal.close()


# --- the scenarios -------------------------------------------------------------------------------------


def play_and_quit(terminal: Terminal, line: str) -> None:
    """A simulator started by ``line``: it opens in the terminal (no display here), and ``quit`` ends it."""
    terminal.type(line)
    opened = terminal.expect("(Type 'help'|Scrivi 'aiuto')", f"{line!r} to open the simulator", timeout=600)  # ./dev makes .venv first
    terminal.type("quit" if opened.group(1).startswith("Type") else "esci")  # the words of the language it speaks
    assert terminal.ended() == 0


def try_the_table(page: Reading, home: Path, terminal: Callable[[], Terminal]) -> None:
    """docs/cafe/try.md: a table in a folder, the board's emulator, the table started as systemd
    would, its status, the staff page's self-test passed by the board's taps, a card touched, and
    each terminal stopped with Ctrl+C."""
    from pi_table.daemon.control import request

    first = terminal()
    (line,) = page.next().commands
    play_and_quit(first, line)
    for line in page.next().commands:
        first.run(line)
    config = max(home.glob("*/config.toml"), key=lambda path: path.stat().st_mtime)  # the folder just made
    edit_as_the_page_says(config, page.next("toml"))
    lang = "it" if page.page.name.endswith(".it.md") else "en"
    asks = {"en": ("staff PIN (", "owner's passphrase ("), "it": ("PIN dello staff (", "frase segreta del gestore (")}
    for line, asked in zip(page.next().commands, asks[lang], strict=True):  # in the page's language (issue 62, 5)
        before = len(first.output)
        first.run(line, answer=STAFF_PIN if "set-staff-pin" in line else OWNER_PASSPHRASE)
        assert first.output[before:].count(asked) == 1, first.output[before:]  # asked once, in its words

    board = terminal()
    opening, start = page.next().commands
    board.run(opening)
    board.type(start)
    board.expect(r"/board\n", "the board's path")
    board.expect({"en": "commands: press PAD", "it": "comandi: press PAD"}[lang], "its commands, in the page's language")

    table = terminal()
    opening, start = page.next().commands
    table.run(opening)
    table.type(start)
    socket = config.parent / "control.sock"
    wait_for(lambda: socket.exists() and request(socket, "status")["health"]["touch"] == "ok",
             "the table's hello with the board", timeout=60,
             explain=lambda: f"\nthe table's terminal:\n{table.since()[-2000:]}\nthe board's:\n{board.since()[-1500:]}")

    (line,) = page.next().commands
    shown = first.run(line)
    # the touch board ok, the LEDs simulated (in the page's language)
    assert re.search(r"touch[^,:]*: ok", shown) and re.search(r"LED[^,:]*: (simulated|in simulazione)", shown), shown

    port = tomllib.loads(config.read_text(encoding="utf-8"))["web"]["port"]
    staff = Staff(f"http://127.0.0.1:{port}", lang=lang)

    def logged_in() -> bool:
        try:
            return staff.login()[0] == 200
        except OSError:  # the page not up yet: the owner opens it again
            return False

    wait_for(logged_in, "the staff page's login with the PIN", timeout=30, every=0.5)
    assert staff.call("POST", "/staff/api/selftest", {"act": "start"})[0] == 200

    def stage() -> str:
        return staff.call("GET", "/staff/api/selftest")[1]["test"]["stage"]

    wait_for(lambda: stage() == "checklist", "the self-test's checklist", timeout=60)
    for card in range(25):  # the page's taps, in the board's terminal
        board.type(f"tap {card} 300")
    board.type("tap end 300")
    wait_for(lambda: stage() == "done", "the self-test's end", timeout=60)
    test = staff.call("GET", "/staff/api/selftest")[1]["test"]
    assert test["passed"] is True, test

    def revealed() -> bool:
        return request(socket, "status")["state"]["board"][7] != "?"

    for _ in range(3):  # a tap not seen in 10 s (once, on a machine running three suites) is tapped again, as a player would
        board.type("tap 7 300")
        try:
            wait_for(revealed, "card 7 revealed by its tap", timeout=10)
            break
        except pytest.fail.Exception:
            pass
    assert revealed(), "card 7 was not revealed by three taps"

    for running in (table, board):  # Ctrl+C in each terminal
        running.interrupt()
        assert running.ended() in (0, 130)
        assert "Traceback" not in running.output, running.output[-3000:]

    set_up_from_the_set_up_page(page, home, first, staff.lang, port)
    owners_tasks_on_a_stand_in(page, home, first, staff.lang, port)
    page.done()


def set_up_from_the_set_up_page(page: Reading, home: Path, terminal: Terminal, lang: str, first_port: int) -> None:
    """try.md's last step: a second table marked as the image's first boot marks it, given a port
    of its own beside the first table's (issue 62, 6: it copied the first's); its staff page leads
    to the set-up page, which the code from setup.pending opens; the table stops to restart."""
    import json
    import urllib.request

    made, shown = page.next().commands, ""
    for line in made:
        shown += terminal.run(line)
    code = re.search(r'"code": "(\d+)"', shown)
    assert code, shown
    config = max(home.glob("*/config.toml"), key=lambda path: path.stat().st_mtime)  # the folder just made
    edit_as_the_page_says(config, page.next("toml"))
    port = tomllib.loads(config.read_text(encoding="utf-8"))["web"]["port"]
    assert port != first_port, "the second table would take the first one's port"
    (line,) = page.next().commands
    terminal.type(line)
    base = f"http://127.0.0.1:{port}"
    assert f"{base}/staff" in page.page.read_text(encoding="utf-8"), "the page opens the second table at its port"

    def staff_page() -> str | None:
        try:
            with urllib.request.urlopen(f"{base}/staff", timeout=5) as answer:
                return answer.url
        except OSError:  # not up yet
            return None

    assert wait_for(staff_page, "the new table's staff page", timeout=60, every=0.5) == f"{base}/setup"
    form = {"code": code.group(1), "name": "table-2", "language": lang, "passphrase": OWNER_PASSPHRASE,
            "pin": STAFF_PIN, "pin_again": STAFF_PIN, "passphrase_again": OWNER_PASSPHRASE, "zone": "Etc/UTC",
            "wifi": None}
    request = urllib.request.Request(f"{base}/setup/api?lang={lang}", json.dumps(form).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=20) as answer:
        assert json.loads(answer.read())["ok"]
    assert terminal.ended() == 3  # restarting on its settings


def owners_tasks_on_a_stand_in(page: Reading, home: Path, terminal: Terminal, lang: str, port: int) -> None:
    """try.md's step 7: the first table named its stand-in machine's folder and started on it
    (``pi-table stand-in``); the owner joins the café's Wi-Fi from the staff page, reads that the
    table is simulated, restarts the computer (the table starts again) and shuts it down (the
    stand-in ends)."""
    from pi_table.ui.i18n import translation
    from pi_table.web.document import SIMULATED

    config = next(path for path in home.glob("*/config.toml")
                  if tomllib.loads(path.read_text(encoding="utf-8"))["web"]["port"] == port)  # the first table's
    edit_as_the_page_says(config, page.next("toml"))
    (line,) = page.next().commands
    terminal.type(line)
    staff = Staff(f"http://127.0.0.1:{port}", lang=lang)

    def logged_in() -> bool:
        try:
            return staff.login()[0] == 200
        except OSError:  # the table not up yet, or starting again
            return False

    wait_for(logged_in, "the staff page of the table on its stand-in machine", timeout=60, every=0.5,
             explain=lambda: f"\nthe terminal:\n{terminal.since()[-2000:]}")
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/staff", timeout=10) as answer:
        assert translation(lang).gettext(SIMULATED) in answer.read().decode()
    staff.as_owner()
    assert staff.call("POST", "/staff/api/wifi", {"ssid": "Cafe", "password": "espresso-42"})[0] == 202

    def joined() -> object:
        last = staff.call("GET", "/staff/api/wifi")[1]["last"]
        return last and last["outcome"]

    assert wait_for(joined, "the café's Wi-Fi joined", timeout=60) == "done"
    assert staff.call("POST", "/staff/api/power", {"act": "reboot"})[0] == 202
    wait_for(lambda: not logged_in(), "the table stopped for the reboot", timeout=30, every=0.2)
    wait_for(logged_in, "the table started again after the reboot", timeout=60, every=0.5)
    staff.as_owner()  # a start locks the owner's actions again
    assert staff.call("POST", "/staff/api/power", {"act": "poweroff"})[0] == 202
    assert terminal.ended() == 0  # the stand-in ends with the table


def edit_as_the_page_says(config: Path, block: Block) -> None:
    """Each line of the page's settings, ``key = value  # [section]``, put in place of that key's line."""
    import tomlkit

    document = tomlkit.parse(config.read_text(encoding="utf-8"))
    for line in block.commands:
        setting, section = line.split("#")
        (key, value), = tomllib.loads(setting).items()
        assert key in document[section.strip(" []")], f"{block.page}: [{section}] has no {key} to change"
        document[section.strip(" []")][key] = value
    config.write_text(tomlkit.dumps(document), encoding="utf-8")


def simulator(page: Reading, home: Path, terminal: Callable[[], Terminal]) -> None:
    """docs/play/simulator.md: ./dev play, Codex in the window and in the terminal, and two scripts."""
    checkout = terminal()
    checkout.run("cd ~/pi-table")  # "in a copy of pi-table"
    (line,) = page.next().commands
    play_and_quit(checkout, line)
    for line in page.next().commands:
        play_and_quit(checkout, line)
    (line,) = page.next().commands
    shown = checkout.run(line)
    assert '"winner": "blue"' in shown, shown[-2000:]
    (line,) = page.next().commands
    shown = checkout.run(line, timeout=300)
    assert "RED" in shown or "red" in shown, shown[-2000:]
    page.done()


def league(page: Reading, home: Path, terminal: Callable[[], Terminal]) -> None:
    """docs/cafe/league.md: pi-table's environment made, two cafés bridged to a league timed, the
    roster the page shows read as the league's page reads it, and the organiser's password set
    for the page's sign-in (asked twice on the terminal)."""
    from pi_table.fleet.league_page import read_roster

    checkout = terminal()
    (line,) = page.next().commands
    play_and_quit(checkout, line)
    activate, bench = page.next().commands
    checkout.run(activate)
    shown = checkout.run(bench, timeout=600)
    assert re.search(r"cafes=2 +tables=6 +nights=6", shown) and "closed_to_page" in shown, shown[-2000:]
    roster = home / "roster.toml"
    roster.write_text(page.next("toml").text, encoding="utf-8")
    kept = read_roster(roster)
    assert kept.cafes["bar-roma"] == ["r1", "r2", "r3"] and kept.merged == {"the owls": "Owls"}
    assert kept.teams == {"OWL7": "The Owls", "FOX1": "Foxes"} and kept.scoring.best == 6
    (line,) = page.next().commands
    checkout.run(line, answer="organiser-secret")
    assert (home / "league-organiser.hash").read_text().startswith("scrypt$")
    page.done()


SCENARIOS: dict[str, Callable[[Reading, Path, Callable[[], Terminal]], None]] = {
    "try": try_the_table,
    "simulator": simulator,
    "league": league,
}
"""The pages whose blocks run here, by their English name, each with what the page asks between them."""


@pytest.mark.tool  # pip makes the checkout's .venv
@pytest.mark.daemon
@pytest.mark.parametrize("page", [page for page in PAGES if english(page).stem in SCENARIOS],
                         ids=lambda page: page.name)
def test_the_page_s_commands_run_as_written_in_a_fresh_checkout(page, home, terminals):
    SCENARIOS[english(page).stem](Reading(page), home, terminals)
