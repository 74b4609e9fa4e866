"""pi-table's SD image, built as a maker builds it and booted as a café boots it, on an emulated
Raspberry Pi 3 (QEMU's raspi3b, Debian 12's qemu-system-arm).

The chain, each link cached under /var/cache/pi-table-ci by what it is made from:

1. the base: tests/image/build-base, a stand-in for Raspberry Pi OS Lite from Debian's archive
   (its layout: a FAT bootfs with config.txt and cmdline.txt, an ext4 rootfs; Debian's kernel and
   raspi-firmware), keyed on that script and the mirror;
2. the Pi's wheels the package index lacks (rpi-ws281x), built in the base under emulation
   (``pi-table pi-wheels``), keyed on the base and requirements.lock;
3. a signed bundle of this checkout for the Pi (``pi-table bundle --for pi``), made each run;
4. the image (``pi-table image``), its base with the system packages kept (``--cache``), so a
   warm build installs only the release.

Then the image is flashed as an owner would (decompressed, the card's size a power of two, as
the emulated SD card wants), customised as Raspberry Pi Imager writes its settings (a
firstrun.sh on the boot partition that the kernel's command line runs once: the user's SSH key,
SSH on), and booted with the kernel, initramfs and device tree from its own boot partition, the
traps of raspi3b minded: the console on the mini UART (QEMU's second serial, ttyS1), vchiq left
out (it oopses), a boot whose kernel did not come up or whose USB hub did not enumerate tried
once more and counted (``BootRetried``: the log and pytest's warnings say so). The touch board
is the board emulator (the firmware on fake chips) on this machine, behind the Pi's USB serial
(-device usb-serial: an FTDI, /dev/ttyUSB0 through the real kernel's ftdi_sio), and the staff
page and SSH reach the Pi through user networking's forwarded ports (-device usb-net).

Three things the emulated Pi has that a real one does not, set by the test's customisation beside
Imager's: the board's USB id is QEMU's FTDI (0403:6001), not the Pico's; its tty is ttyUSB
(major 188), which the unit's device list (made for the Pico's ttyACM) is widened to; and its
processor is several times slower than a Pi 3's, so the unit's time to READY is START_S, and the
root helper's unit (an update builds its venv on the Pi) has HELPER_S.

Needs root (loop devices, mounts, chroot), qemu-system-arm, qemu-user-static with binfmt,
debootstrap, mtools and zstd; a skip fails under .ci/run. The first run builds the base (about
20 minutes); later runs reuse it. Run it alone with ``./dev test --all -m emulated_pi``.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import warnings
from pathlib import Path

import pytest

from pi_table.errors import PiTableWarning

from helpers import require_tools, wait_for
from helpers_staff import OWNER_PASSPHRASE, STAFF_PIN, Staff, as_owner_once_answering, staff_login

pytestmark = pytest.mark.emulated_pi

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("PI_TABLE_CI_CACHE", "/var/cache/pi-table-ci"))
BUILD_BASE = ROOT / "tests" / "image" / "build-base"
MIRROR = os.environ.get("PI_TABLE_DEBIAN_MIRROR", "http://deb.debian.org/debian")
USER = "pi"  # Raspberry Pi OS's first user, uid 1000, whose key Imager's settings give
QEMU_FTDI = "0403:6001"  # QEMU's usb-serial: an FTDI FT232
USB_SERIAL_MAJOR = 188  # ttyUSB
BOOT_S = 600  # from power on to READY: 75-100 s is usual here, several minutes on a loaded machine
KERNEL_S = 180  # a boot whose console shows no kernel by then is a kernel that did not come up
USB_S = 240  # a boot whose USB serial is not attached by then is a failed enumeration (or no kernel)
KERNEL_UP = r"Linux version "  # the kernel's banner, the console's first line once it is registered
START_S = 300  # the unit's TimeoutStartSec on the emulated Pi (the unit's own is 60 s)
HELPER_S = 3600  # an update's build under emulation (the venv and pip: 18 minutes alone, 30 beside other work)


def log(line: str) -> None:
    """A figure or a step for the CI log (pytest shows it with -s, and in the failure's report)."""
    print(f"emulated pi: {line}", file=sys.stderr, flush=True)


class BootRetried(PiTableWarning, UserWarning):
    """A boot cut and tried once more for the emulator's own reasons: pytest's warnings summary
    shows each, so a run that needed one says so even when it passes."""


RETRIED: list[str] = []  # why each boot was tried again, for the figures


def retried(why: str) -> None:
    """Count a boot tried again, and say so in the log and in pytest's summary: never hidden."""
    RETRIED.append(why)
    log(f"boot tried again ({len(RETRIED)} in this run): {why}")
    warnings.warn(BootRetried(f"the emulated Pi's boot was tried again: {why}"), stacklevel=2)


def run(command: list[str], timeout: float = 3600, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False, **kwargs)
    assert done.returncode == 0, f"{command[:4]} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def cached(name: str, make) -> Path:
    """``CACHE/name``, made by ``make(partial_path)`` once (under a lock: two runs share the cache);
    the older ones of the same kind removed."""
    CACHE.mkdir(parents=True, exist_ok=True)
    kind = name.rsplit("-", 1)[0]
    with open(CACHE / f"{kind}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        kept = CACHE / name
        if not kept.exists():
            started = time.monotonic()
            partial = CACHE / f"{name}.part"
            shutil.rmtree(partial, ignore_errors=True) if partial.is_dir() else partial.unlink(missing_ok=True)
            make(partial)
            partial.rename(kept)
            log(f"{name} made in {time.monotonic() - started:.0f} s")
            for older in CACHE.glob(f"{kind}-*"):
                if older.name not in (name, f"{name}.log"):
                    shutil.rmtree(older, ignore_errors=True) if older.is_dir() else older.unlink(missing_ok=True)
        else:
            log(f"{name}: cached")
    return kept


def key_of(*parts: bytes) -> str:
    return hashlib.sha256(b"\0".join(parts)).hexdigest()[:12]


def pi_table(*args: str, timeout: float = 7200) -> subprocess.CompletedProcess:
    started = time.monotonic()
    done = run([sys.executable, "-m", "pi_table", *args], timeout=timeout,
               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    log(f"pi-table {args[0]}: {time.monotonic() - started:.0f} s")
    return done


# --- the chain: base, wheels, bundle, image ------------------------------------------------------------


@pytest.fixture(scope="module")
def base() -> tuple[Path, str]:
    """The stand-in base image and its SHA-256 (as Raspberry Pi OS publishes one beside its image)."""
    if os.geteuid() != 0:
        pytest.skip("building and booting the image needs root (loop devices, mounts, chroot)")
    require_tools("qemu-system-aarch64", "qemu-aarch64-static", "debootstrap", "mcopy", "mkfs.vfat", "sfdisk",
                  "losetup", "zstd", "ssh", "ssh-keygen", "git", "unshare")

    def make(partial: Path) -> None:
        said = CACHE / f"{partial.name.removesuffix('.part')}.log"
        with open(said, "w") as out:
            built = subprocess.run([BUILD_BASE, partial, MIRROR], stdout=out, stderr=subprocess.STDOUT, timeout=7200,
                                   check=False)
        assert built.returncode == 0, f"building the base failed: see {said}"

    image = cached(f"image-base-{key_of(BUILD_BASE.read_bytes(), MIRROR.encode())}.img", make)
    digest = image.with_name(image.name + ".sha256")
    if not digest.exists() or digest.stat().st_mtime < image.stat().st_mtime:
        with open(image, "rb") as file:
            digest.write_text(hashlib.file_digest(file, "sha256").hexdigest())
    return image, digest.read_text().strip()


@pytest.fixture(scope="module")
def pi_wheels(base) -> Path:
    image, sha = base
    lock = (ROOT / "requirements.lock").read_bytes()
    return cached(f"image-wheels-{key_of(sha.encode(), lock)}",
                  lambda partial: pi_table("pi-wheels", "--base", str(image), "--sha256", sha, "--source", str(ROOT),
                                           "-o", str(partial)))


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """The module's folder, on a disk (not a tmpfs): images of gigabytes, sparse."""
    folder = Path(tempfile.mkdtemp(prefix="pi-table-emulated-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def maker(work) -> Path:
    key = work / "keys" / "maker"
    key.parent.mkdir()
    run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "maker", "-f", str(key)])
    return key


VERSION = re.search(r'^version = "([^"]+)"$', (ROOT / "pyproject.toml").read_text(), re.MULTILINE).group(1)


def later(steps: int) -> str:
    major, minor, patch = (int(part) for part in VERSION.split(".")[:3])
    return f"{major}.{minor}.{patch + steps}"


def release_tree(work: Path, version: str, broken: bool = False) -> Path:
    """This checkout's tracked files as they are, made ``version`` as the project makes a release
    (pyproject.toml and the CHANGELOG's newest section), committed; ``broken``: its command raises
    as it starts, so no table can start on it."""
    tree = work / f"tree-{version}"
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, text=True, check=True)  # new files too: a change being tested
    for name in filter(None, listed.stdout.split("\0")):
        if (ROOT / name).is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, tree / name)
    if version != VERSION:
        pyproject = tree / "pyproject.toml"
        pyproject.write_text(pyproject.read_text().replace(f'version = "{VERSION}"', f'version = "{version}"', 1))
        changelog = tree / "CHANGELOG.md"
        text = changelog.read_text()
        newest = text.index("\n## ") + 1
        changelog.write_text(f"{text[:newest]}## {version}\n\nThe emulated Pi's update.\n\n{text[newest:]}")
    if broken:
        with open(tree / "pi_table/cli/__init__.py", "a") as cli:
            cli.write("\n\ndef main(argv=None):\n    raise RuntimeError('a release that cannot start, on purpose')\n")
    git = ["git", "-C", str(tree), "-c", "user.name=pi-table-ci", "-c", "user.email=ci@pi-table.invalid"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", version]):
        run([*git, *args])
    return tree


def bundle_for_the_pi(work: Path, maker: Path, wheels: Path, version: str, broken: bool = False) -> tuple[Path, Path]:
    tree = release_tree(work, version, broken)
    out = work / f"pi-table-{version}{'-broken' if broken else ''}.tar.gz"
    pi_table("bundle", "--source", str(tree), "--for", "pi", "--wheels-from", str(wheels), "--key", str(maker),
             "-o", str(out))
    return out, tree


@pytest.fixture(scope="module")
def built(base, pi_wheels, work, maker) -> dict:
    """The image as the maker builds it, and what was written beside it."""
    image, sha = base
    bundle, tree = bundle_for_the_pi(work, maker, pi_wheels, VERSION)
    out = work / "out" / f"pi-table-{VERSION}.img.zst"
    started = time.monotonic()
    pi_table("image", "--base", str(image), "--sha256", sha, "--bundle", str(bundle), "--source", str(tree),
             "--accept", str(maker.with_name("maker.pub")), "--cache", str(CACHE / "image-prepared"), "-o", str(out))
    log(f"image built in {time.monotonic() - started:.0f} s ({out.stat().st_size // 2**20} MB)")
    raw = work / "card.img"
    run(["zstd", "-q", "-d", "-f", str(out), "-o", str(raw)])
    return {"out": out, "raw": raw, "tree": tree, "listing": json.loads(out.with_name(f"pi-table-{VERSION}.json")
                                                                        .read_text())["os_list"][0]}


# --- the built image, before it is flashed -------------------------------------------------------------------


def partitions(image: Path) -> list[dict]:
    return json.loads(run(["sfdisk", "--json", str(image)]).stdout)["partitiontable"]["partitions"]


def fat(image: Path) -> str:
    return f"{image}@@{partitions(image)[0]['start'] * 512}"


def fat_read(image: Path, name: str) -> str:
    return run(["mtype", "-i", fat(image), f"::/{name}"], env={**os.environ, "MTOOLS_SKIP_CHECK": "1"}).stdout


class Mounted:
    """The image's root partition mounted read-only, for looking."""

    def __init__(self, image: Path, at: Path) -> None:
        root = partitions(image)[-1]
        self.at = at
        at.mkdir(exist_ok=True)
        run(["mount", "-o", f"ro,loop,noload,offset={root['start'] * 512},sizelimit={root['size'] * 512}",
             str(image), str(at)])

    def __enter__(self) -> Path:
        return self.at

    def __exit__(self, *exc) -> None:
        run(["umount", str(self.at)])


def test_the_image_and_its_os_list_entry_are_what_imager_checks(built):
    """Imager writes the card only if the image it extracts has the listed SHA-256 and size."""
    entry, out, raw = built["listing"], built["out"], built["raw"]
    with open(raw, "rb") as file:
        assert entry["extract_sha256"] == hashlib.file_digest(file, "sha256").hexdigest()
    assert entry["extract_size"] == raw.stat().st_size
    with open(out, "rb") as file:
        downloaded = hashlib.file_digest(file, "sha256").hexdigest()
    assert entry["image_download_sha256"] == downloaded and entry["image_download_size"] == out.stat().st_size
    assert out.with_name(out.name + ".sha256").read_text() == f"{downloaded}  {out.name}\n"
    assert entry["init_format"] == "systemd" and entry["url"] == out.resolve().as_uri()


PRIVATE = re.compile(rb"-----BEGIN [A-Z ]*PRIVATE KEY-----")


def test_the_image_holds_no_secret_and_ssh_is_off(built, work, maker):
    """What a table makes for itself is not in the image every table copies: no state of the
    table's (its phones' secret, its staff PIN, its TLS key), no SSH host key, no machine id or
    random seed, no private key a package did not bring; nothing of the machine that built it
    (the maker's signing key, its pip settings and certificates, its resolver); SSH off."""
    raw = built["raw"]
    signing = maker.read_bytes().splitlines()[2:-1]  # the key's own lines (the first is every such key's header)
    with open(raw, "rb") as image:
        tail = b""
        while chunk := image.read(1 << 24):
            assert not any(line in tail + chunk for line in signing), "the maker's private key is in the image"
            tail = chunk[-100:]
    host_cas = [path.read_bytes().splitlines()[5] for path in Path("/usr/local/share/ca-certificates").glob("*.crt")]
    with Mounted(raw, work / "look") as root:
        assert not (root / "var/lib/pi-table").exists() or list((root / "var/lib/pi-table").rglob("*")) == []
        assert not (root / "etc/pi-table/tls").exists()
        assert list((root / "etc/ssh").glob("ssh_host_*")) == []
        assert (root / "etc/machine-id").read_text() == ""
        assert not (root / "var/lib/systemd/random-seed").exists()
        assert not (root / "var/tmp/pi-table-image").exists() and not (root / "etc/pip.conf").exists()
        assert (root / "etc/resolv.conf").read_bytes() != Path("/etc/resolv.conf").read_bytes()
        bundle = (root / "etc/ssl/certs/ca-certificates.crt").read_bytes()
        assert not any(ca and ca in bundle for ca in host_cas), "this machine's own certificates are in the image"
        # private keys: only those Debian's packages bring (test keys of libraries), listed in dpkg's files
        found = subprocess.run(["grep", "-rlIE", "-e", "-----BEGIN [A-Z ]*PRIVATE KEY-----", "."], cwd=root,
                               capture_output=True, text=True, check=False).stdout.split()
        packaged = set()
        for listing in (root / "var/lib/dpkg/info").glob("*.list"):
            for name in listing.read_text(errors="replace").splitlines():  # /lib is /usr/lib (merged /usr)
                packaged.update({name, f"/usr{name}"} if name.startswith(("/lib/", "/bin/", "/sbin/")) else {name})
        assert [name for name in found if name.removeprefix(".") not in packaged] == []
        # SSH off: Imager's settings turn it on
        wants = root / "etc/systemd/system/multi-user.target.wants"
        assert not (wants / "ssh.service").exists() and not (root / "etc/systemd/system/sshd.service").exists()
        # what the image does enable
        assert (wants / "pi-table.service").is_symlink() and (wants / "pi-table-helper.path").is_symlink()
        assert (root / "etc/systemd/system/local-fs.target.wants/pi-table-image-boot.service").is_symlink()
        current = os.readlink(root / "opt/pi-table/current")
        assert current.startswith(f"releases/{VERSION}-") and (root / "opt/pi-table" / current / "release.json").is_file()
        assert not (root / "opt/pi-table/origin.json").exists()  # updates come as bundles
        assert "maker " in (root / "etc/pi-table-keys/allowed_signers").read_text()
    boot = fat_read(raw, "config.txt")
    for line in ("dtparam=spi=on", "dtparam=i2c_arm=on", "dtoverlay=vc4-kms-v3d", "display_auto_detect=0",
                 "dtoverlay=vc4-kms-dsi-ili9881-7inch", "dtoverlay=max98357a", "dtparam=audio=off"):
        assert line in boot.splitlines(), line
    assert "[pi3]\ncore_freq=250\n" in boot and "[pi4]\ncore_freq=500\ncore_freq_min=500\n" in boot
    listed = run(["mdir", "-b", "-i", fat(raw), "::/"], env={**os.environ, "MTOOLS_SKIP_CHECK": "1"}).stdout
    assert "::/ssh" not in listed.split() and "::/firstrun.sh" not in listed.split()


# --- the emulated Pi ----------------------------------------------------------------------------------


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class EmulatedPi:
    """QEMU's raspi3b on the flashed card, the board emulator behind its USB serial, its SSH and
    table's pages forwarded to this machine."""

    def __init__(self, card: Path, folder: Path, ssh_key: Path) -> None:
        from pi_table.sim.emulator import BoardEmulator

        self.card, self.folder, self.ssh_key = card, folder, ssh_key
        self.ssh_port, self.web_port, self.tls_port = free_port(), free_port(), free_port()
        self.board = BoardEmulator(link=folder / "touch-board")
        self.board.start()
        self.process: subprocess.Popen | None = None
        self.console = folder / "console.log"
        self.started = 0.0

    # the firmware's part: what it would load, from the card's boot partition
    def _firmware(self) -> list[str]:
        env = {**os.environ, "MTOOLS_SKIP_CHECK": "1"}
        config = fat_read(self.card, "config.txt")
        section, settings = "all", {}
        for line in config.splitlines():
            line = line.split("#")[0].strip()
            if line.startswith("["):
                section = line.strip("[]")
            elif line and section in ("all", "pi3"):
                key, _, value = line.partition("=") if "=" in line else line.partition(" ")
                settings.setdefault(key.strip(), value.strip())
        kernel = settings.get("kernel", "kernel8.img")
        initramfs = settings.get("initramfs", "").split()[0] if settings.get("initramfs") else None
        dtb = "bcm2837-rpi-3-b.dtb" if settings.get("upstream_kernel") == "1" else "bcm2710-rpi-3-b.dtb"
        loaded = self.folder / "firmware"
        loaded.mkdir(exist_ok=True)
        for name in filter(None, (kernel, initramfs, dtb)):
            run(["mcopy", "-o", "-n", "-i", fat(self.card), f"::/{name}", str(loaded / name)], env=env)
        # the kernel's command line: the card's, its serial0 (a name the firmware resolves) made the
        # mini UART QEMU gives as its second serial; quiet left out, so the console shows the USB
        # devices as the kernel finds them; vchiq left out (it oopses on raspi3b)
        words = [word for word in fat_read(self.card, "cmdline.txt").split()
                 if not word.startswith("console=") and word != "quiet"]
        command = ["-kernel", str(loaded / kernel), "-dtb", str(loaded / dtb),
                   "-append", " ".join([*words, "console=ttyS1,115200", "module_blacklist=vchiq"])]
        return command + (["-initrd", str(loaded / initramfs)] if initramfs else [])

    def first_boot(self) -> None:
        """The first boot, which runs Imager's settings and reboots (its USB hub may or may not come
        up: no matter). One whose kernel never came up is the emulator's (the card is as flashed:
        the settings never ran), so it is cut and tried once more, and counted."""
        self._start()
        if self.wait_console(KERNEL_UP, KERNEL_S, fail=False) is None:
            self._ended_early("the kernel came up")
            retried(f"the first boot's kernel did not come up in {KERNEL_S} s; its console:\n{self.console_tail(10)}")
            self.power_cut()
            self._start()
        self.wait_off(BOOT_S)

    def power_on(self) -> None:
        """Boot until the kernel has attached the touch board's USB serial. A boot that fails for
        the emulator's own reasons (its kernel did not come up; its USB hub did not enumerate, about
        one boot in four here) is cut and tried once more, and counted; a second failure fails."""
        for attempt in (1, 2):
            self._start()
            if self.wait_console(r"attached to ttyUSB0", USB_S, fail=False):
                return
            self._ended_early("the USB serial was attached")
            why = (f"the kernel did not come up in {USB_S} s" if not re.search(KERNEL_UP, self.console_text())
                   else f"the emulated USB hub did not enumerate: no USB serial attached in {USB_S} s")
            self.power_cut()
            if attempt == 2:
                pytest.fail(f"a boot tried again failed too: {why}; console:\n{self.console_tail()}")
            retried(f"{why}; its console:\n{self.console_tail(10)}")

    def _ended_early(self, before: str) -> None:
        """QEMU itself ended: no reason of the emulated hardware's, so no second try."""
        assert self.process is not None
        if self.process.poll() is not None:
            pytest.fail(f"QEMU ended ({self.process.returncode}) before {before}; console:\n"
                        f"{self.console_tail()}\nQEMU: {(self.folder / 'qemu.log').read_text()[-2000:]}")

    def _start(self) -> None:
        forwards = (f"hostfwd=tcp:127.0.0.1:{self.ssh_port}-:22,hostfwd=tcp:127.0.0.1:{self.web_port}-:8024,"
                    f"hostfwd=tcp:127.0.0.1:{self.tls_port}-:8443")  # the guests' pages, and the staff's over https
        self.console.write_text("")
        command = ["qemu-system-aarch64", "-M", "raspi3b", *self._firmware(),
                   "-drive", f"file={self.card},if=sd,format=raw",
                   "-device", "usb-net,netdev=net0", "-netdev", f"user,id=net0,{forwards}",
                   "-chardev", f"serial,id=board,path={os.path.realpath(self.board.path)}",
                   "-device", "usb-serial,chardev=board",
                   "-chardev", f"file,id=console,path={self.console}", "-serial", "null", "-serial", "chardev:console",
                   "-display", "none", "-monitor", "none", "-no-reboot"]
        self.started = time.monotonic()
        with open(self.folder / "qemu.log", "a") as said:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=said)

    def console_text(self) -> str:
        return self.console.read_text(errors="replace")

    def console_tail(self, lines: int = 40) -> str:
        return "\n".join(self.console_text().splitlines()[-lines:])

    def wait_console(self, pattern: str, timeout: float, fail: bool = True) -> float | None:
        """Seconds from power on until the console shows ``pattern``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if re.search(pattern, self.console_text()):
                return time.monotonic() - self.started
            if self.process is not None and self.process.poll() is not None:
                break
            time.sleep(1)
        if fail:
            pytest.fail(f"the console did not show {pattern!r} in {timeout} s; its tail:\n{self.console_tail()}")
        return None

    def wait_off(self, timeout: float) -> None:
        """The Pi rebooted or powered off (QEMU ends then: -no-reboot)."""
        assert self.process is not None
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the Pi did not reboot in {timeout} s; console:\n{self.console_tail()}")

    def power_cut(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)

    def ssh(self, command: str, check: bool = True, timeout: float = 120, input: str | None = None):
        done = subprocess.run(
            ["ssh", "-i", str(self.ssh_key), "-p", str(self.ssh_port), "-o", "StrictHostKeyChecking=no",
             "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o", "ConnectTimeout=20",
             "-o", "LogLevel=ERROR", f"{USER}@127.0.0.1", command],
            input=input, capture_output=True, text=True, timeout=timeout, check=False)
        if check and done.returncode != 0:
            pytest.fail(f"on the Pi, {command!r} exited {done.returncode}: {done.stdout[-2000:]} {done.stderr[-2000:]}")
        return done

    def wait_ssh(self, timeout: float = BOOT_S) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.ssh("true", check=False, timeout=60).returncode == 0:
                    return
            except subprocess.TimeoutExpired:
                pass
            time.sleep(3)
        pytest.fail(f"no SSH on the Pi in {timeout} s; console:\n{self.console_tail()}")

    def ready(self) -> float:
        """Seconds from power on to READY (pi-table.service active, which Type=notify makes it
        only once the table said READY=1), by the Pi's own clock: systemd's
        ActiveEnterTimestampMonotonic counts from the kernel's start, which QEMU reaches at once
        (it loads the kernel itself; no firmware runs first). Read over SSH once it answers (the
        serial console shows no more of systemd's lines once its getty starts)."""
        self.wait_ssh()

        def active():
            try:
                state = self.show("ActiveState", "ActiveEnterTimestampMonotonic")
            except subprocess.TimeoutExpired:
                return None
            return state if state.get("ActiveState") == "active" else None
        state = until(active, "pi-table.service active", BOOT_S, self, every=3)
        return int(state["ActiveEnterTimestampMonotonic"]) / 1e6

    def answers(self, path: str) -> float:
        """Seconds from power on until ``path`` of the table's pages answers 200 through the
        forwarded port (the staff and set-up pages' https one for theirs), by this machine's clock.
        Only the answer is timed here: ``certificate`` is what a phone checks (``staff``)."""
        import ssl

        secret = path.startswith(("/staff", "/setup"))
        context = ssl._create_unverified_context() if secret else None  # timed only: staff() checks it

        def answered():
            try:
                with urllib.request.urlopen(f"{self.staff_web() if secret else self.web()}{path}", timeout=10,
                                            context=context) as page:
                    return page.status == 200
            except (OSError, urllib.error.HTTPError):
                return False
        until(answered, f"{path} through the forwarded port", BOOT_S, every=1)
        return time.monotonic() - self.started

    def status(self) -> dict:
        return json.loads(self.ssh("sudo pi-table status --json").stdout)

    def answering(self) -> dict | None:
        """The table's status, or None while it does not answer (a restart, or a Pi too busy to
        answer SSH in time)."""
        try:
            done = self.ssh("sudo pi-table status --json", check=False)
        except subprocess.TimeoutExpired:
            return None
        return json.loads(done.stdout) if done.returncode == 0 else None

    def show(self, *properties: str) -> dict[str, str]:
        out = self.ssh(f"systemctl show pi-table.service -p {','.join(properties)}").stdout
        return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)

    def web(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    def staff_web(self) -> str:
        """The staff and set-up pages, over https with the table's own certificate (issue 48, 4):
        from another machine (QEMU's forward comes from its gateway) plain http leads here."""
        return f"https://127.0.0.1:{self.tls_port}"

    def certificate(self) -> Path:
        """The table's own certificate, as the owner compares it with the phone's warning (read
        over SSH here): what a phone that accepted it trusts."""
        cert = self.folder / "table.crt"
        cert.write_text(self.ssh("sudo cat /etc/pi-table/tls/table.crt").stdout)
        return cert

    def close(self) -> None:
        self.power_cut()
        self.board.stop()


def until(condition, what: str, timeout: float, pi: EmulatedPi | None = None, every: float = 2.0):
    """``wait_for`` at the emulated Pi's pace, with its unit's journal when ``pi`` is given."""
    return wait_for(condition, what, timeout, every, explain=None if pi is None else lambda: "\n" + pi.ssh(
        "sudo journalctl -u pi-table -n 40 --no-pager", check=False).stdout)


def imager_settings(pi_key: Path) -> str:
    """firstrun.sh as Raspberry Pi Imager writes it for an image without Raspberry Pi OS's own
    helpers (its other branch calls them): the host name, the first user's SSH key, SSH on; then
    it takes itself off the command line. Then the test's own lines, marked."""
    key = pi_key.with_name(pi_key.name + ".pub").read_text().strip()
    return f"""#!/bin/bash
set +e
CURRENT_HOSTNAME=$(tr -d " \\t\\n\\r" < /etc/hostname)
echo pi-table-ci > /etc/hostname
sed -i "s/127.0.1.1.*$CURRENT_HOSTNAME/127.0.1.1\\tpi-table-ci/g" /etc/hosts
FIRSTUSER=$(getent passwd 1000 | cut -d: -f1)
FIRSTUSERHOME=$(getent passwd 1000 | cut -d: -f6)
install -o "$FIRSTUSER" -m 700 -d "$FIRSTUSERHOME/.ssh"
install -o "$FIRSTUSER" -m 600 <(printf "%s\\n" '{key}') "$FIRSTUSERHOME/.ssh/authorized_keys"
echo 'PasswordAuthentication no' >> /etc/ssh/sshd_config
systemctl enable ssh
# --- the test's own, not Imager's ---
# the emulated Pi's touch board: QEMU's FTDI, on ttyUSB (major {USB_SERIAL_MAJOR})
sed 's/^usb_id = .*/usb_id = "{QEMU_FTDI}"/' /etc/pi-table/config.toml > /tmp/config.toml
cat /tmp/config.toml > /etc/pi-table/config.toml
mkdir -p /etc/systemd/system/pi-table.service.d
printf '[Service]\\nDeviceAllow=char-{USB_SERIAL_MAJOR} rw\\n' > /etc/systemd/system/pi-table.service.d/emulated-board.conf
# the emulated Pi's processor: several times slower than a Pi 3's, on two shared cores; the unit's
# 60 s to READY ran out at a first start (the next took 52 s), so it has {START_S} s here
printf '[Service]\\nTimeoutStartSec={START_S}\\n' > /etc/systemd/system/pi-table.service.d/emulated-processor.conf
# and the root helper's update, which builds the release's venv there, {HELPER_S} s (its unit's own is 30 minutes)
mkdir -p /etc/systemd/system/pi-table-helper.service.d
printf '[Service]\\nTimeoutStartSec={HELPER_S}\\n' > /etc/systemd/system/pi-table-helper.service.d/emulated-processor.conf
# --- Imager's again ---
rm -f /boot/firmware/firstrun.sh
sed -i 's| systemd.run.*||g' /boot/firmware/cmdline.txt
exit 0
"""


def flash(built: dict, work: Path, pi_key: Path) -> Path:
    """The image on a card as Imager writes it: its bytes, then its settings on the boot partition;
    the card as big as the next power of two (QEMU's SD card wants one), so the root has room to grow."""
    card = work / "card.sd"
    run(["cp", "--sparse=always", str(built["raw"]), str(card)])
    size = card.stat().st_size + 512 * 2**20
    os.truncate(card, 1 << (size - 1).bit_length())
    env = {**os.environ, "MTOOLS_SKIP_CHECK": "1"}
    script = work / "firstrun.sh"
    script.write_text(imager_settings(pi_key))
    run(["mcopy", "-o", "-i", fat(card), str(script), "::/firstrun.sh"], env=env)
    line = fat_read(card, "cmdline.txt").strip()
    cmdline = work / "cmdline.txt"
    cmdline.write_text(f"{line} systemd.run=/boot/firmware/firstrun.sh systemd.run_success_action=reboot "
                       "systemd.unit=kernel-command-line.target\n")
    run(["mcopy", "-o", "-i", fat(card), str(cmdline), "::/cmdline.txt"], env=env)
    return card


FIGURES: dict[str, float] = {}


@pytest.fixture(scope="module")
def pi(built, work):
    pi_key = work / "keys" / "owner"
    run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(pi_key)])
    card = flash(built, work, pi_key)
    emulated = EmulatedPi(card, work, pi_key)
    try:
        emulated.first_boot()
        FIGURES["the first boot with Imager's settings, to its reboot"] = time.monotonic() - emulated.started
        emulated.power_on()
        FIGURES["power on to the set-up page answering (this machine's clock)"] = emulated.answers("/setup")
        FIGURES["power on to READY"] = emulated.ready()
        log("; ".join(f"{what}: {seconds:.0f} s" for what, seconds in FIGURES.items()))
        yield emulated
    finally:
        emulated.close()
        log("figures: " + "; ".join(f"{what} {seconds:.0f} s" for what, seconds in FIGURES.items())
            + f"; boots tried again: {len(RETRIED)}")


class SpoiltBoots(EmulatedPi):
    """An emulated Pi whose boots show ``consoles`` in turn, QEMU stood in for by a process that
    sleeps: what the emulator's own failures look like from here, without booting."""

    def __init__(self, folder: Path, consoles: list[str]) -> None:
        self.folder, self.console, self.consoles = folder, folder / "console.log", consoles
        self.process, self.started = None, 0.0

    def _start(self) -> None:
        self.console.write_text(self.consoles.pop(0))
        self.started = time.monotonic()
        self.process = subprocess.Popen(["sleep", "60"])


def test_a_boot_the_emulator_spoils_is_tried_once_more_counted_and_a_second_fails(tmp_path, monkeypatch):
    """No kernel, then a kernel whose USB hub did not enumerate: the first is tried again, and the
    run says so (the count, pytest's warning); the second, after a boot tried again, fails."""
    monkeypatch.setattr(sys.modules[__name__], "USB_S", 0.5)
    monkeypatch.setattr(sys.modules[__name__], "RETRIED", [])
    logged: list[str] = []  # in this test's log, not the CI log's, where it read as real boots tried again
    monkeypatch.setattr(sys.modules[__name__], "log", logged.append)
    up = "[    0.000000] Linux version 6.1.0-56-arm64\n"
    second = SpoiltBoots(tmp_path, ["", f"{up}usb 1-1.1: FTDI USB Serial Device converter now attached to ttyUSB0\n"])
    with pytest.warns(BootRetried, match="the kernel did not come up"):
        second.power_on()
    second.power_cut()
    assert len(RETRIED) == 1
    with pytest.warns(BootRetried), pytest.raises(pytest.fail.Exception) as failed:
        SpoiltBoots(tmp_path, [up, up]).power_on()
    assert "a boot tried again failed too: the emulated USB hub did not enumerate" in str(failed.value)
    assert len(RETRIED) == 2 and "did not enumerate" in RETRIED[-1]
    assert [line.split(":")[0] for line in logged] == ["boot tried again (1 in this run)", "boot tried again (2 in this run)"]


def test_the_service_is_ready_finds_the_board_and_says_the_leds_are_missing(pi):
    """READY under systemd (Type=notify), the touch board found through the kernel's USB serial and
    the real driver, the LED strip said missing in the health (raspi3b has no SPI or PWM), no restart."""
    status = until(lambda: (s := pi.answering()) and s["health"].get("touch") == "ok" and s, "the touch board", 120, pi)
    assert status["version"] == VERSION
    assert status["health"]["leds"].startswith("not working"), status["health"]
    state = pi.show("ActiveState", "SubState", "NRestarts")
    assert state == {"ActiveState": "active", "SubState": "running", "NRestarts": "0"}, state
    assert "attached to ttyUSB0" in pi.console_text()  # the kernel's ftdi_sio
    journal = pi.ssh("sudo journalctl -u pi-table -b --no-pager -o cat").stdout
    assert "on /dev/ttyUSB0" in journal, journal[-3000:]  # found by its USB id, as the Pico is


def test_the_first_boot_grew_the_root_and_made_the_tables_own_secrets_on_the_pi(pi, built):
    root_bytes = partitions(built["raw"])[-1]["size"] * 512
    grown = int(pi.ssh("df --block-size=1 --output=size / | tail -n 1").stdout)
    assert grown > root_bytes + 256 * 2**20, (grown, root_bytes)
    assert "growing" in pi.ssh("sudo journalctl -u pi-table-image-boot --no-pager -o cat").stdout
    assert pi.ssh("cat /etc/machine-id").stdout.strip() != ""
    assert pi.ssh("ls /etc/ssh/ssh_host_ed25519_key.pub", check=False).returncode == 0
    made = pi.ssh("sudo find /var/lib/pi-table/journal -maxdepth 1 -name companion.secret -perm 0600 -user pi-table").stdout
    assert made.strip().endswith("companion.secret")


@pytest.fixture(scope="module")
def set_up(pi, browser) -> dict:
    """The first boot's set-up (docs/dev/first-boot.md) done in Chromium as a phone does it,
    through the forwarded port: the code the screen shows (read here where root reads it: raspi3b's
    screen is no one's to look at), the table's name, its language, its zone, the PIN and the
    passphrase; then the table's restart, set up, and the staff page logged in with that PIN.
    What the phone saw, for the test named for it; the staff's and the owner's tests ask for it
    too, as they log in with what it set, so each of them runs alone (``-k signed_update``)."""
    from playwright.sync_api import expect

    from pi_table.release.first_boot import PENDING

    pending = json.loads(pi.ssh(f"sudo cat /var/lib/pi-table/journal/{PENDING}").stdout)
    waiting = pi.show("MainPID")["MainPID"]  # the table that waits for its set-up
    # a phone that accepted the table's own certificate (docs/cafe/console.md, over https)
    context = browser.new_context(viewport={"width": 390, "height": 844}, ignore_https_errors=True)
    page = context.new_page()
    seen = {}
    try:
        started = time.monotonic()
        page.goto(f"{pi.staff_web()}/setup", timeout=120_000)
        page.fill("#code", f"{pending['code'][:4]} {pending['code'][4:]}")
        page.fill("#name", "table-ci")
        page.select_option("#language", "it")
        page.fill("#zone", "Europe/Rome")
        for field in ("#pin", "#pin-again"):
            page.fill(field, STAFF_PIN)
        for field in ("#passphrase", "#passphrase-again"):
            page.fill(field, OWNER_PASSPHRASE)
        gone = []  # the table restarts once it has answered: nothing more is asked of it after that
        page.on("response", lambda answer: gone.append(True) if answer.request.method == "POST" and answer.ok else None)
        page.route("**/*", lambda route: route.abort() if gone else route.continue_())
        page.click("#submit")
        page.locator("#done").wait_for(timeout=120_000)
        page.unroute("**/*")
        seen["done"] = page.locator("#done-line").inner_text()

        def restarted() -> bool:
            try:
                state = pi.show("MainPID", "ActiveState")
            except subprocess.TimeoutExpired:
                return False
            return state["ActiveState"] == "active" and state["MainPID"] != waiting
        until(restarted, "the table started again, set up", BOOT_S, pi, every=5)
        pi.answers("/staff")  # its pages open a little after READY
        page.goto(f"{pi.staff_web()}/setup", timeout=120_000)  # gone: the staff page instead
        until(lambda: page.url.endswith("/staff"), "the set-up page gone to /staff", 60)
        seen["after"] = page.url
        staff_login(page, pi.staff_web(), STAFF_PIN)
        expect(page.locator("#desk")).to_be_visible(timeout=120_000)
        seen["desk"] = page.locator("#desk").is_visible()
        FIGURES["the set-up page, opened to the staff page logged in"] = time.monotonic() - started
    finally:
        context.close()
    return seen


def test_the_set_up_page_answers_through_the_forwarded_port_and_is_done_from_a_phone(pi, set_up):
    """The set-up done from a phone (``set_up``): the page said so in the language chosen, the
    table kept it, the set-up page then led to the staff page, which the PIN opened, and the zone
    was set on the Pi by timedated through the root helper."""
    from pi_table.release.first_boot import DONE

    assert set_up["done"].startswith("Il tavolo è pronto"), set_up
    assert pi.ssh(f"sudo test -e /var/lib/pi-table/journal/{DONE}", check=False).returncode == 0
    assert set_up["after"].endswith("/staff") and set_up["desk"], set_up
    assert pi.ssh("timedatectl show -p Timezone --value").stdout.strip() == "Europe/Rome"


def staff(pi: EmulatedPi) -> Staff:
    """A staff phone that accepted the table's own certificate, logged in and acting as the owner."""
    cert = pi.certificate()
    return until(lambda: as_owner_once_answering(Staff(pi.staff_web(), cafile=cert, by_name=False)),
                 "the staff page's login", 300)


def test_the_staff_api_answers_the_pin_set_on_the_set_up_page(pi, set_up):
    phone = staff(pi)
    status, table = phone.call("GET", "/staff/api/table")
    assert status == 200 and isinstance(table, dict), table


def electrode_of(cell: int) -> int:
    from pi_table.config import defaults

    return defaults()["touch.cell_electrodes"][cell]


def test_a_game_is_played_by_touches_through_the_pis_usb_serial(pi):
    """A finger on the emulated board on this machine: its frames through QEMU's FTDI, the kernel's
    ftdi_sio and the table's own driver; each guess revealed."""
    board = pi.status()["state"]["board"]
    hidden = [cell for cell, shown in enumerate(board) if shown == "?"][:2]
    for cell in hidden:
        pi.board.tap(electrode_of(cell), 1500)
        until(lambda cell=cell: pi.status()["state"]["board"][cell] != "?", f"card {cell} revealed", 60, pi, every=1)
    FIGURES["guesses"] = len(hidden)


def upload(phone: Staff, bundle: Path) -> tuple[int, object]:
    """The bundle from the phone, as the staff page's script sends it."""
    cookie = "; ".join(f"{c.name}={c.value}" for c in phone.cookies)
    request = urllib.request.Request(f"{phone.base}/staff/api/update?bundle={bundle.name}", data=bundle.read_bytes(),
                                     method="POST", headers={"X-Staff-Token": phone.csrf or "", "Cookie": cookie,
                                                             "Content-Type": "application/gzip"})
    try:
        with phone.opener.open(request, timeout=600) as answer:  # over https, the table's certificate trusted
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def helper_done(pi: EmulatedPi, since: float) -> dict:
    def ended():
        done = pi.ssh("cat /opt/pi-table/last.json; echo; systemctl is-active pi-table-helper.service", check=False)
        try:
            last, state = done.stdout.rsplit("\n", 2)[0], done.stdout.split()[-1]
            note = json.loads(last)
        except (ValueError, IndexError):
            return None
        return note if note["at"] >= since and state != "activating" else None
    return until(ended, "the root helper's update", HELPER_S, pi, every=10)


def told(pi: EmulatedPi, note: dict) -> str:
    """The helper's note whole, with the table's and the helper's journals of this boot: what a
    failed update's assertion shows, since the emulated Pi is gone by the time anyone reads it."""
    journals = {unit: pi.ssh(f"sudo journalctl -u {unit} -b --no-pager -o cat | tail -n 60", check=False).stdout
                for unit in ("pi-table", "pi-table-helper")}
    return json.dumps(note, indent=1) + "".join(f"\n--- {unit}:\n{text}" for unit, text in journals.items())


def test_a_signed_update_applies_and_one_that_cannot_start_is_rolled_back(pi, set_up, work, maker, pi_wheels):
    good, _ = bundle_for_the_pi(work, maker, pi_wheels, later(1))
    broken, _ = bundle_for_the_pi(work, maker, pi_wheels, later(2), broken=True)
    since = float(pi.ssh("date +%s").stdout)
    started = time.monotonic()
    assert upload(staff(pi), good) == (202, {"ok": True})
    last = helper_done(pi, since)
    FIGURES["a signed update, uploaded to proven"] = time.monotonic() - started
    assert last["outcome"] == "done", told(pi, last)
    until(lambda: (s := pi.answering()) and s["version"] == later(1), "the table on the update", 300, pi)

    since = float(pi.ssh("date +%s").stdout)
    started = time.monotonic()
    assert upload(staff(pi), broken) == (202, {"ok": True})
    last = helper_done(pi, since)
    FIGURES["an update that cannot start, uploaded to rolled back"] = time.monotonic() - started
    assert last["outcome"] == "rolled back", told(pi, last)
    until(lambda: (s := pi.answering()) and s["version"] == later(1), "the table back on the good release", 300, pi)
    assert "a release that cannot start, on purpose" in pi.ssh("sudo journalctl -u pi-table -b --no-pager -o cat").stdout


def test_a_power_cut_comes_back_ready_with_the_game_resumed(pi):
    before = until(pi.answering, "the table's status", 300, pi)
    pi.power_cut()
    pi.power_on()
    FIGURES["power on to READY after a power cut"] = pi.ready()
    log(f"power on to READY after a power cut: {FIGURES['power on to READY after a power cut']:.0f} s")
    after = until(pi.answering, "the table's status", 120, pi)
    assert after["game_id"] == before["game_id"]
    assert after["state"]["board"] == before["state"]["board"] and after["state"]["board"].count("?") < 25
    assert after["version"] == before["version"]
