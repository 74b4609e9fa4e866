"""No secret crosses the café's Wi-Fi in clear (issue 48, 4): the staff page and the set-up page,
where the PIN, the owner's passphrase and Wi-Fi passwords are typed, are served over https with
the table's own certificate on a port of their own, while the guests' pages stay http. Over plain
http from another machine those pages lead to their https address and refuse a secret unread;
the table's screen, its status and the set-up page give the certificate's fingerprint."""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import socket
import ssl
import subprocess
import urllib.error
import urllib.parse

import pytest

from pi_table.hal.screen import grouped
from pi_table.release.first_boot import TLS, TLS_CERT, TLS_KEY, fingerprint, pending

from helpers import pi_table, require_tools, self_signed, wait_for
from helpers_fleet import ON_THE_NETWORK
from helpers_phones import CHROMIUM, CHROMIUM_ARGS, plain, this_machines_address
from helpers_staff import OWNER_PASSPHRASE, STAFF_PIN, Staff
from helpers_tables import InProcessDaemon, StaffService

pytestmark = pytest.mark.daemon

def ports(service: StaffService) -> tuple[int, int]:
    status = service.status()
    return urllib.parse.urlsplit(status["companion"]).port, urllib.parse.urlsplit(status["staff"]).port


def test_the_staff_page_takes_its_secrets_over_https_only_and_the_guests_pages_stay_http(tmp_path):
    require_tools("openssl")
    service = StaffService(tmp_path, config=ON_THE_NETWORK)
    address = this_machines_address()
    try:
        service.start()
        status = service.status()
        assert status["staff"].startswith("https://") and status["companion"].startswith("http://")
        cert = tmp_path / TLS / TLS_CERT  # the table's own, made by the service for a table that had none
        assert status["certificate"] == fingerprint(cert) and len(status["certificate"]) == 95
        http_port, https_port = ports(service)

        answer, headers, _ = plain(address, http_port, "GET", "/staff")
        assert answer == 308 and headers["Location"] == f"https://{address}:{https_port}/staff"
        for _ in range(12):  # more wrong PINs than the door lets through: none is read, none is counted
            answer, _, body = plain(address, http_port, "POST", "/staff/login", {"pin": "000000"})
            refused = json.loads(body)
            assert answer == 403 and refused["https"] == f"https://{address}:{https_port}/staff/login"
            assert "over https only, never in clear" in refused["error"]
        assert plain(address, http_port, "POST", "/staff/recover", {"passphrase": OWNER_PASSPHRASE})[0] == 403
        assert plain(address, http_port, "GET", "/")[0] == 200  # a guest's page: no certificate to meet

        staff = Staff(f"https://{address}:{https_port}", cafile=cert, by_name=False)
        assert staff.login()[0] == 200  # not locked out by the dozen refused over http
        assert [cookie.secure for cookie in staff.cookies] == [True] * len(staff.cookies) and len(staff.cookies) >= 1
        staff.as_owner()
        # where the owner compares it with a new phone's warning: the same four groups as the screen's (issue 58, 8)
        assert staff.call("GET", "/staff/api/health")[1]["certificate"] == grouped(fingerprint(cert))
        told = pi_table("status", "--config", str(service.config), "--lang", "it")  # and where the owner types a command
        assert told.returncode == 0 and f"certificato della pagina (SHA-256): {grouped(fingerprint(cert))}" in told.stdout, \
            told.stdout
        other, _ = self_signed(tmp_path, "other")
        with pytest.raises(urllib.error.URLError, match="CERTIFICATE_VERIFY_FAILED"):  # the table's own is checked
            Staff(f"https://{address}:{https_port}", cafile=other, by_name=False).login()
        assert Staff(status["companion"].replace(address, "127.0.0.1")).login()[0] == 200  # this machine: no network
    finally:
        service.close()


def test_the_set_up_page_and_its_qr_code_lead_to_https_and_say_the_certificates_fingerprint(tmp_path):
    require_tools("openssl")
    service = StaffService(tmp_path, config=ON_THE_NETWORK, first_boot=True)
    address = this_machines_address()
    waiting = pending(tmp_path / "journal")
    assert waiting is not None
    try:
        service.start()
        cert = tmp_path / TLS / TLS_CERT  # made by the first boot
        http_port, https_port = ports(service)
        assert plain(address, http_port, "GET", "/setup")[1]["Location"] == f"https://{address}:{https_port}/setup"
        answer, _, _ = plain(address, http_port, "POST", "/setup/api", {"code": waiting.code, "pin": STAFF_PIN})
        assert answer == 403 and service.status()["set_up"] is False
        context = ssl.create_default_context(cafile=str(cert))
        context.check_hostname = False
        connection = http.client.HTTPSConnection(address, https_port, timeout=10, context=context)
        connection.request("GET", "/setup/api")
        about = json.loads(connection.getresponse().read())
        assert about["fingerprint"] == fingerprint(cert) and about["fingerprint_shown"] == grouped(fingerprint(cert))
    finally:
        service.close()


def test_a_damaged_certificate_leaves_the_secret_pages_to_this_machine_alone_and_says_what_to_do(tmp_path):
    """Issue 58, 2: with the table's own key and certificate damaged, the staff and set-up pages
    have no https. They answered every machine over plain http, a PIN or a passphrase crossing the
    café's Wi-Fi in clear, while the log said they answered this machine alone: now they do, and
    the screen and ``pi-table status`` say why and what to do, in the table's languages."""
    service = StaffService(tmp_path, config=ON_THE_NETWORK)
    (tmp_path / TLS).mkdir()
    (tmp_path / TLS / TLS_KEY).write_text("not a key\n")
    (tmp_path / TLS / TLS_CERT).write_text("not a certificate\n")
    address = this_machines_address()
    try:
        service.start()
        status = service.status()
        assert status["certificate"] is None
        http_port = urllib.parse.urlsplit(status["companion"]).port
        for path, body in (("/staff/login", {"pin": STAFF_PIN}), ("/staff/recover", {"passphrase": OWNER_PASSPHRASE}),
                           ("/setup/api", {"code": "12345678", "pin": STAFF_PIN})):
            answer, _, said = plain(address, http_port, "POST", path, body)
            assert answer == 403, path
            assert "answer this machine alone" in json.loads(said)["error"], path
        answer, _, page = plain(address, http_port, "GET", "/staff")
        assert answer == 403 and b"answer this machine alone" in page
        assert plain(address, http_port, "GET", "/")[0] == 200  # a guest's page carries no secret
        assert Staff(f"http://127.0.0.1:{http_port}").login()[0] == 200  # this machine: no network crossed

        [fault] = [warning for warning in status["warnings"] if "certificate" in warning]
        assert "answer this machine alone" in fault and f"{tmp_path / TLS}" in fault
        assert "move the damaged table.key and table.crt aside" in fault  # what to do, not only why
        told = pi_table("status", "--config", str(service.config), "--lang", "it")
        assert told.returncode == 0, told.stderr
        assert "rispondono solo a questa macchina" in told.stdout and "table.key" in told.stdout
    finally:
        service.close()


def names(cert) -> str:
    """The names a certificate is for, as openssl says them."""
    done = subprocess.run(["openssl", "x509", "-in", str(cert), "-noout", "-ext", "subjectAltName"],
                          capture_output=True, text=True, check=True)
    return done.stdout


def test_the_tables_certificate_names_the_address_phones_are_led_to_and_is_renewed_when_it_changes(tmp_path):
    """Issue 58, 8: the certificate named only the host's names while the redirect and the QR
    code lead phones to ``https://ADDRESS:8443``, so a browser checking it found a name mismatch
    on top of the unknown issuer. It names that address too, and one made for another address
    (the first boot's, before the network; a table moved) is renewed at the start with the same
    key: only the certificate changes, and the fingerprint the screen shows with it."""
    require_tools("openssl")
    from pi_table.release.first_boot import own_certificate

    address = this_machines_address()
    own_certificate(tmp_path / TLS)  # as the first boot makes it: no network, no address
    key = (tmp_path / TLS / TLS_KEY).read_bytes()
    first = fingerprint(tmp_path / TLS / TLS_CERT)
    assert "IP Address" not in names(tmp_path / TLS / TLS_CERT)
    service = StaffService(tmp_path, config=ON_THE_NETWORK)
    try:
        service.start()
        status = service.status()
        cert = tmp_path / TLS / TLS_CERT
        assert f"IP Address:{address}" in names(cert) and status["certificate"] == fingerprint(cert) != first
        assert (tmp_path / TLS / TLS_KEY).read_bytes() == key  # the same key: renewed, not replaced
        https_port = ports(service)[1]
        context = ssl.create_default_context(cafile=str(cert))  # the name checked, as a browser checks it
        connection = http.client.HTTPSConnection(address, https_port, timeout=10, context=context)
        connection.request("GET", "/staff")
        assert connection.getresponse().status == 200
        service.close()
        renewed = fingerprint(cert)
        service.start()  # the same address: nothing to renew
        assert fingerprint(cert) == renewed == service.status()["certificate"]
    finally:
        service.close()


def served_certificate(port: int) -> str:
    """The SHA-256 of the certificate the https pages hand a phone now, as ``fingerprint`` writes it."""
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw, context.wrap_socket(raw) as tls:
        der = tls.getpeercert(binary_form=True)
    assert der is not None
    return ":".join(f"{byte:02X}" for byte in hashlib.sha256(der).digest())


def test_the_certificate_is_renewed_when_the_address_changes_while_the_table_runs(tmp_path, monkeypatch):
    """Issue 58, 8: the certificate named the address the table had at its start, and a table
    that got another one while it ran (the café's router gave it a new lease, a cable plugged
    in) led phones to an address its certificate did not name until the next restart. The
    table notices the address the pages lead phones to change, renews its certificate for it
    with the same key, and the https pages hand the new one to the next phone: no restart."""
    require_tools("openssl")
    from pi_table.daemon import phones

    address = ["192.0.2.7"]  # what the table finds phones reach it by, from one moment to the next
    monkeypatch.setattr(phones, "_reachable_address", lambda host: address[0])
    config = tmp_path / "config.toml"
    config.write_text(ON_THE_NETWORK)
    table = InProcessDaemon(config)
    try:
        companion, cert = table.daemon.companion, tmp_path / TLS / TLS_CERT
        assert companion is not None and "IP Address:192.0.2.7" in names(cert)
        first = fingerprint(cert)
        assert served_certificate(companion.staff_port) == first == table.daemon.answer({"command": "status"})[
            "certificate"]
        key = (tmp_path / TLS / TLS_KEY).read_bytes()

        address[0] = "192.0.2.8"
        companion._address = None  # the pages ask again at once (they do every few seconds)
        assert companion.staff_url.startswith("https://192.0.2.8:")
        wait_for(lambda: served_certificate(companion.staff_port) != first, "the new certificate served", timeout=30)
        assert "IP Address:192.0.2.8" in names(cert) and "192.0.2.7" not in names(cert)
        assert served_certificate(companion.staff_port) == fingerprint(cert) == table.daemon.answer(
            {"command": "status"})["certificate"]
        assert (tmp_path / TLS / TLS_KEY).read_bytes() == key  # renewed, not replaced
    finally:
        table.close()


CBC = ("ECDHE-ECDSA-AES128-SHA256:ECDHE-ECDSA-AES256-SHA384:ECDHE-RSA-AES128-SHA256:ECDHE-RSA-AES256-SHA384:"
       "ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA:ECDHE-RSA-AES128-SHA:ECDHE-RSA-AES256-SHA")
"""TLS 1.2's CBC suites (MAC, then encrypt: the padding oracles' family), as a client offers them."""


def handshake(address: str, port: int, ciphers: str) -> str:
    """The suite a TLS 1.2 client offering ``ciphers`` alone agrees on with the server (an
    ssl.SSLError when none is shared)."""
    import socket

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    context.maximum_version = ssl.TLSVersion.TLSv1_2
    context.set_ciphers(ciphers)
    with socket.create_connection((address, port), timeout=10) as raw, context.wrap_socket(raw) as tls:
        return tls.cipher()[0]


def test_tls_1_2_takes_no_cbc_suite_only_aead_ones(tmp_path):
    """Issue 58, 8: TLS 1.2 still agreed on a CBC suite with a client that offered only those."""
    require_tools("openssl")
    service = StaffService(tmp_path, config=ON_THE_NETWORK)
    address = this_machines_address()
    try:
        service.start()
        https_port = ports(service)[1]
        with pytest.raises(ssl.SSLError):
            handshake(address, https_port, CBC)
        assert handshake(address, https_port, "ECDHE-ECDSA-AES128-GCM-SHA256") == "ECDHE-ECDSA-AES128-GCM-SHA256"
        assert handshake(address, https_port, "ECDHE-ECDSA-CHACHA20-POLY1305") == "ECDHE-ECDSA-CHACHA20-POLY1305"
    finally:
        service.close()


def spki_hash(cert) -> str:
    """The base64 SHA-256 of ``cert``'s public key, as Chromium names a certificate it is told to accept."""
    key = subprocess.run(["openssl", "x509", "-pubkey", "-noout", "-in", str(cert)], capture_output=True, check=True)
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=key.stdout, capture_output=True,
                         check=True)
    return base64.b64encode(hashlib.sha256(der.stdout).digest()).decode()


@pytest.mark.browser
def test_a_phone_meets_the_tables_own_certificate_once_accepts_it_and_logs_in_over_https(tmp_path):
    """In Chromium as on a phone: ``http://TABLE:8024/staff`` leads to the https page, which warns
    of a certificate it does not know (the interstitial a phone shows); a browser that accepted
    that one certificate, as the owner does after comparing its fingerprint, logs in over https
    and holds its session in Secure cookies. The guests' page needs no acceptance."""
    require_tools(CHROMIUM, "openssl")
    from playwright.sync_api import Error, expect, sync_playwright

    service = StaffService(tmp_path, config=ON_THE_NETWORK)
    address = this_machines_address()
    try:
        service.start()
        http_port, https_port = ports(service)
        accepted = f"--ignore-certificate-errors-spki-list={spki_hash(tmp_path / TLS / TLS_CERT)}"
        with sync_playwright() as playwright:
            warned = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = warned.new_page()
            page.goto(f"http://{address}:{http_port}/")  # a guest's page: plain http, no warning
            with pytest.raises(Error, match="ERR_CERT_AUTHORITY_INVALID"):
                page.goto(f"http://{address}:{http_port}/staff")
            warned.close()
            phone = playwright.chromium.launch(executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, accepted])
            context = phone.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
            page = context.new_page()
            page.goto(f"http://{address}:{http_port}/staff")
            assert page.url == f"https://{address}:{https_port}/staff"
            page.fill("#pin", STAFF_PIN)
            page.click("#login button")
            expect(page.locator("#login")).to_be_hidden()
            cookies = context.cookies()
            assert cookies and all(cookie["secure"] for cookie in cookies), cookies
            phone.close()
    finally:
        service.close()
