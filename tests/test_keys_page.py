"""The releases' keyring on the staff page (issue 50, 4): the owner adds a release key (its public
half pasted or uploaded) or revokes one, the root helper changes /etc/pi-table-keys as RAUC's
keyring is changed (a revoked key never accepted again), and the page lists each key's
fingerprint as ssh-keygen prints it. The page asks; only the helper writes the keyring."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from pi_table.release import ReleaseError, helper, requests
from pi_table.release.keys import Keyring
from pi_table.release.layout import Releases
from pi_table.release.service_user import ServiceUser

from helpers_games import dealt_key
from helpers_staff import Staff, make_key
from helpers_tables import StaffTable


def fingerprint_of(folder: Path, name: str = "owner") -> str:
    return subprocess.run(["ssh-keygen", "-l", "-f", str(folder / f"{name}.pub")], capture_output=True, text=True,
                          check=True).stdout.split()[1]


@pytest.mark.parametrize("request_, why", [
    ({"act": "keys-add", "name": "owner", "key": "ssh-rsa AAAAB3NzaC1yc2E owner"}, "expected an Ed25519 public key"),
    ({"act": "keys-add", "name": "owner", "key": "ssh-ed25519 AAAAC3Nz\nssh-ed25519 AAAAC3Nz"},
     "expected an Ed25519 public key"),
    ({"act": "keys-add", "name": "the owner", "key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5"}, "a key's name is 1 to 64"),
    ({"act": "keys-revoke", "name": "--all"}, "a key's name is 1 to 64"),
    ({"act": "keys-revoke", "name": "owner", "key": "x"}, "the request keys-revoke takes name, not 'key'"),
])
def test_a_key_request_out_of_its_shape_is_refused_before_anything_runs(request_, why):
    with pytest.raises(ReleaseError) as refused:
        requests.check(request_)
    assert str(refused.value).startswith(why)


@pytest.mark.daemon
def test_the_owner_adds_and_revokes_a_release_key_on_the_page_and_its_fingerprint_is_listed(tmp_path):
    (tmp_path / "table").mkdir()
    public = make_key(tmp_path)
    keyring = Keyring(tmp_path / "pi-table-keys")
    acts = helper.Helper(Releases(tmp_path / "home"), keyring, ServiceUser(None))
    spool = tmp_path / "spool"
    table = StaffTable(tmp_path / "table", dealt_key())
    try:
        daemon = table.daemon
        assert daemon.helper is not None
        daemon.helper.spool, daemon.helper.helper_missing = spool, lambda: None
        assert daemon.companion is not None and daemon.companion.staff is not None
        keys = next(section for section in daemon.companion.staff.sections if section.name == "keys")
        keys.keyring, keys.home = keyring, acts.releases.home  # type: ignore[attr-defined]
        staff = Staff(table.base)
        staff.login()
        assert staff.call("GET", "/staff/api/keys") == (200, {"keys": [], "last": None})
        status, answer = staff.call("POST", "/staff/api/keys", {"act": "add", "name": "owner", "key": public})
        assert status == 403 and answer["owner"] == "needed" and not spool.exists()
        staff.as_owner()
        status, answer = staff.call("POST", "/staff/api/keys", {"act": "add", "name": "owner", "key": "not a key"})
        assert status == 400 and answer["error"].startswith("expected an Ed25519 public key")
        assert staff.call("POST", "/staff/api/keys", {"act": "add", "name": "owner", "key": public}) == (202, {"ok": True})
        assert json.loads((spool / requests.REQUEST).read_text()) == {"act": "keys-add", "name": "owner",
                                                                      "key": public.strip()}
        assert helper.act(acts, spool) == 0  # the root helper takes it
        status, seen = staff.call("GET", "/staff/api/keys")
        assert seen["keys"] == [{"name": "owner", "fingerprint": fingerprint_of(tmp_path), "revoked": False}]
        assert seen["last"]["act"] == "keys-add" and seen["last"]["outcome"] == "done"
        assert staff.call("POST", "/staff/api/keys", {"act": "revoke", "name": "owner"}) == (202, {"ok": True})
        assert helper.act(acts, spool) == 0
        seen = staff.call("GET", "/staff/api/keys")[1]
        assert seen["keys"] == [{"name": "owner", "fingerprint": fingerprint_of(tmp_path), "revoked": True}]
        assert staff.call("POST", "/staff/api/keys", {"act": "add", "name": "again", "key": public})[0] == 202
        assert helper.act(acts, spool) == 1  # a revoked key is never accepted again, as RAUC's keyring
        staff.lang = "it"
        seen = staff.call("GET", "/staff/api/keys")[1]
        assert seen["last"]["outcome"] == "failed" and fingerprint_of(tmp_path) in seen["last"]["why"]
        assert seen["last"]["why"] != "the key {fingerprint} was revoked" and "revocat" in seen["last"]["why"]
        assert [key.name for key in keyring.listed()] == ["owner"]
    finally:
        table.close()
