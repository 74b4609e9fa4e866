"""Backups that leave the SD card (issue 62): the nightly backup copied to a network place the owner
gives (SFTP or WebDAV, through rclone), tried against ``rclone serve`` on this computer's
loopback; the place parsed into its kind before rclone sees any of it; the place an owner's secret
(never shown back, wiped by the owner's-part reset); a failed copy leaves its trace."""

from __future__ import annotations

import json
import stat
import subprocess
import time
from pathlib import Path

import pytest

from pi_table.config import load_config
from pi_table.daemon import backup, offsite, sealed
from pi_table.engine.errors import Refusal
from pi_table.fleet.broker import free_port
from pi_table.ui.i18n import say

from helpers import require_tools
from helpers_machine import PLACE_PASSWORD as PASSWORD
from helpers_machine import PLACE_USER as USER
from helpers_machine import Served
from helpers_machine import place_address as address
from helpers_staff import STAFF_CONFIG
from helpers_tables import StaffService

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILdMiCirWT8E7kRZpgAd3dZ6dN3OUb8zMBhJa/3ZUKaT"


def configured(tmp_path: Path):
    """A table with its settings and its backup key (a copy leaves the card sealed alone: ``sealed``)."""
    tmp_path.mkdir(exist_ok=True)
    path = tmp_path / "config.toml"
    path.write_text(STAFF_CONFIG)
    config = load_config(path)
    backup.new_key(config)
    return config


@pytest.fixture(params=["webdav", "sftp"])
def served(request, tmp_path):
    server = Served(request.param, tmp_path / "served", tmp_path / "server-home")
    yield request.param, server
    server.close()


def night(config, copies=(offsite.send,)) -> backup.Nightly:
    return backup.Nightly(config, clock=lambda: time.mktime((2026, 11, 27, 5, 0, 0, 0, 0, -1)), copies=copies)


def test_the_nightly_backup_is_copied_to_the_place_and_its_copy_noted(tmp_path, served):
    kind, server = served
    config = configured(tmp_path / "table")
    offsite.save(config, offsite.parse(address(kind, server.port), PASSWORD))
    made = night(config).tick()
    assert made is not None
    copied = server.folder / "pi-table" / "bar-uno" / made.name
    assert copied.read_bytes() == made.read_bytes()
    backup.read(sealed.opened(copied.read_bytes(), sealed.kept_key(config)))  # a backup the table restores
    last = offsite.last(config)
    assert last is not None and last["ok"] is True and last["backup"] == made.name and "why" not in last
    assert not (backup.folder(config) / offsite.RCLONE_CONFIG).exists()  # rclone's file, its password in it, gone


def test_a_wrong_password_leaves_a_note_the_owner_sees_and_tells_the_one_failure_hook(tmp_path, served,
                                                                                      monkeypatch):
    kind, server = served
    config = configured(tmp_path / "table")
    told = []
    monkeypatch.setattr(backup, "failed", lambda where, why: told.append((where, say(why, "en"))))
    offsite.save(config, offsite.parse(address(kind, server.port), "not the password"))
    made = night(config).tick()
    assert made is not None and made.exists()  # the night's backup is kept on the card whatever the place says
    last = offsite.last(config)
    assert last is not None and last["ok"] is False and last["backup"] == made.name
    assert "rclone could not copy it to" in last["why"]["en"] and "rclone non ha potuto copiarlo" in last["why"]["it"]
    assert "not the password" not in json.dumps(last) and not last["why"]["en"].endswith("2026")
    assert told and told[0][0] == "offsite"
    assert not list(server.folder.rglob("*.tar.gz"))


def test_a_place_that_does_not_answer_is_a_failure_in_words_not_a_hang(tmp_path):
    require_tools("rclone")
    config = configured(tmp_path)
    place = offsite.parse(f"sftp://{USER}@127.0.0.1:{free_port()}/x", PASSWORD)
    made = night(config, copies=()).tick()
    assert made is not None
    started = time.monotonic()
    why = offsite.copy(config, place, made, timeout_s=60)
    assert why is not None and "sftp://cafe@127.0.0.1" in say(why, "en") and "gave no SSH key" in say(why, "en")
    assert time.monotonic() - started < 60


def test_no_place_no_copy_and_no_note(tmp_path):
    config = configured(tmp_path)
    made = night(config).tick()
    assert made is not None and offsite.send(config, made) is None and offsite.last(config) is None


def test_the_place_is_kept_for_the_service_alone_and_shown_without_its_password(tmp_path):
    config = configured(tmp_path)
    offsite.save(config, offsite.parse("https://owner%40cafe.it@dav.example.org/remote.php/dav/files/x", PASSWORD))
    kept = config.paths.journal_dir / offsite.PLACE_FILE
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    shown = offsite.state(config)
    assert shown["place"] == "https://owner@cafe.it@dav.example.org:443/remote.php/dav/files/x"
    assert shown["password_set"] is True and PASSWORD not in json.dumps(shown)
    offsite.save(config, None)
    assert offsite.state(config) == {"place": None, "password_set": False, "last": None, "key": None, "ca": False}


@pytest.mark.parametrize(("typed", "named"), [
    ("ftp://u@host/x", "starts with 'ftp'"),
    ("sftp://u:secret@host/x", "holds a password"),
    ("sftp://host/x", "names no user"),
    ("sftp://-oProxyCommand=sh@host/x", "names no user"),
    ("sftp://u@-oProxyCommand=sh/x", "is not a host name"),
    ("sftp://u@host/--config=/etc/shadow", "may hold letters"),
    ("sftp://u@host/a/../../etc", "and no .."),
    ("sftp://u@host/x\ny = z", "may hold letters"),
    ("sftp://u@host:99999/x", "is not an address"),
    ("sftp://u@host/x?y=1", "?query"),
    ("http://u@nas.local/x", "in clear"),
    ("sftp://u@ho st/x", "is not a host name"),
])
def test_what_the_owner_types_is_parsed_into_its_kind_or_refused_naming_what(typed, named):
    with pytest.raises(Refusal) as refused:
        offsite.parse(typed, PASSWORD)
    assert named in say(refused.value.phrase, "en")


def test_a_password_on_more_than_one_line_is_refused():
    with pytest.raises(Refusal) as refused:
        offsite.parse("sftp://u@host/x", "one\nhost = evil")
    assert "one line" in say(refused.value.phrase, "en")


def test_rclone_gets_a_file_of_its_own_and_fixed_arguments(tmp_path, monkeypatch):
    """The place reaches rclone only as checked values in its configuration file (0600), never as
    an argument; the password obscured by rclone from its standard input."""
    config = configured(tmp_path)
    made = night(config, copies=()).tick()
    assert made is not None
    seen = []
    real = subprocess.run

    def run(arguments, **kwargs):
        if arguments[1:2] == ["obscure"]:
            assert kwargs["input"] == PASSWORD.encode()
            return subprocess.CompletedProcess(arguments, 0, b"OBSCURED\n", b"")
        if arguments[0].endswith("ssh-keyscan"):  # the place's key, asked at its first copy
            return subprocess.CompletedProcess(arguments, 0, f"[nas.local]:2222 {KEY}\n".encode(), b"")
        conf = Path(arguments[arguments.index("--config") + 1])
        seen.append((arguments, conf.read_text(), stat.S_IMODE(conf.stat().st_mode), kwargs["env"],
                     (backup.folder(config) / offsite.KNOWN_HOSTS).read_text()))
        return real(["true"])

    monkeypatch.setattr(offsite.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(offsite.subprocess, "run", run)
    assert offsite.copy(config, offsite.parse("sftp://u@nas.local:2222/backups", PASSWORD), made) is None
    arguments, text, mode, env, _ = seen[0]
    assert arguments == ["/usr/bin/rclone", "--config", str(backup.folder(config) / offsite.RCLONE_CONFIG), "copyto",
                         "--contimeout", "20s", "--timeout", "60s", "--retries", "2", "--low-level-retries", "3", "--",
                         str(made), f"place:backups/{made.name}"]
    known = backup.folder(config) / offsite.KNOWN_HOSTS
    assert text == ("[place]\ntype = sftp\nhost = nas.local\nport = 2222\nuser = u\npass = OBSCURED\n"
                    f"known_hosts_file = {known}\n")
    assert seen[0][4] == f"[nas.local]:2222 {KEY}\n" and not known.exists()  # the pinned key, gone after the copy
    assert mode == 0o600 and not any(key.startswith("RCLONE") for key in env)
    assert PASSWORD not in " ".join(arguments)


def test_the_owner_gives_the_place_on_the_staff_page_sees_the_copy_and_never_the_password(tmp_path):
    require_tools("rclone")
    server = Served("webdav", tmp_path / "served", tmp_path / "server-home")
    (tmp_path / "table").mkdir()
    service = StaffService(tmp_path / "table")
    try:
        service.start()
        config = load_config(service.config)
        backup.new_key(config)  # the set-up's: a copy leaves the card sealed alone
        made = night(config, copies=()).tick()  # a backup to copy: the night's, made before
        assert made is not None
        staff = service.staff()
        place = address("webdav", server.port)
        assert staff.call("POST", "/staff/api/offsite", {"place": place, "password": PASSWORD})[0] == 403
        owner = service.staff(owner=True)
        status, answer = owner.call("POST", "/staff/api/offsite", {"place": "ftp://x@y/z", "password": "p"})
        assert status == 400 and "starts with 'ftp'" in answer["error"]
        status, answer = owner.call("POST", "/staff/api/offsite", {"place": place, "password": PASSWORD})
        assert status == 200 and answer["ok"] and answer["last"]["ok"] is True, answer
        assert (server.folder / "pi-table" / "bar-uno" / made.name).read_bytes() == made.read_bytes()
        status, shown = owner.call("GET", "/staff/api/offsite")
        assert status == 200 and shown["place"] == f"http://{USER}@127.0.0.1:{server.port}/pi-table/bar-uno"
        assert PASSWORD not in json.dumps(shown)
        status, answer = owner.call("POST", "/staff/api/offsite", {"place": place, "password": ""})
        assert status == 200 and answer["last"]["ok"] is True  # the password kept: the same host and user
        other = place.replace("127.0.0.1", "localhost")
        status, answer = owner.call("POST", "/staff/api/offsite", {"place": other, "password": ""})
        assert status == 400 and "its own password" in answer["error"]  # the old password goes nowhere else
        assert staff.call("POST", "/staff/api/offsite/key", {"fingerprint": []})[0] == 403
        status, answer = owner.call("POST", "/staff/api/offsite/key", {"fingerprint": []})
        assert status == 400 and "no other SSH key" in answer["error"]  # a WebDAV place: no key to accept
        status, answer = owner.call("POST", "/staff/api/offsite/key", {"fingerprint": "ED25519 SHA256:x"})
        assert status == 400 and "as the page shows them" in answer["error"]
        assert staff.call("POST", "/staff/api/offsite/ca", {"ca": "x"})[0] == 403
        status, answer = owner.call("POST", "/staff/api/offsite/ca", {"ca": "x"})
        assert status == 400 and "WebDAV place over https" in answer["error"]  # http to this computer: no CA
        assert owner.call("POST", "/staff/api/offsite/ca", {"ca": 1})[0] == 400
        owner.lang = "it"
        status, answer = owner.call("POST", "/staff/api/offsite", {"place": place, "password": "wrong"})
        assert status == 200 and answer["last"]["ok"] is False and "rclone non ha potuto" in answer["last"]["why"]
        assert owner.call("POST", "/staff/api/offsite", {"place": "", "password": ""})[1]["place"] is None
    finally:
        service.close()
        server.close()


def host_key(folder: Path, name: str) -> tuple[Path, str]:
    """A new SSH host key for a server, and its fingerprint as ssh prints it."""
    require_tools("ssh-keygen")
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(folder / name)], check=True)
    printed = subprocess.run(["ssh-keygen", "-lf", str(folder / f"{name}.pub")], capture_output=True, text=True,
                             check=True).stdout
    return folder / name, printed.split()[1]


def test_the_sftp_place_key_is_pinned_at_the_first_copy_and_another_server_at_its_address_gets_nothing(
        tmp_path, monkeypatch):
    """Issue 74 item 7: a server with another host key at the same address gets no login, no password
    and no file; the owner is told and sees both fingerprints; accepting the new key lets copies go on."""
    require_tools("ssh-keyscan")
    config = configured(tmp_path / "table")
    told = []
    monkeypatch.setattr(backup, "failed", lambda where, why: told.append(say(why, "en")))
    key, printed = host_key(tmp_path / "keys", "place")
    other_key, other_printed = host_key(tmp_path / "keys", "other")
    server = Served("sftp", tmp_path / "served", tmp_path / "server-home", key=key)
    port = server.port
    offsite.save(config, offsite.parse(address("sftp", port), PASSWORD))
    try:
        first = night(config).tick()
    finally:
        server.close()
    assert first is not None and (server.folder / "pi-table" / "bar-uno" / first.name).exists()
    assert offsite.state(config)["key"] == {"pinned": [f"ED25519 {printed}"], "offered": None}

    other = Served("sftp", tmp_path / "other", tmp_path / "other-home", port=port, key=other_key)
    try:
        assert offsite.send(config, first) is False
    finally:
        logged = other.close()
    assert not list(other.folder.rglob("*")), "the other server got a file"
    assert "Password login attempt" not in logged and 'ssh auth "password"' not in logged, logged  # no login
    assert told and "another SSH key" in told[-1] and other_printed in told[-1]
    shown = offsite.state(config)
    assert shown["key"] == {"pinned": [f"ED25519 {printed}"], "offered": [f"ED25519 {other_printed}"]}
    assert shown["last"]["ok"] is False and other_printed in shown["last"]["why"]["en"]

    other = Served("sftp", tmp_path / "other", tmp_path / "other-home", port=port, key=other_key)
    try:
        with pytest.raises(Refusal, match="yet another"):
            offsite.accept_key(config, [f"ED25519 {printed}"])  # only the key the owner was shown
        offsite.accept_key(config, [f"ED25519 {other_printed}"])
        assert offsite.send(config, first) is True  # the owner compared it and took the new key
    finally:
        other.close()
    assert (other.folder / "pi-table" / "bar-uno" / first.name).read_bytes() == first.read_bytes()
    assert offsite.state(config)["key"] == {"pinned": [f"ED25519 {other_printed}"], "offered": None}


def test_the_pinned_key_is_bound_to_the_place_address_a_new_address_pins_anew(tmp_path):
    config = configured(tmp_path / "table")
    key, printed = host_key(tmp_path / "keys", "place")
    other_key, other_printed = host_key(tmp_path / "keys", "other")
    servers = [Served("sftp", tmp_path / name, tmp_path / f"{name}-home", key=k)
               for name, k in (("one", key), ("two", other_key))]
    try:
        made = night(config, copies=()).tick()
        assert made is not None
        for server, fingerprint in zip(servers, (printed, other_printed), strict=True):
            offsite.save(config, offsite.parse(address("sftp", server.port), PASSWORD))
            assert offsite.send(config, made) is True
            assert offsite.state(config)["key"] == {"pinned": [f"ED25519 {fingerprint}"], "offered": None}
    finally:
        for server in servers:
            server.close()


def certificates(folder: Path) -> tuple[Path, Path, Path]:
    """A café's own CA and a certificate it signed for 127.0.0.1 (a NAS's): the CA, the certificate, its key."""
    require_tools("openssl")
    folder.mkdir(parents=True, exist_ok=True)
    ca, ca_key, cert, key = (folder / name for name in ("ca.crt", "ca.key", "nas.crt", "nas.key"))

    def openssl(*arguments: str) -> None:
        subprocess.run(["openssl", *arguments], check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=Bar Uno CA", "-keyout", str(ca_key), "-out", str(ca))
    openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=nas",
            "-keyout", str(key), "-out", str(folder / "nas.csr"))
    (folder / "san.ext").write_text("subjectAltName = IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", str(folder / "nas.csr"), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
            "-days", "2", "-extfile", str(folder / "san.ext"), "-out", str(cert))
    return ca, cert, key


def test_a_webdav_place_with_its_own_certificate_takes_the_copy_once_the_owner_gives_its_ca(tmp_path):
    """Issue 75 item 3: a café's NAS with a certificate of its own CA: the copy fails (x509) until the
    owner gives that CA; the CA is bound to the place's address and reaches no other place."""
    config = configured(tmp_path / "table")
    ca, cert, key = certificates(tmp_path / "certs")
    server = Served("webdav", tmp_path / "served", tmp_path / "server-home", tls=(cert, key))
    try:
        made = night(config, copies=()).tick()
        assert made is not None
        place = offsite.parse(address("webdav", server.port).replace("http://", "https://"), PASSWORD)
        offsite.save(config, place)
        assert offsite.send(config, made) is False
        assert "x509" in offsite.last(config)["why"]["en"] or "certificate" in offsite.last(config)["why"]["en"]
        with pytest.raises(Refusal, match="BEGIN CERTIFICATE"):
            offsite.keep_ca(config, "not a certificate")
        offsite.keep_ca(config, ca.read_text())
        assert offsite.send(config, made) is True
        assert (server.folder / "pi-table" / "bar-uno" / made.name).read_bytes() == made.read_bytes()
        assert offsite.state(config)["ca"] is True
        other = address("webdav", server.port).replace("http://", "https://").replace("127.0.0.1", "localhost")
        offsite.save(config, offsite.parse(other, PASSWORD))
        assert offsite.state(config)["ca"] is False  # another address: the CA given for the NAS is not its
    finally:
        server.close()
