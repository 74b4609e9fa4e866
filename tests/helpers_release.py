"""Installs and release bundles: install.sh against a staging root, a bundle as ``pi-table bundle``
writes one, tarballs changed as someone would change them."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

from helpers import ROOT

STUBS = {
    # Each stub logs its name and arguments; users and groups live in files under $STAGE.
    "apt-get": "",
    # apt's sources offer every package but those listed in $STAGE/unavailable
    "apt-cache": 'grep -qx "$2" "$STAGE/unavailable" 2>/dev/null || printf "%s:\\n  Candidate: 1.0\\n" "$2"',
    # raspi-config remembers what it turned on: get_spi prints 0 once do_spi 0 ran
    "raspi-config": 'case "$2" in do_*) touch "$STAGE/${2#do_}-on" ;; get_*) [ -e "$STAGE/${2#get_}-on" ]; echo $? ;; esac',
    "systemctl": "",
    "usermod": "",
    "chown": "",  # the staging root's files stay the tester's; the log says who would own them
    "getent": 'grep -q "^$2:" "$STAGE/$1" 2>/dev/null',
    "groupadd": 'echo "${@: -1}:" >> "$STAGE/group"',
    "useradd": 'echo "${@: -1}:" >> "$STAGE/passwd"',
}


INSTALL = ROOT / "systemd" / "install.sh"


class Installer:
    """install.sh run against a staging root, with stubs for the system commands it calls."""

    def __init__(self, tmp: Path, model: str | None, boot_config: str = "dtparam=audio=on\n") -> None:
        self.root = tmp / "root"
        self.stage = tmp / "stage"
        self.log = self.stage / "log"
        bin_dir = self.stage / "bin"
        bin_dir.mkdir(parents=True)
        for name, body in STUBS.items():
            stub = bin_dir / name
            stub.write_text(f'#!/usr/bin/env bash\necho "{name} $*" >> "$STAGE/log"\n{body}\n')
            stub.chmod(0o755)
        (self.stage / "group").write_text("gpio:\nspi:\ni2c:\ndialout:\nvideo:\ninput:\naudio:\n")  # no render yet
        if model is not None:  # None: no device tree, as on a PC
            (self.root / "proc/device-tree").mkdir(parents=True)
            (self.root / "proc/device-tree/model").write_text(model + "\0")
        (self.root / "boot/firmware").mkdir(parents=True)
        (self.root / "boot/firmware/config.txt").write_text(boot_config)
        self.env = {
            **os.environ,
            "PATH": f"{bin_dir}:{os.environ['PATH']}",
            "STAGE": str(self.stage),
            "PI_TABLE_ROOT": str(self.root),
            "PYTHON": sys.executable,
        }

    def run(self) -> subprocess.CompletedProcess:
        self.log.write_text("")
        return subprocess.run([str(INSTALL)], env=self.env, capture_output=True, text=True, timeout=600)

    def unavailable(self, *packages: str) -> None:
        """Packages apt's sources do not offer."""
        (self.stage / "unavailable").write_text("".join(f"{package}\n" for package in packages))

    def calls(self, name: str) -> list[str]:
        return [line for line in self.log.read_text().splitlines() if line.split()[0] == name]

    @property
    def config(self) -> Path:
        return self.root / "etc/pi-table/config.toml"

    def pi_table(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([self.root / "opt/pi-table/venv/bin/pi-table", *args], capture_output=True, text=True)

    def config_problems(self) -> list[str]:
        """check-config's complaints about the installed file, but for what this machine lacks:
        the file names the Pi's folders and group, which the stubs made only in the staging
        root (and which a test that is not root may not write in)."""
        done = self.pi_table("check-config", str(self.config))
        assert (done.returncode == 0) == (done.stderr == ""), done.stderr
        from pi_table.config import check_machine, defaults

        lacking = [key for key, _ in check_machine(defaults())]
        return [line for line in done.stderr.splitlines() if not any(f": {key}: " in line for key in lacking)]


# --- release bundles, as pi-table bundle writes them -----------------------------------------------

BUNDLE_SECRET = "the-contents-nobody-may-see"
"""What the stand-in wheels hold: no refusal may show it."""


def bundle_wheels(version: str) -> dict[str, bytes]:
    return {f"pi_table-{version}-py3-none-any.whl": f"# {BUNDLE_SECRET} {version}\n".encode(),
            "segno-1.6.6-py3-none-any.whl": b"segno's wheel\n"}


def signed_bundle(path: Path, key: Path | None, version: str = "0.2.0", wheels_version: str | None = None,
                  **manifest_changes) -> Path:
    """A bundle as pi-table bundle writes one (its wheels stand-ins: the helper never opens them),
    signed with ``key`` (None: not signed); its pi-table wheel ``wheels_version`` (``version``'s)."""
    import hashlib
    import tarfile

    from pi_table.release import bundle, keys

    wheels = bundle_wheels(wheels_version or version)
    manifest = {"format": bundle.FORMAT, "name": "pi-table", "version": version, "commit": "0" * 40, "target": "pi",
                "made": 1.0, "files": {f"wheels/{name}": hashlib.sha256(data).hexdigest() for name, data in wheels.items()},
                **manifest_changes}
    data = json.dumps(manifest).encode()
    with tarfile.open(path, "w:gz") as out:
        bundle._add(out, bundle.MANIFEST, data, 1.0)
        if key is not None:
            bundle._add(out, bundle.SIGNATURE, keys.sign(data, key), 1.0)
        for name, content in wheels.items():
            bundle._add(out, f"wheels/{name}", content, 1.0)
    return path


def packed(members: list[tuple[tarfile.TarInfo, bytes]], manifest: dict | None = None, extra: bytes = b"") -> bytes:
    """A .tar.gz of ``members`` with a manifest that lists the regular ones (or ``manifest``)."""
    listed = {info.name: {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()} for info, data in members
              if info.isreg()}
    body = json.dumps(manifest or {"format": "pi-table backup", "version": 1, "files": listed}).encode()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.addfile(member("manifest.json", len(body)), io.BytesIO(body))
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buffer.getvalue() + extra


def member(name: str, size: int = 0, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size, info.type, info.linkname = size, kind, link
    return info


def regular(name: str, data: bytes = b"x") -> tuple[tarfile.TarInfo, bytes]:
    return member(name, len(data)), data


def repacked(data: bytes, change) -> bytes:
    """``data``'s members as ``change(name, bytes)`` leaves them (None: left out), in a new .tar.gz."""
    out = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(data)) as source, tarfile.open(fileobj=out, mode="w:gz") as archive:
        for info in source.getmembers():
            extracted = source.extractfile(info)
            changed = change(info.name, extracted.read() if extracted else b"")
            if changed is not None:
                info.size = len(changed)
                archive.addfile(info, io.BytesIO(changed))
    return out.getvalue()


def fix_manifest(data: bytes) -> bytes:
    """``data`` with its manifest made to match its files again (as someone who edited it would)."""
    with tarfile.open(fileobj=io.BytesIO(data)) as source:
        bodies = {info.name: source.extractfile(info).read() for info in source.getmembers()}  # type: ignore[union-attr]
    del bodies["manifest.json"]
    return packed([regular(name, body) for name, body in bodies.items()])
