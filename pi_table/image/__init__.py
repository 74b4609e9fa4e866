"""The SD image: Raspberry Pi OS Lite with pi-table installed, flashed with Raspberry Pi Imager and
booted into the table (docs/dev/image.md). Built beside a table, on a maker's machine or in CI,
never on one: ``build`` takes a base image whose SHA-256 it was given and a signed release bundle
(``pi_table.release.bundle``), opens the image's partitions on loop devices (``disk``), runs
``systemd/image/setup.sh`` in its root under qemu-user-static (the installer, from the bundle, and
what an image adds: the boot unit that grows the root, SSH off, no secret), and writes the
compressed image, its SHA-256 and an entry of Raspberry Pi Imager's OS list (``imager``).
``wheels`` builds, in the same root, the Pi's wheels the package index has none of (rpi-ws281x),
which ``pi-table bundle --wheels-from`` takes.

Root's, like the installer: it attaches loop devices, mounts and chroots. Imported by
``pi-table image`` only when it runs.
"""

from .build import build, wheels
from .disk import ImageError

__all__ = ["ImageError", "build", "wheels"]
