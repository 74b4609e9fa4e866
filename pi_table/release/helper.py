"""The root helper: ``/opt/pi-table/helper ACT``, run as root with the system's Python, from the
copy of pi-table the installer put in /opt/pi-table/lib: never from a release, so nothing an
update brings is ever run by root (systemd/pi-table-helper). Its acts:

- ``install --source DIR [--extras E] [--bundle FILE]``: install.sh's step: the checkout's release
  built (its wheels by the service's user), or a signed bundle's (the SD image's), and switched
  to: a first install is an update with nothing to go back to;
- ``request``: the one request the service left in its spool folder (pi-table-helper.service,
  started by pi-table-helper.path): an update, a reboot, a power off, the time zone, the table's
  own Wi-Fi opened or a Wi-Fi joined (``network``), the security updates started, a release key
  added or revoked (``keys``), the cable's address or the host name tried (``network``), this table
  made the café's broker, its tables given their passwords or one taken off (``broker``), the
  owner's part root holds wiped (``owner-wipe``: the buttons' reset), nothing else;
- ``first-boot``: a table's first start from the SD image (pi-table-first-boot.service): its
  secrets made on the device, and its set-up waiting (``first_boot``);
- ``starting`` and ``started``: pi-table.service's ExecStartPre= and ExecStartPost=, which count
  a trial's starts (rolling back one that did not survive its start) and prove it once the
  running table answers ``status`` with the trial's version, healthy;
- ``security``: pi-table-security.service's, which the request ``security`` starts: Debian's
  security updates applied and the table's health asked after them (``system``);
- ``keys list|add|revoke``: the releases' keyring (``keys``), for the owner.
- ``stick [--restore BACKUP]``: pi-table-stick.service's, the nightly backup written to a USB stick,
  and pi-table-stick-restore@.service's, a backup copied from one for the set-up page (``stick``).

What root does itself: checks a bundle's signature and unpacks its files, makes and switches
links, writes notes, restarts, reboots, powers off; asks NetworkManager (nmcli) and timedated
(timedatectl) for the network and the time zone; makes a table's secrets at its first boot;
writes Mosquitto's files (openssl making the broker's certificate) and restarts it. Everything that runs other code (pip, git,
the release's own ``status``) runs as the service's user (``service_user``).
"""

from __future__ import annotations

import argparse
import fcntl
import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..engine.phrase import N_
from ..files import read_json
from . import broker, bundle, network, requests, stick, system
from .first_boot import CONFIG, awaiting, first_boot, journal_folder
from .keys import KEYRING, Keyring
from .layout import CURRENT, DONE, HOME, ORIGIN, ReleaseError, Releases, tree_files, version_key, why
from .requests import Request
from .service_user import USER, ServiceUser
from .wheels import Wheels, built, make_release

STATUS_S = 30.0  # one ask of the table's status
HEALTHY_S = 600.0  # the table's start on a patched system, a Pi 3's slowest (75-100 s seen) many times over
DOWN_S = 10.0  # the table neither running nor starting this long: systemd gave up on it (it restarts a failed start in 2 s)
INCOMING = ".incoming"
BACKUPS = "backups"  # beside the journal folder (config.trial.BACKUPS, a layer above this one)


@dataclass(frozen=True)
class Helper:
    """What the acts work with: the releases, the keyring that says which releases may come in,
    the service's user that builds them, systemctl and timedatectl (stubs in tests), the
    table's configuration (which names its journal folder: whether it waits for its set-up), and
    Mosquitto's files and unit, should the owner make this table the café's broker."""

    releases: Releases
    keyring: Keyring
    user: ServiceUser
    systemctl: Sequence[str] = ("systemctl",)
    timedatectl: Sequence[str] = ("timedatectl",)
    config: Path = CONFIG
    upgrade: Sequence[str] = ("unattended-upgrade", "-v")
    dpkg_query: Sequence[str] = ("dpkg-query",)
    reboot_flag: Path = system.REBOOT_FLAG
    mosquitto: broker.Broker = field(default_factory=broker.Broker)
    stick: stick.Tools = field(default_factory=stick.Tools)


@contextmanager
def locked(releases: Releases) -> Iterator[None]:
    """One change of the links and notes at a time (the update, a start's check)."""
    releases.home.mkdir(parents=True, exist_ok=True)
    with open(releases.home / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def release_data(releases: Releases, name: str | None) -> dict[str, Any]:
    try:
        data = read_json((releases.releases / str(name) / DONE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


@contextmanager
def incoming(releases: Releases) -> Iterator[Path]:
    """Root's scratch folder beside the releases (the service's user may read what is put there
    for it: a bundle's wheels), emptied before and after."""
    folder = releases.releases / INCOMING
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(mode=0o755, parents=True)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def install(helper: Helper, source: Path, extras: str, log: IO[str] = sys.stdout, signed: Path | None = None) -> str:
    """install.sh's step: the checkout's wheels built by the service's user from a copy of what
    git tracks in it (or, for a tree that is no clone, its files), the release made and current,
    and where it came from noted. ``signed``: the wheels of that bundle instead, its signature
    checked against the keyring as an update's is (the SD image is installed so: updates then
    come as bundles, and no repository is noted)."""
    releases = helper.releases
    with incoming(releases) as scratch:
        if signed is not None:
            wheels, signer = bundle.unpack(signed, scratch / "bundle", helper.keyring)
            print(f"bundle of pi-table {wheels.version}, signed with key {signer}", file=log, flush=True)
        else:
            tree = scratch / "tree"
            tree.mkdir()
            if (source / ".git").exists() and shutil.which("git"):
                bundle.export(source, tree, dirty=True)
            else:
                for path in tree_files(source):
                    (tree / path).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(source / path, tree / path)
            helper.user.give(tree)
            wheels = built(tree, extras, scratch, helper.user, log)
        name = make_release(releases, wheels, extras, helper.user, log)
    with locked(releases):
        releases.switch(name, "install")
    origin = git_origin(source) if signed is None else None
    if origin is not None:
        releases.write_note(ORIGIN, origin)
    return name


def git_origin(source: Path) -> dict[str, str] | None:
    """The repository and branch of the checkout ``source`` (a newer version there is offered),
    None when it is no git checkout. Read as root in the café's clone: git's safe.directory allows it."""
    if shutil.which("git") is None or not (source / ".git").exists():
        return None

    def git(*args: str) -> str | None:
        done = subprocess.run(["git", "-c", "safe.directory=*", "-C", str(source), *args], capture_output=True,
                              text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else None

    branch = git("rev-parse", "--abbrev-ref", "HEAD")
    if not branch or branch == "HEAD":
        return None
    return {"repository": git("remote", "get-url", "origin") or str(source), "branch": branch}


def clone_command(origin: dict[str, Any], into: Path) -> list[str]:
    """git's command for the newest tree of the table's branch, one commit, into ``into``."""
    return ["git", "clone", "--quiet", "--depth", "1", "--branch", str(origin["branch"]), "--",
            str(origin["repository"]), str(into)]


def from_repository(helper: Helper, origin: dict[str, Any], extras: str, scratch: Path, log: IO[str]) -> Wheels:
    """The wheels of the newest commit of the table's branch: cloned, its signature checked
    against the keyring and built, all by the service's user. A commit not signed with an
    accepted key is refused: an update from the repository is signed as a bundle is."""
    user, keyring = helper.user, helper.keyring
    home = scratch / "git-home"
    home.mkdir(parents=True)
    user.give(scratch)
    clone = scratch / "clone"
    try:
        user.run(clone_command(origin, clone), log, "git clone", home)
    except ReleaseError:
        raise ReleaseError(N_("the repository {repository} cannot be read (the helper's log says why)"),
                           repository=str(origin["repository"])) from None
    checks = ["-c", f"gpg.ssh.allowedSignersFile={keyring.allowed}"]
    if keyring.revoked.is_file():
        checks += ["-c", f"gpg.ssh.revocationFile={keyring.revoked}"]
    try:
        user.run(["git", *checks, "-C", str(clone), "verify-commit", "HEAD"], log, "git verify-commit", home)
    except ReleaseError:
        raise ReleaseError(N_("the newest commit of branch {branch} is not signed with a key this table accepts"),
                           branch=str(origin["branch"])) from None
    return built(clone, extras, scratch, user, log)


def take_bundle(spool: Path, name: str, into: Path) -> Path:
    """The uploaded bundle copied out of the service's folder into root's (so it cannot change
    while it is checked), then removed from the spool."""
    path = spool / name
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise ReleaseError(N_("the bundle {bundle} cannot be read ({error})"), bundle=name,
                           error=e.strerror or type(e).__name__) from None
    copy = into / "bundle.tar.gz"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ReleaseError(N_("the bundle {bundle} is not a plain file"), bundle=name)
        with os.fdopen(os.dup(fd), "rb") as source, open(copy, "wb") as out:
            copied = 0
            while chunk := source.read(1 << 20):
                copied += len(chunk)
                if copied > bundle.MAX_BUNDLE:
                    raise ReleaseError(N_("the bundle is {size} MB; a bundle is at most {most} MB"),
                                       size=f"over {bundle.MAX_BUNDLE // 2**20}", most=bundle.MAX_BUNDLE // 2**20)
                out.write(chunk)
    finally:
        os.close(fd)
        path.unlink(missing_ok=True)
    return copy


def update(helper: Helper, request: Request, spool: Path, log: IO[str] = sys.stdout) -> str:
    """Build the new release beside the running one, switch, restart, and wait for the table to be
    proven on it (by the start's ExecStartPost=) or rolled back (by the next start's ExecStartPre=,
    when it could not start); past the deadline, roll it back here. The outcome, in a word."""
    releases, systemctl = helper.releases, helper.systemctl
    running = release_data(releases, releases.linked(CURRENT))
    with incoming(releases) as scratch:
        if request["from"] == "bundle":
            wheels, signer = bundle.unpack(take_bundle(spool, request["bundle"], scratch), scratch / "bundle",
                                           helper.keyring)
            print(f"bundle of pi-table {wheels.version}, signed with key {signer}", file=log, flush=True)
        else:
            origin = releases.note(ORIGIN)
            if origin is None:
                raise ReleaseError(N_("this table was not installed from a git repository: update it with a bundle"))
            wheels = from_repository(helper, origin, running.get("extras", ""), scratch / "repository", log)
        if running and version_key(wheels.version) <= version_key(running.get("version", "0")):
            raise ReleaseError(N_("version {version} is not newer than the running {running}"),
                               version=wheels.version, running=running.get("version"))
        name = make_release(releases, wheels, running.get("extras", ""), helper.user, log)
    with locked(releases):
        trial = releases.switch(name, "update")
    print(f"switched to {name}; restarting pi-table", file=log, flush=True)
    subprocess.run([*systemctl, "restart", "pi-table.service"], check=False)
    if trial is None:
        return "done"
    return settle(helper, name)


def settle(helper: Helper, name: str, clock: Callable[[], float] = time.monotonic,
           sleep: Callable[[float], None] = time.sleep) -> str:
    """Wait for the trial of release ``name`` to be decided by the table's starts: proven by a
    start's ExecStartPost= (``started``), or rolled back by the next start's ExecStartPre=
    (``starting``). How long a start may take is the unit's own ``TimeoutStartSec=`` (a slow
    machine's drop-in raises it), never a clock of the helper's: this waits while systemd says
    the table is starting. The trial is rolled back here only when the table is running and its
    start did not prove it, or when systemd stopped starting it (``DOWN_S``)."""
    releases, systemctl = helper.releases, helper.systemctl
    down_since = None
    while True:
        state = unit_state(systemctl)  # read before the trial: a start is over once it says active
        pending = releases.trial()
        if pending is None or pending.release != name:
            return "rolled back" if releases.linked(CURRENT) != name else "done"
        if state in ("activating", "deactivating", "reloading"):
            down_since = None
        elif state == "active":
            break
        elif down_since is None:
            down_since = clock()
        elif clock() - down_since > DOWN_S:
            break
        sleep(1)
    with locked(releases):
        pending = releases.trial()
        if pending is None or pending.release != name:
            return "rolled back" if releases.linked(CURRENT) != name else "done"
        releases.roll_back(pending, why(N_("the table started on release {release} but was not healthy") if state == "active"
                                        else N_("the table stopped restarting on release {release}"), release=name))
    subprocess.run([*systemctl, "restart", "pi-table.service"], check=False)
    return "rolled back"


def unit_state(systemctl: Sequence[str]) -> str:
    """pi-table.service's ``ActiveState`` as systemd has it: activating (a start under way, or
    the wait before the next one), active, deactivating, failed, inactive."""
    done = subprocess.run([*systemctl, "show", "--property=ActiveState", "--value", "pi-table.service"],
                          capture_output=True, text=True, timeout=30, check=False)
    return done.stdout.strip()


def act(helper: Helper, spool: Path, log: IO[str] = sys.stdout) -> int:
    """The request waiting in ``spool``, done; a refused or failed one noted (for the staff page) and logged."""
    releases = helper.releases
    try:
        request = requests.take(spool)
    except ReleaseError as e:
        print(f"refused: {e}", file=sys.stderr, flush=True)
        releases.note_act({"act": "unknown", "outcome": "refused", "at": time.time(), "why": e.why})
        return 1
    print(f"request: {request['act']}", file=log, flush=True)
    if request["act"] in NETWORK:
        return _network(helper, request, log, lambda: NETWORK[request["act"]](helper, request))
    if request["act"] in TRIED:
        return _network(helper, request, log, lambda: TRIED[request["act"]](helper.releases, spool, request))
    if request["act"] == "security":
        return _security_asked(helper)
    if request["act"] in ("keys-add", "keys-revoke"):
        return _keys_asked(helper, request, log)
    if request["act"] in broker.ACTS:
        return _broker_asked(helper, request, log)
    if request["act"] == "owner-wipe":
        return _owner_wipe(helper, log)
    if request["act"] == stick.ACT:
        return _stick_asked(helper, stick.ACT, stick.UNIT)
    if request["act"] == stick.FROM_ACT:
        return _stick_asked(helper, stick.FROM_ACT, stick.FROM_UNIT.format(backup=stick.chosen(request["backup"])))
    if request["act"] in ("reboot", "poweroff"):
        releases.note_act({"act": request["act"], "outcome": "done", "at": time.time(),
                           "why": why(N_("asked from the staff page"))})
        return subprocess.run([*helper.systemctl, request["act"]], check=False).returncode
    try:
        outcome = update(helper, request, spool, log)
    except ReleaseError as e:
        print(f"update failed: {e}", file=sys.stderr, flush=True)
        releases.note_act({"act": "update", "outcome": "failed", "at": time.time(), "why": e.why})
        return 1
    print(f"update: {outcome}", file=log, flush=True)
    return 0


def _network(helper: Helper, request: Request, log: IO[str], do: Callable[[], object]) -> int:
    """The time zone set, the table's own Wi-Fi opened or a Wi-Fi joined, an address or the host
    name tried (``do`` does it); how it ended noted for the pages."""
    releases, act = helper.releases, request["act"]
    note: dict[str, object] = {"act": act, "at": time.time(),
            **{key: request[key] for key in ("ssid", "zone", "device", "method", "address", "name") if key in request}}
    try:
        do()
    except ReleaseError as e:
        print(f"{act} failed: {e}", file=sys.stderr, flush=True)
        outcome = "rolled back" if isinstance(e, network.NotReached) else "failed"
        releases.note_act({**note, "outcome": outcome, "why": e.why})
        return 1
    print(f"{act}: done", file=log, flush=True)
    releases.note_act({**note, "outcome": "done", "why": None})
    return 0


def set_zone(helper: Helper, request: Request) -> None:
    """The system's time zone, one the system knows, set by systemd's timedated."""
    import zoneinfo  # this act only

    zone = request["zone"]
    if zone not in zoneinfo.available_timezones():
        raise ReleaseError(N_("{zone} is not a time zone this system knows"), zone=zone)
    done = subprocess.run([*helper.timedatectl, "set-timezone", zone], capture_output=True, text=True, timeout=30,
                          check=False)
    if done.returncode != 0:
        raise ReleaseError(N_("the time zone could not be set ({error})"),
                           error=(done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1][:200])


def open_hotspot(helper: Helper, request: Request) -> None:
    """The table's own Wi-Fi, the networks seen before it opened kept for the set-up page: only
    for a table waiting for its set-up (``awaiting``: the helper's own reading, not the
    service's word), and only the Wi-Fi that set-up names."""
    waiting = awaiting(journal_folder(helper.config))
    if waiting is None:
        raise ReleaseError(N_("the table is set up: it opens its own Wi-Fi only while it waits for its set-up"))
    if (request["ssid"], request["password"]) != (waiting.ssid, waiting.password):
        raise ReleaseError(N_("the table's own Wi-Fi is the one its set-up names, not another"))
    seen = network.open_hotspot(request["ssid"], request["password"])
    helper.releases.write_note(network.NETWORKS, {"at": time.time(), "networks": [each.to_json() for each in seen]})


NETWORK: dict[str, Callable[[Helper, Request], object]] = {"timezone": set_zone, "hotspot": open_hotspot,
           "wifi": lambda helper, request: network.join(request["ssid"], request["password"])}
"""The acts that change the table's network or its clock's zone, each done as ``act`` notes it."""

TRIED: dict[str, Callable[[Releases, Path, Request], object]] = {"ipv4": network.change_ipv4,
         "hostname": lambda releases, spool, request: network.change_host_name(releases, spool, request["name"])}
"""The network's changes that are trials: kept once the staff page is reached after them (issue 50, 7)."""


def started(releases: Releases, status: Sequence[str], proof_s: float | None = None) -> str:
    """ExecStartPost=: a trial's release proven once the table's status (``status``: the
    command, run as the service's user) answers with its version and says it is healthy as a
    change on trial must be (its loop, its phones' and staff pages answering). A release from
    before that answer (a step back by a bundle) is proven by its version alone, as it was then.
    It asks until then, or for ``proof_s``: under systemd, the start's own ``TimeoutStartSec=``
    ends a start never proven, and the next start (``starting``) rolls it back."""
    trial = releases.trial()
    if trial is None or releases.linked(CURRENT) != trial.release:
        return "no trial"
    wanted = release_data(releases, trial.release).get("version")
    deadline = None if proof_s is None else time.monotonic() + proof_s
    while deadline is None or time.monotonic() < deadline:
        answered, healthy = asked_status(status)
        if answered == wanted and healthy:
            with locked(releases):
                if releases.trial() == trial:
                    releases.prove(trial)
                    return f"release {trial.release} is proven"
        time.sleep(0.5)
    return f"release {trial.release} is not proven yet: its status did not answer {wanted}, healthy"


def asked_status(status: Sequence[str]) -> tuple[str | None, bool]:
    """One ask of the running table's status (``status``: the command, run as the service's user):
    the version it answered (None: no answer) and whether it says it is healthy. A status that
    hangs is asked again by the caller; a slow processor's may take seconds to load."""
    try:
        done = subprocess.run(status, capture_output=True, text=True, timeout=STATUS_S, check=False)
        answer = read_json(done.stdout)
        answered = answer.get("version") if done.returncode == 0 else None
        return answered, answer.get("healthy", {"ok": True})["ok"] is True
    except (subprocess.TimeoutExpired, ValueError, AttributeError, TypeError, KeyError):
        return None, False


def security(helper: Helper, status: Sequence[str], healthy_s: float = HEALTHY_S,
             log: IO[str] = sys.stdout) -> dict[str, Any]:
    """pi-table-security.service's act: Debian's security updates applied (``system.patch``), and
    when anything changed, the table restarted on the patched system and asked for its health
    for ``healthy_s``: one that does not answer healthy is noted ``unhealthy`` for the staff
    page's headline, never left unsaid. The run's note."""
    releases = helper.releases
    began = time.time()
    system.begun(releases, began)
    print("security updates: unattended-upgrade", file=log, flush=True)
    try:
        found, failed = system.patch(helper.upgrade, helper.dpkg_query, log)
    except ReleaseError as e:
        return system.noted(releases, began, "failed", [], system.reboot_due(helper.reboot_flag), e.why)
    for each in found:
        print(f"security updates: {each['package']} {each['from'] or '-'} -> {each['to'] or '-'}", file=log, flush=True)
    outcome, reason = ("failed", why(N_("unattended-upgrade failed: {error}"), error=failed)) if failed is not None \
        else ("done", None) if found else ("nothing", None)
    if found:
        system.applied(releases, found)
        subprocess.run([*helper.systemctl, "restart", "pi-table.service"], check=False)
        deadline = time.monotonic() + healthy_s
        while (answer := asked_status(status))[0] is None or not answer[1]:
            if time.monotonic() > deadline:
                outcome, reason = "unhealthy", system.unhealthy(max(1, round(healthy_s / 60)), found)
                print(f"security updates: the table is not healthy on them after {healthy_s:g} s", file=sys.stderr,
                      flush=True)
                break
            time.sleep(1)
    return system.noted(releases, began, outcome, found, system.reboot_due(helper.reboot_flag), reason)


def _security_asked(helper: Helper) -> int:
    """The request ``security``: pi-table-security.service started (it runs as root outside this
    unit's sandbox, since apt writes the whole system); a unit that cannot be started noted."""
    done = subprocess.run([*helper.systemctl, "start", "--no-block", system.UNIT], capture_output=True, text=True,
                          timeout=60, check=False)
    if done.returncode == 0:
        print(f"security: {system.UNIT} started", file=sys.stdout, flush=True)
        return 0
    error = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1][:200]
    print(f"security: {system.UNIT} cannot be started: {error}", file=sys.stderr, flush=True)
    system.noted(helper.releases, time.time(), "failed", [], None,
                 why(N_("the security updates cannot be started ({error}): sudo systemd/install.sh installs them"),
                     error=error))
    return 1


def _stick_asked(helper: Helper, act: str, unit: str) -> int:
    """The request ``backup-to-stick`` (or ``backup-from-stick``): ``unit`` started, whose sandbox
    may mount a stick (this unit's may not); a unit that cannot be started noted."""
    done = subprocess.run([*helper.systemctl, "start", "--no-block", unit], capture_output=True, text=True,
                          timeout=60, check=False)
    if done.returncode == 0:
        print(f"{act}: {unit} started", flush=True)
        return 0
    error = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1][:200]
    print(f"{act}: {unit} cannot be started: {error}", file=sys.stderr, flush=True)
    helper.releases.note_act({"act": act, "outcome": "failed", "at": time.time(),
                              "why": why(N_("the stick's backup cannot be started ({error})"), error=error)})
    return 1


def to_stick(helper: Helper, log: IO[str] = sys.stdout) -> int:
    """pi-table-stick.service's act: the newest nightly backup of the table's backups folder (beside
    the journal folder its configuration names) written to the stick plugged in, and noted; with
    no stick (or no backup yet) nothing is noted: the page keeps showing the stick's last backup."""
    note: dict[str, object] = {"act": stick.ACT, "at": time.time()}
    try:
        backups = journal_folder(helper.config).parent / BACKUPS
        done = stick.backup_to_stick(backups, helper.user.uid, helper.stick)
    except ReleaseError as e:
        print(f"{stick.ACT} failed: {e}", file=sys.stderr, flush=True)
        helper.releases.note_act({**note, "outcome": "failed", "why": e.why})
        return 1
    if done is None:
        print(f"{stick.ACT}: no stick plugged in, or no nightly backup yet", file=log, flush=True)
        return 0
    print(f"{stick.ACT}: {done['backup']} written to {done['stick']}", file=log, flush=True)
    helper.releases.note_act({**note, **done, "outcome": "done", "why": None})
    return 0


def from_stick(helper: Helper, backup: str, log: IO[str] = sys.stdout) -> int:
    """pi-table-stick-restore@.service's act: the backup asked for (``newest``, or a name the
    stick lists) copied from the stick plugged in into the table's backups folder, a file of the
    service's user, and noted with the stick's listing: the set-up page restores it from there."""
    note: dict[str, object] = {"act": stick.FROM_ACT, "at": time.time()}
    try:
        backups = journal_folder(helper.config).parent / BACKUPS
        done = stick.backup_from_stick(backups, stick.chosen(backup), helper.user.uid, helper.user.gid, helper.stick)
    except ReleaseError as e:
        print(f"{stick.FROM_ACT} failed: {e}", file=sys.stderr, flush=True)
        helper.releases.note_act({**note, "outcome": "failed", "why": e.why})
        return 1
    print(f"{stick.FROM_ACT}: {done['backup']} copied from {done['stick']}", file=log, flush=True)
    helper.releases.note_act({**note, **done, "outcome": "done", "why": None})
    return 0


def _keys_asked(helper: Helper, request: Request, log: IO[str]) -> int:
    """A key added to the releases' keyring or revoked, asked from the staff page (the owner's):
    what ``keys add|revoke`` does, its outcome noted for the page with the key's fingerprint."""
    act, name = request["act"], request["name"]
    note = {"act": act, "name": name, "at": time.time()}
    try:
        key = helper.keyring.add(request["key"], name, owners=True) if act == "keys-add" else helper.keyring.revoke(name)
    except ReleaseError as e:
        print(f"{act} failed: {e}", file=sys.stderr, flush=True)
        helper.releases.note_act({**note, "outcome": "failed", "why": e.why})
        return 1
    print(f"{act}: {key.name} {key.fingerprint}", file=log, flush=True)
    helper.releases.note_act({**note, "fingerprint": key.fingerprint, "outcome": "done", "why": None})
    return 0


def _owner_wipe(helper: Helper, log: IO[str]) -> int:
    """The owner's part root holds wiped, asked by the buttons' reset before a new owner's
    passphrase is set (issue 58): the release keys the owner added from the staff page no longer
    accepted (the installer's and the console's stay), and the café's broker's passwords out of
    Mosquitto's password file; noted with what went, for the table to tell in its notice."""
    note: dict[str, object] = {"act": "owner-wipe", "at": time.time()}
    try:
        keys = helper.keyring.forget_owners()
        users = helper.mosquitto.wipe()
    except ReleaseError as e:
        print(f"owner-wipe failed: {e}", file=sys.stderr, flush=True)
        helper.releases.note_act({**note, "outcome": "failed", "why": e.why})
        return 1
    if users:
        kept = helper.releases.note(broker.NOTE) or {}
        helper.releases.write_note(broker.NOTE, {**kept, "users": [], "league": None, "hosting": None,
                                                 "act": "owner-wipe", "at": time.time(),
                                                 "outcome": "done", "why": None})
    print(f"owner-wipe: keys {', '.join(keys) or 'none'}; the broker's users {', '.join(users) or 'none'}", file=log,
          flush=True)
    helper.releases.note_act({**note, "outcome": "done", "why": None, "keys": keys, "broker_users": users})
    return 0


def _broker_asked(helper: Helper, request: Request, log: IO[str]) -> int:
    """This table made the café's broker, users added to it or given new passwords, a table taken
    off it, the broker bridged to a league or hosting one, asked from the staff page (the owner's); the broker's note (its address, its users, how
    the act ended) written for the page. The note holds names alone: the passwords are the
    service's."""
    act, mosquitto = request["act"], helper.mosquitto
    kept = helper.releases.note(broker.NOTE) or {}
    note = {"address": kept.get("address"), "users": kept.get("users") or [], "act": act, "at": time.time(),
            "asked": [request["table"]] if act == "broker-remove" else sorted(request["cafes"])
            if act == "broker-host-league" else [] if act == "broker-league" else sorted(request["users"]),
            "league": kept.get("league"), "hosting": kept.get("hosting")}
    try:
        if act == "broker-league":  # the café's password there goes into the bridge's file alone, never the note
            mosquitto.join_league(request["league"], request["cafe"], request["address"], request["port"],
                                  request["password"], request["ca"])
            note["league"] = {"league": request["league"], "cafe": request["cafe"], "address": request["address"],
                              "port": request["port"]}
        elif act == "broker-host-league":  # the cafés' and the page's hashes go into the password file alone
            mosquitto.host_league_here(request["league"], request["cafe"], request["cafes"], request["page"])
            note["league"], note["hosting"] = None, {"league": request["league"], "cafe": request["cafe"],
                                                     "cafes": sorted(request["cafes"])}
        elif act == "broker":
            mosquitto.set_up(request["address"], request["users"])
            note["address"] = request["address"]
        elif act == "broker-remove":
            mosquitto.remove(request["table"])
        else:
            mosquitto.set_users(request["users"])
        note["users"] = mosquitto.users()
    except ReleaseError as e:
        print(f"{act} failed: {e}", file=sys.stderr, flush=True)
        outcome = "rolled back" if isinstance(e, broker.RolledBack) else "failed"
        helper.releases.write_note(broker.NOTE, {**note, "at": time.time(), "outcome": outcome, "why": e.why})
        return 1
    print(f"{act}: done, the broker's users: {', '.join(note['users'])}", file=log, flush=True)
    helper.releases.write_note(broker.NOTE, {**note, "at": time.time(), "outcome": "done", "why": None})
    return 0


def _keys(keyring: Keyring, args: argparse.Namespace) -> int:
    """``keys list|add|revoke``: the owner's keyring, one line a key."""
    if args.keys == "add":
        try:
            text = args.public_key.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ReleaseError(N_("{path} cannot be read as a public key ({error})"), path=str(args.public_key),
                               error=getattr(e, "strerror", None) or type(e).__name__) from None
        key = keyring.add(text, args.name)
        print(f"accepted: {key.name} {key.fingerprint}", flush=True)
    elif args.keys == "revoke":
        key = keyring.revoke(args.name)
        print(f"revoked: {key.name} {key.fingerprint}", flush=True)
    else:
        for key in keyring.listed():
            print(f"{key.name or '-'} {key.fingerprint}{' (revoked)' if key.revoked else ''}", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pi-table-helper", description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, default=HOME, help="the releases' folder (default %(default)s)")
    parser.add_argument("--keyring", type=Path, default=KEYRING, help="the accepted keys (default %(default)s)")
    parser.add_argument("--user", default=USER, help="the service's user, who builds releases (default %(default)s; "
                                                     "'': whoever runs this, for the installer's tests)")
    acts = parser.add_subparsers(dest="act", required=True)
    build = acts.add_parser("install", help="build the checkout's release and switch to it")
    build.add_argument("--source", type=Path, required=True)
    build.add_argument("--extras", default="")
    build.add_argument("--bundle", type=Path, help="install this signed bundle's wheels instead of building the "
                                                   "checkout's (its signature checked against the keyring)")
    asked = acts.add_parser("request", help="do the request the service left in its spool folder")
    asked.add_argument("--spool", type=Path, default=requests.SPOOL)
    asked.add_argument("--config", type=Path, default=CONFIG, help="the table's configuration (default %(default)s)")
    boot = acts.add_parser("first-boot", help="a table's first start: its secrets made, its set-up waiting")
    boot.add_argument("--config", type=Path, default=CONFIG, help="the table's configuration (default %(default)s)")
    acts.add_parser("security", help="pi-table-security.service: Debian's security updates applied, and the "
                                     "table asked for its health after them")
    to = acts.add_parser("stick", help="pi-table-stick.service: the newest nightly backup written to the USB stick "
                                       "plugged in")
    to.add_argument("--config", type=Path, default=CONFIG, help="the table's configuration (default %(default)s)")
    to.add_argument("--restore", metavar="BACKUP", help="pi-table-stick-restore@.service: the backup BACKUP (newest, "
                                                         "or a name the stick lists) copied from the stick instead")
    acts.add_parser("starting", help="pi-table.service's ExecStartPre=")
    acts.add_parser("started", help="pi-table.service's ExecStartPost=")
    keys = acts.add_parser("keys", help="the keys releases are accepted from").add_subparsers(dest="keys",
                                                                                            required=True)
    keys.add_parser("list", help="each key: its name, its fingerprint, and whether it was revoked")
    add = keys.add_parser("add", help="accept releases signed with this public key")
    add.add_argument("public_key", type=Path, help="the key's .pub file (ssh-keygen -t ed25519 made it)")
    add.add_argument("--name", required=True, help="who the key is (a maker, the owner)")
    revoke = keys.add_parser("revoke", help="accept no release signed with this key again")
    revoke.add_argument("name")
    args = parser.parse_args(argv)
    releases, keyring = Releases(args.home), Keyring(args.keyring)
    try:
        if args.act == "keys":
            return _keys(keyring, args)
        if args.act == "starting":
            with locked(releases):
                print(releases.starting(), flush=True)
            return 0
        user = ServiceUser(args.user or None)  # "": the installer's staging root, which has no such user
        if args.act == "first-boot":
            for made in first_boot(args.config, user) or ["nothing: the table had all of it"]:
                print(f"first boot: {made}", flush=True)
            return 0
        if args.act == "install":
            name = install(Helper(releases, keyring, user), args.source.resolve(), args.extras,
                           signed=args.bundle)
            print(f"installed release {name}", flush=True)
            return 0
        if args.act == "stick" and args.restore is not None:
            return from_stick(Helper(releases, keyring, user, config=args.config), args.restore)
        if args.act == "stick":
            return to_stick(Helper(releases, keyring, user, config=args.config))
        if args.act == "request":
            return act(Helper(releases, keyring, user, config=args.config), args.spool)
        venv = releases.venv(releases.linked(CURRENT) or "none")
        status = user.command([str(venv / "bin/python"), "-I", "-m", "pi_table", "status", "--json", "--healthy"])
        if args.act == "security":
            note = security(Helper(releases, keyring, user), status)
            print(f"security updates: {note['outcome']}", flush=True)
            return 0 if note["outcome"] in ("done", "nothing") else 1
        print(started(releases, status), flush=True)
        return 0
    except ReleaseError as e:
        print(f"pi-table-helper: {e}", file=sys.stderr, flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(main())
