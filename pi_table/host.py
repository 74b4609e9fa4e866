"""This computer's own health, as the staff page shows it: the disk the journal is on, the CPU's
temperature, the Raspberry Pi firmware's undervoltage and throttling flags, memory and uptime.

Everything is read from ``/sys`` and ``/proc`` (and ``statvfs``), which the service may read under
its hardening; a reading this machine does not offer (no thermal zone in a container, no Pi
firmware off a Pi) is None, never an error. ``root`` is ``/`` but in tests.

The firmware's flags are the bits ``vcgencmd get_throttled`` prints, which the Pi's kernel also
gives to any reader in ``/sys/devices/platform/soc/soc:firmware/get_throttled`` (hexadecimal):
bit 0 under-voltage now, 1 the ARM's frequency capped now, 2 throttled now, 3 the soft
temperature limit now; bits 16 to 19 the same, at any time since the boot.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STAND_INS: set[object] = set()
"""The tables of this process whose computer is a stand-in machine (``daemon.stand_in``): while
there is one, every page says the table is simulated (``web.document.simulated``)."""
THROTTLED = "sys/devices/platform/soc/soc:firmware/get_throttled"
THERMAL = "sys/class/thermal"
MB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Power:
    """The firmware's flags, now and since the boot."""

    under_voltage: bool
    throttled: bool  # throttled, or its frequency capped
    too_hot: bool  # the soft temperature limit
    under_voltage_since_boot: bool
    throttled_since_boot: bool
    too_hot_since_boot: bool

    @classmethod
    def from_bits(cls, bits: int) -> Power:
        return cls(under_voltage=bool(bits & 0x1), throttled=bool(bits & 0x6), too_hot=bool(bits & 0x8),
                   under_voltage_since_boot=bool(bits & 0x10000), throttled_since_boot=bool(bits & 0x60000),
                   too_hot_since_boot=bool(bits & 0x80000))


@dataclass(frozen=True, slots=True)
class Readings:
    """One look at the machine; None where it has no such reading."""

    disk_free_mb: float | None
    disk_total_mb: float | None
    cpu_temp_c: float | None
    power: Power | None
    memory_available_mb: float | None
    memory_total_mb: float | None
    uptime_s: float | None  # the machine's, since its boot

    def to_json(self) -> dict[str, Any]:
        return {"disk_free_mb": self.disk_free_mb, "disk_total_mb": self.disk_total_mb, "cpu_temp_c": self.cpu_temp_c,
                "power": None if self.power is None else {name: getattr(self.power, name)
                                                          for name in Power.__dataclass_fields__},
                "memory_available_mb": self.memory_available_mb, "memory_total_mb": self.memory_total_mb,
                "uptime_s": self.uptime_s}


def read(disk: Path, root: Path = Path("/")) -> Readings:
    """The readings, the disk's for the folder ``disk`` (the journal's: what a full disk stops)."""
    free = total = None
    try:
        fs = os.statvfs(disk)
        free, total = round(fs.f_bavail * fs.f_frsize / MB, 1), round(fs.f_blocks * fs.f_frsize / MB, 1)
    except OSError:
        pass
    memory = _meminfo(root)
    return Readings(disk_free_mb=free, disk_total_mb=total, cpu_temp_c=_cpu_temp(root), power=_power(root),
                    memory_available_mb=memory.get("MemAvailable"), memory_total_mb=memory.get("MemTotal"),
                    uptime_s=_uptime(root))


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None


def _cpu_temp(root: Path) -> float | None:
    """The CPU's zone (the Pi's one zone is cpu-thermal), else the first zone with a reading."""
    try:
        zones = sorted((root / THERMAL).glob("thermal_zone*"))
    except OSError:
        return None
    readings = []
    for zone in zones:
        millidegrees = _text(zone / "temp")
        if millidegrees is None or not millidegrees.lstrip("-").isdigit():
            continue
        kind = _text(zone / "type") or ""
        readings.append((0 if "cpu" in kind else 1, round(int(millidegrees) / 1000, 1)))
    return min(readings)[1] if readings else None


def _power(root: Path) -> Power | None:
    text = _text(root / THROTTLED)
    if not text:
        return None
    try:
        return Power.from_bits(int(text.removeprefix("0x"), 16))
    except ValueError:
        return None


def _meminfo(root: Path) -> dict[str, float]:
    """``/proc/meminfo``'s figures in MB, by name."""
    found = {}
    for line in (_text(root / "proc/meminfo") or "").splitlines():
        name, _, rest = line.partition(":")
        figures = rest.split()
        if figures and figures[0].isdigit():
            found[name] = round(int(figures[0]) / 1024, 1)  # kB
    return found


def _uptime(root: Path) -> float | None:
    text = _text(root / "proc/uptime")
    try:
        return float(text.split()[0]) if text else None
    except ValueError:
        return None
