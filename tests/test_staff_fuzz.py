"""The staff API's configuration, fuzzed as a hostile night would (issue 25): every key with odd
values, pairs of keys changed together, every file key pointed at every secret file, and files of
the wrong kind. Never a 500, never the key or another secret in an answer; and after every change
it accepts, the real table (``pi-table run`` under the fake systemd, restarted as the unit
restarts it) comes back healthy on it or rolls itself back to the last good file.

Seeded, and bounded: the cases are drawn in a fixed order and the run stops drawing when its
time is up, printing how many of each it tried."""

from __future__ import annotations

import json
import os
import random
import re
import time
from pathlib import Path

import pytest

from pi_table.config import OPTIONS, trial
from pi_table.daemon.restarts import EXIT_RESTART, RESTARTS_FILE
from pi_table.web.staff_actions import LIVE

from helpers import self_signed
from helpers_tables import StaffService

pytestmark = [pytest.mark.daemon, pytest.mark.slow]

SEED = 25
BUDGET_S = 150.0  # the whole run; each accepted change costs one or two restarts of the table
FILE_KEYS = ("sim.words", "fleet.password_file", "fleet.ca", "fleet.cert", "fleet.key", "web.tls_cert", "web.tls_key")
ODD = ["", " ", "\0", "a\ud800", "\u202e", "é" * 300, "x" * 5000, "../../../../etc/passwd", "/", ".", "~",
       "mqtt://", "mqtts://u:p@[::1", "http://[fe80::1", "0", "-1", "1e400", "NaN", "true", "[1]",
       0, -1, 1, 2**63, -(2**63) - 1, 10**30, 0.5, -0.0, 1e308, True, False, None, [], [[]], [-1], [1, "a"],
       [[0, 1, 2]], [[2**40, 1]], list(range(2000)), {"a": 1}]
"""Values no key expects, or expects only at its edges (JSON cannot carry inf or NaN themselves)."""


def secrets_of(folder: Path) -> dict[str, str]:
    """What no answer may hold: the game's key, the staff PIN's and the owner's passphrase's
    hashes, the sessions, the seats' secret, the TLS key's body, a broker password."""
    journal = folder / "journal"
    found = {}
    for game in journal.glob("*.jsonl"):
        header = json.loads(game.read_text().splitlines()[0])
        found[f"key of {game.name}"] = header["key"]
    for name in ("staff.pin", "owner.pass"):
        found[name] = (journal / name).read_text().strip().split("$")[-1]
    secret = journal / "companion.secret"
    if secret.exists():
        found["companion.secret"] = secret.read_bytes().hex()[:32]
    key_body = [line for line in (folder / "tls.key").read_text().splitlines() if not line.startswith("-----")]
    found["tls.key"] = key_body[0][:24]
    found["password"] = (folder / "password").read_text().strip()
    return found


def cases(folder: Path, rng: random.Random) -> list[dict]:
    """The changes to try, in a seeded order: secrets and wrong kinds first, then odd values, then pairs."""
    journal = folder / "journal"
    secret_files = [*journal.glob("*.jsonl"), journal / "staff.pin", journal / "owner.pass", journal / "staff.sessions",
                    journal / "companion.secret", journal, folder / "tls.key", folder / "config.toml",
                    Path("/etc/shadow"), Path("/proc/self/environ"), folder / "link-to-journal"]
    wrong_kind = [folder / "binary", folder / "empty", folder / "huge", folder / "a-folder", folder / "tls.crt",
                  folder / "password", Path("/dev/zero"), Path("/dev/null")]
    found: list[dict] = []
    for key in FILE_KEYS:
        for file in secret_files + wrong_kind:
            change = {key: str(file)}
            if key.startswith("fleet."):
                change |= {"fleet.broker": "mqtts://t1@127.0.0.1:1", "fleet.table_id": "t1"}
            if key.startswith("web.tls"):
                other = "web.tls_key" if key == "web.tls_cert" else "web.tls_cert"
                change[other] = str(folder / ("tls.key" if other == "web.tls_key" else "tls.crt"))
            found.append(change)
    for option in OPTIONS:
        for value in rng.sample(ODD, 5):
            found.append({option.key: value})
    for _ in range(60):
        first, second = rng.sample(OPTIONS, 2)
        found.append({first.key: rng.choice([*ODD, first.default]), second.key: rng.choice([*ODD, second.default])})
    found.append({"paths.journal_dir": str(folder / "elsewhere"), "sim.words": str(next(journal.glob("*.jsonl")))})
    return found


def wrong_files(folder: Path) -> None:
    (folder / "binary").write_bytes(bytes(range(256)) * 4)
    (folder / "empty").write_bytes(b"")
    (folder / "huge").write_bytes(b"word\n" * 300_000)
    (folder / "a-folder").mkdir()
    (folder / "password").write_text("broker-password-kept-secret\n")
    os.symlink(folder / "journal", folder / "link-to-journal")


def healthy_again(service: StaffService) -> str:
    """After an accepted change that restarts the table: the restart, the trial's verdict, and a
    table whose staff page answers. What became of the change: "kept" or "rolled back"."""
    assert service.exited() == EXIT_RESTART, service.log()
    service.start()
    if trial.pending_trial(service.config) is not None:  # the table started on it: the watch decides
        deadline = time.monotonic() + trial.DEADLINE_S + 10
        while trial.pending_trial(service.config) is not None:
            assert time.monotonic() < deadline, f"the trial was not decided in time\n{service.log()}"
            time.sleep(0.1)
        if trial.rolled_back(service.config) is not None:  # rolled back: the table restarts on the good file
            assert service.exited() == EXIT_RESTART, service.log()
            service.start()
    status, table = service.staff().call("GET", "/staff/api/table")
    assert status == 200 and table["health"]["companion"] == "ok", table
    return "rolled back" if trial.rolled_back(service.config) is not None else "kept"


@pytest.fixture
def service(tmp_path):
    service = StaffService(tmp_path, cafile=self_signed(tmp_path, "tls")[0])
    wrong_files(tmp_path)
    service.start()
    yield service
    service.close()


def test_the_staff_configuration_fuzzed_never_fails_never_shows_a_secret_and_never_leaves_the_table_down(service):
    folder = service.folder
    secrets = secrets_of(folder)
    base = service.config.read_text()
    rng = random.Random(SEED)
    tried = {"refused": 0, "applied at once": 0, "kept": 0, "rolled back": 0}
    began = time.monotonic()
    staff = service.staff(owner=True)  # every key: the owner's too
    for number, change in enumerate(cases(folder, rng)):
        if time.monotonic() - began > BUDGET_S:
            break
        status, answer = staff.call("POST", "/staff/api/config", {"changes": change})
        said = json.dumps(answer, ensure_ascii=False)
        assert status in (200, 400), (change, status, said)
        for name, secret in secrets.items():
            assert secret not in said, (name, change, said)
        assert not re.search(r"[RBNA]{25}", said), (change, said)
        if status == 400:
            tried["refused"] += 1
            continue
        if not answer["restarting"]:
            tried["applied at once"] += 1
            assert set(change) <= set(LIVE), change
        else:
            tried[healthy_again(service)] += 1
        # the next case starts from the file the fuzz began with, as a hand edit (no trial)
        service.systemd.stop()
        service.systemd.close()
        service.config.write_text(base)
        for suffix in (trial.GOOD, trial.ROLLED_BACK):
            trial.beside(service.config, suffix).unlink(missing_ok=True)
        (folder / "journal" / RESTARTS_FILE).unlink(missing_ok=True)  # as if the unit's window had passed
        service.start()
        staff = service.staff(owner=True)  # every key: the owner's too
        secrets = secrets_of(folder)
    print(f"staff configuration fuzz (seed {SEED}): {number + 1} changes in {time.monotonic() - began:.0f} s: "
          + ", ".join(f"{count} {what}" for what, count in tried.items()))
    assert tried["refused"] > 100 and tried["kept"] + tried["applied at once"] > 0
