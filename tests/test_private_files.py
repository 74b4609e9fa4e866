"""Files that hold the key or a secret are the service user's alone, whatever the umask: the
staff, in the service's group, reach the table through the control socket only."""

from __future__ import annotations

import json
import os
import random
import shutil
import stat
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

import pytest

from pi_table.engine import Rules, parse_action
from pi_table.files import write_private
from pi_table.table import Session
from pi_table.web.tokens import SPYMASTER, Tokens

from helpers import JOURNAL_VERSION_1, require_tools, wait_for
from helpers_board import EmulatedTable
from helpers_release import Installer

UNIT = Path(__file__).resolve().parent.parent / "systemd" / "pi-table.service"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(params=[0o022, 0o027, 0o000], ids=["umask-022", "umask-027", "umask-000"])
def umask(request):
    old = os.umask(request.param)
    yield request.param
    os.umask(old)


def test_a_new_game_journal_and_its_directory_are_private(tmp_path, umask):
    folder = tmp_path / "journal"
    session = Session(Rules(), rng=random.Random(1), journal_dir=folder, fsync=False)
    session.submit(parse_action("clue 1"))
    session.new_game()
    assert mode(folder) == 0o700
    assert [oct(mode(path)) for path in folder.iterdir()] == [oct(0o600)] * 3  # two games and the one in play's name


def test_the_companions_secret_and_opened_pages_are_private(tmp_path, umask):
    Tokens.kept_in(tmp_path / "journal")
    assert mode(tmp_path / "journal") == 0o700 and mode(tmp_path / "journal" / "companion.secret") == 0o600
    opened = tmp_path / "companion.opened"
    opened.write_text("")
    opened.chmod(0o666)  # left by an older version
    write_private(opened, b"token\n")
    assert mode(opened) == 0o600 and opened.read_bytes() == b"token\n"


def test_the_daemon_keeps_every_file_of_its_journal_directory_private(tmp_path, umask):
    """An older table's files (group- and world-readable, a version 1 journal with damage in
    it) are tightened at start; every file the daemon then writes (the rewritten journal, the
    damaged file kept aside, the companion's secret and opened pages, the lock) is 0600 in a
    0700 directory."""
    journal = tmp_path / "journal"
    journal.mkdir(mode=0o755)
    journal.chmod(0o755)
    game = journal / "20261118-110640.250000-f7396e.jsonl"
    game.write_text(JOURNAL_VERSION_1.replace('"touch 2"', '"touch 99"'), encoding="utf-8")
    secret = os.urandom(32)
    (journal / "companion.secret").write_bytes(secret)
    (journal / "companion.opened").write_text("")
    for path in journal.iterdir():
        path.chmod(0o644)
    table = EmulatedTable(tmp_path)
    try:
        table.start()
        table.connected()
        status = table.status()
        assert status["game_id"] == game.stem and status["journal_damage"]["lost_actions"] == 5
        token = Tokens(secret).token(game.stem, SPYMASTER)
        with urllib.request.urlopen(f"{status['companion']}/p/{token}", timeout=5) as page:
            assert page.status == 200
        wait_for(lambda: (journal / "companion.opened").read_text() == f"{token}\n", "the opened page to be kept")
        table.guess(11)
    finally:
        table.close()
    files = {path.name: oct(mode(path)) for path in journal.iterdir()}
    assert files == {name: oct(0o600) for name in (game.name, f"{game.name}.damaged-1", "companion.secret",
                                                   "companion.opened", "in-play.json", "staff.device-key", ".lock",
                                                   "notices.sent", "notices.running")}  # killed: a crash to tell
    assert mode(journal) == 0o700


def test_the_unit_gives_the_group_the_socket_and_nothing_else():
    """UMask=0077 and a 0700 state directory: the code makes its secret files 0600 anyway, the
    unit makes sure nothing else the service writes is the staff's to read. The socket's
    directory stays 0750, so the group reaches the 0660 socket."""
    lines = dict(line.split("=", 1) for line in UNIT.read_text().splitlines() if "=" in line and not line.startswith("#"))
    assert lines["UMask"] == "0077" and lines["StateDirectoryMode"] == "0700"
    assert lines["RuntimeDirectoryMode"] == "0750" and lines["Group"] == "pi-table"


STAFF_UID = 4242  # a login in the service's group (here root's group, which the daemon's files get)


def as_staff(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(["setpriv", f"--reuid={STAFF_UID}", "--regid=0", "--clear-groups", *command],
                          capture_output=True, text=True, timeout=60)


@pytest.fixture
def shared_folder():
    """A folder the group may enter (pytest's own are the owner's alone), as /run/pi-table is."""
    if os.geteuid() != 0:
        pytest.skip("needs root, to run commands as another user")
    require_tools("setpriv")
    folder = Path(tempfile.mkdtemp(prefix="pi-table-staff-"))
    folder.chmod(0o750)
    yield folder
    shutil.rmtree(folder)


@pytest.mark.slow  # some 3 s of CPU by itself: out of ./dev test (issue 40)
def test_a_staff_login_in_the_group_has_status_and_history_but_not_the_key(shared_folder):
    """Under the unit's old umask (0027, which made the journals 0640 in the group), a staff
    login in the service's group reaches status, undo and history through the socket and
    reads nothing of the journal's directory."""
    old = os.umask(0o027)
    table = EmulatedTable(shared_folder)
    try:
        table.start()
        table.connected()
        table.guess(3)
        game_id = table.status()["game_id"]
        pi_table = str(Path(sys.executable).parent / "pi-table")
        status = as_staff(pi_table, "status", "--json", "--config", str(table.config))
        assert status.returncode == 0, status.stderr
        assert json.loads(status.stdout)["game_id"] == game_id
        history = as_staff(pi_table, "history", "--json", "--config", str(table.config))
        assert history.returncode == 0, history.stderr
        assert [game["id"] for game in json.loads(history.stdout)] == [game_id]
        assert as_staff(pi_table, "undo", "--config", str(table.config)).returncode == 0
        for path in [table.journal, *table.journal.iterdir()]:
            peek = as_staff("cat" if path.is_file() else "ls", str(path))
            assert peek.returncode != 0 and "Permission denied" in peek.stderr, f"staff read {path.name}"
    finally:
        table.close()
        os.umask(old)


@pytest.mark.tool
def test_install_takes_the_group_out_of_an_older_state_directory(tmp_path):
    """systemd leaves a state directory that already exists with another mode as it is (with
    a warning): the installer's upgrade makes an older install's 0750 one 0700."""
    installer = Installer(tmp_path, "Raspberry Pi 5 Model B Rev 1.0")
    installer.env["PI_TABLE_NO_START"] = "1"
    state = installer.root / "var/lib/pi-table"
    (state / "journal").mkdir(parents=True)
    state.chmod(0o750)
    result = installer.run()
    assert result.returncode == 0, result.stderr
    assert mode(state) == 0o700 and "made 0700" in result.stdout


def test_a_journal_directory_that_holds_a_folder_is_left_as_it_is(tmp_path, caplog):
    """Someone else's folder named as the journal's (/, /tmp, a home): no file's rights change in it."""
    from pi_table.table.journal import keep_private

    shared = tmp_path / "shared"
    (shared / "photos").mkdir(parents=True)
    (shared / "notes.txt").write_text("x")
    (shared / "notes.txt").chmod(0o644)
    shared.chmod(0o755)
    keep_private(shared)
    assert stat.S_IMODE(shared.stat().st_mode) == 0o755 and stat.S_IMODE((shared / "notes.txt").stat().st_mode) == 0o644
    assert "holds a folder (photos), so it is not the table's own" in caplog.text
