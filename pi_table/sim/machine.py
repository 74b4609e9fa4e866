"""The machine's programs as a stand-in machine plays them (``daemon.stand_in``, and the tests'
stand-ins of a table's computer: one copy): Debian's packages (dpkg-query, and an
unattended-upgrade that patches them and leaves the reboot flag) and a USB stick as lsblk lists it."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

BEFORE = "openssl:arm64\t3.0.11-1~deb12u2\nlibc6:arm64\t2.36-9+deb12u4\nbase-files:arm64\t12.4+deb12u5\n"
PATCHED = "openssl:arm64\t3.0.15-1~deb12u1\nlibc6:arm64\t2.36-9+deb12u9\nbase-files:arm64\t12.4+deb12u5\n"
"""Debian's packages installed, and after the security updates: two of them patched, libc6 due a reboot."""
USB_STICK: dict[str, object] = {
    "name": "sdb", "path": "/dev/sdb", "type": "disk", "tran": "usb", "rm": True, "hotplug": True,
    "fstype": None, "label": None, "mountpoint": None,
    "children": [{"name": "sdb1", "path": "/dev/sdb1", "type": "part", "tran": None, "rm": True,
                  "hotplug": True, "fstype": "vfat", "label": "CAFE", "mountpoint": None}]}
"""A USB stick as ``lsblk --json`` lists it."""


def lsblk_listing(*disks: dict[str, object]) -> str:
    """What ``lsblk --json`` prints of ``disks``."""
    return json.dumps({"blockdevices": list(disks)})


def program(path: Path, body: str) -> str:
    """A shell program at ``path`` running ``body``; its path."""
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return str(path)


def debian(folder: Path, flag: Path, calls: Path, patched: str = PATCHED, upgrade_exit: int = 0,
           reboot: bool = True) -> tuple[str, str]:
    """Debian's packages in ``folder`` (its dpkg database as dpkg-query prints it, kept if there
    is one): ``dpkg-query`` and an ``unattended-upgrade`` that patches them to ``patched`` and,
    with ``reboot``, leaves the reboot ``flag`` (or fails with ``upgrade_exit``), each noting its
    calls in ``calls``; their paths."""
    db = folder / "dpkg"
    if not db.exists():
        db.write_text(BEFORE)
    (folder / "patched").write_text(patched)
    query = program(folder / "dpkg-query", f"""\
        echo "dpkg-query $*" >> "{calls}"
        while read -r package version; do printf 'ii \\t%s\\t%s\\n' "$package" "$version"; done < "{db}"
        """)
    leave = f'echo "libc6" > "{flag}.pkgs"; touch "{flag}"' if reboot else ":"
    upgrade = program(folder / "unattended-upgrade", f"""\
        echo "unattended-upgrade $*" >> "{calls}"
        if [ {upgrade_exit} -ne 0 ]; then echo "E: Could not get lock /var/lib/dpkg/lock-frontend" >&2; exit {upgrade_exit}; fi
        cp "{folder / "patched"}" "{db}"
        {leave}
        """)
    return query, upgrade
