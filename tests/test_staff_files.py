"""The owner's files from the staff page, so no terminal is needed for them (issue 39): the HTTPS
certificate (uploaded, or made self-signed on the table), the fleet broker's address and password,
and the words a game night's team names may not use. Each is the owner's, each a trial that a
rollback undoes, and no answer shows a key or a password."""

from __future__ import annotations

import json
import os
import ssl
import stat
import tomllib
from pathlib import Path

import pytest

from pi_table.config import trial
from pi_table.engine.phrase import Phrase

from helpers import require_tools, self_signed
from helpers_games import dealt_key
from helpers_staff import Staff
from helpers_tables import StaffTable as InProcessTable

pytestmark = pytest.mark.daemon


@pytest.fixture
def table(tmp_path):
    table = InProcessTable(tmp_path, dealt_key())
    yield table
    table.close()


def owner(table) -> Staff:
    staff = Staff(table.base)
    assert staff.login()[0] == 200
    staff.as_owner()
    return staff


def settings(table) -> dict:
    return tomllib.loads(table.config.read_text())


def private(path: str) -> bool:
    return stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_every_owners_file_needs_the_owner(table):
    staff = Staff(table.base)
    staff.login()
    for method, path, body in (("GET", "/staff/api/files", None), ("POST", "/staff/api/files/tls", {"self_signed": True}),
                               ("POST", "/staff/api/files/blocked-words", {"words": "rude"})):
        status, answer = staff.call(method, path, body)
        assert status == 403 and answer["owner"] == "needed"
    assert "tls_cert" not in table.config.read_text() and not (table.folder / "files").exists()


def test_a_certificate_uploaded_is_kept_privately_and_tried_and_a_rollback_names_the_one_before(table, tmp_path):
    cert, key = self_signed(tmp_path)
    staff = owner(table)
    status, answer = staff.call("POST", "/staff/api/files/tls", {"cert": cert.read_text(), "key": key.read_text()})
    assert (status, answer["restarting"]) == (200, True)
    first = settings(table)["web"]
    assert first["tls_cert"].startswith(str(table.folder / "files")) and private(first["tls_key"])
    ssl.create_default_context().load_cert_chain(first["tls_cert"], first["tls_key"])  # the pair loads
    assert trial.pending_trial(table.config).keys == ("web.tls_cert", "web.tls_key")  # kept only if healthy
    trial.keep(table.config)
    other_cert, other_key = self_signed(tmp_path, "other")
    status, _ = staff.call("POST", "/staff/api/files/tls", {"cert": other_cert.read_text(), "key": other_key.read_text()})
    second = settings(table)["web"]
    assert status == 200 and second["tls_cert"] != first["tls_cert"] and os.path.exists(first["tls_cert"])
    trial.roll_back(table.config, trial.pending_trial(table.config), Phrase.of("the table stopped"))
    assert settings(table)["web"] == first and os.path.exists(first["tls_key"])  # what it went back to is there
    status, answer = staff.call("GET", "/staff/api/files")
    assert status == 200 and "PRIVATE" not in json.dumps(answer)


def test_a_certificate_made_on_the_table_serves_https(table):
    require_tools("openssl")
    staff = owner(table)
    status, _ = staff.call("POST", "/staff/api/files/tls", {"self_signed": True})
    web = settings(table)["web"]
    assert status == 200 and private(web["tls_key"])
    context = ssl.create_default_context()
    context.load_cert_chain(web["tls_cert"], web["tls_key"])
    assert "127.0.0.1" in ssl._ssl._test_decode_cert(web["tls_cert"])["subjectAltName"][-1]  # the address reached on


def test_what_is_no_certificate_is_refused_in_words_and_nothing_is_kept(table, tmp_path):
    cert, key = self_signed(tmp_path)
    staff = owner(table)
    before = table.config.read_bytes()
    for body, said in (({"cert": "hello", "key": key.read_text()}, "the certificate holds no PEM certificate"),
                       ({"cert": cert.read_text(), "key": "hello"}, "the key holds no PEM private key"),
                       ({"cert": cert.read_text(), "key": self_signed(tmp_path, "x")[1].read_text()},
                        "HTTPS private key file: refused: expected")):
        status, answer = staff.call("POST", "/staff/api/files/tls", body)
        assert status == 400 and said in answer["said"], answer
        assert "PRIVATE KEY" not in json.dumps(answer) and "config.toml" not in answer["said"]
    assert table.config.read_bytes() == before and not list((table.folder / "files").iterdir())


def test_the_brokers_password_goes_to_a_private_file_never_into_an_answer(table, tmp_path):
    staff = owner(table)
    body = {"broker": "mqtts://table7@broker.example:8883", "table_id": "table-7", "password": "s3cret broker"}
    status, answer = staff.call("POST", "/staff/api/files/broker", {**body, "broker": "mqtt://table7@broker.example"})
    assert status == 400 and "in clear" in answer["said"] and "s3cret" not in json.dumps(answer)  # the checker's
    status, answer = staff.call("POST", "/staff/api/files/broker", {**body, "broker": "mqtts://table7:pw@broker.example"})
    assert status == 400 and "in its own field" in answer["said"]
    ca, _ = self_signed(tmp_path, "cafe-ca")
    status, answer = staff.call("POST", "/staff/api/files/broker", {**body, "ca": ca.read_text()})
    assert status == 200 and "s3cret" not in json.dumps(answer), answer
    status, answer = staff.call("GET", "/staff/api/files")
    assert answer["broker"]["password_set"] is False  # what is in force: the table has not restarted on it yet
    fleet = settings(table)["fleet"]
    assert fleet["broker"] == "mqtts://table7@broker.example:8883" and fleet["table_id"] == "table-7"
    assert private(fleet["password_file"]) and Path(fleet["password_file"]).read_text() == "s3cret broker\n"
    assert "s3cret" not in table.config.read_text()
    assert Path(fleet["ca"]).read_text() == ca.read_text()  # the café's CA, for the broker's certificate


def test_the_blocked_words_are_written_one_a_line_and_none_clears_them(table):
    staff = owner(table)
    status, answer = staff.call("POST", "/staff/api/files/blocked-words", {"words": "rude\nworse words\n"})
    assert status == 400 and "one word a line: 'worse words' is more than one" in answer["said"]
    status, answer = staff.call("POST", "/staff/api/files/blocked-words", {"words": "x" * 41})
    assert status == 400 and "at most 40" in answer["said"]
    status, _ = staff.call("POST", "/staff/api/files/blocked-words", {"words": " rude \n\nrude\nworse\n"})
    assert status == 200
    file = settings(table)["night"]["blocked_words"]
    assert Path(file).read_text() == "rude\nworse\n" and private(file)
    trial.keep(table.config)
    status, _ = staff.call("POST", "/staff/api/files/blocked-words", {"words": "\n"})
    assert status == 200 and settings(table)["night"]["blocked_words"] == ""
    trial.keep(table.config)
    from pi_table.daemon.owner_files import prune

    prune(table.daemon.config)
    assert not os.path.exists(file)  # named by no settings the table could go back to
