#!/usr/bin/env bash
# Build the Debian bookworm root that tests/test_container.py boots with systemd-nspawn:
#
#   tests/container/build-root.sh DIRECTORY
#
# A minimal Debian with systemd as init, and the Debian packages systemd/install.sh asks apt
# for already in place (so the test's install does not download Debian's pygame each run; the
# installer's own apt-get then finds them installed), and git, which a café that cloned the
# repository has, and a table installed from that clone updates with (the test's update from the
# repository). Made once and kept by the test under /var/cache/pi-table-ci, named by a hash of
# this file: change the list here, get a new root.
# Everything is Debian's: python3-lgpio, which only Raspberry Pi OS's archive has, is absent,
# as it is on any plain Debian (the installer says so and goes on; see the README).
set -euo pipefail
target=${1:?usage: build-root.sh DIRECTORY}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
packages=(
  systemd systemd-sysv dbus sudo ca-certificates procps
  python3 python3-venv python3-pip python3-dev gcc libc6-dev
  python3-pygame python3-gpiozero python3-spidev python3-serial
  git
)
[ "$(id -u)" = 0 ] || { echo "build-root: needs root (debootstrap)" >&2; exit 1; }
partial=$target.partial
rm -rf "$partial"
debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus bookworm "$partial" "$mirror"
chroot "$partial" apt-get update -qq
DEBIAN_FRONTEND=noninteractive chroot "$partial" apt-get install -y -qq --no-install-recommends "${packages[@]}"
chroot "$partial" apt-get clean
# A container's own machine id and host name; no getty on the console nspawn does not attach.
: > "$partial/etc/machine-id"
echo pi-table-ci > "$partial/etc/hostname"
chroot "$partial" systemctl mask console-getty.service getty@tty1.service >/dev/null
mv "$partial" "$target"
