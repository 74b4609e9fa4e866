"""A phone on the staff page: the staff's and the owner's logins, the page as the daemon makes it, the
parts it gives each section."""

from __future__ import annotations

import http.client
import http.cookiejar
import io
import json
import subprocess
import tarfile
import urllib.error
import urllib.request
from pathlib import Path

from helpers import require_tools

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
        from pi_table.web.staff import CSRF_HEADER

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


def download_backup(staff: Staff) -> dict[str, bytes]:
    """The backup the owner downloads, unpacked: each file by its name."""
    from pi_table.web.staff import CSRF_HEADER

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


def staff_page(desk, folder, instead=None, **settings):
    """The staff page as the daemon makes it, with every section registered (web.sections), on the
    stand-in table ``desk`` (``daemon.staff_desk.FakeDesk``): each section given its stand-in, or
    ``instead``'s by its name."""
    from pi_table.daemon.staff_parts import stand_in_page  # aiohttp: loaded by the tests of the pages alone

    return stand_in_page(desk, folder, instead, **settings)


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


def part(daemon, section: str):
    """The part of ``daemon``'s table its staff page gave the section named ``section`` (``daemon.staff_parts``)."""
    return next(made for made in daemon.companion.staff.sections if made.name == section).table


def daemon_staff(daemon):
    assert daemon.companion is not None and daemon.companion.staff is not None
    return daemon.companion.staff
