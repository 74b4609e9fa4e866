#!/usr/bin/env bash
# The SD image's own set-up, run by `pi-table image` in the image's root under qemu-user-static
# (pi_table/image; docs/dev/image.md), from the checkout at the bundle's commit:
#
#   systemd/image/setup.sh BUNDLE
#
# 1. systemd/install.sh from the signed bundle, as a first install on a Pi: the system packages,
#    SPI and I2C, config.txt for the display and the amplifier, the user pi-table, the root helper
#    and the keyring, the release (its signature checked against the keyring, as an update's),
#    the configuration's defaults, the units enabled, nothing started; and the first boot's unit
#    (PI_TABLE_FIRST_BOOT=1, docs/dev/first-boot.md) where the release has it: the table's secrets
#    and its set-up code are made on the table itself.
# 2. The core clock rpi-ws281x's SPI timing needs, in config.txt's section of each model:
#    install.sh sets the one of the Pi it runs on, and an image runs on any.
# 3. The image's boot unit (pi-table-image-boot.service): at each boot, the root grown to the
#    card's end, and a Pi 5's LED strip on spidev, as install.sh would choose on it.
# 4. SSH off, whatever the base had (Raspberry Pi Imager's settings turn it on); the Wi-Fi's
#    country when the maker gave one (PI_TABLE_WIFI_COUNTRY), as raspi-config sets it.
# 5. Nothing that must be one table's own: no SSH host keys (the base makes them at first boot),
#    an empty machine id (systemd makes one at first boot: the DHCP client's id comes from it),
#    no random seed, no apt lists or packages.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bundle=${1:?usage: setup.sh BUNDLE}
boot=/boot/firmware
say() { printf 'image: %s\n' "$*"; }

# 1.
PI_TABLE_BUNDLE=$bundle PI_TABLE_NO_START=1 PI_TABLE_FIRST_BOOT=1 "$here/systemd/install.sh" < /dev/null

# 2.
if ! grep -q '^core_freq=' "$boot/config.txt"; then
  printf '[pi3]\ncore_freq=250\n[pi4]\ncore_freq=500\ncore_freq_min=500\n[all]\n' >> "$boot/config.txt"
  say "core_freq for the Pi 3 and 4 in $boot/config.txt"
fi

# 3.
install -m 0755 "$here/systemd/image/boot.sh" /usr/local/sbin/pi-table-image-boot
install -m 0644 "$here/systemd/image/pi-table-image-boot.service" /etc/systemd/system/
systemctl enable pi-table-image-boot.service

# 4.
systemctl disable ssh.service ssh.socket > /dev/null 2>&1 || true
rm -f "$boot/ssh" "$boot/ssh.txt"
say "SSH off"
if [ -n "${PI_TABLE_WIFI_COUNTRY:-}" ]; then
  line=$(sed -E 's/ ?cfg80211\.ieee80211_regdom=[^ ]*//' "$boot/cmdline.txt")
  printf '%s cfg80211.ieee80211_regdom=%s\n' "$line" "$PI_TABLE_WIFI_COUNTRY" > "$boot/cmdline.txt"
  say "Wi-Fi country $PI_TABLE_WIFI_COUNTRY"
fi

# 5.
apt-get clean
rm -rf /var/lib/apt/lists/*
rm -f /etc/ssh/ssh_host_* /var/lib/systemd/random-seed
: > /etc/machine-id
say "done: $(readlink /opt/pi-table/current)"
