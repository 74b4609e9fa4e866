"""The service as systemd runs it: a Debian bookworm root (tests/container/build-root.sh, kept
under /var/cache/pi-table-ci) booted with systemd-nspawn on cgroup2 with the BPF capabilities,
so systemd really enforces the unit's device policy, as on Raspberry Pi OS. Everything is
checked from outside, with commands run inside through nsenter.

The checkout is installed as the README says (`sudo systemd/install.sh`, as a user with sudo),
twice; then the service's life: READY, a staff user's `pi-table status`, the watchdog, a crash,
a bad configuration, a restart and a reboot, what it may write and which devices it may open.

The table needs no hardware: the café's configuration here names the Pi 5's spidev strip and
no screen, and the touch board, buttons and strip are simply missing, so the daemon runs
degraded, as it does on a Pi with nothing plugged in. The kernel here has no cdc_acm, spidev
or DRM driver: a device node made after the start, opened by a process in the service's
cgroup, answers ENXIO (no driver: the device policy let it through) or EPERM (the policy
refused it), which is what the allow-list decides.

Run it alone with `./dev test -m container`. It needs root, systemd-nspawn (systemd-container),
debootstrap and cgroup2; it is skipped where they are missing (failed under .ci/run). The
first run builds the root (a few minutes); later runs reuse it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from pi_table.web.sections.care import RESTORING

from helpers import readme_scripts, require_tools, wait_for
from helpers_phones import plain, this_machines_address
from helpers_staff import OWNER_PASSPHRASE, STAFF_PIN, Staff, as_owner_once_answering

pytestmark = pytest.mark.container

ROOT = Path(__file__).resolve().parent.parent
BUILD_ROOT = ROOT / "tests" / "container" / "build-root.sh"
CACHE = Path(os.environ.get("PI_TABLE_CI_CACHE", "/var/cache/pi-table-ci"))
CHECKOUT = "/home/cafe/pi-table"  # where the café owner cloned the repository
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def free_port() -> int:
    """A port free now and below the kernel's ephemeral range (/proc/sys/net/ipv4/ip_local_port_range),
    so no other test's bind to port 0 or outgoing connection can take it while the container, which
    shares this machine's network, boots: a port the kernel handed out here once could."""
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    start = random.randrange(10000, low - 1000)
    for port in range(start, start + 1000):
        with socket.socket() as probe:
            try:
                probe.bind(("0.0.0.0", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {start}..{start + 1000}")


PORT, TLS_PORT = free_port(), free_port()
"""The table's pages, and its staff pages' https: the container shares this machine's network, so
not the default 8024 and 8443, which the installer's check-config in tests/test_systemd.py, run
beside this under pytest-xdist, asks to be free."""
CONFIG = f"""\
# the test's table: the Pi 5's LED strip on spidev, no screen; nothing is plugged in
[leds]
backend = "spi"

[screen]
enabled = false

[web]
port = {PORT}
tls_port = {TLS_PORT}
"""


def cached_root() -> Path:
    """The bookworm root for this build script, built once (under a lock: two runs share it)."""
    digest = hashlib.sha256(BUILD_ROOT.read_bytes()).hexdigest()[:16]
    root = CACHE / f"rootfs-{digest}"
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / "rootfs.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not root.is_dir():
            log = CACHE / f"rootfs-{digest}.log"
            with open(log, "w") as out:
                built = subprocess.run([BUILD_ROOT, root], stdout=out, stderr=subprocess.STDOUT, timeout=1800,
                                       check=False)
            if built.returncode != 0:
                pytest.fail(f"building the container's root failed: see {log}")
    return root


class Container:
    """A booted systemd in a copy-on-write copy (overlayfs) of the cached root."""

    def __init__(self, lower: Path, work: Path) -> None:
        self.work = work
        self.merged = work / "merged"
        for name in ("upper", "work", "merged"):
            (work / name).mkdir()
        subprocess.run(["mount", "-t", "overlay", "overlay", "-o",
                        f"lowerdir={lower},upperdir={work / 'upper'},workdir={work / 'work'}", self.merged], check=True)
        self.name = f"pi-table-ci-{os.getpid()}"
        self.process: subprocess.Popen | None = None
        self.binds: list[str] = []

    def boot(self) -> None:
        with open(self.work / "console.log", "a") as console:  # nspawn keeps its own copy
            self.process = self._nspawn(console)
        self._wait_for_boot()

    def _nspawn(self, console) -> subprocess.Popen:
        return subprocess.Popen(
            ["systemd-nspawn", "--boot", "--register=no", "--keep-unit", f"--directory={self.merged}",
             f"--machine={self.name}", "--capability=CAP_BPF,CAP_PERFMON,CAP_SYS_ADMIN",
             "--system-call-filter=bpf", "--console=read-only", *self.binds],
            env={**os.environ, "SYSTEMD_NSPAWN_UNIFIED_HIERARCHY": "1"},
            stdin=subprocess.DEVNULL, stdout=console, stderr=subprocess.STDOUT)

    def _wait_for_boot(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + 60
        while True:
            if self.process.poll() is not None:
                pytest.fail(f"systemd-nspawn exited {self.process.returncode}: see {self.work / 'console.log'}")
            children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read_text().split()
            if children:
                self.init = int(children[0])
                state = self.run("systemctl is-system-running --wait", check=False, timeout=60).stdout.strip()
                if state in ("running", "degraded"):
                    return
            if time.monotonic() > deadline:
                pytest.fail("the container's systemd did not finish booting in 60 s")
            time.sleep(0.2)

    def reboot(self) -> None:
        self.run("systemctl reboot", check=False)
        assert self.process is not None
        self.process.wait(timeout=60)  # nspawn ends the container on a reboot (exit 133): boot it again
        self.boot()

    def run(self, command: str, check: bool = True, timeout: float = 120, user: str | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        """A shell command inside, as root or as ``user`` (through runuser, a login's groups)."""
        if user is not None:
            command = f"runuser -u {user} -- bash -c {shlex.quote(command)}"
        environment = {"PATH": PATH, "HOME": "/root", "LANG": "C.UTF-8", **(env or {})}
        result = subprocess.run(
            ["nsenter", f"--target={self.init}", "--all", "env", "-i",
             *(f"{key}={value}" for key, value in environment.items()), "bash", "-c", command],
            capture_output=True, text=True, timeout=timeout, check=False)
        if check and result.returncode != 0:
            pytest.fail(f"in the container, {command!r} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
        return result

    def show(self, *properties: str) -> dict[str, str]:
        out = self.run(f"systemctl show pi-table.service -p {','.join(properties)}").stdout
        return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)

    def wait_for(self, condition, what: str, timeout: float = 60):
        return wait_for(condition, what, timeout, every=0.3, explain=lambda: "; the unit's journal:\n"
                        + self.run("journalctl -u pi-table -n 30 --no-pager", check=False).stdout)

    def active(self, restarts: int | None = None) -> dict[str, str]:
        """Wait for the service to be active and running (after ``restarts`` restarts, if given)."""
        def ready():
            state = self.show("ActiveState", "SubState", "MainPID", "NRestarts", "StatusText")
            running = state["ActiveState"] == "active" and state["SubState"] == "running"
            return state if running and (restarts is None or int(state["NRestarts"]) >= restarts) else None
        return self.wait_for(ready, f"pi-table.service active (restarts: {restarts})")

    def status(self) -> dict:
        return json.loads(self.run("pi-table status --json", user="barista").stdout)

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.run("systemctl poweroff", check=False)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        subprocess.run(["umount", self.merged], check=False)


def host_settings(root: Path) -> list[str]:
    """This machine's ways to the package archives, into the container (see DESIGN.md): apt's
    sources, pip's configuration, the extra CA certificates; and the nspawn binds they need."""
    binds = []
    sources = [path for path in Path("/etc/apt/sources.list.d").glob("*") if path.suffix in (".list", ".sources")]
    if sources or Path("/etc/apt/sources.list").exists():
        (root / "etc/apt/sources.list").unlink(missing_ok=True)
        for path in [Path("/etc/apt/sources.list"), *sources]:
            if path.exists():
                shutil.copy(path, root / str(path).lstrip("/"))
    if Path("/etc/pip.conf").exists():
        shutil.copy("/etc/pip.conf", root / "etc/pip.conf")
    for certificate in Path("/usr/local/share/ca-certificates").glob("*"):
        shutil.copy(certificate, root / "usr/local/share/ca-certificates")
    links = os.environ.get("PIP_FIND_LINKS", "")
    if links.startswith("/") and Path(links).is_dir():
        binds.append(f"--bind-ro={links}")
    return binds


def pip_environment() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key.startswith("PIP_")}


@pytest.fixture(scope="module")
def container():
    if os.geteuid() != 0:
        pytest.skip("booting a container needs root")
    require_tools("systemd-nspawn", "debootstrap", "nsenter")
    if "cgroup2" not in Path("/proc/filesystems").read_text():
        pytest.skip("this kernel has no cgroup2, which the container's systemd is given")
    lower = cached_root()
    work = Path(tempfile.mkdtemp(prefix="pi-table-ct-", dir="/var/tmp"))
    box = Container(lower, work)
    try:
        box.binds = host_settings(box.merged)
        # the café's checkout, as a clone leaves it (the working tree: modes as git wrote them)
        target = box.merged / CHECKOUT.lstrip("/")
        target.mkdir(parents=True)
        subprocess.run(f"tar -C {shlex.quote(str(ROOT))} --exclude=./.venv --exclude=./.git --exclude=./build "
                       f"--exclude='*.egg-info' -cf - . | tar -C {shlex.quote(str(target))} -xf -",
                       shell=True, check=True)
        box.boot()
        box.run("update-ca-certificates >/dev/null && echo '127.0.1.1 pi-table-ci' >> /etc/hosts")
        box.run("useradd --create-home --groups sudo cafe && chown -R cafe:cafe /home/cafe && "
                "useradd --create-home barista && "
                "echo 'cafe ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/cafe && "
                # sudo keeps this machine's pip settings, without which pip reaches no index here
                "echo 'Defaults env_keep += \"PIP_*\"' >> /etc/sudoers.d/cafe")
        box.run("mkdir -p /etc/pi-table")
        (box.merged / "etc/pi-table/config.toml").write_text(CONFIG)
        yield box
    finally:
        box.close()
        shutil.rmtree(work, ignore_errors=True)


def install(container: Container, checkout: str = CHECKOUT) -> subprocess.CompletedProcess:
    """The README's own line, run from the checkout by the café's user."""
    line = shlex.join(readme_scripts()["systemd/install.sh"])
    return container.run(f"cd {checkout} && {line}", user="cafe", env=pip_environment(), check=False, timeout=900)


def test_install_as_the_readme_says_twice(container):
    first = install(container)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "python3-lgpio skipped" in first.stdout  # plain Debian: not Raspberry Pi OS's archive
    assert first.stderr == ""
    second = install(container)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "keeping /etc/pi-table/config.toml" in second.stdout
    assert (container.merged / "etc/pi-table/config.toml").read_text() == CONFIG
    # it may hold the broker's password: the service's and its group's alone, no other user's (48.13)
    assert container.run("stat -c '%a %U:%G' /etc/pi-table/config.toml").stdout.strip() == "640 pi-table:pi-table"
    assert container.run("cat /etc/pi-table/config.toml", user="barista", check=False).returncode != 0
    # pip built from a copy: nothing of root's is left in the café's checkout
    assert container.run(f"find {CHECKOUT} -user root").stdout == ""
    assert container.run("systemctl is-enabled pi-table").stdout.strip() == "enabled"
    # the service cannot write under /opt (ProtectSystem=strict): pip compiled the bytecode it
    # loads at every start (pi-table bench daemon times the start with it)
    compiled = container.run("find /opt/pi-table/current/venv/ -path '*/pi_table/engine/__pycache__/*.pyc'").stdout.split()
    assert len(compiled) >= 10, compiled
    # the service's user built and installed the release; root took it back: nothing under /opt is the
    # service's, or writable by anyone else, and root's helper runs its own copy of pi-table, not a release
    assert container.run("find -P /opt/pi-table ! -user root -o -perm /022 ! -type l").stdout == ""
    assert container.run("find /opt/pi-table/lib/pi_table/release -name helper.py").stdout.strip()
    assert container.run("head -n 1 /opt/pi-table/helper").stdout.strip() == "#!/usr/bin/python3 -I"


def test_the_root_helper_is_sandboxed_as_its_three_acts_allow(container):
    """systemd's own measure of what a compromised helper could still reach (0 is nothing, 10 is
    everything; an unsandboxed root service scores 9.6). Printed for the CI log."""
    report = container.run("systemd-analyze security --no-pager pi-table-helper.service pi-table.service").stdout
    print(report)
    exposure = dict(re.findall(r"(pi-table(?:-helper)?\.service)\s+([0-9.]+)", report))
    assert float(exposure["pi-table-helper.service"]) <= 3.0, report
    assert float(exposure["pi-table.service"]) <= 3.0, report


def test_rpi_ws281x_compiles_with_only_the_packages_the_installer_adds(container):
    """The Pi 3's and 4's strip library has no aarch64 wheel: pip compiles it there. This root
    has only Debian's minimal base and the installer's packages (gcc, libc6-dev, python3-dev);
    here the build is for x86, from the same source."""
    built = container.run("python3 -m venv /tmp/ws281x && /tmp/ws281x/bin/pip install --no-binary rpi-ws281x "
                          "rpi-ws281x && /tmp/ws281x/bin/python -c 'import rpi_ws281x'",
                          env=pip_environment(), check=False, timeout=300)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    # compiled here, not a wheel from elsewhere (Debian's pip without `wheel` runs setup.py install)
    assert any(f"{how} for rpi-ws281x" in built.stdout for how in ("Building wheel", "Running setup.py install"))


def test_the_service_is_active_once_it_says_ready(container):
    state = container.active()
    # Type=notify: "active" comes only with READY=1, whose status line the daemon sets
    assert container.show("Type")["Type"] == "notify"
    assert state["StatusText"].startswith("table "), state
    container.run("usermod -aG pi-table barista")
    status = container.status()
    assert status["game_id"]


def test_a_user_outside_the_group_gets_no_status(container):
    refused = container.run("pi-table status --json", user="cafe", check=False)
    assert refused.returncode == 77 and refused.stdout == ""  # EX_NOPERM: join the group


def test_the_journal_shows_the_missing_devices_as_warnings(container):
    everything = container.run("journalctl -u pi-table -b --no-pager -o cat").stdout
    assert "LED strip" in everything  # said: the strip's spidev is missing
    warnings = container.run("journalctl -u pi-table -p warning -b --no-pager -o cat").stdout
    assert "LED strip" in warnings, everything


def test_kill_9_restarts_it_and_the_game_resumes(container):
    before = container.active()
    game = container.status()["game_id"]
    container.run(f"kill -9 {before['MainPID']}")
    after = container.active(restarts=int(before["NRestarts"]) + 1)
    assert after["MainPID"] != before["MainPID"]
    assert container.status()["game_id"] == game


def test_a_stopped_loop_is_restarted_by_the_watchdog(container):
    before = container.active()
    started = time.monotonic()
    container.run(f"kill -STOP {before['MainPID']}")
    after = container.active(restarts=int(before["NRestarts"]) + 1)  # WatchdogSec=10
    assert after["MainPID"] != before["MainPID"]
    assert 8 < time.monotonic() - started < 45
    assert "Watchdog timeout" in container.run("journalctl -u pi-table -b --no-pager").stdout


def test_a_bad_hand_edit_runs_the_table_on_its_last_good_settings_and_with_none_stops_it_for_good(container):
    """Issue 50, 9: a table that started once on a good file keeps it as the last good one, and a
    hand edit its start refuses runs it on that, saying so; with no last good file the start
    still ends 78, which systemd does not restart."""
    config = container.merged / "etc/pi-table/config.toml"
    good = container.merged / "etc/pi-table/config.toml.good"
    assert good.read_text() == config.read_text()  # remembered at the start
    config.write_text(CONFIG + "\n[game]\nhold_s = 9\n")
    try:
        container.run("systemctl restart pi-table", check=False)
        container.active()  # on the last good settings
        status = json.loads(container.run("pi-table status --json").stdout)
        assert any("the settings file was refused" in warning for warning in status["warnings"]), status
        good.unlink()  # no last good file: nothing to start on
        container.run("systemctl restart pi-table", check=False)
        container.wait_for(lambda: container.show("ActiveState")["ActiveState"] == "failed", "the unit to fail")
        time.sleep(5)  # RestartSec=2: a restart, were there one, would have begun
        state = container.show("ActiveState", "ExecMainStatus", "NRestarts")
        # the restart by hand counts from 0; an automatic one would make it 1
        assert state == {"ActiveState": "failed", "ExecMainStatus": "78", "NRestarts": "0"}
    finally:
        config.write_text(CONFIG)
        container.run("systemctl reset-failed pi-table; systemctl start pi-table")
    container.active()


def test_the_game_survives_a_restart_and_a_reboot(container):
    container.active()
    game = container.status()["game_id"]
    container.run("systemctl restart pi-table")
    container.active()
    assert container.status()["game_id"] == game
    container.reboot()
    container.active()
    assert container.status()["game_id"] == game


def in_the_service(container: Container, command: str) -> subprocess.CompletedProcess:
    """``command`` as root in the service's mount namespace: the file system as it sees it."""
    pid = container.active()["MainPID"]
    return container.run(f"nsenter --target={pid} --mount -- sh -c {shlex.quote(command)}", check=False)


@pytest.mark.parametrize("folder, writable", [
    ("/var/lib/pi-table", True), ("/run/pi-table", True),
    ("/etc/pi-table", True), ("/opt/pi-table", False), ("/usr/local/bin", False), ("/var/log", False),
    ("/home/cafe", False),
])
def test_the_service_may_write_only_its_state_runtime_and_configuration_folders(container, folder, writable):
    """Even root could not write elsewhere in its namespace (ProtectSystem=strict, ProtectHome): the
    journal, the socket and the configuration (which the staff page edits) are all it may write."""
    result = in_the_service(container, f"touch {folder}/probe && rm {folder}/probe")
    assert (result.returncode == 0) == writable, result.stderr


def open_in_the_service_cgroup(container: Container, node: str) -> str:
    """Open ``node`` as the service's user with its groups, from a process moved into the
    service's cgroup, under its device program; the error it meets."""
    probe = (f"echo $$ > /sys/fs/cgroup/system.slice/pi-table.service/cgroup.procs && "
             f"exec setpriv --reuid=pi-table --regid=pi-table --init-groups sh -c 'exec 3<>{node}'")
    result = container.run(f"sh -c {shlex.quote(probe)}", check=False)
    return result.stdout + result.stderr


def test_devices_that_appear_after_the_start_can_be_opened(container):
    """A touch board plugged in later, spidev and DRM after the installer's reboot: nodes made
    after the unit started, their drivers not loaded (this kernel has none of them)."""
    container.active()
    # as udev makes them on a Pi: owned by the group the service's user is in for each
    nodes = {"/dev/ttyACM0": (166, 0, "dialout"), "/dev/spidev0.0": (153, 0, "spi"), "/dev/dri/card0": (226, 0, "video")}
    for node, (major, minor, group) in nodes.items():
        container.run(f"mkdir -p $(dirname {node}) && rm -f {node} && mknod -m 0660 {node} c {major} {minor} && "
                      f"chgrp {group} {node}")
    for node in nodes:
        assert "No such device or address" in open_in_the_service_cgroup(container, node), node
    # The same check, with a name the allow-list resolves only when the driver is loaded at the
    # unit's start (as the unit had it: char-ttyACM), is refused: the check tells the two apart.
    refused = container.run("systemd-run --wait --pipe --quiet -p DevicePolicy=closed "
                            "-p 'DeviceAllow=char-ttyACM rw' sh -c 'exec 3<>/dev/ttyACM0'", check=False)
    assert "Operation not permitted" in refused.stdout + refused.stderr
    # A serial port the list leaves out (ttyS, major 4) is refused: the device program is enforced
    container.run("rm -f /dev/ttyS9 && mknod -m 0660 /dev/ttyS9 c 4 73 && chgrp dialout /dev/ttyS9")
    assert "Operation not permitted" in open_in_the_service_cgroup(container, "/dev/ttyS9")


# --- try, then keep: a change from the staff page under the real systemd (issue 25) -----------------

SERVICE_CONFIG = "/etc/pi-table/config.toml"


def rested(container: Container) -> dict[str, str]:
    """The table as a café finds it after a quiet while, for a test that restarts it several times:
    systemd's count of its recent starts (StartLimitBurst=5 in 120 s) and the staff's (three in the
    same window, staff.restarts) forgotten, as two minutes would forget them. Without it the tests
    before take the budget, and a restart here waits or is refused (CI run of 0745aae: the update
    tests' releases rolled back)."""
    container.run("rm -f /var/lib/pi-table/journal/staff.restarts && systemctl reset-failed pi-table")
    return container.active()


def staff_phone(container: Container):
    """A staff phone on the table's page over the network (the container shares this machine's),
    with a PIN and the owner's passphrase set as the install guide says, acting as the owner."""
    container.run(f"printf '{STAFF_PIN}\\n' | pi-table set-staff-pin")
    container.run(f"printf '{OWNER_PASSPHRASE}\\n' | pi-table set-owner-passphrase")
    return container.wait_for(lambda: as_owner_once_answering(Staff(f"http://127.0.0.1:{PORT}")), "the staff page", 30)


def test_the_staff_page_takes_the_pin_over_https_with_the_tables_own_certificate_under_systemd(container):
    """Issue 48, 4, under the unit's own sandbox: the table makes its certificate (or the first
    boot did) in /etc/pi-table/tls; from the network, http leads to https and refuses a PIN
    unread, and a phone that accepted that certificate logs in over https with Secure cookies."""
    staff_phone(container)  # the PIN set, the table up
    address = this_machines_address()
    cert = container.merged / "etc/pi-table/tls/table.crt"
    container.wait_for(lambda: cert.exists(), "the table's own certificate", 30)
    status = json.loads(container.run("pi-table status --json").stdout)
    assert status["staff"].endswith(f":{TLS_PORT}/staff") and status["certificate"]
    assert plain(address, PORT, "GET", "/staff")[1]["Location"] == f"https://{address}:{TLS_PORT}/staff"
    assert plain(address, PORT, "POST", "/staff/login", {"pin": STAFF_PIN})[0] == 403
    staff = Staff(f"https://{address}:{TLS_PORT}", cafile=cert, by_name=False)
    assert staff.login()[0] == 200 and all(cookie.secure for cookie in staff.cookies)
    key = container.merged / "etc/pi-table/tls/table.key"
    assert oct(key.stat().st_mode & 0o777) == "0o600"


def test_a_staff_change_the_table_cannot_live_with_is_rolled_back_under_systemd(container):
    """The staff move the phones' pages to a free port; another program takes it before the restart.
    systemd starts the table on the change, its pages cannot listen, it puts the last good file
    back and exits for systemd to start it again, well inside the unit's start limit; the staff
    page, back on its port, says what was rolled back and why."""
    before = container.active()
    staff = staff_phone(container)
    port = free_port()
    good = (container.merged / SERVICE_CONFIG.lstrip("/")).read_text()
    assert staff.call("POST", "/staff/api/config", {"changes": {"web.port": port}}) == (
        200, {"ok": True, "restarting": True})
    squatter = socket.socket()
    squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    squatter.bind(("0.0.0.0", port))
    squatter.listen()
    try:
        after = container.active(restarts=int(before["NRestarts"]) + 2)  # the staff's restart, then the rollback's
        assert (container.merged / SERVICE_CONFIG.lstrip("/")).read_text() == good
        staff = container.wait_for(lambda: as_owner_once_answering(Staff(f"http://127.0.0.1:{PORT}")), "the staff page", 30)
        status, table = staff.call("GET", "/staff/api/table")
        assert status == 200 and table["settings"]["rolled_back"]["keys"] == ["web.port"]
        assert table["settings"]["rolled_back"]["why"].startswith("the phones' pages and the staff page cannot open")
        burst = int(container.show("StartLimitBurst")["StartLimitBurst"])
        assert int(after["NRestarts"]) - int(before["NRestarts"]) == 2 < burst
        assert "are rolled back" in container.run("journalctl -u pi-table -b --no-pager -o cat").stdout
    finally:
        squatter.close()


def upload(staff: Staff, path: str, data: bytes) -> tuple[int, dict]:
    """A file from the phone as the request's body, as the staff page's care.js sends it."""
    cookie = "; ".join(f"{c.name}={c.value}" for c in staff.cookies)
    request = urllib.request.Request(f"http://127.0.0.1:{PORT}{path}", data=data, method="POST", headers={
        "X-Staff-Token": staff.csrf or "", "Cookie": cookie, "Content-Type": "application/gzip"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_a_restore_from_the_staff_page_is_kept_when_healthy_and_rolled_back_when_not(container):
    """Under the real systemd: a backup downloaded from the page, a setting changed since, the
    backup restored from the page: the table restarts on it, is healthy, keeps it. Then a backup
    whose phones' port another program holds by then: the table cannot open its pages on it, puts
    the last good state back by itself, and the page says so."""
    before = rested(container)
    staff = staff_phone(container)
    config = container.merged / SERVICE_CONFIG.lstrip("/")
    request = urllib.request.Request(f"http://127.0.0.1:{PORT}/staff/api/backup", headers={"X-Staff-Token": staff.csrf})
    with staff.opener.open(request, timeout=30) as answer:
        good = answer.read()
    # applied at once, without a restart: the staff get three restarts in two minutes (the unit's
    # start limit), and the restores below take them all, the rollback's included
    assert staff.call("POST", "/staff/api/config", {"changes": {"timer.length_s": 95}})[0] == 200
    assert "length_s = 95" in config.read_text()
    status, answer = upload(staff, "/staff/api/restore?check", good)
    assert status == 200 and any("timer.length_s" in each for each in answer["replaces"])
    assert upload(staff, "/staff/api/restore", good) == (200, {"ok": True, "restarting": True, "said": RESTORING})
    restarts = int(before["NRestarts"]) + 1
    container.active(restarts=restarts)
    staff = container.wait_for(lambda: as_owner_once_answering(Staff(f"http://127.0.0.1:{PORT}")), "the staff page", 30)
    backups = container.merged / "var/lib/pi-table/backups"
    container.wait_for(lambda: not (backups / "restore.trial").exists(), "the restore kept", 60)
    assert "length_s = 95" not in config.read_text()

    port = free_port()  # a backup of this table on another port, which a program takes before the restart
    container.run(f"sed 's/^port = {PORT}$/port = {port}/' {SERVICE_CONFIG} > /var/tmp/moved.toml && "
                  "/opt/pi-table/venv/bin/python -c 'from pathlib import Path; from pi_table.config import load_config; "
                  "from pi_table.daemon import backup; "
                  "Path(\"/var/tmp/moved.tar.gz\").write_bytes(backup.make(load_config(Path(\"/var/tmp/moved.toml\"))))'")
    moved = (container.merged / "var/tmp/moved.tar.gz").read_bytes()
    assert upload(staff, "/staff/api/restore", moved) == (200, {"ok": True, "restarting": True, "said": RESTORING})  # the port is free now
    squatter = socket.socket()
    squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    squatter.bind(("0.0.0.0", port))  # and taken before the restart (systemd's RestartSec=2)
    squatter.listen()
    try:
        container.active(restarts=restarts + 2)  # the restore's restart, then the rollback's
        staff = container.wait_for(lambda: as_owner_once_answering(Staff(f"http://127.0.0.1:{PORT}")), "the staff page", 60)
        status, found = staff.call("GET", "/staff/api/update")
        assert status == 200 and found["restore"]["rolled_back"] is not None
        assert f"port = {PORT}" in config.read_text()
    finally:
        squatter.close()


def test_a_table_killed_before_it_is_healthy_on_a_change_starts_again_on_the_last_good_file(container):
    """As ``pi-table tune --write`` leaves a change (the touch board worked, and must work again):
    the table started on it is killed before it is healthy (here no board ever answers); systemd
    starts it again, and that start puts the last good file back."""
    container.active()
    good = (container.merged / SERVICE_CONFIG.lstrip("/")).read_text()
    container.run("/opt/pi-table/venv/bin/python -c 'from pathlib import Path; from pi_table.config import trial; "
                  f"trial.change(Path(\"{SERVICE_CONFIG}\"), {{\"touch.thresholds\": [[9, 4]]}}, \"tune\", (\"touch\",), "
                  "machine=False)'")
    container.run("systemctl restart pi-table")
    before = container.active()
    assert "thresholds" in (container.merged / SERVICE_CONFIG.lstrip("/")).read_text()
    container.run("systemctl kill --kill-whom=main -s KILL pi-table")  # the table alone: signalling its whole cgroup failed once in CI (EIO)
    container.active(restarts=int(before["NRestarts"]) + 1)
    assert (container.merged / SERVICE_CONFIG.lstrip("/")).read_text() == good
    note = json.loads((container.merged / (SERVICE_CONFIG.lstrip("/") + ".rolled-back")).read_text())
    assert note["keys"] == ["touch.thresholds"] and note["by"] == "tune"
    assert note["why"]["en"] == "the table stopped before it was healthy on the new settings"


# --- updates with rollback, and the helper's reboot, under the real systemd (issue 27) -------------

SPOOL = "/var/lib/pi-table/requests"
HOME = "/opt/pi-table"


def bump(tree: Path, version: str) -> None:
    """The source tree made ``version`` as the project makes a release: pyproject.toml's version,
    the one source, and the CHANGELOG's newest section, which names it (tests/test_release.py)."""
    pyproject = tree / "pyproject.toml"
    text, bumped = re.subn(r'^version = "[^"]*"$', f'version = "{version}"', pyproject.read_text(), count=1,
                           flags=re.MULTILINE)
    assert bumped == 1, "pyproject.toml sets no version"
    pyproject.write_text(text)
    changelog = tree / "CHANGELOG.md"
    text = changelog.read_text()
    newest = text.index("\n## ") + 1
    changelog.write_text(f"{text[:newest]}## {version}\n\nThe container test's release.\n\n{text[newest:]}")


@pytest.fixture(scope="module")
def maker_key(container, tmp_path_factory) -> Path:
    """The maker's signing key, and the table accepting it as its owner makes it do
    (docs/cafe/updates.md): its public half added with the helper, as root."""
    folder = tmp_path_factory.mktemp("maker")
    key = folder / "release-key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "maker", "-f", str(key)], check=True)
    shutil.copy(folder / "release-key.pub", container.merged / "root/release-key.pub")
    added = container.run("/opt/pi-table/helper keys add /root/release-key.pub --name maker")
    assert added.stdout.startswith("accepted: maker SHA256:"), added.stdout
    return key


def bundle_of(tmp: Path, version: str, key: Path, broken: bool = False) -> Path:
    """A bundle signed with ``key`` of this checkout's tracked files made another version (bumped,
    committed), its wheels for this machine (the container's Debian is this machine's); ``broken``:
    its command raises as it starts, so the table cannot start on it (a package that cannot even be
    imported is refused earlier, by the build, which imports every module)."""
    tree = tmp / f"tree-{version}"
    tree.mkdir()
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, text=True, check=True)
    for name in filter(None, tracked.stdout.split("\0")):
        if (ROOT / name).is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, tree / name)
    bump(tree, version)
    if broken:
        with open(tree / "pi_table/cli/__init__.py", "a") as cli:
            cli.write("\n\ndef main(argv=None):\n    raise RuntimeError('a release that cannot start, on purpose')\n")
    git = ["git", "-C", str(tree), "-c", "user.name=pi-table-ci", "-c", "user.email=ci@pi-table.invalid"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", version]):
        subprocess.run([*git, *args], check=True, capture_output=True)
    out = tmp / f"pi-table-{version}.tar.gz"
    made = subprocess.run([sys.executable, "-m", "pi_table", "bundle", "--source", str(tree), "--for", "here",
                           "--key", str(key), "-o", str(out)], capture_output=True, text=True, check=False)
    assert made.returncode == 0, made.stderr
    return out


@pytest.fixture(scope="module")
def next_release(maker_key, tmp_path_factory) -> Path:
    """The maker's signed bundle of 0.1.1, made once: pip builds its wheels for some 20 s, and the
    refused unsigned bundle is this one with its signature left out."""
    return bundle_of(tmp_path_factory.mktemp("next-release"), "0.1.1", maker_key)


def unsigned(bundle: Path, into: Path) -> Path:
    """``bundle`` with its signature left out, as a hand-made one's would be: nothing else differs
    from what the table would install were it signed."""
    stripped_path = into / f"unsigned-{bundle.name}"
    with tarfile.open(bundle) as signed, tarfile.open(stripped_path, "w:gz") as stripped:
        for member in signed:
            if member.name != "manifest.sig":
                stripped.addfile(member, signed.extractfile(member))
    return stripped_path


def ask(container: Container, act: str, **args: str) -> float:
    """The request as the service makes it: as its user, through pi_table.release.ask; the time asked."""
    since = time.time()
    call = f"from pi_table.release import ask; ask({act!r}, **{args!r})"
    container.run(f"/opt/pi-table/venv/bin/python -c {shlex.quote(call)}", user="pi-table")
    return since


def offer(container: Container, bundle: Path) -> str:
    """The bundle uploaded into the service's spool folder, as the staff page would leave it."""
    shutil.copy(bundle, container.merged / "root" / bundle.name)
    container.run(f"install -d -o pi-table -g pi-table -m 0700 {SPOOL} && "
                  f"install -o pi-table -g pi-table -m 0600 /root/{bundle.name} {SPOOL}/{bundle.name}")
    return bundle.name


def helper_done(container: Container, since: float, timeout: float = 900) -> dict:
    """The helper's note of how the act asked at ``since`` ended."""
    note = container.merged / HOME.lstrip("/") / "last.json"

    def ended():
        try:
            last = json.loads(note.read_text())
        except (OSError, ValueError):
            return None
        idle = container.run("systemctl is-active pi-table-helper.service", check=False).stdout.strip() != "activating"
        return last if last["at"] >= since and idle else None
    return container.wait_for(ended, "the root helper's act", timeout)


def linked(container: Container, link: str) -> str:
    return os.readlink(container.merged / HOME.lstrip("/") / link).removeprefix("releases/")


def running_version(container: Container) -> str:
    container.active()
    return container.wait_for(lambda: _status_version(container), "the table's status", 60)


def _status_version(container: Container) -> str | None:
    done = container.run("pi-table status --json", user="barista", check=False)
    return json.loads(done.stdout)["version"] if done.returncode == 0 else None


def test_an_unsigned_bundle_is_refused_and_nothing_of_it_is_unpacked(container, tmp_path, next_release):
    """Issue 37's first blocker: a hand-made bundle, uploaded with the staff PIN, was installed and
    its build run as root. Refused now, before a member past its manifest is read, and said."""
    rested(container)
    before, kept = linked(container, "current"), container.run("ls -A /opt/pi-table/releases").stdout
    since = ask(container, "update", from_="bundle", bundle=offer(container, unsigned(next_release, tmp_path)))
    last = helper_done(container, since)
    assert last["outcome"] == "failed" and last["why"]["template"].startswith("the release is not signed"), last
    assert linked(container, "current") == before
    assert container.run("ls -A /opt/pi-table/releases").stdout == kept
    assert not list((container.merged / SPOOL.lstrip("/")).glob("*.tar.gz"))


def test_an_update_from_a_bundle_is_installed_beside_the_running_release(container, next_release):
    rested(container)
    before = linked(container, "current")
    assert before.startswith("0.1.0-") and running_version(container) == "0.1.0"
    since = ask(container, "update", from_="bundle", bundle=offer(container, next_release))
    last = helper_done(container, since)
    assert last["outcome"] == "done", json.dumps(last)  # whole: why it was rolled back
    assert linked(container, "current").startswith("0.1.1-") and linked(container, "previous") == before
    assert running_version(container) == "0.1.1"
    assert not (container.merged / HOME.lstrip("/") / "trial.json").exists()
    assert not list((container.merged / SPOOL.lstrip("/")).glob("*"))  # the request and the bundle are taken
    state = container.run("/opt/pi-table/venv/bin/python -c 'import json; from pi_table.release import state; "
                          "print(json.dumps(state()))'", user="pi-table").stdout
    assert json.loads(state)["running"]["version"] == "0.1.1"
    assert "signed with key maker" in container.run("journalctl -u pi-table-helper -b --no-pager -o cat").stdout
    # built by the service's user, then root's: nothing of the new release is the service's to change
    assert container.run("find -P /opt/pi-table ! -user root -o -perm /022 ! -type l").stdout == ""


def test_a_release_that_cannot_start_is_rolled_back_by_itself(container, tmp_path, maker_key):
    rested(container)
    good = linked(container, "current")
    since = ask(container, "update", from_="bundle",
                bundle=offer(container, bundle_of(tmp_path, "0.1.2", maker_key, broken=True)))
    last = helper_done(container, since)
    assert last["outcome"] == "rolled back", last
    assert last["release"].startswith("0.1.2-") and last["to"] == good
    assert linked(container, "current") == good and running_version(container) == "0.1.1"
    assert "a release that cannot start, on purpose" in container.run("journalctl -u pi-table -b --no-pager -o cat").stdout
    state = json.loads(container.run("/opt/pi-table/venv/bin/python -c 'import json; from pi_table.release import "
                                     "state; print(json.dumps(state()))'", user="pi-table").stdout)
    why = state["rolled_back"]["why"]
    assert why["en"].startswith("the table stopped before it was healthy on release 0.1.2-"), why
    assert why["it"] != why["en"]


def test_a_power_cut_mid_update_leaves_a_table_that_starts_on_a_good_release(container, tmp_path, maker_key):
    """The container's init killed (every process in it at once) when the helper writes its trial
    note, the instant before it switches; booted again, the table runs a release that is current,
    complete and proven, and no trial is left."""
    rested(container)
    since = ask(container, "update", from_="bundle", bundle=offer(container, bundle_of(tmp_path, "0.1.3", maker_key)))
    trial = container.merged / HOME.lstrip("/") / "trial.json"
    container.wait_for(trial.exists, "the switch", 900)
    os.kill(container.init, 9)
    assert container.process is not None
    container.process.wait(timeout=60)
    container.boot()
    version = running_version(container)
    current = linked(container, "current")
    assert version in ("0.1.1", "0.1.3") and current.startswith(version + "-")
    assert (container.merged / HOME.lstrip("/") / "releases" / current / "release.json").exists()
    container.wait_for(lambda: not trial.exists(), "the trial to be decided", 60)
    assert since


def test_the_helper_refuses_an_unknown_request_and_reboots_on_one(container):
    spool = container.merged / SPOOL.lstrip("/")
    container.run(f"install -d -o pi-table -g pi-table -m 0700 {SPOOL}")
    since = time.time()
    container.run(f"echo '{{\"act\": \"rm -rf /\"}}' > {SPOOL}/request.json && chown pi-table {SPOOL}/request.json")
    last = helper_done(container, since, 60)
    assert last["outcome"] == "refused" and not (spool / "request.json").exists()
    assert "refused: unknown request" in container.run("journalctl -u pi-table-helper -b --no-pager -o cat").stdout
    game = container.status()["game_id"]
    ask(container, "reboot")
    assert container.process is not None
    container.process.wait(timeout=120)  # nspawn ends the container on a reboot (exit 133): boot it again
    assert container.process.returncode == 133
    container.boot()
    container.active()
    assert container.status()["game_id"] == game


SERVED = "/srv/git"  # the project's repository, pi-table.git, served by git daemon as a forge serves it
UPSTREAM = "/var/tmp/upstream"  # where the project makes its versions and pushes them to the repository
CLONE = "/home/cafe/pi-table-clone"
COMMITTER = "-c user.name=pi-table-ci -c user.email=ci@pi-table.invalid"


def test_an_update_from_the_repository_the_table_was_installed_from(container, maker_key):
    """Under the real systemd: the table installed from a café's clone (install.sh notes its
    repository and branch); a newer version pushed to that branch; the staff page's Updates
    section offers it, asks for it; the helper clones, builds and switches, the table is proven on
    the new release, and the page says which version runs and that the update is done. The
    repository is served over the network (git://, on this machine), as a forge serves it: the
    café, the service and the helper each clone it as their own user, the last two one commit."""
    container.run(f"git init -q --bare -b main {SERVED}/pi-table.git && cp -r {CHECKOUT} {UPSTREAM} && "
                  f"cd {UPSTREAM} && git init -q -b main && git add -A && "
                  f"git {COMMITTER} commit -q -m 'the version installed' && "
                  f"git remote add origin {SERVED}/pi-table.git && git push -q -u origin main")
    port = free_port()
    container.run(f"systemd-run --quiet --unit=forge git daemon --reuseaddr --export-all --base-path={SERVED} "
                  f"--listen=127.0.0.1 --port={port} {SERVED}")
    repository = f"git://127.0.0.1:{port}/pi-table.git"
    container.wait_for(lambda: container.run(f"git ls-remote {repository}", check=False).returncode == 0, "git daemon")
    container.run(f"git clone -q {repository} {CLONE}", user="cafe", env={"HOME": "/home/cafe"})
    installed = install(container, CLONE)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    rested(container)
    origin = json.loads((container.merged / HOME.lstrip("/") / "origin.json").read_text())
    assert origin == {"repository": repository, "branch": "main"}
    before, version = linked(container, "current"), running_version(container)
    assert before.startswith(version + "-")
    staff = staff_phone(container)
    status, found = staff.call("GET", "/staff/api/update?repository")
    assert status == 200 and found["running"]["version"] == version and found["offered"] == [], found

    major, minor = version.split(".")[:2]
    newer = f"{major}.{int(minor) + 1}.0"
    bump(container.merged / UPSTREAM.lstrip("/"), newer)
    container.run(f"cd {UPSTREAM} && git {COMMITTER} commit -q -am 'pi-table {newer}, not signed' && git push -q")
    status, found = staff.call("GET", "/staff/api/update?repository")
    assert status == 200 and found["offered"] == [{"from": "repository", "version": newer, "branch": "main"}], found
    since = time.time()
    assert staff.call("POST", "/staff/api/update", {"from": "repository"}) == (202, {"ok": True})
    last = helper_done(container, since)
    assert last["outcome"] == "failed" and last["why"]["template"].startswith("the newest commit of branch"), last
    assert linked(container, "current") == before
    # the maker signs the branch's head with the key the table accepts (git's SSH signatures)
    shutil.copy(maker_key, container.merged / "root/release-key")
    container.run(f"cd {UPSTREAM} && git {COMMITTER} -c gpg.format=ssh -c user.signingkey=/root/release-key "
                  f"commit -q -S --amend -m 'pi-table {newer}' && git push -q -f")
    status, found = staff.call("GET", "/staff/api/update?repository")
    assert status == 200 and found["offered"] == [{"from": "repository", "version": newer, "branch": "main"}], found
    since = time.time()
    assert staff.call("POST", "/staff/api/update", {"from": "repository"}) == (202, {"ok": True})
    last = helper_done(container, since)
    assert last["outcome"] == "done", json.dumps(last)  # whole: why it failed or was rolled back
    current = linked(container, "current")
    assert current.startswith(newer + "-") and linked(container, "previous") == before
    assert running_version(container) == newer
    assert not (container.merged / HOME.lstrip("/") / "trial.json").exists()
    staff = container.wait_for(lambda: as_owner_once_answering(Staff(f"http://127.0.0.1:{PORT}")), "the staff page", 30)
    status, found = staff.call("GET", "/staff/api/update?repository")
    assert status == 200, found
    assert found["running"] == {"release": current, "version": newer}
    assert found["previous"] == {"release": before, "version": version} and found["trial"] is None
    assert found["rolled_back"] is None and found["offered"] == []  # nothing newer on the branch now
    assert found["last"]["outcome"] == "done" and found["last"]["why"] == f"release {current} runs and is healthy"


def test_a_release_key_is_added_and_revoked_through_the_helper_under_systemd(container, tmp_path):
    """Issue 50, 4: the staff page's request, as the service leaves it, changes /etc/pi-table-keys
    from inside the helper's sandbox (its one more writable path), and a revoked key stays revoked."""
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "owner", "-f", str(tmp_path / "owner")],
                   check=True)
    public = (tmp_path / "owner.pub").read_text().strip()
    container.run(f"install -d -o pi-table -g pi-table -m 0700 {SPOOL}")
    last = helper_done(container, ask(container, "keys-add", name="owner", key=public), 60)
    assert (last["act"], last["outcome"]) == ("keys-add", "done") and last["fingerprint"].startswith("SHA256:")
    listed = container.run("/opt/pi-table/helper keys list").stdout
    assert f"owner {last['fingerprint']}\n" in listed
    last = helper_done(container, ask(container, "keys-revoke", name="owner"), 60)
    assert last["outcome"] == "done"
    assert f"owner {last['fingerprint']} (revoked)" in container.run("/opt/pi-table/helper keys list").stdout


def test_the_security_updates_run_in_their_own_unit_and_say_how_they_ended_under_systemd(container):
    """Issue 50, 8: the service asks, the helper starts pi-table-security.service, which runs
    Debian's real unattended-upgrade outside the helper's sandbox, and notes how it ended and what
    changed; Debian's own timer is told to leave them to the table."""
    conf = container.run("apt-config dump APT::Periodic::Unattended-Upgrade").stdout
    assert 'APT::Periodic::Unattended-Upgrade "0";' in conf
    container.run(f"install -d -o pi-table -g pi-table -m 0700 {SPOOL}")
    since = ask(container, "security")
    note = container.merged / HOME.lstrip("/") / "security.json"

    def ended():
        try:
            found = json.loads(note.read_text())
        except (OSError, ValueError):
            return None
        return found if found.get("running") is False and found.get("began", 0) >= since else None

    found = container.wait_for(ended, "the security updates' run", 1800)
    shown = container.run("systemctl show pi-table-security.service -p Result --value", check=False).stdout.strip()
    journal = container.run("journalctl -u pi-table-security -b --no-pager -o cat", check=False).stdout
    assert found["outcome"] in ("done", "nothing"), (found, journal[-3000:])
    assert shown == "success" and "security updates: unattended-upgrade" in journal
    assert isinstance(found["changed"], list) and isinstance(found["reboot"], bool)


def test_the_owner_makes_this_table_the_cafes_broker_under_systemd(container, tmp_path):
    """Issue 50, 3: Mosquitto came with the install, turned off (it is not in the cached root: the
    installer brings it, as on a fresh Pi, and turns one it brought off); the owner makes the table the
    café's broker from its staff page, and the root helper, inside its sandbox, writes
    /etc/mosquitto (its one more writable path: Debian's SysV links for Mosquitto are left to
    systemd), enables and starts Debian's mosquitto.service, which takes its key and its users as
    its own user; the table restarts to report to it, and another table connects over TLS on
    port 8883 (this machine's: the container shares it) with what the page showed."""
    from pi_table.config import broker as broker_config
    from pi_table.fleet.reporter import Reporter

    assert container.run("systemctl is-enabled mosquitto.service", check=False).stdout.strip() == "disabled"
    assert container.run("systemctl is-active mosquitto.service", check=False).stdout.strip() == "inactive"
    before = container.active()
    staff = staff_phone(container)
    asked = {"act": "set-up", "address": "pi-table-ci.local", "table": "bar-1", "tables": ["bar-2"]}
    status, answer = staff.call("POST", "/staff/api/broker", asked)
    assert status == 202 and answer["ok"], answer

    phone = [staff]

    def settled():
        try:
            status, view = phone[0].call("GET", "/staff/api/broker")
            if status in (401, 403):  # the table restarted on its new settings: the phone logs in again
                phone[0] = as_owner_once_answering(Staff(f"http://127.0.0.1:{PORT}")) or phone[0]
                return None
        except OSError:  # the table restarting
            return None
        return view if status == 200 and view["pending"] is None else None

    view = container.wait_for(settled, "the broker set up", 120)
    helper = container.run("journalctl -u pi-table-helper -b --no-pager -o cat", check=False).stdout
    assert view["last"]["outcome"] == "done", (view, helper[-3000:])
    assert container.run("systemctl is-enabled mosquitto.service").stdout.strip() == "enabled"
    assert container.run("systemctl is-active mosquitto.service").stdout.strip() == "active"
    owners = container.run("stat -c '%n %a %U' /etc/mosquitto/pi-table.passwd /etc/mosquitto/certs/broker.key "
                           "/etc/mosquitto/pi-table-ca.key /etc/mosquitto/pi-table-ca.crt").stdout.splitlines()
    assert owners == ["/etc/mosquitto/pi-table.passwd 600 mosquitto", "/etc/mosquitto/certs/broker.key 600 mosquitto",
                      "/etc/mosquitto/pi-table-ca.key 600 root", "/etc/mosquitto/pi-table-ca.crt 644 root"]
    bar_2 = next(table for table in view["tables"] if table["name"] == "bar-2")
    assert bar_2["broker"] == "mqtts://bar-2@pi-table-ci.local:8883"

    container.active(restarts=int(before["NRestarts"]) + 1)  # the table on its own broker, as a trial
    container.wait_for(lambda: json.loads(container.run("pi-table status --json").stdout)["health"].get("fleet") == "ok",
                       "the table reporting to itself", 60)
    staff = container.wait_for(lambda: as_owner_once_answering(Staff(f"http://127.0.0.1:{PORT}")), "the staff page", 30)
    ca = tmp_path / "pi-table-broker-ca.crt"
    ca.write_text(staff.call("GET", "/staff/api/broker/ca.crt")[1])
    secret = tmp_path / "bar-2.password"
    secret.write_text(bar_2["password"] + "\n")
    other = Reporter(broker_config(bar_2["broker"].replace("pi-table-ci.local", "127.0.0.1"), table_id="bar-2",
                                   password_file=str(secret), ca=str(ca)), act=lambda request: {"ok": True})
    other.start()
    try:
        wait_for(other.connected.is_set, "another table on the café's broker with what the page showed", 15)
    finally:
        other.stop()
