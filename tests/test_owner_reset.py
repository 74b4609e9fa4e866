"""The owner's ways back (issue 58, 1): the buttons' reset is a factory reset of the owner's part,
the owner's own way back is the recovery code shown once at the set-up, and either leaves a
lasting notice until the owner acknowledges it (docs/cafe/roles.md, docs/dev/security.md)."""

from __future__ import annotations

import io
import json
import tarfile
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from pi_table.daemon import backup
from pi_table.release import helper, requests
from pi_table.release.keys import Keyring
from pi_table.release.layout import Releases
from pi_table.release.service_user import ServiceUser

from helpers import OWNER_PASSPHRASE, InProcessDaemon, Staff, StaffTable, dealt_key, wait_for
from test_keys_page import make_key

BROKER_SECRET = "the-broker-password-58"
FLEET = f'[fleet]\nbroker = "mqtts://t1:{BROKER_SECRET}@127.0.0.1:1"\ntable_id = "t1"\n'
HOLDERS_PASSPHRASE = "the holder's own passphrase"


class HelperAtWork:
    """The root helper as pi-table-helper.path runs it: each request the table leaves in ``spool``
    taken and acted on by the real helper, on a keyring and releases' folder of the test's own."""

    def __init__(self, folder: Path) -> None:
        self.spool = folder / "spool"
        self.keyring = Keyring(folder / "pi-table-keys")
        self.acts = helper.Helper(Releases(folder / "home"), self.keyring, ServiceUser(None))
        self.done: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(0.05):
            if (self.spool / requests.REQUEST).exists():
                self.done.append(helper.act(self.acts, self.spool))

    def serve(self, daemon) -> None:
        """``daemon``'s staff page asks this helper, and its keys section reads this keyring."""
        desk = daemon.staff_desk
        desk.spool, desk.home, desk.helper_missing = self.spool, self.acts.releases.home, lambda: None
        keys = next(section for section in daemon.companion.staff.sections if section.name == "keys")
        keys.keyring, keys.home = self.keyring, self.acts.releases.home

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def download_backup(staff: Staff) -> dict[str, bytes]:
    """The backup the owner downloads, unpacked: each file by its name."""
    from pi_table.web.staff import CSRF_HEADER

    request = urllib.request.Request(staff.base + "/staff/api/backup", headers={CSRF_HEADER: staff.csrf or ""})
    with staff.opener.open(request, timeout=30) as answer:
        data = answer.read()
    with tarfile.open(fileobj=io.BytesIO(data)) as packed:
        return {member.name: packed.extractfile(member).read() for member in packed.getmembers() if member.isfile()}


@pytest.mark.daemon
def test_staff_at_the_buttons_reset_the_passphrase_and_get_none_of_the_owners_secrets(tmp_path):
    """The harm (issue 58, 1): a staff session and the code the table's screen shows after both
    buttons were held made the holder the owner with everything the owner held: a backup with
    the broker's password, the nightly backups, the release keys the owner added. The reset now
    wipes the owner's part before the new passphrase is set."""
    (tmp_path / "table").mkdir()
    at_work = HelperAtWork(tmp_path)
    table = StaffTable(tmp_path / "table", dealt_key(), extra=FLEET)
    daemon = table.daemon
    try:
        at_work.serve(daemon)
        owner = Staff(table.base)
        owner.login()
        owner.as_owner()
        public = make_key(tmp_path)
        assert owner.call("POST", "/staff/api/keys", {"act": "add", "name": "owner", "key": public})[0] == 202
        wait_for(lambda: [key.name for key in at_work.keyring.listed()] == ["owner"], "the owner's key added")
        assert BROKER_SECRET.encode() in download_backup(owner)["config.toml"]  # the owner's own backup holds it
        nightly = backup.folder(daemon.config) / "nightly-20261126-040000.tar.gz"
        nightly.parent.mkdir(parents=True, exist_ok=True)
        nightly.write_bytes(backup.make(daemon.config))

        holder = Staff(table.base)  # a member of staff: the PIN, never the passphrase
        holder.login()
        code = daemon.recovery.issue()  # as both buttons held while the table starts show it, on its screen
        status, answer = holder.call("POST", "/staff/api/owner/reset", {"code": code, "passphrase": HOLDERS_PASSPHRASE})
        assert status == 200, answer
        if answer.get("restarting"):  # the table starts again on what is left
            wait_for(lambda: daemon.restarting, "the restart the reset announced", timeout=15)
            table.close()
            table = InProcessDaemon(tmp_path / "table" / "config.toml")
            daemon = table.daemon
            at_work.serve(daemon)
            holder.base = owner.base = daemon.companion.base_url
        holder.as_owner(HOLDERS_PASSPHRASE)
        backed_up = download_backup(holder)
        assert BROKER_SECRET.encode() not in b"".join(backed_up.values()), "the broker's password was handed over"
        assert holder.call("GET", "/staff/api/backups")[1]["nightly"] == [], "the owner's nightly backups were handed over"
        assert not any(key.name == "owner" and not key.revoked for key in at_work.keyring.listed()), \
            "the owner's release key still lets releases in"
        assert owner.call("POST", "/staff/api/owner", {"passphrase": OWNER_PASSPHRASE})[0] == 403
    finally:
        at_work.stop()
        table.close()
